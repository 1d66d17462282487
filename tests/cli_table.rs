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
    // Nor over the settings it reads beside the rows.
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("quick");
    std::fs::create_dir(&dir).unwrap();
    for file in ["runs.csv", "config.toml"] {
        std::fs::copy(Path::new(RESULTS).join(file), dir.join(file)).unwrap();
    }
    let settings = dir.join("config.toml");
    let o = run(
        &[
            "table",
            dir.to_str().unwrap(),
            "-o",
            settings.to_str().unwrap(),
        ],
        None,
    );
    expect_exit(&o, 2);
    assert!(
        stderr(&o).contains("it is the settings file"),
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

/// Rows whose final pass did not run (a run killed, or in progress) have
/// no reductions yet: `table` computes them as the final pass does, from
/// the baselines of the directory's config (here none: `program`). A last
/// line without a newline (a write cut short) is left out, with a warning.
#[test]
fn rows_without_their_final_pass_get_its_figures() {
    let committed = read_rows(&Path::new("results/quick").join("runs.csv")).unwrap();
    let reduction = |o: &std::process::Output| stdout(o);
    let table = |dir: &Path| {
        run(
            &[
                "table",
                dir.to_str().unwrap(),
                "--format",
                "csv",
                "--value",
                "reduction",
                "-s",
                "exact",
            ],
            None,
        )
    };
    let want = table(Path::new("results/quick"));
    expect_exit(&want, 0);
    // The same rows with the final pass's columns emptied.
    let tmp = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string("results/quick/runs.csv").unwrap();
    let mut reader = csv::Reader::from_reader(text.as_bytes());
    let headers = reader.headers().unwrap().clone();
    let mut w = csv::Writer::from_path(tmp.path().join("runs.csv")).unwrap();
    w.write_record(&headers).unwrap();
    let blank = [
        "baseline",
        "baseline_peak_bytes",
        "reduction_pct",
        "best_known_bytes",
        "gap_pct",
    ];
    for record in reader.records() {
        let record = record.unwrap();
        let fields = headers
            .iter()
            .zip(&record)
            .map(|(h, f)| match blank.contains(&h) {
                true => "",
                false => f,
            });
        w.write_record(fields).unwrap();
    }
    w.flush().unwrap();
    drop(w);
    let got = table(tmp.path());
    expect_exit(&got, 0);
    assert_eq!(reduction(&got), reduction(&want));
    assert!(committed.iter().any(|r| r.solver == "exact"));
    // Cut the last newline: its row (the last graph's last solve) is left out.
    let runs = tmp.path().join("runs.csv");
    let text = std::fs::read_to_string(&runs).unwrap();
    std::fs::write(&runs, text.trim_end_matches('\n')).unwrap();
    let cut = table(tmp.path());
    expect_exit(&cut, 0);
    assert!(
        stderr(&cut).contains("the last, has no newline") && stderr(&cut).contains("left out"),
        "{}",
        stderr(&cut)
    );
    // A file of one line that is not the header (a graph's JSON, say) is
    // no runs.csv; the header alone, cut, is one with no rows yet.
    std::fs::write(&runs, r#"{"Nodes": [], "Edges": []}"#).unwrap();
    let other = table(&runs);
    assert_eq!(other.status.code(), Some(2), "{}", stderr(&other));
    assert!(
        stderr(&other).contains("its one line (with no newline) is not the header of runs.csv"),
        "{}",
        stderr(&other)
    );
    std::fs::write(&runs, "item,graph,fam").unwrap();
    let header = table(&runs);
    assert!(
        stderr(&header).contains("the last, has no newline"),
        "{}",
        stderr(&header)
    );
}

/// The directory's config is read for its baselines only: one naming a
/// solver this binary cannot build (a program's registered solver) still
/// tabulates. A rule given to `-s` in another spelling names its column.
#[test]
fn a_config_this_binary_cannot_run_still_tabulates() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::copy("results/quick/runs.csv", tmp.path().join("runs.csv")).unwrap();
    let config = std::fs::read_to_string("results/quick/config.toml").unwrap();
    let config = config.replacen("solvers = [", "solvers = [\"my-registered-solver\", ", 1);
    assert!(config.contains("my-registered-solver"));
    std::fs::write(tmp.path().join("config.toml"), config).unwrap();
    let o = run(
        &[
            "table",
            tmp.path().to_str().unwrap(),
            "-s",
            "moves: delta, type, id",
            "--format",
            "csv",
        ],
        None,
    );
    expect_exit(&o, 0);
    assert!(
        stdout(&o).starts_with("graph,\"moves:delta,type,id\"\n"),
        "{}",
        stdout(&o)
    );
}

/// A directory whose run is not finished says so: `table` counts the
/// solves its config plans that have no row, and the caption counts the
/// table's cells without one. The whole directory says nothing.
#[test]
fn a_directory_with_unrun_solves_says_so() {
    let tmp = tempfile::tempdir().unwrap();
    for file in ["runs.csv", "config.toml", "shards.toml"] {
        std::fs::copy(Path::new("results/quick").join(file), tmp.path().join(file)).unwrap();
    }
    let dir = tmp.path().to_str().unwrap();
    let whole = run(&["table", dir], None);
    expect_exit(&whole, 0);
    assert!(!stderr(&whole).contains("no row"), "{}", stderr(&whole));
    // Without the first graph's `exact` row and every row of the last graph.
    let rows = read_rows(&tmp.path().join("runs.csv")).unwrap();
    let (first, last) = (&rows[0].graph, &rows[rows.len() - 1].graph);
    let text = std::fs::read_to_string(tmp.path().join("runs.csv")).unwrap();
    let mut lines = text.lines();
    let mut kept = vec![lines.next().unwrap().to_string()];
    let mut dropped = 0;
    for (line, r) in lines.zip(&rows) {
        if (&r.graph == first && r.solver == "exact") || &r.graph == last {
            dropped += 1;
        } else {
            kept.push(line.to_string());
        }
    }
    std::fs::write(tmp.path().join("runs.csv"), kept.join("\n") + "\n").unwrap();
    let o = run(&["table", dir], None);
    expect_exit(&o, 0);
    let want = format!(
        "{dropped} of the {} solves its config.toml plans have no row yet",
        rows.len()
    );
    assert!(stderr(&o).contains(&want), "{}", stderr(&o));
    assert!(
        stdout(&o).contains("-: no valid order, or, in 1 cell(s), no row yet"),
        "{}",
        stdout(&o)
    );
}

/// From a directory where the config's graph files are not found, `table`
/// cannot count the solves without a row, and says so rather than
/// leaving graphs without rows out unannounced.
#[test]
fn a_plan_that_cannot_be_made_here_is_announced() {
    let elsewhere = tempfile::tempdir().unwrap();
    let results = std::fs::canonicalize("results/quick").unwrap();
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_memsched"))
        .args(["table", results.to_str().unwrap()])
        .current_dir(elsewhere.path())
        .output()
        .unwrap();
    expect_exit(&o, 0);
    assert!(
        stderr(&o).contains("cannot tell whether every solve its config.toml plans has a row"),
        "{}",
        stderr(&o)
    );
}
