//! Syntax colouring for the page's code: Brook source and shaders through syntect's C grammar
//! (Brook is C with streams, and GLSL and WGSL read well enough as C), one line at a time so
//! each line stays its own balanced HTML (the page numbers Brook lines and marks the quoted
//! ones in shaders). Colours are inline styles from one light theme: the site stays one file
//! of HTML with no stylesheet to ship.

use std::sync::OnceLock;

use syntect::easy::HighlightLines;
use syntect::highlighting::{Theme, ThemeSet};
use syntect::html::{styled_line_to_highlighted_html, IncludeBackground};
use syntect::parsing::SyntaxSet;

/// The grammars and the theme, loaded once per process (tens of milliseconds).
fn assets() -> &'static (SyntaxSet, Theme) {
    static ASSETS: OnceLock<(SyntaxSet, Theme)> = OnceLock::new();
    ASSETS.get_or_init(|| {
        let syntaxes = SyntaxSet::load_defaults_newlines();
        let mut themes = ThemeSet::load_defaults().themes;
        let theme = themes
            .remove("InspiredGitHub")
            .expect("syntect's default themes include InspiredGitHub");
        (syntaxes, theme)
    })
}

/// The lines of one text (a function's source, one shader stage) as HTML, escaped and
/// coloured; a line the grammar cannot take is shown escaped and plain.
pub fn highlight<'a>(lines: impl IntoIterator<Item = &'a str>) -> Vec<String> {
    let (syntaxes, theme) = assets();
    let c = syntaxes
        .find_syntax_by_extension("c")
        .unwrap_or_else(|| syntaxes.find_syntax_plain_text());
    let mut colours = HighlightLines::new(c, theme);
    lines
        .into_iter()
        .map(|line| {
            let with_newline = format!("{line}\n");
            colours
                .highlight_line(&with_newline, syntaxes)
                .ok()
                .and_then(|regions| {
                    // The grammar needs the newline; the page's lines end without one.
                    let regions: Vec<_> = regions
                        .into_iter()
                        .map(|(style, text)| (style, text.trim_end_matches('\n')))
                        .collect();
                    styled_line_to_highlighted_html(&regions, IncludeBackground::No).ok()
                })
                .unwrap_or_else(|| escape(line))
        })
        .collect()
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The visible text of some HTML: tags dropped, the escapes syntect uses undone.
    fn text(html: &str) -> String {
        let mut out = String::new();
        let mut in_tag = false;
        for c in html.chars() {
            match c {
                '<' => in_tag = true,
                '>' => in_tag = false,
                c if !in_tag => out.push(c),
                _ => {}
            }
        }
        out.replace("&lt;", "<")
            .replace("&gt;", ">")
            .replace("&quot;", "\"")
            .replace("&amp;", "&")
    }

    #[test]
    fn lines_keep_their_text_escaped_and_gain_colours() {
        let src = "kernel void k(float a<>, out float b<>) {\n    /* a < b && */ b = a * 2.0;\n}";
        let html = highlight(src.lines());
        assert_eq!(html.len(), 3);
        for (h, line) in html.iter().zip(src.lines()) {
            assert_eq!(text(h), line);
            assert!(!h.contains("<>") && !h.contains(" < b"), "unescaped: {h}");
        }
        // Keywords and comments are coloured: some styled span on each line.
        assert!(html[0].contains("<span style=\"color:"), "{}", html[0]);
        assert!(html[1].contains("<span style=\"color:"), "{}", html[1]);
    }

    #[test]
    fn a_comment_open_across_lines_leaves_each_line_balanced() {
        let html = highlight(["/* one", "two */ int x;"]);
        for h in &html {
            assert_eq!(
                h.matches("<span").count(),
                h.matches("</span>").count(),
                "{h}"
            );
        }
    }
}
