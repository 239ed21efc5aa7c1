#!/usr/bin/env bash
# Regenerates the pipeline explorer's example sites in docs/explain/ and their screenshots,
# with the same headless Chromium the browser test (tests/explain.rs) uses.
# Run from the repository root: docs/explain/make.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
cargo build --features brcc --bin brcc
for pair in saxpy:saxpy reduction:reduce_sum scatter:scatter mask:gather_op_and_masks vout:vout_from_host; do
    name=${pair%%:*}
    program=${pair#*:}
    rm -rf "docs/explain/$name"
    target/debug/brcc explain "tests/programs/$program.br" -o "docs/explain/$name" >/dev/null
    profile=$(mktemp -d)
    chromium --headless --no-sandbox --disable-gpu --hide-scrollbars --user-data-dir="$profile" \
        --window-size=1100,1300 --virtual-time-budget=5000 \
        --screenshot="docs/explain/$name.png" "file://$PWD/docs/explain/$name/index.html" 2>/dev/null
    rm -rf "$profile"
done
