//! Command-line checks a reviewer found missing: each bad flag or bad input
//! is an error naming what is wrong and where (exit code 2, never a panic),
//! and flags that do nothing for a solver say so.
#![cfg(feature = "cli")]

mod cli_support;

use std::process::Output;

use cli_support::{expect_exit, run, schedule, stderr, temp_file};

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

/// Runs `schedule - FLAG VALUE` on the example and asserts [`assert_exit_2`]
/// with `needle`, the value refused as the flag's (one starting with `-`
/// not taken for another flag).
fn assert_bad_value(flag: &str, value: &str, needle: &str) {
    let o = schedule(&[flag, value], EXAMPLE);
    assert_exit_2(&o, &[needle]);
    let err = stderr(&o);
    assert!(
        !err.contains("unexpected argument"),
        "{flag} {value}: {err}"
    );
}

/// `text` in a file `g.json` of a fresh directory (see [`temp_file`]).
fn file_with(text: &str) -> (tempfile::TempDir, String) {
    temp_file("g.json", text)
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
    expect_exit(&o, 0);
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
    let o = schedule(&[], cycle);
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
    let o = schedule(&["--out", &report], EXAMPLE);
    assert_exit_2(&o, &[&format!("there is no directory {file}")]);
    // A report that cannot be written (a full device): the failed
    // operation is named, and the OS error appears once.
    let report = "/dev/full";
    if !std::path::Path::new(report).exists() {
        return;
    }
    let o = schedule(&["--out", report], EXAMPLE);
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

/// An output file in no directory, or naming one, is invalid input (exit
/// 2) in every command that writes one, refused before any work.
#[test]
fn cli_checks_every_output_file_is_checked_up_front() {
    let (dir, graph) = file_with(EXAMPLE);
    let missing = format!("{}/missing/x.json", dir.path().display());
    let slashed = format!("{graph}/");
    for out in [&missing, &slashed] {
        for args in [
            &["gen", "chain", "-o", out][..],
            &["transform", &graph, "--allocs", "floating", "-o", out],
        ] {
            assert_exit_2(&run(args, None), &[&format!("--out {out}")]);
        }
    }
    let o = run(&["datasets", "--update", &missing], None);
    assert_exit_2(&o, &[&format!("--update {missing}: no such file")]);
}

/// `--help` and `--version` that cannot be written (a full device) are an
/// error, exit 1, as any other output is; to a working output, exit 0.
#[test]
fn cli_checks_help_that_cannot_be_written_is_an_error() {
    let full = "/dev/full";
    if !std::path::Path::new(full).exists() {
        return;
    }
    for args in [&["--help"][..], &["-V"], &["schedule", "--help"]] {
        let o = std::process::Command::new(env!("CARGO_BIN_EXE_memsched"))
            .args(args)
            .stdout(std::fs::File::create(full).unwrap())
            .output()
            .unwrap();
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(1), "{args:?}: {err}");
        assert!(err.contains("cannot write to standard output"), "{err}");
        assert_eq!(run(args, None).status.code(), Some(0), "{args:?}");
    }
}

/// Many more worker threads than cores are warned about (they take turns
/// on the cores and overrun time limits); one per core is not.
#[test]
fn threads_far_past_the_cores_are_warned_about() {
    let cores = std::thread::available_parallelism().map_or(1, |c| c.get());
    if 4 * cores + 1 > 4096 {
        return; // past --threads' cap: no flag value can be warned about
    }
    let many = (4 * cores + 1).to_string();
    let o = schedule(&["-s", "kahn", "-j", &many], EXAMPLE);
    let err = expect_exit(&o, 0);
    assert!(
        err.contains(&format!("warning: {many} worker threads on")),
        "{err}"
    );
    let o = schedule(&["-s", "kahn", "-j", &cores.to_string()], EXAMPLE);
    assert!(!expect_exit(&o, 0).contains("worker threads"));
}

#[test]
fn cli_checks_time_limit_and_seed_say_what_is_wrong() {
    let o = schedule(&["--time-limit", "1e30"], EXAMPLE);
    assert_exit_2(
        &o,
        &["--time-limit 1e30 is too large", "below 1.8e19 seconds"],
    );
    // Below a nanosecond the limit would be 0 (shown as `time limit 0 s`).
    for tiny in ["1e-10", "9e-10"] {
        let o = schedule(&["--time-limit", tiny], EXAMPLE);
        assert_exit_2(&o, &[&format!("--time-limit {tiny} is below a nanosecond")]);
    }
    expect_exit(&schedule(&["--time-limit", "1e-9"], EXAMPLE), 0);
    let o = schedule(&["-s", "random", "--time-limit", "2.5s"], EXAMPLE);
    expect_exit(&o, 0);
    assert!(String::from_utf8_lossy(&o.stdout).contains("time limit 2.5 s"));
    for other in ["500ms", "2m", "1 h"] {
        let needle = format!("`{other}` is not a number of seconds: write `30` or `30s`");
        assert_bad_value("--time-limit", other, &needle);
    }
    for bad in ["-1", "-0.5", "0"] {
        let needle = "--time-limit must be a positive number of seconds";
        assert_bad_value("--time-limit", bad, needle);
    }
    for args in [
        &["schedule", "-", "--seed", "-1"][..],
        &["gen", "chain", "--seed", "-1"][..],
    ] {
        let o = run(args, Some(EXAMPLE));
        assert_exit_2(&o, &["--seed must be a non-negative integer", "got -1"]);
    }
    let o = run(&["gen", "chain", "--seed", "18446744073709551615"], None);
    expect_exit(&o, 0);
    // Past u32 (and past u64) --restarts names its limit.
    for big in ["4294967296", "18446744073709551615"] {
        assert_bad_value("--restarts", big, "--restarts must be at most 4294967295");
    }
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
    assert_exit_2(&schedule(&[], free), &["node 8", "write exactly \"FREE\""]);
    let latency = r#"{"Nodes": [{"Id": 0, "Op": "A", "Latency": 3}, {"Id": 6, "Op": "B", "Latency": "slow"}], "Edges": [[0, 6]]}"#;
    let o = schedule(&["--solver", "rule:latency,id"], latency);
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
    assert!(help.contains("default: none)"), "{help}");
    assert!(
        help.contains("--memory-budget") && help.contains("[default: 4GiB]"),
        "{help}"
    );
    assert!(help.contains("--max-states"), "{help}");
    let report = |extra: &[&str]| -> Value {
        let mut args = vec!["--solver", "dp", "--format", "json"];
        args.extend_from_slice(extra);
        let o = schedule(&args, EXAMPLE);
        expect_exit(&o, 0);
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
        assert_bad_value("--memory-budget", bad, "--memory-budget");
    }
    for bad in ["0", "-5"] {
        assert_bad_value("--max-states", bad, "--max-states");
    }
}

#[test]
fn cli_checks_restarts_and_rule_mode_are_checked_and_warned() {
    for bad in ["0", "-3"] {
        let o = schedule(&["--restarts", bad], EXAMPLE);
        assert_exit_2(&o, &["--restarts must be at least 1"]);
    }
    // A flag the solver does not read: a warning naming both (a budget's
    // names the flag given, not both budgets).
    for (args, warning) in [
        (
            &["--solver", "kahn", "--restarts", "4"][..],
            "warning: --restarts has no effect on solver `kahn`",
        ),
        (
            &["--solver", "seed-greedy", "--rule-mode", "moves"],
            "warning: --rule-mode moves has no effect on solver `seed-greedy`",
        ),
        (
            &["--solver", "kahn", "--max-states", "5"],
            "warning: --max-states has no effect on solver `kahn`",
        ),
        (
            &["--solver", "kahn", "--memory-budget", "1MiB"],
            "warning: --memory-budget has no effect on solver `kahn`",
        ),
        // Named at its default, a flag is still the user's, as `--seed 0` is.
        (
            &["--solver", "kahn", "--memory-budget", "4GiB"],
            "warning: --memory-budget has no effect on solver `kahn`",
        ),
        (
            &["--solver", "kahn", "--max-states", "50000000"],
            "warning: --max-states has no effect on solver `kahn`",
        ),
        (
            &["-s", "rule:delta", "-s", "rule: delta"],
            "warning: `rule:delta` and `rule: delta` are the same solver `rule:delta`",
        ),
        (
            &[
                "-s",
                "rule:delta",
                "-s",
                "moves:delta",
                "--rule-mode",
                "moves",
            ],
            "warning: `rule:delta` and `moves:delta` are the same solver `moves:delta`",
        ),
    ] {
        let err = expect_exit(&schedule(args, EXAMPLE), 0);
        assert!(err.contains(warning), "{args:?}: {err}");
    }
    // --seed: a warning for kahn alone, none for a seeded solver (nor for
    // ilp, whose HiGHS takes it, when it is built).
    let seed = |solver: &str| {
        let o = schedule(&["--solver", solver, "--seed", "3"], EXAMPLE);
        expect_exit(&o, 0).contains("warning: --seed has no effect")
    };
    assert!(seed("kahn"));
    assert!(!seed("random"));
    assert!(!seed("rule:random,id"));
    if cfg!(feature = "ilp") {
        assert!(!seed("ilp"));
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
        let err = expect_exit(&schedule(args, EXAMPLE), 0);
        assert!(!err.contains("warning"), "{args:?}: {err}");
    }
}

/// `--rule-mode moves` turns `rule:E` into `moves:E` however the name is
/// spaced (the registry reads `rule :E` as `rule:E`): the solve is the
/// moves solver's, with no "no effect" warning.
#[test]
fn rule_mode_moves_reads_a_spaced_rule_name() {
    let moves = schedule(&["-s", "moves:delta,type,id", "--format", "json"], EXAMPLE);
    let moves: Value = serde_json::from_slice(&moves.stdout).unwrap();
    for name in ["rule :delta,type,id", " rule : delta,type,id"] {
        let args = ["-s", name, "--rule-mode", "moves", "--format", "json"];
        let o = schedule(&args, EXAMPLE);
        let err = expect_exit(&o, 0);
        assert!(!err.contains("warning"), "{name:?}: {err}");
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
        let o = schedule(&["-j", bad], EXAMPLE);
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
    expect_exit(&o, 0);
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
    let o = schedule(&["--solver", "exact", "--memory-budget", "1.5GiB"], EXAMPLE);
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
    // A section's markers are named with the file's own lines, though an
    // earlier section's table (here one row, rewritten as the full
    // table) changes the line count.
    std::fs::write(
        &doc,
        "<!-- BEGIN models-table -->\n| x |\n<!-- END models-table -->\n\n\
         <!-- BEGIN nas-table -->\nold\n",
    )
    .unwrap();
    let update = [
        "datasets",
        "--dir",
        datasets,
        "--update",
        doc.to_str().unwrap(),
    ];
    let o = run(&update, None);
    assert_exit_2(
        &o,
        &["`<!-- BEGIN nas-table -->` (line 5) has no `<!-- END nas-table -->`"],
    );
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
        let err = expect_exit(&run(args, None), 0);
        assert!(err.contains("has 2 nodes and no edge"), "{err}");
    }
    let ordered = unordered.replace("]}]}", "]}], \"Edges\": [[0, 1]]}");
    let (_dir, path) = file_with(&ordered);
    let err = expect_exit(&run(&["validate", path.as_str()], None), 0);
    assert!(!err.contains("no edge"), "{err}");
}

/// `transform` drops an edge from a FREE or an ALLOC into an ALLOC, a
/// memory constraint, and says so (here the optimum falls from 5 to 3);
/// a generated graph has none and gets no warning.
#[test]
fn transform_warns_when_it_drops_a_memory_constraint() {
    let g = r#"{"Nodes":[{"Id":2,"Op":"ALLOC","Size":3,"BufId":2},{"Id":6,"Op":"FREE","BufId":2},{"Id":0,"Op":"ALLOC","Size":2,"BufId":0}],"Edges":[[0,2],[2,6]]}"#;
    let (_dir, path) = file_with(g);
    let o = run(&["transform", path.as_str(), "--allocs", "floating"], None);
    let err = expect_exit(&o, 0);
    assert!(
        err.contains("the edge [0, 2] (an ALLOC before an ALLOC) is dropped"),
        "{err}"
    );
    let chain = run(&["gen", "chain:length=3"], None);
    let o = run(
        &["transform", "-", "--allocs", "floating"],
        Some(&String::from_utf8(chain.stdout).unwrap()),
    );
    let err = expect_exit(&o, 0);
    assert!(!err.contains("warning"), "{err}");
    // A FREE before an ALLOC that must still run before the ALLOC's op: the
    // floating encoding drops the edge, the anchored one keeps it.
    let g = r#"{"Nodes":[{"Id":0,"Op":"ALLOC","Size":5,"BufId":0},{"Id":1,"Op":"a"},{"Id":2,"Op":"FREE","BufId":0},{"Id":3,"Op":"ALLOC","Size":7,"BufId":1},{"Id":4,"Op":"b"},{"Id":5,"Op":"FREE","BufId":1}],"Edges":[[0,1],[1,2],[2,3],[3,4],[4,5]]}"#;
    let (_dir, path) = file_with(g);
    for (allocs, warned) in [("floating", true), ("anchored", false)] {
        let o = run(&["transform", path.as_str(), "--allocs", allocs], None);
        let err = expect_exit(&o, 0);
        assert_eq!(
            err.contains("[2, 3] (a FREE before an ALLOC) is dropped"),
            warned,
            "{allocs}: {err}"
        );
    }
}

/// A rule reading `latency` on a graph without any `Latency` gets a
/// warning (every node's latency is then 0); with one, none.
#[test]
fn a_latency_rule_on_a_graph_without_latencies_is_warned_about() {
    let rule = "rule:0.7*delta+0.3*latency,id";
    let plain = r#"{"Nodes":[{"Id":0,"Op":"ALLOC","Size":4,"BufId":1},{"Id":1,"Op":"A"},{"Id":2,"Op":"FREE","BufId":1}],"Edges":[[0,1],[1,2]]}"#;
    let (_dir, path) = file_with(plain);
    let err = expect_exit(&run(&["schedule", path.as_str(), "-s", rule], None), 0);
    assert!(err.contains("has a `Latency` value (a number)"), "{err}");
    let timed = plain.replace(r#""Op":"A""#, r#""Op":"A","Latency":2.5"#);
    let (_dir, path) = file_with(&timed);
    let err = expect_exit(&run(&["schedule", path.as_str(), "-s", rule], None), 0);
    assert!(!err.contains("Latency"), "{err}");
}

/// When every order found peaks above the program order (the article's
/// greedy, the default, does on a floating graph), a hint names
/// `best-heuristic`; when one does not, no hint.
#[test]
fn a_default_order_worse_than_the_program_order_gets_a_hint() {
    let graph = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/datasets/models/resnet50_inference_b1_floating.json"
    );
    let err = expect_exit(&run(&["schedule", graph], None), 0);
    assert!(
        err.contains("hint: the program order peaks lower (9633792 B) than every order found")
            && err.contains("`-s best-heuristic` runs twelve fast heuristics"),
        "{err}"
    );
    for solver in ["best-heuristic", "program"] {
        let err = expect_exit(&run(&["schedule", graph, "-s", solver], None), 0);
        assert!(!err.contains("hint"), "{solver}: {err}");
    }
}

/// A saved report says what it is of: the graph as named, and the seed,
/// restarts and time limit a seeded or timed result depends on (the
/// text's `settings` line names those that apply to its solvers).
#[test]
fn a_report_names_its_graph_and_the_settings_it_depends_on() {
    let args = ["-s", "noisy:delta", "--seed", "7", "--restarts", "3"];
    let json = [&args[..], &["--time-limit", "2.5", "--format", "json"]].concat();
    let o = schedule(&json, EXAMPLE);
    expect_exit(&o, 0);
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["graph"], "standard input");
    assert_eq!(
        (v["seed"].clone(), v["restarts"].clone()),
        (7.into(), 3.into())
    );
    assert_eq!(v["time_limit_s"], 2.5);
    let text = String::from_utf8(schedule(&args, EXAMPLE).stdout).unwrap();
    assert!(text.contains("graph        standard input: "), "{text}");
    assert!(text.contains("settings     seed 7, restarts 3\n"), "{text}");
    // A deterministic solver depends on none of them.
    let text = String::from_utf8(schedule(&["-s", "kahn", "--seed", "7"], EXAMPLE).stdout).unwrap();
    assert!(!text.contains("settings"), "{text}");
    let table = ["-s", "kahn", "-s", "random", "--time-limit", "1"];
    let text = String::from_utf8(schedule(&table, EXAMPLE).stdout).unwrap();
    assert!(
        text.contains("settings      seed 0, time limit 1 s\n"),
        "{text}"
    );
}

/// `-o FILE.json` (or `.jsonl`) writes the JSON report unless `--format
/// text` says otherwise; other names get the text report.
#[test]
fn an_out_file_named_json_gets_the_json_report() {
    let dir = tempfile::tempdir().unwrap();
    let out = |name: &str, extra: &[&str]| {
        let path = dir.path().join(name);
        let path = path.to_str().unwrap().to_string();
        let args = [&["-s", "kahn", "-o", path.as_str()][..], extra].concat();
        expect_exit(&schedule(&args, EXAMPLE), 0);
        std::fs::read_to_string(&path).unwrap()
    };
    let json: Value = serde_json::from_str(&out("r.json", &[])).unwrap();
    assert_eq!(json["solver"], "kahn");
    assert!(out("r.JSONL", &[]).starts_with('{'));
    assert!(out("r.json", &["--format", "text"]).starts_with("solver "));
    assert!(out("r.txt", &[]).starts_with("solver "));
    // Several solvers: a `.json` file holds one array, a `.jsonl` file a
    // line per solver; `check` refuses the array with a way to pick one.
    let two = ["-s", "seed-greedy"];
    let array: Value = serde_json::from_str(&out("r.json", &two)).unwrap();
    let solvers: Vec<&str> = (array.as_array().unwrap().iter())
        .map(|r| r["solver"].as_str().unwrap())
        .collect();
    assert_eq!(solvers, ["kahn", "seed-greedy"]);
    let lines = out("r.jsonl", &two);
    assert_eq!(lines.lines().count(), 2, "{lines}");
    for line in lines.lines() {
        serde_json::from_str::<Value>(line).unwrap();
    }
    let graph = dir.path().join("g.json");
    std::fs::write(&graph, EXAMPLE).unwrap();
    let o = run(
        &[
            "check",
            graph.to_str().unwrap(),
            dir.path().join("r.json").to_str().unwrap(),
        ],
        None,
    );
    assert_exit_2(&o, &["a JSON array of 2 objects", "jq"]);
}

/// An empty input is called empty (not "EOF while parsing"), and a graph
/// with no nodes passes with a warning that says so.
#[test]
fn an_empty_input_and_an_empty_graph_are_named() {
    for blank in ["", "\n \n"] {
        let o = run(&["validate", "-"], Some(blank));
        assert_exit_2(&o, &["the input is empty: a graph is a JSON object"]);
    }
    let o = run(&["validate", "-"], Some(r#"{"Nodes": [], "Edges": []}"#));
    let err = expect_exit(&o, 0);
    assert!(
        err.contains("warning: standard input: it has no nodes"),
        "{err}"
    );
}

/// A solver with no valid schedule writes no trace or plot, and removes
/// the ones an earlier run left at those paths: a stale trace beside a new
/// report would be read as this run's. A file that is no such output (an
/// input given there by mistake) stays.
#[test]
fn no_valid_schedule_leaves_no_stale_trace_or_plot() {
    let dir = tempfile::tempdir().unwrap();
    let (trace, plot) = (dir.path().join("t.csv"), dir.path().join("p.svg"));
    std::fs::write(
        &trace,
        "step,id,op,type,delta,memory_after,ready\n1,0,,ALLOC,4,4,1\n",
    )
    .unwrap();
    std::fs::write(&plot, "<svg width=\"1200\"></svg>\n").unwrap();
    let failed_with = |trace: &std::path::Path, plot: &std::path::Path| {
        run(
            &[
                "schedule",
                "chain:length=20#0",
                "-s",
                "brute",
                "--trace",
                trace.to_str().unwrap(),
                "--plot",
                plot.to_str().unwrap(),
            ],
            None,
        )
    };
    let o = failed_with(&trace, &plot);
    let err = expect_exit(&o, 1);
    assert!(
        err.contains("is not written; the one an earlier run left there is removed"),
        "{err}"
    );
    assert!(
        err.contains("p.svg not written; the one an earlier run left there is removed"),
        "{err}"
    );
    assert!(!trace.exists() && !plot.exists());
    let orders = dir.path().join("orders.jsonl");
    std::fs::write(&orders, "{\"graph\":\"g\",\"order\":[1]}\n").unwrap();
    let o = failed_with(&orders, &orders.with_extension("svg"));
    let err = expect_exit(&o, 1);
    assert!(!err.contains("is removed"), "{err}");
    assert!(orders.exists());
}

/// `--trace FILE.csv` writes one row per step with the rule's term values;
/// a solver other than `rule:` gets the step columns only, and two solvers
/// are refused.
#[test]
fn a_trace_has_a_row_per_step_and_a_column_per_term() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.csv");
    let p = path.to_str().unwrap();
    let o = schedule(&["-s", "rule:-unlocks,delta,id", "--trace", p], EXAMPLE);
    expect_exit(&o, 0);
    let text = std::fs::read_to_string(&path).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(
        lines[0],
        "step,id,op,type,delta,memory_after,ready,term1:-unlocks,term2:delta,term3:id,\
         runner_up,decided_by,runner_up_value"
    );
    assert_eq!(lines.len(), 1 + 3, "the example has three nodes: {text}");
    assert!(lines[1].starts_with("1,"), "{text}");
    // Where several nodes are ready, each row names the runner-up, the
    // term that decided and its value there.
    let o = run(
        &[
            "schedule",
            "tensor-program:ops=8#1",
            "-s",
            "rule:-unlocks,delta,id",
            "--trace",
            p,
        ],
        None,
    );
    expect_exit(&o, 0);
    let text = std::fs::read_to_string(&path).unwrap();
    let mut decided = 0;
    for line in text.lines().skip(1) {
        let cells: Vec<&str> = line.split(',').collect();
        let (ready, runner_up, by, value) = (cells[6], cells[10], cells[11], cells[12]);
        assert_eq!(runner_up.is_empty(), ready == "1", "{line}");
        if runner_up.is_empty() {
            assert!(by.is_empty() && value.is_empty(), "{line}");
            continue;
        }
        decided += 1;
        let column = match by {
            "term1" => 7,
            "term2" => 8,
            "term3" | "id" => 9,
            other => panic!("decided_by {other}: {line}"),
        };
        // The node that ran ranks below the runner-up on that term.
        let (ran, next) = (
            cells[column].parse::<i64>().unwrap(),
            value.parse::<i64>().unwrap(),
        );
        assert!(ran < next, "{line}");
    }
    assert!(decided > 0, "{text}");
    let o = schedule(&["-s", "kahn", "--trace", p], EXAMPLE);
    expect_exit(&o, 0);
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(
        text.starts_with("step,id,op,type,delta,memory_after,ready\n"),
        "{text}"
    );
    let o = schedule(&["-s", "kahn", "-s", "exact", "--trace", p], EXAMPLE);
    assert_exit_2(&o, &["--trace takes one --solver (2 given)"]);
    // A rule solver other than `rule:` is traced without term columns, and
    // says so; the trace may not overwrite the report.
    let o = schedule(&["-s", "moves:delta,id", "--trace", p], EXAMPLE);
    assert!(expect_exit(&o, 0).contains("the trace has no term columns"));
    let o = schedule(&["-s", "kahn", "-o", p, "--trace", p], EXAMPLE);
    assert_exit_2(&o, &["--trace and --out name one file"]);
    let o = schedule(&["-s", "kahn", "--trace", "-"], EXAMPLE);
    assert_exit_2(&o, &["--trace needs a file name"]);
}
