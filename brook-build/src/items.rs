//! A Brook program's file-scope items: preprocessor lines, kernel and reduce definitions,
//! plain functions, types and globals, each with its token range. Finding item boundaries needs
//! only brackets and semicolons, so host C that the kernel grammar cannot parse is fine here.

use std::ops::Range;

use crate::scan::{Kind, Token};

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ItemKind {
    /// A preprocessor line.
    Directive,
    /// `kernel …` or `reduce …` function definition: the front end's.
    Kernel { name: String },
    /// A function definition without `kernel`/`reduce`: host code, or a helper kernels call.
    Function { name: String },
    /// `kernel …(…);` or `reduce …(…);` without a body, as the original's `.brh` headers
    /// declared them: the definition's stub declares it, so it becomes nothing.
    Prototype { name: String },
    /// `struct …;` or `typedef …;`: the names it defines.
    Type { names: Vec<String> },
    /// Any other file-scope declaration; `is_const` when it starts with `const`.
    Global { names: Vec<String>, is_const: bool },
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Item {
    pub kind: ItemKind,
    /// Token indices.
    pub tokens: Range<usize>,
    /// Byte range in the source, first token to last.
    pub span: Range<usize>,
}

/// Splits the tokens into file-scope items.
pub fn items(src: &str, toks: &[Token]) -> Vec<Item> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < toks.len() {
        let end = if toks[i].kind == Kind::Directive {
            i + 1
        } else {
            item_end(src, toks, i)
        };
        let range = i..end;
        out.push(Item {
            kind: classify(src, &toks[range.clone()]),
            span: toks[i].span.start..toks[end - 1].span.end,
            tokens: range,
        });
        i = end;
    }
    out
}

/// One past the last token of the item starting at `start`: its `;` at depth 0, or the `}`
/// closing a function body.
fn item_end(src: &str, toks: &[Token], start: usize) -> usize {
    let mut depth = 0usize;
    let mut function_body = false;
    for (j, t) in toks.iter().enumerate().skip(start) {
        match t.text(src) {
            "{" if depth == 0 && j > start && toks[j - 1].is(src, ")") => {
                function_body = true;
                depth += 1;
            }
            "(" | "[" | "{" => depth += 1,
            ")" | "]" => depth = depth.saturating_sub(1),
            "}" => {
                depth = depth.saturating_sub(1);
                if depth == 0 && function_body {
                    return j + 1;
                }
            }
            ";" if depth == 0 => return j + 1,
            _ => {}
        }
    }
    toks.len()
}

fn classify(src: &str, toks: &[Token]) -> ItemKind {
    let text = |k: usize| toks[k].text(src);
    if toks[0].kind == Kind::Directive {
        return ItemKind::Directive;
    }
    let first_paren = toks.iter().position(|t| t.is(src, "("));
    let is_function = toks.last().is_some_and(|t| t.is(src, "}"))
        && first_paren.is_some_and(|p| !toks[..p].iter().any(|t| t.is(src, "{") || t.is(src, "=")));
    let qualified = |p: usize| {
        toks[..p]
            .iter()
            .any(|t| t.is(src, "kernel") || t.is(src, "reduce"))
    };
    if let (false, Some(p)) = (is_function, first_paren) {
        if p > 0 && qualified(p) && toks.last().is_some_and(|t| t.is(src, ";")) {
            return ItemKind::Prototype {
                name: text(p - 1).to_string(),
            };
        }
    }
    if let (true, Some(p)) = (is_function, first_paren) {
        let name = if p > 0 {
            text(p - 1).to_string()
        } else {
            String::new()
        };
        return if qualified(p) {
            ItemKind::Kernel { name }
        } else {
            ItemKind::Function { name }
        };
    }
    match text(0) {
        "struct" | "typedef" => {
            let mut names = Vec::new();
            if let Some(k) = toks.iter().position(|t| t.is(src, "struct")) {
                if toks.get(k + 1).is_some_and(|t| t.kind == Kind::Ident) {
                    names.push(text(k + 1).to_string());
                }
            }
            let n = toks.len();
            if text(0) == "typedef" && n >= 2 && toks[n - 2].kind == Kind::Ident {
                names.push(text(n - 2).to_string());
            }
            ItemKind::Type { names }
        }
        _ => ItemKind::Global {
            names: declared_names(src, toks),
            is_const: text(0) == "const",
        },
    }
}

/// Names declared at bracket depth 0 of a declaration: identifiers followed by `=`, `,`, `;`
/// or `[`.
fn declared_names(src: &str, toks: &[Token]) -> Vec<String> {
    let mut depth = 0usize;
    let mut names = Vec::new();
    for (k, t) in toks.iter().enumerate() {
        match t.text(src) {
            "(" | "[" | "{" => depth += 1,
            ")" | "]" | "}" => depth = depth.saturating_sub(1),
            _ => {}
        }
        let follows = toks.get(k + 1).map(|n| n.text(src));
        if depth == 0 && t.kind == Kind::Ident && matches!(follows, Some("=" | "," | ";" | "[")) {
            names.push(t.text(src).to_string());
        }
    }
    names
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scan::tokenize;

    #[test]
    fn splits_and_classifies_items() {
        let src = "#include <stdio.h>\n\
                   typedef struct pair_t { float2 a; float b; } Pair;\n\
                   const int N = 4, M[2] = {1, 2};\n\
                   kernel void k(float a<>, out float b<>) { b = sq(a); }\n\
                   kernel void k(float a<>, out float b<>);\n\
                   float sq(float x) { return x * x; }\n\
                   int main(void) { float s<N>; if (1) { } return 0; }\n";
        let toks = tokenize(src).unwrap();
        let kinds: Vec<ItemKind> = items(src, &toks).into_iter().map(|i| i.kind).collect();
        assert_eq!(
            kinds,
            [
                ItemKind::Directive,
                ItemKind::Type {
                    names: vec!["pair_t".into(), "Pair".into()]
                },
                ItemKind::Global {
                    names: vec!["N".into(), "M".into()],
                    is_const: true
                },
                ItemKind::Kernel { name: "k".into() },
                ItemKind::Prototype { name: "k".into() },
                ItemKind::Function { name: "sq".into() },
                ItemKind::Function {
                    name: "main".into()
                },
            ]
        );
    }
}
