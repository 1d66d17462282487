//! Command-line checks a reviewer found missing: each bad flag or bad input
//! is an error naming what is wrong and where (exit code 2, never a panic),
//! and flags that do nothing for a solver say so.

mod cli_support;

use std::process::Output;

use cli_support::{run, stderr};

use serde_json::Value;

/// The article's example graph (peak 1024 in every order).
const EXAMPLE: &str = include_str!("../examples/seed_example.json");

/// Asserts exit code 2, no panic, and that stderr contains every needle.
fn assert_exit_2(o: &Output, needles: &[&str]) {
    let err = stderr(o);
    assert_eq!(o.status.code(), Some(2), "exit code: {err}");
    assert!(!err.contains("panicked"), "panic: {err}");
    for needle in needles {
        assert!(err.contains(needle), "stderr lacks `{needle}`: {err}");
    }
}

/// Writes `text` to a file in a fresh directory; returns both (the directory
/// lives as long as the handle).
fn file_with(text: &str) -> (tempfile::TempDir, String) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("g.json");
    std::fs::write(&path, text).unwrap();
    (dir, path.to_str().unwrap().to_string())
}

#[test]
fn cli_checks_gen_rejects_min_above_max() {
    for family in [
        "chain",
        "series-parallel",
        "tree",
        "random-layered",
        "tensor-program",
    ] {
        let o = run(&["gen", family, "-p", "min=5000", "-p", "max=10"], None);
        assert_exit_2(&o, &[family, "`min` = `5000`", "`max` = `10`"]);
        assert!(o.stdout.is_empty(), "{family}: no graph written");
    }
    let o = run(&["gen", "chain", "-p", "min=10", "-p", "max=10"], None);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
}

#[test]
fn cli_checks_schedule_and_transform_name_the_invalid_file() {
    let cycle =
        r#"{"Nodes": [{"Id": 0, "Op": "A"}, {"Id": 1, "Op": "B"}], "Edges": [[0, 1], [1, 0]]}"#;
    let (_dir, path) = file_with(cycle);
    let named = format!("{path} is not a valid graph: the edges contain a cycle");
    for args in [
        &["schedule", path.as_str()][..],
        &["transform", path.as_str(), "--allocs", "floating"][..],
        &["validate", path.as_str()][..],
    ] {
        assert_exit_2(&run(args, None), &[&named]);
    }
    // Standard input is named as such; a missing file once, by its path.
    let o = run(&["schedule", "-"], Some(cycle));
    assert_exit_2(
        &o,
        &["standard input is not a valid graph: the edges contain a cycle"],
    );
    let missing = format!("{path}.missing");
    let o = run(&["schedule", &missing], None);
    assert_exit_2(&o, &[&format!("cannot read {missing}: ")]);
    assert_eq!(stderr(&o).matches(&missing).count(), 1, "{}", stderr(&o));
}

#[test]
fn cli_checks_io_errors_are_not_repeated() {
    // An output directory under a file is refused up front, naming the file.
    let (_dir, file) = file_with("not a directory");
    let out = format!("{file}/results");
    let config = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/configs/tiny.toml");
    let o = run(&["run", config, "--quiet", "--out", &out], None);
    assert_exit_2(&o, &[&format!("{file} exists and is not a directory")]);
    // A report under a file is refused before solving.
    let report = format!("{file}/report.txt");
    let o = run(&["schedule", "-", "--out", &report], Some(EXAMPLE));
    assert_exit_2(&o, &[&format!("there is no directory {file}")]);
    // A report that cannot be written (a full device): the failed
    // operation is named, and the OS error appears once.
    let report = "/dev/full";
    if !std::path::Path::new(report).exists() {
        return;
    }
    let o = run(&["schedule", "-", "--out", report], Some(EXAMPLE));
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(!err.contains("panicked"), "{err}");
    assert!(err.contains(&format!("cannot write {report}")), "{err}");
    assert_eq!(
        err.matches("(os error").count(),
        1,
        "OS error repeated: {err}"
    );
}

#[test]
fn cli_checks_time_limit_and_seed_say_what_is_wrong() {
    let o = run(&["schedule", "-", "--time-limit", "1e30"], Some(EXAMPLE));
    assert_exit_2(
        &o,
        &["--time-limit 1e30 is too large", "below 1.8e19 seconds"],
    );
    for bad in ["-1", "-0.5", "0"] {
        let o = run(&["schedule", "-", "--time-limit", bad], Some(EXAMPLE));
        assert_exit_2(&o, &["--time-limit must be a positive number of seconds"]);
        assert!(
            !stderr(&o).contains("unexpected argument"),
            "{}",
            stderr(&o)
        );
    }
    for args in [
        &["schedule", "-", "--seed", "-1"][..],
        &["gen", "chain", "--seed", "-1"][..],
    ] {
        let o = run(args, Some(EXAMPLE));
        assert_exit_2(&o, &["--seed must be a non-negative integer", "got -1"]);
    }
    let o = run(&["gen", "chain", "--seed", "18446744073709551615"], None);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
}

#[test]
fn cli_checks_miscased_op_and_non_numeric_latency_are_errors() {
    let lower = r#"{"Nodes": [{"Id": 4, "Op": "alloc", "Size": 64, "BufId": 1}, {"Id": 5, "Op": "FREE", "BufId": 1}], "Edges": [[4, 5]]}"#;
    let (_dir, path) = file_with(lower);
    for args in [
        &["validate", path.as_str()][..],
        &["schedule", path.as_str()][..],
    ] {
        assert_exit_2(
            &run(args, None),
            &[
                "node 4",
                "\"alloc\"",
                "write exactly \"ALLOC\"",
                "no spaces",
            ],
        );
    }
    let free = r#"{"Nodes": [{"Id": 0, "Op": "ALLOC", "Size": 64, "BufId": 1}, {"Id": 8, "Op": "Free", "BufId": 1}], "Edges": [[0, 8]]}"#;
    assert_exit_2(
        &run(&["schedule", "-"], Some(free)),
        &["node 8", "write exactly \"FREE\""],
    );
    let latency = r#"{"Nodes": [{"Id": 0, "Op": "A", "Latency": 3}, {"Id": 6, "Op": "B", "Latency": "slow"}], "Edges": [[0, 6]]}"#;
    let o = run(
        &["schedule", "-", "--solver", "rule:latency,id"],
        Some(latency),
    );
    assert_exit_2(&o, &["node 6", "Latency", "\"slow\""]);
}

#[test]
fn cli_checks_help_states_the_limits_and_the_budget_applies() {
    let o = run(&["schedule", "--help"], None);
    // Words only: where clap wraps a line is not the contract.
    let help = String::from_utf8_lossy(&o.stdout)
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    assert!(help.contains("Default: none"), "{help}");
    assert!(
        help.contains("--memory-budget") && help.contains("[default: 4GiB]"),
        "{help}"
    );
    assert!(help.contains("--max-states"), "{help}");
    let report = |extra: &[&str]| -> Value {
        let mut args = vec!["schedule", "-", "--solver", "dp", "--format", "json"];
        args.extend_from_slice(extra);
        let o = run(&args, Some(EXAMPLE));
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        serde_json::from_slice(&o.stdout).unwrap()
    };
    assert_eq!(report(&[])["status"], "optimal");
    // Stopped at once; its fallback order may still be proven optimal by
    // the F4 bound (it is on this graph), so the note is what shows the stop.
    let tight = report(&["--memory-budget", "1"]);
    assert!(
        tight["note"]
            .as_str()
            .unwrap()
            .contains("dp stopped by the memory budget"),
        "{tight}"
    );
    assert_eq!(tight["counters"]["expanded"], 0, "{tight}");
    if tight["status"] == "optimal" {
        assert_eq!(tight["lower_bound"], tight["peak"], "{tight}");
    } else {
        assert_eq!(tight["status"], "feasible", "{tight}");
    }
    let few = report(&["--max-states", "1"]);
    assert!(
        few["note"].as_str().unwrap().contains("state budget"),
        "{few}"
    );
    assert_eq!(report(&["--memory-budget", "2GiB"])["status"], "optimal");
    for bad in ["0", "12XB", "-5", "99999999999TiB"] {
        let o = run(&["schedule", "-", "--memory-budget", bad], Some(EXAMPLE));
        assert_exit_2(&o, &["--memory-budget"]);
        assert!(
            !stderr(&o).contains("unexpected argument"),
            "{}",
            stderr(&o)
        );
    }
    for bad in ["0", "-5"] {
        let o = run(&["schedule", "-", "--max-states", bad], Some(EXAMPLE));
        assert_exit_2(&o, &["--max-states"]);
        assert!(
            !stderr(&o).contains("unexpected argument"),
            "{}",
            stderr(&o)
        );
    }
}

#[test]
fn cli_checks_restarts_and_rule_mode_are_checked_and_warned() {
    for bad in ["0", "-3"] {
        let o = run(&["schedule", "-", "--restarts", bad], Some(EXAMPLE));
        assert_exit_2(&o, &["--restarts must be at least 1"]);
    }
    let o = run(
        &["schedule", "-", "--solver", "kahn", "--restarts", "4"],
        Some(EXAMPLE),
    );
    assert_eq!(o.status.code(), Some(0));
    assert!(
        stderr(&o).contains("warning: --restarts has no effect on solver `kahn`"),
        "{}",
        stderr(&o)
    );
    let o = run(
        &[
            "schedule",
            "-",
            "--solver",
            "seed-greedy",
            "--rule-mode",
            "moves",
        ],
        Some(EXAMPLE),
    );
    assert_eq!(o.status.code(), Some(0));
    assert!(
        stderr(&o).contains("warning: --rule-mode moves has no effect on solver `seed-greedy`"),
        "{}",
        stderr(&o)
    );
    // --seed: a warning for kahn alone, none for a seeded solver (nor for
    // ilp, whose HiGHS takes it, when it is built).
    let seed = |solver: &str| {
        let o = run(
            &["schedule", "-", "--solver", solver, "--seed", "3"],
            Some(EXAMPLE),
        );
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        stderr(&o).contains("warning: --seed has no effect")
    };
    assert!(seed("kahn"));
    assert!(!seed("random"));
    assert!(!seed("rule:random,id"));
    if cfg!(feature = "ilp") {
        assert!(!seed("ilp"));
    }
    for budget in [&["--max-states", "5"][..], &["--memory-budget", "1MiB"][..]] {
        let mut all = vec!["schedule", "-", "--solver", "kahn"];
        all.extend_from_slice(budget);
        let o = run(&all, Some(EXAMPLE));
        assert_eq!(o.status.code(), Some(0));
        // The warning names the flag given, not both.
        let warning = format!("warning: {} has no effect on solver `kahn`", budget[0]);
        assert!(stderr(&o).contains(&warning), "{}", stderr(&o));
    }
    // Where they apply: no warning.
    for args in [
        &["--solver", "noisy:delta,id", "--restarts", "3"][..],
        &["--solver", "random-moves", "--restarts", "2"][..],
        &["--solver", "rule:delta,type,id", "--rule-mode", "moves"][..],
        &["--solver", "rule :delta,type,id", "--rule-mode", "moves"][..],
        &["--solver", "exact", "--max-states", "1000"][..],
        &["--solver", "best-heuristic", "--memory-budget", "1GiB"][..],
        &["--solver", "kahn"][..],
    ] {
        let mut all = vec!["schedule", "-"];
        all.extend_from_slice(args);
        let o = run(&all, Some(EXAMPLE));
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        assert!(!stderr(&o).contains("warning"), "{args:?}: {}", stderr(&o));
    }
}

/// `--rule-mode moves` turns `rule:E` into `moves:E` however the name is
/// spaced (the registry reads `rule :E` as `rule:E`): the solve is the
/// moves solver's, with no "no effect" warning.
#[test]
fn rule_mode_moves_reads_a_spaced_rule_name() {
    let moves = run(
        &[
            "schedule",
            "-",
            "-s",
            "moves:delta,type,id",
            "--format",
            "json",
        ],
        Some(EXAMPLE),
    );
    let moves: Value = serde_json::from_slice(&moves.stdout).unwrap();
    for name in ["rule :delta,type,id", " rule : delta,type,id"] {
        let o = run(
            &[
                "schedule",
                "-",
                "-s",
                name,
                "--rule-mode",
                "moves",
                "--format",
                "json",
            ],
            Some(EXAMPLE),
        );
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        assert!(!stderr(&o).contains("warning"), "{name:?}: {}", stderr(&o));
        let v: Value = serde_json::from_slice(&o.stdout).unwrap();
        assert_eq!(v["solver"], moves["solver"], "{name:?}");
        assert_eq!(v["solver"], "moves:delta,type,id");
    }
}

/// `schedule -j N` (`--threads N`) sets the worker threads of the solvers
/// that run in parallel, is checked as `run`'s is, and changes no result:
/// the restarts of a noisy rule and of `random-moves` pick the same best
/// restart and order on 1 thread as on 2.
#[test]
fn schedule_threads_are_checked_and_leave_results_unchanged() {
    for (bad, message) in [
        ("0", "--threads must be at least 1"),
        ("4097", "--threads 4097: at most 4096"),
    ] {
        let o = run(&["schedule", "-", "-j", bad], Some(EXAMPLE));
        assert_exit_2(&o, &[message]);
    }
    let dir = tempfile::tempdir().unwrap();
    let graph = dir.path().join("rl.json");
    let graph = graph.to_str().unwrap();
    let o = run(
        &[
            "gen",
            "random-layered",
            "-p",
            "allocs=floating",
            "--seed",
            "3",
            "-o",
            graph,
        ],
        None,
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let reports = |threads: &[&str]| -> Vec<Value> {
        let mut args = vec![
            "schedule",
            graph,
            "-s",
            "noisy:delta,type,id",
            "-s",
            "random-moves",
            "--restarts",
            "16",
            "--seed",
            "7",
            "--format",
            "json",
        ];
        args.extend_from_slice(threads);
        let o = run(&args, None);
        assert_eq!(o.status.code(), Some(0), "{threads:?}: {}", stderr(&o));
        assert!(!stderr(&o).contains("warning"), "{}", stderr(&o));
        String::from_utf8_lossy(&o.stdout)
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    };
    let one = reports(&["-j", "1"]);
    let two = reports(&["--threads", "2"]);
    assert_eq!(one.len(), 2);
    for (a, b) in one.iter().zip(&two) {
        assert_eq!(a["counters"]["restarts"], 16);
        for field in ["solver", "peak", "note", "order"] {
            assert_eq!(a[field], b[field], "{field} of {}", a["solver"]);
        }
    }
}

/// Messages a reviewer found misleading: a fractional byte count, and a
/// datasets folder that is not there (invalid input, exit 2).
#[test]
fn fractions_of_bytes_and_a_missing_datasets_folder_say_what_is_wrong() {
    let o = run(
        &[
            "schedule",
            "-",
            "--solver",
            "exact",
            "--memory-budget",
            "1.5GiB",
        ],
        Some(EXAMPLE),
    );
    assert_exit_2(
        &o,
        &["fractions such as 1.5GiB are not supported", "1536MiB"],
    );
    let o = run(&["datasets", "--dir", "/nonexistent/datasets"], None);
    assert_exit_2(
        &o,
        &[
            "/nonexistent/datasets/models/manifest.csv is missing",
            "--dir",
        ],
    );
    // A document without the tables' markers is bad input too.
    let dir = tempfile::tempdir().unwrap();
    let doc = dir.path().join("R.md");
    std::fs::write(&doc, "# no tables here\n").unwrap();
    let datasets = concat!(env!("CARGO_MANIFEST_DIR"), "/datasets");
    let o = run(
        &[
            "datasets",
            "--dir",
            datasets,
            "--update",
            doc.to_str().unwrap(),
        ],
        None,
    );
    assert_exit_2(&o, &["<!-- BEGIN models-table -->", "markers"]);
}

/// A graph of several nodes and no edge is valid, with a warning that its
/// dependencies may be missing (exported under another key); one edge
/// silences it.
#[test]
fn a_graph_without_edges_is_warned_about() {
    let unordered = r#"{"Nodes": [{"Id": 0, "Op": "ALLOC", "Size": 8, "BufId": 0}, {"Id": 1, "Op": "conv", "Inputs": [0]}]}"#;
    let (_dir, path) = file_with(unordered);
    for args in [
        &["validate", path.as_str()][..],
        &["schedule", path.as_str()],
    ] {
        let o = run(args, None);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        assert!(
            stderr(&o).contains("has 2 nodes and no edge"),
            "{}",
            stderr(&o)
        );
    }
    let ordered = unordered.replace("]}]}", "]}], \"Edges\": [[0, 1]]}");
    let (_dir, path) = file_with(&ordered);
    let o = run(&["validate", path.as_str()], None);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(!stderr(&o).contains("no edge"), "{}", stderr(&o));
}

/// `transform` drops an edge from a FREE or an ALLOC into an ALLOC, a
/// memory constraint, and says so (here the optimum falls from 5 to 3);
/// a generated graph has none and gets no warning.
#[test]
fn transform_warns_when_it_drops_a_memory_constraint() {
    let g = r#"{"Nodes":[{"Id":2,"Op":"ALLOC","Size":3,"BufId":2},{"Id":6,"Op":"FREE","BufId":2},{"Id":0,"Op":"ALLOC","Size":2,"BufId":0}],"Edges":[[0,2],[2,6]]}"#;
    let (_dir, path) = file_with(g);
    let o = run(&["transform", path.as_str(), "--allocs", "floating"], None);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("the edge [0, 2] (an ALLOC before an ALLOC) is dropped"),
        "{}",
        stderr(&o)
    );
    let chain = run(&["gen", "chain:length=3"], None);
    let o = run(
        &["transform", "-", "--allocs", "floating"],
        Some(&String::from_utf8(chain.stdout).unwrap()),
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(!stderr(&o).contains("warning"), "{}", stderr(&o));
}

/// A rule reading `latency` on a graph without any `Latency` gets a
/// warning (every node's latency is then 0); with one, none.
#[test]
fn a_latency_rule_on_a_graph_without_latencies_is_warned_about() {
    let rule = "rule:0.7*delta+0.3*latency,id";
    let plain = r#"{"Nodes":[{"Id":0,"Op":"ALLOC","Size":4,"BufId":1},{"Id":1,"Op":"A"},{"Id":2,"Op":"FREE","BufId":1}],"Edges":[[0,1],[1,2]]}"#;
    let (_dir, path) = file_with(plain);
    let o = run(&["schedule", path.as_str(), "-s", rule], None);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("has a `Latency` field"),
        "{}",
        stderr(&o)
    );
    let timed = plain.replace(r#""Op":"A""#, r#""Op":"A","Latency":2.5"#);
    let (_dir, path) = file_with(&timed);
    let o = run(&["schedule", path.as_str(), "-s", rule], None);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(!stderr(&o).contains("Latency"), "{}", stderr(&o));
}
