//! One conformance case: a `.br` file whose leading `//` comments say what to run and what
//! must come out (the format is documented in `tests/conformance/README.md`).

use std::fmt;

/// Values as written: numbers, or one generator for the whole stream.
#[derive(Debug, Clone, PartialEq)]
pub enum Values {
    List(Vec<f32>),
    /// `ramp`, `ramp(start)`, `ramp(start, step)`: `start + i*step` for every float.
    Ramp(f32, f32),
    /// `fill(x)`: `x` for every float.
    Fill(f32),
}

impl Values {
    /// The floats for a stream of `count` floats.
    pub fn expand(&self, count: usize) -> Result<Vec<f32>, String> {
        match self {
            Values::List(v) if v.len() == count => Ok(v.clone()),
            Values::List(v) => Err(format!("{} values given where {count} are needed", v.len())),
            Values::Ramp(a, s) => Ok((0..count).map(|i| a + i as f32 * s).collect()),
            Values::Fill(x) => Ok(vec![*x; count]),
        }
    }
}

/// The element type of a stream or constant: `float`..`float4`, `int`.., or a struct name.
#[derive(Debug, Clone, PartialEq)]
pub struct TypeName(pub String);

#[derive(Debug, Clone, PartialEq)]
pub enum Decl {
    /// `in a: float4<5,2> = …` (a stream, or a gather: the kernel decides) or
    /// `in k: float2 = …` (a constant: no shape).
    Input {
        ty: TypeName,
        shape: Option<Vec<usize>>,
        values: Values,
    },
    /// `iter it: float2<4,5> = start… end…`.
    Iter {
        ty: TypeName,
        shape: Vec<usize>,
        values: Vec<f32>,
    },
    /// `out b: float<10>`, optionally `= …` for its contents before the call.
    Output {
        ty: TypeName,
        shape: Vec<usize>,
        initial: Option<Values>,
    },
}

#[derive(Debug, Clone, PartialEq)]
pub enum Expect {
    Values(String, Values),
    /// The call must fail with a message containing this text.
    Error(String),
    /// The values each vout parameter received, in parameter order (`expect pushed: …`).
    Pushed(Vec<usize>),
}

#[derive(Debug, Clone, PartialEq)]
pub struct Case {
    pub name: String,
    pub source: String,
    pub kernel: String,
    /// `scatter: DST INDEX DATA OP` instead of a kernel call: the stream names and the
    /// combiner (`replace`, `add`, `min`, `max` or a reduce function of the program).
    pub scatter: Option<Vec<String>>,
    pub decls: Vec<(String, Decl)>,
    pub expects: Vec<Expect>,
    /// Relative tolerance: `|got - expected| <= tolerance * max(1, |expected|)`.
    pub tolerance: f32,
    /// Backends with a known gap this case exposes, and why: their failures are reported as
    /// known rather than failing the suite.
    pub xfail: Vec<(String, String)>,
}

/// A header error, with its line.
#[derive(Debug)]
pub struct ParseError {
    pub line: usize,
    pub message: String,
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "line {}: {}", self.line, self.message)
    }
}

/// Default relative tolerance: exact up to the last bits of a float.
pub const DEFAULT_TOLERANCE: f32 = 1e-6;

fn number(tok: &str) -> Result<f32, String> {
    match tok.to_ascii_lowercase().as_str() {
        "nan" => Ok(f32::NAN),
        "inf" | "+inf" => Ok(f32::INFINITY),
        "-inf" => Ok(f32::NEG_INFINITY),
        _ => tok
            .parse::<f32>()
            .map_err(|_| format!("`{tok}` is not a number")),
    }
}

/// The arguments of `name(a, b)` in `text`, if `text` is such a call.
fn call<'t>(text: &'t str, name: &str) -> Option<Vec<&'t str>> {
    let rest = text.strip_prefix(name)?.trim();
    if rest.is_empty() {
        return Some(Vec::new());
    }
    let inner = rest.strip_prefix('(')?.strip_suffix(')')?;
    Some(inner.split(',').map(str::trim).collect())
}

pub fn values(text: &str) -> Result<Values, String> {
    let text = text.trim();
    if let Some(args) = call(text, "ramp") {
        let a: Vec<f32> = args.iter().map(|t| number(t)).collect::<Result<_, _>>()?;
        return match a.as_slice() {
            [] => Ok(Values::Ramp(0.0, 1.0)),
            [s] => Ok(Values::Ramp(*s, 1.0)),
            [s, d] => Ok(Values::Ramp(*s, *d)),
            _ => Err("ramp takes at most (start, step)".into()),
        };
    }
    if let Some(args) = call(text, "fill") {
        return match args.as_slice() {
            [x] => Ok(Values::Fill(number(x)?)),
            _ => Err("fill takes one value".into()),
        };
    }
    Ok(Values::List(
        text.split(|c: char| c.is_whitespace() || c == ',')
            .filter(|t| !t.is_empty())
            .map(number)
            .collect::<Result<_, _>>()?,
    ))
}

/// `float4<5, 2>` → (`float4`, Some([5, 2])); `float2` → (`float2`, None).
fn typed(text: &str) -> Result<(TypeName, Option<Vec<usize>>), String> {
    let text = text.trim();
    let Some(open) = text.find('<') else {
        return Ok((TypeName(text.to_string()), None));
    };
    let inner = text[open + 1..]
        .strip_suffix('>')
        .ok_or("a shape is written <extents>")?;
    let shape = inner
        .split(',')
        .map(|e| {
            e.trim()
                .parse::<usize>()
                .map_err(|_| format!("bad extent `{e}`"))
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok((TypeName(text[..open].trim().to_string()), Some(shape)))
}

/// `name: rest` → (name, rest).
fn named(text: &str) -> Result<(String, &str), String> {
    let (n, rest) = text.split_once(':').ok_or("expected `name: …`")?;
    Ok((n.trim().to_string(), rest))
}

fn directive(case: &mut Case, text: &str) -> Result<(), String> {
    let (word, rest) = text.split_once(char::is_whitespace).unwrap_or((text, ""));
    let rest = rest.trim();
    match word {
        "run:" => case.kernel = rest.to_string(),
        "scatter:" => {
            let words: Vec<String> = rest.split_whitespace().map(str::to_string).collect();
            if words.len() != 4 {
                return Err("`scatter: DST INDEX DATA OP`".into());
            }
            case.scatter = Some(words);
        }
        "tolerance:" => case.tolerance = number(rest)?,
        "in" => {
            let (name, rest) = named(rest)?;
            let (ty, vals) = rest.split_once('=').ok_or("an input needs `= values`")?;
            let (ty, shape) = typed(ty)?;
            let values = values(vals)?;
            case.decls.push((name, Decl::Input { ty, shape, values }));
        }
        "iter" => {
            let (name, rest) = named(rest)?;
            let (ty, vals) = rest
                .split_once('=')
                .ok_or("an iterator needs `= start… end…`")?;
            let (ty, shape) = typed(ty)?;
            let shape = shape.ok_or("an iterator needs a shape")?;
            let Values::List(values) = values(vals)? else {
                return Err("an iterator's values are its start and end components".into());
            };
            case.decls.push((name, Decl::Iter { ty, shape, values }));
        }
        "out" => {
            let (name, rest) = named(rest)?;
            let (ty, initial) = match rest.split_once('=') {
                Some((t, v)) => (t, Some(values(v)?)),
                None => (rest, None),
            };
            let (ty, shape) = typed(ty)?;
            let shape = shape.ok_or("an output needs a shape")?;
            case.decls.push((name, Decl::Output { ty, shape, initial }));
        }
        "xfail" => {
            let (backends, why) = rest.split_once(':').ok_or("`xfail BACKENDS: reason`")?;
            for b in backends.split_whitespace() {
                case.xfail.push((b.to_string(), why.trim().to_string()));
            }
        }
        "expect" => {
            let (name, rest) = named(rest)?;
            case.expects.push(if name == "error" {
                Expect::Error(rest.trim().to_string())
            } else if name == "pushed" {
                let counts: Result<Vec<usize>, _> =
                    rest.split_whitespace().map(str::parse).collect();
                Expect::Pushed(counts.map_err(|_| "`expect pushed:` takes whole numbers")?)
            } else {
                Expect::Values(name, values(rest)?)
            });
        }
        _ => {} // Free text: what the case checks, and why.
    }
    Ok(())
}

fn matches(expected: f32, got: f32, tolerance: f32) -> bool {
    if expected.is_nan() || got.is_nan() {
        return expected.is_nan() && got.is_nan();
    }
    // An infinity is exact: the relative test below would let any finite value match it.
    if expected.is_infinite() || got.is_infinite() {
        return expected == got;
    }
    expected == got || (got - expected).abs() <= tolerance * expected.abs().max(1.0)
}

/// What differs between stream `name`'s contents `got` (elements of `fpe` floats) and the
/// `values` the case expects of it, within the case's tolerance: the first four differences
/// and a count of the rest. Empty when they agree.
pub fn mismatches(
    case: &Case,
    name: &str,
    values: &Values,
    got: &[f32],
    fpe: usize,
) -> Vec<String> {
    let want = match values.expand(got.len()) {
        Ok(w) => w,
        Err(e) => return vec![format!("`expect {name}`: {e}")],
    };
    let bad: Vec<usize> = (0..got.len())
        .filter(|&i| !matches(want[i], got[i], case.tolerance))
        .collect();
    let mut problems: Vec<String> = bad
        .iter()
        .take(4)
        .map(|&i| {
            format!(
                "{name}: element {} component {}: expected {}, got {}",
                i / fpe,
                i % fpe,
                want[i],
                got[i]
            )
        })
        .collect();
    if bad.len() > 4 {
        problems.push(format!("{name}: … {} mismatches in all", bad.len()));
    }
    problems
}

/// Parses the header of `source` (every `//` line before the first line of code).
pub fn parse(name: &str, source: &str) -> Result<Case, ParseError> {
    let mut case = Case {
        name: name.to_string(),
        source: source.to_string(),
        kernel: String::new(),
        scatter: None,
        decls: Vec::new(),
        expects: Vec::new(),
        tolerance: DEFAULT_TOLERANCE,
        xfail: Vec::new(),
    };
    for (i, line) in source.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        let Some(text) = line.strip_prefix("//") else {
            break;
        };
        directive(&mut case, text.trim()).map_err(|message| ParseError {
            line: i + 1,
            message,
        })?;
    }
    let err = |message: &str| ParseError {
        line: 1,
        message: message.into(),
    };
    if case.kernel.is_empty() && case.scatter.is_none() {
        return Err(err("no `// run: kernel` (or `// scatter: …`) line"));
    }
    if case.expects.is_empty() {
        return Err(err("no `// expect` line"));
    }
    Ok(case)
}

/// The parser's own check, run by the harness before the cases (the harness has no test
/// runner of its own).
pub fn self_check() {
    {
        let c = parse(
            "t",
            "// run: copy\n// in a: float<5> = 0 1, 2 3 4\n// in k: float2 = 1 nan\n\
             // iter it: float2<2,3> = 0 0 3 2\n// out b: float4<10> = fill(7)\n\
             // expect b: ramp(1, 0.5)\n// tolerance: 1e-3\nkernel void copy() {}\n// run: ignored",
        )
        .unwrap();
        assert_eq!(c.kernel, "copy");
        assert_eq!(c.tolerance, 1e-3);
        assert_eq!(c.decls.len(), 4);
        let Decl::Input {
            values: v, shape, ..
        } = &c.decls[0].1
        else {
            panic!()
        };
        assert_eq!(v.expand(5).unwrap(), vec![0.0, 1.0, 2.0, 3.0, 4.0]);
        assert_eq!(shape.as_deref(), Some(&[5usize][..]));
        let Decl::Input {
            values: Values::List(k),
            shape: None,
            ..
        } = &c.decls[1].1
        else {
            panic!()
        };
        assert!(k[1].is_nan());
        assert_eq!(
            c.expects,
            vec![Expect::Values("b".into(), Values::Ramp(1.0, 0.5))]
        );
        assert!(values("1 2").unwrap().expand(3).is_err());
        assert!(parse("t", "// in a: float<x> = 1\n").is_err());
    }
    // Infinities and NaN match only themselves, whatever the tolerance.
    assert!(matches(f32::INFINITY, f32::INFINITY, 0.5));
    assert!(!matches(f32::INFINITY, 1e30, 0.5));
    assert!(!matches(f32::NEG_INFINITY, f32::INFINITY, 0.5));
    assert!(!matches(3.0, f32::INFINITY, 0.5));
    assert!(!matches(f32::NAN, 0.0, 0.5));
    assert!(matches(2.0, 2.0 + 1e-6, 1e-6));
    assert!(!matches(2.0, 2.0 + 1e-5, 1e-6));
}
