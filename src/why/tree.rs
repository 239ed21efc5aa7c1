//! An element's history as a tree: each node one value at one point of the run and how it
//! came to be, its children what that read. Printed as an indented tree (`brcc why`).

use std::fmt;

/// One step of an element's history: an element's value where an operation wrote it (or a
/// fold step, a scattered point, a mask), and the steps it was made from.
#[derive(Debug, Clone, PartialEq)]
pub struct Why {
    /// The step in words: `r[1][0] = 4: kernel `transpose` (Brook line 4), operation 3`.
    pub text: String,
    /// The number of the operation this step is about (1 for the run's first), when it is
    /// one: what the explorer's card of that operation is found by.
    pub op: Option<usize>,
    /// What this step read, in the order it read it.
    pub inputs: Vec<Why>,
    /// Where the step's reader read this element, when a kernel read it: the kernel's
    /// parameter and the element's linear index in the whole stream (the explorer marks its
    /// texel in the pass's input picture).
    pub read: Option<(String, usize)>,
    /// The element's value, where the step is an element's (empty for a fold step, a mask).
    pub value: Vec<f32>,
}

impl Why {
    pub(crate) fn leaf(text: String, op: Option<usize>) -> Why {
        Why {
            text,
            op,
            inputs: Vec::new(),
            read: None,
            value: Vec::new(),
        }
    }

    fn write(
        &self,
        f: &mut fmt::Formatter<'_>,
        prefix: &str,
        last: bool,
        root: bool,
    ) -> fmt::Result {
        let (branch, more) = match (root, last) {
            (true, _) => ("", ""),
            (false, false) => ("├─ ", "│  "),
            (false, true) => ("└─ ", "   "),
        };
        writeln!(f, "{prefix}{branch}{}", self.text)?;
        let inner = format!("{prefix}{more}");
        for (k, i) in self.inputs.iter().enumerate() {
            i.write(f, &inner, k + 1 == self.inputs.len(), false)?;
        }
        Ok(())
    }
}

impl fmt::Display for Why {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.write(f, "", true, true)
    }
}
