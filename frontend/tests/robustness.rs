//! The front end never panics, hangs or overflows the stack: deep-but-legal programs compile
//! on an ordinary test thread, and random or mangled input only ever gives diagnostics.

use brook_frontend::{compile, pretty};

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

/// A small deterministic generator (no external crates).
struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        self.0 >> 33
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
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

#[test]
fn random_token_soup_never_panics() {
    let mut rng = Lcg(0x5eed);
    for _ in 0..3_000 {
        let n = rng.below(60);
        let mut src = String::new();
        for _ in 0..n {
            src.push_str(VOCAB[rng.below(VOCAB.len())]);
            src.push(' ');
        }
        let _ = compile(&src, "soup.br").map_err(|d| d.render());
    }
}

#[test]
fn mangled_corpus_never_panics() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus");
    let mut sources = Vec::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_some_and(|x| x == "br") {
            sources.push(std::fs::read(p).unwrap());
        }
    }
    sources.sort();
    let mut rng = Lcg(42);
    for round in 0..2_000 {
        let mut bytes = sources[round % sources.len()].clone();
        for _ in 0..1 + rng.below(4) {
            if bytes.is_empty() {
                break;
            }
            let i = rng.below(bytes.len());
            match rng.below(4) {
                0 => {
                    bytes.remove(i);
                }
                1 => {
                    let pool = b"(){};.,<>[]=+-*/!~?:#x0\n\xff";
                    bytes.insert(i, pool[rng.below(pool.len())]);
                }
                2 => {
                    let j = rng.below(bytes.len());
                    bytes.swap(i, j);
                }
                _ => {
                    let end = (i + rng.below(40)).min(bytes.len());
                    bytes.drain(i..end);
                }
            }
        }
        let src = String::from_utf8_lossy(&bytes).into_owned();
        if let Err(d) = compile(&src, "mangled.br") {
            let _ = d.render();
        }
    }
}

/// Replaces words of corpus programs with other words, operators with other operators: the
/// results mostly parse, so this exercises the checker's error paths.
#[test]
fn word_substitutions_never_panic() {
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
        "+", "-", "*", "/", "%", "==", "<", "&&", "||", "&", "|", "^", "<<", "=", "+=", "?", ":",
        ".", ",", "[", "]", "(", ")", "!", "~", "++",
    ];
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus");
    let mut sources = Vec::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_some_and(|x| x == "br") {
            sources.push(std::fs::read_to_string(p).unwrap());
        }
    }
    sources.sort();
    let mut rng = Lcg(7);
    let mut compiled = 0;
    for round in 0..1_500 {
        let src = &sources[round % sources.len()];
        // Split into word / non-word pieces.
        let mut pieces: Vec<String> = Vec::new();
        for ch in src.chars() {
            let word = ch.is_alphanumeric() || ch == '_';
            match pieces.last_mut() {
                Some(last)
                    if last
                        .chars()
                        .next()
                        .is_some_and(|c| (c.is_alphanumeric() || c == '_') == word) =>
                {
                    last.push(ch)
                }
                _ => pieces.push(ch.to_string()),
            }
        }
        for _ in 0..1 + rng.below(3) {
            let i = rng.below(pieces.len());
            let is_word = pieces[i]
                .chars()
                .next()
                .is_some_and(|c| c.is_alphanumeric() || c == '_');
            if is_word {
                pieces[i] = WORDS[rng.below(WORDS.len())].to_string();
            } else if !pieces[i].trim().is_empty() {
                pieces[i] = OPS[rng.below(OPS.len())].to_string();
            }
        }
        let mutated: String = pieces.concat();
        match compile(&mutated, "subst.br") {
            Ok(m) => {
                compiled += 1;
                let _ = pretty(&m);
            }
            Err(d) => {
                let _ = d.render();
            }
        }
    }
    assert!(compiled > 0);
}
