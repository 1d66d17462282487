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
//! ([`super::finish`]). One item failing never stops the others.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use super::catch::catch_panic;
use super::config::{self, BudgetSection, Config};
use super::fingerprint::{self, Fingerprint, Fingerprints};
use super::plan::{GraphEntry, GraphSource, Item, Plan, Shard};
use super::plots::IMAGE_EXTENSIONS;
use super::progress::{Progress, Worst};
use super::rows::{self, Row};
use super::ExperimentError;
use crate::corpus::gen;
use crate::graph::{seed, Graph, NodeIdx};
use crate::schedule;
use crate::solvers::{self, ProgramOrder, Scheduler, SolveContext, Status};

/// How to run (the CLI flags, resolved).
#[derive(Debug, Clone, Default)]
pub struct RunOptions {
    /// Output directory (default `results/NAME`).
    pub out: PathBuf,
    /// Worker threads (default: all cores).
    pub threads: Option<usize>,
    /// No progress on standard error (see [`super::progress`]).
    pub quiet: bool,
    /// Run only this shard of the items (its directory gets its own final pass).
    pub shard: Option<Shard>,
    /// Discard existing rows instead of resuming.
    pub fresh: bool,
    /// Solvers (names as in the config) whose rows of this run's items are
    /// discarded and solved again; the other rows resume.
    pub redo: Vec<String>,
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
    /// started: dropped, and their items solved again.
    pub malformed: usize,
    /// What the final pass asks the user to know (see [`super::Finished`]).
    pub warnings: Vec<String>,
}

/// The memory profile of one solve of the Tetris graph (`tetris.jsonl`).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Profile {
    pub graph: String,
    pub solver: String,
    pub seed: u64,
    /// Steps of the full order.
    pub steps: usize,
    /// `(step, memory)` points: every step, or per bucket the step of its maximum
    /// when the order is longer than [`MAX_PROFILE_POINTS`].
    pub points: Vec<(usize, i64)>,
}

impl Profile {
    /// The profile of `order` on `g` (named `graph`, solved by `solver`
    /// with `seed`), or `None` if the checker rejects the order.
    ///
    /// # Complexity
    /// O(n + m).
    pub fn of_order(
        g: &Graph,
        order: &[NodeIdx],
        graph: &str,
        solver: &str,
        seed: u64,
    ) -> Option<Profile> {
        let mem = schedule::profile(g, order).ok()?;
        Some(Profile {
            graph: graph.to_string(),
            solver: solver.to_string(),
            seed,
            steps: mem.len(),
            points: downsample(&mem),
        })
    }
}

/// Points kept per profile (a bucket keeps its maximum, so peaks survive).
pub const MAX_PROFILE_POINTS: usize = 4000;

/// One row per solve (graph x solver x seed), appended as solves end.
pub const RUNS: &str = "runs.csv";
/// The config the rows were solved under (the resume check reads it).
pub const CONFIG: &str = "config.toml";
/// Memory profiles of the Tetris graph's solves, one JSON line each.
pub const PROFILES: &str = "tetris.jsonl";
/// The orders of the solves, when the config keeps them (`save_orders`).
pub const ORDERS: &str = "orders.jsonl";
/// The shards whose rows a directory holds (`merge` names the missing ones).
pub const SHARDS: &str = "shards.toml";
/// The entry of `shards.toml` for an unsharded run (every item).
pub const ALL_SHARDS: &str = "all";
/// The content fingerprint of each graph the directory's rows were solved
/// on (see [`fingerprint`]): the resume check compares it.
pub const FINGERPRINTS: &str = "fingerprints.toml";

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
        GraphSource::File(p) => seed::read_path(&p.to_string_lossy()).map_err(|e| e.to_string()),
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
    let plan = Plan::new(config).map_err(ExperimentError::Config)?;
    let out = &opts.out;
    let config_path = out.join(CONFIG);
    let runs_path = out.join(RUNS);
    let profiles_path = out.join(PROFILES);
    // Everything is checked before the directory is touched.
    check_out_is_not_a_file(out)?;
    check_not_foreign(out)?;
    if !opts.fresh {
        check_same_experiment(
            out,
            config,
            "refusing to mix their rows: write to another directory (--out), or pass --fresh \
             to discard its results",
        )?;
    }
    // Held until the final pass is written, from before the rows are read;
    // a directory made below is locked there.
    let lock = if out.is_dir() {
        Some(lock_dir(out)?)
    } else {
        None
    };
    let (mut existing, malformed) = if opts.fresh {
        (Vec::new(), 0)
    } else {
        rows::read_rows_counting(&runs_path)
            .map_err(|e| ExperimentError::io("read", &runs_path, e))?
    };
    let items = plan.shard_items(opts.shard);
    // An item of this run whose graph could not be loaded mid-run (a file
    // edited or briefly unreadable) runs again: its graph is checked again
    // below. Such rows of other items (another shard's, a dropped graph's)
    // are kept.
    let ours: std::collections::BTreeSet<_> = items.iter().map(|it| plan.key(it)).collect();
    existing.retain(|r| !(never_ran(r) && ours.contains(&r.key())));
    let redo = redo_solvers(&plan, &opts.redo)?;
    let redone: std::collections::BTreeSet<_> = existing
        .iter()
        .filter(|r| redo.contains(r.solver.as_str()) && ours.contains(&r.key()))
        .map(Row::key)
        .collect();
    existing.retain(|r| !redone.contains(&r.key()));
    if !existing.is_empty() {
        check_same_settings(out, config, &existing)?;
        check_shard_placement(out, opts.shard)?;
    }
    // Rows from an earlier version of the config take their item id in this plan.
    let ids: std::collections::BTreeMap<_, _> =
        plan.items.iter().map(|it| (plan.key(it), it.id)).collect();
    for r in &mut existing {
        if let Some(&id) = ids.get(&r.key()) {
            r.item = id;
        }
    }
    let done: std::collections::BTreeSet<_> = existing.iter().map(Row::key).collect();
    let pending: Vec<Item> = items
        .iter()
        .filter(|it| !done.contains(&plan.key(it)))
        .copied()
        .collect();
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(pool_size(opts.threads, pending.len(), cores))
        .build()
        .map_err(|e| ExperimentError::Config(format!("cannot start threads: {e}")))?;
    let store = GraphStore::new(&plan.graphs, &pending);
    // Without rows, old fingerprints describe nothing: every graph is loaded now.
    let old_fingerprints = if existing.is_empty() {
        Fingerprints::new()
    } else {
        fingerprint::read(out)?
    };
    let recorded = Recorded::from_rows(&existing, old_fingerprints);
    let loaded = check_graphs(&plan, &store, &pending, &pool, &recorded)?;
    fs::create_dir_all(out).map_err(|e| ExperimentError::io("create directory", out, e))?;
    let _lock = match lock {
        Some(lock) => lock,
        None => {
            let lock = lock_dir(out)?;
            if runs_path.exists() {
                return Err(ExperimentError::Config(format!(
                    "another run wrote {} while this one started: run again to resume it",
                    out.display()
                )));
            }
            lock
        }
    };
    let text = recorded_config_text(&config_path, config);
    fs::write(&config_path, text).map_err(|e| ExperimentError::io("write", &config_path, e))?;
    let orders_path = out.join(ORDERS);
    if opts.fresh {
        for p in [&runs_path, &profiles_path, &orders_path] {
            remove_if_present(p)?;
        }
    }
    // The summaries of an earlier pass would describe rows this run
    // discards or adds to: an interrupted run must not leave them looking
    // current. The final pass writes them again.
    if opts.fresh || !pending.is_empty() {
        for name in final_pass_files() {
            remove_if_present(&out.join(name))?;
        }
    }
    let shards_path = out.join(SHARDS);
    let mut shards = if opts.fresh {
        Vec::new()
    } else {
        read_shards_file(out)?.map(|f| f.shards).unwrap_or_default()
    };
    shards.push(
        opts.shard
            .map_or_else(|| ALL_SHARDS.to_string(), |s| s.to_string()),
    );
    write_shards(out, shards, SHARD_PLACEMENT)
        .map_err(|e| ExperimentError::io("write", &shards_path, e))?;
    // Graphs not loaded now (no pending items) keep their old entry; a run
    // that loads nothing (everything done) leaves the file as it was.
    if !loaded.is_empty() || opts.fresh {
        let mut fingerprints = recorded.fingerprints;
        fingerprints.extend(loaded);
        fingerprint::write(out, &fingerprints)?;
    }
    // Rewrite what survived so appends start on a clean line.
    rows::write_rows(&runs_path, &existing)
        .map_err(|e| ExperimentError::io("write", &runs_path, e))?;
    let tetris = tetris_graph(config, &plan);
    // The same for the profiles (the final pass picks the Tetris graph's),
    // less those of the solves done again.
    let not_redone = |key: (String, String, u64)| !redone.contains(&key);
    if tetris.is_some() || !redone.is_empty() {
        rewrite_jsonl::<Profile>(&profiles_path, |p| not_redone(p.key()))?;
    }
    // Orders of the solves done again go whatever `save_orders` says: an
    // order from before a fix must not be served as the solver's.
    if !config.save_orders && !redone.is_empty() {
        rewrite_jsonl::<SavedOrder>(&orders_path, |o| not_redone(o.key()))?;
    }
    // Valid rows of earlier runs whose order was not kept (`save_orders`
    // turned on since): named in a warning at the end.
    let mut unsaved = 0;
    if config.save_orders {
        // Only the orders of the valid rows kept: a line written by a run
        // killed before its row, whose item now solves differently, goes.
        let valid: std::collections::BTreeSet<_> =
            existing.iter().filter(|r| r.valid).map(Row::key).collect();
        let mut kept = read_jsonl::<SavedOrder>(&orders_path);
        kept.retain(|o| valid.contains(&o.key()));
        let keys: std::collections::BTreeSet<_> = kept.iter().map(Keyed::key).collect();
        // Rows of this run's items only: `--fresh` solves those again.
        unsaved = existing
            .iter()
            .filter(|r| r.valid && ours.contains(&r.key()) && !keys.contains(&r.key()))
            .count();
        if orders_path.exists() {
            write_jsonl(&orders_path, &kept)
                .map_err(|e| ExperimentError::io("write", &orders_path, e))?;
        }
    }
    // Readable too: if the path is replaced mid-run, the rows are read back.
    let open = |p: &Path| {
        OpenOptions::new()
            .create(true)
            .read(true)
            .append(true)
            .open(p)
            .map_err(|e| ExperimentError::io("open", p, e))
    };
    let sink = Mutex::new(Sink {
        runs: open(&runs_path)?,
        profiles: match tetris {
            Some(_) => Some(open(&profiles_path)?),
            None => None,
        },
        orders: match config.save_orders {
            true => Some(open(&orders_path)?),
            false => None,
        },
    });
    let worst = Worst {
        limit: config.time_limit(),
        threads: pool.current_num_threads(),
    };
    let bar = Progress::new(pending.len(), opts.quiet, Some(worst));
    // Solver bugs recorded by an earlier, interrupted run still count.
    let broken = AtomicUsize::new(existing.iter().filter(|r| rows::is_broken(r)).count());
    let write_error: Mutex<Option<ExperimentError>> = Mutex::new(None);
    // Once a row cannot be written (a full disk, say), later solves would
    // be lost too: the items not yet started are left for a resume.
    let write_failed = AtomicBool::new(false);
    let ctx = SolveContext {
        budget: config.budget(),
        restarts: config.restarts,
        ..SolveContext::new(0, Some(config.time_limit()))
    };
    pool.install(|| {
        pending.par_iter().with_max_len(1).for_each(|item| {
            if write_failed.load(Ordering::Relaxed) {
                return;
            }
            let solved = solve_item(&plan, &store, item, &ctx, tetris, config.save_orders, build);
            let row = &solved.row;
            store.release(item.graph);
            if rows::is_broken(row) {
                broken.fetch_add(1, Ordering::Relaxed);
                let msg = format!(
                    "{} / {}: {}: {}",
                    row.graph, row.solver, row.status, row.reason
                );
                bar.println(&msg);
            }
            let mut s = sink.lock().unwrap_or_else(|e| e.into_inner());
            if let Err((file, e)) = s.solved(&solved) {
                write_failed.store(true, Ordering::Relaxed);
                write_error
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .get_or_insert(ExperimentError::io("append to", &out.join(file), e));
            }
            drop(s);
            bar.inc();
        })
    });
    bar.finish();
    if let Some(e) = write_error.into_inner().unwrap_or_else(|e| e.into_inner()) {
        return Err(e);
    }
    let mut sink = sink.into_inner().unwrap_or_else(|e| e.into_inner());
    let mut restored = Vec::new();
    let files = [
        (&runs_path, Some(&mut sink.runs)),
        (&profiles_path, sink.profiles.as_mut()),
        (&orders_path, sink.orders.as_mut()),
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
    // Profiles and orders were appended as solves ended: in key order, as
    // a resume writes them, so that a fresh run and a resumed one give one
    // file.
    if tetris.is_some() {
        rewrite_jsonl::<Profile>(&profiles_path, |_| true)?;
    }
    if config.save_orders && !pending.is_empty() {
        rewrite_jsonl::<SavedOrder>(&orders_path, |_| true)?;
    }
    let mut finished = super::finish(out, config)?;
    if !config.save_orders && orders_path.exists() && !pending.is_empty() {
        finished.warnings.push(format!(
            "{ORDERS} holds only orders of earlier solves: `save_orders` is off, so the \
             orders of this run's {} solves are not in it",
            pending.len()
        ));
    }
    if unsaved > 0 {
        finished.warnings.push(format!(
            "{unsaved} valid rows were solved before `save_orders` was on and have no order in \
             {ORDERS}: pass --fresh to solve them again and keep every order"
        ));
    }
    Ok(RunSummary {
        items: items.len(),
        resumed: items.len() - pending.len(),
        ran: pending.len(),
        // The final pass may have found more: a bound above a checked peak.
        broken: broken.into_inner().max(finished.broken),
        out: out.clone(),
        restored,
        malformed,
        warnings: finished.warnings,
    })
}

/// Threads of the run's pool (0: rayon's default, one per core) for
/// `--threads requested`: no more than the solves to run or the cores,
/// whichever is larger (each thread is an OS thread; best-ofs and restarts
/// also use the pool, so the cores are kept).
fn pool_size(requested: Option<usize>, pending: usize, cores: usize) -> usize {
    requested.map_or(0, |t| t.min(pending.max(cores)))
}

/// Refuses to write into `out` if it holds the results of another
/// experiment (its `config.toml` has another `name`); `refusal` ends the
/// message (what would go wrong, what to do instead). The same experiment
/// with an edited config (a solver or graph added) passes. `run` and
/// `merge` both check this.
pub(super) fn check_same_experiment(
    out: &Path,
    config: &Config,
    refusal: &str,
) -> Result<(), ExperimentError> {
    let Some(old) = recorded_name(&out.join(CONFIG)) else {
        return Ok(());
    };
    if old == config.name {
        return Ok(());
    }
    Err(ExperimentError::Config(format!(
        "{} holds the results of experiment `{old}` (its {CONFIG} says so), not of `{}`; {refusal}",
        out.display(),
        config.name
    )))
}

/// The settings of a results directory's `config.toml` that change what a
/// row means, read leniently (other keys ignored, defaults as in
/// [`Config`]), so that a config an older or other build wrote is still
/// compared.
#[derive(serde::Deserialize)]
struct Settings {
    #[serde(default = "config::default_time_limit")]
    time_limit: f64,
    #[serde(default = "config::default_restarts")]
    restarts: u32,
    #[serde(default)]
    budget: BudgetSection,
}

/// Refuses to resume into a directory whose rows were solved under another
/// `time_limit`, `restarts` (when its rows include a solver that restarts,
/// listed in the new config or not) or `[budget]` (when its rows include a
/// solver that reads it): its rows would mix two settings under one config. Other
/// keys only add or drop items: a new solver or graph is solved, the rows
/// of a dropped one are kept. A `config.toml` that cannot be read is an
/// error too: the rows' settings are then unknown.
fn check_same_settings(
    out: &Path,
    config: &Config,
    existing: &[Row],
) -> Result<(), ExperimentError> {
    let path = out.join(CONFIG);
    let text = match fs::read_to_string(&path) {
        Ok(text) => text,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(ExperimentError::io("read", &path, e)),
    };
    let old: Settings = toml::from_str(&text).map_err(|e| {
        ExperimentError::Config(format!(
            "cannot read the settings its rows were solved with from {}: {}; pass --fresh \
             to discard its results, or write to another directory (--out)",
            path.display(),
            one_line(&e.to_string())
        ))
    })?;
    let mut differ = Vec::new();
    if old.time_limit != config.time_limit {
        differ.push(format!(
            "`time_limit` ({} s, now {} s)",
            old.time_limit, config.time_limit
        ));
    }
    // Rows of a restarting solver were solved under the old `restarts`,
    // whether or not the new config still lists that solver.
    let solved: std::collections::BTreeSet<&String> = existing.iter().map(|r| &r.solver).collect();
    let solved_any =
        |has: fn(&solvers::Abilities) -> bool| config::any_has(solved.iter().copied(), has);
    if old.restarts != config.restarts && solved_any(|a| a.restarts) {
        differ.push(format!(
            "`restarts` ({}, now {})",
            old.restarts, config.restarts
        ));
    }
    // Likewise the budget, for rows of a solver that reads it.
    if old.budget != config.budget && solved_any(|a| a.budgeted) {
        let show = |b: &BudgetSection| {
            format!(
                "max_states = {}, max_memory_bytes = {}",
                b.max_states, b.max_memory_bytes
            )
        };
        differ.push(format!(
            "`[budget]` ({}, now {})",
            show(&old.budget),
            show(&config.budget)
        ));
    }
    if differ.is_empty() {
        return Ok(());
    }
    Err(ExperimentError::Config(format!(
        "{} holds rows solved with another {}; resuming would mix the two settings: \
         pass --fresh to discard its results, or write to another directory (--out)",
        out.display(),
        differ.join(" and ")
    )))
}

/// The lock file of an output directory (see [`lock_dir`]).
pub const LOCK: &str = ".memsched.lock";

/// An output directory locked by this process (released when dropped, or
/// when the process ends, however it ends).
#[derive(Debug)]
pub(super) struct DirLock {
    _file: File,
}

/// Locks `dir` (an existing directory) for one `run` or `merge`: a second
/// one writing there would rename `runs.csv` from under the first, and the
/// rows of one would be lost. Refused, naming the directory, while another
/// process holds it. Where locking fails otherwise (a file system without
/// locks, an NFS mount without its lock daemon) the run goes ahead
/// unlocked, as it did before there was a lock.
pub(super) fn lock_dir(dir: &Path) -> Result<DirLock, ExperimentError> {
    let path = dir.join(LOCK);
    let file = OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&path)
        .map_err(|e| ExperimentError::io("open", &path, e))?;
    match file.try_lock() {
        Ok(()) => Ok(DirLock { _file: file }),
        Err(fs::TryLockError::WouldBlock) => Err(ExperimentError::Config(format!(
            "{} is in use by another `memsched run` or `merge` (it holds {LOCK}): wait for \
             it to finish, or write to another directory (--out)",
            dir.display()
        ))),
        Err(fs::TryLockError::Error(_)) => Ok(DirLock { _file: file }),
    }
}

/// Refuses an output directory that exists as a file (or anything but a
/// directory), or lies under one, before anything is written.
pub(super) fn check_out_is_not_a_file(out: &Path) -> Result<(), ExperimentError> {
    match out.ancestors().find(|p| p.exists()) {
        Some(p) if !p.is_dir() => Err(ExperimentError::Config(format!(
            "the output directory {} cannot be made: {} exists and is not a directory; \
             choose another --out",
            out.display(),
            p.display()
        ))),
        _ => Ok(()),
    }
}

/// Files a run or merge writes in its output directory besides
/// `config.toml` (which marks a results directory) and the final pass's.
const WRITTEN: &[&str] = &[RUNS, SHARDS, FINGERPRINTS, PROFILES, ORDERS];

/// Every file a run or merge may write besides `config.toml`: [`WRITTEN`]
/// and [`final_pass_files`].
fn written_files() -> Vec<String> {
    let mut files: Vec<String> = WRITTEN.iter().map(|s| s.to_string()).collect();
    files.extend(final_pass_files());
    files
}

/// The files the final pass derives from `runs.csv`: the summaries, the
/// README and every plot.
fn final_pass_files() -> Vec<String> {
    let derived = [super::GRAPHS, "summary.csv", "README.md"];
    let plots = config::PlotKind::ALL.iter().flat_map(|kind| {
        IMAGE_EXTENSIONS
            .iter()
            .map(move |ext| format!("{}.{ext}", kind.stem()))
    });
    derived.iter().map(|s| s.to_string()).chain(plots).collect()
}

/// Removes the file `path` if there is one.
pub(super) fn remove_if_present(path: &Path) -> Result<(), ExperimentError> {
    match fs::remove_file(path) {
        Err(e) if e.kind() != io::ErrorKind::NotFound => {
            Err(ExperimentError::io("remove", path, e))
        }
        _ => Ok(()),
    }
}

/// Refuses an output directory without a `config.toml` (so not a results
/// directory: a run writes its `config.toml` first, right after taking the
/// lock) that holds a file a run would replace (`README.md`, `summary.csv`,
/// the plots...). Other files (`.gitkeep`, notes) are left alone, so such a
/// directory is used. `--fresh` does not lift this: there are no results
/// of ours to discard.
pub(super) fn check_not_foreign(out: &Path) -> Result<(), ExperimentError> {
    if !out.is_dir() || out.join(CONFIG).exists() {
        return Ok(());
    }
    let taken: Vec<String> = written_files()
        .into_iter()
        .filter(|name| out.join(name).exists())
        .collect();
    if taken.is_empty() {
        return Ok(());
    }
    Err(ExperimentError::Config(format!(
        "{} is not a results directory (it has no {CONFIG}) and holds {}, which memsched \
         would replace; choose another directory (--out)",
        out.display(),
        taken.join(", ")
    )))
}

/// The `name` in a results directory's `config.toml`, if it has one (read
/// leniently: a config of an older version still names its experiment).
fn recorded_name(config_toml: &Path) -> Option<String> {
    let text = fs::read_to_string(config_toml).ok()?;
    let table: toml::Table = toml::from_str(&text).ok()?;
    table.get("name")?.as_str().map(str::to_string)
}

/// Most nodes plus edges of the graphs the check keeps for the run (small
/// graphs: a corpus of them is loaded once; larger ones are loaded again
/// when their items run, so peak memory stays that of the graphs in use).
const KEEP_ELEMENTS: usize = 2_000_000;
/// Largest graph (nodes plus edges) the check keeps.
const KEEP_ONE: usize = 100_000;

/// What the rows already in `runs.csv` say of each graph: its size and,
/// from a valid `program` row, its program-order peak; and its content
/// fingerprint from [`FINGERPRINTS`] (absent in directories of older
/// versions). A graph that differs now (its file was edited) would mix rows
/// of two graphs under one name.
#[derive(Default)]
struct Recorded {
    graphs: std::collections::HashMap<String, RecordedGraph>,
    fingerprints: Fingerprints,
}

/// One graph as its rows in `runs.csv` describe it.
#[derive(Clone, Copy)]
struct RecordedGraph {
    nodes: usize,
    edges: usize,
    /// The peak of a valid `program` row, if there is one.
    program_peak: Option<u64>,
}

impl Recorded {
    fn from_rows(rows: &[Row], fingerprints: Fingerprints) -> Self {
        let mut graphs = std::collections::HashMap::new();
        // A graph that could not be loaded mid-run has rows of 0 nodes.
        for r in rows.iter().filter(|r| r.nodes > 0) {
            let entry = graphs.entry(r.graph.clone()).or_insert(RecordedGraph {
                nodes: r.nodes,
                edges: r.edges,
                program_peak: None,
            });
            if r.solver == "program" && r.valid {
                entry.program_peak = entry.program_peak.or(r.peak_bytes);
            }
        }
        Recorded {
            graphs,
            fingerprints,
        }
    }

    /// Why `graph`, loaded now as `g` with fingerprint `now`, is not the
    /// graph its rows were solved on, if it is not. A graph without rows
    /// has nothing to differ from. A recorded fingerprint decides; without
    /// one, the counts and the program-order peak do (an edit that keeps
    /// all three is then not seen).
    fn changed(&self, graph: &str, g: &Graph, now: Fingerprint) -> Option<String> {
        let RecordedGraph {
            nodes,
            edges,
            program_peak,
        } = *self.graphs.get(graph)?;
        if (nodes, edges) != (g.node_count(), g.edge_count()) {
            return Some(format!(
                "{} nodes and {} edges now, {nodes} and {edges} in runs.csv",
                g.node_count(),
                g.edge_count()
            ));
        }
        if let Some(&old) = self.fingerprints.get(graph) {
            return (old != now).then(|| {
                format!(
                    "its content differs (fingerprint {now} now, {old} in {FINGERPRINTS}): a \
                     node's id, kind, buffer, size or latency, the nodes' order or an edge \
                     was changed"
                )
            });
        }
        let peak = program_peak?;
        // As the `program` row was made: the solver's checked peak.
        let now = solvers::run(&ProgramOrder, g, &SolveContext::default()).peak;
        (now != Some(peak)).then(|| {
            let now = now.map_or("none (not a schedule)".into(), |p| p.to_string());
            format!("program-order peak {now} now, {peak} in runs.csv")
        })
    }
}

/// Loads (or generates) every graph with pending items, in parallel: a
/// graph that cannot be loaded is invalid input, reported with its name and
/// source before any solve runs, and so is a graph that differs from the
/// one the rows in `runs.csv` were solved on (`recorded`). Small graphs are kept in `store` for the
/// run (up to [`KEEP_ELEMENTS`] nodes plus edges in all); the others are
/// dropped and loaded again when their items run. Returns the fingerprints
/// of the graphs loaded.
///
/// # Complexity
/// One load and one fingerprint per graph with pending items; nothing is
/// solved but, for a graph with rows and no recorded fingerprint, its
/// program order.
fn check_graphs(
    plan: &Plan,
    store: &GraphStore,
    pending: &[Item],
    pool: &rayon::ThreadPool,
    recorded: &Recorded,
) -> Result<Fingerprints, ExperimentError> {
    let kept = AtomicUsize::new(0);
    let needed: Vec<usize> = pending
        .iter()
        .map(|it| it.graph)
        .collect::<std::collections::BTreeSet<_>>()
        .into_iter()
        .collect();
    let checked: Vec<(usize, Result<Fingerprint, Problem>)> = pool.install(|| {
        needed
            .par_iter()
            .with_max_len(1)
            .map(|&g| {
                let graph = load(&plan.graphs[g]).map_err(Problem::Unreadable);
                let checked = graph.and_then(|graph| {
                    let fp = fingerprint::of(&graph);
                    if let Some(why) = recorded.changed(&plan.graphs[g].name, &graph, fp) {
                        return Err(Problem::Changed(why));
                    }
                    store.expect(g, fp);
                    let size = graph.node_count() + graph.edge_count();
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
                    Ok(fp)
                });
                (g, checked)
            })
            .collect()
    });
    let (mut failed, mut changed) = (Vec::new(), Vec::new());
    let mut fingerprints = Fingerprints::new();
    for (g, checked) in checked {
        match checked {
            Ok(fp) => {
                fingerprints.insert(plan.graphs[g].name.clone(), fp);
            }
            Err(Problem::Unreadable(e)) => failed.push((g, e)),
            Err(Problem::Changed(why)) => changed.push((g, why)),
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
             runs.csv's rows were solved on (nothing was run): pass --fresh to solve \
             everything again, or write to another directory (--out)",
            &changed,
        ));
    }
    Ok(fingerprints)
}

/// Why a graph stops the run before any solve.
enum Problem {
    /// It cannot be loaded or generated.
    Unreadable(String),
    /// It is not the graph of the same name in `runs.csv`.
    Changed(String),
}

/// The error listing `problems` (the first few) after `what`.
fn graph_error(plan: &Plan, what: &str, problems: &[(usize, String)]) -> ExperimentError {
    const SHOWN: usize = 10;
    let mut msg = format!("{} {what}", problems.len());
    for (g, e) in problems.iter().take(SHOWN) {
        let entry = &plan.graphs[*g];
        let source = match &entry.source {
            GraphSource::File(p) => format!("file `{}`", p.display()),
            GraphSource::Generated { spec, seed } => {
                format!("generator spec `{spec}`, seed {seed}")
            }
        };
        msg.push_str(&format!(
            "\n  graph `{}` ({source}): {}",
            entry.name,
            one_line(e)
        ));
    }
    if problems.len() > SHOWN {
        msg.push_str(&format!("\n  ... and {} more", problems.len() - SHOWN));
    }
    ExperimentError::Config(msg)
}

/// `shards.toml` as written: the shards whose runs wrote into `dir` (`K/N`,
/// or [`ALL_SHARDS`] for an unsharded run); `None` without the file. A file
/// that cannot be read or parsed is an error, not a missing file: a run
/// would otherwise write over it and forget the shards it named.
pub(super) fn read_shards_file(dir: &Path) -> Result<Option<ShardsFile>, ExperimentError> {
    let path = dir.join(SHARDS);
    let text = match fs::read_to_string(&path) {
        Ok(text) => text,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(ExperimentError::io("read", &path, e)),
    };
    toml::from_str(&text).map(Some).map_err(|e| {
        ExperimentError::Config(format!(
            "{} is damaged ({}): it names the shards whose rows the directory holds; \
             fix it (`shards = [\"0/2\"]`, `[\"all\"]` for an unsharded run), or pass \
             --fresh to start over",
            path.display(),
            one_line(e.message())
        ))
    })
}

/// How this version places items in shards (`placement` in `shards.toml`):
/// by a hash of the item's key. Versions that wrote no `placement` placed
/// them by position in the plan.
pub const SHARD_PLACEMENT: u32 = 3;

/// Refuses to resume, as shard `shard`, a directory holding rows of shards
/// placed by an older version: its items would move between shards, and
/// about half of them would be solved again.
fn check_shard_placement(out: &Path, shard: Option<Shard>) -> Result<(), ExperimentError> {
    if shard.is_none() {
        return Ok(());
    }
    let Some(file) = read_shards_file(out)?.filter(ShardsFile::placed_by_older_version) else {
        return Ok(());
    };
    Err(ExperimentError::Config(format!(
        "{} holds rows of shards ({}) placed by an older memsched, which deals items to \
         shards differently: finish it with the version that began it, or pass --fresh",
        out.display(),
        file.shards.join(", ")
    )))
}

/// Writes `shards.toml`: the shards, sorted, each once (just [`ALL_SHARDS`]
/// if an unsharded run is among them), placed as `placement` says
/// ([`SHARD_PLACEMENT`] for this version's, 0 for an older one's).
pub fn write_shards(dir: &Path, mut shards: Vec<String>, placement: u32) -> io::Result<()> {
    if shards.iter().any(|s| s == ALL_SHARDS) {
        shards = vec![ALL_SHARDS.to_string()];
    }
    shards.sort_by_key(|s| {
        s.parse::<Shard>()
            .map_or((usize::MAX, usize::MAX), |s| (s.count, s.index))
    });
    shards.dedup();
    let file = ShardsFile { shards, placement };
    let text = toml::to_string(&file).map_err(io::Error::other)?;
    fs::write(
        dir.join(SHARDS),
        format!("# The runs (`--shard K/N`, or \"all\") whose rows this directory holds.\n{text}"),
    )
}

#[derive(Debug, Serialize, Deserialize)]
pub(super) struct ShardsFile {
    pub shards: Vec<String>,
    /// How items were placed in shards ([`SHARD_PLACEMENT`]); 0 in files
    /// of versions before it was written.
    #[serde(default)]
    placement: u32,
}

impl ShardsFile {
    /// Whether it lists shards placed by an older version.
    pub fn placed_by_older_version(&self) -> bool {
        self.placement != SHARD_PLACEMENT && self.shards.iter().any(|s| s.parse::<Shard>().is_ok())
    }
}

/// If `path` no longer names `file`, the file this run appended to (it was
/// replaced or removed mid-run), writes `file`'s content back to `path`
/// (through a temporary file and a rename); true if it did.
fn restore_if_replaced(path: &Path, file: &mut File) -> io::Result<bool> {
    if names_file(path, file)? {
        return Ok(false);
    }
    let mut content = Vec::new();
    file.seek(SeekFrom::Start(0))?;
    file.read_to_end(&mut content)?;
    let tmp = path.with_extension("restoring");
    fs::write(&tmp, &content)?;
    fs::rename(&tmp, path)?;
    Ok(true)
}

/// Whether `path` names the same file as the open `file`.
#[cfg(unix)]
fn names_file(path: &Path, file: &File) -> io::Result<bool> {
    use std::os::unix::fs::MetadataExt;
    let here = match fs::metadata(path) {
        Ok(m) => m,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(false),
        Err(e) => return Err(e),
    };
    let ours = file.metadata()?;
    Ok(here.dev() == ours.dev() && here.ino() == ours.ino())
}

/// Whether `path` names the same file as the open `file`: without inode
/// numbers, only a removed file is noticed.
#[cfg(not(unix))]
fn names_file(path: &Path, _file: &File) -> io::Result<bool> {
    Ok(path.exists())
}

/// The reason of a row whose graph could not be loaded mid-run.
const CANNOT_LOAD: &str = "cannot load graph";

/// A row whose solver never ran: its graph could not be loaded. Such rows
/// take no part in mean times, and a resumed run solves their items again.
pub(super) fn never_ran(row: &Row) -> bool {
    row.status == "failed" && row.reason.starts_with(CANNOT_LOAD)
}

/// The text to record in `DIR/config.toml`: the config written out whole,
/// unless the file there is this same config (run from
/// `results/NAME/config.toml`, say), whose text and comments are the
/// user's. Its settings that later runs or merges compare (`name`,
/// `time_limit`, `restarts`, `seeds`, `baselines`, `[budget]`) are then
/// spelled out where it left them to their defaults, which another version
/// may change (a `[budget]` naming only some of its keys: the config is
/// written out whole).
fn recorded_config_text(path: &Path, config: &Config) -> String {
    let whole = config.to_toml();
    let Ok(text) = fs::read_to_string(path) else {
        return whole;
    };
    let stem = path
        .file_stem()
        .map_or(String::new(), |s| s.to_string_lossy().into_owned());
    let (Ok(there), Ok(table), Ok(full)) = (
        Config::parse(&text, "", &stem),
        text.parse::<toml::Table>(),
        whole.parse::<toml::Table>(),
    ) else {
        return whole;
    };
    if there != *config {
        return whole;
    }
    let mut head = String::new();
    for key in ["name", "time_limit", "restarts", "seeds", "baselines"] {
        if let (None, Some(v)) = (table.get(key), full.get(key)) {
            head.push_str(&format!("{key} = {v}\n"));
        }
    }
    let mut tail = String::new();
    match (table.get("budget"), full.get("budget")) {
        (None, Some(toml::Value::Table(b))) => tail = format!("\n[budget]\n{b}"),
        // A `[budget]` naming some of its keys: written out whole instead.
        (Some(toml::Value::Table(some)), Some(toml::Value::Table(b)))
            if b.keys().any(|k| !some.contains_key(k)) =>
        {
            return whole
        }
        _ => {}
    }
    let kept = format!("{head}{text}{tail}");
    match Config::parse(&kept, "", &stem) {
        Ok(c) if c == *config => kept,
        _ => whole,
    }
}

/// The solvers `--redo` names, each checked to be one of the config's.
fn redo_solvers<'a>(
    plan: &Plan,
    redo: &'a [String],
) -> Result<std::collections::BTreeSet<&'a str>, ExperimentError> {
    for name in redo {
        if !plan.solvers.iter().any(|s| &s.name == name) {
            let names: Vec<_> = plan.solvers.iter().map(|s| s.name.as_str()).collect();
            return Err(ExperimentError::Config(format!(
                "--redo {name}: not a solver of this experiment (its solvers: {})",
                names.join(", ")
            )));
        }
    }
    Ok(redo.iter().map(String::as_str).collect())
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

/// Keeps every step, or the maximum of each of [`MAX_PROFILE_POINTS`] buckets.
///
/// # Complexity
/// O(n) for an order of n steps.
fn downsample(mem: &[i64]) -> Vec<(usize, i64)> {
    if mem.len() <= MAX_PROFILE_POINTS {
        return mem.iter().enumerate().map(|(i, &m)| (i + 1, m)).collect();
    }
    let per = mem.len().div_ceil(MAX_PROFILE_POINTS);
    mem.chunks(per)
        .enumerate()
        .map(|(c, chunk)| {
            let (k, &m) = chunk
                .iter()
                .enumerate()
                .max_by_key(|&(k, &m)| (m, std::cmp::Reverse(k)))
                .expect("chunks are non-empty");
            (c * per + k + 1, m)
        })
        .collect()
}

/// `s` on one line, runs of whitespace (newlines too) made one space.
pub(super) fn one_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The order of one solve (`orders.jsonl`), as the node ids of the graph.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SavedOrder {
    pub graph: String,
    pub solver: String,
    pub seed: u64,
    /// The checked schedule, as original ids (`memsched check` reads it).
    pub order: Vec<i64>,
}

/// A record of a `.jsonl` file beside `runs.csv`, keyed as rows are.
pub trait Keyed {
    /// Graph, solver and seed.
    fn key(&self) -> (String, String, u64);
}

impl Keyed for Profile {
    fn key(&self) -> (String, String, u64) {
        (self.graph.clone(), self.solver.clone(), self.seed)
    }
}

impl Keyed for SavedOrder {
    fn key(&self) -> (String, String, u64) {
        (self.graph.clone(), self.solver.clone(), self.seed)
    }
}

/// Writes `records` one JSON object per line, through a temporary file and
/// a rename.
pub fn write_jsonl<T: Serialize>(path: &Path, records: &[T]) -> io::Result<()> {
    crate::output::write_file(path, |f| {
        for r in records {
            serde_json::to_writer(&mut *f, r).map_err(io::Error::other)?;
            f.write_all(b"\n")?;
        }
        Ok(())
    })
}

/// Rewrites the `.jsonl` file `path`, if present, in key order ([`read_jsonl`]:
/// one record per key), keeping the records `keep` accepts.
fn rewrite_jsonl<T: Serialize + serde::de::DeserializeOwned + Keyed>(
    path: &Path,
    keep: impl Fn(&T) -> bool,
) -> Result<(), ExperimentError> {
    if !path.exists() {
        return Ok(());
    }
    let mut records = read_jsonl::<T>(path);
    records.retain(keep);
    write_jsonl(path, &records).map_err(|e| ExperimentError::io("write", path, e))
}

/// Reads a `.jsonl` file of records: the last one per key wins, and a line
/// that does not parse (a cut last line) is ignored; in key order.
pub fn read_jsonl<T: serde::de::DeserializeOwned + Keyed>(path: &Path) -> Vec<T> {
    let Ok(text) = fs::read_to_string(path) else {
        return Vec::new();
    };
    let mut by_key = std::collections::BTreeMap::new();
    for r in text
        .lines()
        .filter_map(|l| serde_json::from_str::<T>(l).ok())
    {
        by_key.insert(r.key(), r);
    }
    by_key.into_values().collect()
}

/// Writes `profiles` as `tetris.jsonl` ([`write_jsonl`]).
pub fn write_profiles(path: &Path, profiles: &[Profile]) -> io::Result<()> {
    write_jsonl(path, profiles)
}

/// Reads `tetris.jsonl` ([`read_jsonl`]).
pub fn read_profiles(path: &Path) -> Vec<Profile> {
    read_jsonl(path)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::experiment::Config;
    use crate::solvers::Outcome;

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
                    final_pass_files()
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
    }

    /// A second run into a directory another one holds is refused, and
    /// changes nothing; once the first lets go, it runs.
    #[test]
    fn a_directory_in_use_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let (config, opts) = six_chains(dir.path(), "");
        let held = lock_dir(dir.path()).unwrap();
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
        let dir = tempfile::tempdir().unwrap();
        let (config, opts) = quiet_run(
            dir.path(),
            "solvers = [\"kahn\"]\n[graphs]\ngenerate = [{ spec = \"fork-join\", seeds = \"0..2\" }, \
             { spec = \"chain\", seeds = \"0..2\" }]\n",
        );
        let done = run_with(&config, &opts, registry_build).unwrap();
        let w: Vec<_> = done
            .warnings
            .iter()
            .filter(|w| w.contains("one graph under several names"))
            .collect();
        assert_eq!(w.len(), 1, "{:?}", done.warnings);
        assert!(
            w[0].contains("1 group(s)") && w[0].contains("fork-join#0 = fork-join#1"),
            "{}",
            w[0]
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
        let redo = RunOptions {
            redo: vec!["random".into()],
            ..opts.clone()
        };
        let again = run_with(&config, &redo, registry_build).unwrap();
        assert_eq!(again.ran, 12, "random on 6 graphs x 2 seeds");
        assert_eq!(again.resumed, first.items - 12);
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
    #[test]
    fn the_profiles_file_stays_clean_and_the_plot_follows_the_tetris_graph() {
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

    /// A damaged `shards.toml` stops a resume with a reason instead of
    /// being written over (it would forget the shards the rows came from).
    #[test]
    fn a_damaged_shards_file_is_an_error_not_a_fresh_start() {
        let dir = tempfile::tempdir().unwrap();
        let (config, opts) = six_chains(dir.path(), "");
        run_with(&config, &opts, registry_build).unwrap();
        let path = dir.path().join(SHARDS);
        fs::write(&path, "shards = [\"0/2\"\n").unwrap();
        let err = run_with(&config, &opts, registry_build)
            .unwrap_err()
            .to_string();
        assert!(err.contains("shards.toml is damaged"), "{err}");
        assert_eq!(fs::read_to_string(&path).unwrap(), "shards = [\"0/2\"\n");
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

    #[test]
    fn downsample_keeps_the_peak() {
        let mut mem: Vec<i64> = (0..10_000).map(|i| i % 7).collect();
        mem[5_555] = 100;
        let pts = downsample(&mem);
        assert!(pts.len() <= MAX_PROFILE_POINTS);
        assert!(pts.contains(&(5_556, 100)));
        assert_eq!(downsample(&[3, 4]), vec![(1, 3), (2, 4)]);
    }
}
