use super::solve::SolveInputs;
use super::*;
use crate::experiment::plan::{GraphEntry, GraphSource, Item};
use crate::experiment::records::{Keyed, Profile, SavedOrder};
use crate::experiment::results_dir::{
    read_shards_file, ALL_SHARDS, CONFIG, PROFILES, REJECTED, SHARDS,
};
use crate::experiment::rows::{never_ran, Row, RowStatus, CANNOT_LOAD};
use crate::experiment::Config;
use crate::graph::Graph;
use crate::solvers::{Outcome, Scheduler};
use std::fs;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

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
    store.set_fingerprint(0, started);
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
    assert!(summary.untouched);
    assert!(!out.exists());
    // Into a finished directory with `fresh`: nothing is discarded yet.
    let stop = opts.stop.take();
    let done = run_with(&config, &opts, registry_build).unwrap();
    assert!(!done.untouched);
    let before = fs::read(out.join(RUNS)).unwrap();
    opts.stop = stop;
    opts.fresh = true;
    let summary = run_with(&config, &opts, registry_build).unwrap();
    assert!(summary.untouched && summary.discarded == 0, "{summary:?}");
    assert_eq!(fs::read(out.join(RUNS)).unwrap(), before);
}

/// A config changed in code is checked as a parsed one is, before
/// anything is written: a negative time limit would run without one.
#[test]
fn a_config_changed_in_code_is_checked() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let (mut config, opts) = six_chains(&out, "");
    config.time_limit = -1.0;
    let err = run(&config, &opts).unwrap_err();
    assert!(matches!(err, ExperimentError::Config(_)), "{err:?}");
    let err = err.to_string();
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

/// A config built with [`Config::new`], its names spelt loosely, runs as
/// the same config parsed from a file: the same rows, the same recorded
/// config, and its baseline (`" program"` as given) is each graph's.
#[test]
fn a_config_built_in_code_runs_as_the_parsed_one() {
    let dir = tempfile::tempdir().unwrap();
    let mut built = Config::new("t", ["kahn", "rule: delta , type, id "]);
    built.baselines = vec![" program".into()];
    built
        .graphs
        .generate
        .push(crate::experiment::config::GenerateEntry {
            spec: "chain:length=3".into(),
            seeds: crate::experiment::Seeds::Range("0..3".into()),
            family: None,
        });
    let (parsed, opts) = quiet_run(
        &dir.path().join("parsed"),
        "solvers = [\"kahn\", \"rule:delta,type,id\"]\n[graphs]\n\
         generate = [{ spec = \"chain:length=3\", seeds = \"0..3\" }]\n",
    );
    run(&parsed, &opts).unwrap();
    let code = RunOptions {
        out: dir.path().join("code"),
        ..opts.clone()
    };
    run(&built, &code).unwrap();
    let rows = |opts: &RunOptions| {
        let mut rows = rows::read_rows(&opts.out.join(RUNS)).unwrap();
        for r in &mut rows {
            r.time_ms = 0.0;
        }
        rows
    };
    let (a, b) = (rows(&opts), rows(&code));
    assert_eq!(a.len(), 9);
    assert_eq!(a, b);
    assert!(b.iter().all(|r| r.baseline == "program"), "{b:?}");
    let config = |opts: &RunOptions| fs::read_to_string(opts.out.join("config.toml")).unwrap();
    assert_eq!(config(&opts), config(&code));
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
    let wrong: Vec<&Row> = rows
        .iter()
        .filter(|r| r.status == RowStatus::Invalid)
        .collect();
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
    assert!(matches!(err, ExperimentError::Directory(_)), "{err:?}");
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
        status: RowStatus::Failed,
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
    let w = warned("solvers = [\"kahn\"]\n[graphs]\ngenerate = [\"chain\", \"chain:length=10\"]\n");
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

/// A generate entry's `family` labels its graphs; changed in the config,
/// the kept rows take the new label and nothing is solved again.
#[test]
fn a_family_label_follows_the_config_without_solving_again() {
    let dir = tempfile::tempdir().unwrap();
    let entry = |family: &str| {
        format!(
            "solvers = [\"kahn\"]\n[graphs]\ngenerate = [\"tree\", \
             {{ spec = \"chain:length=3\", seeds = \"0..2\"{family} }}]\n"
        )
    };
    let families = || {
        let rows = crate::experiment::rows::read_rows(&dir.path().join(RUNS)).unwrap();
        let mut f: Vec<(String, String)> = rows.into_iter().map(|r| (r.graph, r.family)).collect();
        f.sort();
        f.dedup();
        f
    };
    let (config, opts) = quiet_run(dir.path(), &entry(""));
    run_with(&config, &opts, registry_build).unwrap();
    let tree = ("tree#0".to_string(), "tree".to_string());
    let chain = |seed: u8, family: &str| (format!("chain:length=3#{seed}"), family.to_string());
    assert_eq!(
        families(),
        [chain(0, "chain"), chain(1, "chain"), tree.clone()]
    );
    let (config, opts) = quiet_run(dir.path(), &entry(", family = \"short chains\""));
    let report = run_with(&config, &opts, registry_build).unwrap();
    assert_eq!(report.ran, 0, "labels are not solved again");
    assert_eq!(
        families(),
        [chain(0, "short chains"), chain(1, "short chains"), tree]
    );
    let graphs = fs::read_to_string(dir.path().join("graphs.csv")).unwrap();
    assert!(
        graphs.contains(",chain:length=3#1,short chains,"),
        "{graphs}"
    );
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

/// A last line cut short (a run killed while writing it) is dropped with a
/// warning, and its item solved again; a whole file says nothing.
#[test]
fn a_cut_last_line_is_dropped_with_a_warning() {
    let dir = tempfile::tempdir().unwrap();
    let (config, opts) = six_chains(dir.path(), "");
    let first = run_with(&config, &opts, registry_build).unwrap();
    assert!(
        !first.warnings.iter().any(|w| w.contains("line break")),
        "{:?}",
        first.warnings
    );
    let runs = dir.path().join(RUNS);
    let text = fs::read_to_string(&runs).unwrap();
    fs::write(&runs, &text[..text.len() - 5]).unwrap();
    let again = run_with(&config, &opts, registry_build).unwrap();
    assert_eq!((again.ran, again.malformed), (1, 0));
    assert!(
        again
            .warnings
            .iter()
            .any(|w| w.contains("last line of runs.csv had no line break")),
        "{:?}",
        again.warnings
    );
    assert_eq!(
        fs::read_to_string(&runs).unwrap().lines().count(),
        text.lines().count()
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
        err.contains("12 of its 12 lines are not rows (line 1: the first line is not the header"),
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

/// Runs `run` as if killed after `point` of readying the directory.
fn killed_after(point: &'static str, run: impl FnOnce() -> Result<RunSummary, ExperimentError>) {
    super::start::KILL_AFTER.set(Some(point));
    let killed = run();
    super::start::KILL_AFTER.set(None);
    let e = killed.expect_err(point).to_string();
    assert!(e.contains(&format!("killed after {point}")), "{e}");
}

/// A run killed anywhere while it readies its directory, then run
/// without its flag, keeps no row the killed run discarded: the plain
/// run refuses, or solves the discarded items again. A helper's crash
/// campaign found both cases below kept: the fingerprints of an edited
/// graph were written before its old rows went (`--redo-graph`), and a
/// changed config before `--fresh` removed the rows of the old one.
#[test]
fn a_kill_while_the_directory_is_readied_keeps_no_discarded_row() {
    let graph = |size: u64| {
        format!(
            r#"{{"Nodes": [{{"Id": 0, "Op": "ALLOC", "Size": {size}, "BufId": 1}},
                    {{"Id": 1, "Op": "FREE", "Size": {size}, "BufId": 1}}], "Edges": [[0, 1]]}}"#
        )
    };
    for point in super::start::KILL_POINTS {
        // An edited graph file, solved again with --redo-graph.
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("out");
        fs::write(dir.path().join("a.json"), graph(8)).unwrap();
        fs::write(dir.path().join("b.json"), graph(5)).unwrap();
        let (config, opts) = quiet_run(
            &out,
            &format!(
                "solvers = [\"kahn\"]\n[graphs]\nfiles = [\"{0}/a.json\", \"{0}/b.json\"]\n",
                dir.path().display()
            ),
        );
        run_with(&config, &opts, registry_build).unwrap();
        fs::write(dir.path().join("a.json"), graph(9)).unwrap();
        let redo = RunOptions {
            redo_graphs: vec!["a".into()],
            ..opts.clone()
        };
        killed_after(point, || run_with(&config, &redo, registry_build));
        match run_with(&config, &opts, registry_build) {
            Err(e) => assert!(e.to_string().contains("differs"), "{point}: {e}"),
            Ok(_) => {
                let rows = rows::read_rows(&out.join(RUNS)).unwrap();
                let peaks: Vec<_> = rows
                    .iter()
                    .filter(|r| r.graph == "a")
                    .map(|r| r.peak_bytes)
                    .collect();
                assert_eq!(
                    peaks,
                    [Some(9), Some(9)],
                    "{point}: kahn and program on the edited file"
                );
            }
        }
        // A changed time limit, over the old rows with --fresh.
        let out = dir.path().join("fresh");
        let (old, opts) = six_chains(&out, "time_limit = 3\n");
        let (new, _) = six_chains(&out, "time_limit = 5\n");
        run_with(&old, &opts, registry_build).unwrap();
        let fresh = RunOptions {
            fresh: true,
            ..opts.clone()
        };
        killed_after(point, || run_with(&new, &fresh, registry_build));
        match run_with(&new, &opts, registry_build) {
            Err(e) => assert!(
                e.to_string().contains("another `time_limit`"),
                "{point}: {e}"
            ),
            Ok(summary) => assert_eq!(
                summary.resumed, 0,
                "{point}: every row of the old limit goes"
            ),
        }
        // --redo with orders kept: no row loses its order (a rewrite of
        // orders.jsonl before runs.csv lost those of the rows to redo).
        let out = dir.path().join("orders");
        let (config, opts) = six_chains(&out, "save_orders = true\n");
        run_with(&config, &opts, registry_build).unwrap();
        let redo = RunOptions {
            redo: vec!["kahn".into()],
            ..opts.clone()
        };
        killed_after(point, || run_with(&config, &redo, registry_build));
        let summary = run_with(&config, &opts, registry_build).unwrap();
        assert!(
            !summary.warnings.iter().any(|w| w.contains("have no order")),
            "{point}: {:?}",
            summary.warnings
        );
        let orders = crate::experiment::records::read_jsonl::<SavedOrder>(&out.join(ORDERS));
        assert_eq!(orders.len(), 12, "{point}: kahn and program, 6 graphs");
        // With orders no longer kept, the orders of the solves done again
        // go, even when the run was killed after runs.csv lost their rows
        // (killed before, it discarded nothing: rows and orders stay).
        let off = Config {
            save_orders: false,
            ..config.clone()
        };
        killed_after(point, || run_with(&off, &redo, registry_build));
        let resumed = run_with(&off, &opts, registry_build).unwrap();
        let orders = crate::experiment::records::read_jsonl::<SavedOrder>(&out.join(ORDERS));
        let kahn = orders.iter().filter(|o| o.solver == "kahn").count();
        let discarded = point != "discard";
        assert_eq!(resumed.ran, if discarded { 6 } else { 0 }, "{point}");
        assert_eq!(kahn, if discarded { 0 } else { 6 }, "{point}");
    }
}

/// A new directory, or one whose `config.toml` is damaged (the settings
/// check then says to pass `--fresh`), killed anywhere while it is readied:
/// the next run takes it (it stays a results directory) and solves all.
#[test]
fn a_directory_killed_while_readied_is_still_taken() {
    for point in super::start::KILL_POINTS {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("new");
        let (config, opts) = six_chains(&out, "save_orders = true\n");
        killed_after(point, || run_with(&config, &opts, registry_build));
        let summary = run_with(&config, &opts, registry_build).unwrap();
        assert_eq!(summary.ran, 12, "{point}: a new directory");
        fs::write(out.join(CONFIG), "name = [broken\n").unwrap();
        let fresh = RunOptions {
            fresh: true,
            ..opts.clone()
        };
        killed_after(point, || run_with(&config, &fresh, registry_build));
        let again = run_with(&config, &fresh, registry_build);
        assert_eq!(
            again.map(|s| s.ran).map_err(|e| e.to_string()),
            Ok(12),
            "{point}"
        );
    }
}

/// Records whose row a killed run removed go at the next run, though the
/// row was another shard's: no order or profile outlives its row.
#[test]
fn records_of_rows_another_shard_lost_go() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("shards");
    let (config, opts) = six_chains(&out, "save_orders = true\n");
    let shard = |index| RunOptions {
        shard: Some(Shard { index, count: 2 }),
        ..opts.clone()
    };
    for index in 0..2 {
        run_with(&config, &shard(index), registry_build).unwrap();
    }
    let off = Config {
        save_orders: false,
        ..config.clone()
    };
    let graphs = Plan::new(&off)
        .unwrap()
        .graphs
        .iter()
        .map(|g| g.name.clone())
        .collect();
    let redo = RunOptions {
        redo_graphs: graphs,
        ..shard(0)
    };
    killed_after("rows", || run_with(&off, &redo, registry_build));
    run_with(&off, &shard(0), registry_build).unwrap();
    let rows: std::collections::BTreeSet<_> = rows::read_rows(&out.join(RUNS))
        .unwrap()
        .iter()
        .map(Row::key)
        .collect();
    let orders = crate::experiment::records::read_jsonl::<SavedOrder>(&out.join(ORDERS));
    assert!(orders.iter().all(|o| rows.contains(&o.key())), "orders");
    let profiles = crate::experiment::records::read_jsonl::<Profile>(&out.join(PROFILES));
    assert!(
        !profiles.is_empty() && profiles.iter().all(|p| rows.contains(&p.key())),
        "profiles"
    );
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
    let typo = RunOptions {
        redo: vec!["randm".into()],
        ..bad
    };
    let err = run_with(&config, &typo, registry_build)
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("--redo randm: not a solver of this experiment (did you mean `random`?)"),
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
        done.warnings.iter().any(|w| w.starts_with("no Tetris plot")
            && w.contains("`--redo-graph 'chain:length=3#5'` solves that graph's rows again")),
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
    let inputs = SolveInputs {
        plan: &plan,
        store: &store,
        ctx: SolveContext::default(),
        tetris: Some(0),
        keep_order: true,
        build: |_| Ok(Box::new(Panics)),
    };
    let solved = inputs.solve_item(&plan.items[1]);
    let row = &solved.row;
    assert_eq!(row.status, RowStatus::Failed);
    assert!(!row.valid && row.peak_bytes.is_none());
    assert_eq!(row.reason, "panicked: boom");
    assert!(solved.profile.is_none() && solved.order.is_none());
    // The same item with the registry's solver succeeds and gives a profile.
    let inputs = SolveInputs {
        plan: &plan,
        store: &store,
        ctx: SolveContext::default(),
        tetris: Some(0),
        keep_order: true,
        build: registry_build,
    };
    let solved = inputs.solve_item(&plan.items[1]);
    let row = &solved.row;
    assert!(row.valid && row.nodes > 0);
    assert_eq!(solved.profile.unwrap().steps, row.nodes);
    assert_eq!(solved.order.unwrap().order.len(), row.nodes);
}

/// Many more threads than cores are oversubscribed; the pool is capped at
/// the solves to run or the cores, so a run with nothing left builds no
/// such pool.
#[test]
fn oversubscription_is_past_four_threads_per_core() {
    assert!(oversubscribed(9, 2).is_some_and(|w| w.starts_with("9 worker threads on 2 cores")));
    assert!(oversubscribed(8, 2).is_none());
    assert!(oversubscribed(5, 1).is_some_and(|w| w.starts_with("5 worker threads on 1 core:")));
    assert_eq!(pool_size(Some(100), 0, 2), 2);
    assert_eq!(pool_size(Some(100), 120, 2), 100);
}
