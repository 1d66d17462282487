//! Experiments: a TOML config in, `runs.csv`, `graphs.csv`, `summary.csv`,
//! plots and a README out.
//!
//! - [`config`] reads and validates `experiments/NAME.toml`.
//! - [`plan`] turns it into numbered work items (graph x solver x seed) and shards.
//! - [`runner`] runs the pending items in parallel, appending [`rows::Row`]s;
//!   [`results_dir`] names and guards the files of an output directory,
//!   [`records`] reads and writes its profiles and saved orders, and
//!   `resume` compares what a directory holds with the config run into it.
//! - [`progress`] shows how far a run is: a bar on a terminal, plain lines
//!   in a log.
//! - [`fingerprint`] digests a graph's content, so a resume notices a graph
//!   file edited since its rows were solved.
//! - [`finish`] is the final pass: [`rows::finalize`] fills the per-graph
//!   columns, [`graphs`] combines each graph's rows (best peak, best lower
//!   bound, gap), then [`summary`], `plots` and [`report`] write their files.
//!   `plots` needs the `plots` feature; without it the README says the
//!   plots were not drawn.
//! - [`merge`] joins shard directories (of one config) and runs the final
//!   pass on the union, warning about items without a row.
//! - [`table`] pivots a directory's rows into a graphs x solvers table
//!   (Markdown, CSV or LaTeX), without solving again.

mod catch;
pub mod config;
mod drawing;
pub mod fingerprint;
pub mod graphs;
pub mod merge;
pub mod plan;
#[cfg(feature = "plots")]
pub mod plots;
pub(crate) mod progress;
pub mod records;
pub mod report;
pub mod results_dir;
mod resume;
pub mod rows;
pub mod runner;
pub mod summary;
pub mod table;
mod wildcard;

use std::path::Path;

use thiserror::Error;

pub use config::{Config, ConfigError, PlotKind};
pub use plan::{Plan, Shard};
pub use rows::Row;
pub use runner::{run, RunOptions, RunSummary};

/// Why an experiment could not run or finish.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum ExperimentError {
    /// The config is unusable: it fails a parsed config's checks, or its
    /// graphs or solvers cannot be planned (invalid input).
    #[error("{0}")]
    Config(String),
    /// Graphs that cannot be loaded, or that differ from the graphs their
    /// recorded rows were solved on (invalid input).
    #[error("{0}")]
    Graphs(String),
    /// A results directory (the output, or a merge's input) cannot be used
    /// as it is: another experiment's, rows solved with other settings,
    /// records memsched did not write, held by another run (invalid input).
    #[error("{0}")]
    Directory(String),
    /// A [`RunOptions`] field or a merge's list of directories names
    /// something that is not there (`--redo` of a solver the experiment
    /// does not have) or repeats a directory (invalid input).
    #[error("{0}")]
    Options(String),
    /// The worker threads could not be started (the system's error).
    #[error("cannot start threads: {0}")]
    Threads(String),
    /// A file operation failed: `op` says which ("read", "write", ...).
    #[error("cannot {op} {path}: {source}")]
    Io {
        /// The operation, as the message words it: `read`, `write`,
        /// `open`, `create directory`, `rename to`, ...
        op: &'static str,
        /// The file or directory it was applied to, as displayed.
        path: String,
        /// The operating system's error.
        source: std::io::Error,
    },
    /// A plot could not be drawn: `plot` is its file's path.
    #[error("plot {plot}: {message}")]
    Plot {
        /// Path of the PNG or SVG file being drawn.
        plot: String,
        /// The plotting library's error, or a bad file extension.
        message: String,
    },
    /// memsched's own code panicked outside a solve (a bug): the message.
    #[error("internal error (a memsched bug, please report it): {0}")]
    Internal(String),
    /// The final pass failed on a file (`error`) after every row was
    /// saved in `runs`; `again` tells how to finish it.
    #[error(
        "{error}; the final pass (summaries, plots, README) did not finish, but every row \
         is saved in {runs}: {again}"
    )]
    FinalPass {
        /// The `runs.csv` that holds the rows, as displayed.
        runs: String,
        /// What to do once the cause is fixed.
        again: &'static str,
        /// The error that stopped the pass: a file or plot error (in the
        /// message, not as a `source`, so that it is told once).
        error: Box<ExperimentError>,
    },
}

impl ExperimentError {
    /// Wraps an error of the final pass over `out` into
    /// [`ExperimentError::FinalPass`] when it is a file or plot error (the
    /// rows are then safe); others (a refused config, a bug) stay as they
    /// are, with their own exit codes.
    pub(crate) fn in_final_pass(self, out: &Path, again: &'static str) -> Self {
        match self {
            e @ (ExperimentError::Io { .. } | ExperimentError::Plot { .. }) => {
                ExperimentError::FinalPass {
                    runs: out.join(results_dir::RUNS).display().to_string(),
                    again,
                    error: Box::new(e),
                }
            }
            e => e,
        }
    }

    /// `op` (say, "read") failed on `path`.
    pub(crate) fn io(op: &'static str, path: &Path, source: std::io::Error) -> Self {
        ExperimentError::Io {
            op,
            path: path.display().to_string(),
            source,
        }
    }
}

/// The per-graph file of a results directory ([`graphs::GraphSummary`]).
pub const GRAPHS: &str = "graphs.csv";

/// What the final pass wrote.
#[derive(Debug, Clone, Default)]
pub struct Finished {
    /// Rows of the rewritten `runs.csv`, rows of solvers or graphs no
    /// longer in the config included.
    pub rows: usize,
    /// Rows that show a solver bug ([`rows::is_broken`]), the final pass's
    /// refuted bounds included.
    pub broken: usize,
    /// Plot files written (PNG and SVG).
    pub plots: Vec<String>,
    /// Things the caller should tell the user: graphs without a valid
    /// baseline, and for `merge` items without a row.
    pub warnings: Vec<String>,
    /// Solves of the plan without a row, as `merge` counts them; `None`
    /// where they are not counted (`run`, or a merge whose plan cannot be
    /// made here).
    pub missing: Option<usize>,
}

/// Graphs of the rows that are one graph under several names (equal
/// fingerprints: a generator that ignores the seed, such as `darts`, or
/// `fork-join` without jitter, a spec with a parameter written at its
/// default value beside one without, or one file listed twice): each copy counts
/// in the means, so the summaries weigh that graph more.
fn identical_graphs_warning(out: &Path, rows: &[rows::Row]) -> Option<String> {
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

/// The final pass over a results directory: recomputes the per-graph columns
/// of `runs.csv` and rewrites it sorted, then writes `graphs.csv`,
/// `summary.csv`, the plots and `README.md`.
pub fn finish(out: &Path, config: &Config) -> Result<Finished, ExperimentError> {
    finish_with(out, config, None, None)
}

/// [`finish`], given the config's plan if the caller has it (so that it
/// is not built again to learn the default Tetris graph), and, for the
/// results of part of the experiment (a shard, an incomplete merge),
/// `partial`: what they lack, said at the top of the README.
fn finish_with(
    out: &Path,
    config: &Config,
    plan: Option<&Plan>,
    partial: Option<&str>,
) -> Result<Finished, ExperimentError> {
    let runs = out.join(results_dir::RUNS);
    let rows = rows::read_rows(&runs).map_err(|e| ExperimentError::io("read", &runs, e))?;
    let rows = rows::finalize(rows, &config.baselines);
    rows::write_rows(&runs, &rows).map_err(|e| ExperimentError::io("write", &runs, e))?;
    let graph_summary = graphs::summarize(&rows);
    let path = out.join(GRAPHS);
    graphs::write(&path, &graph_summary).map_err(|e| ExperimentError::io("write", &path, e))?;
    let order = config.all_solvers();
    let summary = summary::summarize(&rows, &order, &graph_summary);
    let path = out.join("summary.csv");
    summary::write(&path, &summary).map_err(|e| ExperimentError::io("write", &path, e))?;
    let drawn = drawing::draw(out, config, &rows, &order, plan)?;
    let mut warnings: Vec<String> = no_baseline_warning(&rows, config).into_iter().collect();
    warnings.extend(drawn.warnings);
    warnings.extend(graphs::conflicts(&graph_summary));
    warnings.extend(identical_graphs_warning(out, &rows));
    warnings.extend(overrun_warning(&rows, config.time_limit()));
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
    if !refuted.is_empty() {
        warnings.push(format!(
            "{} row(s) claimed a lower bound above another row's checked peak and are now \
             invalid (a solver bug; see their reason in runs.csv): {}",
            refuted.len(),
            refuted.join(", ")
        ));
    }
    // Said on standard error as well as in the README: rows the config
    // no longer asks for still count in the summaries.
    let leftover = leftover_note(&rows, &order, plan);
    warnings.extend(leftover.clone());
    let caveats = report::Caveats {
        partial,
        leftover,
        plots: drawn.note,
    };
    let readme = report::readme(
        config,
        &rows,
        &graph_summary,
        &summary,
        &order,
        &drawn.files,
        &caveats,
    );
    let path = out.join("README.md");
    crate::output::write_file(&path, |w| std::io::Write::write_all(w, readme.as_bytes()))
        .map_err(|e| ExperimentError::io("write", &path, e))?;
    Ok(Finished {
        rows: rows.len(),
        broken: rows.iter().filter(|r| rows::is_broken(r)).count(),
        plots: drawn.files,
        warnings,
        missing: None,
    })
}

/// The solves that took well past the time limit (half as long again, and
/// a second), by solver: the limit is each solver's to keep, so one that
/// ignores it shows here (its rows stand: their orders were checked).
fn overrun_warning(rows: &[rows::Row], limit: std::time::Duration) -> Option<String> {
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
fn leftover_note(rows: &[rows::Row], solvers: &[String], plan: Option<&Plan>) -> Option<String> {
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
fn no_baseline_warning(rows: &[rows::Row], config: &Config) -> Option<String> {
    const SHOWN: usize = 5;
    let failed: Vec<&rows::Row> = rows
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
/// The first `shown` of `items` as `show` writes them, then `more(k)` for
/// the `k` left out, if any: how messages cut a long list short.
pub(crate) fn first_few<T>(
    items: impl ExactSizeIterator<Item = T>,
    shown: usize,
    show: impl FnMut(T) -> String,
    more: impl FnOnce(usize) -> String,
) -> Vec<String> {
    let left_out = items.len().saturating_sub(shown);
    let mut listed: Vec<String> = items.take(shown).map(show).collect();
    if left_out > 0 {
        listed.push(more(left_out));
    }
    listed
}

/// `s` on one line, runs of whitespace (newlines too) made one space.
fn one_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::{first_few, overrun_warning};

    /// Solves well past the limit are counted by solver, with the longest;
    /// those within half the limit and a second again are not.
    #[test]
    fn overruns_are_named_by_solver() {
        let row = |solver: &str, time_ms: f64| super::rows::Row {
            solver: solver.into(),
            time_ms,
            ..super::rows::blank()
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

    #[test]
    fn first_few_counts_what_it_leaves_out() {
        let more = |k: usize| format!("{k} more");
        let list = |n: usize| first_few(0..n, 2, |i| i.to_string(), more);
        assert_eq!(list(0), Vec::<String>::new());
        assert_eq!(list(2), ["0", "1"]);
        assert_eq!(list(5), ["0", "1", "3 more"]);
    }
}
