//! Running one case on one runtime and comparing with its expected values.

use brook::ir::{Module, Type};
use brook::{
    Arg, BrookError, ElementFormat, IterSpec, MemberFormat, Program, Runtime, ScatterOp, Stream,
};

use super::case::{mismatches, Case, Decl, Expect, TypeName};

/// Components of a scalar or vector type (`float`, `int3`, …).
fn width(ty: &Type) -> Option<u8> {
    ty.width()
}

/// The stream element format a header type names: `float`..`float4` (also `int`, `bool`
/// forms, stored as floats) or a struct of the program.
fn format_of(ty: &TypeName, module: &Module) -> Result<ElementFormat, String> {
    let name = ty.0.as_str();
    for base in ["float", "int", "bool"] {
        if let Some(n) = name.strip_prefix(base) {
            let n: u8 = if n.is_empty() {
                1
            } else {
                n.parse().map_err(|_| format!("unknown type `{name}`"))?
            };
            return ElementFormat::scalar(n).map_err(|e| e.to_string());
        }
    }
    let def = module
        .structs
        .iter()
        .find(|s| s.name == name)
        .ok_or_else(|| format!("unknown type `{name}`"))?;
    let members = def
        .members
        .iter()
        .map(|m| {
            Ok(MemberFormat {
                name: m.name.clone(),
                components: width(&m.ty)
                    .ok_or_else(|| format!("member `{}` is not a vector", m.name))?,
            })
        })
        .collect::<Result<Vec<_>, String>>()?;
    ElementFormat::structure(members).map_err(|e| e.to_string())
}

/// Floats of a constant: a stream element type, or a matrix `floatRxC`.
fn constant_floats(ty: &TypeName, module: &Module) -> Result<usize, String> {
    let matrix = ty.0.strip_prefix("float").and_then(|d| d.split_once('x'));
    if let Some((r, c)) = matrix {
        if let (Ok(r), Ok(c)) = (r.parse::<usize>(), c.parse::<usize>()) {
            return Ok(r * c);
        }
    }
    Ok(format_of(ty, module)?.floats_per_element())
}

/// What one parameter is bound to for the call.
enum Bound {
    Stream(Stream),
    Constant(Vec<f32>),
}

fn bind(rt: &Runtime, module: &Module, decl: &Decl) -> Result<Bound, String> {
    let err = |e: brook::BrookError| e.to_string();
    Ok(match decl {
        Decl::Input {
            ty,
            shape: Some(shape),
            values,
        } => {
            let s = rt.stream(format_of(ty, module)?, shape).map_err(err)?;
            s.read(&values.expand(s.len() * s.floats_per_element())?)
                .map_err(err)?;
            Bound::Stream(s)
        }
        Decl::Input {
            ty,
            shape: None,
            values,
        } => Bound::Constant(values.expand(constant_floats(ty, module)?)?),
        Decl::Iter { ty, shape, values } => {
            let c = format_of(ty, module)?.floats_per_element();
            if values.len() != 2 * c {
                return Err(format!(
                    "an iterator of {c} component(s) needs {} values (start, end)",
                    2 * c
                ));
            }
            let (mut start, mut end) = ([0.0; 4], [0.0; 4]);
            start[..c].copy_from_slice(&values[..c]);
            end[..c].copy_from_slice(&values[c..]);
            let spec = IterSpec::new(shape, c as u8, start, end).map_err(|e| e.to_string())?;
            Bound::Stream(rt.iter(spec).map_err(err)?)
        }
        Decl::Output { ty, shape, initial } => {
            let s = rt.stream(format_of(ty, module)?, shape).map_err(err)?;
            let n = s.len() * s.floats_per_element();
            let init = match initial {
                Some(v) => v.expand(n)?,
                None => vec![0.0; n],
            };
            s.read(&init).map_err(err)?;
            Bound::Stream(s)
        }
    })
}

/// What a case's call left behind: the values pushed onto each vout, and every stream it
/// bound (by parameter name, with its floats per element) as read back.
pub struct Observed {
    pub pushed: Vec<usize>,
    pub streams: Vec<(String, usize, Result<Vec<f32>, String>)>,
}

/// One line per output of `case` with the bits of every value, or the error: what
/// `BROOK_CONFORMANCE_DUMP` compares between two runs.
pub fn describe_bits(case: &Case, observed: &Result<Option<Observed>, Vec<String>>) -> String {
    let body = match observed {
        Ok(None) => "the expected error\n".to_string(),
        Err(problems) => format!("error: {}\n", problems.join("; ")),
        Ok(Some(o)) => {
            let mut s = format!("pushed {:?}\n", o.pushed);
            for (name, _, values) in &o.streams {
                let values = match values {
                    Ok(v) => v
                        .iter()
                        .map(|x| format!("{:08x}", x.to_bits()))
                        .collect::<Vec<_>>()
                        .join(" "),
                    Err(e) => e.clone(),
                };
                s.push_str(&format!("  {name}: {values}\n"));
            }
            s
        }
    };
    format!("{}: {body}", case.name)
}

/// Runs `case`'s call on `rt`: `None` when it failed with the error the case expects.
pub fn execute(rt: &Runtime, case: &Case) -> Result<Option<Observed>, Vec<String>> {
    let expected_error = case.expects.iter().find_map(|e| match e {
        Expect::Error(text) => Some(text.as_str()),
        _ => None,
    });
    let fail = |m: String| Err(vec![m]);
    let program = match rt.compile(&case.source, &case.name) {
        Ok(p) => p,
        Err(e) => {
            return match expected_error {
                Some(t) if e.to_string().contains(t) => Ok(None),
                _ => fail(format!("compile error: {e}")),
            }
        }
    };
    let module = program.module();
    // The streams the call binds: the kernel's parameters, or a scatter's three streams.
    let names: Vec<String> = match &case.scatter {
        Some(words) => words[..3].to_vec(),
        None => match module.function(&case.kernel) {
            Some((_, func)) => func.params.iter().map(|p| p.name.clone()).collect(),
            None => return fail(format!("no kernel `{}`", case.kernel)),
        },
    };
    let mut bound = Vec::with_capacity(names.len());
    for name in names {
        let Some((_, decl)) = case.decls.iter().find(|(n, _)| *n == name) else {
            return fail(format!("no header line for parameter `{name}`"));
        };
        match bind(rt, module, decl) {
            Ok(b) => bound.push((name, b)),
            Err(e) => {
                return match expected_error {
                    Some(t) if e.contains(t) => Ok(None),
                    _ => fail(format!("parameter `{name}`: {e}")),
                }
            }
        }
    }
    let args: Vec<Arg> = bound
        .iter()
        .map(|(_, b)| match b {
            Bound::Stream(s) => Arg::Stream(s),
            Bound::Constant(v) => Arg::Constant(v.clone()),
        })
        .collect();
    let outcome = match &case.scatter {
        Some(words) => scatter(rt, &program, &args, &words[3]).map(|()| Vec::new()),
        None => rt.run_vout(&program, &case.kernel, &args),
    };
    let pushed = match (outcome, expected_error) {
        (Ok(_), Some(t)) => {
            return fail(format!(
                "expected an error containing `{t}`, the call succeeded"
            ))
        }
        (Err(e), Some(t)) if e.to_string().contains(t) => return Ok(None),
        (Err(e), _) => return fail(format!("the call failed: {e}")),
        (Ok(pushed), None) => pushed,
    };
    let streams = bound
        .iter()
        .filter_map(|(name, b)| match b {
            Bound::Stream(s) => Some((
                name.clone(),
                s.floats_per_element(),
                s.to_vec().map_err(|e| e.to_string()),
            )),
            Bound::Constant(_) => None,
        })
        .collect();
    Ok(Some(Observed { pushed, streams }))
}

/// Compares what a call left with the case's expectations.
pub fn check(case: &Case, observed: &Observed) -> Result<(), Vec<String>> {
    let pushed = &observed.pushed;
    let mut problems = Vec::new();
    for e in &case.expects {
        if let Expect::Pushed(want) = e {
            if want != pushed {
                problems.push(format!("pushed: expected {want:?}, got {pushed:?}"));
            }
        }
    }
    for e in &case.expects {
        let Expect::Values(name, values) = e else {
            continue;
        };
        let Some((_, fpe, got)) = observed.streams.iter().find(|(n, ..)| n == name) else {
            problems.push(format!("`expect {name}` names no stream"));
            continue;
        };
        let got = match got {
            Ok(v) => v,
            Err(e) => {
                problems.push(format!("reading `{name}`: {e}"));
                continue;
            }
        };
        problems.extend(mismatches(case, name, values, got, *fpe));
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(problems)
    }
}

/// `streamScatterOp(dst, index, data, op)` with the case's three streams and combiner name.
fn scatter(rt: &Runtime, program: &Program, args: &[Arg], op: &str) -> Result<(), BrookError> {
    let [Arg::Stream(dst), Arg::Stream(index), Arg::Stream(data)] = args else {
        return Err(BrookError::Usage("a scatter needs three streams".into()));
    };
    let op = match op {
        "replace" => ScatterOp::Replace,
        "add" => ScatterOp::Add,
        "min" => ScatterOp::Min,
        "max" => ScatterOp::Max,
        f => ScatterOp::Reduce(program, f),
    };
    rt.scatter(dst, index, data, op)
}
