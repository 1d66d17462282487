//! `orders:PATH`: schedules made elsewhere, read from files, run as a
//! solver by `schedule` and in experiments beside the others.
#![cfg(feature = "cli")]

mod cli_support;

use cli_support::{arg, expect_exit, run, run_args, stderr, stdout};

/// The article's example graph: ALLOC 0 -> compute 1 -> FREE 2, 1024 bytes.
const EXAMPLE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/seed_example.json");

/// `schedule` looks the graph up by its file's stem; the order is checked.
#[test]
fn schedule_reads_the_order_named_after_the_graph_file() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("seed_example.json"), "[0, 1, 2]").unwrap();
    let solver = format!("orders:{}", dir.path().display());
    let o = run(&["schedule", EXAMPLE, "-s", &solver, "-s", "exact"], None);
    expect_exit(&o, 0);
    let out = stdout(&o);
    assert!(
        out.contains("feasible") && out.contains("read from"),
        "{out}"
    );
    // A wrong order is an invalid row, not a figure.
    std::fs::write(dir.path().join("seed_example.json"), "2 1 0").unwrap();
    let o = run(&["schedule", EXAMPLE, "-s", &solver], None);
    let out = stdout(&o) + &stderr(&o);
    assert!(out.contains("invalid"), "{out}");
    // `--out` (or `--plot`) on a file the solver reads, or anywhere in
    // its directory (however the solver is spelled), is refused before
    // anything is written.
    let kept = std::fs::read_to_string(dir.path().join("seed_example.json")).unwrap();
    std::fs::write(dir.path().join("other.json"), "[0]").unwrap();
    let spaced = format!("orders : {}", dir.path().display());
    for (file, solver) in [
        ("seed_example.json", &solver),
        ("other.json", &solver),
        ("new.txt", &solver),
        ("seed_example.json", &spaced),
    ] {
        let out = dir.path().join(file);
        let o = run(&["schedule", EXAMPLE, "-s", solver, "-o", arg(&out)], None);
        expect_exit(&o, 2);
        assert!(
            stderr(&o).contains("reads its orders from"),
            "{}",
            stderr(&o)
        );
    }
    assert!(!dir.path().join("new.txt").exists());
    assert_eq!(
        std::fs::read_to_string(dir.path().join("seed_example.json")).unwrap(),
        kept
    );
    assert_eq!(
        std::fs::read_to_string(dir.path().join("other.json")).unwrap(),
        "[0]"
    );
    let lines = dir.path().join("o.jsonl");
    std::fs::write(
        &lines,
        "{\"graph\": \"seed_example\", \"order\": [0, 1, 2]}\n",
    )
    .unwrap();
    let lines_solver = format!("orders:{}", lines.display());
    let o = run(
        &["schedule", EXAMPLE, "-s", &lines_solver, "-o", arg(&lines)],
        None,
    );
    expect_exit(&o, 2);
    assert!(std::fs::read_to_string(&lines)
        .unwrap()
        .starts_with("{\"graph\""));
    // A path that is not there is a usage error naming it.
    let o = run(&["schedule", EXAMPLE, "-s", "orders:/no/such/place"], None);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("/no/such/place"), "{}", stderr(&o));
}

/// An experiment's saved orders feed another experiment: the orders of
/// `kahn` in the first come back with kahn's peaks in the second.
#[test]
fn an_experiment_reads_another_experiments_orders() {
    let tmp = tempfile::tempdir().unwrap();
    let graphs = "[graphs]\ngenerate = [{ spec = \"chain:length=4\", seeds = \"0..3\" }]\n";
    let first = tmp.path().join("first.toml");
    std::fs::write(
        &first,
        format!("name = \"first\"\nsolvers = [\"kahn\"]\nplots = []\nsave_orders = true\n{graphs}"),
    )
    .unwrap();
    let out1 = tmp.path().join("out1");
    expect_exit(&run(&run_args(arg(&first), &out1, &[]), None), 0);
    let saved = out1.join("orders.jsonl");
    let second = tmp.path().join("second.toml");
    std::fs::write(
        &second,
        format!(
            "name = \"second\"\nsolvers = [\"kahn\", \"orders:{}#kahn\"]\nplots = []\n{graphs}",
            saved.display()
        ),
    )
    .unwrap();
    let out2 = tmp.path().join("out2");
    expect_exit(&run(&run_args(arg(&second), &out2, &[]), None), 0);
    let mut reader = csv::Reader::from_path(out2.join("runs.csv")).unwrap();
    let headers = reader.headers().unwrap().clone();
    let col = |name: &str| headers.iter().position(|h| h == name).unwrap();
    let rows: Vec<csv::StringRecord> = reader.records().map(Result::unwrap).collect();
    let peak = |graph: &str, solver: &str| {
        rows.iter()
            .find(|r| &r[col("graph")] == graph && r[col("solver")].starts_with(solver))
            .map(|r| {
                (
                    r[col("status")].to_string(),
                    r[col("peak_bytes")].to_string(),
                )
            })
            .unwrap()
    };
    for seed in 0..3 {
        let graph = format!("chain:length=4#{seed}");
        let (status, from_file) = peak(&graph, "orders:");
        assert_eq!(status, "feasible", "{graph}");
        assert_eq!(from_file, peak(&graph, "kahn").1, "{graph}");
    }
}
