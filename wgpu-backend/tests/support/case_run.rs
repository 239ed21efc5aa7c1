//! Running a conformance case through this crate's API (the workspace harness's `run.rs`
//! does the same through the runtime).

use std::rc::Rc;

use brook_frontend::ir::Module;
use brook_wgpu::ops::scatter::ScatterOp;
use brook_wgpu::{KernelArg, Source, WgpuBackend, WgpuStream};

use super::case::{mismatches, Case, Decl, Expect, TypeName};
use super::support::read_all;

/// Member widths of a header type: `float`..`float4` (`int`, `bool` forms too) or a struct.
fn widths(ty: &TypeName, module: &Module) -> Result<Vec<u8>, String> {
    let name = ty.0.as_str();
    for base in ["float", "int", "bool"] {
        if let Some(n) = name.strip_prefix(base) {
            if n.contains('x') {
                break;
            }
            let n: u8 = if n.is_empty() {
                1
            } else {
                n.parse().map_err(|_| format!("unknown type `{name}`"))?
            };
            return Ok(vec![n]);
        }
    }
    let def = module
        .structs
        .iter()
        .find(|s| s.name == name)
        .ok_or_else(|| format!("unknown type `{name}`"))?;
    def.members
        .iter()
        .map(|m| {
            m.ty.width()
                .ok_or_else(|| format!("member `{}` is not a vector", m.name))
        })
        .collect()
}

fn constant_floats(ty: &TypeName, module: &Module) -> Result<usize, String> {
    if let Some((r, c)) = ty.0.strip_prefix("float").and_then(|d| d.split_once('x')) {
        if let (Ok(r), Ok(c)) = (r.parse::<usize>(), c.parse::<usize>()) {
            return Ok(r * c);
        }
    }
    Ok(widths(ty, module)?.iter().map(|&w| w as usize).sum())
}

enum Bound {
    Stream(WgpuStream),
    Constant(Vec<f32>),
}

fn bind(b: &WgpuBackend, module: &Module, decl: &Decl) -> Result<Bound, String> {
    let err = |e: brook_wgpu::WgpuError| e.to_string();
    Ok(match decl {
        Decl::Input {
            ty,
            shape: Some(shape),
            values,
        } => {
            let s = b.create_stream(&widths(ty, module)?, shape).map_err(err)?;
            b.read(&s, None, &values.expand(s.len() * s.floats_per_element())?)
                .map_err(err)?;
            Bound::Stream(s)
        }
        Decl::Input {
            ty,
            shape: None,
            values,
        } => Bound::Constant(values.expand(constant_floats(ty, module)?)?),
        Decl::Iter { ty, shape, values } => {
            let c = widths(ty, module)?[0] as usize;
            if values.len() != 2 * c {
                return Err(format!(
                    "an iterator of {c} component(s) needs {} values",
                    2 * c
                ));
            }
            let (mut start, mut end) = ([0.0; 4], [0.0; 4]);
            start[..c].copy_from_slice(&values[..c]);
            end[..c].copy_from_slice(&values[c..]);
            Bound::Stream(b.create_iter(shape, c as u8, start, end).map_err(err)?)
        }
        Decl::Output { ty, shape, initial } => {
            let s = b.create_stream(&widths(ty, module)?, shape).map_err(err)?;
            let n = s.len() * s.floats_per_element();
            let init = match initial {
                Some(v) => v.expand(n)?,
                None => vec![0.0; n],
            };
            b.read(&s, None, &init).map_err(err)?;
            Bound::Stream(s)
        }
    })
}

/// Runs `case` on `b`; the messages say what differed.
pub fn run_case(b: &WgpuBackend, case: &Case) -> Result<(), Vec<String>> {
    let expected_error = case.expects.iter().find_map(|e| match e {
        Expect::Error(t) => Some(t.as_str()),
        _ => None,
    });
    let fail = |m: String| Err(vec![m]);
    let module = match brook_frontend::compile(&case.source, &case.name) {
        Ok(m) => m,
        Err(e) => {
            let text = e.render();
            return match expected_error {
                Some(t) if text.contains(t) => Ok(()),
                _ => fail(format!("compile error: {text}")),
            };
        }
    };
    let program = b.prepare(
        Rc::new(module),
        Some(Source {
            name: case.name.clone(),
            text: case.source.clone(),
        }),
    );
    let module = program.module();
    let names: Vec<String> = match &case.scatter {
        Some(w) => w[..3].to_vec(),
        None => match module.function(&case.kernel) {
            Some((_, f)) => f.params.iter().map(|p| p.name.clone()).collect(),
            None => return fail(format!("no kernel `{}`", case.kernel)),
        },
    };
    let mut bound = Vec::new();
    for name in names {
        let Some((_, decl)) = case.decls.iter().find(|(n, _)| *n == name) else {
            return fail(format!("no header line for `{name}`"));
        };
        match bind(b, module, decl) {
            Ok(x) => bound.push((name, x)),
            Err(e) => {
                return match expected_error {
                    Some(t) if e.contains(t) => Ok(()),
                    _ => fail(format!("parameter `{name}`: {e}")),
                }
            }
        }
    }
    let args: Vec<KernelArg> = bound
        .iter()
        .map(|(_, x)| match x {
            Bound::Stream(s) => KernelArg::Stream(s),
            Bound::Constant(v) => KernelArg::Constant(v),
        })
        .collect();
    let outcome = match &case.scatter {
        Some(words) => {
            let [KernelArg::Stream(dst), KernelArg::Stream(index), KernelArg::Stream(data)] =
                args[..]
            else {
                return fail("a scatter needs three streams".into());
            };
            let op = match words[3].as_str() {
                "replace" => ScatterOp::Replace,
                "add" => ScatterOp::Add,
                "min" => ScatterOp::Min,
                "max" => ScatterOp::Max,
                f => match module.function(f) {
                    Some((id, _)) => ScatterOp::Reduce(&program, id),
                    None => return fail(format!("no reduce function `{f}`")),
                },
            };
            b.scatter(dst, index, data, op).map(|()| Vec::new())
        }
        None => b.run_kernel(&program, module.function(&case.kernel).unwrap().0, &args),
    };
    let pushed = match (outcome, expected_error) {
        (Ok(_), Some(t)) => {
            return fail(format!(
                "expected an error containing `{t}`, the call succeeded"
            ))
        }
        (Err(e), Some(t)) if e.to_string().contains(t) => return Ok(()),
        (Err(e), _) => return fail(format!("the call failed: {e}")),
        (Ok(p), None) => p,
    };
    let mut problems = Vec::new();
    for e in &case.expects {
        match e {
            Expect::Pushed(want) if *want != pushed => {
                problems.push(format!("pushed: expected {want:?}, got {pushed:?}"))
            }
            Expect::Values(name, values) => {
                let Some((_, Bound::Stream(s))) = bound.iter().find(|(n, _)| n == name) else {
                    problems.push(format!("`expect {name}` names no stream"));
                    continue;
                };
                let got = read_all(b, s);
                problems.extend(mismatches(case, name, values, &got, s.floats_per_element()));
            }
            _ => {}
        }
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(problems)
    }
}
