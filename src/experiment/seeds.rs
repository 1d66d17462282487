//! Seeds as a config writes them: a list, a number or a range, expanded
//! and checked (no repeats, at most a million).

use serde::{Deserialize, Serialize};

/// Seeds written as a list `[0, 1, 2]`, a number `3`, or a range `"0..50"`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(
    untagged,
    expecting = "seeds as a non-negative integer (`3`), a list of them (`[0, 1, 2]`) or a range string (`\"0..50\"`)"
)]
pub enum Seeds {
    /// `[0, 1, 2]`: these seeds, in this order, none repeated.
    List(Vec<u64>),
    /// `3`: the one seed 3 (not three seeds).
    One(u64),
    /// `"A..B"`: seeds A to B - 1, at most 1,000,000 of them; kept as
    /// written until [`Seeds::expand`].
    Range(String),
}

/// As written in a config: `3`, `[0, 1, 2]` or `"0..50"`.
impl std::fmt::Display for Seeds {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Seeds::List(v) => {
                let items: Vec<String> = v.iter().map(u64::to_string).collect();
                write!(f, "[{}]", items.join(", "))
            }
            Seeds::One(n) => write!(f, "{n}"),
            Seeds::Range(r) => write!(f, "\"{r}\""),
        }
    }
}

/// Most seeds one `seeds` entry may name (a range past it is surely a typo,
/// and would allocate its whole list).
const MAX_SEEDS: u64 = 1_000_000;

impl Seeds {
    /// The default: seed 0 alone.
    pub(crate) fn zero() -> Seeds {
        Seeds::List(vec![0])
    }

    /// The seeds, in order, or a message saying why they are malformed: a
    /// range that is not `A..B`, empty or longer than [`MAX_SEEDS`], or a
    /// list that repeats a seed.
    pub fn expand(&self) -> Result<Vec<u64>, String> {
        match self {
            Seeds::List(v) => match repeated_seeds(v) {
                Some(message) => Err(message),
                None => Ok(v.clone()),
            },
            Seeds::One(s) => Ok(vec![*s]),
            Seeds::Range(r) => {
                let (a, b) = r
                    .split_once("..")
                    .ok_or_else(|| format!("seed range `{r}` is not `A..B`"))?;
                if let Some(end) = b.trim().strip_prefix('=') {
                    return Err(format!(
                        "seed range `{r}`: write `{a}..B` with B one past the last seed \
                         (`A..B` leaves B out; `..=` is not accepted), e.g. `{a}..{}`",
                        end.trim()
                            .parse::<u64>()
                            .map_or("B".into(), |e| (u128::from(e) + 1).to_string())
                    ));
                }
                // B may be one past the last seed, u64::MAX: 2^64.
                let parse = |s: &str, max: u128| {
                    let n = s.trim().parse::<u128>().map_err(|_| {
                        format!(
                            "seed range `{r}`: `{s}` is not a number (write `A..B`, B left out)"
                        )
                    })?;
                    if n > max {
                        return Err(format!(
                            "seed range `{r}`: `{s}` is out of range (seeds go up to {}, \
                             and B, left out, to one more)",
                            u64::MAX
                        ));
                    }
                    Ok(n)
                };
                let (a, b) = (
                    parse(a, u64::MAX.into())?,
                    parse(b, u128::from(u64::MAX) + 1)?,
                );
                if b <= a {
                    return Err(format!("seed range `{r}` is empty"));
                }
                if b - a > u128::from(MAX_SEEDS) {
                    return Err(format!(
                        "seed range `{r}` names {} seeds; at most {MAX_SEEDS} are allowed",
                        b - a
                    ));
                }
                // Every seed is below b <= 2^64.
                Ok((a..b).map(|s| s as u64).collect())
            }
        }
    }
}

/// How many repeated seeds a message names (a list may hold a million).
const SHOWN_REPEATS: usize = 3;

/// Says which seeds `list` repeats and where (entries numbered from 0), or
/// `None`. Names the first [`SHOWN_REPEATS`] repeated seeds, in the order of
/// their second occurrence, and counts the rest, never the whole list:
/// `seed 0 is listed twice (entries #0 and #3 of 4)`.
///
/// # Complexity
/// O(n) expected time and memory for n seeds (one pass, and one more per
/// named seed).
fn repeated_seeds(list: &[u64]) -> Option<String> {
    use std::collections::HashSet;
    // The distinct repeated seeds, in the order of their second occurrence.
    let mut seen = HashSet::with_capacity(list.len());
    let mut twice = HashSet::new();
    let mut repeated = Vec::new();
    for &seed in list {
        if !seen.insert(seed) && twice.insert(seed) {
            repeated.push(seed);
        }
    }
    // Where a named seed occurs (its first two entries) and how often:
    // one more pass per named seed.
    let describe = |seed: u64| {
        let mut entries = list.iter().enumerate().filter(|&(_, &s)| s == seed);
        let (first, second) = (entries.next().unwrap().0, entries.next().unwrap().0);
        let count = 2 + entries.count();
        let times = match count {
            2 => "twice".to_string(),
            c => format!("{c} times"),
        };
        let first_at = if count > 2 { "first at " } else { "" };
        (times, format!("{first_at}entries #{first} and #{second}"))
    };
    let n = list.len();
    match repeated.as_slice() {
        [] => None,
        &[seed] => {
            let (times, entries) = describe(seed);
            Some(format!("seed {seed} is listed {times} ({entries} of {n})"))
        }
        many => {
            let shown: Vec<String> = many
                .iter()
                .take(SHOWN_REPEATS)
                .map(|&seed| {
                    let (times, entries) = describe(seed);
                    format!("{seed} ({times}, {entries})")
                })
                .collect();
            let more = match many.len().saturating_sub(SHOWN_REPEATS) {
                0 => String::new(),
                rest => format!(" and {rest} more"),
            };
            Some(format!(
                "{} seeds are listed more than once among the {n}: {}{more}; \
                 a list may not repeat a seed",
                many.len(),
                shown.join(", ")
            ))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seeds_forms() {
        assert_eq!(Seeds::Range("2..5".into()).expand().unwrap(), vec![2, 3, 4]);
        assert_eq!(Seeds::One(7).expand().unwrap(), vec![7]);
        assert!(Seeds::Range("5..5".into()).expand().is_err());
        assert!(Seeds::Range("a..5".into()).expand().is_err());
        let huge = Seeds::Range("0..18446744073709551615".into()).expand();
        assert!(huge.unwrap_err().contains("at most 1000000"));
        assert_eq!(
            Seeds::Range("0..1000000".into()).expand().unwrap().len(),
            1_000_000
        );
        // `..=` is refused with the range to write, also for the last seed.
        let err = Seeds::Range("5..=18446744073709551615".into())
            .expand()
            .unwrap_err();
        assert!(err.contains("e.g. `5..18446744073709551616`"), "{err}");
        // The last seed, u64::MAX, is in reach: B is one past it.
        let last = Seeds::Range("18446744073709551614..18446744073709551616".into());
        assert_eq!(last.expand().unwrap(), vec![u64::MAX - 1, u64::MAX]);
        for r in [
            "0..18446744073709551617",
            "18446744073709551616..18446744073709551617",
        ] {
            let err = Seeds::Range(r.into()).expand().unwrap_err();
            assert!(
                err.contains("is out of range (seeds go up to 18446744073709551615"),
                "{err}"
            );
        }
        let twice = Seeds::List(vec![0, 1, 2, 0]).expand().unwrap_err();
        assert_eq!(twice, "seed 0 is listed twice (entries #0 and #3 of 4)");
        let thrice = Seeds::List(vec![5, 6, 5, 5]).expand().unwrap_err();
        assert_eq!(
            thrice,
            "seed 5 is listed 3 times (first at entries #0 and #2 of 4)"
        );
    }

    /// A long list with repeats names the first few repeated seeds and
    /// where they are, counts the rest, and does not print the list.
    #[test]
    fn repeated_seeds_are_named_not_the_whole_list() {
        // 0..1000, then 0..10 again (10 repeats), 7 a third time.
        let mut list: Vec<u64> = (0..1000).chain(0..10).collect();
        list.push(7);
        let err = Seeds::List(list).expand().unwrap_err();
        assert_eq!(
            err,
            "10 seeds are listed more than once among the 1011: \
             0 (twice, entries #0 and #1000), 1 (twice, entries #1 and #1001), \
             2 (twice, entries #2 and #1002) and 7 more; a list may not repeat a seed"
        );
        assert!(err.len() < 300, "{err}");
    }
}
