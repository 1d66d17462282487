//! `memsched diff`: a committed results directory against a copy with
//! known edits, counted and listed as the edits say.
#![cfg(feature = "cli")]

mod cli_support;

use std::path::{Path, PathBuf};

use cli_support::{expect_exit, run, stderr, stdout};
use memsched::experiment::rows::{read_rows, write_rows, Row, RowStatus};

const RESULTS: &str = "results/seed_table";

/// A copy of the committed directory's files, its rows passed through
/// `edit` first.
fn edited_copy(edit: impl FnOnce(&mut Vec<Row>)) -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("after");
    std::fs::create_dir(&dir).unwrap();
    for file in ["config.toml", "fingerprints.toml"] {
        std::fs::copy(Path::new(RESULTS).join(file), dir.join(file)).unwrap();
    }
    let mut rows = read_rows(&Path::new(RESULTS).join("runs.csv")).unwrap();
    edit(&mut rows);
    write_rows(&dir.join("runs.csv"), &rows).unwrap();
    (tmp, dir)
}

/// The row of `solver` on the committed directory's first graph.
fn first_graph_row<'a>(rows: &'a mut [Row], solver: &str) -> &'a mut Row {
    let graph = rows[0].graph.clone();
    rows.iter_mut()
        .find(|r| r.graph == graph && r.solver == solver)
        .unwrap()
}

/// `--new-solver` compares two solvers of one directory, graph by graph:
/// the repaired greedy against the article's on the committed rows.
#[test]
fn two_solvers_of_one_directory_are_compared() {
    let args = ["diff", RESULTS, RESULTS, "-s", "seed-greedy"];
    let o = run(
        &[&args[..], &["--new-solver", "moves:delta,type,id"]].concat(),
        None,
    );
    expect_exit(&o, 0);
    let out = stdout(&o);
    assert!(
        out.starts_with(
            "- Compared: `seed-greedy` in OLD with `moves:delta,type,id` in NEW, matched by \
             graph and seed (the lines below name both `seed-greedy`)\n"
        ),
        "{out}"
    );
    assert!(
        out.contains("16 solves in both: 7 better, 0 worse, 9 unchanged."),
        "{out}"
    );
    assert!(!stderr(&o).contains("same file"), "{}", stderr(&o));
    // One --solver is needed, and the new one must have rows.
    let o = run(&["diff", RESULTS, RESULTS, "--new-solver", "kahn"], None);
    assert!(
        stderr(&o).contains("name that one with --solver (once)"),
        "{}",
        stderr(&o)
    );
    assert_eq!(o.status.code(), Some(2));
    let o = run(&[&args[..], &["--new-solver", "xla-list"]].concat(), None);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains(
            "no row of solver `xla-list` (--new-solver) in NEW; its solvers: `best-heuristic`"
        ),
        "{}",
        stderr(&o)
    );
}

/// A raised peak, a failed solve and a dropped row show up as what they
/// are, the worst first; `--fail-on-regression` turns them into exit 1.
#[test]
fn edits_are_counted_and_listed_worst_first() {
    let (_tmp, after) = edited_copy(|rows| {
        let r = first_graph_row(rows, "seed-greedy");
        r.peak_bytes = r.peak_bytes.map(|p| p + 1024);
        let r = first_graph_row(rows, "kahn");
        r.status = RowStatus::Failed;
        r.valid = false;
        r.peak_bytes = None;
        r.reason = "panicked: test".into();
        rows.pop();
    });
    let after = after.to_str().unwrap();
    let o = run(&["diff", RESULTS, after], None);
    expect_exit(&o, 0);
    let out = stdout(&o);
    assert!(
        out.contains("111 solves in both: 0 better, 2 worse, 109 unchanged."),
        "{out}"
    );
    assert!(out.contains("| `kahn` | 16 | 0 | 15 | 0 | 1 |"), "{out}");
    assert!(
        out.contains("| `seed-greedy` | 16 | 0 | 15 | 1 | 0 |"),
        "{out}"
    );
    let broken = out
        .find("now unsolved: panicked: test")
        .expect("the failed solve listed");
    let higher = out.find("| +").expect("the raised peak listed");
    assert!(broken < higher, "the worst first:\n{out}");
    assert!(out.contains("1 solve only in OLD (not compared)"), "{out}");

    let o = run(&["diff", RESULTS, after, "--fail-on-regression"], None);
    expect_exit(&o, 1);
    assert!(stderr(&o).contains("2 solves got worse"), "{}", stderr(&o));
    let o = run(&["diff", RESULTS, RESULTS, "--fail-on-regression"], None);
    expect_exit(&o, 0);
}

/// Runs under another time limit or budget are compared, with the
/// settings that differ named in the report (on standard error for CSV).
#[test]
fn settings_that_differ_are_named() {
    let (_tmp, after) = edited_copy(|_| {});
    let o = run(&["diff", RESULTS, after.to_str().unwrap()], None);
    expect_exit(&o, 0);
    assert!(!stdout(&o).contains("Settings differ"), "{}", stdout(&o));
    let config = after.join("config.toml");
    let text = std::fs::read_to_string(&config).unwrap();
    assert!(text.contains("time_limit = 30.0\n"), "{text}");
    let text = text
        .replace("time_limit = 30.0\n", "time_limit = 5.0\n")
        .replace("max_states = ", "max_states = 1");
    std::fs::write(&config, text).unwrap();
    let o = run(&["diff", RESULTS, after.to_str().unwrap()], None);
    expect_exit(&o, 0);
    let out = stdout(&o);
    assert!(
        out.contains(
            "- **Settings differ**: NEW was solved with another `time_limit` (30 s, now 5 s) \
             and `[budget]` (max_states = "
        ),
        "{out}"
    );
    let o = run(
        &["diff", RESULTS, after.to_str().unwrap(), "--format", "csv"],
        None,
    );
    expect_exit(&o, 0);
    assert!(
        stderr(&o).contains("warning: NEW was solved with another `time_limit` (30 s, now 5 s)"),
        "{}",
        stderr(&o)
    );
    // `kahn` reads no budget: for it, only the time limit differs.
    let o = run(
        &["diff", RESULTS, after.to_str().unwrap(), "-s", "kahn"],
        None,
    );
    let out = stdout(&o);
    assert!(
        out.contains("another `time_limit` (30 s, now 5 s) than OLD"),
        "{out}"
    );
}

/// The CSV has a line per solve in both, with both peaks in bytes as the
/// rows hold them; `-s` picks a solver in any spelling.
#[test]
fn csv_lines_hold_both_rows_peaks() {
    let mut raised = None;
    let (_tmp, after) = edited_copy(|rows| {
        let r = first_graph_row(rows, "moves:delta,type,id");
        let old = r.peak_bytes.unwrap();
        r.peak_bytes = Some(old / 2);
        raised = Some((r.graph.clone(), old));
    });
    let (graph, old) = raised.unwrap();
    let o = run(
        &[
            "diff",
            RESULTS,
            after.to_str().unwrap(),
            "--format",
            "csv",
            "-s",
            "moves: delta, type, id",
        ],
        None,
    );
    expect_exit(&o, 0);
    let out = stdout(&o);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 1 + 16, "{out}");
    assert!(lines[0].starts_with("graph,solver,seed,change,"), "{out}");
    let want = format!(
        "{graph},\"moves:delta,type,id\",0,lower,feasible,feasible,{old},{},-50,",
        old / 2
    );
    assert!(lines.iter().any(|l| l.starts_with(&want)), "{want}\n{out}");
}

/// Bad input names what is wrong: a missing directory, a solver in
/// neither, directories with nothing in common, a graph edited between.
#[test]
fn bad_input_is_named() {
    let o = run(&["diff", RESULTS, "no/such/dir"], None);
    expect_exit(&o, 2);
    assert!(stderr(&o).contains("no/such/dir"), "{}", stderr(&o));

    let o = run(&["diff", RESULTS, RESULTS, "-s", "nope"], None);
    expect_exit(&o, 2);
    assert!(
        stderr(&o).contains("no row of solver `nope`"),
        "{}",
        stderr(&o)
    );

    let o = run(&["diff", RESULTS, "results/quick", "--graph", "zzz*"], None);
    expect_exit(&o, 2);
    assert!(stderr(&o).contains("`zzz*`"), "{}", stderr(&o));

    let (_tmp, after) = edited_copy(|rows| {
        for r in rows.iter_mut() {
            r.graph.push_str("-renamed");
        }
    });
    let o = run(&["diff", RESULTS, after.to_str().unwrap()], None);
    expect_exit(&o, 2);
    assert!(
        stderr(&o).contains("OLD and NEW have no solve (graph, solver, seed) in common"),
        "{}",
        stderr(&o)
    );

    // A graph whose content changed (another node count) is left out.
    let (_tmp, after) = edited_copy(|rows| {
        let graph = rows[0].graph.clone();
        for r in rows.iter_mut().filter(|r| r.graph == graph) {
            r.nodes += 1;
        }
    });
    let o = run(&["diff", RESULTS, after.to_str().unwrap()], None);
    expect_exit(&o, 0);
    assert!(
        stdout(&o).contains("1 graph left out, as its content differs"),
        "{}",
        stdout(&o)
    );
    assert!(stdout(&o).contains("105 solves in both"), "{}", stdout(&o));
}

/// A graph that could not be loaded on one side says nothing of the
/// solvers: its solves are left out, not counted as got worse.
#[test]
fn a_graph_not_loaded_is_left_out() {
    let (_tmp, after) = edited_copy(|rows| {
        let graph = rows[0].graph.clone();
        for r in rows.iter_mut().filter(|r| r.graph == graph) {
            r.nodes = 0;
            r.edges = 0;
            r.status = RowStatus::Failed;
            r.valid = false;
            r.peak_bytes = None;
            r.reason = "cannot load graph: no such file".into();
        }
    });
    let o = run(
        &[
            "diff",
            RESULTS,
            after.to_str().unwrap(),
            "--fail-on-regression",
        ],
        None,
    );
    expect_exit(&o, 0);
    let out = stdout(&o);
    assert!(
        out.contains("105 solves in both: 0 better, 0 worse"),
        "{out}"
    );
    assert!(
        out.contains("1 graph left out, as it could not be loaded"),
        "{out}"
    );
}

/// No file `diff` reads may be its output; a file that is not a runs.csv,
/// or one without rows, is refused by name.
#[test]
fn inputs_are_guarded_and_checked() {
    let (_tmp, after) = edited_copy(|_| {});
    let fingerprints = after.join("fingerprints.toml");
    let o = run(
        &[
            "diff",
            RESULTS,
            after.to_str().unwrap(),
            "-o",
            fingerprints.to_str().unwrap(),
        ],
        None,
    );
    expect_exit(&o, 2);
    assert!(
        stderr(&o).contains("it is the fingerprints file"),
        "{}",
        stderr(&o)
    );

    let readme = Path::new(RESULTS).join("README.md");
    let o = run(&["diff", RESULTS, readme.to_str().unwrap()], None);
    expect_exit(&o, 2);
    assert!(stderr(&o).contains("are not rows"), "{}", stderr(&o));

    let header_only = after.join("runs.csv");
    let header = memsched::experiment::rows::header();
    std::fs::write(&header_only, format!("{}\n", header.trim_end())).unwrap();
    let o = run(&["diff", RESULTS, header_only.to_str().unwrap()], None);
    expect_exit(&o, 2);
    assert!(stderr(&o).contains("NEW has no rows"), "{}", stderr(&o));
}
