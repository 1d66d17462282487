//! The warnings of the final pass: what in the rows the user should know
//! (graphs without a baseline, one graph under several names, solves past
//! the time limit, rows the config no longer asks for, refuted bounds).

use std::path::Path;

use super::rows::Row;
use super::{fingerprint, Config, Plan};
use crate::text::first_few;

/// Graphs of the rows that are one graph under several names (equal
/// fingerprints: a generator that ignores the seed, such as `darts`, or
/// `fork-join` without jitter, a spec with a parameter written at its
/// default value beside one without, or one file listed twice): each copy counts
/// in the means, so the summaries weigh that graph more.
pub(super) fn identical_graphs_warning(out: &Path, rows: &[Row]) -> Option<String> {
    let fingerprints = fingerprint::read(out).ok()?;
    let named: std::collections::BTreeSet<&str> = rows.iter().map(|r| r.graph.as_str()).collect();
    let mut by_print: std::collections::BTreeMap<_, Vec<&str>> = Default::default();
    for (name, print) in &fingerprints {
        if named.contains(name.as_str()) {
            by_print.entry(print).or_default().push(name.as_str());
        }
    }
    let groups: Vec<Vec<&str>> = by_print
        .into_values()
        .filter(|names| names.len() > 1)
        .collect();
    let mut causes: Vec<Twins> = groups.iter().map(|names| Twins::of(names)).collect();
    causes.sort();
    causes.dedup();
    let hint: Vec<&str> = causes.iter().map(|c| c.hint()).collect();
    let hint = hint.join("; or ");
    let groups: Vec<String> = groups
        .into_iter()
        .map(|names| match names.len() {
            2 | 3 => names.join(" = "),
            k => format!("{} = {} and {} more", names[0], names[1], k - 2),
        })
        .collect();
    if groups.is_empty() {
        return None;
    }
    let shown: Vec<&str> = groups.iter().take(3).map(String::as_str).collect();
    let more = groups.len().saturating_sub(shown.len());
    Some(format!(
        "{} group(s) of graphs are one graph under several names (the same content), so \
         each counts more than once in the summaries: {}{} ({hint})",
        groups.len(),
        shown.join("; "),
        if more > 0 {
            format!("; and {more} more")
        } else {
            String::new()
        }
    ))
}

/// Why several names may be one graph (see [`identical_graphs_warning`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Twins {
    /// Generated, one seed, specs written differently.
    Spelling,
    /// Generated, one spec, different seeds.
    Seed,
    /// Files, or specs and seeds that both differ.
    Other,
}

impl Twins {
    /// The likely cause for a group of names of one graph (generated
    /// graphs are named `SPEC#SEED`).
    fn of(names: &[&str]) -> Twins {
        let parts: Option<Vec<(&str, &str)>> = names.iter().map(|n| n.rsplit_once('#')).collect();
        match parts {
            Some(p) if p.iter().all(|(_, seed)| *seed == p[0].1) => Twins::Spelling,
            Some(p) if p.iter().all(|(spec, _)| *spec == p[0].0) => Twins::Seed,
            _ => Twins::Other,
        }
    }

    fn hint(self) -> &'static str {
        match self {
            Twins::Spelling => {
                "a spec that writes a parameter at its default value, beside one that \
                 leaves it out: `chain:length=10` is `chain`"
            }
            Twins::Seed => {
                "a generator that ignores the seed, such as `darts`, `nasnet` or \
                 `fork-join` without jitter?"
            }
            Twins::Other => "the same graph saved under two file names, or made by two specs?",
        }
    }
}

/// The solves that took well past the time limit (half as long again, and
/// a second), by solver: the limit is each solver's to keep, so one that
/// ignores it shows here (its rows stand: their orders were checked).
pub(super) fn overrun_warning(rows: &[Row], limit: std::time::Duration) -> Option<String> {
    let allowed_ms = limit.as_secs_f64() * 1.5e3 + 1e3;
    let mut by_solver: std::collections::BTreeMap<&str, (usize, f64)> = Default::default();
    for r in rows.iter().filter(|r| r.time_ms > allowed_ms) {
        let (count, longest) = by_solver.entry(r.solver.as_str()).or_default();
        *count += 1;
        *longest = longest.max(r.time_ms);
    }
    if by_solver.is_empty() {
        return None;
    }
    let named: Vec<String> = by_solver
        .iter()
        .map(|(s, (count, longest))| format!("{s}: {count}, up to {:.1} s", longest / 1e3))
        .collect();
    let total: usize = by_solver.values().map(|(count, _)| count).sum();
    Some(format!(
        "{total} solve(s) took more than 1.5x the time limit of {} s plus a second ({}): a \
         solver that does not watch its deadline? Their rows stand, their orders checked",
        limit.as_secs_f64(),
        named.join("; ")
    ))
}

/// How many rows are of solvers, graphs or seeds no longer in the config
/// (kept from earlier runs until `--fresh`), naming the solvers; graphs
/// and seeds are told only with the `plan`.
pub(super) fn leftover_note(
    rows: &[Row],
    solvers: &[String],
    plan: Option<&Plan>,
) -> Option<String> {
    use std::collections::{BTreeSet, HashSet};
    let solvers: HashSet<&str> = solvers.iter().map(String::as_str).collect();
    let graphs: Option<HashSet<&str>> =
        plan.map(|p| p.graphs.iter().map(|g| g.name.as_str()).collect());
    // The solves of the plan, to tell rows of seeds since dropped.
    let solves: Option<HashSet<(&str, &str, u64)>> = plan.map(|p| {
        p.items
            .iter()
            .map(|i| {
                let (g, s) = (&p.graphs[i.graph].name, &p.solvers[i.solver].name);
                (g.as_str(), s.as_str(), i.seed)
            })
            .collect()
    });
    let mut gone_solvers = BTreeSet::new();
    let mut gone_graphs = HashSet::new();
    let mut gone_seeds = BTreeSet::new();
    let mut leftover = 0;
    for r in rows {
        let solver_gone = !solvers.contains(r.solver.as_str());
        let graph_gone = graphs
            .as_ref()
            .is_some_and(|g| !g.contains(r.graph.as_str()));
        if solver_gone {
            gone_solvers.insert(r.solver.as_str());
        }
        if graph_gone {
            gone_graphs.insert(r.graph.as_str());
        }
        let seed_gone = !solver_gone
            && !graph_gone
            && solves
                .as_ref()
                .is_some_and(|s| !s.contains(&(r.graph.as_str(), r.solver.as_str(), r.seed)));
        if seed_gone {
            gone_seeds.insert(r.seed);
        }
        leftover += usize::from(solver_gone || graph_gone || seed_gone);
    }
    if leftover == 0 {
        return None;
    }
    let mut what = Vec::new();
    if !gone_solvers.is_empty() {
        let names = first_few(
            gone_solvers.iter(),
            5,
            |s| format!("`{s}`"),
            |k| format!("{k} more"),
        );
        what.push(format!("solver(s) {}", names.join(", ")));
    }
    if !gone_graphs.is_empty() {
        what.push(format!("{} graph(s)", gone_graphs.len()));
    }
    if !gone_seeds.is_empty() {
        let seeds = first_few(gone_seeds.iter(), 5, u64::to_string, |k| {
            format!("{k} more")
        });
        what.push(format!("seed(s) {}", seeds.join(", ")));
    }
    Some(format!(
        "{leftover} of the runs are of {} no longer in the config, kept from earlier runs \
         until `--fresh`: they count in the per-solver table, and the per-graph table has \
         columns for the config's solvers only (`memsched table DIR -s SOLVER ...` tabulates \
         the solvers you choose without solving again)",
        what.join(" and ")
    ))
}

/// Graphs none of whose baselines gave a checked order (their
/// `reduction_pct` stays empty), named in a warning. Only graphs with a
/// baseline row count, and only the baselines with rows are named: a shard
/// may hold some of a graph's rows only.
pub(super) fn no_baseline_warning(rows: &[Row], config: &Config) -> Option<String> {
    const SHOWN: usize = 5;
    let failed: Vec<&Row> = rows
        .iter()
        .filter(|r| r.baseline_peak_bytes.is_none() && config.baselines.contains(&r.solver))
        .collect();
    let graphs: std::collections::BTreeSet<&str> =
        failed.iter().map(|r| r.graph.as_str()).collect();
    if graphs.is_empty() {
        return None;
    }
    let tried: Vec<&str> = config
        .baselines
        .iter()
        .filter(|b| failed.iter().any(|r| &r.solver == *b))
        .map(String::as_str)
        .collect();
    let names = first_few(
        graphs.iter(),
        SHOWN,
        |g| format!("`{g}`"),
        |more| format!("and {more} more"),
    );
    let has = |name: &str| config.baselines.iter().any(|b| b == name);
    let hint = match (has("program"), has("kahn")) {
        (true, false) => {
            " (a Nodes order that breaks the edges fails `program`; add `kahn` to `baselines` \
             as a fallback)"
        }
        (_, false) => " (`kahn` in `baselines` is a fallback that fails on no acyclic graph)",
        (_, true) => " (see their rows' `reason` in runs.csv)",
    };
    Some(format!(
        "{} graph(s) have no valid baseline ({} gave no checked order), so their \
         reduction_pct is empty: {}{hint}",
        graphs.len(),
        tried.join(", "),
        names.join(", ")
    ))
}

/// The rows the final pass made invalid because they claimed a lower bound
/// above another row's checked peak (a solver bug), named in a warning.
pub(super) fn refuted_warning(rows: &[Row]) -> Option<String> {
    let refuted: Vec<String> = rows
        .iter()
        .filter(|r| crate::solvers::wrong_bound_claim(&r.reason).is_some())
        .map(|r| {
            let by = crate::solvers::wrong_bound_refuter(&r.reason)
                .map(|by| format!(": its bound is above {by}'s checked peak"))
                .unwrap_or_default();
            format!("{} / {} (seed {}){by}", r.graph, r.solver, r.seed)
        })
        .collect();
    if refuted.is_empty() {
        return None;
    }
    Some(format!(
        "{} row(s) claimed a lower bound above another row's checked peak and are now \
         invalid (a solver bug; see their reason in runs.csv): {}",
        refuted.len(),
        refuted.join(", ")
    ))
}

#[cfg(test)]
mod tests {
    use super::overrun_warning;

    /// Solves well past the limit are counted by solver, with the longest;
    /// those within half the limit and a second again are not.
    #[test]
    fn overruns_are_named_by_solver() {
        let row = |solver: &str, time_ms: f64| super::Row {
            solver: solver.into(),
            time_ms,
            ..crate::experiment::rows::blank()
        };
        let limit = std::time::Duration::from_secs(2);
        assert_eq!(overrun_warning(&[row("a", 3999.0)], limit), None);
        let rows = [
            row("a", 4001.0),
            row("b", 9000.0),
            row("a", 5000.0),
            row("c", 10.0),
        ];
        let text = overrun_warning(&rows, limit).unwrap();
        assert!(
            text.starts_with("3 solve(s)") && text.contains("limit of 2 s"),
            "{text}"
        );
        assert!(
            text.contains("(a: 2, up to 5.0 s; b: 1, up to 9.0 s)"),
            "{text}"
        );
    }
}
