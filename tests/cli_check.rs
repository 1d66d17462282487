//! `memsched check GRAPH ORDER`: an order made elsewhere goes through the
//! independent checker; what breaks it is named (exit code 2).

mod cli_support;

use cli_support::{run, stderr, stdout};

use serde_json::Value;

/// The article's example graph: ALLOC 0 -> compute 1 -> FREE 2, 1024 bytes.
const EXAMPLE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/seed_example.json");

fn order_file(text: &str) -> (tempfile::TempDir, String) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("order.txt");
    std::fs::write(&path, text).unwrap();
    (dir, path.to_str().unwrap().to_string())
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
        ("1 0 2", "edge [0, 1] is violated"),
        ("0 1", "it has 2 of the graph's 3 nodes: missing 2"),
        ("0 1 1", "entry 3 is node 1 again"),
        ("0 1 7", "entry 3 is node 7, which is not in the graph"),
        ("0 one 2", "entry 2 (`one`) is not an integer"),
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
