//! Runs the pending items of a plan in parallel and appends rows as they finish.
//!
//! [`run`] is the whole `memsched run`. Everything is checked before the
//! output directory is touched: the config, the directory itself
//! (`results_dir::claim`: not another experiment's, not a directory of
//! other files; locked if it exists), the rows already in `runs.csv`, and
//! every graph. Its parts, in the order they act:
//! - `start`: reads the rows already in `runs.csv` (resume) and the items
//!   left; after the check, readies the directory (the rows, profiles
//!   and orders that stay rewritten, then the config, `shards.toml` and
//!   the graphs' fingerprints written beside them).
//! - `check`: before any solve, loads and fingerprints every graph with
//!   pending items (and every graph file with a recorded fingerprint); a
//!   graph that cannot be loaded, or that differs from the graph its rows
//!   were solved on, is invalid input.
//! - `store`: keeps the small graphs from the check for the solves (each up
//!   to `KEEP_ONE` nodes plus edges, `KEEP_ELEMENTS` in all); any other is
//!   loaded (or generated) and fingerprinted again when its first item runs,
//!   and its items fail if it changed. Each graph is shared by its items
//!   and dropped after its last.
//! - `solve`: runs the missing items on a rayon pool, each checked by
//!   [`crate::solvers::run`], a panicking solver recorded as a `failed` row.
//! - `sink`: appends and flushes each row behind a mutex.
//!
//! The final pass ([`super::finish()`]) ends the run. One item failing never
//! stops the others; the stop flag of [`RunOptions::stop`] (Ctrl-C) starts
//! no more solves, records those in flight and leaves the final pass to the
//! resume.

mod check;
mod sink;
mod solve;
mod stale;
mod start;
mod store;
#[cfg(test)]
mod tests;

use std::borrow::Cow;
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::Duration;

use rayon::prelude::*;

use super::catch::quiet_pool;
use super::config::Config;
use super::fingerprint::{self, Fingerprints};
use super::plan::{Item, Plan, Shard};
use super::progress::{Progress, Worst};
use super::results_dir::{claim, ORDERS, RUNS};
use super::resume::Recorded;
use super::rows;
use super::ExperimentError;
use crate::solvers::{SolveContext, Stop};
use check::{check_graphs, shown_lints};
use sink::{close_records, RecordPaths, Sink};
use solve::{announce_stop, registry_build, Build, SolveInputs, Solving};
use start::{partial_note, prepare_dir, Start};
pub use store::load;
use store::GraphStore;

/// How to run (the CLI flags, resolved).
#[derive(Debug, Clone, Default)]
pub struct RunOptions {
    /// Output directory; empty (the default) means
    /// [`RunOptions::default_out`]'s.
    pub out: PathBuf,
    /// Worker threads; `None` or `Some(0)`: rayon's default, one per core
    /// (or `RAYON_NUM_THREADS`). At most the solves to run or the cores,
    /// whichever is larger, are started.
    pub threads: Option<usize>,
    /// No progress on standard error (see [`super::progress`]); a row that
    /// failed or was refused by the checker is still named there, as it
    /// is in `runs.csv`.
    pub quiet: bool,
    /// Run only this shard of the items (its directory gets its own final pass).
    pub shard: Option<Shard>,
    /// Discard existing rows instead of resuming.
    pub fresh: bool,
    /// Solvers (names as in the config) whose rows of this run's items are
    /// discarded and solved again; the other rows resume.
    pub redo: Vec<String>,
    /// Graphs (names as in `runs.csv`) whose rows of this run's items are
    /// discarded and solved again, and whose fingerprints are recorded
    /// anew: after editing a graph file, say.
    pub redo_graphs: Vec<String>,
    /// Once set (by Ctrl-C, say), no more solves start: those in flight
    /// finish and are recorded, and the final pass is left to the resume.
    pub stop: Option<Stop>,
}

impl RunOptions {
    /// The output directory of `config` when none is named:
    /// `results/NAME`, or `results/NAME/shard-K-of-N` for a shard.
    pub fn default_out(config: &Config, shard: Option<Shard>) -> PathBuf {
        let base = PathBuf::from("results").join(&config.name);
        match shard {
            Some(s) => base.join(format!("shard-{}-of-{}", s.index, s.count)),
            None => base,
        }
    }

    /// True once [`RunOptions::stop`] is set.
    fn stopping(&self) -> bool {
        self.stop.as_ref().is_some_and(Stop::is_set)
    }

    /// What set the stop, as messages name it.
    fn stop_cause(&self) -> &'static str {
        self.stop.as_ref().map_or("a stop", |s| (s.cause)())
    }
}

/// Runs `work` (the graphs' check, which stops only between graphs, and
/// a large graph takes seconds to load) while a watcher says at once, on
/// standard error, that a stop came and what it waits for (unless quiet).
fn acknowledge_stop_while<T>(opts: &RunOptions, work: impl FnOnce() -> T) -> T {
    use std::io::Write as _;
    if opts.quiet || opts.stop.is_none() {
        return work();
    }
    std::thread::scope(|scope| {
        // Dropped when `work` ends, however it ends (a panic unwinds it
        // too): the watcher returns, as `announce_stop`'s does.
        let (done, ended) = mpsc::channel::<()>();
        scope.spawn(move || {
            while let Err(mpsc::RecvTimeoutError::Timeout) =
                ended.recv_timeout(std::time::Duration::from_millis(50))
            {
                if opts.stopping() {
                    let _ = writeln!(
                        std::io::stderr(),
                        "[memsched] {}: stopping once the graphs being loaded are in \
                         (no solve has started; nothing is written)",
                        opts.stop_cause()
                    );
                    return;
                }
            }
        });
        let out = work();
        drop(done);
        out
    })
}

/// What a run did (it may gain fields: it is built only by [`run`]).
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct RunSummary {
    /// Items of this run (the shard's, or all).
    pub items: usize,
    /// Items already in `runs.csv` (skipped).
    pub resumed: usize,
    /// Items run now.
    pub ran: usize,
    /// Rows of earlier runs that `--redo` and `--redo-graph` discarded to
    /// solve their items again in this run.
    pub redone: usize,
    /// Rows they discarded whose items this run does not solve (another
    /// shard's, or a graph or seed no longer in the config).
    pub dropped: usize,
    /// Rows of earlier runs that [`RunOptions::fresh`] discarded (with
    /// their profiles and orders).
    pub discarded: usize,
    /// Rows that show a solver bug: status `invalid` (including bounds the
    /// final pass refuted by another row's checked peak) or a panic.
    pub broken: usize,
    /// The output directory written.
    pub out: PathBuf,
    /// Result files that were replaced or removed while the run appended to
    /// them (a `git checkout` of `results/`, say) and were written back from
    /// the run's own open file.
    pub restored: Vec<PathBuf>,
    /// Complete lines of `runs.csv` that were not rows when the run
    /// started: moved to [`REJECTED`](super::results_dir::REJECTED), and their items solved again.
    pub malformed: usize,
    /// What the final pass asks the user to know (see [`super::Finished`]).
    pub warnings: Vec<String>,
    /// Set when [`RunOptions::stop`] held solves back: how many did not
    /// start. The final pass did not run; a resume runs them and it.
    pub stopped: Option<usize>,
    /// Whether a stop during the graph checks left the output directory as
    /// it was (not made, or not changed: `fresh` and `redo` discarded
    /// nothing yet).
    pub untouched: bool,
}

/// Runs an experiment (resuming), then the final pass.
///
/// A solver's panic becomes a `failed` row. To keep such panics off
/// standard error, the first run wraps the process's panic hook, once and
/// for good: the hook installed before it still reports every panic
/// outside a solve; one installed after it replaces the wrapper.
pub fn run(config: &Config, opts: &RunOptions) -> Result<RunSummary, ExperimentError> {
    run_with(config, opts, registry_build)
}

/// [`run`] with the solvers that `build` makes.
fn run_with(
    config: &Config,
    opts: &RunOptions,
    build: Build,
) -> Result<RunSummary, ExperimentError> {
    // A config built or changed in code gets the checks of a parsed one
    // (a negative time limit would otherwise run without one), and its
    // names (a baseline `program ` would match no row).
    let config = &config
        .checked_as_parsed()
        .map_err(ExperimentError::Config)?;
    let opts = &with_default_out(opts, config);
    let plan = Plan::of_checked(config).map_err(ExperimentError::Config)?;
    let out = &opts.out;
    // Everything is checked before the directory is touched; an existing
    // one is locked from before the rows are read.
    let refusal = "refusing to mix their rows: write to another directory (--out), or pass \
                   --fresh to discard its results";
    let claimed = claim(out, config, (!opts.fresh).then_some(refusal))?;
    let start = Start::read(&plan, config, opts)?;
    // Before this run appends to the rows' file.
    let stale = stale::stale_orders_warning(&start.existing, &out.join(RUNS));
    let pending = &start.pending;
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let pool = worker_pool(pool_size(opts.threads, pending.len(), cores))?;
    let store = GraphStore::new(&plan.graphs, pending);
    let recorded = recorded(out, &start)?;
    let stopping = || opts.stopping();
    let (loaded, lints) = acknowledge_stop_while(opts, || {
        check_graphs(&plan, &store, pending, &pool, &recorded, &stopping)
    })?;
    if opts.stopping() {
        // Stopped while the graphs were checked: the directory is left as
        // it was.
        return Ok(stopped_while_checking(&start, out, shown_lints(lints)));
    }
    let _lock = claimed.create()?;
    let tetris = tetris_graph(config, &plan);
    let prepared = prepare_dir(config, opts, &start, recorded.fingerprints, loaded, tetris)?;
    let paths = RecordPaths::new(out);
    let worst = Worst {
        limit: config.time_limit(),
        threads: pool.current_num_threads(),
    };
    let inputs = SolveInputs {
        plan: &plan,
        store: &store,
        ctx: SolveContext {
            budget: config.budget(),
            restarts: config.restarts,
            ..SolveContext::new(0, Some(config.time_limit()))
        },
        tetris,
        keep_order: config.save_orders,
        build,
    };
    let solving = Solving::new(
        inputs,
        opts,
        Sink::open(&paths, tetris.is_some(), config.save_orders)?,
        Progress::new(pending.len(), opts.quiet, Some(worst)),
        // Solver bugs recorded by an earlier, interrupted run still count.
        start.existing.iter().filter(|r| rows::is_broken(r)).count(),
    );
    // Said before the solves it slows, not among the run's warnings at
    // the end.
    if let Some(w) = oversubscribed(pool.current_num_threads(), cores) {
        solving.bar.println(&format!("warning: {w}"));
    }
    solve_all(&solving, &pool, pending, worst.limit);
    let ended = solving.end()?;
    let restored = close_records(
        ended.sink,
        &paths,
        tetris,
        config.save_orders && !pending.is_empty(),
    )?;
    let mut summary = RunSummary {
        restored,
        warnings: shown_lints(lints),
        ..solved_summary(&start, out, ended.broken, ended.not_started)
    };
    summary.warnings.extend(prepared.damaged);
    summary.warnings.extend(stale);
    summary.warnings.extend(rows_file_warnings(&start));
    if summary.stopped.is_some() {
        return Ok(summary);
    }
    final_pass(summary, (config, &plan, &start), &paths, prepared.unsaved)
}

/// The rows read at the start, with the fingerprints of the graphs they
/// were solved on.
fn recorded(out: &Path, start: &Start) -> Result<Recorded, ExperimentError> {
    // Without rows, old fingerprints describe nothing: every graph is loaded now.
    let old_fingerprints = if start.existing.is_empty() {
        Fingerprints::new()
    } else {
        fingerprint::read(out)?
    };
    Ok(Recorded::from_rows(&start.existing, old_fingerprints))
}

/// The summary of a run stopped while its graphs were checked: nothing
/// solved, the directory `out` untouched.
fn stopped_while_checking(start: &Start, out: &Path, warnings: Vec<String>) -> RunSummary {
    let pending = start.pending.len();
    RunSummary {
        items: start.items.len(),
        resumed: start.items.len() - pending,
        out: out.to_path_buf(),
        warnings,
        stopped: Some(pending),
        untouched: true,
        ..RunSummary::default()
    }
}

/// The summary of a run whose solves ended, `not_started` of them held
/// back by a stop, with `broken` rows in all; its files and warnings are
/// the caller's to add.
fn solved_summary(start: &Start, out: &Path, broken: usize, not_started: usize) -> RunSummary {
    let pending = start.pending.len();
    RunSummary {
        items: start.items.len(),
        resumed: start.items.len() - pending,
        ran: pending - not_started,
        redone: start.redone.intersection(&start.ours).count(),
        dropped: start.redone.difference(&start.ours).count(),
        discarded: start.discarded,
        broken,
        out: out.to_path_buf(),
        restored: Vec::new(),
        malformed: start.rejected.len(),
        warnings: Vec::new(),
        // A stop after the last solve started held nothing back: the
        // final pass runs (the caller says the stop came late).
        stopped: (not_started > 0).then_some(not_started),
        untouched: false,
    }
}

/// Ends a run whose solves all ran: the final pass over its directory,
/// whose warnings and refuted bounds join `summary`, then what
/// `orders.jsonl` lacks (`unsaved` valid rows without an order).
fn final_pass(
    mut summary: RunSummary,
    (config, plan, start): (&Config, &Plan, &Start),
    paths: &RecordPaths,
    unsaved: usize,
) -> Result<RunSummary, ExperimentError> {
    let out = &summary.out;
    let partial = partial_note(plan, start);
    let finished =
        super::finish_with(out, config, Some(plan), partial.as_deref()).map_err(|e| {
            e.in_final_pass(
                out,
                "run the same command again once that is fixed; it solves nothing again and \
                 writes the rest",
            )
        })?;
    summary.warnings.extend(finished.warnings);
    summary
        .warnings
        .extend(orders_warnings(config, paths, start.pending.len(), unsaved));
    // The final pass may have found more: a bound above a checked peak.
    summary.broken = summary.broken.max(finished.broken);
    Ok(summary)
}

/// `opts`, writing to the config's default directory when they name none.
fn with_default_out<'a>(opts: &'a RunOptions, config: &Config) -> Cow<'a, RunOptions> {
    match opts.out.as_os_str().is_empty() {
        true => Cow::Owned(RunOptions {
            out: RunOptions::default_out(config, opts.shard),
            ..opts.clone()
        }),
        false => Cow::Borrowed(opts),
    }
}

/// The run's pool of `threads` worker threads (0: one per core).
fn worker_pool(threads: usize) -> Result<rayon::ThreadPool, ExperimentError> {
    // Every job below catches its panics and reports them.
    quiet_pool(threads).map_err(|e| ExperimentError::Threads(e.to_string()))
}

/// Solves the `pending` items on `pool`, one item per task; a watcher
/// thread announces a stop (how many solves are in flight, for at most
/// `limit`), and ends with the solves however they end.
fn solve_all(solving: &Solving, pool: &rayon::ThreadPool, pending: &[Item], limit: Duration) {
    std::thread::scope(|scope| {
        // Dropped when the solves end, however they end: the watcher returns.
        let (done, ended) = mpsc::channel::<()>();
        // With nothing to solve, a stop has nothing to announce: the
        // final pass runs (the caller says the stop came late).
        if solving.opts.stop.is_some() && !pending.is_empty() {
            scope.spawn(move || announce_stop(solving, ended, limit));
        }
        pool.install(|| {
            pending
                .par_iter()
                .with_max_len(1)
                .for_each(|item| solving.solve(item))
        });
        drop(done);
    });
}

/// What the read of `runs.csv` dropped: rows repeating a solve with
/// another outcome, and a cut last line.
fn rows_file_warnings(start: &Start) -> Vec<String> {
    let mut warnings = Vec::new();
    if start.conflicting > 0 {
        warnings.push(format!(
            "{} row(s) of {RUNS} repeated a solve already in it with another status, peak or \
             bound (the file edited or joined by hand? a run writes each solve once): only \
             each solve's first row was read (its first that ran, if the first could not load \
             its graph), and the file was rewritten without the repeats",
            start.conflicting
        ));
    }
    if start.cut {
        warnings.push(format!(
            "the last line of {RUNS} had no line break at its end (cut short by a killed run, or \
             an edit): it was dropped, and its solve, if this run has it, runs again"
        ));
    }
    warnings
}

/// What `orders.jsonl` lacks: this run's `solved` orders with
/// `save_orders` off, or the orders of `unsaved` valid rows kept.
fn orders_warnings(
    config: &Config,
    paths: &RecordPaths,
    solved: usize,
    unsaved: usize,
) -> Vec<String> {
    let mut warnings = Vec::new();
    let holds_orders = std::fs::metadata(&paths.orders).is_ok_and(|m| m.len() > 0);
    if !config.save_orders && holds_orders && solved > 0 {
        warnings.push(format!(
            "{ORDERS} holds only orders of earlier solves: `save_orders` is off, so the \
             orders of this run's {solved} solves are not in it"
        ));
    }
    if unsaved > 0 {
        warnings.push(format!(
            "{unsaved} valid rows have no order in {ORDERS} (solved while `save_orders` was \
             off, or lines lost from the file): pass --fresh to solve them again and keep every \
             order"
        ));
    }
    warnings
}

/// Threads per core past which a pool is oversubscribed.
const OVERSUBSCRIBED: usize = 4;

/// A warning when a pool of `threads` worker threads is many times the
/// `cores`: they take turns on them, so every solve slows down and time
/// limits are overrun (a walkthrough measured 46 s for a 1 s limit at
/// 4096 threads on 2 cores).
pub fn oversubscribed(threads: usize, cores: usize) -> Option<String> {
    (threads > OVERSUBSCRIBED * cores).then(|| {
        format!(
            "{threads} worker threads on {}: threads beyond the cores take turns \
             on them, which slows every solve and overruns time limits (one per core is fastest)",
            crate::text::count(cores, "core")
        )
    })
}

/// Threads of the run's pool (0: rayon's default, one per core) for
/// `--threads requested`: no more than the solves to run or the cores,
/// whichever is larger (each thread is an OS thread; best-ofs and restarts
/// also use the pool, so the cores are kept).
fn pool_size(requested: Option<usize>, pending: usize, cores: usize) -> usize {
    requested.map_or(0, |t| t.min(pending.max(cores)))
}

/// The graph whose memory profiles are kept for the Tetris plot.
fn tetris_graph(config: &Config, plan: &Plan) -> Option<usize> {
    if !config.plots.contains(&super::config::PlotKind::Tetris) || plan.graphs.is_empty() {
        return None;
    }
    match &config.tetris_graph {
        Some(name) => plan.graph_index(name),
        None => Some(0),
    }
}
