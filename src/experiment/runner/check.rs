//! Checking a run's graphs before any solve: each loads and is the graph
//! its rows were solved on; its fingerprint and warnings are collected.

use std::collections::BTreeSet;
use std::sync::atomic::{AtomicUsize, Ordering};

use rayon::prelude::*;

use super::store::{load, GraphStore, KEEP_ELEMENTS, KEEP_ONE, KEEP_OVERHEAD};
use crate::experiment::catch::catch_panic;
use crate::experiment::fingerprint::{self, Fingerprint, Fingerprints};
use crate::experiment::plan::{GraphSource, Item, Plan};
use crate::experiment::resume::Recorded;
use crate::experiment::{one_line, ExperimentError};
use crate::graph::lint::lint;
use crate::text::first_few;

/// A graph that loaded and matched its record.
struct Checked {
    fingerprint: Fingerprint,
    /// Its warnings ([`lint`]).
    lints: Vec<String>,
    /// Whether it is to be solved and has no `Latency` field.
    lacks_latency: bool,
}

/// What [`check_one`] needs besides the graph's number.
struct CheckContext<'a> {
    plan: &'a Plan,
    store: &'a GraphStore<'a>,
    recorded: &'a Recorded,
    to_solve: &'a BTreeSet<usize>,
    /// Nodes plus edges of the graphs kept so far.
    kept: AtomicUsize,
}

/// Most graph warnings a run lists; the rest are counted.
const LINTS_SHOWN: usize = 5;

/// The graph warnings ([`lint`]) a run lists: the first [`LINTS_SHOWN`],
/// then how many more (`memsched validate` shows them all).
pub(super) fn shown_lints(lints: Vec<String>) -> Vec<String> {
    first_few(
        lints.into_iter(),
        LINTS_SHOWN,
        |lint| lint,
        |more| {
            format!(
                "{more} more graph warnings like these: `memsched validate` on the graphs \
                 shows them all"
            )
        },
    )
}

/// Loads (or generates) every graph with pending items, and every graph
/// file with a recorded fingerprint, in parallel: a graph that cannot be
/// loaded is invalid input, reported with its name and source before any
/// solve runs, and so is a graph that differs from the one the rows in
/// `runs.csv` were solved on (`recorded`). Small graphs with pending items
/// are kept in `store` for the run (up to [`KEEP_ELEMENTS`] nodes plus
/// edges in all, each graph counting [`KEEP_OVERHEAD`] more); the others are dropped and loaded again when their items
/// run. Once `stopping` says so, the graphs left are not loaded. Returns
/// the fingerprints of the graphs loaded.
///
/// # Complexity
/// One load and one fingerprint per graph with pending items or a
/// recorded file; nothing is solved but, for a graph with rows and no
/// recorded fingerprint, its program order.
pub(super) fn check_graphs(
    plan: &Plan,
    store: &GraphStore,
    pending: &[Item],
    pool: &rayon::ThreadPool,
    recorded: &Recorded,
    stopping: &(dyn Fn() -> bool + Sync),
) -> Result<(Fingerprints, Vec<String>), ExperimentError> {
    let to_solve: BTreeSet<usize> = pending.iter().map(|it| it.graph).collect();
    // A graph file with a recorded fingerprint is checked even with nothing
    // left to run: the final pass would otherwise rewrite the README from
    // rows solved on the file as it was. (A generated graph is its spec.)
    let done_files = plan.graphs.iter().enumerate().filter(|(g, entry)| {
        matches!(entry.source, GraphSource::File(_))
            && !to_solve.contains(g)
            && recorded.fingerprints.contains_key(&entry.name)
    });
    let needed: Vec<usize> = to_solve
        .iter()
        .copied()
        .chain(done_files.map(|(g, _)| g))
        .collect();
    let cx = CheckContext {
        plan,
        store,
        recorded,
        to_solve: &to_solve,
        kept: AtomicUsize::new(0),
    };
    let checked: Vec<(usize, Result<Checked, Problem>)> = pool.install(|| {
        needed
            .par_iter()
            .with_max_len(1)
            .map(|&g| match stopping() {
                true => (g, Err(Problem::Skipped)),
                false => (g, check_one(&cx, g)),
            })
            .collect()
    });
    let (mut failed, mut changed) = (Vec::new(), Vec::new());
    let mut fingerprints = Fingerprints::new();
    let mut lints = Vec::new();
    let mut without_latency: Vec<String> = Vec::new();
    for (g, checked) in checked {
        match checked {
            Ok(c) => {
                let name = &plan.graphs[g].name;
                if c.lacks_latency {
                    without_latency.push(name.clone());
                }
                fingerprints.insert(name.clone(), c.fingerprint);
                lints.extend(c.lints.into_iter().map(|w| format!("graph `{name}`: {w}")));
            }
            Err(Problem::Unreadable(e)) => failed.push((g, e)),
            Err(Problem::Changed(why)) => changed.push((g, why)),
            // The caller sees the stop and writes nothing.
            Err(Problem::Skipped) => {}
        }
    }
    if !failed.is_empty() {
        return Err(graph_error(
            plan,
            "of the experiment's graphs cannot be loaded (nothing was run):",
            &failed,
        ));
    }
    if !changed.is_empty() {
        return Err(graph_error(
            plan,
            "of the experiment's graphs differ from the graphs of the same name that \
             runs.csv's rows were solved on (nothing was run): pass --redo-graph NAME for \
             each to solve just those again, --fresh to solve everything again, or write \
             to another directory (--out)",
            &changed,
        ));
    }
    // First: the graph warnings after it may be cut short.
    if let Some(warning) = latency_warning(plan, &without_latency) {
        lints.insert(0, warning);
    }
    Ok((fingerprints, lints))
}

/// Loads graph `g` and checks it against its record; a graph to solve
/// gets its fingerprint set in the store, and is kept there when small
/// enough. memsched's own code on a quiet worker: a panic here becomes
/// the graph's problem, with its message.
fn check_one(cx: &CheckContext, g: usize) -> Result<Checked, Problem> {
    catch_panic(|| {
        let entry = &cx.plan.graphs[g];
        let graph = load(entry).map_err(Problem::Unreadable)?;
        let fingerprint = fingerprint::of(&graph);
        if let Some(why) = cx.recorded.changed(&entry.name, &graph, fingerprint) {
            return Err(Problem::Changed(why));
        }
        let lints = lint(&graph);
        if !cx.to_solve.contains(&g) {
            return Ok(Checked {
                fingerprint,
                lints,
                lacks_latency: false,
            });
        }
        let lacks_latency = !graph.has_latencies();
        cx.store.set_fingerprint(g, fingerprint);
        let size = graph.node_count() + graph.edge_count() + KEEP_OVERHEAD;
        // Counted only when kept: a graph refused for the budget must not
        // use up what smaller ones could take.
        if size <= KEEP_ONE
            && cx
                .kept
                .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |k| {
                    (k + size <= KEEP_ELEMENTS).then_some(k + size)
                })
                .is_ok()
        {
            cx.store.keep(g, graph);
        }
        Ok(Checked {
            fingerprint,
            lints,
            lacks_latency,
        })
    })
    .unwrap_or_else(|msg| Err(Problem::Unreadable(format!("panicked: {msg}"))))
}

/// The warning that the rules of `plan` reading `latency` see 0 on the
/// graphs `without_latency` (said per graph, as `schedule` says it).
fn latency_warning(plan: &Plan, without_latency: &[String]) -> Option<String> {
    let latency_rules: Vec<String> = plan
        .solvers
        .iter()
        .filter(|s| crate::solvers::rule::reads_latency(&s.name))
        .map(|s| format!("`{}`", s.name))
        .collect();
    if latency_rules.is_empty() || without_latency.is_empty() {
        return None;
    }
    let named = first_few(
        without_latency.iter(),
        3,
        |g| format!("`{g}`"),
        |k| format!("{k} more"),
    );
    Some(format!(
        "{} of the graphs to solve have no `Latency` field ({}), so `latency` is 0 for every \
         node of theirs in {}",
        without_latency.len(),
        named.join(", "),
        latency_rules.join(", ")
    ))
}

/// Why a graph stops the run before any solve.
enum Problem {
    /// It cannot be loaded or generated.
    Unreadable(String),
    /// It is not the graph of the same name in `runs.csv`.
    Changed(String),
    /// Not checked: the run was stopped first.
    Skipped,
}

/// The error listing `problems` (the first few) after `what`.
fn graph_error(plan: &Plan, what: &str, problems: &[(usize, String)]) -> ExperimentError {
    const SHOWN: usize = 10;
    let lines = first_few(
        problems.iter(),
        SHOWN,
        |(g, e)| {
            let entry = &plan.graphs[*g];
            let source = match &entry.source {
                GraphSource::File(p) => format!("file `{}`", p.display()),
                GraphSource::Generated { spec, seed } => {
                    format!("generator spec `{spec}`, seed {seed}")
                }
            };
            format!("graph `{}` ({source}): {}", entry.name, one_line(e))
        },
        |more| format!("... and {more} more"),
    );
    let mut msg = format!("{} {what}", problems.len());
    for line in lines {
        msg.push_str("\n  ");
        msg.push_str(&line);
    }
    ExperimentError::Graphs(msg)
}
