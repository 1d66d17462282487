//! `memsched merge`: joins the output directories of shards into one.
//!
//! Every directory must hold a `config.toml` (written by `memsched run`) of
//! the same experiment: the same `name`, and the same graphs, solvers,
//! baselines, seeds, time limit and budget; anything else is an error naming
//! the two directories. The presentation keys (description, plots,
//! `tetris_graph`, `tetris_solvers`, claims) are taken from the first directory. Rows are
//! united by (graph, solver, seed), the first directory winning a duplicate;
//! Tetris profiles likewise; then the final pass
//! ([`super::finish()`]) recomputes baselines, best known peaks and gaps over
//! the union and draws the plots. Items of the plan with no row (a shard left
//! out or interrupted) are reported in [`Finished::warnings`], with the
//! missing shards named from the directories' `shards.toml`. The graphs'
//! fingerprints (`fingerprints.toml`) are united too: two directories whose
//! rows were solved on different contents of one graph are refused.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

use super::config::Config;
use super::fingerprint::{self, Fingerprints};
use super::plan::{Plan, Shard};
use super::records::{
    read_jsonl_counting, write_jsonl, write_profiles, Keyed, Profile, SavedOrder,
};
use super::results_dir::{
    claim, in_use, read_shards_file, remove_final_pass, remove_if_present, write_shards,
    ShardsFile, ALL_SHARDS, CONFIG, FINGERPRINTS, LOCK, ORDERS, PROFILES, REJECTED, RUNS, SHARDS,
    SHARD_PLACEMENT,
};
use super::rows::{self, never_ran, Key};
use super::{ExperimentError, Finished};

/// Missing items listed by name in the warning.
const MISSING_SHOWN: usize = 5;

/// `p` with its spelling made one (`fs::canonicalize`), or as given when it
/// cannot be resolved: how directories given to a merge are compared.
fn real(p: &Path) -> PathBuf {
    fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf())
}

/// Refuses a directory given twice (by any spelling of its path): the rows
/// would not count twice (a duplicate keeps the first row), but the second
/// name is most likely a typo for a shard that is then left out.
fn check_distinct(dirs: &[PathBuf]) -> Result<(), ExperimentError> {
    let mut seen: Vec<(PathBuf, &PathBuf)> = Vec::new();
    for d in dirs {
        let resolved = real(d);
        if let Some((_, earlier)) = seen.iter().find(|(r, _)| *r == resolved) {
            return Err(ExperimentError::Options(format!(
                "{} and {} are the same directory: give each shard once",
                earlier.display(),
                d.display()
            )));
        }
        seen.push((resolved, d));
    }
    Ok(())
}

/// Refuses a merge into an `out` that is not one of the inputs and holds
/// rows the merge does not have: replacing its `runs.csv` would lose them
/// (merging one shard into a directory of complete results, say). Rows of
/// `out` whose graph could not be loaded do not count. Rows the inputs
/// hold from another solve (other time or peak: redone in `out`, or in an
/// input, since) are replaced by the inputs'; the warning returned says
/// how many, since old shards merged over redone rows bring old rows back.
fn check_nothing_lost(
    out: &Path,
    dirs: &[PathBuf],
    merged: &[rows::Row],
) -> Result<Option<String>, ExperimentError> {
    let runs = out.join(RUNS);
    let out_real = real(out);
    if !runs.is_file() || dirs.iter().any(|d| real(d) == out_real) {
        return Ok(None);
    }
    let solve = |r: &rows::Row| (r.time_ms.to_bits(), r.peak_bytes);
    let merged: BTreeMap<_, _> = merged.iter().map(|r| (r.key(), solve(r))).collect();
    let held = rows::read_rows_checked(&runs).map_err(|e| ExperimentError::io("read", &runs, e))?;
    if !held.rejected.is_empty() {
        return Err(ExperimentError::Directory(format!(
            "{} has {} line(s) that are not rows (edited by hand?), which the merge would \
             replace: repair them, give {} as an input too (its lines are kept in {REJECTED}), \
             or merge into another directory (--out)",
            runs.display(),
            held.rejected.len(),
            out.display()
        )));
    }
    let held: Vec<_> = held.rows.iter().filter(|r| !never_ran(r)).collect();
    let lost = held
        .iter()
        .filter(|r| !merged.contains_key(&r.key()))
        .count();
    if lost > 0 {
        return Err(ExperimentError::Directory(format!(
            "{} holds {lost} rows that none of the inputs has, and the merge would replace \
             them: give {} as an input too (its rows are kept), or merge into another \
             directory (--out)",
            runs.display(),
            out.display()
        )));
    }
    let replaced = held
        .iter()
        .filter(|r| merged.get(&r.key()) != Some(&solve(r)))
        .count();
    Ok((replaced > 0).then(|| {
        format!(
            "{replaced} rows of {} were replaced by the inputs' rows of the same solves, solved \
             at another time (redone since, in {} or in an input?): the inputs' rows are kept",
            runs.display(),
            out.display()
        )
    }))
}

/// What each solve's first row in the inputs says, to tell apart inputs
/// that disagree on a solve (one of them edited, or run on other code).
#[derive(Default)]
struct Outcomes {
    /// Per solve: the first input with a row of it, and what that row says.
    first: BTreeMap<Key, Sourced>,
    /// Inputs read so far.
    inputs: Vec<PathBuf>,
    /// Solves whose rows differ: their first input's outcome and the first
    /// that differs from it.
    conflicts: BTreeMap<Key, (Sourced, Sourced)>,
}

/// A row's checked peak and lower bound (not its status: the final pass
/// of a merged directory marks a refuted row `invalid`, keeping both).
type Outcome = (Option<u64>, Option<u64>);

/// An input (its index) and the [`Outcome`] of its row.
type Sourced = (usize, Outcome);

impl Outcomes {
    /// Notes the rows of input `dir` that ran.
    fn add(&mut self, dir: &Path, rows: &[rows::Row]) {
        let input = self.inputs.len();
        self.inputs.push(dir.to_path_buf());
        for r in rows.iter().filter(|r| !never_ran(r)) {
            let outcome = (r.peak_bytes, r.lower_bound_bytes);
            match self.first.get(&r.key()) {
                None => {
                    self.first.insert(r.key(), (input, outcome));
                }
                // One conflict per solve, against its first input.
                Some(&first) if first.1 != outcome => {
                    self.conflicts
                        .entry(r.key())
                        .or_insert((first, (input, outcome)));
                }
                Some(_) => {}
            }
        }
    }

    /// A warning counting the solves whose rows differ, with the first few.
    fn conflict_warning(&self) -> Option<String> {
        if self.conflicts.is_empty() {
            return None;
        }
        let show = |input: usize, (peak, bound): &Outcome| {
            let figure = |x: &Option<u64>| x.map_or("-".to_string(), |v| v.to_string());
            format!(
                "peak {}, bound {} in {}",
                figure(peak),
                figure(bound),
                self.inputs[input].display()
            )
        };
        let listed = crate::text::first_few(
            self.conflicts.iter(),
            3,
            |((g, s, seed), (a, b))| {
                format!(
                    "`{g}` / `{s}` / seed {seed}: {} against {}",
                    show(a.0, &a.1),
                    show(b.0, &b.1)
                )
            },
            |more| format!("{more} more"),
        );
        Some(format!(
            "{} solve(s) have rows that differ between the inputs in peak or bound (an input \
             edited or run on other code, or a solve a time limit cut short at another \
             point?); the first input's row is kept: {}",
            self.conflicts.len(),
            listed.join("; ")
        ))
    }
}

/// Merges `dirs` into `out` (which may be one of them): checks the
/// configs agree, reads every input, unites their rows, writes the
/// records and runs the final pass.
pub fn merge(dirs: &[PathBuf], out: &Path) -> Result<Finished, ExperimentError> {
    let first = dirs
        .first()
        .ok_or_else(|| ExperimentError::Options("merge needs at least one directory".into()))?;
    check_distinct(dirs)?;
    let config = load_config(first)?;
    for d in &dirs[1..] {
        let other = load_config(d)?;
        check_same_config(first, &config, d, &other)?;
    }
    // The merge replaces `out`'s rows: never those of another experiment.
    // An existing `out` is locked from before the inputs are read (`out`
    // may be one of them).
    let claim = claim(
        out,
        &config,
        Some("refusing to overwrite them: merge into another directory (--out)"),
    )?;
    let mut inputs = Inputs::read(dirs, out)?;
    let seen = unite_rows(&mut inputs.rows);
    inputs.damaged.extend(inputs.outcomes.conflict_warning());
    let replaced = check_nothing_lost(out, dirs, &inputs.rows)?;
    let files = dirs
        .iter()
        .enumerate()
        .filter(|(i, _)| !inputs.empty.contains(i))
        .map(|(_, d)| read_shards_file(d))
        .collect::<Result<Vec<_>, _>>()?;
    // Shards an older version placed hold other items than this one's.
    let older = files
        .iter()
        .flatten()
        .any(ShardsFile::placed_by_older_version);
    let shards: Vec<Option<Vec<String>>> = files.into_iter().map(|f| Some(f?.shards)).collect();
    let plan = Plan::new(&config);
    let (warnings, missing) = completeness(&config, &plan, &seen, &shards, older);
    let _lock = claim.create()?;
    let union: Vec<String> = shards.iter().flatten().flatten().cloned().collect();
    let unsaved = write_merged(out, &config, &mut inputs, union, older)?;
    // A merge that lacks items says so in its README, not only here.
    // (Only when the plan can be made here and some of its items have no
    // row: a config whose graph files are elsewhere cannot say.)
    let plan = plan.ok();
    let partial = plan.as_ref().filter(|_| missing > Some(0)).map(|plan| {
        format!(
            "this merge lacks {} of the experiment's {} solves, so a graph's \
             figures may lack those solvers' rows (merge the missing shards, or run them)",
            missing.unwrap_or(0),
            plan.items.len()
        )
    });
    let mut done = super::finish_with(out, &config, plan.as_ref(), partial.as_deref())
        .map_err(|e| e.in_final_pass(out, "run the merge again once that is fixed"))?;
    done.missing = missing;
    done.warnings.splice(
        0..0,
        warnings.into_iter().chain(replaced).chain(inputs.damaged),
    );
    if config.save_orders && unsaved > 0 {
        done.warnings.push(format!(
            "{unsaved} valid rows have no order in {ORDERS}: their input did not keep orders"
        ));
    }
    Ok(done)
}

/// What a merge read from its input directories.
#[derive(Default)]
struct Inputs<'a> {
    /// Every input's rows, in input order (duplicates not yet removed).
    rows: Vec<rows::Row>,
    /// Per solve, the first input's Tetris profile.
    profiles: BTreeMap<Key, Profile>,
    /// Per solve, the first input's saved order.
    orders: BTreeMap<Key, SavedOrder>,
    fingerprints: United<'a>,
    outcomes: Outcomes,
    /// Lines of the inputs' `runs.csv` that are not rows.
    rejected_lines: Vec<Vec<u8>>,
    /// Inputs without rows: a shard killed as it readied its directory,
    /// after `config.toml` and before `runs.csv` (or a `runs.csv` removed
    /// since). Merged as holding nothing, their shards absent.
    empty: BTreeSet<usize>,
    /// Warnings about inputs being written, damaged or empty.
    damaged: Vec<String>,
}

impl<'a> Inputs<'a> {
    /// Reads every directory of `dirs`; refuses when none has rows.
    fn read(dirs: &'a [PathBuf], out: &Path) -> Result<Self, ExperimentError> {
        let mut inputs = Inputs::default();
        let out_real = real(out);
        for (i, d) in dirs.iter().enumerate() {
            if real(d) != out_real && in_use(d) {
                inputs.damaged.push(format!(
                    "{} is being written by a `memsched run` or `merge` now (it holds {LOCK}): \
                     the merge has the rows written so far; merge again when it ends",
                    d.display()
                ));
            }
            if !inputs.read_one(d, out)? {
                inputs.empty.insert(i);
            }
        }
        if inputs.empty.len() == dirs.len() {
            return Err(ExperimentError::Directory(format!(
                "no directory to merge has a {RUNS}: there are no rows to merge"
            )));
        }
        for &i in &inputs.empty {
            inputs.damaged.push(format!(
                "{} has no {RUNS} (a run killed as it readied the directory, before its first \
                 solve?): it adds no rows, and its shards count as absent",
                dirs[i].display()
            ));
        }
        Ok(inputs)
    }

    /// Reads one input directory `d`: its rows, fingerprints, profiles and
    /// orders, warning about damaged lines. `false` when it has no
    /// `runs.csv`.
    fn read_one(&mut self, d: &'a Path, out: &Path) -> Result<bool, ExperimentError> {
        let runs = d.join(RUNS);
        match fs::symlink_metadata(&runs) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(false),
            Err(e) => return Err(ExperimentError::io("read", &runs, e)),
            Ok(_) if !runs.is_file() => {
                return Err(ExperimentError::Directory(format!(
                    "{} is not a file (or a link to one)",
                    runs.display()
                )))
            }
            Ok(_) => {}
        }
        let read =
            rows::read_rows_checked(&runs).map_err(|e| ExperimentError::io("read", &runs, e))?;
        read.refuse_if_mostly_rejected(
            &runs,
            "the merge would leave them out, so it stops here and changes nothing: repair the \
             file (was it saved by a spreadsheet?)",
        )?;
        let rows::ReadRows {
            rows,
            rejected,
            conflicting,
            ..
        } = read;
        if conflicting > 0 {
            self.damaged.push(format!(
                "{conflicting} row(s) of {} repeated a solve already in it with another \
                 status, peak or bound (joined or edited by hand?): each solve's first row \
                 there is the one merged (its first that ran, if the first could not load its \
                 graph)",
                runs.display()
            ));
        }
        if !rejected.is_empty() {
            self.damaged.push(format!(
                "{} line(s) of {} were not rows (edited by hand?): they are not merged, and \
                 are kept in {}",
                rejected.len(),
                runs.display(),
                out.join(REJECTED).display()
            ));
            self.rejected_lines.extend(rejected);
        }
        let graphs: BTreeSet<&str> = rows.iter().map(|r| r.graph.as_str()).collect();
        self.fingerprints.add(d, fingerprint::read(d)?, &graphs)?;
        self.outcomes.add(d, &rows);
        self.rows.extend(rows);
        // The first directory's profile of a solve, as for its row, and
        // its order, when the inputs kept them; damaged lines are counted.
        let (input_profiles, bad_profiles) = read_jsonl_counting::<Profile>(&d.join(PROFILES));
        for p in input_profiles {
            self.profiles.entry(p.key()).or_insert(p);
        }
        let (input_orders, bad_orders) = read_jsonl_counting::<SavedOrder>(&d.join(ORDERS));
        for o in input_orders {
            self.orders.entry(o.key()).or_insert(o);
        }
        for (file, n) in [(PROFILES, bad_profiles), (ORDERS, bad_orders)] {
            if n > 0 {
                self.damaged.push(format!(
                    "{n} line(s) of {} were not records (edited by hand?): they are not merged",
                    d.join(file).display()
                ));
            }
        }
        Ok(true)
    }
}

/// Keeps one row per solve: the first input's, except that a row of a
/// solve that ran beats one whose graph could not be loaded. Returns the
/// solves kept.
fn unite_rows(all: &mut Vec<rows::Row>) -> BTreeSet<Key> {
    let ran: BTreeSet<_> = all
        .iter()
        .filter(|r| !never_ran(r))
        .map(|r| r.key())
        .collect();
    all.retain(|r| !(never_ran(r) && ran.contains(&r.key())));
    let mut seen = BTreeSet::new();
    all.retain(|r| seen.insert(r.key()));
    seen
}

/// Writes the merged records into `out`, in an order that a merge stopped
/// at any point leaves resumable: config, rejected lines, rows, then
/// fingerprints, profiles, orders, and the shards last. Returns how many
/// valid rows have no saved order.
fn write_merged(
    out: &Path,
    config: &Config,
    inputs: &mut Inputs,
    shards: Vec<String>,
    older: bool,
) -> Result<usize, ExperimentError> {
    // The summaries of `out`'s earlier rows must not outlive a merge
    // stopped before its final pass writes them again.
    remove_final_pass(out)?;
    let path = out.join(CONFIG);
    crate::output::write_file(&path, |w| w.write_all(config.to_toml().as_bytes()))
        .map_err(|e| ExperimentError::io("write", &path, e))?;
    if !inputs.rejected_lines.is_empty() {
        let path = out.join(REJECTED);
        rows::append_lines(&path, &inputs.rejected_lines)
            .map_err(|e| ExperimentError::io("write", &path, e))?;
    }
    let path = out.join(RUNS);
    rows::write_rows(&path, &inputs.rows).map_err(|e| ExperimentError::io("write", &path, e))?;
    // After the rows: a merge stopped between the two leaves new rows under
    // old fingerprints, which a resume refuses, never old rows vouched for
    // by new ones, which it would take.
    fingerprint::write(out, &inputs.fingerprints.union())?;
    let path = out.join(PROFILES);
    let profiles: Vec<_> = std::mem::take(&mut inputs.profiles).into_values().collect();
    write_profiles(&path, &profiles).map_err(|e| ExperimentError::io("write", &path, e))?;
    // The orders of the merged valid rows only; an old file of `out`'s
    // that none of them replaces would describe other rows.
    let valid: BTreeSet<_> = inputs
        .rows
        .iter()
        .filter(|r| r.valid)
        .map(|r| r.key())
        .collect();
    let mut orders = std::mem::take(&mut inputs.orders);
    orders.retain(|key, _| valid.contains(key));
    let unsaved = valid.len() - orders.len();
    let path = out.join(ORDERS);
    if orders.is_empty() {
        remove_if_present(&path)?;
    } else {
        let orders: Vec<_> = orders.into_values().collect();
        write_jsonl(&path, &orders).map_err(|e| ExperimentError::io("write", &path, e))?;
    }
    // Last of the records: a merge stopped before it leaves `out`'s old
    // shards, which never claim rows it lacks.
    let path = out.join(SHARDS);
    let placement = if older { 0 } else { SHARD_PLACEMENT };
    write_shards(out, shards, placement).map_err(|e| ExperimentError::io("write", &path, e))?;
    Ok(unsaved)
}

/// The inputs' fingerprints united, each remembering the first directory
/// that recorded it.
#[derive(Default)]
struct United<'a> {
    by_graph: BTreeMap<String, (fingerprint::Fingerprint, &'a Path)>,
    /// Graphs with rows in an input that records no fingerprint for them
    /// (a directory of an older version): no fingerprint can vouch for
    /// those rows, so the union leaves the graph out.
    unvouched: BTreeSet<String>,
}

impl<'a> United<'a> {
    /// Adds `dir`'s fingerprints `own`, for the graphs its rows name
    /// (`graphs`); refuses one that another input records differently
    /// (their rows were solved on two versions of the graph).
    fn add(
        &mut self,
        dir: &'a Path,
        mut own: Fingerprints,
        graphs: &BTreeSet<&str>,
    ) -> Result<(), ExperimentError> {
        // An entry without rows (a run stopped before its first solve) vouches for nothing.
        own.retain(|name, _| graphs.contains(name.as_str()));
        for &name in graphs {
            if !own.contains_key(name) {
                self.unvouched.insert(name.to_string());
            }
        }
        for (name, fp) in own {
            match self.by_graph.get(&name) {
                Some(&(first, first_dir)) if first != fp => {
                    return Err(ExperimentError::Directory(format!(
                        "cannot merge {} and {}: their rows were solved on different \
                         contents of graph `{name}` (fingerprint {first} in the first's \
                         {FINGERPRINTS}, {fp} in the second's); in the directory solved on \
                         the old contents, solve the graph again (`memsched run CONFIG --out \
                         DIR --redo-graph {name}`, with its --shard), or start over (--fresh)",
                        first_dir.display(),
                        dir.display()
                    )))
                }
                Some(_) => {}
                None => {
                    self.by_graph.insert(name, (fp, dir));
                }
            }
        }
        Ok(())
    }

    /// Graph name -> fingerprint, for the graphs every input with rows of
    /// it vouches for.
    fn union(&self) -> Fingerprints {
        self.by_graph
            .iter()
            .filter(|(name, _)| !self.unvouched.contains(*name))
            .map(|(name, &(fp, _))| (name.clone(), fp))
            .collect()
    }
}

/// The config a results directory was made with (its `config.toml`).
fn load_config(dir: &Path) -> Result<Config, ExperimentError> {
    let path = dir.join(CONFIG);
    if !dir.exists() {
        return Err(ExperimentError::Directory(format!(
            "{} does not exist",
            dir.display()
        )));
    }
    if !path.is_file() {
        return Err(ExperimentError::Directory(format!(
            "{} has no {CONFIG}: not a results directory of `memsched run`",
            dir.display()
        )));
    }
    Config::load(&path).map_err(|e| ExperimentError::Config(e.to_string()))
}

/// Refuses to merge results of two experiments, or of two versions of one
/// experiment's config that define different work.
fn check_same_config(
    a_dir: &Path,
    a: &Config,
    b_dir: &Path,
    b: &Config,
) -> Result<(), ExperimentError> {
    if a.name != b.name {
        return Err(ExperimentError::Directory(format!(
            "cannot merge results of different experiments: {} holds experiment `{}` \
             and {} holds experiment `{}` (see their {CONFIG})",
            a_dir.display(),
            a.name,
            b_dir.display(),
            b.name
        )));
    }
    let differ = config_differences(a, b);
    if differ.is_empty() {
        return Ok(());
    }
    Err(ExperimentError::Directory(format!(
        "cannot merge {} and {}: both hold experiment `{}`, but from different configs \
         (they differ in {}; see their {CONFIG}); rerun the shards with one config",
        a_dir.display(),
        b_dir.display(),
        a.name,
        differ.join(", ")
    )))
}

/// The keys that define an experiment's work on which `a` and `b` differ
/// (`[graphs]` with its first differing entry).
fn config_differences(a: &Config, b: &Config) -> Vec<String> {
    let mut out = Vec::new();
    let (ga, gb) = (planned_graphs(&a.graphs), planned_graphs(&b.graphs));
    if ga != gb {
        let at = ga.iter().zip(&gb).take_while(|(x, y)| x == y).count();
        // An entry of a million seeds is shown by its start.
        let entry = |g: &[String]| {
            g.get(at)
                .map_or("nothing".into(), |e| match e.char_indices().nth(120) {
                    Some((cut, _)) => {
                        format!("`{}...` ({} characters)", &e[..cut], e.chars().count())
                    }
                    None => format!("`{e}`"),
                })
        };
        out.push(format!(
            "`[graphs]` (entry {at}, counted from 0: {} in one, {} in the other)",
            entry(&ga),
            entry(&gb)
        ));
    }
    for (differ, key) in [
        (a.solvers != b.solvers, "`solvers`"),
        (a.baselines != b.baselines, "`baselines`"),
        (a.seeds.expand().ok() != b.seeds.expand().ok(), "`seeds`"),
        (a.time_limit != b.time_limit, "`time_limit`"),
        (a.restarts != b.restarts, "`restarts`"),
        (a.budget != b.budget, "`[budget]`"),
    ] {
        if differ {
            out.push(key.to_string());
        }
    }
    out
}

/// `[graphs]` as the plan reads it, one entry per line of the config:
/// paths without `./` parts, generator specs as graph names spell them,
/// seeds expanded, and a generate entry's `family`. Two spellings of one
/// list of graphs give one list.
fn planned_graphs(g: &super::config::GraphsSection) -> Vec<String> {
    let path = |p: &String| {
        let clean: PathBuf = Path::new(p)
            .components()
            .filter(|c| !matches!(c, std::path::Component::CurDir))
            .collect();
        clean.display().to_string()
    };
    let files = g.files.iter().map(|f| format!("files: {}", path(f)));
    let globs = g.globs.iter().map(|f| format!("globs: {}", path(f)));
    let generated = g.generate.iter().enumerate().map(|(k, e)| {
        let spec = crate::corpus::gen::GenSpec::parse(&e.spec)
            .map_or_else(|_| e.spec.clone(), |s| s.to_string());
        let seeds = match e.seed_list(k) {
            Ok(list) => format!("{list:?}"),
            Err(_) => e.seeds.to_string(),
        };
        let family = e
            .family
            .as_ref()
            .map_or(String::new(), |f| format!(", family {f:?}"));
        format!("generate: {spec}, seeds {seeds}{family}")
    });
    files.chain(globs).chain(generated).collect()
}

/// Warnings about items of the plan without a row: how many, which shards
/// (from the inputs' `shards.toml`) are absent or incomplete, the first few
/// items; and how many items lack a row (`None` when `plan`, the config's,
/// could not be made here). `present` holds the merged rows' keys; `shards` each
/// input's `shards.toml` (`None` without one); `older` says some input's
/// shards were placed by an older version, so the items are not traced to
/// the shards that lack them.
fn completeness(
    config: &Config,
    plan: &Result<Plan, String>,
    present: &BTreeSet<Key>,
    shards: &[Option<Vec<String>>],
    older: bool,
) -> (Vec<String>, Option<usize>) {
    // With every input a shard of one count N: N and the shards present.
    let sharded: Option<(usize, BTreeSet<usize>)> = (|| {
        let mut count = None;
        let mut have = BTreeSet::new();
        for s in shards {
            for entry in s.as_ref()? {
                let shard: Shard = entry.parse().ok()?;
                if *count.get_or_insert(shard.count) != shard.count {
                    return None;
                }
                have.insert(shard.index);
            }
        }
        Some((count?, have))
    })();
    let absent: Vec<String> = match &sharded {
        Some((n, have)) => absent_shards(*n, have),
        None => Vec::new(),
    };
    let plan = match plan {
        Ok(plan) => plan,
        Err(e) => {
            let mut w = vec![format!(
                "cannot check that every item of `{}` has a row: {e}",
                config.name
            )];
            if !absent.is_empty() {
                w.push(format!(
                    "shard(s) {} of `{}` are not among the merged directories",
                    absent.join(", "),
                    config.name
                ));
            }
            return (w, None);
        }
    };
    let missing: Vec<_> = plan.items_without(present).collect();
    if missing.is_empty() {
        return (Vec::new(), Some(0));
    }
    let mut msg = format!(
        "partial merge: the rows cover {} of the {} items of experiment `{}` ({} missing)",
        plan.items.len() - missing.len(),
        plan.items.len(),
        config.name,
        missing.len()
    );
    if let Some((n, have)) = &sharded {
        if !absent.is_empty() {
            msg.push_str(&format!(
                "; shard(s) {} are not among the merged directories",
                absent.join(", ")
            ));
        }
        let mut short: BTreeMap<usize, usize> = BTreeMap::new();
        for it in missing.iter().filter(|_| !older) {
            let k = plan.shard_of(it, *n);
            if have.contains(&k) {
                *short.entry(k).or_default() += 1;
            }
        }
        if !short.is_empty() {
            let list: Vec<String> = short
                .iter()
                .map(|(k, m)| format!("{k}/{n} lacks {m}"))
                .collect();
            msg.push_str(&format!(
                "; incomplete shard(s) (interrupted? run them again to finish): {}",
                list.join(", ")
            ));
        }
    } else if let Some(absent) = absent_by_count(shards) {
        msg.push_str(&format!(
            "; the inputs are shards of different counts, which split the items differently: \
             merging every shard of any one count covers them (absent: {})",
            absent.join("; ")
        ));
    } else if shards.iter().any(|s| {
        s.as_ref()
            .is_some_and(|v| v.iter().any(|e| e == ALL_SHARDS))
    }) {
        msg.push_str(
            "; an unsharded input is incomplete (interrupted, or items added to its config \
             and run with --shard? run it again without --shard to finish)",
        );
    }
    let first = crate::text::first_few(
        missing.iter(),
        MISSING_SHOWN,
        |it| {
            let (g, s, seed) = plan.key(it);
            format!("item {} (`{g}` / `{s}` / seed {seed})", it.id)
        },
        |_| "...".to_string(),
    );
    msg.push_str(&format!("; first missing: {}", first.join(", ")));
    (vec![msg], Some(missing.len()))
}

/// The shards `K/n` of count `n` whose index is not in `have`.
fn absent_shards(n: usize, have: &BTreeSet<usize>) -> Vec<String> {
    (0..n)
        .filter(|k| !have.contains(k))
        .map(|k| format!("{k}/{n}"))
        .collect()
}

/// When the inputs are shards of more than one count: per count `N`, the
/// shards of it not among them (`of /2: 0/2`); `None` otherwise.
fn absent_by_count(shards: &[Option<Vec<String>>]) -> Option<Vec<String>> {
    let mut by_count: BTreeMap<usize, BTreeSet<usize>> = BTreeMap::new();
    for entry in shards.iter().flatten().flatten() {
        if let Ok(shard) = entry.parse::<Shard>() {
            by_count.entry(shard.count).or_default().insert(shard.index);
        }
    }
    (by_count.len() > 1).then(|| {
        (by_count.iter())
            .map(|(n, have)| {
                let absent = absent_shards(*n, have);
                match absent.is_empty() {
                    true => format!("of /{n}: none"),
                    false => format!("of /{n}: {}", absent.join(", ")),
                }
            })
            .collect()
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::experiment::rows::RowStatus;

    #[test]
    fn shards_of_several_counts_are_named_by_count() {
        let shards = |list: &[&[&str]]| -> Vec<Option<Vec<String>>> {
            (list.iter())
                .map(|s| Some(s.iter().map(|e| e.to_string()).collect()))
                .collect()
        };
        assert_eq!(
            absent_by_count(&shards(&[&["1/2"], &["0/3"], &["1/3"]])),
            Some(vec!["of /2: 0/2".to_string(), "of /3: 2/3".to_string()])
        );
        assert_eq!(
            absent_by_count(&shards(&[&["0/2", "1/2"], &["0/3"]])),
            Some(vec![
                "of /2: none".to_string(),
                "of /3: 1/3, 2/3".to_string()
            ])
        );
        assert_eq!(absent_by_count(&shards(&[&["0/3"], &["1/3"]])), None);
        assert_eq!(absent_by_count(&shards(&[&["all"], &["0/3"]])), None);
    }

    fn config(text: &str) -> Config {
        Config::parse(text, "t.toml", "t").unwrap()
    }

    const BASE: &str =
        "solvers = [\"kahn\"]\n[graphs]\ngenerate = [{ spec = \"chain\", seeds = \"0..3\" }]\n";

    /// A missing input is named as missing, not as a directory without
    /// a config.
    #[test]
    fn a_missing_input_is_named() {
        let tmp = tempfile::tempdir().unwrap();
        let missing = tmp.path().join("nowhere");
        let err = merge(std::slice::from_ref(&missing), &tmp.path().join("m"))
            .unwrap_err()
            .to_string();
        assert!(
            err.contains(&format!("{} does not exist", missing.display())),
            "{err}"
        );
    }

    #[test]
    fn configs_differing_in_work_are_named() {
        let a = config(BASE);
        let b = config(&format!("description = \"other words\"\n{BASE}"));
        assert!(config_differences(&a, &b).is_empty(), "presentation only");
        let b = config(&BASE.replace("\"kahn\"", "\"kahn\", \"seed-greedy\""));
        assert_eq!(config_differences(&a, &b), vec!["`solvers`"]);
        // `[graphs]` compares as planned: spellings of one graph list are
        // one; a real difference is shown.
        let graphs = |entries: &str| config(&format!("solvers = [\"kahn\"]\n[graphs]\n{entries}"));
        let a = graphs(
            "files = [\"d/g.json\"]\ngenerate = [{ spec = \"chain:length=10\", seeds = \"0..3\" }]",
        );
        let b = graphs("files = [\"./d/g.json\"]\ngenerate = [{ spec = \"chain: length = +010\", seeds = [0, 1, 2] }]");
        assert!(config_differences(&a, &b).is_empty());
        let b = graphs(
            "files = [\"d/g.json\"]\ngenerate = [{ spec = \"chain:length=11\", seeds = \"0..3\" }]",
        );
        assert_eq!(
            config_differences(&a, &b),
            ["`[graphs]` (entry 1, counted from 0: `generate: chain:length=10, seeds [0, 1, 2]` \
              in one, `generate: chain:length=11, seeds [0, 1, 2]` in the other)"]
        );
        let b = config(&format!("name = \"other\"\n{BASE}"));
        let err = check_same_config(Path::new("A"), &a, Path::new("B"), &b)
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("`t`") && err.contains("`other`") && err.contains("A"),
            "{err}"
        );
    }

    #[test]
    fn a_missing_shard_is_named() {
        let c = config(BASE);
        let made = Plan::new(&c);
        let plan = made.as_ref().unwrap();
        // program and kahn on 3 graphs: 6 items, some in each shard.
        let present: BTreeSet<_> = plan
            .shard_items(Some("0/2".parse().unwrap()))
            .iter()
            .map(|it| plan.key(it))
            .collect();
        assert!((1..6).contains(&present.len()), "both shards hold items");
        let (w, missing) = completeness(&c, &made, &present, &[Some(vec!["0/2".into()])], false);
        assert_eq!(w.len(), 1);
        assert_eq!(missing, Some(6 - present.len()));
        let covered = format!("{} of the 6 items", present.len());
        assert!(
            w[0].contains(&covered) && w[0].contains("shard(s) 1/2"),
            "{}",
            w[0]
        );
        let first = plan.shard_items(Some("1/2".parse().unwrap()))[0];
        let (graph, solver, seed) = plan.key(&first);
        let named = format!("item {} (`{graph}` / `{solver}` / seed {seed})", first.id);
        assert!(w[0].contains(&named), "{named}: {}", w[0]);
        // Both shards, one of them interrupted.
        let both = [Some(vec!["0/2".into()]), Some(vec!["1/2".into()])];
        let all: BTreeSet<_> = plan.items.iter().map(|it| plan.key(it)).collect();
        assert_eq!(
            completeness(&c, &made, &all, &both, false),
            (Vec::new(), Some(0))
        );
        let lost = plan.shard_items(Some("0/2".parse().unwrap()))[1];
        let (w, missing) = completeness(
            &c,
            &made,
            &(&all - &BTreeSet::from([plan.key(&lost)])),
            &both,
            false,
        );
        assert_eq!(missing, Some(1));
        assert!(
            w[0].contains("0/2 lacks 1") && !w[0].contains("not among"),
            "{}",
            w[0]
        );
    }

    /// Runs `config(BASE)` quietly into `dir`, as shard `shard` if given.
    fn run_base(dir: &Path, shard: Option<&str>) {
        let opts = super::super::RunOptions {
            out: dir.to_path_buf(),
            quiet: true,
            shard: shard.map(|k| k.parse().unwrap()),
            ..Default::default()
        };
        super::super::run(&config(BASE), &opts).unwrap();
    }

    /// Merging one shard into a directory of complete results is refused
    /// (it would replace rows the shard lacks), with nothing written; the
    /// same merge with the directory among the inputs keeps every row, and
    /// a merge that has every row of `out` may replace it.
    #[test]
    fn a_merge_that_would_lose_rows_of_out_is_refused() {
        let tmp = tempfile::tempdir().unwrap();
        let (full, shard) = (tmp.path().join("full"), tmp.path().join("s0"));
        run_base(&full, None);
        run_base(&shard, Some("0/2"));
        // A shard's README says it holds part of the experiment; the full
        // run's does not.
        let readme = |d: &Path| fs::read_to_string(d.join("README.md")).unwrap();
        assert!(readme(&shard).contains("**Partial results**: this directory holds"));
        assert!(!readme(&full).contains("Partial results"));
        // So does a merge of that shard alone.
        let alone = tmp.path().join("alone");
        merge(std::slice::from_ref(&shard), &alone).unwrap();
        assert!(readme(&alone).contains("**Partial results**: this merge lacks"));
        // Both shards run into one directory complete it: no banner.
        let both = tmp.path().join("both");
        for k in ["0/2", "1/2"] {
            run_base(&both, Some(k));
        }
        assert!(!readme(&both).contains("Partial results"));
        let before = fs::read(full.join(RUNS)).unwrap();
        let err = merge(std::slice::from_ref(&shard), &full)
            .unwrap_err()
            .to_string();
        assert!(err.contains("rows that none of the inputs has"), "{err}");
        assert_eq!(fs::read(full.join(RUNS)).unwrap(), before);
        merge(&[shard.clone(), full.clone()], &full).unwrap();
        let n = rows::read_rows(&full.join(RUNS)).unwrap().len();
        assert_eq!(n, before.iter().filter(|&&b| b == b'\n').count() - 1);
        let copy = tmp.path().join("copy");
        merge(std::slice::from_ref(&full), &copy).unwrap();
        merge(std::slice::from_ref(&full), &copy).unwrap();
        // A row of `copy` solved again since (as by `run --redo`): the
        // input's row replaces it, with a warning.
        let runs = copy.join(RUNS);
        let mut rows = rows::read_rows(&runs).unwrap();
        rows[0].time_ms += 1.0;
        rows::write_rows(&runs, &rows).unwrap();
        let done = merge(std::slice::from_ref(&full), &copy).unwrap();
        assert!(
            done.warnings
                .iter()
                .any(|w| w.starts_with("1 rows of ") && w.contains("replaced")),
            "{:?}",
            done.warnings
        );
    }

    /// A shard stopped before it made `runs.csv` (killed while its graphs
    /// loaded) adds no rows: the merge of the others goes on, partial, and
    /// says so; with no rows anywhere it is refused.
    #[test]
    fn a_shard_without_rows_merges_as_absent() {
        let tmp = tempfile::tempdir().unwrap();
        let (s0, s1, m) = (
            tmp.path().join("s0"),
            tmp.path().join("s1"),
            tmp.path().join("m"),
        );
        run_base(&s0, Some("0/2"));
        run_base(&s1, Some("1/2"));
        fs::remove_file(s0.join(RUNS)).unwrap();
        // A dangling link is an error, not an absent file.
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink(tmp.path().join("gone.csv"), s0.join(RUNS)).unwrap();
            let err = merge(&[s0.clone(), s1.clone()], &tmp.path().join("dangling"))
                .unwrap_err()
                .to_string();
            assert!(err.contains("is not a file (or a link to one)"), "{err}");
            fs::remove_file(s0.join(RUNS)).unwrap();
        }
        let done = merge(&[s0.clone(), s1.clone()], &m).unwrap();
        let said = |what: &str| done.warnings.iter().any(|w| w.contains(what));
        assert!(said("has no runs.csv"), "{:?}", done.warnings);
        assert!(said("shard(s) 0/2 are not among"), "{:?}", done.warnings);
        assert!(done.missing > Some(0));
        let shards = fs::read_to_string(m.join(SHARDS)).unwrap();
        assert!(
            shards.contains("1/2") && !shards.contains("0/2"),
            "{shards}"
        );
        fs::remove_file(s1.join(RUNS)).unwrap();
        let err = merge(&[s0, s1], &tmp.path().join("none"))
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("no directory to merge has a runs.csv"),
            "{err}"
        );
    }

    /// An input whose `runs.csv` repeats a solve with another peak (joined
    /// by hand) is merged with its first row, and a warning says so.
    #[test]
    fn an_input_repeating_a_solve_is_named() {
        let tmp = tempfile::tempdir().unwrap();
        let (a, m) = (tmp.path().join("a"), tmp.path().join("m"));
        run_base(&a, None);
        let runs = a.join(RUNS);
        let mut rows = rows::read_rows(&runs).unwrap();
        let mut repeat = rows[0].clone();
        repeat.peak_bytes = repeat.peak_bytes.map(|p| p + 1);
        rows.push(repeat);
        rows::write_rows(&runs, &rows).unwrap();
        let done = merge(std::slice::from_ref(&a), &m).unwrap();
        assert!(
            done.warnings
                .iter()
                .any(|w| w.starts_with("1 row(s) of ") && w.contains("repeated a solve")),
            "{:?}",
            done.warnings
        );
        assert_eq!(
            rows::read_rows(&m.join(RUNS)).unwrap(),
            rows[..rows.len() - 1]
        );
    }

    /// Of two rows of one solve, one that ran beats one whose graph could
    /// not be loaded, whichever directory comes first.
    #[test]
    fn a_row_that_ran_beats_one_that_could_not_load() {
        let tmp = tempfile::tempdir().unwrap();
        let (a, b, m) = (
            tmp.path().join("a"),
            tmp.path().join("b"),
            tmp.path().join("m"),
        );
        for d in [&a, &b] {
            run_base(d, None);
        }
        let runs = a.join(RUNS);
        let mut rows = rows::read_rows(&runs).unwrap();
        rows[0].status = RowStatus::Failed;
        rows[0].valid = false;
        rows[0].peak_bytes = None;
        rows[0].reason = "cannot load graph: it changed during the run".into();
        let key = rows[0].key();
        rows::write_rows(&runs, &rows).unwrap();
        merge(&[a, b], &m).unwrap();
        let merged = rows::read_rows(&m.join(RUNS)).unwrap();
        let row = merged.iter().find(|r| r.key() == key).unwrap();
        assert!(row.valid && !never_ran(row), "{row:?}");
        assert_eq!(merged.len(), rows.len());
    }

    /// Inputs whose rows of one solve differ (one edited, or run on other
    /// code) are named in a warning; the first input's row is kept.
    #[test]
    fn rows_that_differ_between_inputs_are_named() {
        let tmp = tempfile::tempdir().unwrap();
        let (a, b, m) = (
            tmp.path().join("a"),
            tmp.path().join("b"),
            tmp.path().join("m"),
        );
        for d in [&a, &b] {
            run_base(d, None);
        }
        let same = merge(&[a.clone(), b.clone()], &m).unwrap();
        assert!(
            !same.warnings.iter().any(|w| w.contains("differ")),
            "{:?}",
            same.warnings
        );
        let text_before_b = fs::read_to_string(b.join(RUNS)).unwrap();
        // An input a run holds is named as one still being written.
        let held = fs::File::open(b.join(LOCK)).unwrap();
        held.lock().unwrap();
        let busy = merge(&[a.clone(), b.clone()], &tmp.path().join("m1")).unwrap();
        assert!(
            busy.warnings
                .iter()
                .any(|w| w.contains("is being written by a `memsched run` or `merge` now")),
            "{:?}",
            busy.warnings
        );
        drop(held);
        // A line of an input that is not a row is kept in the output's
        // rejected file, not lost.
        let runs_b = b.join(RUNS);
        let mut text = fs::read_to_string(&runs_b).unwrap();
        text.push_str("not,a,row\n");
        fs::write(&runs_b, text).unwrap();
        let kept = merge(&[a.clone(), b.clone()], &tmp.path().join("m3")).unwrap();
        assert!(
            kept.warnings
                .iter()
                .any(|w| w.contains("1 line(s) of") && w.contains(REJECTED)),
            "{:?}",
            kept.warnings
        );
        let rejected = fs::read_to_string(tmp.path().join("m3").join(REJECTED)).unwrap();
        assert!(rejected.ends_with("not,a,row\n"), "{rejected}");
        // Merged again: the line is not added twice.
        merge(&[a.clone(), b.clone()], &tmp.path().join("m3")).unwrap();
        let again = fs::read_to_string(tmp.path().join("m3").join(REJECTED)).unwrap();
        assert_eq!(again, rejected);
        // An output with such a line of its own is refused, not replaced.
        let m3_runs = tmp.path().join("m3").join(RUNS);
        let mut text = fs::read_to_string(&m3_runs).unwrap();
        text.push_str("not,a,row\n");
        fs::write(&m3_runs, &text).unwrap();
        let err = merge(&[a.clone(), b.clone()], &tmp.path().join("m3")).unwrap_err();
        assert!(
            err.to_string().contains("line(s) that are not rows"),
            "{err}"
        );
        assert_eq!(fs::read_to_string(&m3_runs).unwrap(), text);
        fs::write(&runs_b, text_before_b).unwrap();
        let runs = b.join(RUNS);
        let mut rows = rows::read_rows(&runs).unwrap();
        let (key, peak) = (rows[0].key(), rows[0].peak_bytes);
        rows[0].peak_bytes = peak.map(|p| p + 1);
        rows::write_rows(&runs, &rows).unwrap();
        let done = merge(&[a, b], &tmp.path().join("m2")).unwrap();
        let w = done
            .warnings
            .iter()
            .find(|w| w.contains("differ between the inputs"))
            .expect("a warning");
        assert!(
            w.starts_with("1 solve(s)") && w.contains(&format!("`{}`", key.0)),
            "{w}"
        );
        let merged = rows::read_rows(&tmp.path().join("m2").join(RUNS)).unwrap();
        let row = merged.iter().find(|r| r.key() == key).unwrap();
        assert_eq!(row.peak_bytes, peak, "the first input's row");
    }

    /// A merge with a shard an older version placed keeps that placement in
    /// its `shards.toml` (so resuming the merge as a shard is refused) and
    /// does not trace missing items to shards it cannot tell.
    #[test]
    fn shards_of_an_older_placement_stay_marked() {
        let tmp = tempfile::tempdir().unwrap();
        let c = config(BASE);
        let (a, m) = (tmp.path().join("a"), tmp.path().join("m"));
        let opts = super::super::RunOptions {
            out: a.clone(),
            quiet: true,
            shard: Some("0/2".parse().unwrap()),
            ..Default::default()
        };
        super::super::run(&c, &opts).unwrap();
        fs::write(a.join(SHARDS), "shards = [\"0/2\"]\n").unwrap();
        // One of its rows lost: by this version's placement, shard 0/2
        // would be named as lacking it.
        let runs = a.join(RUNS);
        let rows = rows::read_rows(&runs).unwrap();
        rows::write_rows(&runs, &rows[1..]).unwrap();
        let done = merge(&[a], &m).unwrap();
        assert!(done.warnings.iter().any(|w| w.contains("partial merge")));
        let text = fs::read_to_string(m.join(SHARDS)).unwrap();
        assert!(text.contains("placement = 0"), "{text}");
        assert!(read_shards_file(&m)
            .unwrap()
            .is_some_and(|f| f.placed_by_older_version()));
        assert!(
            done.warnings
                .iter()
                .all(|w| !w.contains("incomplete shard")),
            "{:?}",
            done.warnings
        );
    }
}
