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
    /// The number the text gives the operation (`operation 3`: the history's count, which
    /// counts every `streamRead` too); on the page it becomes the card's number.
    pub number: Option<usize>,
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
    let c = step.operation.and_then(card);
    let text = match step.number {
        Some(n) => in_cards(&step.text, n, c),
        None => step.text.clone(),
    };
    format!(
        "{{t:{},c:{},i:[{}]}}",
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
            }],
        };
        let js = js_trees(&[step], &|op| Some(op + 4));
        assert_eq!(
            js,
            r#"[{t:"r[0] = 2: kernel `k` \"x\", card 5, out `r`",c:5,i:[{t:"a[0] = 1: streamRead(a) from host memory",c:0,i:[]}]}]"#
        );
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
