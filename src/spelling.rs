//! Guesses at what a misspelled name meant, for error messages.

/// The `candidates` within a third of the shorter length's edits of `name`
/// (case-insensitive), in the order given: `hieght` finds `height`, `khan`
/// finds `kahn`, `de` finds nothing.
pub(crate) fn near<'a>(name: &str, candidates: impl IntoIterator<Item = &'a str>) -> Vec<&'a str> {
    let name = name.to_ascii_lowercase();
    candidates
        .into_iter()
        .filter(|c| edit_distance(&name, c) <= name.len().min(c.len()) / 3)
        .collect()
}

/// [`near`], and also the `candidates` that start with `name` when it has
/// three letters or more (case-insensitive), for names a user shortens
/// (features, solvers, generator families): `live` finds `live_after`.
/// Not for a file's keys, where a short key is likely a field of its own.
pub(crate) fn near_or_begun<'a>(
    name: &str,
    candidates: impl IntoIterator<Item = &'a str>,
) -> Vec<&'a str> {
    let lower = name.to_ascii_lowercase();
    let begun = |c: &str| lower.len() >= 3 && c.to_ascii_lowercase().starts_with(&lower);
    candidates
        .into_iter()
        .filter(|c| begun(c) || !near(name, [*c]).is_empty())
        .collect()
}

/// ` (did you mean `x`?)` for one guess, ` (did you mean one of `x`,
/// `y`?)` for several, empty for none: to follow the name in an error.
pub(crate) fn did_you_mean(guesses: &[&str]) -> String {
    match guesses {
        [] => String::new(),
        [one] => format!(" (did you mean `{one}`?)"),
        several => format!(" (did you mean one of `{}`?)", several.join("`, `")),
    }
}

/// The edit distance between `a` and `b` (short names): insertions,
/// deletions, substitutions and swaps of two neighbours (`khan`, `kahn`)
/// each count one (optimal string alignment).
fn edit_distance(a: &str, b: &str) -> usize {
    let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    // Rows i-2, i-1 and i of the table; row 0 is the distance from "".
    let mut before: Vec<usize> = Vec::new();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for i in 1..=a.len() {
        let mut row = vec![i; b.len() + 1];
        for j in 1..=b.len() {
            let same = a[i - 1] == b[j - 1];
            row[j] = (prev[j] + 1)
                .min(row[j - 1] + 1)
                .min(prev[j - 1] + usize::from(!same));
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                row[j] = row[j].min(before[j - 2] + 1);
            }
        }
        before = std::mem::replace(&mut prev, row);
    }
    prev[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distances_and_guesses() {
        assert_eq!(edit_distance("hieght", "height"), 1);
        assert_eq!(edit_distance("khan", "kahn"), 1);
        assert_eq!(edit_distance("kitten", "sitting"), 3);
        assert_eq!(edit_distance("ca", "abc"), 3);
        assert_eq!(edit_distance("", "id"), 2);
        assert_eq!(edit_distance("kahn", "kahn"), 0);
        assert_eq!(near("Hieght", ["height", "depth"]), ["height"]);
        let features = [
            "live_after",
            "latency",
            "random",
            "frees_after",
            "in_degree",
        ];
        for (name, meant) in [
            ("live", "live_after"),
            ("lat", "latency"),
            ("rand", "random"),
            ("frees", "frees_after"),
            ("in_deg", "in_degree"),
        ] {
            assert_eq!(near_or_begun(name, features), [meant], "{name}");
            assert!(near(name, features).is_empty(), "{name}: edits only");
        }
        assert!(
            near_or_begun("la", features).is_empty(),
            "two letters are too few"
        );
        assert_eq!(near_or_begun("hieght", ["height"]), ["height"]);
        assert_eq!(near("khan", ["kahn", "liu"]), ["kahn"]);
        assert!(near("de", ["id", "delta"]).is_empty());
        assert_eq!(did_you_mean(&[]), "");
        assert_eq!(
            did_you_mean(&["a", "b"]),
            " (did you mean one of `a`, `b`?)"
        );
    }
}
