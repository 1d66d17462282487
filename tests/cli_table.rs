//! `memsched table`: a committed results directory as a graphs x solvers
//! table, checked against its runs.csv.
#![cfg(feature = "cli")]

mod cli_support;

use std::path::Path;

use cli_support::{expect_exit, run, stderr, stdout};
use memsched::experiment::rows::read_rows;

const RESULTS: &str = "results/seed_table";

/// CSV cells are the rows' checked peaks in bytes, solvers in the asked
/// order, graphs by pattern in the rows' order.
#[test]
fn csv_cells_are_the_rows_peaks() {
    let o = run(
        &[
            "table", RESULTS, "--format", "csv", "-s", "exact", "-s", "program", "--graph",
            "bert_*",
        ],
        None,
    );
    expect_exit(&o, 0);
    let rows = read_rows(&Path::new(RESULTS).join("runs.csv")).unwrap();
    let peak = |graph: &str, solver: &str| {
        let r = rows
            .iter()
            .find(|r| r.graph == graph && r.solver == solver)
            .unwrap();
        r.peak_bytes.map(|p| p.to_string()).unwrap_or_default()
    };
    let mut want = String::from("graph,exact,program\n");
    let mut graphs: Vec<&str> = Vec::new();
    for r in rows.iter().filter(|r| r.graph.starts_with("bert_")) {
        if !graphs.contains(&r.graph.as_str()) {
            graphs.push(&r.graph);
        }
    }
    assert_eq!(graphs.len(), 4);
    for g in graphs {
        want += &format!("{g},{},{}\n", peak(g, "exact"), peak(g, "program"));
    }
    assert_eq!(stdout(&o), want);
}

/// Markdown by default, with its caption; a solver not in the rows and a
/// missing directory are input errors that say what is wrong.
#[test]
fn markdown_by_default_and_clear_errors() {
    let o = run(&["table", RESULTS, "-s", "exact"], None);
    expect_exit(&o, 0);
    let out = stdout(&o);
    assert!(
        out.starts_with("| graph | `exact` |\n|---|---:|\n"),
        "{out}"
    );
    assert!(out.contains("Cells: peak memory in MiB"), "{out}");
    let o = run(&["table", RESULTS, "-s", "nope"], None);
    expect_exit(&o, 2);
    assert!(
        stderr(&o).contains("no row of solver `nope`"),
        "{}",
        stderr(&o)
    );
    let o = run(&["table", "no/such/dir"], None);
    expect_exit(&o, 2);
    assert!(
        stderr(&o).contains("no such results directory or runs.csv"),
        "{}",
        stderr(&o)
    );
}
