//! Element histories on the page: where each element of a small result picture got its
//! value (brook's `Runtime::why`, computed by the runtime while recording, `docs/why.md`),
//! shown in a panel when the element is clicked, each step linking to its operation's card.

/// One step of an element's history as the explorer shows it: the step in words, the
/// operation it is about (the explorer's number for it: its index in
/// [`Recording::operations`](crate::Recording::operations)), and what it read.
#[derive(Debug, Clone, PartialEq)]
pub struct HistoryStep {
    /// `r[1][0] = 4: kernel `transpose` (Brook line 4), operation 3, out `r``.
    pub text: String,
    /// The operation the step is about, where it has a card (a `streamRead` has none).
    pub operation: Option<usize>,
    /// What this step read.
    pub inputs: Vec<HistoryStep>,
}

/// The histories of every element of one picture, as the JavaScript object literal the
/// page's `why.js` holds: one tree per element, each step `{t: text, c: card, i: inputs}`
/// (`c` 0 where the step has no card). `card` maps an operation to its first card's number.
pub fn js_trees(steps: &[HistoryStep], card: &dyn Fn(usize) -> Option<usize>) -> String {
    let trees: Vec<String> = steps.iter().map(|s| js_step(s, card)).collect();
    format!("[{}]", trees.join(","))
}

fn js_step(step: &HistoryStep, card: &dyn Fn(usize) -> Option<usize>) -> String {
    let inputs: Vec<String> = step.inputs.iter().map(|s| js_step(s, card)).collect();
    format!(
        "{{t:{},c:{},i:[{}]}}",
        js_string(&step.text),
        step.operation.and_then(card).unwrap_or(0),
        inputs.join(",")
    )
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
            text: "r[0] = 2: kernel `k` \"x\"".into(),
            operation: Some(1),
            inputs: vec![HistoryStep {
                text: "a[0] = 1: streamRead(a)".into(),
                operation: None,
                inputs: Vec::new(),
            }],
        };
        let js = js_trees(&[step], &|op| Some(op + 4));
        assert_eq!(
            js,
            r#"[{t:"r[0] = 2: kernel `k` \"x\"",c:5,i:[{t:"a[0] = 1: streamRead(a)",c:0,i:[]}]}]"#
        );
    }
}
