//! `memsched run` and `memsched merge` refuse unusable input with exit code 2
//! and an error naming it (no panic, no silent rows): a time limit beyond
//! Duration's range, graphs that cannot be loaded, an unknown `tetris_graph`,
//! a graph file listed twice, an output directory of another experiment,
//! directories of different experiments merged, a resume on a graph edited
//! since its rows were solved (even keeping counts and the program-order
//! peak: its content fingerprint tells), a merge of rows solved on two
//! versions of a graph; and a merge of some shards only warns which are
//! missing.
#![cfg(feature = "cli")]

mod cli_support;

use std::collections::BTreeSet;
use std::fs;
use std::path::Path;

use cli_support::{arg, run, run_args, stderr};

const EXAMPLE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/seed_example.json");

/// Runs `memsched args` and checks it exits 2 with an error (no panic);
/// returns stderr.
fn invalid(args: &[&str]) -> String {
    let o = run(args, None);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "memsched {args:?}: {err}");
    assert!(
        err.starts_with("error: ") && !err.contains("panicked"),
        "{err}"
    );
    err
}

/// Runs `memsched args` and checks it succeeds; returns stderr.
fn ok(args: &[&str]) -> String {
    let o = run(args, None);
    let err = stderr(&o);
    assert!(o.status.success(), "memsched {args:?} failed: {err}");
    err
}

/// Writes `text` to the file `name` in `dir`; returns its path.
fn write(dir: &Path, name: &str, text: &str) -> String {
    let p = dir.join(name);
    fs::write(&p, text).unwrap();
    p.to_str().unwrap().to_string()
}

/// The graphs `dir`'s rows name, and how many rows it holds.
fn graphs_with_rows(dir: &Path) -> (BTreeSet<String>, usize) {
    let rows = memsched::experiment::rows::read_rows(&dir.join("runs.csv")).unwrap();
    let count = rows.len();
    (rows.into_iter().map(|r| r.graph).collect(), count)
}

/// `memsched run CONFIG --out OUT -q FLAGS`, expected to succeed: its
/// standard error.
fn run_ok(config: &str, out: &Path, flags: &[&str]) -> String {
    ok(&run_args(config, out, flags))
}

/// `memsched run CONFIG --out OUT -q FLAGS`, expected to fail as invalid
/// input: its standard error.
fn run_invalid(config: &str, out: &Path, flags: &[&str]) -> String {
    invalid(&run_args(config, out, flags))
}

/// The config `text`, written as `name` in a new directory and run into
/// it, expected to succeed: the run's standard error.
fn run_new_ok(name: &str, text: &str) -> String {
    let tmp = tempfile::tempdir().unwrap();
    let cfg = write(tmp.path(), name, text);
    run_ok(&cfg, &tmp.path().join("o"), &[])
}

/// The config `text`, written as `name` in a new directory and run into
/// it, expected to fail as invalid input: the run's standard error.
fn run_new_invalid(name: &str, text: &str) -> String {
    let tmp = tempfile::tempdir().unwrap();
    let cfg = write(tmp.path(), name, text);
    run_invalid(&cfg, &tmp.path().join("o"), &[])
}

/// The text of `dir`'s runs.csv.
fn runs_csv(dir: &Path) -> String {
    fs::read_to_string(dir.join("runs.csv")).unwrap()
}

const CHAINS: &str =
    "solvers = [\"kahn\"]\nplots = []\n[graphs]\ngenerate = [{ spec = \"chain:length=3\", seeds = \"0..3\" }]\n";

#[test]
fn a_time_limit_beyond_duration_is_a_config_error() {
    let tmp = tempfile::tempdir().unwrap();
    let cfg = write(
        tmp.path(),
        "huge.toml",
        &format!("time_limit = 1e30\n{CHAINS}"),
    );
    let out = tmp.path().join("out");
    let err = run_invalid(&cfg, &out, &[]);
    assert!(
        err.contains("`time_limit`") && err.contains("huge.toml"),
        "{err}"
    );
    assert!(!out.exists(), "nothing written");
}

#[test]
fn graphs_that_cannot_be_loaded_stop_the_run_before_any_solve() {
    let tmp = tempfile::tempdir().unwrap();
    let cfg = write(
        tmp.path(),
        "zero.toml",
        "solvers = [\"kahn\"]\n[graphs]\ngenerate = [{ spec = \"chain:length=0\" }, { spec = \"chain:length=3\" }]\n",
    );
    let out = tmp.path().join("out");
    let err = run_invalid(&cfg, &out, &[]);
    assert!(
        err.contains("`chain:length=0#0`") && err.contains("zero.toml") && err.contains("length"),
        "{err}"
    );
    assert!(!out.join("runs.csv").exists(), "no rows written");
    // A file whose edges hold a cycle.
    let cyc = write(
        tmp.path(),
        "cyclic.json",
        r#"{"Nodes":[{"Id":0,"Op":"a"},{"Id":1,"Op":"b"}],"Edges":[[0,1],[1,0]]}"#,
    );
    let cfg = write(
        tmp.path(),
        "cyc.toml",
        &format!("solvers = [\"kahn\"]\n[graphs]\nfiles = [\"{cyc}\"]\n"),
    );
    let err = run_invalid(&cfg, &out, &[]);
    assert!(
        err.contains("`cyclic`") && err.contains("cyclic.json") && err.contains("cycle"),
        "{err}"
    );
    assert!(!out.join("runs.csv").exists(), "no rows written");
}

#[test]
fn an_unknown_tetris_graph_is_rejected_listing_the_graphs() {
    let err = run_new_invalid("t.toml", &format!("tetris_graph = \"nope\"\n{CHAINS}"));
    assert!(
        err.contains("`nope`") && err.contains("t.toml") && err.contains("`chain:length=3#2`"),
        "{err}"
    );
}

#[test]
fn a_graph_file_listed_twice_is_rejected_naming_it() {
    let err = run_new_invalid(
        "dup.toml",
        &format!("solvers = [\"kahn\"]\n[graphs]\nfiles = [\"{EXAMPLE}\", \"{EXAMPLE}\"]\n"),
    );
    assert!(
        err.contains("seed_example.json") && err.contains("twice") && err.contains("dup.toml"),
        "{err}"
    );
}

#[test]
fn a_run_into_another_experiments_directory_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let a = write(tmp.path(), "a.toml", CHAINS);
    let b = write(
        tmp.path(),
        "b.toml",
        &CHAINS.replace("length=3", "length=5"),
    );
    let out = tmp.path().join("out");
    run_ok(&a, &out, &[]);
    let before = runs_csv(&out);
    let err = run_invalid(&b, &out, &[]);
    assert!(
        err.contains("`a`") && err.contains("`b`") && err.contains(arg(&out)),
        "{err}"
    );
    assert_eq!(runs_csv(&out), before);
    assert!(fs::read_to_string(out.join("config.toml"))
        .unwrap()
        .contains("name = \"a\""));
    // The same experiment, extended by a solver, resumes as before.
    fs::write(&a, CHAINS.replace("\"kahn\"", "\"kahn\", \"seed-greedy\"")).unwrap();
    let err = run_ok(&a, &out, &[]);
    assert!(err.contains("3 run now, 6 already done"), "{err}");
    // --fresh discards the other experiment's results, and says how many.
    let err = run_ok(&b, &out, &["--fresh"]);
    assert!(
        err.contains("--fresh discarded the 9 rows of earlier runs"),
        "{err}"
    );
    let rows = runs_csv(&out);
    assert!(
        rows.contains("length=5") && !rows.contains("length=3"),
        "{rows}"
    );
}

/// Many more threads than cores are warned about before the solves, when
/// the run's pool has them; a run with nothing left to solve has a small
/// pool and no warning.
#[test]
fn threads_far_past_the_cores_are_warned_about_before_solving() {
    let cores = std::thread::available_parallelism().map_or(1, |c| c.get());
    let threads = 4 * cores + 1;
    if threads > 4096 {
        return; // past --threads' cap
    }
    let tmp = tempfile::tempdir().unwrap();
    let cfg = write(
        tmp.path(),
        "many.toml",
        &format!(
            "solvers = [\"kahn\"]\n[graphs]\n\
             generate = [{{ spec = \"chain:length=3\", seeds = \"0..{threads}\" }}]\n"
        ),
    );
    let out = tmp.path().join("out");
    let j = threads.to_string();
    let err = run_ok(&cfg, &out, &["-j", &j]);
    let warning = format!("warning: {threads} worker threads on");
    let at = err.find(&warning).unwrap_or_else(|| panic!("{err}"));
    assert!(at < err.find("solves").unwrap_or(usize::MAX), "{err}");
    let err = run_ok(&cfg, &out, &["-j", &j]);
    assert!(!err.contains("worker threads"), "{err}");
}

/// `--out -` is standard output for the other commands; `run` and
/// `merge` write directories, so they refuse it rather than make `./-`.
#[test]
fn out_dash_is_refused_by_the_commands_that_write_directories() {
    let tmp = tempfile::tempdir().unwrap();
    let cfg = write(tmp.path(), "a.toml", CHAINS);
    let done = tmp.path().join("done");
    run_ok(&cfg, &done, &[]);
    for args in [
        vec!["run", &cfg, "--out", "-"],
        vec!["merge", arg(&done), "--out", "-"],
    ] {
        let err = invalid(&args);
        assert!(err.contains("writes a results directory"), "{err}");
    }
    assert!(!std::path::Path::new("-").exists());
}

/// A directory without `config.toml` is not a results directory: a run or
/// merge into it would replace its README.md, and `--fresh` has no results
/// there to discard. One whose files memsched does not write (a lock file
/// a killed run left, `.gitkeep`) is used.
#[test]
fn a_directory_that_is_not_a_results_directory_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let cfg = write(tmp.path(), "a.toml", CHAINS);
    let project = tmp.path().join("project");
    fs::create_dir(&project).unwrap();
    fs::write(project.join("README.md"), "# My notes\n").unwrap();
    for fresh in [&[][..], &["--fresh"][..]] {
        let err = run_invalid(&cfg, &project, fresh);
        assert!(
            err.contains("is not a results directory") && err.contains("README.md"),
            "{err}"
        );
    }
    let done = tmp.path().join("done");
    run_ok(&cfg, &done, &[]);
    let err = invalid(&["merge", arg(&done), "--out", arg(&project)]);
    assert!(err.contains("is not a results directory"), "{err}");
    assert_eq!(
        fs::read_to_string(project.join("README.md")).unwrap(),
        "# My notes\n"
    );
    assert_eq!(
        fs::read_dir(&project).unwrap().count(),
        1,
        "nothing written"
    );
    // A `config.toml` that is no experiment's (not TOML, or another
    // tool's) does not make a directory ours: it is refused, all of it kept.
    // Nor does another study's experiment config that names no
    // experiment: only the config being run counts as ours.
    // A top-level `name` alone (another tool's config) is not one either,
    // with or without --fresh, which would otherwise clear the directory.
    let other_study = "solvers = [\"program\"]\n[graphs]\ngenerate = [\"chain\"]\n";
    let other_tool = "name = \"mine\"\ntheme = \"dark\"\n";
    let configs = [
        "not toml {{\n",
        "[package]\nname = \"mine\"\n",
        other_study,
        other_tool,
    ];
    for (i, config) in configs.into_iter().enumerate() {
        let look_alike = tmp.path().join(format!("look-alike{i}"));
        fs::create_dir(&look_alike).unwrap();
        fs::write(look_alike.join("config.toml"), config).unwrap();
        fs::write(look_alike.join("summary.csv"), "my,data\n").unwrap();
        for fresh in [&[][..], &["--fresh"][..]] {
            let err = run_invalid(&cfg, &look_alike, fresh);
            assert!(
                err.contains("is not a results directory")
                    && err.contains("config.toml, summary.csv"),
                "{err}"
            );
        }
        let err = invalid(&["merge", arg(&done), "--out", arg(&look_alike)]);
        assert!(err.contains("is not a results directory"), "{err}");
        assert_eq!(
            fs::read_to_string(look_alike.join("config.toml")).unwrap(),
            config
        );
        assert_eq!(
            fs::read_dir(&look_alike).unwrap().count(),
            2,
            "nothing written"
        );
    }
    // Nor does a `runs.csv` of another tool beside such a config.
    let other_rows = tmp.path().join("other-rows");
    fs::create_dir(&other_rows).unwrap();
    fs::write(other_rows.join("config.toml"), other_tool).unwrap();
    fs::write(other_rows.join("runs.csv"), "run,score\n1,0.5\n").unwrap();
    for fresh in [&[][..], &["--fresh"][..]] {
        let err = run_invalid(&cfg, &other_rows, fresh);
        assert!(
            err.contains("is not a results directory") && err.contains("config.toml, runs.csv"),
            "{err}"
        );
    }
    assert_eq!(
        fs::read_to_string(other_rows.join("runs.csv")).unwrap(),
        "run,score\n1,0.5\n"
    );
    let empty = tmp.path().join("empty");
    fs::create_dir(&empty).unwrap();
    fs::write(empty.join(".memsched.lock"), "").unwrap();
    fs::write(empty.join(".gitkeep"), "").unwrap();
    run_ok(&cfg, &empty, &[]);
    assert!(empty.join(".gitkeep").exists() && empty.join("runs.csv").exists());
}

#[test]
fn merge_refuses_different_experiments_and_warns_of_missing_shards() {
    let tmp = tempfile::tempdir().unwrap();
    let a = write(tmp.path(), "a.toml", CHAINS);
    let b = write(
        tmp.path(),
        "b.toml",
        &CHAINS.replace("length=3", "length=5"),
    );
    let (oa, ob, m) = (
        tmp.path().join("oa"),
        tmp.path().join("ob"),
        tmp.path().join("m"),
    );
    run_ok(&a, &oa, &[]);
    run_ok(&b, &ob, &[]);
    let err = invalid(&["merge", arg(&oa), arg(&ob), "--out", arg(&m)]);
    assert!(
        err.contains("`a`")
            && err.contains("`b`")
            && err.contains(arg(&oa))
            && err.contains(arg(&ob)),
        "{err}"
    );
    assert!(!m.exists(), "nothing written");
    // The same experiment from configs that define different work.
    let a2 = tmp.path().join("a2");
    fs::write(&a, CHAINS.replace("\"kahn\"", "\"kahn\", \"seed-greedy\"")).unwrap();
    run_ok(&a, &a2, &[]);
    let err = invalid(&["merge", arg(&oa), arg(&a2), "--out", arg(&m)]);
    assert!(err.contains("`solvers`"), "{err}");
    // Shard 0 of 2 alone: merged, with a warning naming shard 1/2.
    fs::write(&a, CHAINS).unwrap();
    let (s0, s1) = (tmp.path().join("s0"), tmp.path().join("s1"));
    run_ok(&a, &s0, &["--shard", "0/2"]);
    let held = graphs_with_rows(&s0).1;
    assert!(
        (1..6).contains(&held),
        "shard 0/2 holds some of the 6 items"
    );
    let err = ok(&["merge", arg(&s0), "--out", arg(&m)]);
    assert!(
        err.contains("warning:")
            && err.contains("1/2")
            && err.contains(&format!("{held} of the 6 items")),
        "{err}"
    );
    // One shard twice (here as `s0` and `s0/.`) is a typo for another shard.
    let again = s0.join(".");
    let err = invalid(&["merge", arg(&s0), arg(&again), "--out", arg(&m)]);
    assert!(err.contains("same directory"), "{err}");
    // Both shards: no warning.
    run_ok(&a, &s1, &["--shard", "1/2"]);
    let err = ok(&["merge", arg(&s0), arg(&s1), "--out", arg(&m)]);
    assert!(!err.contains("warning"), "{err}");
    // Merging into another experiment's directory would replace its rows.
    let before = runs_csv(&ob);
    let err = invalid(&["merge", arg(&s0), arg(&s1), "--out", arg(&ob)]);
    assert!(
        err.contains("`b`") && err.contains("refusing to overwrite"),
        "{err}"
    );
    assert_eq!(runs_csv(&ob), before);
}

#[test]
fn shipped_configs_pass_the_new_checks() {
    // Relative graph paths are relative to the package root (the tests' cwd).
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/experiments");
    let mut n = 0;
    for e in fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_some_and(|x| x == "toml") {
            let c = match memsched::experiment::Config::load(&p) {
                Ok(c) => c,
                // Without the `ilp` feature, configs that name `ilp` do not load.
                Err(e) if cfg!(not(feature = "ilp")) && e.to_string().contains("`ilp`") => continue,
                Err(e) => panic!("{e}"),
            };
            memsched::experiment::Plan::new(&c).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
            n += 1;
        }
    }
    assert!(n >= 4, "{n} configs checked");
}

/// Resuming under another `restarts` (where a solver restarts),
/// `time_limit` or `[budget]` is refused (the rows would mix two settings);
/// --fresh starts over. The old settings are read leniently, and dropping
/// the only restarting solver still resumes.
#[test]
fn resuming_under_other_settings_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let with_random = CHAINS.replace("\"kahn\"", "\"kahn\", \"random\", \"exact\"");
    let a = write(
        tmp.path(),
        "a.toml",
        &format!("restarts = 2\n{with_random}"),
    );
    let out = tmp.path().join("out");
    run_ok(&a, &out, &[]);
    let before = runs_csv(&out);
    for (changed, named) in [
        (
            format!("restarts = 4\n{with_random}"),
            "`restarts` (2, now 4)",
        ),
        (
            format!("restarts = 2\ntime_limit = 7\n{with_random}"),
            "`time_limit`",
        ),
        (
            format!("restarts = 2\n{with_random}[budget]\nmax_states = 99\n"),
            "`[budget]` (max_states = 50000000, max_memory_bytes = 4294967296, now \
             max_states = 99, max_memory_bytes = 4294967296)",
        ),
    ] {
        fs::write(&a, &changed).unwrap();
        let err = run_invalid(&a, &out, &[]);
        assert!(err.contains(named) && err.contains("--fresh"), "{err}");
        assert_eq!(runs_csv(&out), before);
    }
    // A config.toml naming a solver this build does not know is still read
    // (its settings, not its solvers, are compared).
    let recorded = fs::read_to_string(out.join("config.toml")).unwrap();
    assert!(recorded.contains("\"exact\"]"), "{recorded}");
    fs::write(
        out.join("config.toml"),
        recorded.replace("\"exact\"]", "\"exact\", \"no-such-solver\"]"),
    )
    .unwrap();
    fs::write(&a, format!("restarts = 4\n{with_random}")).unwrap();
    let err = run_invalid(&a, &out, &[]);
    assert!(err.contains("`restarts` (2, now 4)"), "{err}");
    fs::write(out.join("config.toml"), recorded).unwrap();
    // Dropping the restarting solver does not free `restarts`: its rows
    // stay in the directory, solved under the old value.
    fs::write(&a, format!("restarts = 4\n{CHAINS}")).unwrap();
    // (After a warning that `restarts` now has no effect, so not `run_invalid`.)
    let o = run(&run_args(&a, &out, &[]), None);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(!err.contains("panicked"), "{err}");
    assert!(err.contains("`restarts` (2, now 4)"), "{err}");
    // Dropping it under the same `restarts` resumes; restarts then has no effect.
    fs::write(&a, format!("restarts = 2\n{CHAINS}")).unwrap();
    let err = run_ok(&a, &out, &[]);
    assert!(err.contains("warning: restarts = 2 has no effect"), "{err}");
    run_ok(&a, &out, &["--fresh"]);
}

/// A results directory's `config.toml` emptied or cut short (no `name`)
/// is not read as the default settings: the error says it cannot be read.
/// And that file is not run into its own directory (the run would
/// rewrite it and compare it with itself).
#[test]
fn a_damaged_or_own_config_copy_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let a = write(tmp.path(), "a.toml", &format!("time_limit = 5\n{CHAINS}"));
    let out = tmp.path().join("out");
    run_ok(&a, &out, &[]);
    let kept = out.join("config.toml");
    let kept_str = kept.to_str().unwrap();
    let recorded = fs::read_to_string(&kept).unwrap();
    fs::write(&kept, "").unwrap();
    let err = run_invalid(&a, &out, &[]);
    assert!(
        err.contains("cannot read the settings") && err.contains("missing field `name`"),
        "{err}"
    );
    fs::write(&kept, &recorded).unwrap();
    let err = run_invalid(kept_str, &out, &[]);
    assert!(
        err.contains("is the copy of the config that the results directory"),
        "{err}"
    );
    assert_eq!(fs::read_to_string(&kept).unwrap(), recorded);
    // By a hard link too; with --fresh nothing is compared: it may start over.
    let linked = tmp.path().join("linked.toml");
    fs::hard_link(&kept, &linked).unwrap();
    let err = run_invalid(linked.to_str().unwrap(), &out, &[]);
    assert!(
        err.contains("is the copy of the config that the results directory"),
        "{err}"
    );
    run_ok(kept_str, &out, &["--fresh"]);
    // Run into another directory, it is an ordinary config.
    run_ok(kept_str, &tmp.path().join("elsewhere"), &[]);
}

/// A `runs.csv` holding a second row of one solve with another peak
/// (joined by hand) resumes with the first, a warning, and the repeat gone.
#[test]
fn a_repeated_solve_with_another_peak_is_named() {
    let tmp = tempfile::tempdir().unwrap();
    let a = write(tmp.path(), "a.toml", CHAINS);
    let out = tmp.path().join("out");
    run_ok(&a, &out, &[]);
    let runs = out.join("runs.csv");
    let text = fs::read_to_string(&runs).unwrap();
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let peak = header.iter().position(|&h| h == "peak_bytes").unwrap();
    let first = lines.next().unwrap();
    let mut fields: Vec<String> = first.split(',').map(str::to_string).collect();
    fields[peak] = format!("{}1", fields[peak]);
    fs::write(&runs, format!("{text}{}\n", fields.join(","))).unwrap();
    let err = run_ok(&a, &out, &[]);
    assert!(
        err.contains("warning: 1 row(s) of runs.csv repeated a solve already in it"),
        "{err}"
    );
    assert_eq!(fs::read_to_string(&runs).unwrap(), text);
}

/// A zero budget is an error naming the key, as on the command line.
#[test]
fn a_zero_budget_is_a_config_error() {
    for key in ["max_states", "max_memory_bytes"] {
        let err = run_new_invalid("z.toml", &format!("{CHAINS}[budget]\n{key} = 0\n"));
        assert!(err.contains(key) && err.contains("z.toml"), "{err}");
    }
}

/// Seeds a config cannot mean: a range too long to list, a seed listed
/// twice (its rows would collapse into one). Errors, not a panic or
/// quietly fewer rows.
#[test]
fn unusable_seeds_are_config_errors() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    for (seeds, named) in [
        ("seeds = \"0..18446744073709551615\"", "at most 1000000"),
        ("seeds = [0, 1, 2, 0]", "seed 0 is listed twice"),
        ("seeds = \"0..=3\"", "e.g. `0..4`"),
    ] {
        let cfg = write(
            tmp.path(),
            "seeds.toml",
            &format!("{seeds}\n{}", CHAINS.replace("kahn", "random")),
        );
        let err = run_invalid(&cfg, &out, &[]);
        assert!(err.contains(named) && err.contains("seeds.toml"), "{err}");
        let generator = CHAINS.replace("\"0..3\"", &seeds["seeds = ".len()..]);
        let cfg = write(tmp.path(), "gen.toml", &generator);
        let err = run_invalid(&cfg, &out, &[]);
        assert!(err.contains(named), "{err}");
    }
    assert!(!out.exists(), "nothing written");
}

/// `--threads` past its limit is invalid input; an output path that is a
/// file is refused by `run` and `merge` before anything is written.
#[test]
fn absurd_threads_and_a_file_as_output_are_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let cfg = write(tmp.path(), "c.toml", CHAINS);
    let out = tmp.path().join("out");
    let err = run_invalid(&cfg, &out, &["--threads", "1000000"]);
    assert!(err.contains("--threads 1000000: at most 4096"), "{err}");
    assert!(!out.exists(), "nothing written");
    // More threads than solves is fine (the pool is capped at the solves).
    run_ok(&cfg, &out, &["--threads", "4096"]);
    let file = write(tmp.path(), "a-file", "not a directory");
    let err = run_invalid(&cfg, Path::new(&file), &[]);
    assert!(err.contains("exists and is not a directory"), "{err}");
    let err = invalid(&["merge", arg(&out), "--out", &file]);
    assert!(err.contains("exists and is not a directory"), "{err}");
    let under = Path::new(&file).join("sub");
    let err = run_invalid(&cfg, &under, &[]);
    assert!(err.contains("exists and is not a directory"), "{err}");
    assert_eq!(fs::read_to_string(&file).unwrap(), "not a directory");
}

/// A graph file edited between two runs into one directory: its new rows
/// would sit beside rows of the old graph under one name, so resuming is
/// refused, whether its size changed or only its sizes (its content
/// fingerprint tells), and even with nothing left to run.
#[test]
fn resuming_on_an_edited_graph_file_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let graph = tmp.path().join("g.json");
    let example = fs::read_to_string(EXAMPLE).unwrap();
    fs::write(&graph, &example).unwrap();
    let config = |solvers: &str| {
        format!(
            "name = \"edit\"\nsolvers = [{solvers}]\nplots = []\n[graphs]\nfiles = [\"{}\"]\n",
            arg(&graph)
        )
    };
    let cfg = write(tmp.path(), "c.toml", &config("\"kahn\""));
    let out = tmp.path().join("out");
    run_ok(&cfg, &out, &[]);
    let before = runs_csv(&out);
    // Same nodes and edges, one size changed.
    let resized = example.replacen("\"Size\": 1024", "\"Size\": 1048576", 1);
    assert_ne!(resized, example, "the example has a size to change");
    // With nothing left to run too: the final pass would rewrite the
    // README from rows of the old graph.
    fs::write(&graph, &resized).unwrap();
    let err = run_invalid(&cfg, &out, &[]);
    assert!(
        err.contains("differ from the graphs of the same name"),
        "{err}"
    );
    fs::write(&cfg, config("\"kahn\", \"seed-greedy\"")).unwrap();
    for edited in [resized, with_one_node_more(&example)] {
        fs::write(&graph, &edited).unwrap();
        let err = run_invalid(&cfg, &out, &[]);
        assert!(
            err.contains("differ from the graphs of the same name") && err.contains("--fresh"),
            "{err}"
        );
        assert_eq!(runs_csv(&out), before);
    }
    // The original graph resumes.
    fs::write(&graph, &example).unwrap();
    run_ok(&cfg, &out, &[]);
}

/// `--redo-graph` after editing one graph file: only that graph's items
/// run again, its fingerprint is recorded anew, the other graph's rows
/// stay as they were; a name that is not a graph of the config is refused.
#[test]
fn redo_graph_solves_an_edited_graph_again_and_keeps_the_rest() {
    let tmp = tempfile::tempdir().unwrap();
    let example = write(tmp.path(), "g.json", &fs::read_to_string(EXAMPLE).unwrap());
    let graph = write(tmp.path(), "twobuf.json", TWO_BUFFERS);
    let cfg = write(
        tmp.path(),
        "c.toml",
        &format!(
            "name = \"edit\"\nsolvers = [\"kahn\"]\nplots = []\n[graphs]\n\
             files = [\"{example}\", \"{graph}\"]\n"
        ),
    );
    let out = tmp.path().join("out");
    run_ok(&cfg, &out, &[]);
    let rows_of = |name: &str| -> Vec<String> {
        runs_csv(&out)
            .lines()
            .filter(|l| l.contains(&format!(",{name},")))
            .map(String::from)
            .collect()
    };
    let (g_rows, recorded) = (rows_of("g"), fingerprints(&out));
    fs::write(
        &graph,
        TWO_BUFFERS.replace("\"Size\": 10,", "\"Size\": 20,"),
    )
    .unwrap();
    let err = run_invalid(&cfg, &out, &[]);
    assert!(err.contains("--redo-graph NAME"), "{err}");
    let err = run_invalid(&cfg, &out, &["--redo-graph", "twobuff"]);
    assert!(
        err.contains(
            "--redo-graph `twobuff`: not a graph of this experiment (did you mean `twobuf`?)"
        ) && err.contains("`g`, `twobuf`"),
        "{err}"
    );
    let err = run_ok(&cfg, &out, &["--redo-graph", "twobuf"]);
    assert!(err.contains("(2 run now, 2 already done)"), "{err}");
    assert!(
        err.contains("--redo/--redo-graph discarded 2 rows of earlier runs"),
        "{err}"
    );
    assert_eq!(rows_of("g"), g_rows, "the other graph's rows stay");
    assert_eq!(rows_of("twobuf").len(), 2);
    let now = fingerprints(&out);
    assert_eq!(now["g"], recorded["g"]);
    assert_ne!(now["twobuf"], recorded["twobuf"], "the edited graph's");
    // The edited graph now resumes as it is.
    let err = run_ok(&cfg, &out, &[]);
    assert!(err.contains("(0 run now, 4 already done)"), "{err}");
}

/// Two buffers in a chain, the second not live at the program order's
/// peak (100), and a compute node with a `Latency`.
const TWO_BUFFERS: &str = r#"{"Nodes": [
    {"Id": 0, "Op": "ALLOC", "Size": 100, "BufId": 1},
    {"Id": 1, "Op": "Matmul", "Latency": 1.5},
    {"Id": 2, "Op": "FREE", "BufId": 1},
    {"Id": 3, "Op": "ALLOC", "Size": 10, "BufId": 2},
    {"Id": 4, "Op": "FREE", "BufId": 2}],
  "Edges": [[0, 1], [1, 2], [2, 3], [3, 4]]}"#;

/// The graphs recorded in a results directory's `fingerprints.toml`.
fn fingerprints(dir: &Path) -> std::collections::BTreeMap<String, String> {
    let text = fs::read_to_string(dir.join("fingerprints.toml")).unwrap();
    let table: toml::Table = toml::from_str(&text).unwrap();
    assert_eq!(table["scheme"].as_integer(), Some(1), "{text}");
    let graphs = table["graphs"].as_table().unwrap();
    graphs
        .iter()
        .map(|(name, fp)| {
            let fp = fp.as_str().unwrap().to_string();
            assert!(
                fp.len() == 16 && fp.bytes().all(|b| b.is_ascii_hexdigit()),
                "{fp}"
            );
            (name.clone(), fp)
        })
        .collect()
}

/// An edit that keeps the node and edge counts and the program-order peak
/// (a latency, or the size of a buffer not live at the peak) changes the
/// graph's content fingerprint: resuming is refused, naming the graph.
/// Without `fingerprints.toml` (a directory of an older version) the
/// counts and the peak decide, and such an edit passes.
#[test]
fn resuming_on_a_graph_edited_keeping_counts_and_peak_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let graph = write(tmp.path(), "twobuf.json", TWO_BUFFERS);
    let config = |solvers: &str| {
        format!(
            "name = \"fp\"\nsolvers = [{solvers}]\nplots = []\n[graphs]\nfiles = [\"{graph}\"]\n"
        )
    };
    let cfg = write(tmp.path(), "c.toml", &config("\"kahn\""));
    let out = tmp.path().join("out");
    run_ok(&cfg, &out, &[]);
    let recorded = fingerprints(&out);
    assert_eq!(recorded.keys().collect::<Vec<_>>(), ["twobuf"]);
    let before = runs_csv(&out);
    fs::write(&cfg, config("\"kahn\", \"seed-greedy\"")).unwrap();
    let relatency = TWO_BUFFERS.replace("\"Latency\": 1.5", "\"Latency\": 2.5");
    let resized = TWO_BUFFERS.replace("\"Size\": 10,", "\"Size\": 20,");
    for edited in [&relatency, &resized] {
        assert_ne!(edited, TWO_BUFFERS);
        fs::write(&graph, edited).unwrap();
        let err = run_invalid(&cfg, &out, &[]);
        assert!(
            err.contains("graph `twobuf`")
                && err.contains("twobuf.json")
                && err.contains("content differs")
                && err.contains("--fresh"),
            "{err}"
        );
        assert_eq!(runs_csv(&out), before);
        assert_eq!(fingerprints(&out), recorded, "the record is kept");
    }
    // Without the record, only counts and peak are compared: not seen.
    fs::remove_file(out.join("fingerprints.toml")).unwrap();
    run_ok(&cfg, &out, &[]);
    let now = fingerprints(&out);
    assert_ne!(now["twobuf"], recorded["twobuf"], "the edited graph's");
    // The original graph now differs from the record, and is refused.
    fs::write(&graph, TWO_BUFFERS).unwrap();
    fs::write(&cfg, config("\"kahn\", \"seed-greedy\", \"random\"")).unwrap();
    let err = run_invalid(&cfg, &out, &[]);
    assert!(err.contains("graph `twobuf`"), "{err}");
    // A damaged record is an error naming the file, not a silent fallback.
    fs::write(
        out.join("fingerprints.toml"),
        "scheme = 1\n[graphs]\ntwobuf = \"zz\"\n",
    )
    .unwrap();
    let err = run_invalid(&cfg, &out, &[]);
    assert!(
        err.contains("fingerprints.toml") && err.contains("`twobuf`"),
        "{err}"
    );
}

/// A resume on unedited graphs runs; `fingerprints.toml` holds one entry
/// per graph loaded, a graph with nothing left to run keeps its entry,
/// and --fresh starts the record over.
#[test]
fn an_unedited_resume_runs_and_records_every_graph() {
    let tmp = tempfile::tempdir().unwrap();
    let cfg = write(tmp.path(), "c.toml", CHAINS);
    let out = tmp.path().join("out");
    run_ok(&cfg, &out, &[]);
    let first = fingerprints(&out);
    let names: Vec<&str> = first.keys().map(String::as_str).collect();
    assert_eq!(
        names,
        ["chain:length=3#0", "chain:length=3#1", "chain:length=3#2"]
    );
    // One graph more: only it is loaded, the others keep their entries.
    fs::write(&cfg, CHAINS.replace("0..3", "0..4")).unwrap();
    let err = run_ok(&cfg, &out, &[]);
    assert!(err.contains("2 run now, 6 already done"), "{err}");
    let second = fingerprints(&out);
    assert_eq!(second.len(), 4);
    assert!(first.iter().all(|(k, v)| second[k] == *v), "{second:?}");
    // A solver more: every graph is loaded and checked again, unchanged.
    let more = CHAINS
        .replace("0..3", "0..4")
        .replace("\"kahn\"", "\"kahn\", \"seed-greedy\"");
    fs::write(&cfg, more).unwrap();
    let err = run_ok(&cfg, &out, &[]);
    assert!(err.contains("4 run now, 8 already done"), "{err}");
    assert_eq!(fingerprints(&out), second);
    // Nothing left to run: nothing is loaded, and the file is not touched
    // (a directory without one, such as results/ made before it, gets none).
    let file = out.join("fingerprints.toml");
    fs::remove_file(&file).unwrap();
    let err = run_ok(&cfg, &out, &[]);
    assert!(err.contains("0 run now, 12 already done"), "{err}");
    assert!(!file.exists());
    // --fresh forgets the graphs no longer in the config.
    fs::write(&cfg, CHAINS.replace("0..3", "0..2")).unwrap();
    run_ok(&cfg, &out, &["--fresh"]);
    assert_eq!(fingerprints(&out).len(), 2);
}

/// `merge` unites the inputs' fingerprints, and refuses two inputs whose
/// rows were solved on different contents of one graph, naming it and both
/// directories, before anything is written.
#[test]
fn merge_unites_fingerprints_and_refuses_conflicting_ones() {
    let tmp = tempfile::tempdir().unwrap();
    // Shards of CHAINS hold rows of some of its three graphs each; which,
    // the shard hash decides, so the expected sets are read off the rows.
    let cfg = write(tmp.path(), "c.toml", CHAINS);
    let (s0, s1, t0, m) = (
        tmp.path().join("s0"),
        tmp.path().join("s1"),
        tmp.path().join("t0"),
        tmp.path().join("m"),
    );
    run_ok(&cfg, &s0, &["--shard", "0/2"]);
    run_ok(&cfg, &s1, &["--shard", "1/2"]);
    run_ok(&cfg, &t0, &["--shard", "0/3"]);
    let graphs = |d: &Path| graphs_with_rows(d).0;
    let names = |d: &Path| -> BTreeSet<String> { fingerprints(d).into_keys().collect() };
    for d in [&s0, &s1, &t0] {
        assert_eq!(names(d), graphs(d), "a fingerprint per graph with rows");
    }
    ok(&["merge", arg(&s0), arg(&s1), "--out", arg(&m)]);
    let merged = fingerprints(&m);
    let union: BTreeSet<String> = graphs(&s0).union(&graphs(&s1)).cloned().collect();
    assert_eq!(merged.keys().cloned().collect::<BTreeSet<_>>(), union);
    assert!(fingerprints(&s0).iter().all(|(g, f)| merged[g] == *f));
    // An input without the file (an older version's) vouches for none of
    // its graphs: they drop out of the union, the others' entries stay.
    fs::remove_file(s1.join("fingerprints.toml")).unwrap();
    let m_old = tmp.path().join("m_old");
    ok(&["merge", arg(&s0), arg(&s1), "--out", arg(&m_old)]);
    let vouched: BTreeSet<String> = graphs(&s0).difference(&graphs(&s1)).cloned().collect();
    assert_eq!(names(&m_old), vouched);
    let t2 = tmp.path().join("t2");
    run_ok(&cfg, &t2, &["--shard", "2/3"]);
    fs::remove_file(t2.join("fingerprints.toml")).unwrap();
    let m_t = tmp.path().join("m_t");
    ok(&["merge", arg(&t0), arg(&t2), "--out", arg(&m_t)]);
    let vouched: BTreeSet<String> = graphs(&t0).difference(&graphs(&t2)).cloned().collect();
    assert!(
        !vouched.is_empty() && vouched.len() < graphs(&t0).len(),
        "the shards share a graph and keep another: {vouched:?}"
    );
    assert_eq!(names(&m_t), vouched);
    // One graph file, edited between two runs of one config.
    let graph = write(tmp.path(), "twobuf.json", TWO_BUFFERS);
    let cfg = write(
        tmp.path(),
        "f.toml",
        &format!(
            "name = \"f\"\nsolvers = [\"kahn\"]\nplots = []\n[graphs]\nfiles = [\"{graph}\"]\n"
        ),
    );
    let (oa, ob, m2) = (
        tmp.path().join("oa"),
        tmp.path().join("ob"),
        tmp.path().join("m2"),
    );
    run_ok(&cfg, &oa, &[]);
    fs::write(
        &graph,
        TWO_BUFFERS.replace("\"Latency\": 1.5", "\"Latency\": 2.5"),
    )
    .unwrap();
    run_ok(&cfg, &ob, &[]);
    let err = invalid(&["merge", arg(&oa), arg(&ob), "--out", arg(&m2)]);
    assert!(
        err.contains("`twobuf`")
            && err.contains(arg(&oa))
            && err.contains(arg(&ob))
            && err.contains("fingerprint"),
        "{err}"
    );
    assert!(!m2.exists(), "nothing written");
    // One of them alone merges.
    ok(&["merge", arg(&ob), "--out", arg(&m2)]);
    assert_eq!(fingerprints(&m2), fingerprints(&ob));
}

/// The seed example with one more compute node (no edges).
fn with_one_node_more(example: &str) -> String {
    let mut v: serde_json::Value = serde_json::from_str(example).unwrap();
    v["Nodes"]
        .as_array_mut()
        .unwrap()
        .push(serde_json::json!({"Id": 999_999, "Op": "extra"}));
    v.to_string()
}

/// A line of runs.csv damaged by hand is dropped with a warning that says
/// so, and its solve runs again: the rows come back complete.
#[test]
fn a_damaged_row_is_solved_again_with_a_warning() {
    let tmp = tempfile::tempdir().unwrap();
    let cfg = write(tmp.path(), "c.toml", CHAINS);
    let out = tmp.path().join("out");
    run_ok(&cfg, &out, &[]);
    let runs = out.join("runs.csv");
    let before = fs::read_to_string(&runs).unwrap();
    let mut lines: Vec<&str> = before.lines().collect();
    lines[2] = "this,is,not,a,row";
    fs::write(&runs, lines.join("\n") + "\n").unwrap();
    let err = run_ok(&cfg, &out, &[]);
    assert!(
        err.contains("warning: 1 line(s)") && err.contains("not rows"),
        "{err}"
    );
    let after = fs::read_to_string(&runs).unwrap();
    let strip = |t: &str| -> Vec<String> {
        // time_ms is the only column that changes between runs.
        let time = t
            .lines()
            .next()
            .unwrap()
            .split(',')
            .position(|c| c == "time_ms")
            .unwrap();
        t.lines()
            .map(|l| {
                let mut cells: Vec<&str> = l.split(',').collect();
                cells[time] = "";
                cells.join(",")
            })
            .collect()
    };
    assert_eq!(strip(&after), strip(&before));
}

/// `seeds` beyond `[0]` with no randomized solver is a warning, as an
/// unread `[budget]` is; with one, none.
#[test]
fn seeds_without_a_randomized_solver_are_a_warning() {
    let seeds = "seeds = \"0..3\"\n";
    let err = run_new_ok("s.toml", &format!("{seeds}{CHAINS}"));
    assert!(
        err.contains("warning: seeds = \"0..3\" has no effect: no solver of"),
        "{err}"
    );
    // The seeded solvers it names include those built from an expression.
    assert!(
        err.contains("noisy:EXPR, noisy-moves:EXPR and rules that read `random`"),
        "{err}"
    );
    let with_random = CHAINS.replace("\"kahn\"", "\"kahn\", \"random\"");
    let err = run_new_ok("s.toml", &format!("{seeds}{with_random}"));
    assert!(!err.contains("seeds = "), "{err}");
    let err = run_new_ok("s.toml", CHAINS);
    assert!(!err.contains("seeds = "), "{err}");
}

/// A `[budget]` no solver of the config reads is a warning, as `restarts`
/// is; with a search among the solvers, none.
#[test]
fn a_budget_no_solver_reads_is_a_warning() {
    let budget = "[budget]\nmax_states = 5\n";
    let err = run_new_ok("b.toml", &format!("{CHAINS}{budget}"));
    assert!(err.contains("warning: [budget] has no effect"), "{err}");
    let with_exact = CHAINS.replace("\"kahn\"", "\"kahn\", \"exact\"");
    let err = run_new_ok("b.toml", &format!("{with_exact}{budget}"));
    assert!(!err.contains("warning"), "{err}");
}

/// A graph whose only baseline fails (its Nodes order breaks the edges, so
/// `program` has no order; its buffer has two readers, so `liu` refuses
/// it) is named in a warning: its reductions are empty.
#[test]
fn a_graph_without_a_valid_baseline_is_named() {
    let tmp = tempfile::tempdir().unwrap();
    let graph = write(
        tmp.path(),
        "backwards.json",
        r#"{"Nodes": [{"Id": 1, "Op": "FREE", "BufId": 7}, {"Id": 0, "Op": "ALLOC", "Size": 8, "BufId": 7},
                      {"Id": 2, "Op": "a"}, {"Id": 3, "Op": "b"}],
            "Edges": [[0, 2], [0, 3], [2, 1], [3, 1]]}"#,
    );
    let config = |baselines: &str| {
        format!("solvers = [\"kahn\"]\nbaselines = [{baselines}]\nplots = []\n[graphs]\nfiles = [\"{graph}\"]\n")
    };
    let cfg = write(tmp.path(), "c.toml", &config("\"program\""));
    let err = run_ok(&cfg, &tmp.path().join("o1"), &[]);
    assert!(
        err.contains("1 graph(s) have no valid baseline")
            && err.contains("`backwards`")
            && err.contains("fails `program`; add `kahn`"),
        "{err}"
    );
    // Its cells in the report are peaks, and the caption says so.
    let readme =
        |dir: &str| std::fs::read_to_string(tmp.path().join(dir).join("README.md")).unwrap();
    assert!(readme("o1").contains("a cell gives the solver's peak instead"));
    // The hint fits the baselines: `program` not among them is not blamed.
    let cfg = write(tmp.path(), "c.toml", &config("\"liu\""));
    let err = run_ok(&cfg, &tmp.path().join("o3"), &[]);
    assert!(
        err.contains("1 graph(s) have no valid baseline") && !err.contains("`program`"),
        "{err}"
    );
    let cfg = write(tmp.path(), "c.toml", &config("\"program\", \"kahn\""));
    let err = run_ok(&cfg, &tmp.path().join("o2"), &[]);
    assert!(!err.contains("no valid baseline"), "{err}");
    assert!(!readme("o2").contains("peak instead"));
}

/// A shard holds some of a graph's rows: a graph whose baseline row is in
/// another shard is not reported as lacking a baseline, and a reduction
/// plot left undrawn for that reason says to merge the shards.
#[test]
fn a_shard_without_the_baseline_rows_does_not_warn() {
    let tmp = tempfile::tempdir().unwrap();
    let cfg = write(
        tmp.path(),
        "s.toml",
        "solvers = [\"kahn\", \"seed-greedy\"]\nplots = [\"reduction\"]\n[graphs]\ngenerate = [{ spec = \"chain:length=3\", seeds = \"0..2\" }]\n",
    );
    let mut undrawn = 0;
    for shard in ["0/3", "1/3", "2/3"] {
        let out = tmp.path().join(shard.replace('/', "-"));
        let err = run_ok(&cfg, &out, &["--shard", shard]);
        assert!(!err.contains("no valid baseline"), "{shard}: {err}");
        // (An empty shard has its own warning.)
        if err.contains("not drawn: `reduction`") && !err.contains("holds none") {
            undrawn += 1;
            assert!(
                err.contains("`memsched merge` every shard"),
                "{shard}: {err}"
            );
        }
    }
    assert!(
        undrawn > 0,
        "some shard lacks the baseline rows of its graphs"
    );
}

/// Seed ranges each within their cap can still multiply into a plan too
/// large to hold: an error, not an abort.
#[test]
fn a_plan_too_large_to_hold_is_a_config_error() {
    let err = run_new_invalid(
        "big.toml",
        "solvers = [\"random\"]\nseeds = \"0..1000000\"\nplots = []\n[graphs]\ngenerate = [{ spec = \"chain:length=3\", seeds = \"0..1000000\" }]\n",
    );
    assert!(err.contains("at most 5000000 are allowed"), "{err}");
    // 6 million solves (and the 6 baseline rows): each seed range fine, the product over the cap
    // (99 million exhausted a review's machine before the cap came down).
    let err = run_new_invalid(
        "six.toml",
        "solvers = [\"random\"]\nseeds = \"0..1000000\"\nplots = []\n[graphs]\ngenerate = [{ spec = \"chain:length=3\", seeds = \"0..6\" }]\n",
    );
    assert!(err.contains("the config makes 6000006 solves"), "{err}");
}

/// A directory in `files` and a malformed `seeds` say what to write
/// instead, without serde's internal names.
#[test]
fn a_directory_file_and_bad_seeds_say_what_to_write() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::create_dir(tmp.path().join("graphs")).unwrap();
    let dir = tmp.path().join("graphs");
    let cfg = write(
        tmp.path(),
        "dir.toml",
        &format!(
            "solvers = [\"kahn\"]\nplots = []\n[graphs]\nfiles = [{:?}]\n",
            dir.display().to_string()
        ),
    );
    let err = run_invalid(&cfg, &tmp.path().join("o1"), &[]);
    assert!(
        err.contains("is a directory") && err.contains("/*.json"),
        "{err}"
    );
    for seeds in ["-1", "1.5"] {
        let err = run_new_invalid("seeds.toml", &format!("seeds = {seeds}\n{CHAINS}"));
        assert!(
            err.contains("a range string") && !err.contains("untagged enum"),
            "{seeds}: {err}"
        );
    }
}

/// A shard that holds no solve (more shards than solves: here kahn and the
/// program baseline) runs nothing and
/// says so, instead of a silent "0 solves".
#[test]
fn an_empty_shard_is_named_in_a_warning() {
    let tmp = tempfile::tempdir().unwrap();
    let cfg = write(
        tmp.path(),
        "e.toml",
        &format!("solvers = [\"kahn\"]\n[graphs]\nfiles = [\"{EXAMPLE}\"]\n"),
    );
    let out = tmp.path().join("o");
    let err = run_ok(&cfg, &out, &["--shard", "5/9"]);
    assert!(
        err.contains("warning: shard 5/9 holds none of the 2 solves"),
        "{err}"
    );
}

/// `run` lists the graph warnings `validate` prints (here a compute node
/// with a `Size`, which only ALLOCs have), naming the graph, on every run.
#[test]
fn run_lists_the_warnings_about_its_graphs() {
    let tmp = tempfile::tempdir().unwrap();
    write(
        tmp.path(),
        "g.json",
        r#"{"Nodes": [{"Id": 0, "Op": "ALLOC", "Size": 8, "BufId": 1},
            {"Id": 1, "Op": "Conv", "Size": 4096}, {"Id": 2, "Op": "FREE", "BufId": 1}],
            "Edges": [[0, 1], [1, 2]]}"#,
    );
    let cfg = write(
        tmp.path(),
        "c.toml",
        &format!(
            "solvers = [\"kahn\"]\nplots = []\n[graphs]\nfiles = [\"{}\"]\n",
            arg(&tmp.path().join("g.json"))
        ),
    );
    let out = tmp.path().join("out");
    for _ in 0..2 {
        let err = run_ok(&cfg, &out, &[]);
        assert!(
            err.contains("warning: graph `g`: compute node 1 (`Conv`) has Size 4096"),
            "{err}"
        );
    }
}

/// A plot the rows give nothing to draw is named in a warning with what it
/// needs (an empty graph: every peak is 0, so no reduction ratio and no
/// time point); the README counts one graph in the singular.
#[test]
fn plots_left_undrawn_are_named() {
    let tmp = tempfile::tempdir().unwrap();
    let graph = write(tmp.path(), "empty.json", r#"{"Nodes": [], "Edges": []}"#);
    let cfg = write(
        tmp.path(),
        "e.toml",
        &format!("solvers = [\"kahn\"]\n[graphs]\nfiles = [\"{graph}\"]\n"),
    );
    let out = tmp.path().join("out");
    let err = run_ok(&cfg, &out, &[]);
    assert!(
        err.contains("warning: plot(s) not drawn: `reduction` (it needs")
            && err.contains("`time` (it needs"),
        "{err}"
    );
    let readme = fs::read_to_string(out.join("README.md")).unwrap();
    assert!(
        readme.contains("2 runs over 1 graph and 2 solvers"),
        "{readme}"
    );
}

/// A randomized baseline is noted: which of its seeds' rows is the graph's
/// baseline is not otherwise said.
#[test]
fn a_randomized_baseline_is_noted() {
    let err = run_new_ok(
        "r.toml",
        "solvers = [\"kahn\"]\nbaselines = [\"random\"]\nseeds = \"0..2\"\nplots = []\n\
         [graphs]\ngenerate = [\"chain:length=3\"]\n",
    );
    assert!(
        err.contains("note: baseline `random` is randomized: a graph's baseline is its row of the lowest seed"),
        "{err}"
    );
}

/// A rule that reads `latency` on graphs without the field is warned
/// about once, naming the first graphs and the rule, as `schedule` warns;
/// without such a rule, no word.
#[test]
fn a_latency_rule_on_graphs_without_latency_is_a_warning() {
    let rule = CHAINS.replace("\"kahn\"", "\"kahn\", \"rule:delta+20000*latency,id\"");
    assert_ne!(rule, CHAINS);
    let err = run_new_ok("l.toml", &rule);
    assert!(
        err.contains("have no `Latency` field")
            && err.contains(
                "`latency` is 0 for every node of theirs in `rule:delta+20000.0*latency,id`"
            ),
        "{err}"
    );
    let err = run_new_ok("l.toml", CHAINS);
    assert!(!err.contains("Latency"), "{err}");
}
