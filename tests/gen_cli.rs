//! `memsched gen`, `transform` and `datasets` as a user runs them.
#![cfg(feature = "cli")]

use std::process::{Command, Output};

use memsched::corpus::gen::families;
use memsched::graph::seed;

fn memsched(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_memsched"))
        .args(args)
        .output()
        .unwrap()
}

fn code(o: &Output) -> i32 {
    o.status.code().unwrap()
}

#[test]
fn help_lists_every_family_with_its_parameters() {
    let out = memsched(&["gen", "--help"]);
    assert_eq!(code(&out), 0);
    let text = String::from_utf8_lossy(&out.stdout);
    for f in families() {
        assert!(text.contains(f.name), "--help misses {}", f.name);
        for p in f.params {
            assert!(
                text.contains(&format!("{}={}", p.name, p.default)),
                "--help misses {}.{}",
                f.name,
                p.name
            );
        }
    }
    let list = memsched(&["gen", "--list"]);
    assert_eq!(code(&list), 0);
    assert!(String::from_utf8_lossy(&list.stdout).contains("randwire"));
}

#[test]
fn gen_writes_a_valid_deterministic_file_in_both_spec_forms() {
    let dir = tempfile::tempdir().unwrap();
    let a = dir.path().join("a.json");
    let b = dir.path().join("b.json");
    let o = memsched(&[
        "gen",
        "fork-join",
        "-p",
        "branches=3",
        "--param",
        "depth=2",
        "--seed",
        "4",
        "-o",
        a.to_str().unwrap(),
    ]);
    assert_eq!(code(&o), 0, "{}", String::from_utf8_lossy(&o.stderr));
    let o = memsched(&[
        "gen",
        "fork-join:branches=3,depth=2",
        "--seed",
        "4",
        "-o",
        b.to_str().unwrap(),
    ]);
    assert_eq!(code(&o), 0);
    assert_eq!(std::fs::read(&a).unwrap(), std::fs::read(&b).unwrap());
    let g = seed::read_path(a.to_str().unwrap()).unwrap();
    assert_eq!(g.graph_extra()["Generator"]["params"]["branches"], "3");
    // To standard output without -o.
    let o = memsched(&["gen", "chain:length=2"]);
    assert_eq!(code(&o), 0);
    assert!(String::from_utf8_lossy(&o.stdout).starts_with("{\"Nodes\""));
}

#[test]
fn gen_rejects_bad_input_with_exit_2_naming_the_problem() {
    for (args, needle) in [
        (vec!["gen", "nope"], "unknown generator family"),
        (vec!["gen", "Chain"], "`Chain` (did you mean `chain`?)"),
        (
            vec!["gen", "--list", "forkjoin"],
            "(did you mean `fork-join`?)",
        ),
        (
            vec!["gen", "chain", "-p", "lenght=3"],
            "`lenght` (did you mean `length`?)",
        ),
        (vec!["gen", "chain", "-p", "length=-1"], "length"),
        (vec!["gen", "randwire", "-p", "k=3"], "`k`"),
        (vec!["gen", "chain", "-p", "length"], "KEY=VALUE"),
        (vec!["gen", "chain", "-p", "=5"], "`=5` is not KEY=VALUE"),
        (
            vec!["gen", "adversarial", "-p", "target=seed_greedy"],
            "(did you mean `seed-greedy`?)",
        ),
        (vec!["gen"], "missing FAMILY"),
        (
            vec!["gen", "chain:length=3,length=4"],
            "`length` is given twice",
        ),
        (
            vec!["gen", "chain", "-p", "length=3", "-p", "length=4"],
            "`length` is given twice",
        ),
        (
            vec![
                "gen",
                "chain",
                "--allocs",
                "floating",
                "-p",
                "allocs=anchored",
            ],
            "`allocs` is given twice",
        ),
        (
            vec![
                "gen",
                "darts",
                "-p",
                "cells=100",
                "-p",
                "batch=65536",
                "-p",
                "resolution=8192",
                "-p",
                "channels=100000",
            ],
            "too large (lower its size parameters): the ALLOC sizes add up to more than",
        ),
    ] {
        let o = memsched(&args);
        assert_eq!(code(&o), 2, "{args:?}");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.contains(needle), "{args:?}: {err}");
    }
}

#[test]
fn allocs_flag_and_transform_agree() {
    let dir = tempfile::tempdir().unwrap();
    let p = |n: &str| dir.path().join(n).to_str().unwrap().to_string();
    assert_eq!(
        code(&memsched(&[
            "gen",
            "tensor-program",
            "--allocs",
            "floating",
            "-o",
            &p("f.json")
        ])),
        0
    );
    assert_eq!(
        code(&memsched(&["gen", "tensor-program", "-o", &p("a.json")])),
        0
    );
    let o = memsched(&[
        "transform",
        &p("a.json"),
        "--allocs",
        "floating",
        "-o",
        &p("t.json"),
    ]);
    assert_eq!(code(&o), 0, "{}", String::from_utf8_lossy(&o.stderr));
    let (f, t) = (
        seed::read_path(p("f.json")).unwrap(),
        seed::read_path(p("t.json")).unwrap(),
    );
    assert_eq!(f.edge_count(), t.edge_count());
    let o = memsched(&["transform", &p("t.json"), "--allocs", "anchored"]);
    assert_eq!(code(&o), 0);
    let back = seed::parse(&o.stdout).unwrap();
    let a = seed::read_path(p("a.json")).unwrap();
    assert_eq!(back.edges.len(), a.edge_count());
    // A missing file is invalid input.
    assert_eq!(
        code(&memsched(&[
            "transform",
            &p("missing.json"),
            "--allocs",
            "floating"
        ])),
        2
    );
}

#[test]
fn datasets_prints_both_tables() {
    let o = Command::new(env!("CARGO_BIN_EXE_memsched"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .arg("datasets")
        .output()
        .unwrap();
    assert_eq!(code(&o), 0, "{}", String::from_utf8_lossy(&o.stderr));
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(text.contains("resnet50_training_b32.json") && text.contains("randwire_"));
}

/// A family that ignores the seed says so (seeds 0..3 of `darts` were three
/// copies of one graph in an experiment); one that uses it does not.
#[test]
fn a_seed_the_family_ignores_is_named_in_a_warning() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("g.json");
    let out = out.to_str().unwrap();
    let o = memsched(&["gen", "darts", "-p", "cells=2", "--seed", "3", "-o", out]);
    assert_eq!(code(&o), 0);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("darts:cells=2 ignores the seed here: seed 3 gives seed 0's graph"),
        "{err}"
    );
    let o = memsched(&["gen", "chain", "--seed", "3", "-o", out]);
    assert!(!String::from_utf8_lossy(&o.stderr).contains("ignores the seed"));
    // So does a generated graph's name given for a graph file.
    let o = memsched(&["validate", "darts:cells=2#3"]);
    assert_eq!(code(&o), 0);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("darts:cells=2 ignores the seed here: seed 3 gives seed 0's graph"),
        "{err}"
    );
}

/// A generated graph's name as runs.csv gives it (`SPEC#SEED`) is a graph
/// for `schedule`, `check` and `transform` where no file has that name: the
/// graph `gen` writes for that spec and seed. `check` names an order saved
/// for another seed's graph (and not one saved under another spelling of
/// the same name). A bad spec is an input error that says so.
#[test]
fn a_generated_graphs_name_reads_as_that_graph() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("g.json");
    let o = memsched(&[
        "gen",
        "random-layered:layers=5,width=3",
        "--seed",
        "4",
        "-o",
        file.to_str().unwrap(),
    ]);
    assert_eq!(code(&o), 0, "{o:?}");
    let peaks = |graph: &str| {
        let o = memsched(&["schedule", graph, "-s", "exact", "-s", "kahn"]);
        assert_eq!(code(&o), 0, "{o:?}");
        let out = String::from_utf8(o.stdout).unwrap();
        out.lines()
            .filter(|l| l.starts_with("exact ") || l.starts_with("kahn "))
            .map(|l| l.split_whitespace().nth(2).unwrap().to_string())
            .collect::<Vec<_>>()
    };
    let name = "random-layered:layers=5,width=3#4";
    let by_name = peaks(name);
    assert_eq!(by_name.len(), 2);
    assert_eq!(by_name, peaks(file.to_str().unwrap()));
    // `transform` reads the name as the file too.
    let floating = |graph: &str| {
        let o = memsched(&["transform", graph, "--allocs", "floating"]);
        assert_eq!(code(&o), 0, "{o:?}");
        o.stdout
    };
    assert_eq!(floating(name), floating(file.to_str().unwrap()));
    // `check` too; an order saved for another seed's graph is named.
    let o = memsched(&["schedule", name, "-s", "exact", "--format", "json"]);
    let report: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let line = |graph: &str| {
        let saved = dir.path().join("line.jsonl");
        let record = serde_json::json!({
            "graph": graph, "solver": "exact", "seed": 0, "order": report["order"],
        });
        std::fs::write(&saved, record.to_string()).unwrap();
        saved
    };
    let saved = line("random-layered:width=3,layers=5#4");
    let o = memsched(&["check", name, saved.to_str().unwrap()]);
    assert_eq!(code(&o), 0, "{o:?}");
    assert!(
        !String::from_utf8_lossy(&o.stderr).contains("was saved for"),
        "{o:?}"
    );
    let saved = line("random-layered:layers=5,width=3#5");
    let o = memsched(&["check", name, saved.to_str().unwrap()]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("was saved for graph `random-layered:layers=5,width=3#5`, and the graph given is `random-layered:layers=5,width=3#4`"),
        "{err}"
    );
    let o = memsched(&["schedule", "no-such-family:x=1#0", "-s", "kahn"]);
    assert_eq!(code(&o), 2, "{o:?}");
    let err = String::from_utf8(o.stderr).unwrap();
    assert!(
        err.contains("no such file, and not a generated graph's name"),
        "{err}"
    );
    // A family's spec without its seed is told how to name the graph; a
    // missing file that is no spec keeps the plain error.
    let o = memsched(&["schedule", "random-layered:layers=5,width=3", "-s", "kahn"]);
    assert_eq!(code(&o), 2, "{o:?}");
    let err = String::from_utf8(o.stderr).unwrap();
    assert!(
        err.contains("no such file; a generated graph is named with its seed, e.g. `random-layered:layers=5,width=3#0`"),
        "{err}"
    );
    let missing = dir.path().join("missing.json");
    let o = memsched(&["validate", missing.to_str().unwrap()]);
    let err = String::from_utf8(o.stderr).unwrap();
    assert!(!err.contains("generated graph"), "{err}");
    // `validate` summarises a generated graph's name as it does the file,
    // and says what is wrong with a name among files.
    let o = memsched(&["validate", name]);
    assert_eq!(code(&o), 0, "{o:?}");
    let by_file = memsched(&["validate", file.to_str().unwrap()]);
    let summary = |o: &std::process::Output| {
        let text = String::from_utf8_lossy(&o.stdout).to_string();
        text.split_once(": ok: ").map(|(_, rest)| rest.to_string())
    };
    assert_eq!(summary(&o), summary(&by_file));
    assert!(summary(&o).is_some(), "{o:?}");
    let o = memsched(&["validate", name, "random-layered:layers=5,width=3"]);
    assert_eq!(code(&o), 2, "{o:?}");
    let err = String::from_utf8(o.stderr).unwrap();
    assert!(
        err.contains("a generated graph is named with its seed"),
        "{err}"
    );
}
