//! The front end never panics, hangs or overflows the stack: deep-but-legal programs compile
//! on an ordinary test thread, and random or mangled input only ever gives diagnostics.

use brook_frontend::{compile, pretty};
use proptest::collection::vec;
use proptest::prelude::*;
use proptest::sample::select;

fn kernel(body: &str) -> String {
    format!("kernel void k(float a<>, out float b<>) {{\n{body}\n}}\n")
}

#[test]
fn deep_but_legal_nesting_compiles() {
    let programs = [
        // Parenthesised binary operators: ~250 levels of expression.
        kernel(&format!(
            "    b = {}a{};",
            "(a + ".repeat(250),
            ")".repeat(250)
        )),
        // Unary operators without brackets.
        kernel(&format!("    b = {}a;", "- ".repeat(250))),
        // A right-nested ternary chain.
        kernel(&format!("    b = {}a;", "a > 0.0 ? a : ".repeat(120))),
        // Nested blocks.
        kernel(&format!(
            "    {} b = a; {}",
            "{".repeat(250),
            "}".repeat(250)
        )),
        // Nested ifs without braces, and an else-if chain.
        kernel(&format!("    {}b = a;", "if (a > 0.0) ".repeat(240))),
        kernel(&format!(
            "    b = 0.0;\n    {}{{ b = 1.0; }}",
            "if (a > 1.0) { b = 2.0; } else ".repeat(120)
        )),
        // Nested loops with a deep expression inside.
        kernel(&format!(
            "    float s = 0.0;\n    {} s += {}a{}; {}\n    b = s;",
            "for (int i = 0; i < 2; i++) { ".repeat(60),
            "(a * ".repeat(100),
            ")".repeat(100),
            "}".repeat(60)
        )),
        // A very long flat program (many statements) and a long argument list.
        kernel(&"    b = a + 1.0;\n".repeat(20_000)),
        kernel(&format!(
            "    b = max(a, {});",
            "a".to_string() + &", a".repeat(0)
        )),
    ];
    for src in &programs {
        let m = compile(src, "deep.br").unwrap_or_else(|d| panic!("{}", d.short()));
        let printed = pretty(&m);
        assert!(printed.contains("kernel void k"));
    }
}

#[test]
fn deep_nesting_in_every_position_is_refused_cleanly() {
    let cases = [
        kernel(&format!(
            "    b = {}a{};",
            "(a + ".repeat(5_000),
            ")".repeat(5_000)
        )),
        kernel(&format!("    b = {}a;", "!".repeat(50_000))),
        kernel(&format!("    b = {}a;", "a > 0.0 ? a : ".repeat(50_000))),
        kernel(&format!("    b = a{};", ".x".repeat(50_000))),
        kernel(&format!("    b = a{};", "[0]".repeat(50_000))),
        kernel(&format!("    {}b = a;", "while (a > 0.0) ".repeat(50_000))),
        kernel(&format!("    {}b = a;", "else ".repeat(10))),
        kernel(&format!("    b = {}a;", "(float)".repeat(50_000))),
        kernel(&format!(
            "    float t;\n    {}t = a;",
            "t = ".repeat(50_000)
        )),
        "{".repeat(100_000),
        format!(
            "#define A a a a a a a a a\n{}",
            (0..30)
                .map(|i| format!(
                    "#define B{i} {}\n",
                    if i == 0 {
                        "A A A A A A A A".to_string()
                    } else {
                        format!("B{} B{} B{} B{}", i - 1, i - 1, i - 1, i - 1)
                    }
                ))
                .collect::<String>()
        ) + "B29",
    ];
    for src in &cases {
        let r = compile(src, "deep.br");
        assert!(r.is_err(), "accepted: {}", &src[..src.len().min(200)]);
    }
}

const VOCAB: &[&str] = &[
    "kernel",
    "reduce",
    "void",
    "float",
    "float4",
    "int",
    "bool",
    "out",
    "iter",
    "vout",
    "[4]",
    "struct",
    "typedef",
    "const",
    "if",
    "else",
    "for",
    "while",
    "do",
    "break",
    "continue",
    "return",
    "discard",
    "indexof",
    "push",
    "true",
    "false",
    "(",
    ")",
    "[",
    "]",
    "{",
    "}",
    ";",
    ",",
    ".",
    "?",
    ":",
    "+",
    "-",
    "*",
    "/",
    "%",
    "++",
    "--",
    "=",
    "+=",
    "<<=",
    "==",
    "!=",
    "<",
    ">",
    "<=",
    "&&",
    "||",
    "!",
    "&",
    "|",
    "^",
    "~",
    "<<",
    ">>",
    "a",
    "b",
    "x",
    "xyz",
    "1",
    "2.5",
    ".5f",
    "1e-3",
    "#define N 3\n",
    "N",
    "/*",
    "*/",
    "//",
    "\n",
    "<>",
    "@",
    "\"",
    "mul",
    "dot",
    "float2x2",
    "S",
    "S s",
    "Ray",
];

/// Corpus programs, each a starting point for mutation.
fn corpus() -> Vec<String> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus");
    let mut sources: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "br"))
        .map(|p| std::fs::read_to_string(p).unwrap())
        .collect();
    sources.sort();
    sources
}

/// Compiles `src` and renders the diagnostics or the IR: any panic fails the property.
fn compiles_or_reports(src: &str) -> bool {
    match compile(src, "fuzz.br") {
        Ok(m) => {
            let _ = pretty(&m);
            true
        }
        Err(d) => {
            let _ = d.render();
            false
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 3_000, failure_persistence: None, ..ProptestConfig::default() })]

    /// Sequences of Brook tokens in any order.
    #[test]
    fn random_token_soup_never_panics(tokens in vec(select(VOCAB), 0..60)) {
        compiles_or_reports(&tokens.join(" "));
    }
}

/// One byte-level edit: where (as a fraction of the length), what, and a byte or span.
#[derive(Debug, Clone)]
enum Edit {
    Remove(f64),
    Insert(f64, u8),
    Swap(f64, f64),
    Cut(f64, usize),
}

fn edit() -> impl Strategy<Value = Edit> {
    let pool: &'static [u8] = b"(){};.,<>[]=+-*/!~?:#x0\n\xff";
    prop_oneof![
        (0.0..1.0).prop_map(Edit::Remove),
        (0.0..1.0, select(pool)).prop_map(|(at, b)| Edit::Insert(at, b)),
        (0.0..1.0, 0.0..1.0).prop_map(|(i, j)| Edit::Swap(i, j)),
        (0.0..1.0, 0usize..40).prop_map(|(at, n)| Edit::Cut(at, n)),
    ]
}

fn at(fraction: f64, len: usize) -> usize {
    ((fraction * len as f64) as usize).min(len.saturating_sub(1))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2_000, failure_persistence: None, ..ProptestConfig::default() })]

    /// Corpus programs with a few bytes removed, inserted, swapped or cut out.
    #[test]
    fn mangled_corpus_never_panics(which in any::<prop::sample::Index>(), edits in vec(edit(), 1..5)) {
        let sources = corpus();
        let mut bytes = which.get(&sources).clone().into_bytes();
        for e in edits {
            if bytes.is_empty() {
                break;
            }
            match e {
                Edit::Remove(i) => {
                    bytes.remove(at(i, bytes.len()));
                }
                Edit::Insert(i, b) => bytes.insert(at(i, bytes.len()), b),
                Edit::Swap(i, j) => {
                    let (i, j) = (at(i, bytes.len()), at(j, bytes.len()));
                    bytes.swap(i, j);
                }
                Edit::Cut(i, n) => {
                    let i = at(i, bytes.len());
                    let end = (i + n).min(bytes.len());
                    bytes.drain(i..end);
                }
            }
        }
        compiles_or_reports(&String::from_utf8_lossy(&bytes));
    }
}

const WORDS: &[&str] = &[
    "a",
    "b",
    "c",
    "x",
    "r",
    "i",
    "idx",
    "float",
    "float2",
    "float3",
    "float4",
    "int",
    "int3",
    "bool",
    "bool2",
    "float2x2",
    "float4x4",
    "void",
    "Ray",
    "Particle",
    "Hit",
    "out",
    "iter",
    "reduce",
    "const",
    "pos",
    "vel",
    "data",
    "xyzw",
    "xx",
    "q",
    "rgba",
    "mul",
    "dot",
    "cross",
    "lerp",
    "clamp",
    "all",
    "isnan",
    "sqr",
    "frexp",
    "indexof",
    "push",
    "0",
    "1",
    "2.5",
    "-1",
    "true",
    "discard",
    "break",
    "return",
    "1e30",
    "99999999999",
    "xyzwx",
];

const OPS: &[&str] = &[
    "+", "-", "*", "/", "%", "==", "<", "&&", "||", "&", "|", "^", "<<", "=", "+=", "?", ":", ".",
    ",", "[", "]", "(", ")", "!", "~", "++",
];

/// A program split into alternating word and non-word pieces.
fn split_pieces(src: &str) -> Vec<String> {
    let is_word = |c: char| c.is_alphanumeric() || c == '_';
    let mut pieces: Vec<String> = Vec::new();
    for ch in src.chars() {
        match pieces.last_mut() {
            Some(last)
                if last
                    .chars()
                    .next()
                    .is_some_and(|c| is_word(c) == is_word(ch)) =>
            {
                last.push(ch)
            }
            _ => pieces.push(ch.to_string()),
        }
    }
    pieces
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1_500, failure_persistence: None, ..ProptestConfig::default() })]

    /// Words of corpus programs replaced by other words, operators by other operators: the
    /// results mostly parse, so this exercises the checker's error paths.
    #[test]
    fn word_substitutions_never_panic(
        which in any::<prop::sample::Index>(),
        swaps in vec((any::<prop::sample::Index>(), any::<prop::sample::Index>()), 1..4),
    ) {
        let sources = corpus();
        let mut pieces = split_pieces(which.get(&sources).as_str());
        for (piece, replacement) in swaps {
            let i = piece.index(pieces.len());
            let word = pieces[i].chars().next().is_some_and(|c| c.is_alphanumeric() || c == '_');
            if word {
                pieces[i] = replacement.get(WORDS).to_string();
            } else if !pieces[i].trim().is_empty() {
                pieces[i] = replacement.get(OPS).to_string();
            }
        }
        compiles_or_reports(&pieces.concat());
    }
}

#[test]
fn the_nesting_limit_counts_what_its_message_says() {
    // 256 levels of braces (the kernel's and 255 blocks): within the bracket limit, and the
    // statements inside take the tree a few levels deeper without tripping the tree limit.
    // (The message used to say "more than 256 levels" for 254 blocks.)
    let blocks = |n: usize| kernel(&format!("    {} b = a; {}", "{".repeat(n), "}".repeat(n)));
    assert!(compile(&blocks(255), "k.br").is_ok());
    let too_many = compile(&blocks(256), "k.br").unwrap_err().render();
    assert!(
        too_many.contains("more than 256 levels of brackets"),
        "{too_many}"
    );
    // Nesting without brackets is counted in statements and operators, and says so.
    let ifs = kernel(&format!("    {}b = a;", "if (a > 0.0) ".repeat(300)));
    let deep = compile(&ifs, "k.br").unwrap_err().render();
    assert!(
        deep.contains("more than 272 levels of statements and operators"),
        "{deep}"
    );
}
