//! Shell-style wildcards, one meaning everywhere: config globs
//! (`[graphs] globs`) and `memsched table --graph`.

/// Matches `*` (any run) and `?` (one character).
///
/// # Complexity
/// O(|pattern| * |text|) worst case (greedy star with backtracking to the last star).
pub(crate) fn matches(pattern: &str, text: &str) -> bool {
    let (p, t): (Vec<char>, Vec<char>) = (pattern.chars().collect(), text.chars().collect());
    let (mut i, mut j) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while j < t.len() {
        if i < p.len() && (p[i] == '?' || p[i] == t[j]) {
            i += 1;
            j += 1;
        } else if i < p.len() && p[i] == '*' {
            star = Some((i, j));
            i += 1;
        } else if let Some((si, sj)) = star {
            i = si + 1;
            j = sj + 1;
            star = Some((si, sj + 1));
        } else {
            return false;
        }
    }
    p[i..].iter().all(|&c| c == '*')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stars_and_question_marks() {
        assert!(matches("*.json", "a_b.json"));
        assert!(matches("res*_b?.json", "resnet50_b1.json"));
        assert!(!matches("*.json", "a.csv"));
        assert!(matches("*", ""));
        assert!(!matches("a?", "a"));
    }

    #[test]
    fn patterns_match_runs_of_characters() {
        for (p, name, want) in [
            ("a*c", "abc", true),
            ("a*c", "ac", true),
            ("a*c", "acb", false),
            ("*x*", "gx#3", true),
            ("g", "g", true),
            ("g", "gg", false),
            ("a*a", "a", false),
            (
                "random-layered:*#0",
                "random-layered:layers=12,width=4#0",
                true,
            ),
        ] {
            assert_eq!(matches(p, name), want, "{p} ~ {name}");
        }
    }
}
