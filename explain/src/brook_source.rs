//! The Brook source a card quotes: the function's definition and the host lines calling it.

use brook_core::SourceText;

use crate::cards::Card;
use crate::highlight::highlight;

pub struct SourceLine {
    pub number: usize,
    /// The line as coloured, escaped HTML.
    pub html: String,
}

/// The Brook function `name` defined at `line`: from that line to its closing brace (at most
/// 40 lines), from the source that has it there.
pub fn excerpt(card: &mut Card, name: &str, line: usize, sources: &[SourceText]) {
    let at = |s: &SourceText| s.text.lines().nth(line.wrapping_sub(1)).map(str::to_string);
    let Some((source, _)) = sources
        .iter()
        .filter_map(|s| at(s).map(|l| (s, l)))
        .find(|(_, l)| l.contains(name))
        .or_else(|| sources.iter().find_map(|s| at(s).map(|l| (s, l))))
    else {
        return;
    };
    card.source_at = format!("{}:{line}", source.name);
    let mut depth = 0i32;
    let mut opened = false;
    let mut texts = Vec::new();
    for text in source.text.lines().skip(line - 1).take(40) {
        texts.push(text);
        for c in text.chars() {
            match c {
                '{' => (depth, opened) = (depth + 1, true),
                '}' => depth -= 1,
                _ => {}
            }
        }
        if opened && depth <= 0 {
            break;
        }
    }
    card.source = highlight(texts)
        .into_iter()
        .enumerate()
        .map(|(k, html)| SourceLine {
            number: line + k,
            html,
        })
        .collect();
}

/// `file:LINE` of every line outside the function's own excerpt where `name(` is called:
/// the host code's calls (the trace knows the function, not which call ran).
pub fn call_sites(
    name: &str,
    sources: &[SourceText],
    own_file: &str,
    own: &[SourceLine],
) -> Vec<String> {
    let own: Vec<usize> = own.iter().map(|l| l.number).collect();
    let called = |text: &str| {
        text.match_indices(name).any(|(at, _)| {
            let before = text[..at].chars().next_back();
            let after = text[at + name.len()..].trim_start();
            !before.is_some_and(|c| c.is_alphanumeric() || c == '_') && after.starts_with('(')
        })
    };
    sources
        .iter()
        .flat_map(|s| {
            s.text
                .lines()
                .enumerate()
                .filter(|(_, text)| called(text) && !text.trim_start().starts_with("//"))
                .map(move |(k, _)| (s.name.as_str(), k + 1))
        })
        .filter(|(file, line)| *file != own_file || !own.contains(line))
        .map(|(file, line)| format!("{file}:{line}"))
        .collect()
}
