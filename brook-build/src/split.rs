//! Which parts of a Brook program the kernel compiler sees: kernels and reductions, the plain
//! functions they call, and the structs, typedefs, `const` globals and object-like `#define`s
//! they (or host stream declarations) use. Everything else is host C.
//!
//! The kernel part is the original text with every other byte blanked (newlines kept), so
//! the front end's diagnostics carry the original line and column numbers.

use std::collections::HashSet;

use crate::items::{Item, ItemKind};
use crate::scan::{Kind, Token};

/// The kernel part's membership, one flag per item.
pub struct Split {
    pub in_kernels: Vec<bool>,
    /// The original source with non-kernel items blanked and trailing blanks trimmed.
    pub kernel_source: String,
}

/// Splits `items`; `stream_types` are the element types host stream declarations name.
pub fn split(src: &str, toks: &[Token], items: &[Item], stream_types: &HashSet<String>) -> Split {
    let mut in_kernels: Vec<bool> = items
        .iter()
        .map(|item| match &item.kind {
            ItemKind::Kernel { .. } => true,
            ItemKind::Type { names } => names.iter().any(|n| stream_types.contains(n)),
            ItemKind::Directive => is_plain_define(item.tokens.clone(), toks, src),
            _ => false,
        })
        .collect();
    // Close over what the kernel part uses: called functions, named types and constants.
    loop {
        let (names, calls) = used_names(src, toks, items, &in_kernels);
        let mut grew = false;
        for (item, flag) in items.iter().zip(in_kernels.iter_mut()) {
            let wanted = match &item.kind {
                ItemKind::Function { name } => calls.contains(name),
                ItemKind::Type { names: defined } => defined.iter().any(|n| names.contains(n)),
                ItemKind::Global {
                    names: defined,
                    is_const: true,
                } => defined.iter().any(|n| names.contains(n)),
                _ => false,
            };
            if wanted && !*flag {
                *flag = true;
                grew = true;
            }
        }
        if !grew {
            break;
        }
    }
    let kernel_source = blank_except(src, items, &in_kernels);
    Split {
        in_kernels,
        kernel_source,
    }
}

/// Identifiers in the kernel part, and those of them followed by `(` (calls).
fn used_names(
    src: &str,
    toks: &[Token],
    items: &[Item],
    in_kernels: &[bool],
) -> (HashSet<String>, HashSet<String>) {
    let mut names = HashSet::new();
    let mut calls = HashSet::new();
    for (item, _) in items.iter().zip(in_kernels).filter(|(_, k)| **k) {
        for k in item.tokens.clone() {
            if toks[k].kind == Kind::Ident {
                let name = toks[k].text(src).to_string();
                if toks.get(k + 1).is_some_and(|t| t.is(src, "(")) {
                    calls.insert(name.clone());
                }
                names.insert(name);
            }
        }
    }
    (names, calls)
}

/// `#define NAME body` without parameters or literals: something the kernel lexer can expand.
fn is_plain_define(range: std::ops::Range<usize>, toks: &[Token], src: &str) -> bool {
    let text = toks[range.start].text(src);
    let Some(rest) = text.strip_prefix('#').map(str::trim_start) else {
        return false;
    };
    let Some(def) = rest.strip_prefix("define") else {
        return false;
    };
    let def = def.trim_start();
    let name_len = def
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .unwrap_or(def.len());
    name_len > 0 && !def[name_len..].starts_with('(') && !def.contains(['"', '\''])
}

fn blank_except(src: &str, items: &[Item], keep: &[bool]) -> String {
    let mut bytes: Vec<u8> = src
        .bytes()
        .map(|b| if b == b'\n' { b'\n' } else { b' ' })
        .collect();
    for (item, _) in items.iter().zip(keep).filter(|(_, k)| **k) {
        bytes[item.span.clone()].copy_from_slice(&src.as_bytes()[item.span.clone()]);
    }
    let text = String::from_utf8(bytes).expect("whole items of a UTF-8 text are UTF-8");
    let mut out: String = text
        .lines()
        .map(|l| format!("{}\n", l.trim_end()))
        .collect();
    out.truncate(out.trim_end().len());
    out.push('\n');
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::items::items;
    use crate::scan::tokenize;

    #[test]
    fn kernel_part_keeps_what_kernels_use_at_the_same_lines() {
        let src = "#include <stdio.h>\n\
                   #define N 4\n\
                   #define SHOW(x) printf(\"%f\", x)\n\
                   typedef struct { float a; } S;\n\
                   typedef struct { float b; } Host;\n\
                   const float K = 2.0;\n\
                   float sq(float x) { return x * x * K; }\n\
                   void host_only(void) { }\n\
                   kernel void k(S s<>, out float r<>) { r = sq(s.a); }\n\
                   int main() { return 0; }\n";
        let toks = tokenize(src).unwrap();
        let items = items(src, &toks);
        let s = split(src, &toks, &items, &HashSet::new());
        assert_eq!(
            s.in_kernels,
            [false, true, false, true, false, true, true, false, true, false]
        );
        let lines: Vec<&str> = s.kernel_source.lines().collect();
        assert_eq!(lines[0], "");
        assert_eq!(lines[1], "#define N 4");
        assert_eq!(lines[4], "");
        assert!(lines[8].starts_with("kernel void k"));
        assert_eq!(lines.len(), 9);
    }
}
