//! `memsched schedule` with `--solver` repeated: a table (or one JSON object
//! per line) of checked solves of one graph, the best peak and the best
//! lower bound among them.
#![cfg(feature = "cli")]

mod cli_support;

use cli_support::{expect_exit, schedule, stdout};

use serde_json::Value;

/// The article's example graph (peak 1024 in every order).
const EXAMPLE: &str = include_str!("../examples/seed_example.json");

/// Two compute nodes whose Nodes order breaks their edge: `program` fails.
const REVERSED: &str =
    r#"{"Nodes": [{"Id": 0, "Op": "B"}, {"Id": 1, "Op": "A"}], "Edges": [[1, 0]]}"#;

#[test]
fn compare_prints_a_row_per_solver_in_order_and_the_proof() {
    let o = schedule(
        &["-s", "kahn", "-s", "exact", "-s", "rule:delta,type,id"],
        EXAMPLE,
    );
    expect_exit(&o, 0);
    let out = stdout(&o);
    let rows: Vec<&str> = out
        .lines()
        .filter(|l| {
            ["kahn ", "exact ", "rule:delta,type,id "]
                .iter()
                .any(|s| l.starts_with(s))
        })
        .collect();
    assert_eq!(rows.len(), 3, "{out}");
    assert!(
        rows[0].starts_with("kahn") && rows[1].starts_with("exact"),
        "{out}"
    );
    assert!(rows[1].contains("optimal"), "{out}");
    assert!(
        out.contains("best peak     1024 B (1.0 KiB) by kahn"),
        "{out}"
    );
    assert!(
        out.contains("lower bound   1024 B (1.0 KiB) by exact: the best peak is optimal"),
        "{out}"
    );
    // No order in the table: it is for comparing peaks.
    assert!(!out.lines().any(|l| l.starts_with("order")), "{out}");
}

#[test]
fn compare_json_is_one_schedule_object_per_line() {
    let o = schedule(
        &["-s", "kahn", "-s", "seed-greedy", "--format", "json"],
        EXAMPLE,
    );
    expect_exit(&o, 0);
    let objects: Vec<Value> = stdout(&o)
        .lines()
        .map(|l| serde_json::from_str(l).expect("each line is one JSON object"))
        .collect();
    let names: Vec<&str> = objects
        .iter()
        .map(|v| v["solver"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["kahn", "seed-greedy"]);
    assert!(objects
        .iter()
        .all(|v| v["peak"] == 1024 && v["order"].is_array()));
}

#[test]
fn compare_refuses_an_unknown_solver_before_solving() {
    let o = schedule(&["-s", "kahn", "-s", "seed-gready"], EXAMPLE);
    let err = expect_exit(&o, 2);
    assert!(err.contains("seed-gready"), "{err}");
    assert!(stdout(&o).is_empty(), "nothing is solved: {}", stdout(&o));
}

#[test]
fn compare_keeps_the_other_rows_when_one_solver_fails() {
    let o = schedule(&["-s", "program", "-s", "kahn"], REVERSED);
    let err = expect_exit(&o, 1);
    let out = stdout(&o);
    assert!(
        out.contains("program peak  - (the Nodes order breaks an edge)"),
        "{out}"
    );
    assert!(
        out.lines()
            .any(|l| l.starts_with("kahn ") && l.contains("feasible")),
        "{out}"
    );
    assert!(out.contains("program failed: "), "{out}");
    assert!(
        err.contains("error: solver program returned no valid schedule"),
        "{err}"
    );
    assert!(!err.contains("kahn"), "{err}");
}

#[test]
fn compare_warns_only_about_a_flag_no_solver_reads() {
    let restarts = |solver| {
        let o = schedule(&["-s", "kahn", "-s", solver, "--restarts", "3"], EXAMPLE);
        expect_exit(&o, 0)
    };
    let err = restarts("noisy:delta,id");
    assert!(!err.contains("warning"), "{err}");
    let err = restarts("seed-greedy");
    let warning = "warning: --restarts has no effect on solvers `kahn`, `seed-greedy`";
    assert!(err.contains(warning), "{err}");
}

#[test]
fn plot_draws_each_checked_schedule_in_the_format_its_name_gives() {
    let dir = tempfile::tempdir().unwrap();
    let svg = dir.path().join("memory.svg");
    let png = dir.path().join("memory.PNG");
    for path in [&svg, &png] {
        let plot = [
            "-s",
            "kahn",
            "-s",
            "exact",
            "--plot",
            path.to_str().unwrap(),
        ];
        expect_exit(&schedule(&plot, EXAMPLE), 0);
    }
    let text = std::fs::read_to_string(&svg).unwrap();
    assert!(text.starts_with("<svg"), "an SVG");
    for label in [
        "kahn - peak",
        "exact - peak",
        "memory over the steps of standard input",
    ] {
        assert!(text.contains(label), "the SVG lacks `{label}`");
    }
    let bytes = std::fs::read(&png).unwrap();
    assert!(bytes.starts_with(b"\x89PNG"), "a PNG");
}

#[test]
fn out_refuses_a_directory_or_a_missing_one_before_solving() {
    let dir = tempfile::tempdir().unwrap();
    let nowhere = dir.path().join("missing").join("report.txt");
    // `report.txt/` has `report.txt`'s parent, yet names a directory.
    let slashed = format!("{}/", dir.path().join("report.txt").display());
    let dotted = format!("{}/.", dir.path().join("report.txt").display());
    let mut cases = vec![
        (dir.path().to_path_buf(), "it is a directory"),
        (nowhere, "there is no directory"),
        (slashed.into(), "it ends in a separator"),
        (dotted.into(), "it ends in a separator"),
        (std::path::PathBuf::new(), "--out is empty"),
    ];
    // A link whose target's directory is missing, and a loop of links.
    #[cfg(unix)]
    {
        let (dangling, looped) = (dir.path().join("dangling.txt"), dir.path().join("l1.txt"));
        std::os::unix::fs::symlink("/nonexistent/dir/r.txt", &dangling).unwrap();
        std::os::unix::fs::symlink("l2.txt", &looped).unwrap();
        std::os::unix::fs::symlink("l1.txt", dir.path().join("l2.txt")).unwrap();
        cases.push((dangling, "there is no directory /nonexistent/dir"));
        cases.push((looped, "cannot be followed"));
    }
    for (path, needle) in cases {
        let o = schedule(&["--out", path.to_str().unwrap()], EXAMPLE);
        let err = expect_exit(&o, 2);
        assert!(err.contains(needle), "{err}");
        assert!(!err.contains("cannot write"), "{err}");
    }
}

#[test]
fn plot_refuses_a_name_it_cannot_draw_before_solving() {
    let dir = tempfile::tempdir().unwrap();
    let pdf = dir.path().join("memory.pdf");
    let nowhere = dir.path().join("missing").join("memory.svg");
    let folder = dir.path().join("folder.svg");
    std::fs::create_dir(&folder).unwrap();
    let report = dir.path().join("report.svg");
    let same_as_out = ["--out", report.to_str().unwrap()];
    // The report's file by other names: through `..`, and through a link
    // to it (dangling until the report is written).
    let dotted = folder.join("..").join("report.svg");
    let link = dir.path().join("link.svg");
    #[cfg(unix)]
    std::os::unix::fs::symlink("report.svg", &link).unwrap();
    #[cfg(not(unix))]
    let link = dotted.clone();
    let slashed = std::path::PathBuf::from(format!("{}/", dir.path().join("m.svg").display()));
    for (path, needle, extra) in [
        (&pdf, ".png or .svg", &[][..]),
        (&nowhere, "there is no directory", &[]),
        (&folder, "it is a directory", &[]),
        (&report, "--out names the same file", &same_as_out[..]),
        (&dotted, "--out names the same file", &same_as_out[..]),
        (&link, "--out names the same file", &same_as_out[..]),
        (&slashed, "it ends in a separator", &[]),
    ] {
        let mut args = vec!["--plot", path.to_str().unwrap()];
        args.extend_from_slice(extra);
        let o = schedule(&args, EXAMPLE);
        let err = expect_exit(&o, 2);
        assert!(err.contains(needle), "{err}");
        assert!(stdout(&o).is_empty(), "nothing is solved: {}", stdout(&o));
    }
    // Nothing valid to draw: a warning, and no file.
    let svg = dir.path().join("none.svg");
    let o = schedule(
        &["-s", "program", "--plot", svg.to_str().unwrap()],
        REVERSED,
    );
    let err = expect_exit(&o, 1);
    assert!(err.contains("warning: no valid schedule to plot"), "{err}");
    assert!(!svg.exists());
}
