//! `brcc why FILES… 'NAME[i][j]'`: runs the program with its history recorded
//! (`Runtime::record_history`), then prints where element `[i][j]` of the host's stream
//! `NAME` got its final value (`Runtime::why_named`; how it is computed: `docs/why.md`), or
//! with `--every-stream` the first and last element of every named stream.

use std::path::Path;
use std::process::ExitCode;

use brook::why::Limits;
use brook::Runtime;

use crate::launch;

/// The element asked about: a host stream variable and its subscripts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Element {
    pub name: String,
    pub index: Vec<usize>,
}

impl Element {
    /// `name[i][j]` (spaces allowed around the numbers).
    pub fn parse(text: &str) -> Result<Element, String> {
        let bad = || {
            format!("`{text}` is not an element: write the stream's name and its subscripts, e.g. `r[1][0]`")
        };
        let (name, mut rest) = text
            .split_once('[')
            .map(|(n, r)| (n.trim(), r))
            .ok_or_else(bad)?;
        let is_name = name
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
            && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
        if !is_name {
            return Err(bad());
        }
        let mut index = Vec::new();
        loop {
            let (number, after) = rest.split_once(']').ok_or_else(bad)?;
            index.push(number.trim().parse().map_err(|_| bad())?);
            rest = after.trim_start();
            if rest.is_empty() {
                break;
            }
            rest = rest.strip_prefix('[').ok_or_else(bad)?;
        }
        Ok(Element {
            name: name.into(),
            index,
        })
    }
}

/// What `brcc why` is asked about.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Asked {
    One(Element),
    /// The first and last element of every stream the host code named (`--every-stream`).
    EveryStream,
}

/// Runs the program in `library` recording its history, then prints the elements'; the
/// status is the program's (1 when a history cannot be given).
pub fn run(
    file: &str,
    library: &Path,
    runtime: Runtime,
    cache: impl Sized,
    asked: &Asked,
    limits: Limits,
    args: &[String],
) -> Result<ExitCode, String> {
    runtime
        .record_history(true)
        .map_err(|e| format!("brcc: error: {e}"))?;
    let backend = runtime.backend_name();
    let mut histories = None;
    let code = launch::run(
        library,
        file,
        args,
        runtime,
        || drop(cache),
        |rt| {
            let elements = match asked {
                Asked::One(e) => vec![e.clone()],
                Asked::EveryStream => first_and_last(rt),
            };
            let found = elements.into_iter().map(|e| {
                let h = rt.why_named(&e.name, &e.index, limits);
                (e, h)
            });
            histories = Some(found.collect::<Vec<_>>());
        },
    )?;
    let Some(histories) = histories else {
        return Err(
            "brcc: error: the program's runtime was gone before its history could be read".into(),
        );
    };
    for (element, history) in histories {
        let h = history.map_err(|e| format!("brcc: error: {e}"))?;
        println!(
            "where {}{} came from ({file} on {backend}):",
            element.name,
            subscripts(&element.index)
        );
        print!("{h}");
    }
    Ok(ExitCode::from(code as u8))
}

/// The first and last element of every named stream, by name.
fn first_and_last(rt: &Runtime) -> Vec<Element> {
    let mut out = Vec::new();
    for (name, shape) in rt.named_streams() {
        if shape.iter().product::<usize>() == 0 {
            continue;
        }
        out.push(Element {
            name: name.clone(),
            index: vec![0; shape.len()],
        });
        if shape.iter().any(|&n| n > 1) {
            out.push(Element {
                name,
                index: shape.iter().map(|n| n - 1).collect(),
            });
        }
    }
    out
}

fn subscripts(index: &[usize]) -> String {
    index.iter().map(|i| format!("[{i}]")).collect()
}

#[cfg(test)]
mod tests {
    use super::Element;

    #[test]
    fn elements_parse_and_bad_ones_say_how_to_write_them() {
        let e = Element::parse("r[1][ 0 ]").unwrap();
        assert_eq!((e.name.as_str(), e.index), ("r", vec![1, 0]));
        assert_eq!(Element::parse("sum_2[7]").unwrap().index, vec![7]);
        for bad in ["r", "r[1", "r[x]", "1r[0]", "r[0]x", ""] {
            let err = Element::parse(bad).unwrap_err();
            assert!(err.contains("e.g. `r[1][0]`"), "{bad}: {err}");
        }
    }
}
