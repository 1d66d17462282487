//! `anneal:length=K,START`: the solver name's options, read into an
//! [`Anneal`].

use super::Anneal;
use crate::solvers::registry::build;
use crate::solvers::{Scheduler, SolverError};

/// `anneal` (from `best-heuristic`) or `anneal:START` (from the solver
/// `START` builds, e.g. `anneal:seed-greedy` or `anneal:rule:-height,id`),
/// either led by `length=K,` (or only `length=K`): K times the default
/// move budget.
pub(crate) fn make_anneal(arg: Option<&str>) -> Result<Box<dyn Scheduler>, SolverError> {
    let bad = |message: String| SolverError::BadArgument {
        name: "anneal".into(),
        message,
    };
    let (length, start) = match arg {
        Some(arg) => split_length(arg).map_err(bad)?,
        None => (None, None),
    };
    let (anneal, start_name) = match start {
        None => (Anneal::default(), None),
        Some(start) => {
            // Annealing an annealed order again is one longer run: and a
            // chain of `anneal:` prefixes would recurse once per link.
            if start
                .split(':')
                .next()
                .is_some_and(|base| base.trim() == "anneal")
            {
                return Err(bad(format!(
                    "its start `{start}` is itself `anneal`: start from another solver \
                     (`anneal:length=K` makes one run K times longer)"
                )));
            }
            if let Some(why) = misplaced_option(start, length.is_some()) {
                return Err(bad(why));
            }
            let solver = build(start)
                .map_err(|e| bad(format!("its start `{start}` is not a solver: {e}")))?;
            // Named after the start's own name, so that spellings of one
            // start (`rule: delta,id`, `rule:delta,id`) name one solver;
            // the default start is no start.
            let name = solver.name();
            match name == "best-heuristic" {
                true => (Anneal::default(), None),
                false => (Anneal::with_start(solver), Some(name)),
            }
        }
    };
    let length = length.filter(|&k| k != 1.0);
    let options = length
        .map(|k| {
            format!(
                "length={}",
                crate::corpus::gen::canonical_value(&format!("{k:?}"))
            )
        })
        .into_iter()
        .chain(start_name)
        .collect::<Vec<_>>()
        .join(",");
    let anneal = match length {
        Some(k) => anneal.with_length(k),
        None => anneal,
    };
    Ok(Box::new(match options.is_empty() {
        true => anneal,
        false => anneal.named(format!("anneal:{options}")),
    }))
}

/// Why `start`, the text after `anneal:` (and after `length=K,` when
/// `had_length`), is a misplaced or misspelled option rather than a
/// solver: `kahn,length=2`, `lenght=2`, `length:2`, `length=2,length=3`.
fn misplaced_option(start: &str, had_length: bool) -> Option<String> {
    let first = start.split(',').next().unwrap_or_default().trim();
    let option = first
        .split_once('=')
        .is_some_and(|(key, _)| !key.contains(':'))
        || first.to_ascii_lowercase().starts_with("len");
    if option {
        let why = match had_length {
            true => format!("`{first}` after `length=K,`: anneal's one option is given once"),
            false => format!("unknown option `{first}`: anneal's one option is `length=K`"),
        };
        return Some(format!(
            "{why} (`anneal:length=2` or `anneal:length=2,START`)"
        ));
    }
    let (head, tail) = start.split_once(',')?;
    let misplaced = tail.split(',').any(|t| t.trim().starts_with("length="));
    misplaced.then(|| {
        format!(
            "`length=K` comes first, before the start: `anneal:{},{}`",
            tail.trim(),
            head.trim()
        )
    })
}

/// Largest `K` of `anneal:length=K`: a thousand times the default budget
/// is already hours on a large graph.
const MAX_ANNEAL_LENGTH: f64 = 1000.0;

/// `length=K,START` -> `(Some(K), Some(START))`; `length=K` -> `(Some(K),
/// None)`; anything else is all START. K is a number in (0, 1000].
fn split_length(arg: &str) -> Result<(Option<f64>, Option<&str>), String> {
    let arg = arg.trim();
    let Some(rest) = arg.strip_prefix("length") else {
        return Ok((None, Some(arg)));
    };
    let Some(rest) = rest.trim_start().strip_prefix('=') else {
        return Ok((None, Some(arg)));
    };
    let (value, start) = match rest.split_once(',') {
        Some((value, start)) => (value.trim(), Some(start.trim())),
        None => (rest.trim(), None),
    };
    let k: f64 = value
        .parse()
        .ok()
        .filter(|k: &f64| k.is_finite() && *k > 0.0 && *k <= MAX_ANNEAL_LENGTH)
        .ok_or_else(|| {
            format!(
                "`length={value}` is not a number above 0 and at most {MAX_ANNEAL_LENGTH}: \
                 K in `anneal:length=K` multiplies the default move budget (the default is \
                 `length=1`; e.g. `length=4` tries four times the moves)"
            )
        })?;
    match start {
        Some("") => Err(format!(
            "`length={value},` names no start: write `anneal:length={value}` or \
             `anneal:length={value},START`"
        )),
        _ => Ok((Some(k), start)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::solvers::registry::names_with;

    /// `anneal` starts from best-heuristic, `anneal:START` from any solver,
    /// named by the start's own name; a bad start is named.
    #[test]
    fn anneal_takes_an_optional_start() {
        assert_eq!(build("anneal").unwrap().name(), "anneal");
        assert_eq!(
            build("anneal:seed-greedy").unwrap().name(),
            "anneal:seed-greedy"
        );
        assert_eq!(
            build("anneal: rule: delta , id").unwrap().name(),
            "anneal:rule:delta,id"
        );
        assert!(build("anneal:noisy:delta").unwrap().abilities().restarts);
        assert!(!build("anneal:kahn").unwrap().abilities().budgeted);
        let err = build("anneal:bogus").err().unwrap().to_string();
        assert!(err.contains("its start `bogus` is not a solver"), "{err}");
        let err = build("anneal: anneal:kahn").err().unwrap().to_string();
        assert!(err.contains("is itself `anneal`"), "{err}");
        let err = build("anneal:").err().unwrap().to_string();
        assert!(err.contains("write `anneal` or `anneal:START`"), "{err}");
        assert!(names_with(|a| a.budgeted).contains(&"anneal".to_string()));
        let g = crate::corpus::gen::generate(
            &crate::corpus::gen::GenSpec::parse("tensor-program:ops=10").unwrap(),
            1,
        )
        .unwrap();
        let ctx = crate::solvers::SolveContext::new(3, None);
        let start = crate::solvers::run(build("kahn").unwrap().as_ref(), &g, &ctx);
        let annealed = crate::solvers::run(build("anneal:kahn").unwrap().as_ref(), &g, &ctx);
        assert!(
            annealed.peak.unwrap() <= start.peak.unwrap(),
            "never worse than its start"
        );
        assert_eq!(annealed.note.as_deref(), Some("start: kahn"));
    }

    /// `anneal:length=K[,START]` runs K times the default moves, is named
    /// canonically (`length=1` is the default, so left out), and refuses a
    /// K that is not a number in (0, 1000] or a length with an empty start.
    #[test]
    fn anneal_length_multiplies_its_moves() {
        for (spelled, name) in [
            ("anneal:length=4", "anneal:length=4"),
            (
                "anneal: length = 0.5 , seed-greedy",
                "anneal:length=0.5,seed-greedy",
            ),
            ("anneal:length=1,kahn", "anneal:kahn"),
            ("anneal:length=1", "anneal"),
            (
                "anneal:length=2,rule: delta,id",
                "anneal:length=2,rule:delta,id",
            ),
            ("anneal:length=2.50,kahn", "anneal:length=2.5,kahn"),
            ("anneal:length=1e-3", "anneal:length=0.001"),
            ("anneal:length=1e-300", "anneal:length=1e-300"),
            // The default start is no start.
            ("anneal:best-heuristic", "anneal"),
            ("anneal:length=3,best-heuristic", "anneal:length=3"),
        ] {
            assert_eq!(build(spelled).unwrap().name(), name, "{spelled}");
        }
        for (spelled, needle) in [
            ("anneal:length=0", "`length=0` is not a number above 0"),
            ("anneal:length=1001", "at most 1000"),
            ("anneal:length=NaN", "`length=NaN`"),
            ("anneal:length=4,", "names no start"),
            ("anneal:length=2,anneal:kahn", "is itself `anneal`"),
            (
                "anneal:kahn,length=2",
                "comes first, before the start: `anneal:length=2,kahn`",
            ),
            ("anneal:lenght=2", "unknown option `lenght=2`"),
            ("anneal:length:2", "unknown option `length:2`"),
            ("anneal:length=2,length=3", "given once"),
        ] {
            let err = build(spelled).err().unwrap().to_string();
            assert!(err.contains(needle), "{spelled}: {err}");
        }
        let g = crate::corpus::gen::generate(
            &crate::corpus::gen::GenSpec::parse("tensor-program:ops=10").unwrap(),
            1,
        )
        .unwrap();
        let ctx = crate::solvers::SolveContext::new(3, None);
        let proposed = |name: &str| {
            let out = crate::solvers::run(build(name).unwrap().as_ref(), &g, &ctx);
            assert!(out.valid(), "{name}");
            out.counters
                .iter()
                .find(|(c, _)| c == "proposed")
                .map(|(_, n)| *n)
        };
        let base = crate::solvers::anneal::default_iterations(g.node_count());
        assert_eq!(proposed("anneal:kahn"), Some(base));
        assert_eq!(proposed("anneal:length=2.5,kahn"), Some(base * 5 / 2));
    }
}
