//! Runs the pending items of a plan in parallel and appends rows as they finish.
//!
//! [`run`] is the whole `memsched run`: it refuses an output directory of
//! another experiment (another `name` in its `config.toml`), reads the rows
//! already in `runs.csv` (resume), loads every graph with pending items once
//! (a graph that cannot be loaded, or that differs from the graph its rows
//! were solved on, is invalid input, before any solve), writes the config,
//! `shards.toml` and the graphs' fingerprints beside the results, runs the missing
//! items on a rayon pool (graphs loaded once and shared, each solve checked by
//! [`crate::solvers::run`], a panicking solver recorded as a `failed` row),
//! appends and flushes each row behind a mutex, and ends with the final pass
//! ([`super::finish`]). One item failing never stops the others; the stop
//! flag of [`RunOptions::stop`] (Ctrl-C) starts no more solves, records
//! those in flight and leaves the final pass to the resume.

use std::collections::BTreeSet;
use std::fs::{File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{mpsc, Arc, Mutex};

use rayon::prelude::*;
use serde::Serialize;

use super::catch::{catch_panic, quiet_thread};
use super::config::Config;
use super::fingerprint::{self, Fingerprint, Fingerprints};
use super::plan::{GraphEntry, GraphSource, Item, Plan, Shard};
use super::progress::{Progress, Worst};
use super::records::{
    damaged_lines, read_jsonl_counting, rewrite_jsonl, write_jsonl, Keyed, Profile, SavedOrder,
};
use super::results_dir::{
    check_shard_placement, claim, read_shards_file, remove_final_pass, remove_if_present,
    restore_if_replaced, write_shards, ShardsFile, ALL_SHARDS, CONFIG, ORDERS, PROFILES, REJECTED,
    RUNS, SHARDS, SHARD_PLACEMENT,
};
use super::resume::{
    check_same_settings, recorded_config_text, redo_graphs, redo_solvers, Recorded,
};
use super::rows::{self, never_ran, Key, Row, CANNOT_LOAD};
use super::{first_few, one_line, ExperimentError};
use crate::corpus::gen;
use crate::graph::lint::lint;
use crate::graph::{seed, Graph};
use crate::solvers::{self, Scheduler, SolveContext, Status, Stop};

/// How to run (the CLI flags, resolved).
#[derive(Debug, Clone, Default)]
pub struct RunOptions {
    /// Output directory; empty (the default) means
    /// [`RunOptions::default_out`]'s.
    pub out: PathBuf,
    /// Worker threads (default: all cores).
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

/// What a run did.
#[derive(Debug, Clone, Default)]
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
    /// started: moved to [`REJECTED`], and their items solved again.
    pub malformed: usize,
    /// What the final pass asks the user to know (see [`super::Finished`]).
    pub warnings: Vec<String>,
    /// Set when [`RunOptions::stop`] held solves back: how many did not
    /// start. The final pass did not run; a resume runs them and it.
    pub stopped: Option<usize>,
}

/// Graphs loaded on first use, shared by the items that need them, and
/// dropped after their last pending item (so a scaling run holds only the
/// graphs in flight, not every million-node graph at once).
struct GraphStore<'a> {
    entries: &'a [GraphEntry],
    slots: Vec<Mutex<Slot>>,
}

struct Slot {
    graph: Option<Result<Arc<Graph>, String>>,
    remaining: usize,
    /// The fingerprint the check before the run found: a graph loaded
    /// again for its items must still have it (its file may be edited
    /// while a long run goes on).
    expected: Option<Fingerprint>,
}

impl<'a> GraphStore<'a> {
    fn new(entries: &'a [GraphEntry], pending: &[Item]) -> Self {
        let mut remaining = vec![0usize; entries.len()];
        for it in pending {
            remaining[it.graph] += 1;
        }
        GraphStore {
            entries,
            slots: remaining
                .into_iter()
                .map(|remaining| {
                    Mutex::new(Slot {
                        graph: None,
                        remaining,
                        expected: None,
                    })
                })
                .collect(),
        }
    }
    /// The graph, loaded by the first caller (others wait for it); an
    /// error if it no longer has the fingerprint it had when the run
    /// started.
    fn get(&self, i: usize) -> Result<Arc<Graph>, String> {
        let mut slot = self.slots[i].lock().unwrap_or_else(|e| e.into_inner());
        let expected = slot.expected;
        slot.graph
            .get_or_insert_with(|| {
                let graph = load(&self.entries[i])?;
                match expected.map(|fp| (fp, fingerprint::of(&graph))) {
                    Some((then, now)) if then != now => Err(format!(
                        "it changed during the run (fingerprint {now}, {then} when the run \
                         started): its file was edited or replaced"
                    )),
                    _ => Ok(Arc::new(graph)),
                }
            })
            .clone()
    }
    /// Graph `i` had fingerprint `fp` when the run started.
    fn expect(&self, i: usize, fp: Fingerprint) {
        let mut slot = self.slots[i].lock().unwrap_or_else(|e| e.into_inner());
        slot.expected = Some(fp);
    }
    /// Keeps graph `i`, loaded by the check before the run, for its items.
    fn keep(&self, i: usize, graph: Graph) {
        let mut slot = self.slots[i].lock().unwrap_or_else(|e| e.into_inner());
        slot.graph = Some(Ok(Arc::new(graph)));
    }
    /// One item of graph `i` is done; the last one drops the graph.
    fn release(&self, i: usize) {
        let mut slot = self.slots[i].lock().unwrap_or_else(|e| e.into_inner());
        slot.remaining = slot.remaining.saturating_sub(1);
        if slot.remaining == 0 {
            slot.graph = None;
        }
    }
}

/// Loads or generates one graph.
pub fn load(entry: &GraphEntry) -> Result<Graph, String> {
    match &entry.source {
        GraphSource::File(p) => seed::read_path(p).map_err(|e| e.to_string()),
        GraphSource::Generated { spec, seed } => {
            gen::generate(spec, *seed).map_err(|e| e.to_string())
        }
    }
}

/// Appends rows, profiles and orders, one flushed write each.
struct Sink {
    runs: File,
    profiles: Option<File>,
    orders: Option<File>,
}

impl Sink {
    /// Opens the record files for appending (profiles and orders only if
    /// the run keeps them); readable too, so that a file replaced mid-run
    /// can be read back ([`restore_if_replaced`]).
    fn open(paths: &RecordPaths, profiles: bool, orders: bool) -> Result<Sink, ExperimentError> {
        let open = |p: &Path| {
            OpenOptions::new()
                .create(true)
                .read(true)
                .append(true)
                .open(p)
                .map_err(|e| ExperimentError::io("open", p, e))
        };
        Ok(Sink {
            runs: open(&paths.runs)?,
            profiles: profiles.then(|| open(&paths.profiles)).transpose()?,
            orders: orders.then(|| open(&paths.orders)).transpose()?,
        })
    }

    fn row(&mut self, row: &Row) -> io::Result<()> {
        self.runs.write_all(&rows::to_line(row))?;
        self.runs.flush()
    }

    /// Appends `record` as one line of `file` (if the run keeps that file).
    fn record<T: Serialize>(file: &mut Option<File>, record: &T) -> io::Result<()> {
        if let Some(f) = file {
            let mut line = serde_json::to_vec(record).map_err(io::Error::other)?;
            line.push(b'\n');
            f.write_all(&line)?;
            f.flush()?;
        }
        Ok(())
    }

    /// Writes what a solve left: its profile and order first, so that a
    /// row never lacks them (a record without its row, from a run killed
    /// between the two, is dropped when the run resumes). An error names
    /// the file (`PROFILES`, `ORDERS` or `RUNS`).
    fn solved(&mut self, solved: &Solved) -> Result<(), (&'static str, io::Error)> {
        if let Some(p) = &solved.profile {
            Self::record(&mut self.profiles, p).map_err(|e| (PROFILES, e))?;
        }
        if let Some(o) = &solved.order {
            Self::record(&mut self.orders, o).map_err(|e| (ORDERS, e))?;
        }
        self.row(&solved.row).map_err(|e| (RUNS, e))
    }
}

impl Drop for Sink {
    /// Puts the appended records on disk when the solves end (done or
    /// stopped): a flushed row survives a killed process, a synced one a
    /// crash of the machine too. Best effort; one sync per file and run.
    fn drop(&mut self) {
        let files = [
            Some(&self.runs),
            self.profiles.as_ref(),
            self.orders.as_ref(),
        ];
        for file in files.into_iter().flatten() {
            let _ = file.sync_data();
        }
    }
}

/// Runs an experiment (resuming), then the final pass.
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
    // (a negative time limit would otherwise run without one).
    config.validate().map_err(ExperimentError::Config)?;
    let defaulted;
    let opts = match opts.out.as_os_str().is_empty() {
        true => {
            defaulted = RunOptions {
                out: RunOptions::default_out(config, opts.shard),
                ..opts.clone()
            };
            &defaulted
        }
        false => opts,
    };
    let plan = Plan::new(config).map_err(ExperimentError::Config)?;
    let out = &opts.out;
    // Everything is checked before the directory is touched; an existing
    // one is locked from before the rows are read.
    let refusal = "refusing to mix their rows: write to another directory (--out), or pass \
                   --fresh to discard its results";
    let claimed = claim(out, config, (!opts.fresh).then_some(refusal))?;
    let start = Start::read(&plan, config, opts)?;
    let pending = &start.pending;
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(pool_size(opts.threads, pending.len(), cores))
        // Every job below catches its panics and reports them.
        .start_handler(|_| quiet_thread())
        .build()
        .map_err(|e| ExperimentError::Config(format!("cannot start threads: {e}")))?;
    let store = GraphStore::new(&plan.graphs, pending);
    // Without rows, old fingerprints describe nothing: every graph is loaded now.
    let old_fingerprints = if start.existing.is_empty() {
        Fingerprints::new()
    } else {
        fingerprint::read(out)?
    };
    let recorded = Recorded::from_rows(&start.existing, old_fingerprints);
    let stopping = || opts.stopping();
    let (loaded, lints) = check_graphs(&plan, &store, pending, &pool, &recorded, &stopping)?;
    if opts.stopping() {
        // Stopped while the graphs were checked: the directory is left as
        // it was.
        return Ok(RunSummary {
            items: start.items.len(),
            resumed: start.items.len() - pending.len(),
            out: out.clone(),
            warnings: shown_lints(lints),
            stopped: Some(pending.len()),
            ..RunSummary::default()
        });
    }
    let _lock = claimed.create()?;
    let tetris = tetris_graph(config, &plan);
    let prepared = prepare_dir(config, opts, &start, recorded.fingerprints, loaded, tetris)?;
    let paths = RecordPaths::new(out);
    let worst = Worst {
        limit: config.time_limit(),
        threads: pool.current_num_threads(),
    };
    let solving = Solving {
        plan: &plan,
        store: &store,
        ctx: SolveContext {
            budget: config.budget(),
            restarts: config.restarts,
            ..SolveContext::new(0, Some(config.time_limit()))
        },
        tetris,
        save_orders: config.save_orders,
        build,
        opts,
        sink: Mutex::new(Sink::open(&paths, tetris.is_some(), config.save_orders)?),
        bar: Progress::new(pending.len(), opts.quiet, Some(worst)),
        // Solver bugs recorded by an earlier, interrupted run still count.
        broken: AtomicUsize::new(start.existing.iter().filter(|r| rows::is_broken(r)).count()),
        error: Mutex::new(None),
        failed: AtomicBool::new(false),
        not_started: AtomicUsize::new(0),
        in_flight: AtomicUsize::new(0),
    };
    std::thread::scope(|scope| {
        // Dropped when the solves end, however they end: the watcher returns.
        let (done, ended) = mpsc::channel::<()>();
        if opts.stop.is_some() {
            let solving = &solving;
            scope.spawn(move || announce_stop(solving, ended, worst.limit));
        }
        pool.install(|| {
            pending
                .par_iter()
                .with_max_len(1)
                .for_each(|item| solving.solve(item))
        });
        drop(done);
    });
    let Solving {
        sink,
        bar,
        broken,
        error,
        not_started,
        ..
    } = solving;
    bar.finish();
    if let Some(e) = error.into_inner().unwrap_or_else(|e| e.into_inner()) {
        return Err(e);
    }
    let sink = sink.into_inner().unwrap_or_else(|e| e.into_inner());
    let restored = close_records(
        sink,
        &paths,
        tetris,
        config.save_orders && !pending.is_empty(),
    )?;
    let not_started = not_started.into_inner();
    // A stop after the last solve started held nothing back: the final
    // pass runs (the caller says the stop came late).
    let stopped = not_started > 0;
    let mut summary = RunSummary {
        items: start.items.len(),
        resumed: start.items.len() - pending.len(),
        ran: pending.len() - not_started,
        redone: start.redone.intersection(&start.ours).count(),
        dropped: start.redone.difference(&start.ours).count(),
        broken: broken.into_inner(),
        out: out.clone(),
        restored,
        malformed: start.rejected.len(),
        warnings: shown_lints(lints),
        stopped: stopped.then_some(not_started),
    };
    summary.warnings.extend(prepared.damaged);
    if start.conflicting > 0 {
        summary.warnings.push(format!(
            "{} row(s) of {RUNS} repeated a solve already in it with another status, peak or \
             bound (the file edited or joined by hand? a run writes each solve once): only \
             each solve's first row was read (its first that ran, if the first could not load \
             its graph), and the file was rewritten without the repeats",
            start.conflicting
        ));
    }
    if stopped {
        return Ok(summary);
    }
    let partial = partial_note(&plan, &start);
    let finished =
        super::finish_with(out, config, Some(&plan), partial.as_deref()).map_err(|e| {
            e.in_final_pass(
                out,
                "run the same command again once that is fixed; it solves nothing again and \
                 writes the rest",
            )
        })?;
    summary.warnings.extend(finished.warnings);
    let holds_orders = std::fs::metadata(&paths.orders).is_ok_and(|m| m.len() > 0);
    if !config.save_orders && holds_orders && !pending.is_empty() {
        summary.warnings.push(format!(
            "{ORDERS} holds only orders of earlier solves: `save_orders` is off, so the \
             orders of this run's {} solves are not in it",
            pending.len()
        ));
    }
    if prepared.unsaved > 0 {
        summary.warnings.push(format!(
            "{} valid rows have no order in {ORDERS} (solved while `save_orders` was off, or \
             lines lost from the file): pass --fresh to solve them again and keep every order",
            prepared.unsaved
        ));
    }
    // The final pass may have found more: a bound above a checked peak.
    summary.broken = summary.broken.max(finished.broken);
    Ok(summary)
}

/// The README's opening note when the directory, once the pending items
/// are solved, still lacks rows of the plan (a shard's): `None` when every
/// item has one, whichever runs wrote them (shards run into one directory
/// complete it).
fn partial_note(plan: &Plan, start: &Start) -> Option<String> {
    let have: BTreeSet<Key> = start
        .existing
        .iter()
        .map(Row::key)
        .chain(start.pending.iter().map(|it| plan.key(it)))
        .collect();
    let missing = plan.items_without(&have).count();
    (missing > 0).then(|| {
        format!(
            "this directory holds {} of the experiment's {} solves (a shard's): a graph's \
             baseline, best known peak and lower bound come from these rows only (a graph \
             whose `program` row is in another shard takes the next baseline, and its lower \
             bound may be in another shard). Join the shards with `memsched merge` for the \
             experiment's figures.",
            plan.items.len() - missing,
            plan.items.len()
        )
    })
}

/// What a run starts from: this run's items, the rows of earlier runs it
/// keeps, and the items left to solve.
struct Start {
    /// This run's items (its shard's, or all).
    items: Vec<Item>,
    /// Their keys.
    ours: BTreeSet<Key>,
    /// Rows of earlier runs that stay, with item ids of this plan.
    existing: Vec<Row>,
    /// Complete lines of `runs.csv` that were not rows, as CSV lines.
    rejected: Vec<Vec<u8>>,
    /// Rows dropped as repeats of a solve with another outcome.
    conflicting: usize,
    /// Keys of the rows `--redo` discards.
    redone: BTreeSet<Key>,
    /// `shards.toml` as it was.
    shards_file: Option<ShardsFile>,
    /// This run's items without a row.
    pending: Vec<Item>,
}

impl Start {
    /// Reads the rows already in the directory and checks that they may be
    /// resumed (the same settings, the same shard placement); nothing is
    /// written.
    fn read(plan: &Plan, config: &Config, opts: &RunOptions) -> Result<Start, ExperimentError> {
        let out = &opts.out;
        let runs_path = out.join(RUNS);
        let read = if opts.fresh {
            rows::ReadRows::default()
        } else {
            rows::read_rows_checked(&runs_path)
                .map_err(|e| ExperimentError::io("read", &runs_path, e))?
        };
        read.refuse_if_mostly_rejected(
            &runs_path,
            "resuming would drop them and solve their items again, so the run stops here and \
             changes nothing: repair the file (was it saved by a spreadsheet?), or start over \
             with --fresh",
        )?;
        let rows::ReadRows {
            rows: mut existing,
            rejected,
            conflicting,
            ..
        } = read;
        let items = plan.shard_items(opts.shard);
        // An item of this run whose graph could not be loaded mid-run (a
        // file edited or briefly unreadable) runs again: its graph is
        // checked again. Such rows of other items (another shard's, a
        // dropped graph's) are kept.
        let ours: BTreeSet<Key> = items.iter().map(|it| plan.key(it)).collect();
        existing.retain(|r| !(never_ran(r) && ours.contains(&r.key())));
        // Rows from an earlier version of the config take their item id
        // in this plan.
        let ids: std::collections::BTreeMap<_, _> =
            plan.items.iter().map(|it| (plan.key(it), it.id)).collect();
        // `--redo` discards the solver's rows of this run's items and of
        // items no longer in the plan (those would mix rows from before a
        // fix with rows after it), not another shard's. `--redo-graph`
        // discards every row of the graph, another shard's too: they were
        // solved on the file as it was, and the graph's new fingerprint
        // could not be recorded beside them.
        let redo = redo_solvers(plan, &opts.redo)?;
        let redo_graphs = redo_graphs(plan, &opts.redo_graphs)?;
        let redone: BTreeSet<Key> = existing
            .iter()
            .filter(|r| {
                let key = r.key();
                redo_graphs.contains(r.graph.as_str())
                    || (redo.contains(r.solver.as_str())
                        && (ours.contains(&key) || !ids.contains_key(&key)))
            })
            .map(Row::key)
            .collect();
        existing.retain(|r| !redone.contains(&r.key()));
        if !existing.is_empty() {
            check_same_settings(out, config, &existing)?;
        }
        // Read now, with the other checks: a damaged file must stop the
        // run before anything in the directory changes.
        let shards_file = match opts.fresh {
            true => None,
            false => read_shards_file(out)?,
        };
        if !existing.is_empty() {
            check_shard_placement(out, opts.shard, shards_file.as_ref())?;
        }
        for r in &mut existing {
            if let Some(&id) = ids.get(&r.key()) {
                r.item = id;
            }
        }
        let done: BTreeSet<Key> = existing.iter().map(Row::key).collect();
        let pending = items
            .iter()
            .filter(|it| !done.contains(&plan.key(it)))
            .copied()
            .collect();
        Ok(Start {
            items,
            ours,
            existing,
            rejected,
            conflicting,
            redone,
            shards_file,
            pending,
        })
    }
}

/// The record files of a results directory.
struct RecordPaths {
    runs: PathBuf,
    profiles: PathBuf,
    orders: PathBuf,
}

impl RecordPaths {
    fn new(out: &Path) -> RecordPaths {
        RecordPaths {
            runs: out.join(RUNS),
            profiles: out.join(PROFILES),
            orders: out.join(ORDERS),
        }
    }
}

/// What [`prepare_dir`] found in the record files, for the warnings.
struct Prepared {
    /// Valid rows kept without an order while `save_orders` is on.
    unsaved: usize,
    /// Warnings about damaged lines of `tetris.jsonl` and `orders.jsonl`.
    damaged: Vec<String>,
}

/// Readies the (locked) directory for the solves: writes the config,
/// `shards.toml` and the fingerprints, removes what `--fresh` discards
/// and the summaries the solves will outdate, and rewrites the record
/// files with the rows, profiles and orders that stay.
fn prepare_dir(
    config: &Config,
    opts: &RunOptions,
    start: &Start,
    mut fingerprints: Fingerprints,
    loaded: Fingerprints,
    tetris: Option<usize>,
) -> Result<Prepared, ExperimentError> {
    let out = &opts.out;
    let paths = RecordPaths::new(out);
    let config_path = out.join(CONFIG);
    let text = recorded_config_text(&config_path, config);
    crate::output::write_file(&config_path, |w| w.write_all(text.as_bytes()))
        .map_err(|e| ExperimentError::io("write", &config_path, e))?;
    if opts.fresh {
        for p in [&paths.runs, &paths.profiles, &paths.orders] {
            remove_if_present(p)?;
        }
    }
    // The summaries of an earlier pass would describe rows this run
    // discards or adds to: an interrupted run must not leave them looking
    // current. The final pass writes them again.
    if opts.fresh || !start.pending.is_empty() {
        remove_final_pass(out)?;
    }
    let mut shards = start
        .shards_file
        .as_ref()
        .map(|f| f.shards.clone())
        .unwrap_or_default();
    shards.push(
        opts.shard
            .map_or_else(|| ALL_SHARDS.to_string(), |s| s.to_string()),
    );
    write_shards(out, shards, SHARD_PLACEMENT)
        .map_err(|e| ExperimentError::io("write", &out.join(SHARDS), e))?;
    // Graphs not loaded now (no pending items) keep their old entry; a run
    // that loads nothing (everything done) leaves the file as it was.
    if !loaded.is_empty() || opts.fresh {
        fingerprints.extend(loaded);
        fingerprint::write(out, &fingerprints)?;
    }
    // Lines that were not rows are kept aside, not lost with the rewrite.
    if !start.rejected.is_empty() {
        let path = out.join(REJECTED);
        rows::append_lines(&path, &start.rejected)
            .map_err(|e| ExperimentError::io("write", &path, e))?;
    }
    // Rewrite what survived so appends start on a clean line.
    rows::write_rows(&paths.runs, &start.existing)
        .map_err(|e| ExperimentError::io("write", &paths.runs, e))?;
    // The same for the profiles (the final pass picks the Tetris graph's),
    // less those of the solves done again. Each record file's damaged lines
    // (count, and whether the rewrite dropped them) go into a warning.
    let redone = &start.redone;
    let not_redone = |key: Key| !redone.contains(&key);
    let profiles_damaged = match tetris.is_some() || !redone.is_empty() {
        true => (
            rewrite_jsonl::<Profile>(&paths.profiles, |p| not_redone(p.key()))?,
            true,
        ),
        false => (damaged_lines::<Profile>(&paths.profiles), false),
    };
    // Orders of the solves done again go whatever `save_orders` says: an
    // order from before a fix must not be served as the solver's. Valid
    // rows of earlier runs whose order was not kept (`save_orders` turned
    // on since) are named in a warning at the end.
    let (unsaved, orders_damaged) = if config.save_orders {
        let (unsaved, damaged) =
            keep_orders_of_valid_rows(&paths.orders, &start.existing, &start.ours)?;
        (unsaved, (damaged, true))
    } else if !redone.is_empty() {
        let damaged = rewrite_jsonl::<SavedOrder>(&paths.orders, |o| not_redone(o.key()))?;
        (0, (damaged, true))
    } else {
        (0, (damaged_lines::<SavedOrder>(&paths.orders), false))
    };
    Ok(Prepared {
        unsaved,
        damaged: damaged_record_warnings(profiles_damaged, orders_damaged),
    })
}

/// The solves of a run and what they share: the solver inputs, where
/// rows go, and what is counted while they run.
struct Solving<'a> {
    plan: &'a Plan,
    store: &'a GraphStore<'a>,
    ctx: SolveContext,
    tetris: Option<usize>,
    save_orders: bool,
    build: Build,
    /// Where rows go (`out`) and the stop flag.
    opts: &'a RunOptions,
    sink: Mutex<Sink>,
    bar: Progress,
    /// Rows that show a solver bug.
    broken: AtomicUsize,
    /// The first error that ends the run (a failed append, a panic of
    /// memsched's own).
    error: Mutex<Option<ExperimentError>>,
    /// Set with `error`: once a row cannot be written (a full disk, say),
    /// later solves would be lost too, so no more start.
    failed: AtomicBool,
    /// Items not started because of the stop flag.
    not_started: AtomicUsize,
    /// Solves started and not yet recorded (for the stop's announcement).
    in_flight: AtomicUsize,
}

impl Solving<'_> {
    /// True once the stop flag is set.
    fn stopping(&self) -> bool {
        self.opts.stopping()
    }

    /// Solves `item` and records what it left, unless the run is failing
    /// or stopping.
    fn solve(&self, item: &Item) {
        if self.failed.load(Ordering::Relaxed) {
            return;
        }
        // Counted before the stop is read, so that the count announced
        // after a stop holds every solve that may still start.
        self.in_flight.fetch_add(1, Ordering::Relaxed);
        if self.stopping() {
            self.in_flight.fetch_sub(1, Ordering::Relaxed);
            self.not_started.fetch_add(1, Ordering::Relaxed);
            return;
        }
        self.bar.begin();
        // A solver's panic is caught in solve_item; one here is memsched's
        // own (the workers' hook is silent): stop and say so.
        let handled = catch_panic(|| self.solve_and_record(item));
        if let Err(msg) = handled {
            let g = &self.plan.graphs[item.graph].name;
            self.fail(ExperimentError::Internal(format!(
                "panicked while recording a solve of graph `{g}`: {msg}"
            )));
        }
        self.in_flight.fetch_sub(1, Ordering::Relaxed);
    }

    fn solve_and_record(&self, item: &Item) {
        let solved = solve_item(
            self.plan,
            self.store,
            item,
            &self.ctx,
            self.tetris,
            self.save_orders,
            self.build,
        );
        let row = &solved.row;
        self.store.release(item.graph);
        if rows::is_broken(row) {
            self.broken.fetch_add(1, Ordering::Relaxed);
            self.bar.println(&format!(
                "{} / {}: {}: {}",
                row.graph, row.solver, row.status, row.reason
            ));
        }
        let written = self
            .sink
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .solved(&solved);
        if let Err((file, e)) = written {
            self.fail(ExperimentError::io(
                "append to",
                &self.opts.out.join(file),
                e,
            ));
        }
        self.bar.inc();
    }

    /// Ends the run with `error` (the first one stands): no more solves
    /// start.
    fn fail(&self, error: ExperimentError) {
        self.failed.store(true, Ordering::Relaxed);
        self.error
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get_or_insert(error);
    }
}

/// After the solves: writes back a record file replaced while the run
/// appended to it (returning those paths), and rewrites the profiles (and
/// the orders, if `orders_appended`) in key order, as a resume writes
/// them, so that a fresh run and a resumed one give one file.
fn close_records(
    mut sink: Sink,
    paths: &RecordPaths,
    tetris: Option<usize>,
    orders_appended: bool,
) -> Result<Vec<PathBuf>, ExperimentError> {
    let mut restored = Vec::new();
    let files = [
        (&paths.runs, Some(&mut sink.runs)),
        (&paths.profiles, sink.profiles.as_mut()),
        (&paths.orders, sink.orders.as_mut()),
    ];
    for (path, file) in files {
        let Some(file) = file else { continue };
        if restore_if_replaced(path, file)
            .map_err(|e| ExperimentError::io("restore rows to", path, e))?
        {
            restored.push(path.clone());
        }
    }
    drop(sink);
    if tetris.is_some() {
        rewrite_jsonl::<Profile>(&paths.profiles, |_| true)?;
    }
    if orders_appended {
        rewrite_jsonl::<SavedOrder>(&paths.orders, |_| true)?;
    }
    Ok(restored)
}

/// Says once, as soon as the stop flag is set while solves run, what
/// happens now (no new solve starts; those in flight finish, each by the
/// time limit) and how to end at once. Returns when `ended` says the
/// solves are over, having said, if the stop came, that no more start
/// (also when the solves ended before it looked: a stop between two
/// solves leaves none in flight).
fn announce_stop(solving: &Solving, ended: mpsc::Receiver<()>, limit: std::time::Duration) {
    loop {
        let over = !matches!(
            ended.recv_timeout(std::time::Duration::from_millis(50)),
            Err(mpsc::RecvTimeoutError::Timeout)
        );
        if !solving.stopping() {
            if over {
                return;
            }
            continue;
        }
        let n = solving.in_flight.load(Ordering::Relaxed);
        let cause = solving.opts.stop_cause();
        if over || n == 0 {
            solving.bar.println(&format!(
                "{cause}: no more solves start; none is in flight. Finished rows are kept"
            ));
            solving.bar.stopping();
            return;
        }
        let again = match cause {
            "Ctrl-C" => "Ctrl-C again".to_string(),
            other => format!("{other} again (or Ctrl-C)"),
        };
        solving.bar.println(&format!(
            "{cause}: no more solves start; waiting for the {n} in flight (each ends by the \
             time limit, {}); {again} to end now. Finished rows are kept",
            super::progress::duration(limit)
        ));
        solving.bar.stopping();
        return;
    }
}

/// Warnings about the damaged lines of `tetris.jsonl` and `orders.jsonl`
/// (each: how many, and whether the run's rewrite dropped them), so the
/// user hears of them.
fn damaged_record_warnings(profiles: (usize, bool), orders: (usize, bool)) -> Vec<String> {
    [(PROFILES, profiles), (ORDERS, orders)]
        .into_iter()
        .filter(|&(_, (n, _))| n > 0)
        .map(|(file, (n, rewritten))| {
            format!(
                "{n} line(s) of {file} were not records (edited by hand?): {}",
                match rewritten {
                    true => "they were dropped when the run rewrote the file",
                    false => "they are ignored (plots, merge and resume read records only)",
                }
            )
        })
        .collect()
}

/// Keeps in `orders.jsonl` (at `path`, if it exists) only the orders of the
/// valid rows in `existing` (a line written by a run killed before its row,
/// whose item now solves differently, goes); returns how many valid rows of
/// this run's items (`ours`) have no order (solved before `save_orders` was
/// on: `--fresh` solves those again), and how many damaged lines it dropped.
fn keep_orders_of_valid_rows(
    path: &Path,
    existing: &[Row],
    ours: &BTreeSet<Key>,
) -> Result<(usize, usize), ExperimentError> {
    let valid: std::collections::BTreeSet<_> =
        existing.iter().filter(|r| r.valid).map(Row::key).collect();
    let (mut kept, damaged) = read_jsonl_counting::<SavedOrder>(path);
    kept.retain(|o| valid.contains(&o.key()));
    let keys: std::collections::BTreeSet<_> = kept.iter().map(Keyed::key).collect();
    let unsaved = existing
        .iter()
        .filter(|r| r.valid && ours.contains(&r.key()) && !keys.contains(&r.key()))
        .count();
    if path.exists() {
        write_jsonl(path, &kept).map_err(|e| ExperimentError::io("write", path, e))?;
    }
    Ok((unsaved, damaged))
}

/// Threads of the run's pool (0: rayon's default, one per core) for
/// `--threads requested`: no more than the solves to run or the cores,
/// whichever is larger (each thread is an OS thread; best-ofs and restarts
/// also use the pool, so the cores are kept).
fn pool_size(requested: Option<usize>, pending: usize, cores: usize) -> usize {
    requested.map_or(0, |t| t.min(pending.max(cores)))
}

/// Most nodes plus edges of the graphs the check keeps for the run (small
/// graphs: a corpus of them is loaded once; larger ones are loaded again
/// when their items run, so peak memory stays that of the graphs in use).
const KEEP_ELEMENTS: usize = 2_000_000;
/// Largest graph (nodes plus edges) the check keeps.
const KEEP_ONE: usize = 100_000;
/// What a kept graph counts against [`KEEP_ELEMENTS`] besides its nodes
/// and edges: its fixed cost (about a dozen vectors, its `Generator`
/// record) is some kilobytes, so a corpus of tiny graphs must not keep
/// two million of them.
const KEEP_OVERHEAD: usize = 200;

/// A graph that loaded and matched its record: its fingerprint, its
/// warnings ([`lint`]), and whether it is to be solved and has no
/// `Latency` field.
type Checked = (Fingerprint, Vec<String>, bool);

/// Most graph warnings a run lists; the rest are counted.
const LINTS_SHOWN: usize = 5;

/// The graph warnings ([`lint`]) a run lists: the first [`LINTS_SHOWN`],
/// then how many more (`memsched validate` shows them all).
fn shown_lints(lints: Vec<String>) -> Vec<String> {
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
fn check_graphs(
    plan: &Plan,
    store: &GraphStore,
    pending: &[Item],
    pool: &rayon::ThreadPool,
    recorded: &Recorded,
    stopping: &(dyn Fn() -> bool + Sync),
) -> Result<(Fingerprints, Vec<String>), ExperimentError> {
    let kept = AtomicUsize::new(0);
    let to_solve: std::collections::BTreeSet<usize> = pending.iter().map(|it| it.graph).collect();
    // The rules that read `latency`: on a graph without the field, their
    // term is 0 (said per graph, as `schedule` says it).
    let latency_rules: Vec<String> = plan
        .solvers
        .iter()
        .filter(|s| crate::solvers::rule::reads_latency(&s.name))
        .map(|s| format!("`{}`", s.name))
        .collect();
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
    let checked: Vec<(usize, Result<Checked, Problem>)> = pool.install(|| {
        needed
            .par_iter()
            .with_max_len(1)
            .map(|&g| {
                if stopping() {
                    return (g, Err(Problem::Skipped));
                }
                // memsched's own code on a quiet worker: a panic here
                // becomes the graph's problem, with its message.
                let checked = catch_panic(|| {
                    let graph = load(&plan.graphs[g]).map_err(Problem::Unreadable);
                    graph.and_then(|graph| {
                        let fp = fingerprint::of(&graph);
                        if let Some(why) = recorded.changed(&plan.graphs[g].name, &graph, fp) {
                            return Err(Problem::Changed(why));
                        }
                        let lints = lint(&graph);
                        if !to_solve.contains(&g) {
                            return Ok((fp, lints, false));
                        }
                        let no_latency = !graph.has_latencies();
                        store.expect(g, fp);
                        let size = graph.node_count() + graph.edge_count() + KEEP_OVERHEAD;
                        // Counted only when kept: a graph refused for the
                        // budget must not use up what smaller ones could take.
                        if size <= KEEP_ONE
                            && kept
                                .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |k| {
                                    (k + size <= KEEP_ELEMENTS).then_some(k + size)
                                })
                                .is_ok()
                        {
                            store.keep(g, graph);
                        }
                        Ok((fp, lints, no_latency))
                    })
                })
                .unwrap_or_else(|msg| Err(Problem::Unreadable(format!("panicked: {msg}"))));
                (g, checked)
            })
            .collect()
    });
    let (mut failed, mut changed) = (Vec::new(), Vec::new());
    let mut fingerprints = Fingerprints::new();
    let mut lints = Vec::new();
    let mut without_latency: Vec<String> = Vec::new();
    for (g, checked) in checked {
        match checked {
            Ok((fp, warnings, no_latency)) => {
                let name = &plan.graphs[g].name;
                if no_latency {
                    without_latency.push(name.clone());
                }
                fingerprints.insert(name.clone(), fp);
                lints.extend(warnings.into_iter().map(|w| format!("graph `{name}`: {w}")));
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
    if !latency_rules.is_empty() && !without_latency.is_empty() {
        let named = first_few(
            without_latency.iter(),
            3,
            |g| format!("`{g}`"),
            |k| format!("{k} more"),
        );
        // First: the graph warnings after it may be cut short.
        lints.insert(
            0,
            format!(
                "{} of the graphs to solve have no `Latency` field ({}), so `latency` is 0 \
                 for every node of theirs in {}",
                without_latency.len(),
                named.join(", "),
                latency_rules.join(", ")
            ),
        );
    }
    Ok((fingerprints, lints))
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
    ExperimentError::Config(msg)
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

/// Builds a solver by name (the registry; tests pass their own).
type Build = fn(&str) -> Result<Box<dyn Scheduler>, String>;

fn registry_build(name: &str) -> Result<Box<dyn Scheduler>, String> {
    solvers::build(name).map_err(|e| e.to_string())
}

/// What one solve leaves: its row, its profile (on the Tetris graph) and
/// its order (when the config keeps orders).
struct Solved {
    row: Row,
    profile: Option<Profile>,
    order: Option<SavedOrder>,
}

impl Solved {
    /// A solve that left a row only.
    fn row(row: Row) -> Self {
        Solved {
            row,
            profile: None,
            order: None,
        }
    }
}

/// One solve, caught if it panics, as a row (and a profile for the Tetris
/// graph, and its order if `keep_order`).
fn solve_item(
    plan: &Plan,
    store: &GraphStore,
    item: &Item,
    ctx: &SolveContext,
    tetris: Option<usize>,
    keep_order: bool,
    build: Build,
) -> Solved {
    let entry = &plan.graphs[item.graph];
    let solver_name = &plan.solvers[item.solver].name;
    let mut row = Row {
        item: item.id,
        graph: entry.name.clone(),
        family: entry.family.clone(),
        solver: solver_name.clone(),
        seed: item.seed,
        status: "failed".into(),
        ..rows::blank()
    };
    let graph = match store.get(item.graph) {
        Ok(g) => g,
        Err(e) => {
            row.reason = one_line(&format!("{CANNOT_LOAD}: {e}"));
            return Solved::row(row);
        }
    };
    row.nodes = graph.node_count();
    row.edges = graph.edge_count();
    let ctx = SolveContext {
        graph_name: Some(entry.name.clone()),
        ..ctx.with_seed(item.seed)
    };
    let started = std::time::Instant::now();
    let result = catch_panic(|| {
        let solver = build(solver_name)?;
        Ok::<_, String>(solvers::run(solver.as_ref(), &graph, &ctx))
    });
    let report = match result {
        Ok(Ok(r)) => r,
        Ok(Err(e)) => {
            row.reason = one_line(&e);
            return Solved::row(row);
        }
        Err(msg) => {
            row.reason = one_line(&format!("panicked: {msg}"));
            row.time_ms = (started.elapsed().as_secs_f64() * 1e6).round() / 1e3;
            return Solved::row(row);
        }
    };
    row.status = report.status.label().to_string();
    row.valid = report.valid();
    row.peak_bytes = report.peak;
    row.lower_bound_bytes = report.lower_bound;
    row.time_ms = (report.time.as_secs_f64() * 1e6).round() / 1e3;
    row.states = report.counter("states");
    row.reason = match &report.status {
        Status::Failed(r) | Status::Invalid(r) => one_line(r),
        _ => String::new(),
    };
    row.note = report.note.as_deref().map(one_line).unwrap_or_default();
    let profile = match (&report.order, tetris) {
        (Some(order), Some(t)) if t == item.graph => {
            Profile::of_order(&graph, order, &entry.name, solver_name, item.seed)
        }
        _ => None,
    };
    let order = match (&report.order, keep_order) {
        (Some(order), true) => Some(SavedOrder {
            graph: entry.name.clone(),
            solver: solver_name.clone(),
            seed: item.seed,
            order: graph.to_ids(order),
        }),
        _ => None,
    };
    Solved {
        row,
        profile,
        order,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::experiment::Config;
    use crate::solvers::Outcome;
    use std::fs;

    #[test]
    fn the_pool_has_no_more_threads_than_solves_or_cores() {
        assert_eq!(pool_size(None, 10, 2), 0, "default: rayon's, one per core");
        assert_eq!(pool_size(Some(4096), 3, 2), 3, "capped at the solves");
        assert_eq!(pool_size(Some(4096), 1, 8), 8, "the cores are kept");
        assert_eq!(pool_size(Some(3), 100, 8), 3, "as asked");
    }

    /// A graph dropped after the check and loaded again for its items must
    /// still be the graph the run started with.
    #[test]
    fn a_graph_edited_during_the_run_fails_its_items() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("g.json");
        let graph = |size: u64| {
            format!(
                r#"{{"Nodes": [{{"Id": 0, "Op": "ALLOC", "Size": {size}, "BufId": 1}},
                    {{"Id": 1, "Op": "FREE", "Size": {size}, "BufId": 1}}], "Edges": [[0, 1]]}}"#
            )
        };
        fs::write(&path, graph(8)).unwrap();
        let entries = [GraphEntry {
            name: "g".into(),
            family: "test".into(),
            source: GraphSource::File(path.clone()),
        }];
        let item = Item {
            id: 0,
            graph: 0,
            solver: 0,
            seed: 0,
        };
        let store = GraphStore::new(&entries, &[item, item]);
        let started = fingerprint::of(&load(&entries[0]).unwrap());
        store.expect(0, started);
        assert!(store.get(0).is_ok(), "unchanged");
        store.release(0);
        store.release(0); // dropped: the next get loads it again
        fs::write(&path, graph(9)).unwrap();
        let err = store.get(0).unwrap_err();
        assert!(err.contains("changed during the run"), "{err}");
        assert!(err.contains(&started.to_string()), "{err}");
    }

    struct Panics;
    impl Scheduler for Panics {
        fn name(&self) -> String {
            "panics".into()
        }
        fn solve(&self, _: &Graph, _: &SolveContext) -> Outcome {
            panic!("boom")
        }
    }

    /// A solver that panics inside a nested parallel task (run on any
    /// worker of the run's pool): every row records the panic, the run
    /// goes on, and counts them as broken.
    struct PanicsInParallel;
    impl Scheduler for PanicsInParallel {
        fn name(&self) -> String {
            "panics-in-parallel".into()
        }
        fn solve(&self, _: &Graph, _: &SolveContext) -> Outcome {
            (0..64).into_par_iter().for_each(|i| {
                if i == 63 {
                    panic!("deep boom")
                }
            });
            Outcome::failed("unreachable")
        }
    }

    #[test]
    fn panics_in_nested_parallel_tasks_become_failed_rows() {
        let dir = tempfile::tempdir().unwrap();
        let (config, opts) = six_chains(dir.path(), "");
        let done = run_with(&config, &opts, |_| Ok(Box::new(PanicsInParallel))).unwrap();
        assert!(done.ran >= 6 && done.broken == done.ran, "{done:?}");
        let rows = rows::read_rows(&dir.path().join(RUNS)).unwrap();
        assert_eq!(rows.len(), done.ran);
        assert!(
            rows.iter().all(|r| r.reason == "panicked: deep boom"),
            "{rows:?}"
        );
    }

    /// Where [`ReplacesRuns`] replaces `runs.csv` (once).
    static TO_REPLACE: Mutex<Option<PathBuf>> = Mutex::new(None);

    /// `kahn`, but its first solve replaces `runs.csv` as a `git checkout`
    /// would: a new file under the same name.
    struct ReplacesRuns;
    impl Scheduler for ReplacesRuns {
        fn name(&self) -> String {
            "kahn".into()
        }
        fn solve(&self, g: &Graph, ctx: &SolveContext) -> Outcome {
            if let Some(path) = TO_REPLACE.lock().unwrap().take() {
                fs::remove_file(&path).unwrap();
                fs::write(&path, "not the rows\n").unwrap();
            }
            crate::solvers::Kahn.solve(g, ctx)
        }
    }

    #[test]
    fn rows_survive_the_results_file_being_replaced_mid_run() {
        let dir = tempfile::tempdir().unwrap();
        let (config, opts) = six_chains(dir.path(), "");
        let runs = dir.path().join(RUNS);
        *TO_REPLACE.lock().unwrap() = Some(runs.clone());
        let summary = run_with(&config, &opts, |_| Ok(Box::new(ReplacesRuns))).unwrap();
        assert!(TO_REPLACE.lock().unwrap().is_none(), "the solver ran");
        assert_eq!(summary.restored, vec![runs.clone()]);
        let rows = rows::read_rows(&runs).unwrap();
        assert_eq!(rows.len(), summary.items);
        assert!(summary.items >= 6 && rows.iter().all(|r| r.valid));
        // A run that finds its file in place restores nothing.
        let again = run_with(&config, &opts, |_| Ok(Box::new(ReplacesRuns))).unwrap();
        assert!(again.restored.is_empty() && again.resumed == summary.items);
    }

    /// The stop flag [`PressesCtrlC`] sets.
    static STOP_FLAG: Mutex<Option<Arc<AtomicBool>>> = Mutex::new(None);

    /// `kahn`, setting the run's stop flag as it solves (Ctrl-C).
    struct PressesCtrlC;
    impl Scheduler for PressesCtrlC {
        fn name(&self) -> String {
            "kahn".into()
        }
        fn solve(&self, g: &Graph, ctx: &SolveContext) -> Outcome {
            if let Some(flag) = STOP_FLAG.lock().unwrap().as_ref() {
                flag.store(true, Ordering::Relaxed);
            }
            crate::solvers::Kahn.solve(g, ctx)
        }
    }

    /// After a stop, the solve in flight is recorded, no other starts and
    /// the final pass waits for the resume, which runs the rest.
    #[test]
    fn a_stopped_run_keeps_its_rows_and_the_resume_finishes_it() {
        let dir = tempfile::tempdir().unwrap();
        let (config, mut opts) = six_chains(dir.path(), "");
        let flag = Arc::new(AtomicBool::new(false));
        *STOP_FLAG.lock().unwrap() = Some(flag.clone());
        opts.threads = Some(1);
        opts.stop = Some(Stop {
            flag,
            cause: || "Ctrl-C",
        });
        let build: Build = |name| match name {
            "kahn" => Ok(Box::new(PressesCtrlC)),
            other => registry_build(other),
        };
        let stopped = run_with(&config, &opts, build).unwrap();
        STOP_FLAG.lock().unwrap().take();
        let not_started = stopped.stopped.expect("the run says it stopped");
        assert!(stopped.ran >= 1 && not_started >= 1, "{stopped:?}");
        assert_eq!(stopped.ran + not_started, stopped.items);
        let rows = rows::read_rows(&dir.path().join(RUNS)).unwrap();
        assert_eq!(rows.len(), stopped.ran);
        assert!(!dir.path().join("README.md").exists(), "no final pass");
        opts.stop = None;
        let resumed = run_with(&config, &opts, registry_build).unwrap();
        assert_eq!(resumed.stopped, None);
        assert_eq!((resumed.resumed, resumed.ran), (stopped.ran, not_started));
        assert!(dir.path().join("README.md").exists());
    }

    /// A stop before the solves (while the graphs are checked) leaves the
    /// directory untouched.
    #[test]
    fn a_run_stopped_before_its_solves_writes_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("out");
        let (config, mut opts) = six_chains(&out, "");
        opts.stop = Some(Stop {
            flag: Arc::new(AtomicBool::new(true)),
            cause: || "Ctrl-C",
        });
        let summary = run_with(&config, &opts, registry_build).unwrap();
        assert_eq!(summary.stopped, Some(summary.items));
        assert_eq!(summary.ran, 0);
        assert!(!out.exists());
    }

    /// A config changed in code is checked as a parsed one is, before
    /// anything is written: a negative time limit would run without one.
    #[test]
    fn a_config_changed_in_code_is_checked() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("out");
        let (mut config, opts) = six_chains(&out, "");
        config.time_limit = -1.0;
        let err = run(&config, &opts).unwrap_err().to_string();
        assert!(
            err.contains("`time_limit` must be a positive number"),
            "{err}"
        );
        config.time_limit = 1.0;
        config.solvers.clear();
        let err = run(&config, &opts).unwrap_err().to_string();
        assert!(err.contains("`solvers` is empty"), "{err}");
        assert!(!out.exists());
        // No directory named: `results/NAME`, as the command line's.
        let shard = Some("1/3".parse::<Shard>().unwrap());
        assert_eq!(
            RunOptions::default_out(&config, shard),
            Path::new("results").join(&config.name).join("shard-1-of-3")
        );
    }

    /// A run config over six small chains, and options writing to `dir`.
    fn six_chains(dir: &Path, extra: &str) -> (Config, RunOptions) {
        quiet_run(
            dir,
            &format!(
                "solvers = [\"kahn\"]\n{extra}[graphs]\n\
                 generate = [{{ spec = \"chain:length=3\", seeds = \"0..6\" }}]\n"
            ),
        )
    }

    /// The config `toml`, and quiet two-thread options writing to `dir`.
    fn quiet_run(dir: &Path, toml: &str) -> (Config, RunOptions) {
        let config = Config::parse(toml, "t.toml", "t").unwrap();
        let opts = RunOptions {
            out: dir.to_path_buf(),
            quiet: true,
            threads: Some(2),
            ..RunOptions::default()
        };
        (config, opts)
    }

    /// Where [`SeesSummaries`] looks, and what it saw.
    static SUMMARIES_OF: Mutex<Option<(PathBuf, Vec<String>)>> = Mutex::new(None);

    /// `kahn` under a name, noting which of the final pass's files exist
    /// as it solves.
    struct SeesSummaries(&'static str);
    impl Scheduler for SeesSummaries {
        fn name(&self) -> String {
            self.0.into()
        }
        fn solve(&self, g: &Graph, ctx: &SolveContext) -> Outcome {
            if let Some((dir, seen)) = SUMMARIES_OF.lock().unwrap().as_mut() {
                seen.extend(
                    super::super::results_dir::final_pass_files()
                        .into_iter()
                        .filter(|f| dir.join(f).exists()),
                );
            }
            crate::solvers::Kahn.solve(g, ctx)
        }
    }

    /// While solves run (so after an interrupt), no summary of an earlier
    /// pass is left to describe rows the run discards (`--fresh`) or adds
    /// to; a run with nothing to solve keeps them, and every run ends
    /// with them written.
    #[test]
    fn summaries_of_an_earlier_pass_are_gone_while_solves_run() {
        let dir = tempfile::tempdir().unwrap();
        let (config, mut opts) = six_chains(dir.path(), "");
        run_with(&config, &opts, registry_build).unwrap();
        for name in [super::super::GRAPHS, "summary.csv", "README.md"] {
            assert!(dir.path().join(name).exists(), "{name}");
        }
        let wider = Config {
            solvers: vec!["kahn".into(), "seed-greedy".into()],
            ..config.clone()
        };
        // Fresh: kahn and the `program` baseline again; then seed-greedy.
        for (config, fresh, ran) in [(&config, true, 12), (&wider, false, 6)] {
            *SUMMARIES_OF.lock().unwrap() = Some((dir.path().to_path_buf(), Vec::new()));
            opts.fresh = fresh;
            let summary = run_with(config, &opts, |name| match name {
                "kahn" => Ok(Box::new(SeesSummaries("kahn"))),
                "seed-greedy" => Ok(Box::new(SeesSummaries("seed-greedy"))),
                other => registry_build(other),
            })
            .unwrap();
            assert_eq!(summary.ran, ran, "fresh {fresh}");
            let (_, seen) = SUMMARIES_OF.lock().unwrap().take().unwrap();
            assert!(seen.is_empty(), "fresh {fresh}: {seen:?}");
            assert!(dir.path().join("README.md").exists());
        }
    }

    /// `kahn`, claiming its order optimal: a wrong proof wherever another
    /// solver does better.
    struct ClaimsOptimal;
    impl Scheduler for ClaimsOptimal {
        fn name(&self) -> String {
            "kahn".into()
        }
        fn solve(&self, g: &Graph, ctx: &SolveContext) -> Outcome {
            let order = crate::solvers::Kahn.solve(g, ctx).order.unwrap();
            let peak = crate::schedule::check(g, &order).unwrap().peak;
            Outcome::optimal(order, peak)
        }
    }

    /// A row proving a bound above another row's checked peak ends invalid
    /// in `runs.csv`, with a warning naming it; the graph's best known peak
    /// and proof come from the others.
    #[test]
    fn a_wrong_proof_ends_as_an_invalid_row() {
        let dir = tempfile::tempdir().unwrap();
        let (config, opts) = quiet_run(
            dir.path(),
            "solvers = [\"kahn\", \"exact\"]\n[graphs]\n\
             generate = [{ spec = \"random-layered:layers=6,width=3\", seeds = \"0..3\" }]\n",
        );
        let summary = run_with(&config, &opts, |name| match name {
            "kahn" => Ok(Box::new(ClaimsOptimal)),
            other => registry_build(other),
        })
        .unwrap();
        let rows = rows::read_rows(&dir.path().join(RUNS)).unwrap();
        let wrong: Vec<&Row> = rows.iter().filter(|r| r.status == "invalid").collect();
        assert!(
            !wrong.is_empty(),
            "kahn is optimal on every graph: pick others"
        );
        for r in &wrong {
            assert_eq!(r.solver, "kahn");
            assert!(
                crate::solvers::wrong_bound_claim(&r.reason) == Some("optimal"),
                "{}",
                r.reason
            );
        }
        // `memsched run` exits 1 on them, as on an order the checker refused.
        assert_eq!(summary.broken, wrong.len());
        let warning = summary.warnings.join("\n");
        assert!(
            warning.contains(&format!("{} row(s) claimed a lower bound", wrong.len())),
            "{warning}"
        );
        // Each named with the solver whose order refutes it.
        for r in &wrong {
            let by = crate::solvers::wrong_bound_refuter(&r.reason).unwrap();
            assert!(by == "exact" || by == "program", "{}", r.reason);
            let named = format!(
                "{} / kahn (seed 0): its bound is above {by}'s checked peak",
                r.graph
            );
            assert!(warning.contains(&named), "{warning}");
        }
    }

    /// A second run into a directory another one holds is refused, and
    /// changes nothing; once the first lets go, it runs.
    #[test]
    fn a_directory_in_use_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let (config, opts) = six_chains(dir.path(), "");
        let held = claim(dir.path(), &config, None).unwrap();
        let err = run_with(&config, &opts, registry_build).unwrap_err();
        assert!(err.to_string().contains("in use by another"), "{err}");
        assert!(!dir.path().join(RUNS).exists());
        drop(held);
        assert_eq!(run_with(&config, &opts, registry_build).unwrap().ran, 12);
    }

    /// A row whose graph could not be loaded mid-run is solved again on
    /// resume (it used to count as done until `--fresh`).
    #[test]
    fn items_whose_graph_failed_to_load_run_again() {
        let dir = tempfile::tempdir().unwrap();
        let (config, opts) = six_chains(dir.path(), "");
        run_with(&config, &opts, registry_build).unwrap();
        let runs = dir.path().join(RUNS);
        let mut rows = rows::read_rows(&runs).unwrap();
        let victim = rows.iter().position(|r| r.solver == "kahn").unwrap();
        rows[victim] = Row {
            status: "failed".into(),
            valid: false,
            peak_bytes: None,
            time_ms: 0.0,
            reason: format!("{CANNOT_LOAD}: it changed during the run"),
            ..rows[victim].clone()
        };
        assert!(never_ran(&rows[victim]));
        // Such a row of a graph no longer in the config is kept, as its
        // other rows would be.
        let gone = Row {
            graph: "gone#0".into(),
            ..rows[victim].clone()
        };
        rows.push(gone.clone());
        rows::write_rows(&runs, &rows).unwrap();
        let again = run_with(&config, &opts, registry_build).unwrap();
        assert_eq!((again.ran, again.resumed), (1, 11));
        let rows = rows::read_rows(&runs).unwrap();
        assert!(
            rows.iter().any(|r| r.key() == gone.key() && never_ran(r)),
            "kept"
        );
        assert!(
            rows.iter().all(|r| r.valid || r.graph == "gone#0"),
            "the item was solved"
        );
    }

    /// A shard directory of a version that placed items otherwise (its
    /// shards.toml says no `placement`) is refused on resume: half its
    /// items would be solved again.
    #[test]
    fn a_shard_placed_by_an_older_version_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let (config, opts) = six_chains(dir.path(), "");
        let opts = RunOptions {
            shard: Some("0/2".parse().unwrap()),
            ..opts
        };
        run_with(&config, &opts, registry_build).unwrap();
        let again = run_with(&config, &opts, registry_build).unwrap();
        assert_eq!(again.ran, 0, "this version's shard resumes");
        fs::write(dir.path().join(SHARDS), "shards = [\"0/2\"]\n").unwrap();
        let err = run_with(&config, &opts, registry_build).unwrap_err();
        assert!(err.to_string().contains("older memsched"), "{err}");
        // Unsharded, it is just a directory of rows.
        let all = RunOptions {
            shard: None,
            ..opts
        };
        assert!(run_with(&config, &all, registry_build).is_ok());
    }

    /// Seeds of a generator that ignores them give one graph under
    /// several names: the run says so (the summaries count it more).
    #[test]
    fn identical_graphs_are_named_in_a_warning() {
        // The warnings of a run of `toml` that name one graph twice.
        let warned = |toml: &str| -> Vec<String> {
            let dir = tempfile::tempdir().unwrap();
            let (config, opts) = quiet_run(dir.path(), toml);
            let done = run_with(&config, &opts, registry_build).unwrap();
            done.warnings
                .into_iter()
                .filter(|w| w.contains("one graph under several names"))
                .collect()
        };
        let w = warned(
            "solvers = [\"kahn\"]\n[graphs]\ngenerate = [{ spec = \"fork-join\", seeds = \"0..2\" }, \
             { spec = \"chain\", seeds = \"0..2\" }]\n",
        );
        assert_eq!(w.len(), 1, "{w:?}");
        assert!(
            w[0].contains("1 group(s)") && w[0].contains("fork-join#0 = fork-join#1"),
            "{}",
            w[0]
        );
        assert!(
            w[0].contains("a generator that ignores the seed"),
            "{}",
            w[0]
        );
        // Two files of one graph: no generator to blame.
        let files = tempfile::tempdir().unwrap();
        let graph = fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/examples/seed_example.json"
        ))
        .unwrap();
        for name in ["a.json", "b.json"] {
            fs::write(files.path().join(name), &graph).unwrap();
        }
        let w = warned(&format!(
            "solvers = [\"kahn\"]\n[graphs]\nfiles = [\"{0}/a.json\", \"{0}/b.json\"]\n",
            files.path().display()
        ));
        let w = w.first().expect("a warning");
        assert!(
            w.contains("a = b") && w.contains("saved under two file names"),
            "{w}"
        );
        // A parameter at its default value: one seed, two spellings.
        let w =
            warned("solvers = [\"kahn\"]\n[graphs]\ngenerate = [\"chain\", \"chain:length=10\"]\n");
        let w = w.first().expect("a warning");
        assert!(
            w.contains("chain#0 = chain:length=10#0")
                && w.contains("a parameter at its default value")
                && !w.contains("ignores the seed"),
            "{w}"
        );
    }

    /// A run of `DIR/config.toml` into `DIR` keeps the file's text (its
    /// comments); a config that differs replaces it.
    #[test]
    fn the_same_config_keeps_its_text() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(CONFIG);
        let text = "# my notes\nsolvers = [\"kahn\"]\n[graphs]\n\
                    generate = [\"chain:length=3\"]\n";
        fs::write(&path, text).unwrap();
        let config = Config::load(&path).unwrap();
        let (_, opts) = quiet_run(dir.path(), text);
        run_with(&config, &opts, registry_build).unwrap();
        // Kept, with the compared settings it left to defaults spelled out.
        let kept = fs::read_to_string(&path).unwrap();
        assert!(kept.contains(text), "{kept}");
        for key in [
            "name = \"config\"",
            "time_limit = ",
            "restarts = ",
            "seeds = ",
            "baselines = ",
            "[budget]",
        ] {
            assert!(kept.contains(key), "{key} in {kept}");
        }
        assert_eq!(Config::load(&path).unwrap(), config);
        // A second run keeps that text as it is.
        run_with(&config, &opts, registry_build).unwrap();
        assert_eq!(fs::read_to_string(&path).unwrap(), kept);
        let wider = Config {
            solvers: vec!["kahn".into(), "program".into()],
            ..config
        };
        run_with(&wider, &opts, registry_build).unwrap();
        assert_eq!(Config::load(&path).unwrap(), wider);
    }

    /// Rows of a solver or graph dropped from the config stay, and the
    /// README's count of runs says how many they are.
    #[test]
    fn the_readme_counts_rows_the_config_no_longer_has() {
        let dir = tempfile::tempdir().unwrap();
        let (config, opts) = six_chains(dir.path(), "");
        let wide = Config {
            solvers: vec!["kahn".into(), "random".into()],
            ..config.clone()
        };
        run_with(&wide, &opts, registry_build).unwrap();
        let readme = || fs::read_to_string(dir.path().join("README.md")).unwrap();
        assert!(
            !readme().contains("no longer in the config"),
            "{}",
            readme()
        );
        run_with(&config, &opts, registry_build).unwrap();
        assert!(
            readme().contains(
                "18 runs over 6 graphs and 3 solvers (6 of the runs are of solver(s) `random` \
                 no longer in the config"
            ),
            "{}",
            readme()
        );
    }

    /// Rows of seeds dropped from the config stay too, and are counted.
    #[test]
    fn the_readme_counts_rows_of_seeds_the_config_no_longer_has() {
        let dir = tempfile::tempdir().unwrap();
        let (config, opts) = six_chains(dir.path(), "");
        let config = Config {
            solvers: vec!["kahn".into(), "random".into()],
            seeds: crate::experiment::config::Seeds::List(vec![0, 1]),
            ..config
        };
        let more = Config {
            seeds: crate::experiment::config::Seeds::List(vec![0, 1, 2]),
            ..config.clone()
        };
        run_with(&more, &opts, registry_build).unwrap();
        run_with(&config, &opts, registry_build).unwrap();
        let readme = fs::read_to_string(dir.path().join("README.md")).unwrap();
        assert!(
            readme.contains("6 of the runs are of seed(s) 2 no longer in the config"),
            "{readme}"
        );
    }

    /// A line of `runs.csv` that is not a row is moved to `REJECTED` and
    /// its item solved again; `valid` reads in any case (a spreadsheet's
    /// `TRUE`); a file most of whose lines are not rows is refused, and
    /// left as it was.
    #[test]
    fn lines_that_are_not_rows_are_kept_aside_or_the_run_refused() {
        let dir = tempfile::tempdir().unwrap();
        let (config, opts) = six_chains(dir.path(), "");
        run_with(&config, &opts, registry_build).unwrap();
        let runs = dir.path().join(RUNS);
        let text = fs::read_to_string(&runs).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        let edited = lines[1].replacen(",true,", ",TRUE,", 1);
        assert_ne!(edited, lines[1]);
        let broken = lines[2].replacen(",feasible,", ",feasibl,", 1);
        let mut damaged = vec![lines[0], &edited, &broken];
        damaged.extend(&lines[3..]);
        fs::write(&runs, damaged.join("\n") + "\n").unwrap();
        let again = run_with(&config, &opts, registry_build).unwrap();
        assert_eq!((again.ran, again.malformed), (1, 1), "only the broken line");
        let rejected = fs::read_to_string(dir.path().join(REJECTED)).unwrap();
        assert_eq!(rejected, format!("{}{broken}\n", rows::header()));
        // A header lost (or every line rewritten): refused, nothing changed.
        let text = fs::read_to_string(&runs).unwrap();
        let headless = text.split_once('\n').unwrap().1;
        fs::write(&runs, headless).unwrap();
        let err = run_with(&config, &opts, registry_build)
            .unwrap_err()
            .to_string();
        assert!(
            err.contains(
                "12 of its 12 lines are not rows (line 1: the first line is not the header"
            ),
            "{err}"
        );
        assert_eq!(fs::read_to_string(&runs).unwrap(), headless);
    }

    /// `--redo-graph` takes a generated graph's spec in any order of its
    /// parameters, and discards every row of the graph, another shard's
    /// too (they were solved on the old graph).
    #[test]
    fn redo_graph_names_a_spec_in_any_order_and_takes_every_shard() {
        let dir = tempfile::tempdir().unwrap();
        let (config, opts) = quiet_run(
            dir.path(),
            "solvers = [\"kahn\", \"random\"]\nseeds = \"0..4\"\n[graphs]\ngenerate = [\n  \
             { spec = \"tensor-program:ops=6,inputs=2\", seeds = \"0..4\" },\n]\n",
        );
        let first = run_with(&config, &opts, registry_build).unwrap();
        // A graph with items in both shards.
        let plan = Plan::new(&config).unwrap();
        let shard: Shard = "0/2".parse().unwrap();
        let ours = plan.shard_items(Some(shard));
        let per_graph = first.items / plan.graphs.len();
        let (index, in_shard) = (0..plan.graphs.len())
            .map(|g| (g, ours.iter().filter(|it| it.graph == g).count()))
            .find(|&(_, n)| (1..per_graph).contains(&n))
            .expect("a graph split between the shards");
        let graph = plan.graphs[index].name.clone();
        let seed = graph.rsplit_once('#').unwrap().1;
        let redo = RunOptions {
            shard: Some(shard),
            redo_graphs: vec![format!("tensor-program:inputs=2,ops=6#{seed}")],
            ..opts.clone()
        };
        // All its rows go; its shard's items run again, the other shard's
        // wait for that shard.
        let again = run_with(&config, &redo, registry_build).unwrap();
        assert_eq!(again.ran, in_shard);
        let rows = rows::read_rows(&dir.path().join(RUNS)).unwrap();
        let of_graph = rows.iter().filter(|r| r.graph == graph).count();
        assert_eq!(of_graph, in_shard, "{graph}");
        assert_eq!(rows.len(), first.items - per_graph + in_shard);
        let bad = RunOptions {
            redo_graphs: vec!["tensor-program:ops=6#9".into()],
            ..opts
        };
        let err = run_with(&config, &bad, registry_build)
            .unwrap_err()
            .to_string();
        assert!(err.contains("not a graph of this experiment"), "{err}");
    }

    /// `--redo` solves one solver's items again and keeps the others':
    /// one row, one order and one profile per solve afterwards, and a name
    /// the experiment does not run is refused before anything is touched.
    #[test]
    fn redo_solves_one_solver_again_and_keeps_the_rest() {
        let dir = tempfile::tempdir().unwrap();
        let (config, opts) = six_chains(dir.path(), "save_orders = true\nseeds = \"0..2\"\n");
        let config = Config {
            solvers: vec!["kahn".into(), "random".into()],
            ..config
        };
        let first = run_with(&config, &opts, registry_build).unwrap();
        // Rows of a graph since dropped from the config: the redone
        // solver's go (they are from before the fix), the others' stay.
        let runs = dir.path().join(RUNS);
        let mut with_dropped = rows::read_rows(&runs).unwrap();
        for solver in ["kahn", "random"] {
            let mut row = with_dropped
                .iter()
                .find(|r| r.solver == solver)
                .unwrap()
                .clone();
            row.graph = "dropped#0".into();
            with_dropped.push(row);
        }
        rows::write_rows(&runs, &with_dropped).unwrap();
        let redo = RunOptions {
            redo: vec!["random".into()],
            ..opts.clone()
        };
        let again = run_with(&config, &redo, registry_build).unwrap();
        assert_eq!(again.ran, 12, "random on 6 graphs x 2 seeds");
        assert_eq!(again.resumed, first.items - 12);
        let dropped: Vec<String> = rows::read_rows(&runs)
            .unwrap()
            .into_iter()
            .filter(|r| r.graph == "dropped#0")
            .map(|r| r.solver)
            .collect();
        assert_eq!(dropped, ["kahn"]);
        let mut kept = rows::read_rows(&runs).unwrap();
        kept.retain(|r| r.graph != "dropped#0");
        rows::write_rows(&runs, &kept).unwrap();
        // Every line's key, as written (read_jsonl keeps one per key).
        let lines = |name: &str| -> Vec<(String, String, u64)> {
            fs::read_to_string(dir.path().join(name))
                .unwrap_or_default()
                .lines()
                .map(|l| {
                    let v: serde_json::Value = serde_json::from_str(l).unwrap();
                    let text = |k: &str| v[k].as_str().unwrap().to_string();
                    (text("graph"), text("solver"), v["seed"].as_u64().unwrap())
                })
                .collect()
        };
        let unique = |keys: Vec<(String, String, u64)>| {
            let n = keys.len();
            let set: std::collections::BTreeSet<_> = keys.into_iter().collect();
            (n, set.len())
        };
        let rows = rows::read_rows(&dir.path().join(RUNS)).unwrap();
        assert_eq!(
            unique(rows.iter().map(Row::key).collect()),
            (first.items, first.items)
        );
        assert_eq!(unique(lines(ORDERS)), (first.items, first.items));
        let mut sorted = lines(ORDERS);
        sorted.sort();
        assert_eq!(
            lines(ORDERS),
            sorted,
            "in key order, as a fresh run writes them"
        );
        let (n, distinct) = unique(lines(PROFILES));
        assert!(n > 0 && n == distinct, "no profile twice: {n} lines");
        // With `save_orders` off, the redone solver's old orders still go.
        let config = Config {
            save_orders: false,
            ..config
        };
        run_with(&config, &redo, registry_build).unwrap();
        let random = lines(ORDERS).iter().filter(|k| k.1 == "random").count();
        assert_eq!(random, 0, "orders from before the redo are gone");
        assert_eq!(lines(ORDERS).len(), first.items - 12, "kahn's stay");
        let bad = RunOptions {
            redo: vec!["ilp".into()],
            ..opts
        };
        let err = run_with(&config, &bad, registry_build)
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("--redo ilp") && err.contains("kahn, random"),
            "{err}"
        );
    }

    /// A cut last line of the profiles is dropped, so the next profile
    /// starts a clean line; profiles of every Tetris graph the run ever had
    /// are kept, and the plot shows the current one's.
    #[cfg(feature = "plots")]
    #[test]
    fn the_profiles_file_stays_clean_and_the_plot_follows_the_tetris_graph() {
        use crate::experiment::records::read_profiles;

        let dir = tempfile::tempdir().unwrap();
        let (config, opts) = six_chains(dir.path(), "");
        run_with(&config, &opts, registry_build).unwrap();
        let path = dir.path().join(PROFILES);
        let first = read_profiles(&path);
        assert!(!first.is_empty() && first.iter().all(|p| p.graph == "chain:length=3#0"));
        // A cut line, then a new Tetris graph and a new solver to run.
        let mut text = fs::read(&path).unwrap();
        text.extend_from_slice(b"{\"graph\": \"cha");
        fs::write(&path, text).unwrap();
        let with = |extra: &str| {
            let (config, opts) = six_chains(dir.path(), extra);
            let config = Config {
                solvers: vec!["kahn".into(), "seed-greedy".into()],
                ..config
            };
            run_with(&config, &opts, registry_build).unwrap()
        };
        with("tetris_graph = \"chain:length=3#4\"\n");
        let text = fs::read_to_string(&path).unwrap();
        assert!(text.ends_with('\n'));
        let graphs: Vec<String> = text
            .lines()
            .map(|l| {
                serde_json::from_str::<Profile>(l)
                    .expect("every line a profile")
                    .graph
            })
            .collect();
        assert_eq!(
            graphs.len(),
            first.len() + 1,
            "#0's, and seed-greedy's on #4"
        );
        assert_eq!(graphs.last().unwrap(), "chain:length=3#4");
        let svg = || fs::read_to_string(dir.path().join("tetris.svg")).unwrap();
        assert!(svg().contains("chain:length=3#4"));
        // A Tetris graph named after its solves ran has no profile: the
        // plot is left out (its old files too), with a warning that says why.
        let done = with("tetris_graph = \"chain:length=3#5\"\n");
        assert_eq!(done.ran, 0);
        assert!(
            done.warnings
                .iter()
                .any(|w| w.starts_with("no Tetris plot")),
            "{:?}",
            done.warnings
        );
        assert!(!dir.path().join("tetris.png").exists());
        // Back to the first graph: its profiles were kept.
        let done = with("tetris_graph = \"chain:length=3#0\"\n");
        assert!(done.warnings.is_empty(), "{:?}", done.warnings);
        assert!(svg().contains("chain:length=3#0"));
    }

    /// A line of `tetris.jsonl` that is not a profile (edited by hand) is
    /// named in a warning, since the resume's rewrite drops it.
    #[test]
    fn damaged_record_lines_are_warned_about() {
        let dir = tempfile::tempdir().unwrap();
        let (config, opts) = six_chains(dir.path(), "");
        run_with(&config, &opts, registry_build).unwrap();
        let path = dir.path().join(PROFILES);
        let mut text = fs::read_to_string(&path).unwrap();
        text.insert_str(0, "# a note\n");
        fs::write(&path, text).unwrap();
        let done = run_with(&config, &opts, registry_build).unwrap();
        assert!(
            done.warnings
                .iter()
                .any(|w| w.starts_with("1 line(s) of tetris.jsonl were not records")),
            "{:?}",
            done.warnings
        );
        assert!(!fs::read_to_string(&path).unwrap().contains("# a note"));
        let done = run_with(&config, &opts, registry_build).unwrap();
        // Without the `plots` feature, only the warning that says so.
        let others = done
            .warnings
            .iter()
            .filter(|w| !w.ends_with("lacks the `plots` feature"));
        assert_eq!(others.count(), 0, "{:?}", done.warnings);
    }

    /// A damaged `shards.toml` stops a resume with a reason instead of
    /// being written over (it would forget the shards the rows came from).
    #[test]
    fn a_damaged_shards_file_is_an_error_not_a_fresh_start() {
        let dir = tempfile::tempdir().unwrap();
        let (config, opts) = six_chains(dir.path(), "");
        run_with(&config, &opts, registry_build).unwrap();
        let path = dir.path().join(SHARDS);
        fs::write(&path, "shards = [\"0/2\"\n").unwrap();
        let config_text = fs::read_to_string(dir.path().join(CONFIG)).unwrap();
        // With items to run (a new solver): refused before the directory
        // changes, its README and config.toml as they were.
        let more = Config {
            solvers: vec!["kahn".into(), "seed-greedy".into()],
            ..config.clone()
        };
        let err = run_with(&more, &opts, registry_build)
            .unwrap_err()
            .to_string();
        assert!(err.contains("shards.toml is damaged"), "{err}");
        assert_eq!(fs::read_to_string(&path).unwrap(), "shards = [\"0/2\"\n");
        assert!(dir.path().join("README.md").exists());
        assert_eq!(
            fs::read_to_string(dir.path().join(CONFIG)).unwrap(),
            config_text
        );
        // Fixed as the error says, it resumes.
        assert!(err.contains("placement = 3"), "{err}");
        let err_lines = ["shards = [\"all\"]", "placement = 3"];
        fs::write(&path, err_lines.join("\n") + "\n").unwrap();
        run_with(&more, &opts, registry_build).unwrap();
        // --fresh starts over.
        let fresh = RunOptions {
            fresh: true,
            ..opts.clone()
        };
        run_with(&config, &fresh, registry_build).unwrap();
        assert_eq!(
            read_shards_file(dir.path()).unwrap().unwrap().shards,
            [ALL_SHARDS]
        );
    }

    /// The default Tetris graph is the config's first, not the graph of a
    /// row numbered 0: rows of a graph dropped from the config keep their
    /// old numbers, and its plot would outlive it.
    #[cfg(feature = "plots")]
    #[test]
    fn the_default_tetris_graph_follows_the_config_when_its_first_graph_is_dropped() {
        let dir = tempfile::tempdir().unwrap();
        let (config, opts) = six_chains(dir.path(), "");
        run_with(&config, &opts, registry_build).unwrap();
        let svg = dir.path().join("tetris.svg");
        assert!(fs::read_to_string(&svg)
            .unwrap()
            .contains("chain:length=3#0"));
        let (config, opts) = quiet_run(
            dir.path(),
            "solvers = [\"kahn\"]\n[graphs]\n\
             generate = [{ spec = \"chain:length=3\", seeds = \"1..6\" }]\n",
        );
        let done = run_with(&config, &opts, registry_build).unwrap();
        assert_eq!(done.ran, 0, "#1..#5 were solved by the first run");
        // #1's solves ran before it was the Tetris graph: no profile, so no plot.
        assert!(
            done.warnings
                .iter()
                .any(|w| w.starts_with("no Tetris plot")),
            "{:?}",
            done.warnings
        );
        assert!(!svg.exists(), "the dropped graph's plot is gone");
    }

    #[test]
    fn a_panicking_solver_becomes_a_failed_row() {
        let config = Config::parse(
            "solvers = [\"kahn\"]\n[graphs]\ngenerate = [{ spec = \"chain:length=3\" }]\n",
            "t.toml",
            "t",
        )
        .unwrap();
        let plan = Plan::new(&config).unwrap();
        let store = GraphStore::new(&plan.graphs, &plan.items);
        let solved = solve_item(
            &plan,
            &store,
            &plan.items[1],
            &SolveContext::default(),
            Some(0),
            true,
            |_| Ok(Box::new(Panics)),
        );
        let row = &solved.row;
        assert_eq!(row.status, "failed");
        assert!(!row.valid && row.peak_bytes.is_none());
        assert_eq!(row.reason, "panicked: boom");
        assert!(solved.profile.is_none() && solved.order.is_none());
        // The same item with the registry's solver succeeds and gives a profile.
        let solved = solve_item(
            &plan,
            &store,
            &plan.items[1],
            &SolveContext::default(),
            Some(0),
            true,
            registry_build,
        );
        let row = &solved.row;
        assert!(row.valid && row.nodes > 0);
        assert_eq!(solved.profile.unwrap().steps, row.nodes);
        assert_eq!(solved.order.unwrap().order.len(), row.nodes);
    }
}
