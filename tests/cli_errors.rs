//! The command line as a user meets it: every validation error of docs/core.md
//! through the binary (exit code 2, a message naming the ids, never a
//! panic), and the `validate` / `schedule` / `solvers` contract (JSON fields
//! and their types, `--out`, stdin `-`, original ids, exit codes).
#![cfg(feature = "cli")]

mod cli_support;

use std::process::Output;

use cli_support::{run, run_with_closed, run_within, stderr, stdout, Closed};

use memsched::graph::{seed, Graph};
use serde_json::Value;

/// Asserts exit code 2, no panic, and that stderr contains every `needle`.
/// Runs both `validate` (file) and `schedule` (stdin) on the text.
fn assert_invalid(json: &str, needles: &[&str]) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("g.json");
    std::fs::write(&path, json).unwrap();
    let by_file = run(&["validate", path.to_str().unwrap()], None);
    let by_stdin = run(&["schedule", "-", "--solver", "kahn"], Some(json));
    for o in [by_file, by_stdin] {
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "exit code for {json}: {err}");
        assert!(!err.contains("panicked"), "panic on {json}: {err}");
        for needle in needles {
            assert!(err.contains(needle), "stderr lacks `{needle}`: {err}");
        }
        assert!(o.stdout.is_empty(), "no report on invalid input");
    }
}

#[test]
fn cycle_names_the_nodes_of_one_cycle() {
    // 10 -> 20 -> 30 -> 10 is a cycle; 40 hangs off it and is not on it.
    let json = r#"{"Nodes": [{"Id": 10, "Op": "A"}, {"Id": 20, "Op": "B"},
        {"Id": 30, "Op": "C"}, {"Id": 40, "Op": "D"}],
        "Edges": [[10, 20], [20, 30], [30, 10], [30, 40]]}"#;
    assert_invalid(json, &["cycle"]);
    let o = run(&["schedule", "-"], Some(json));
    let err = stderr(&o);
    let line = err.lines().find(|l| l.contains("cycle")).unwrap();
    let arrow = &line[line.find("cycle:").unwrap() + 6..];
    let ids: Vec<i64> = arrow
        .split("->")
        .map(|t| t.trim().parse().unwrap())
        .collect();
    assert_eq!(ids.first(), ids.last(), "the cycle closes: {line}");
    let mut on_cycle = ids[..ids.len() - 1].to_vec();
    on_cycle.sort_unstable();
    assert_eq!(on_cycle, [10, 20, 30], "{line}");
    // Consecutive ids are edges of the file.
    for w in ids.windows(2) {
        assert!(
            [(10, 20), (20, 30), (30, 10)].contains(&(w[0], w[1])),
            "{line}"
        );
    }
}

#[test]
fn self_loop_is_a_cycle() {
    assert_invalid(
        r#"{"Nodes": [{"Id": 5, "Op": "A"}], "Edges": [[5, 5]]}"#,
        &["cycle", "5 -> 5"],
    );
}

#[test]
fn duplicate_id() {
    assert_invalid(
        r#"{"Nodes": [{"Id": 7, "Op": "A"}, {"Id": 3, "Op": "B"}, {"Id": 7, "Op": "C"}], "Edges": []}"#,
        &[
            "duplicate node id 7",
            "Nodes[0] and Nodes[2], counted from 0",
        ],
    );
}

/// A field written twice in one node is an error, the known ones and the
/// extra ones alike (a second `Latency` would replace the first).
#[test]
fn duplicate_field_of_a_node() {
    for (node, field) in [
        (r#"{"Id": 0, "Op": "A", "Op": "B"}"#, "Op"),
        (
            r#"{"Id": 0, "Op": "A", "Latency": 1, "Latency": 5}"#,
            "Latency",
        ),
        (r#"{"Id": 0, "Op": "A", "Name": "x", "Name": "y"}"#, "Name"),
    ] {
        let graph = format!(r#"{{"Nodes": [{node}], "Edges": []}}"#);
        assert_invalid(&graph, &[&format!("duplicate field `{field}`")]);
    }
}

#[test]
fn edge_to_missing_node() {
    assert_invalid(
        r#"{"Nodes": [{"Id": 0, "Op": "A"}, {"Id": 1, "Op": "B"}], "Edges": [[0, 1], [1, 99]]}"#,
        &["[1, 99]", "missing node 99"],
    );
    assert_invalid(
        r#"{"Nodes": [{"Id": 0, "Op": "A"}], "Edges": [[-4, 0]]}"#,
        &["missing node -4"],
    );
}

#[test]
fn free_without_alloc() {
    assert_invalid(
        r#"{"Nodes": [{"Id": 0, "Op": "ALLOC", "Size": 8, "BufId": 1}, {"Id": 3, "Op": "FREE", "BufId": 5}],
            "Edges": [[0, 3]]}"#,
        &["FREE node 3", "buffer 5"],
    );
}

#[test]
fn two_allocs_of_one_buffer() {
    assert_invalid(
        r#"{"Nodes": [{"Id": 0, "Op": "ALLOC", "Size": 8, "BufId": 4},
            {"Id": 1, "Op": "ALLOC", "Size": 8, "BufId": 4}], "Edges": []}"#,
        &["buffer 4", "allocated twice", "nodes 0 and 1"],
    );
}

#[test]
fn two_frees_of_one_buffer() {
    assert_invalid(
        r#"{"Nodes": [{"Id": 0, "Op": "ALLOC", "Size": 8, "BufId": 4},
            {"Id": 1, "Op": "FREE", "BufId": 4}, {"Id": 2, "Op": "FREE", "BufId": 4}],
            "Edges": [[0, 1], [0, 2]]}"#,
        &["buffer 4", "freed twice", "nodes 1 and 2"],
    );
}

#[test]
fn free_not_reachable_from_its_alloc() {
    // 0 and 2 both follow 1, but nothing orders ALLOC 0 before FREE 2.
    assert_invalid(
        r#"{"Nodes": [{"Id": 0, "Op": "ALLOC", "Size": 8, "BufId": 9},
            {"Id": 1, "Op": "Conv"}, {"Id": 2, "Op": "FREE", "BufId": 9}],
            "Edges": [[1, 0], [1, 2]]}"#,
        &["FREE node 2", "buffer 9", "ALLOC node 0", "not reachable"],
    );
}

#[test]
fn missing_and_negative_size() {
    assert_invalid(
        r#"{"Nodes": [{"Id": 4, "Op": "ALLOC", "BufId": 1}], "Edges": []}"#,
        &["ALLOC node 4 has no Size"],
    );
    assert_invalid(
        r#"{"Nodes": [{"Id": 6, "Op": "ALLOC", "Size": -5, "BufId": 1}], "Edges": []}"#,
        &["ALLOC node 6", "negative Size (-5)"],
    );
}

/// An integer too large even for JSON's u64 reading is named as out of
/// range, not as a float (which is how the parser sees it).
#[test]
fn an_integer_beyond_64_bits_is_out_of_range() {
    assert_invalid(
        r#"{"Nodes": [{"Id": 99999999999999999999, "Op": "A"}], "Edges": []}"#,
        &["Id 1e20 is out of range"],
    );
    assert_invalid(
        r#"{"Nodes": [{"Id": 1.5, "Op": "A"}], "Edges": []}"#,
        &["invalid type: floating point", "an integer for Id"],
    );
}

/// A Size is at most 2^63 - 1: `1e18` is within it, so the error is that it
/// is written as a float (not that it is out of range); `1e19` is out of
/// range, and an Id beyond i64 names i64's range.
#[test]
fn a_whole_float_size_is_named_as_a_float_or_out_of_range() {
    assert_invalid(
        r#"{"Nodes": [{"Id": 0, "Op": "ALLOC", "Size": 1e18, "BufId": 1}], "Edges": []}"#,
        &["Size 1e18 is written as a float: write it as an integer (1000000000000000000)"],
    );
    assert_invalid(
        r#"{"Nodes": [{"Id": 0, "Op": "ALLOC", "Size": 1e19, "BufId": 1}], "Edges": []}"#,
        &["Size 1e19 is out of range: it must be an integer from 0 to 2^63 - 1"],
    );
    assert_invalid(
        r#"{"Nodes": [{"Id": 9223372036854775808, "Op": "A"}], "Edges": []}"#,
        &["Id 9223372036854775808 is out of range: it must be an integer from -2^63 to 2^63 - 1"],
    );
}

/// A number beyond f64 (`1e400`) is named with its node and field, as a
/// Latency within f64 but beyond 2^63 is; negative zero is shown as written.
#[test]
fn a_number_beyond_f64_and_negative_zero_are_named_with_the_node() {
    assert_invalid(
        "{\"Nodes\": [{\"Id\": 0, \"Op\": \"A\"},\n{\"Id\": 6, \"Op\": \"A\", \"Latency\": 1e400}]}",
        &[
            "malformed graph JSON at line 2, column",
            "node 6 has a Latency beyond the range of a JSON number",
            "at most 2^63",
        ],
    );
    assert_invalid(
        r#"{"Nodes": [{"Id": 6, "Op": "A", "Latency": 1.7e308}]}"#,
        &["node 6 has Latency 1.7e+308, out of range: its magnitude must be at most 2^63"],
    );
    assert_invalid(
        r#"{"Nodes": [{"Id": 2, "Op": "ALLOC", "Size": -0, "BufId": 1}]}"#,
        &["node 2: Size -0 is negative zero, which JSON reads as a float: write 0"],
    );
}

#[test]
fn alloc_or_free_without_bufid() {
    assert_invalid(
        r#"{"Nodes": [{"Id": 8, "Op": "ALLOC", "Size": 5}], "Edges": []}"#,
        &["ALLOC node 8 has no BufId"],
    );
    assert_invalid(
        r#"{"Nodes": [{"Id": 0, "Op": "ALLOC", "Size": 5, "BufId": 1}, {"Id": 9, "Op": "FREE"}], "Edges": [[0, 9]]}"#,
        &["FREE node 9 has no BufId"],
    );
}

#[test]
fn sizes_beyond_the_integer_range() {
    // Each fits u64, the sum does not fit i64.
    assert_invalid(
        r#"{"Nodes": [{"Id": 0, "Op": "ALLOC", "Size": 9223372036854775807, "BufId": 1},
            {"Id": 1, "Op": "ALLOC", "Size": 1, "BufId": 2}], "Edges": []}"#,
        &["2^63 - 1"],
    );
    // Above u64::MAX: JSON reads it as a float, which is not a size.
    assert_invalid(
        "{\"Nodes\": [\n{\"Id\": 0, \"Op\": \"ALLOC\", \"Size\": 36893488147419103232, \"BufId\": 1}], \"Edges\": []}",
        &["line 2, column"],
    );
}

/// A schedule report or an order object given where the graph goes is
/// named as such, not told to fix its keys' case (`nodes` is a count there).
#[test]
fn a_report_or_order_object_is_not_taken_for_a_graph() {
    for json in [
        r#"{"edges": 2, "nodes": 3, "order": [0, 1, 2], "solver": "kahn"}"#,
        r#"{"graph": "g", "order": [0, 1, 2]}"#,
    ] {
        assert_invalid(json, &["an object with an \"order\" key and no \"Nodes\""]);
    }
}

#[test]
fn malformed_json_reports_line_and_column() {
    // A missing comma: `"Size"` starts at line 3, column 27.
    let json = "{\"Nodes\": [\n  {\"Id\": 0, \"Op\": \"A\"},\n  {\"Id\": 1, \"Op\": \"ALLOC\" \"Size\": 4, \"BufId\": 1}\n], \"Edges\": []}";
    assert_invalid(json, &["malformed graph JSON at line 3, column 27"]);
    // Wrong shapes are JSON errors too, with their position.
    assert_invalid(
        "{\"Nodes\": [{\"Id\": \"zero\", \"Op\": \"A\"}], \"Edges\": []}",
        &["line 1, column", "Id"],
    );
    assert_invalid(
        "{\"Nodes\": [{\"Id\": 0, \"Op\": \"A\"}],\n \"Edges\": [[0, 1, 2]]}",
        &["line 2, column"],
    );
    assert_invalid("", &["at the start of line 1"]);
    // An edge of the wrong shape that starts a line is refused there: at
    // the line's start, not at column 0.
    assert_invalid(
        "{\"Nodes\": [{\"Id\": 0, \"Op\": \"A\"}, {\"Id\": 1, \"Op\": \"B\"}],\n\"Edges\": [\n{\"src\": 0, \"dst\": 1},\n[0, 1]]}",
        &["malformed graph JSON at the start of line 3: invalid type: map"],
    );
    assert_invalid("{\"Edges\": []}", &["Nodes"]);
    assert_invalid(
        "[1, 2]",
        &["it starts with `[` at offset 0", "is it an order?"],
    );
}

/// A config that cannot be TOML text (`/dev/zero` never ends: it filled
/// memory until the kernel killed the run) is refused at once.
#[test]
fn a_config_that_is_not_text_is_refused_at_once() {
    let o = run_within(&["run", "/dev/zero"], 20);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("cannot read config /dev/zero: it starts with byte 0x00 at offset 0, where a config is TOML text"),
        "{}",
        stderr(&o)
    );
}

/// Bytes that cannot begin a graph are refused at once, naming the file
/// and the first byte, instead of being read until memory runs out
/// (`/dev/zero` never ends).
#[test]
fn input_that_cannot_be_a_graph_is_refused_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let zeros = dir.path().join("zeros.json");
    std::fs::write(&zeros, [0u8; 4096]).unwrap();
    let zeros = zeros.to_str().unwrap();
    let at_start = "it starts with byte 0x00 at offset 0, where a graph file starts with `{`";
    for path in ["/dev/zero", zeros] {
        let o = run_within(&["validate", path], 20);
        assert_eq!(o.status.code(), Some(2), "{path}: {}", stderr(&o));
        let err = stderr(&o);
        assert!(
            err.contains(&format!("{path} is not a valid graph: {at_start}")),
            "{err}"
        );
        assert!(err.contains("is it a binary file?"), "{err}");
    }
    let o = run_within(&["schedule", "/dev/urandom"], 20);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("/dev/urandom is not a valid graph: it "));
    // Through standard input, and a NUL after a valid start.
    let o = run(&["schedule", "-"], Some("\u{0}\u{0}"));
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains(&format!("standard input is not a valid graph: {at_start}")));
    let o = run(&["validate", "-"], Some("{\"Nodes\": [\n\u{0}]}"));
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("it has byte 0x00 at offset 12 (line 2), a control character"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn missing_file_is_invalid_input_naming_the_path() {
    let o = run(&["validate", "/nonexistent/graph.json"], None);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("/nonexistent/graph.json"),
        "{}",
        stderr(&o)
    );
}

fn schedule_json(args: &[&str], stdin: &str) -> (Output, Value) {
    let mut all = vec!["schedule", "-", "--format", "json"];
    all.extend_from_slice(args);
    let o = run(&all, Some(stdin));
    let v: Value = serde_json::from_slice(&o.stdout)
        .unwrap_or_else(|e| panic!("stdout is one JSON object ({e}): {}", stdout(&o)));
    (o, v)
}

const EXAMPLE: &str = include_str!("../examples/seed_example.json");

#[test]
fn json_report_has_the_documented_fields_and_types() {
    let (o, v) = schedule_json(&["--solver", "seed-greedy"], EXAMPLE);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(v["solver"], "seed-greedy");
    assert_eq!(v["status"], "feasible");
    assert_eq!(v["peak"].as_u64(), Some(1024));
    assert_eq!(v["program_peak"].as_u64(), Some(1024));
    assert_eq!(v["reduction_pct"].as_f64(), Some(0.0));
    // A heuristic proves nothing: no bound (and `null`, not a missing key).
    assert!(v["lower_bound"].is_null() && v.get("lower_bound").is_some());
    assert_eq!(v["order"], serde_json::json!([0, 1, 2]));
    assert!(v["time_ms"].as_f64().is_some_and(|t| t >= 0.0));
    // Peaks are integers, not floats.
    assert!(v["peak"].is_u64() && v["program_peak"].is_u64());
}

#[test]
fn brute_reports_a_lower_bound_and_optimal() {
    let (o, v) = schedule_json(&["--solver", "brute"], EXAMPLE);
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(v["status"], "optimal");
    assert_eq!(v["lower_bound"].as_u64(), Some(1024));
}

/// ALLOC 100 (2 bytes), ALLOC 7 (3 bytes), op -3 reads both, FREEs 50 and 60.
/// Ids are neither 0..n-1 nor sorted; the Nodes order is topological.
const ODD_IDS: &str = r#"{"Nodes": [
    {"Id": 100, "Op": "ALLOC", "Size": 2, "BufId": 1},
    {"Id": 7, "Op": "ALLOC", "Size": 3, "BufId": 2},
    {"Id": -3, "Op": "Add"},
    {"Id": 50, "Op": "FREE", "BufId": 1},
    {"Id": 60, "Op": "FREE", "BufId": 2}],
  "Edges": [[100, -3], [7, -3], [-3, 50], [-3, 60]]}"#;

#[test]
fn orders_are_reported_in_original_ids() {
    for solver in ["program", "kahn", "seed-greedy", "brute"] {
        let (o, v) = schedule_json(&["--solver", solver], ODD_IDS);
        assert_eq!(o.status.code(), Some(0), "{solver}: {}", stderr(&o));
        let mut order: Vec<i64> = v["order"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_i64().unwrap())
            .collect();
        assert_eq!(v["peak"].as_u64(), Some(5), "{solver}");
        assert_eq!(order[2], -3, "{solver}: the op runs third");
        order.sort_unstable();
        assert_eq!(order, [-3, 7, 50, 60, 100], "{solver}");
    }
    let (_, v) = schedule_json(&["--solver", "program"], ODD_IDS);
    assert_eq!(v["order"], serde_json::json!([100, 7, -3, 50, 60]));
}

/// The Nodes array lists the FREE (2) before the op (1) that precedes it.
const BROKEN_PROGRAM_ORDER: &str = r#"{"Nodes": [
    {"Id": 0, "Op": "ALLOC", "Size": 4, "BufId": 1},
    {"Id": 2, "Op": "FREE", "BufId": 1},
    {"Id": 1, "Op": "Relu"}],
  "Edges": [[0, 1], [1, 2]]}"#;

#[test]
fn program_order_that_breaks_an_edge() {
    let (o, v) = schedule_json(&["--solver", "kahn"], BROKEN_PROGRAM_ORDER);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(v["program_peak"].is_null());
    assert!(v["reduction_pct"].is_null());
    assert_eq!(v["peak"].as_u64(), Some(4));
    assert_eq!(v["order"], serde_json::json!([0, 1, 2]));

    let o = run(
        &["schedule", "-", "--solver", "program"],
        Some(BROKEN_PROGRAM_ORDER),
    );
    assert_eq!(o.status.code(), Some(1));
    let err = stderr(&o);
    assert!(err.contains("edge [1, 2]"), "{err}");
    assert!(!err.contains("panicked"), "{err}");

    // validate accepts the graph and says why there is no program peak.
    let o = run(&["validate", "-"], Some(BROKEN_PROGRAM_ORDER));
    assert_eq!(o.status.code(), Some(0));
    assert!(stdout(&o).contains("[1, 2]"), "{}", stdout(&o));
}

#[test]
fn bad_solver_and_bad_flags_exit_2() {
    let o = run(
        &["schedule", "-", "--solver", "no-such-solver"],
        Some(EXAMPLE),
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("no-such-solver") && stderr(&o).contains("kahn"));
    let o = run(&["schedule", "-", "--solver", "kahn:extra"], Some(EXAMPLE));
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    for bad in ["abc", "-1", "0", "inf", "NaN"] {
        let o = run(
            &["schedule", "-", "--solver", "kahn", "--time-limit", bad],
            Some(EXAMPLE),
        );
        assert_eq!(
            o.status.code(),
            Some(2),
            "--time-limit {bad}: {}",
            stderr(&o)
        );
        assert!(!stderr(&o).contains("panicked"));
    }
    let o = run(&["schedule", "-", "--seed", "-3"], Some(EXAMPLE));
    assert_eq!(o.status.code(), Some(2));
    let o = run(&["schedule", "-", "--format", "yaml"], Some(EXAMPLE));
    assert_eq!(o.status.code(), Some(2));
    let o = run(&["frobnicate"], None);
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn huge_time_limits_do_not_panic() {
    // Beyond Duration's range: invalid input.
    let o = run(&["schedule", "-", "--time-limit", "1e30"], Some(EXAMPLE));
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    // Within Duration's range but past what the clock can add: no deadline.
    let (o, v) = schedule_json(&["--solver", "kahn", "--time-limit", "1e19"], EXAMPLE);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(v["peak"].as_u64(), Some(1024));
}

#[test]
fn time_limit_and_seed_are_accepted() {
    let (o, v) = schedule_json(
        &[
            "--solver",
            "seed-greedy",
            "--time-limit",
            "0.5",
            "--seed",
            "42",
        ],
        EXAMPLE,
    );
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(v["peak"].as_u64(), Some(1024));
}

#[test]
fn out_file_receives_the_report() {
    let dir = tempfile::tempdir().unwrap();
    let graph = dir.path().join("g.json");
    std::fs::write(&graph, ODD_IDS).unwrap();
    let out = dir.path().join("report.json");
    let o = run(
        &[
            "schedule",
            graph.to_str().unwrap(),
            "--solver",
            "kahn",
            "--format",
            "json",
            "--out",
            out.to_str().unwrap(),
        ],
        None,
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(o.stdout.is_empty(), "report goes to the file only");
    let v: Value = serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    assert_eq!(v["solver"], "kahn");
    assert_eq!(v["peak"].as_u64(), Some(5));

    // The text format names the same figures.
    let o = run(
        &["schedule", graph.to_str().unwrap(), "--solver", "kahn"],
        None,
    );
    let text = stdout(&o);
    assert!(text.contains("peak") && text.contains("5 B"), "{text}");
    assert!(text.contains("order        100 7 -3"), "{text}");
}

/// `--out` or `--plot` naming the graph file, however it is spelt or
/// linked (or redirected into standard input), is refused before anything
/// is solved, and the graph is left as it was; `-o -` and a new file are
/// fine.
#[test]
#[cfg(unix)] // links and a redirected standard input are compared by inode
fn an_output_that_is_the_graph_file_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let graph = dir.path().join("g.json");
    std::fs::write(&graph, ODD_IDS).unwrap();
    let g = graph.to_str().unwrap();
    let spelt = dir.path().join(".").join("g.json");
    let hard = dir.path().join("hard.json");
    std::fs::hard_link(&graph, &hard).unwrap();
    let soft = dir.path().join("soft.svg");
    std::os::unix::fs::symlink(&graph, &soft).unwrap();
    let refused = |args: &[&str], stdin: Option<std::fs::File>, needle: &str| {
        let mut cmd = std::process::Command::new(cli_support::BIN);
        cmd.args(args);
        if let Some(file) = stdin {
            cmd.stdin(file);
        }
        let o = cmd.output().unwrap();
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(needle), "{args:?}: {err}");
        assert!(err.contains("would replace the graph"), "{args:?}: {err}");
        assert!(o.stdout.is_empty(), "nothing is solved: {args:?}");
        assert_eq!(
            std::fs::read_to_string(&graph).unwrap(),
            ODD_IDS,
            "{args:?}"
        );
    };
    let out = format!("--out {g}: it is the graph file, {g}");
    refused(&["schedule", g, "--out", g], None, &out);
    refused(
        &["schedule", g, "-o", spelt.to_str().unwrap()],
        None,
        "the graph file, ",
    );
    refused(
        &["schedule", g, "-o", hard.to_str().unwrap()],
        None,
        "the graph file, ",
    );
    refused(
        &[
            "schedule",
            g,
            "-s",
            "kahn",
            "--plot",
            soft.to_str().unwrap(),
        ],
        None,
        "--plot ",
    );
    let stdin = std::fs::File::open(&graph).unwrap();
    refused(
        &["schedule", "-", "-o", g],
        Some(stdin),
        "the graph file, standard input (redirected from it)",
    );
    // Standard output, and a new file, are not the graph.
    let o = run(&["schedule", g, "-o", "-"], None);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let report = dir.path().join("report.txt");
    let o = run(&["schedule", g, "-o", report.to_str().unwrap()], None);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let o = run(
        &["schedule", "-", "-o", report.to_str().unwrap()],
        Some(ODD_IDS),
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
}

#[test]
fn solvers_lists_every_registry_name_one_line_each() {
    let o = run(&["solvers"], None);
    assert_eq!(o.status.code(), Some(0));
    let (text, expr) = stdout(&o)
        .split_once("\n\n")
        .map(|(a, b)| (a.to_string() + "\n", b.to_string()))
        .expect("the registry, then the EXPR features");
    let features = memsched::solvers::rule::feature_list();
    assert!(
        expr.contains(&format!("over the features: {features}")),
        "{expr}"
    );
    let infos = memsched::solvers::list();
    let left_out = memsched::solvers::not_built();
    assert_eq!(text.lines().count(), infos.len() + left_out.len(), "{text}");
    for (line, info) in text.lines().zip(&infos) {
        assert!(line.starts_with(&info.name), "{line}");
        assert!(line.contains(&info.summary), "{line}");
    }
    // A solver this build leaves out is named, with the feature it needs.
    for (line, (name, feature)) in text.lines().skip(infos.len()).zip(&left_out) {
        assert!(line.starts_with(name), "{line}");
        assert!(
            line.contains("not in this build") && line.contains(feature),
            "{line}"
        );
    }
    assert_eq!(
        left_out.iter().any(|&(n, _)| n == "ilp"),
        cfg!(not(feature = "ilp"))
    );
    for name in ["program", "kahn", "seed-greedy", "brute"] {
        assert!(text
            .lines()
            .any(|l| l.split_whitespace().next() == Some(name)));
    }
}

#[test]
fn validate_several_files() {
    let dir = tempfile::tempdir().unwrap();
    let good1 = dir.path().join("good1.json");
    let good2 = dir.path().join("good2.json");
    let bad = dir.path().join("bad.json");
    std::fs::write(&good1, EXAMPLE).unwrap();
    std::fs::write(&good2, ODD_IDS).unwrap();
    std::fs::write(
        &bad,
        r#"{"Nodes": [{"Id": 3, "Op": "FREE", "BufId": 5}], "Edges": []}"#,
    )
    .unwrap();
    let (g1, g2, b) = (
        good1.to_str().unwrap(),
        good2.to_str().unwrap(),
        bad.to_str().unwrap(),
    );
    let o = run(&["validate", g1, g2], None);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let text = stdout(&o);
    assert_eq!(text.lines().count(), 2, "{text}");
    assert!(text.contains(&format!("{g1}: ok: 3 nodes")), "{text}");
    assert!(text.contains(&format!("{g2}: ok: 5 nodes")), "{text}");
    assert!(text.contains("program-order peak 5 B"), "{text}");

    let o = run(&["validate", g1, b, g2], None);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(
        stdout(&o).lines().count(),
        2,
        "the good files are still reported"
    );
    let err = stderr(&o);
    assert!(err.contains(b) && err.contains("FREE node 3"), "{err}");
}

#[test]
fn free_with_a_size_keeps_it_as_an_extra_field_and_ignores_it() {
    let json = r#"{"Nodes": [
        {"Id": 0, "Op": "ALLOC", "Size": 10, "BufId": 1},
        {"Id": 1, "Op": "FREE", "BufId": 1, "Size": 999}],
      "Edges": [[0, 1]]}"#;
    let (o, v) = schedule_json(&["--solver", "kahn"], json);
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(v["peak"].as_u64(), Some(10));
    assert!(
        stderr(&o).contains("FREE node 1 has Size 999, but a FREE releases its ALLOC's 10 B"),
        "{}",
        stderr(&o)
    );
    let g = Graph::from_raw(seed::parse(json.as_bytes()).unwrap()).unwrap();
    assert_eq!(g.delta(1), -10, "a FREE releases its ALLOC's size");
    assert_eq!(g.extra(1).unwrap()["Size"], 999);
    let again = round_trip(&g);
    assert_eq!(again.extra(1).unwrap()["Size"], 999);
    assert_eq!(again.delta(1), -10);
}

#[test]
fn extra_fields_survive_a_round_trip() {
    let json = r#"{"Nodes": [
        {"Id": 0, "Op": "ALLOC", "Size": 10, "BufId": 1, "Name": "x", "Shape": [2, 5]},
        {"Id": 1, "Op": "Matmul", "Inputs": [0, 2], "Latency": 1.5, "Size": 3, "BufId": 8},
        {"Id": 2, "Op": "FREE", "BufId": 1, "Size": 18446744073709551615}],
      "Edges": [[0, 1], [1, 2]],
      "Model": {"name": "toy", "batch": 1}}"#;
    let g = Graph::from_raw(seed::parse(json.as_bytes()).unwrap()).unwrap();
    let again = round_trip(&g);
    assert_eq!(again.to_raw(), g.to_raw());
    assert_eq!(again.extra(0).unwrap()["Shape"], serde_json::json!([2, 5]));
    assert_eq!(again.extra_f64(1, "Latency"), Some(1.5));
    // A compute node's Size and BufId are metadata, kept verbatim.
    assert_eq!(again.extra(1).unwrap()["Size"], 3);
    assert_eq!(again.extra(1).unwrap()["BufId"], 8);
    assert_eq!(again.delta(1), 0);
    assert_eq!(
        again.extra(2).unwrap()["Size"].as_u64(),
        Some(u64::MAX),
        "a FREE's Size above i64::MAX is kept as written"
    );
    assert_eq!(again.graph_extra()["Model"]["name"], "toy");
}

fn round_trip(g: &Graph) -> Graph {
    let mut text = Vec::new();
    seed::write(g, &mut text).unwrap();
    Graph::from_raw(seed::parse(&text).unwrap()).unwrap()
}

#[test]
fn solvers_stop_at_the_time_limit() {
    // 60,000 nodes: more steps than a solver takes between two clock checks (16,384).
    let spec = memsched::corpus::gen::GenSpec::parse("chain:length=20000").unwrap();
    let g = memsched::corpus::gen::generate(&spec, 3).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("chain.json");
    seed::write_path(&g, path.to_str().unwrap()).unwrap();
    for solver in ["kahn", "seed-greedy"] {
        let o = run(
            &[
                "schedule",
                path.to_str().unwrap(),
                "--solver",
                solver,
                "--format",
                "json",
                "--time-limit",
                "0.000000001",
            ],
            None,
        );
        assert_eq!(o.status.code(), Some(1), "{solver}: {}", stderr(&o));
        let v: Value = serde_json::from_slice(&o.stdout).unwrap();
        assert_eq!(v["status"], "timed_out", "{solver}");
        assert!(v["peak"].is_null() && v["order"].is_null());
        assert!(v["program_peak"].is_u64(), "the baseline is still reported");
        // Without the limit the same solve succeeds.
        let o = run(
            &["schedule", path.to_str().unwrap(), "--solver", solver],
            None,
        );
        assert_eq!(o.status.code(), Some(0), "{solver}");
    }
}

/// A top-level key spelt in another case would drop every edge (`Edges` is
/// optional) or hide the nodes: it is an error naming the right key.
#[test]
fn a_key_in_the_wrong_case_is_named() {
    let json = r#"{"Nodes": [{"Id": 0, "Op": "A"}, {"Id": 1, "Op": "B"}], "edges": [[0, 1]]}"#;
    assert_invalid(json, &["\"edges\"", "the key is \"Edges\""]);
    let json = r#"{"nodes": [], "Nodes": [], "Edges": []}"#;
    assert_invalid(json, &["the key is \"Nodes\""]);
}

/// A node field in another case (`latency` for `Latency`) would be an
/// extra field nothing reads, and a rule on `latency` would rank as if it
/// were absent: it is an error naming the node and both spellings. A
/// required field given only in another case is named the same way.
#[test]
fn a_node_field_in_the_wrong_case_is_named_with_the_node() {
    let json = r#"{"Nodes": [{"Id": 0, "Op": "ALLOC", "Size": 8, "BufId": 1},
        {"Id": 7, "Op": "conv", "latency": 5}, {"Id": 2, "Op": "FREE", "BufId": 1}],
        "Edges": [[0, 7], [7, 2]]}"#;
    assert_invalid(
        json,
        &["node 7 has a field \"latency\": write exactly \"Latency\""],
    );
    let o = run(
        &["schedule", "-", "-s", "rule:0.7*delta+0.3*latency"],
        Some(json),
    );
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("node 7"), "{}", stderr(&o));
    let json = r#"{"Nodes": [{"id": 0, "Op": "A"}]}"#;
    assert_invalid(json, &["node field \"id\": the field is \"Id\""]);
}

/// An edge of another length than two says what an edge is.
#[test]
fn an_edge_of_three_ids_says_what_an_edge_is() {
    for (edge, entries) in [("[0, 0, 1]", "3 entries"), ("[0]", "1 entry")] {
        let json = format!(
            r#"{{"Nodes": [{{"Id": 0, "Op": "A"}}, {{"Id": 1, "Op": "B"}}], "Edges": [[0, 1], {edge}]}}"#
        );
        assert_invalid(&json, &["an edge is [u, v]", entries]);
    }
}

/// A file that starts with a UTF-8 byte-order mark (as some Windows
/// editors save JSON) reads like the same file without it.
#[test]
fn a_byte_order_mark_is_skipped() {
    let json = r#"{"Nodes": [{"Id": 0, "Op": "ALLOC", "Size": 10, "BufId": 1},
        {"Id": 1, "Op": "FREE", "BufId": 1}], "Edges": [[0, 1]]}"#;
    let with_bom = format!("\u{feff}{json}");
    let (o, v) = schedule_json(&["--solver", "kahn"], &with_bom);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(v["peak"].as_u64(), Some(10));
    assert_eq!(
        seed::parse(with_bom.as_bytes()).unwrap(),
        seed::parse(json.as_bytes()).unwrap()
    );
}

/// A reader that stops early (`memsched schedule ... | head`) ends the
/// command quietly with exit 0: no "Broken pipe" panic (exit 101), no error.
/// Each output here is well over a pipe's 64 KiB buffer, and the read end is
/// closed before the binary writes or while it waits on the full pipe, so
/// every command meets the closed pipe.
#[test]
fn a_closed_standard_output_ends_the_command_quietly() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("chain.json");
    let path = path.to_str().unwrap();
    let o = run(&["gen", "chain", "-p", "length=3000", "-o", path], None);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let many: Vec<&str> = std::iter::repeat_n(path, 1000).collect();
    let commands: [Vec<&str>; 3] = [
        vec!["schedule", path, "--solver", "kahn"],
        [vec!["validate"], many].concat(),
        vec!["gen", "chain", "-p", "length=3000"],
    ];
    for args in commands {
        let o = run_with_closed(&args, Closed::Stdout);
        let command = args[..2].join(" ");
        assert_eq!(o.status.code(), Some(0), "{command}: {}", stderr(&o));
        assert!(o.stderr.is_empty(), "{command}: {}", stderr(&o));
    }
}

/// A closed standard error loses the messages, not the exit code: an error
/// still exits 2 (invalid input), a warning leaves success 0, never 101 (a
/// panic). A failed solve exits 1 whether or not its reader is still
/// there, and `validate` whose reader stopped early still reports an
/// invalid file by its exit code.
#[test]
fn a_closed_standard_error_keeps_the_exit_code() {
    let dir = tempfile::tempdir().unwrap();
    let good = dir.path().join("g.json");
    let good = good.to_str().unwrap();
    let o = run(&["gen", "chain", "-o", good], None);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let code = |args: &[&str], closed| run_with_closed(args, closed).status.code();
    let warned = ["schedule", good, "-s", "kahn", "--max-states", "5"];
    assert_eq!(code(&["schedule", "missing.json"], Closed::Stderr), Some(2));
    assert_eq!(code(&warned, Closed::Stderr), Some(0));
    assert_eq!(code(&["gen", "chain", "-o", good], Closed::Stderr), Some(0));
    // brute refuses more than 12 nodes.
    assert_eq!(
        code(&["schedule", good, "-s", "brute"], Closed::Stdout),
        Some(1)
    );
    // The missing file is checked after the good ones.
    let mut args = vec!["validate"];
    args.extend(std::iter::repeat_n(good, 600));
    args.push("missing.json");
    assert_eq!(code(&args, Closed::Stdout), Some(2));
}

/// `RAYON_NUM_THREADS` stands for `--threads` when the flag is left out,
/// under the same cap (8,000 threads took a run of 35 solves 51 s); a
/// value that is no number of threads is an error too (rayon ignores it),
/// and 0 means one per core, as for rayon.
#[test]
fn rayon_num_threads_is_held_to_the_threads_cap() {
    let graph = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/seed_example.json");
    let with_threads = |n: &str| {
        std::process::Command::new(env!("CARGO_BIN_EXE_memsched"))
            .args(["schedule", graph, "-s", "kahn"])
            .env("RAYON_NUM_THREADS", n)
            .output()
            .unwrap()
    };
    for bad in ["8000", "abc", "-1"] {
        let o = with_threads(bad);
        assert_eq!(o.status.code(), Some(2), "{bad}: {}", stderr(&o));
        assert!(
            stderr(&o).contains(&format!(
                "RAYON_NUM_THREADS={bad}: a number of worker threads from 1 to 4096"
            )),
            "{bad}: {}",
            stderr(&o)
        );
    }
    for good in ["2", "0", ""] {
        let o = with_threads(good);
        assert_eq!(o.status.code(), Some(0), "{good:?}: {}", stderr(&o));
    }
}

/// `validate - -` names the mistake instead of failing the second read of
/// an exhausted standard input with a JSON error.
#[test]
fn standard_input_given_twice_is_refused() {
    let o = run(&["validate", "-", "-"], Some("{\"Nodes\": []}"));
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("given more than once"),
        "{}",
        stderr(&o)
    );
}

/// An unknown subcommand a user may look for (`trace`, `compare`) gets a
/// tip naming where it lives, in clap's error; others get clap's error
/// alone.
#[test]
fn a_subcommand_users_look_for_names_where_it_lives() {
    for (name, tip) in [
        (
            "trace",
            "tip: a schedule's step-by-step trace is `memsched schedule",
        ),
        (
            "compare",
            "`memsched diff OLD NEW` compares two results directories",
        ),
    ] {
        let o = run(&[name, "x"], None);
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{err}");
        assert!(
            err.contains(&format!("unrecognized subcommand '{name}'")),
            "{err}"
        );
        assert!(err.contains(tip), "{err}");
        // In place of clap's tip of a similar name (`table` for `trace`).
        assert!(!err.contains("similar subcommand"), "{err}");
    }
    let err = stderr(&run(&["frobnicate"], None));
    assert!(
        !err.contains("tip: `memsched") && !err.contains("trace is"),
        "{err}"
    );
}
