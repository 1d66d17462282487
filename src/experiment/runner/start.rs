//! What a results directory already holds when a run starts (the rows it
//! resumes, the items left to solve), and getting it ready for the solves.

use std::collections::BTreeSet;
use std::io::Write;
use std::path::Path;

use super::sink::RecordPaths;
use super::RunOptions;
use crate::experiment::config::Config;
use crate::experiment::fingerprint::{self, Fingerprints};
use crate::experiment::plan::{Item, Plan};
use crate::experiment::records::{
    read_jsonl_counting, rewrite_jsonl, write_jsonl, Keyed, Profile, SavedOrder,
};
use crate::experiment::results_dir::{
    check_shard_placement, read_shards_file, remove_final_pass, remove_if_present, write_shards,
    ShardsFile, ALL_SHARDS, CONFIG, ORDERS, PROFILES, REJECTED, RUNS, SHARDS, SHARD_PLACEMENT,
};
use crate::experiment::resume::{
    check_same_settings, recorded_config_text, redo_graphs, redo_solvers,
};
use crate::experiment::rows::{self, never_ran, Key, Row};
use crate::experiment::ExperimentError;

/// The README's opening note when the directory, once the pending items
/// are solved, still lacks rows of the plan (a shard's): `None` when every
/// item has one, whichever runs wrote them (shards run into one directory
/// complete it).
pub(super) fn partial_note(plan: &Plan, start: &Start) -> Option<String> {
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
pub(super) struct Start {
    /// This run's items (its shard's, or all).
    pub(super) items: Vec<Item>,
    /// Their keys.
    pub(super) ours: BTreeSet<Key>,
    /// Rows of earlier runs that stay, with item ids of this plan.
    pub(super) existing: Vec<Row>,
    /// Complete lines of `runs.csv` that were not rows, as CSV lines.
    pub(super) rejected: Vec<Vec<u8>>,
    /// Rows dropped as repeats of a solve with another outcome.
    pub(super) conflicting: usize,
    /// Whether `runs.csv` ended in a cut line, dropped.
    pub(super) cut: bool,
    /// Keys of the rows `--redo` discards.
    pub(super) redone: BTreeSet<Key>,
    /// Rows of `runs.csv` that `--fresh` discards.
    pub(super) discarded: usize,
    /// `shards.toml` as it was.
    shards_file: Option<ShardsFile>,
    /// This run's items without a row.
    pub(super) pending: Vec<Item>,
}

impl Start {
    /// Reads the rows already in the directory and checks that they may be
    /// resumed (the same settings, the same shard placement); nothing is
    /// written.
    pub(super) fn read(
        plan: &Plan,
        config: &Config,
        opts: &RunOptions,
    ) -> Result<Start, ExperimentError> {
        let out = &opts.out;
        let runs_path = out.join(RUNS);
        // `--fresh` reads the rows only to count what it discards (a file
        // it cannot read is no reason to refuse discarding it).
        let (read, discarded) = if opts.fresh {
            let rows = rows::read_rows(&runs_path).map_or(0, |rows| rows.len());
            (rows::ReadRows::default(), rows)
        } else {
            let read = rows::read_rows_checked(&runs_path)
                .map_err(|e| ExperimentError::io("read", &runs_path, e))?;
            (read, 0)
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
            cut,
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
        // ... and their graph's family: a label the config may change.
        let families: std::collections::BTreeMap<&str, &str> = (plan.graphs.iter())
            .map(|g| (g.name.as_str(), g.family.as_str()))
            .collect();
        for r in &mut existing {
            if let Some(&id) = ids.get(&r.key()) {
                r.item = id;
            }
            if let Some(&family) = families.get(r.graph.as_str()) {
                if r.family != family {
                    r.family = family.to_string();
                }
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
            cut,
            redone,
            discarded,
            shards_file,
            pending,
        })
    }
}

/// What [`prepare_dir`] found in the record files, for the warnings.
#[derive(Default)]
pub(super) struct Prepared {
    /// Valid rows kept without an order while `save_orders` is on.
    pub(super) unsaved: usize,
    /// Warnings about damaged lines of `tetris.jsonl` and `orders.jsonl`.
    pub(super) damaged: Vec<String>,
}

/// Readies the (locked) directory for the solves: removes what `--fresh`
/// discards and the summaries the solves will outdate, rewrites `runs.csv`
/// with the rows that stay and the record files with their profiles and
/// orders, then writes the config, `shards.toml` and the fingerprints.
///
/// In that order, so that a run killed part-way leaves no discarded row
/// beside the settings or fingerprints of this run (a resume would take
/// it as current), and no row without the records it had (records left
/// without their row go at the next run's rewrite). Settings and
/// fingerprints describe rows only (a directory without rows is checked
/// against nothing), so the old ones left beside fewer rows are harmless.
/// `runs.csv` always stands beside `config.toml` (`--fresh` empties it, a
/// new directory's is written last), so the directory stays recognisably
/// a results directory, even with a damaged `config.toml`.
pub(super) fn prepare_dir(
    config: &Config,
    opts: &RunOptions,
    start: &Start,
    mut fingerprints: Fingerprints,
    loaded: Fingerprints,
    tetris: Option<usize>,
) -> Result<Prepared, ExperimentError> {
    let out = &opts.out;
    let paths = RecordPaths::new(out);
    // The summaries of an earlier pass would describe rows this run
    // discards or adds to: an interrupted run must not leave them looking
    // current. The final pass writes them again.
    if opts.fresh || !start.pending.is_empty() {
        remove_final_pass(out)?;
    }
    // Lines that were not rows are kept aside, not lost with the rewrite.
    if !start.rejected.is_empty() {
        let path = out.join(REJECTED);
        rows::append_lines(&path, &start.rejected)
            .map_err(|e| ExperimentError::io("write", &path, e))?;
    }
    killed_after("discard")?;
    // Rewrite the rows that survived (appends then start on a clean line);
    // `--fresh` keeps none, and keeps the file (with its header, it marks
    // the directory as ours beside a damaged `config.toml`).
    let write_rows = || {
        rows::write_rows(&paths.runs, &start.existing)
            .map_err(|e| ExperimentError::io("write", &paths.runs, e))
    };
    let new_dir = !paths.runs.exists();
    if !new_dir {
        write_rows()?;
    }
    killed_after("rows")?;
    let records = match opts.fresh {
        true => {
            for p in [&paths.profiles, &paths.orders, &out.join(SHARDS)] {
                remove_if_present(p)?;
            }
            Prepared::default()
        }
        false => rewrite_records(config, start, &paths, tetris)?,
    };
    killed_after("records")?;
    let config_path = out.join(CONFIG);
    let text = recorded_config_text(&config_path, config);
    crate::output::write_file(&config_path, |w| w.write_all(text.as_bytes()))
        .map_err(|e| ExperimentError::io("write", &config_path, e))?;
    killed_after("config")?;
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
    killed_after("shards")?;
    // Graphs not loaded now (no pending items) keep their old entry; a run
    // that loads nothing (everything done) leaves the file as it was.
    if !loaded.is_empty() || opts.fresh {
        fingerprints.extend(loaded);
        fingerprint::write(out, &fingerprints)?;
    }
    killed_after("fingerprints")?;
    if new_dir {
        write_rows()?;
    }
    Ok(records)
}

/// The points of [`prepare_dir`] after which a test can end it as a kill
/// would (see [`KILL_AFTER`]), in the order it passes them.
#[cfg(test)]
pub(super) const KILL_POINTS: [&str; 6] = [
    "discard",
    "rows",
    "records",
    "config",
    "shards",
    "fingerprints",
];

#[cfg(test)]
thread_local! {
    /// The point of [`KILL_POINTS`] at which this thread's calls of
    /// [`prepare_dir`] end, with an error and nothing more written, until
    /// it is set back to `None`.
    pub(super) static KILL_AFTER: std::cell::Cell<Option<&'static str>> =
        const { std::cell::Cell::new(None) };
}

/// Ends [`prepare_dir`] after `point` when a test asks it to; nothing in
/// a build without tests.
fn killed_after(point: &'static str) -> Result<(), ExperimentError> {
    #[cfg(test)]
    if KILL_AFTER.get() == Some(point) {
        return Err(ExperimentError::Directory(format!("killed after {point}")));
    }
    let _ = point;
    Ok(())
}

/// Rewrites `tetris.jsonl` and `orders.jsonl` without the records of the
/// solves done again (and, with `save_orders`, keeps only the orders of
/// rows that stay), after `runs.csv` lost those rows.
fn rewrite_records(
    config: &Config,
    start: &Start,
    paths: &RecordPaths,
    tetris: Option<usize>,
) -> Result<Prepared, ExperimentError> {
    // A record is stale when no row kept has its key: `--redo` discarded
    // the row, or a run killed after `runs.csv` lost the row and before
    // this rewrite. Its solve, if this run has it, runs again.
    let kept: BTreeSet<Key> = start.existing.iter().map(Row::key).collect();
    let stale = |key: Key| !kept.contains(&key);
    // The profiles (the final pass picks the Tetris graph's), less the
    // stale ones; rewritten whenever the Tetris plot reads them. Each
    // record file's damaged lines (count, and whether the rewrite dropped
    // them) go into a warning.
    let profiles_damaged =
        rewrite_jsonl::<Profile>(&paths.profiles, tetris.is_some(), |p| stale(p.key()))?;
    // Stale orders go whatever `save_orders` says: an order from before a
    // fix must not be served as the solver's. Valid rows of earlier runs
    // whose order was not kept (`save_orders` turned on since) are named
    // in a warning at the end.
    let (unsaved, orders_damaged) = if config.save_orders {
        let (unsaved, damaged) =
            keep_orders_of_valid_rows(&paths.orders, &start.existing, &start.ours)?;
        (unsaved, (damaged, true))
    } else {
        (
            0,
            rewrite_jsonl::<SavedOrder>(&paths.orders, false, |o| stale(o.key()))?,
        )
    };
    Ok(Prepared {
        unsaved,
        damaged: damaged_record_warnings(profiles_damaged, orders_damaged),
    })
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
