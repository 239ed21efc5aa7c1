//! Element histories on the page: where each element of a small result picture got its
//! value (brook's `Runtime::why`, computed by the runtime while recording, `docs/why.md`),
//! shown in a panel when the element is clicked, each step linking to its operation's card,
//! and side by side, where another backend's history of it first differs.

use crate::compare::agree;

/// One step of an element's history as the explorer shows it: the step in words, the
/// operation it is about (the explorer's number for it: its index in
/// [`Recording::operations`](crate::Recording::operations)), and what it read.
#[derive(Debug, Clone, PartialEq)]
pub struct HistoryStep {
    /// `r[1][0] = 4: kernel `transpose` (Brook line 4), operation 3, out `r``.
    pub text: String,
    /// The operation the step is about, where it has a card (a `streamRead` has none).
    pub operation: Option<usize>,
    /// The number the text gives the operation (`operation 3`: the history's count, which
    /// counts every `streamRead` too); on the page it becomes the card's number.
    pub number: Option<usize>,
    /// Where the step above read this element, when a kernel read it: the kernel's parameter
    /// and the element's linear index in the whole stream, whose texel the page marks in the
    /// pass's input picture of that parameter (`PARAM_tex`) on GL cards.
    pub read: Option<(String, usize)>,
    /// The element's value there (empty for a step that is not an element's: a fold step).
    pub value: Vec<f32>,
    /// What this step read.
    pub inputs: Vec<HistoryStep>,
}

/// The histories of every element of one picture, as the JavaScript object literal the
/// page's `why.js` holds: one tree per element, each step `{t: text, c: card, i: inputs}`
/// (`c` 0 where the step has no card), and `r: [parameter, element]` where a kernel read
/// it. `card` maps an operation to its first card's number. `others` are other backends' histories of the same elements (side by side), by name:
/// where one first differs from this one, that step carries `d: "NAME has V here"`.
pub fn js_trees(
    steps: &[HistoryStep],
    card: &dyn Fn(usize) -> Option<usize>,
    others: &[(&str, &[HistoryStep])],
) -> String {
    let trees: Vec<String> = (steps.iter().enumerate())
        .map(|(e, s)| {
            let mut notes: Vec<(Vec<usize>, String)> = Vec::new();
            for (name, theirs) in others {
                if let Some((path, value)) = theirs.get(e).and_then(|o| first_difference(s, o)) {
                    let value: Vec<String> = value.iter().map(f32::to_string).collect();
                    notes.push((path, format!("{name} has {} here", value.join(", "))));
                }
            }
            js_step(s, card, &notes, &mut Vec::new())
        })
        .collect();
    format!("[{}]", trees.join(","))
}

/// How early a step is in the run: its operation's number, then (later first) its depth.
type Earliest = (usize, std::cmp::Reverse<usize>);

/// Where `other`, another backend's history of the same element, first differs from
/// `reference` along the run: of the steps whose values differ beyond the side-by-side
/// tolerance ([`agree`]), the one of the earliest operation (then the deepest), as the path
/// of input indices from the root, with the other's value there. Steps are matched by
/// position; where the two trees' inputs part, they are compared no deeper.
pub fn first_difference(
    reference: &HistoryStep,
    other: &HistoryStep,
) -> Option<(Vec<usize>, Vec<f32>)> {
    fn walk(
        a: &HistoryStep,
        b: &HistoryStep,
        path: &mut Vec<usize>,
        best: &mut Option<(Earliest, Vec<usize>, Vec<f32>)>,
    ) {
        let differ = !a.value.is_empty()
            && (a.value.len() != b.value.len()
                || a.value.iter().zip(&b.value).any(|(x, y)| !agree(*x, *y)));
        if differ {
            // A step of no operation (a rename) holds what the step below it made.
            let key = (
                a.number.unwrap_or(usize::MAX),
                std::cmp::Reverse(path.len()),
            );
            if best.as_ref().is_none_or(|(k, _, _)| key < *k) {
                *best = Some((key, path.clone(), b.value.clone()));
            }
        }
        if a.inputs.len() == b.inputs.len() {
            for (k, (x, y)) in a.inputs.iter().zip(&b.inputs).enumerate() {
                path.push(k);
                walk(x, y, path, best);
                path.pop();
            }
        }
    }
    let mut best = None;
    walk(reference, other, &mut Vec::new(), &mut best);
    best.map(|(_, path, value)| (path, value))
}

fn js_step(
    step: &HistoryStep,
    card: &dyn Fn(usize) -> Option<usize>,
    notes: &[(Vec<usize>, String)],
    path: &mut Vec<usize>,
) -> String {
    let inputs: Vec<String> = (step.inputs.iter().enumerate())
        .map(|(k, s)| {
            path.push(k);
            let js = js_step(s, card, notes, path);
            path.pop();
            js
        })
        .collect();
    let here: Vec<&str> = (notes.iter())
        .filter(|(p, _)| p == path)
        .map(|(_, n)| n.as_str())
        .collect();
    let differs = match here.is_empty() {
        true => String::new(),
        false => format!(",d:{}", js_string(&here.join("; "))),
    };
    let c = step.operation.and_then(card);
    let text = match step.number {
        Some(n) => in_cards(&step.text, n, c),
        None => step.text.clone(),
    };
    let read = match &step.read {
        Some((param, linear)) => format!(",r:[{},{linear}]", js_string(param)),
        None => String::new(),
    };
    format!(
        "{{t:{},c:{}{read}{differs},i:[{}]}}",
        js_string(&text),
        c.unwrap_or(0),
        inputs.join(",")
    )
}

/// `text` with its `operation n` named as the page names it: `card c`, or nothing where the
/// operation has no card (`…, operation 1` of a `streamRead` loses its `, operation 1`).
fn in_cards(text: &str, n: usize, card: Option<usize>) -> String {
    let said = format!("operation {n}");
    let mut out = String::new();
    let mut rest = text;
    while let Some(at) = rest.find(&said) {
        let after = &rest[at + said.len()..];
        if after.starts_with(|c: char| c.is_ascii_digit()) {
            out.push_str(&rest[..at + said.len()]);
        } else {
            match card {
                Some(c) => out.push_str(&format!("{}card {c}", &rest[..at])),
                None => out.push_str(rest[..at].trim_end_matches(", ").trim_end_matches(' ')),
            }
        }
        rest = after;
    }
    out.push_str(rest);
    out
}

/// `text` as a JavaScript string literal.
fn js_string(text: &str) -> String {
    let mut out = String::from("\"");
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '<' => out.push_str("\\u003c"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trees_become_object_literals_with_their_cards() {
        let step = HistoryStep {
            text: "r[0] = 2: kernel `k` \"x\", operation 12, out `r`".into(),
            operation: Some(1),
            number: Some(12),
            inputs: vec![HistoryStep {
                text: "a[0] = 1: streamRead(a) from host memory, operation 1".into(),
                operation: None,
                number: Some(1),
                inputs: Vec::new(),
                read: Some(("a".into(), 0)),
                value: vec![1.0],
            }],
            read: None,
            value: vec![2.0],
        };
        let js = js_trees(&[step], &|op| Some(op + 4), &[]);
        assert_eq!(
            js,
            r#"[{t:"r[0] = 2: kernel `k` \"x\", card 5, out `r`",c:5,i:[{t:"a[0] = 1: streamRead(a) from host memory",c:0,r:["a",0],i:[]}]}]"#
        );
    }

    fn step(value: f32, number: usize, inputs: Vec<HistoryStep>) -> HistoryStep {
        HistoryStep {
            text: format!("x = {value}"),
            operation: None,
            number: Some(number),
            read: None,
            value: vec![value],
            inputs,
        }
    }

    #[test]
    fn the_first_difference_is_the_earliest_operations_and_is_marked() {
        // r (op 3) = a (op 2, from t, op 1) + b (op 1). The other backend's a and r differ
        // (a's from the rounding of op 2), t and b agree: the first difference is a's.
        let ours = step(
            3.0,
            3,
            vec![
                step(1.0, 2, vec![step(7.0, 1, vec![])]),
                step(2.0, 1, vec![]),
            ],
        );
        let theirs = step(
            3.5,
            3,
            vec![
                step(1.5, 2, vec![step(7.0, 1, vec![])]),
                step(2.0, 1, vec![]),
            ],
        );
        assert_eq!(first_difference(&ours, &theirs), Some((vec![0], vec![1.5])));
        assert_eq!(first_difference(&ours, &ours), None);
        // Within the tolerance (1e-5 relative), no difference.
        let close = step(3.0 * (1.0 + 1e-6), 3, ours.inputs.clone());
        assert_eq!(first_difference(&ours, &close), None);
        let js = js_trees(
            std::slice::from_ref(&ours),
            &|_| None,
            &[("cpu", std::slice::from_ref(&theirs))],
        );
        assert!(
            js.contains(r#"{t:"x = 1",c:0,d:"cpu has 1.5 here",i:["#),
            "{js}"
        );
        assert_eq!(js.matches(",d:").count(), 1, "{js}");
    }

    #[test]
    fn operation_numbers_become_card_numbers_and_only_whole_ones() {
        let text =
            "r[1] = 2: kept through operation 5 (kernel `bump`, operation 5: off); operation 51";
        assert_eq!(
            in_cards(text, 5, Some(3)),
            "r[1] = 2: kept through card 3 (kernel `bump`, card 3: off); operation 51"
        );
    }
}
