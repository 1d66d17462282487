//! `memsched check GRAPH ORDER`: an order made elsewhere goes through the
//! independent checker; what breaks it is named (exit code 2).
#![cfg(feature = "cli")]

mod cli_support;

use cli_support::{run, run_within, stderr, stdout, temp_file};

use serde_json::Value;

/// The article's example graph: ALLOC 0 -> compute 1 -> FREE 2, 1024 bytes.
const EXAMPLE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/seed_example.json");

/// `text` in a file `order.txt` of a fresh directory (see [`temp_file`]).
fn order_file(text: &str) -> (tempfile::TempDir, String) {
    temp_file("order.txt", text)
}

#[test]
fn check_reports_the_peak_and_where_it_is_reached() {
    let (_d, order) = order_file("0 1 2\n");
    let o = run(&["check", EXAMPLE, &order], None);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.contains("peak         1024 B (1.0 KiB)"), "{out}");
    assert!(out.contains("peak at      step 1, after node 0"), "{out}");
    let o = run(
        &["check", EXAMPLE, "-", "--format", "json"],
        Some("[0, 1, 2]"),
    );
    let v: Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(
        (v["peak"].as_u64(), v["valid"].as_bool()),
        (Some(1024), Some(true))
    );
}

/// The buffers live at the peak are listed, largest first, each with the
/// node its ALLOC feeds; `--live N` says how many, the JSON has them all.
#[test]
fn check_names_the_buffers_live_at_the_peak() {
    let graph = r#"{"Nodes": [
        {"Id": 0, "Op": "ALLOC", "Size": 100, "BufId": 0},
        {"Id": 1, "Op": "Conv", "Name": "c1"},
        {"Id": 2, "Op": "ALLOC", "Size": 300, "BufId": 1},
        {"Id": 3, "Op": "Relu", "Name": "r1"},
        {"Id": 4, "Op": "FREE", "BufId": 0},
        {"Id": 5, "Op": "FREE", "BufId": 1}],
      "Edges": [[0, 1], [1, 2], [2, 3], [1, 3], [3, 4], [3, 5]]}"#;
    let (_d, g) = temp_file("g.json", graph);
    let o = run(&["check", &g, "0 1 2 3 4 5"], None);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let out = stdout(&o);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines[2], "peak at      step 3, after node 2", "{out}");
    assert_eq!(lines[3], "live at peak 2 buffers, largest first:", "{out}");
    assert_eq!(
        lines[4].trim(),
        r#"300 B  buf 1: ALLOC 2 -> node 3 Relu "r1""#,
        "{out}"
    );
    assert_eq!(
        lines[5].trim(),
        r#"100 B  buf 0: ALLOC 0 -> node 1 Conv "c1""#
    );
    let o = run(&["check", &g, "0 1 2 3 4 5", "--live", "1"], None);
    let out = stdout(&o);
    assert!(
        out.contains("live at peak 2 buffers; the largest (--live N for more):\n"),
        "{out}"
    );
    assert!(out.contains("buf 1") && !out.contains("buf 0"), "{out}");
    let o = run(&["check", &g, "0 1 2 3 4 5", "--live", "0"], None);
    assert!(stdout(&o).contains("live at peak 2 buffers\nprogram peak"));
    // A graph's Op cannot forge a line of the report.
    let (_d2, forged) = temp_file("f.json", &graph.replace("Relu", "Re\\nFAKE\\u001b[31m"));
    let out = stdout(&run(&["check", &forged, "0 1 2 3 4 5"], None));
    assert!(
        out.contains(r#"ALLOC 2 -> node 3 Re\nFAKE\u{1b}[31m "r1""#),
        "{out}"
    );
    assert!(!out.lines().any(|l| l.starts_with("FAKE")), "{out}");
    let o = run(&["check", &g, "0 1 2 3 4 5", "--format", "json"], None);
    let v: Value = serde_json::from_str(&stdout(&o)).unwrap();
    let live: Vec<_> = (v["live_at_peak"].as_array().unwrap().iter())
        .map(|b| {
            (
                b["buf"].as_i64(),
                b["size"].as_u64(),
                b["alloc"].as_i64(),
                b["feeds"].as_i64(),
            )
        })
        .collect();
    assert_eq!(
        live,
        [
            (Some(1), Some(300), Some(2), Some(3)),
            (Some(0), Some(100), Some(0), Some(1))
        ]
    );
}

/// An order given on the command line itself is checked when no file has
/// that name; a bare id is still a file's name.
#[test]
fn check_takes_an_order_given_inline() {
    for order in ["[0, 1, 2]", "0 1 2", "0,1,2", "0\r\n1\r\n2\r\n"] {
        let o = run(&["check", EXAMPLE, order], None);
        assert_eq!(o.status.code(), Some(0), "{order}: {}", stderr(&o));
        assert!(stdout(&o).contains("peak         1024 B"), "{}", stdout(&o));
    }
    let o = run(&["check", EXAMPLE, "[0, 2, 1]"], None);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("error: the order given is not a schedule of the graph: edge [1, 2]"),
        "{}",
        stderr(&o)
    );
    let o = run(&["check", EXAMPLE, "2"], None);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("cannot read 2: "), "{}", stderr(&o));
    // A typo in an order given itself is named, as is a pasted report.
    let o = run(&["check", EXAMPLE, "0 x 2"], None);
    assert_eq!(o.status.code(), Some(2));
    let err = stderr(&o);
    assert!(
        err.contains("cannot read 0 x 2: ")
            && err.contains("read as an order given itself, the 2nd entry (`x`) is not a node id"),
        "{err}"
    );
    let pasted = format!("reduction 15.65% vs program order {}", "0 1 ".repeat(50));
    let err = stderr(&run(&["check", EXAMPLE, &pasted], None));
    assert!(
        err.contains("cannot read `reduction 15.65% vs program order 0 1 0 1 0 1 0 1 0 1 0 1 0 ...` (234 characters)")
            && err.contains("the 1st entry (`reduction`) is not a node id"),
        "{err}"
    );
    // A file of that name is read, not taken for the order.
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("0 1 2"), "[0, 2, 1]").unwrap();
    let o = std::process::Command::new(cli_support::BIN)
        .args(["check", EXAMPLE, "0 1 2"])
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("0 1 2 is not a schedule"),
        "{}",
        stderr(&o)
    );
}

/// The text report `schedule -o FILE` saves is an order `check` reads (by
/// its `order` line), and checks to the same peak.
#[test]
fn check_reads_a_saved_schedule_report() {
    let dir = tempfile::tempdir().unwrap();
    let report = dir.path().join("report.txt");
    let report = report.to_str().unwrap();
    let o = run(&["schedule", EXAMPLE, "-s", "kahn", "-o", report], None);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let o = run(&["check", EXAMPLE, report], None);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(stdout(&o).contains("peak         1024 B (1.0 KiB)"));
}

/// With `--format json` a broken order is a report too (`valid: false`
/// and the error), beside the error on stderr and exit code 2.
#[test]
fn a_broken_order_is_a_json_report_too() {
    let o = run(&["check", EXAMPLE, "-", "--format", "json"], Some("1 0 2"));
    assert_eq!(o.status.code(), Some(2));
    let v: Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(v["valid"].as_bool(), Some(false));
    let error = v["error"].as_str().unwrap();
    assert!(error.contains("edge [0, 1] is violated"), "{error}");
    assert!(stderr(&o).contains(error), "{}", stderr(&o));
    // A text report file says so too, replacing an earlier report there;
    // standard output gets no text report (the error is on stderr).
    let (dir, report) = temp_file("report.txt", "valid        an earlier report\n");
    let o = run(&["check", EXAMPLE, "-", "-o", &report], Some("1 0 2"));
    assert_eq!(o.status.code(), Some(2));
    let text = std::fs::read_to_string(&report).unwrap();
    assert!(
        text.starts_with("invalid      ") && text.contains("edge [0, 1] is violated"),
        "{text}"
    );
    let o = run(&["check", EXAMPLE, "-"], Some("1 0 2"));
    assert_eq!((o.status.code(), stdout(&o)), (Some(2), String::new()));
    drop(dir);
}

#[test]
fn check_reads_the_report_of_schedule() {
    let o = run(
        &["schedule", EXAMPLE, "-s", "exact", "--format", "json"],
        None,
    );
    let report = stdout(&o);
    let o = run(&["check", EXAMPLE, "-"], Some(&report));
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
}

#[test]
fn check_names_what_breaks_an_order() {
    for (order, needle) in [
        (
            "1 0 2",
            "edge [0, 1] is violated: node 1 runs at step 1, before node 0 at step 2",
        ),
        ("0 1", "it has 2 of the graph's 3 nodes: missing 2"),
        (
            "0 1 1",
            "the 3rd entry is node 1 again: the 2nd entry is too",
        ),
        (
            "0 1 7",
            "the 3rd entry is node 7, which is not in the graph",
        ),
        ("0 one 2", "the 2nd entry (`one`) is not an integer"),
        ("{\"peak\": 3}", "`order` array"),
    ] {
        let o = run(&["check", EXAMPLE, "-"], Some(order));
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{order}: {err}");
        assert!(
            err.contains(needle) && !err.contains("panicked"),
            "{order}: {err}"
        );
        assert!(err.contains("standard input"), "the order is named: {err}");
    }
    // An order file that cannot be read is invalid input too.
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("missing.txt");
    for path in [missing.to_str().unwrap(), dir.path().to_str().unwrap()] {
        let o = run(&["check", EXAMPLE, path], None);
        assert_eq!(o.status.code(), Some(2), "{path}: {}", stderr(&o));
        assert!(stderr(&o).contains("cannot read"), "{}", stderr(&o));
    }
    let o = run(&["check", "-", "-"], Some("{}"));
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("cannot both come from standard input"));
}

#[test]
fn check_plots_the_order_beside_program_order() {
    let (dir, order) = order_file("0 1 2\n");
    let svg = dir.path().join("memory.svg");
    let o = run(
        &["check", EXAMPLE, &order, "--plot", svg.to_str().unwrap()],
        None,
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let text = std::fs::read_to_string(&svg).unwrap();
    for label in ["order.txt - peak", "program order - peak"] {
        assert!(text.contains(label), "the SVG lacks `{label}`");
    }
    let o = run(&["check", EXAMPLE, &order, "--plot", "memory.pdf"], None);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stdout(&o).is_empty(), "refused before checking");
}

/// A line of an experiment's `orders.jsonl` names the graph it was saved
/// for (a file's stem, `SPEC#SEED` for a generated graph). Checked against
/// another graph, the error says which graph the order was saved for and
/// which was given; an order that checks against a file of another name
/// warns, and one against its own graph (or a copy of a generated graph
/// under any name) does not.
#[test]
fn check_names_the_graph_an_experiment_saved_the_order_for() {
    let dir = tempfile::tempdir().unwrap();
    let path = |name: &str| dir.path().join(name).to_str().unwrap().to_string();
    for (family, file) in [("chain", "chain.json"), ("tree", "my-tree.json")] {
        let o = run(&["gen", family, "--seed", "1", "-o", &path(file)], None);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    }
    std::fs::copy(path("chain.json"), path("renamed.json")).unwrap();
    let config = path("exp.toml");
    std::fs::write(
        &config,
        format!(
            "name = \"saved\"\nsolvers = [\"kahn\"]\nsave_orders = true\nplots = []\n\
             [graphs]\nfiles = [{:?}]\ngenerate = [{{ spec = \"tree\", seeds = [1] }}]\n",
            path("chain.json")
        ),
    )
    .unwrap();
    let out = path("out");
    let o = run(&["run", &config, "--out", &out, "-q"], None);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let lines = std::fs::read_to_string(dir.path().join("out/orders.jsonl")).unwrap();
    let line = |graph: &str| -> String {
        let line = lines
            .lines()
            .find(|l| l.contains(&format!("\"graph\":\"{graph}\"")))
            .unwrap_or_else(|| panic!("no order of {graph} in {lines}"));
        let file = path(&format!("{}.line", graph.replace('#', "_")));
        std::fs::write(&file, line).unwrap();
        file
    };
    let (chain_order, tree_order) = (line("chain"), line("tree#1"));

    // The wrong graph: the error says for which graph the order was saved.
    for (graph, order, needle) in [
        (
            "my-tree.json",
            &chain_order,
            "(the order was saved for graph `chain`, and the graph given is ",
        ),
        (
            "chain.json",
            &tree_order,
            "(the order was saved for graph `tree#1`, a `tree` graph, and ",
        ),
    ] {
        let o = run(&["check", &path(graph), order], None);
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{err}");
        assert!(err.contains(needle), "{graph}: {err}");
        assert!(err.contains(graph), "the file given is named: {err}");
    }
    // Right graph, other file name: valid, with a warning naming both.
    let o = run(&["check", &path("renamed.json"), &chain_order], None);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(
        err.contains("warning: ")
            && err.contains("was saved for graph `chain`, and the graph given is ")
            && err.contains("renamed.json"),
        "{err}"
    );
    // Right graph under its own name, or a generated graph's file under
    // any name: no warning.
    for (graph, order) in [("chain.json", &chain_order), ("my-tree.json", &tree_order)] {
        let o = run(&["check", &path(graph), order], None);
        assert_eq!(o.status.code(), Some(0), "{graph}: {}", stderr(&o));
        assert!(stderr(&o).is_empty(), "{graph}: {}", stderr(&o));
    }
}

/// `check -o` or `--plot` naming the graph or the order file is refused
/// before anything is read, and both files stay as they were.
#[test]
#[cfg(unix)] // links and a redirected standard input are compared by inode
fn check_refuses_an_output_that_is_one_of_its_inputs() {
    let (dir, order) = order_file("0 1 2\n");
    let graph = dir.path().join("g.svg");
    std::fs::copy(EXAMPLE, &graph).unwrap();
    let g = graph.to_str().unwrap();
    for (args, needle) in [
        (
            vec!["-o", order.as_str()],
            format!("--out {order}: it is the order file, {order}"),
        ),
        (
            vec!["-o", g],
            format!("--out {g}: it is the graph file, {g}"),
        ),
        (
            vec!["--plot", g],
            format!("--plot {g}: it is the graph file"),
        ),
    ] {
        let mut all = vec!["check", g, order.as_str()];
        all.extend(args);
        let o = run(&all, None);
        assert_eq!(o.status.code(), Some(2), "{all:?}: {}", stderr(&o));
        assert!(stderr(&o).contains(&needle), "{all:?}: {}", stderr(&o));
        assert!(o.stdout.is_empty());
    }
    assert_eq!(std::fs::read_to_string(&order).unwrap(), "0 1 2\n");
    assert_eq!(
        std::fs::read_to_string(&graph).unwrap(),
        std::fs::read_to_string(EXAMPLE).unwrap()
    );
    // The order redirected into standard input is the order file all the same.
    let o = std::process::Command::new(cli_support::BIN)
        .args(["check", g, "-", "-o", &order])
        .stdin(std::fs::File::open(&order).unwrap())
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("the order file, standard input (redirected from it)"),
        "{}",
        stderr(&o)
    );
}

/// An order file that is not text (`/dev/zero`, zeros) is refused at once.
#[test]
fn check_refuses_an_order_that_is_not_text_at_once() {
    let (dir, _) = order_file("");
    let zeros = dir.path().join("zeros.txt");
    std::fs::write(&zeros, [0u8; 100]).unwrap();
    for order in ["/dev/zero", zeros.to_str().unwrap()] {
        let o = run_within(&["check", EXAMPLE, order], 20);
        assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
        let want = format!(
            "{order} is not an order of the graph: it starts with byte 0x00 at offset 0, \
             where an order is text"
        );
        assert!(stderr(&o).contains(&want), "{}", stderr(&o));
    }
}
