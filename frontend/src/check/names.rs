//! Name suggestions ("did you mean …?") from a small edit-distance search.

/// Edit distance between two short names (ASCII case-insensitive), counting an insertion,
/// deletion, substitution or swap of neighbours (`flaot` → `float`) as one edit.
pub fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().map(|c| c.to_ascii_lowercase()).collect();
    let b: Vec<char> = b.chars().map(|c| c.to_ascii_lowercase()).collect();
    let (n, m) = (a.len(), b.len());
    let mut d = vec![vec![0usize; m + 1]; n + 1];
    for (i, row) in d.iter_mut().enumerate() {
        row[0] = i;
    }
    for (j, cell) in d[0].iter_mut().enumerate() {
        *cell = j;
    }
    for i in 1..=n {
        for j in 1..=m {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut v = (d[i - 1][j] + 1)
                .min(d[i][j - 1] + 1)
                .min(d[i - 1][j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                v = v.min(d[i - 2][j - 2] + 1);
            }
            d[i][j] = v;
        }
    }
    d[n][m]
}

/// The closest candidate to `name`, if it is close enough to be a likely typo.
pub fn suggest<'a, I>(name: &str, candidates: I) -> Option<String>
where
    I: IntoIterator<Item = &'a str>,
{
    if name.len() > 64 {
        return None;
    }
    let limit = (name.chars().count() / 3).max(1);
    let mut best: Option<(usize, &str)> = None;
    for c in candidates {
        if c == name || c.len() > 64 {
            continue;
        }
        let d = edit_distance(name, c);
        if d <= limit && !matches!(best, Some((bd, _)) if bd <= d) {
            best = Some((d, c));
        }
    }
    best.map(|(_, c)| c.to_string())
}

/// Every built-in type name, for suggestions.
pub fn builtin_type_names() -> Vec<String> {
    let mut v = vec!["void".to_string()];
    for s in ["float", "int", "bool"] {
        v.push(s.to_string());
        for n in 1..=4 {
            v.push(format!("{s}{n}"));
        }
    }
    for r in 2..=4 {
        for c in 2..=4 {
            v.push(format!("float{r}x{c}"));
        }
    }
    v
}

/// A built-in type name close to `name`.
pub fn suggest_type(name: &str) -> Option<String> {
    let names = builtin_type_names();
    suggest(name, names.iter().map(String::as_str))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distances() {
        assert_eq!(edit_distance("flaot4", "float4"), 1);
        assert_eq!(edit_distance("reslt", "result"), 1);
        assert_eq!(edit_distance("abc", "abc"), 0);
        assert_eq!(suggest_type("flaot4").as_deref(), Some("float4"));
        assert_eq!(suggest("zzzz", ["a", "bb"]), None);
    }
}
