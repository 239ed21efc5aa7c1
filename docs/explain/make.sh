#!/usr/bin/env bash
# Regenerates the pipeline explorer's example sites in docs/explain/ and their screenshots.
# The browser test (tests/explain.rs, the_docs_sites_load_and_their_screenshots_are_not_blank)
# makes them: it runs `brcc explain` on each program, loads each page in headless Chromium
# (every image loaded, no console error), screenshots it and checks the screenshot is not blank;
# BROOK_EXPLAIN_SCREENSHOTS tells it to write into this directory instead of a temporary one.
# Run from anywhere: docs/explain/make.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
BROOK_EXPLAIN_SCREENSHOTS=docs/explain \
    cargo test --test explain the_docs_sites_load_and_their_screenshots_are_not_blank
