//! `memsched run` and `memsched merge` end to end, through the binary:
//! rows and columns, resume after a killed run, determinism, plot files,
//! config errors, and shards merged back into one run.
#![cfg(feature = "cli")]

mod cli_support;

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use cli_support::{arg, run_args, stderr, BIN};

const TINY: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/configs/tiny.toml");

const COLUMNS: [&str; 18] = [
    "graph",
    "family",
    "nodes",
    "edges",
    "solver",
    "seed",
    "status",
    "valid",
    "peak_bytes",
    "baseline",
    "baseline_peak_bytes",
    "reduction_pct",
    "lower_bound_bytes",
    "best_known_bytes",
    "gap_pct",
    "time_ms",
    "states",
    "note",
];

fn memsched(args: &[&str]) -> Output {
    Command::new(BIN).args(args).output().expect("runs")
}

/// Runs `memsched args` and checks it succeeds; returns stderr.
fn run_ok(args: &[&str]) -> String {
    let out = memsched(args);
    let err = stderr(&out);
    assert!(out.status.success(), "memsched {args:?} failed: {err}");
    err
}

/// The CSV as (header, rows), each row a list of fields.
fn read_csv(path: &Path) -> (Vec<String>, Vec<Vec<String>>) {
    let mut r = csv::Reader::from_path(path).unwrap();
    let header = r.headers().unwrap().iter().map(String::from).collect();
    let rows = r
        .records()
        .map(|rec| rec.unwrap().iter().map(String::from).collect())
        .collect();
    (header, rows)
}

/// The index of the column `name` in a CSV's `header`.
fn column(header: &[String], name: &str) -> usize {
    header
        .iter()
        .position(|h| h == name)
        .unwrap_or_else(|| panic!("no column `{name}`"))
}

/// The CSV with the `time_ms` column blanked (the only column that may vary).
fn without_time(path: &Path) -> Vec<Vec<String>> {
    let (header, mut rows) = read_csv(path);
    let t = column(&header, "time_ms");
    for r in &mut rows {
        r[t].clear();
    }
    rows
}

fn keys(path: &Path) -> Vec<(String, String, String)> {
    let (h, rows) = read_csv(path);
    let col = |n: &str| column(&h, n);
    let (g, s, d) = (col("graph"), col("solver"), col("seed"));
    rows.iter()
        .map(|r| (r[g].clone(), r[s].clone(), r[d].clone()))
        .collect()
}

fn dir(tmp: &tempfile::TempDir, name: &str) -> PathBuf {
    tmp.path().join(name)
}

#[test]
fn tiny_run_writes_every_row_column_and_file() {
    let tmp = tempfile::tempdir().unwrap();
    let out = dir(&tmp, "a");
    run_ok(&["run", TINY, "--out", arg(&out), "--quiet"]);
    let (header, rows) = read_csv(&out.join("runs.csv"));
    for c in COLUMNS {
        assert!(header.iter().any(|h| h == c), "missing column {c}");
    }
    // 6 graphs x 4 deterministic solvers (program, kahn, seed-greedy, brute).
    assert_eq!(rows.len(), 24);
    let col = |n: &str| column(&header, n);
    let valid: Vec<&Vec<String>> = rows.iter().filter(|r| r[col("valid")] == "true").collect();
    assert!(valid.len() >= 20);
    for r in &valid {
        let peak: u64 = r[col("peak_bytes")].parse().unwrap();
        let best: u64 = r[col("best_known_bytes")].parse().unwrap();
        assert!(best <= peak);
        if r[col("status")] == "optimal" {
            assert_eq!(peak, best, "an optimum is the best known peak");
        }
    }
    // brute fails beyond 12 nodes: recorded, not fatal.
    assert!(rows
        .iter()
        .any(|r| r[col("solver")] == "brute" && r[col("status")] == "failed"));
    // One line per graph: `brute` proves the graphs of up to 12 nodes; the
    // others are too large for it, and no other solver gives a bound.
    let (gh, grows) = read_csv(&out.join("graphs.csv"));
    let gcol = |n: &str| column(&gh, n);
    assert_eq!(grows.len(), 6);
    for g in &grows {
        let small = g[gcol("nodes")].parse::<usize>().unwrap() <= 12;
        let (lb, gap) = (&g[gcol("lower_bound_bytes")], &g[gcol("gap_pct")]);
        if small {
            assert_eq!(g[gcol("proven")], "true", "{g:?}");
            assert_eq!(lb, &g[gcol("best_known_bytes")], "{g:?}");
            assert_eq!(gap, "0.0", "{g:?}");
        } else {
            assert_eq!(g[gcol("proven")], "false", "{g:?}");
            assert!(lb.is_empty() && gap.is_empty(), "{g:?}");
        }
    }
    let (sh, srows) = read_csv(&out.join("summary.csv"));
    assert!(sh.iter().any(|h| h == "wins") && sh.iter().any(|h| h == "proven_optimal"));
    assert_eq!(srows.len(), 4);
    let readme = fs::read_to_string(out.join("README.md")).unwrap();
    assert!(readme.contains("| graph |") && readme.contains("seed-greedy"));
    assert!(
        readme.contains(", seeds [0] for randomized solvers."),
        "{readme}"
    );
    assert!(
        readme.contains(
            "**Optimality.** Of the 6 graphs, 4 are proven optimal (the best known peak meets \
             a lower bound some solver proved); 2 have no lower bound (no valid row of the \
             graph has one)"
        ),
        "{readme}"
    );
    assert!(readme.contains(" claimed |") && readme.contains("| 15 |"));
    // The Tetris profiles are in key order (graph, solver, seed), as a
    // resume writes them, not in the order the solves ended.
    let keys: Vec<(String, String, u64)> = fs::read_to_string(out.join("tetris.jsonl"))
        .unwrap()
        .lines()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).unwrap();
            let text = |k: &str| v[k].as_str().unwrap().to_string();
            (text("graph"), text("solver"), v["seed"].as_u64().unwrap())
        })
        .collect();
    assert!(
        keys.len() > 1 && keys.windows(2).all(|w| w[0] < w[1]),
        "{keys:?}"
    );
    for stem in ["reduction", "gap", "time", "tetris"] {
        let png = fs::read(out.join(format!("{stem}.png"))).unwrap();
        assert!(png.len() > 1000, "{stem}.png is too small");
        assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n", "{stem}.png signature");
        let svg = fs::read_to_string(out.join(format!("{stem}.svg"))).unwrap();
        assert!(svg.contains("<svg") && svg.trim_end().ends_with("</svg>"));
        assert!(svg.contains("<text"), "{stem}.svg has no text");
    }
}

#[test]
fn same_config_same_csv_except_time() {
    let tmp = tempfile::tempdir().unwrap();
    let (a, b) = (dir(&tmp, "a"), dir(&tmp, "b"));
    run_ok(&run_args(TINY, &a, &["-j", "2"]));
    run_ok(&run_args(TINY, &b, &["-j", "1"]));
    assert_eq!(
        without_time(&a.join("runs.csv")),
        without_time(&b.join("runs.csv"))
    );
    // Running again on a complete CSV only redoes the final pass.
    run_ok(&run_args(TINY, &a, &[]));
    let before = fs::read_to_string(b.join("runs.csv")).unwrap();
    run_ok(&run_args(TINY, &b, &[]));
    assert_eq!(
        fs::read_to_string(b.join("runs.csv")).unwrap(),
        before,
        "nothing rerun"
    );
}

#[test]
fn shards_merged_equal_one_run() {
    let tmp = tempfile::tempdir().unwrap();
    let (all, s0, s1, m) = (
        dir(&tmp, "all"),
        dir(&tmp, "s0"),
        dir(&tmp, "s1"),
        dir(&tmp, "m"),
    );
    run_ok(&run_args(TINY, &all, &[]));
    run_ok(&run_args(TINY, &s0, &["--shard", "0/2"]));
    run_ok(&run_args(TINY, &s1, &["--shard", "1/2"]));
    let n0 = read_csv(&s0.join("runs.csv")).1.len();
    assert!(n0 > 0 && n0 < 24);
    // One shard alone: written, but `--complete` refuses to call it done.
    let half = tmp.path().join("half");
    let o = memsched(&["merge", arg(&s0), "--out", arg(&half), "--complete"]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(
        err.contains("--complete: ") && err.contains("have no row"),
        "{err}"
    );
    assert!(half.join("runs.csv").is_file());
    run_ok(&["merge", arg(&s0), arg(&s1), "--out", arg(&m), "--complete"]);
    assert_eq!(
        without_time(&all.join("runs.csv")),
        without_time(&m.join("runs.csv"))
    );
    assert!(m.join("reduction.png").is_file() && m.join("README.md").is_file());
    // The per-graph file is recomputed over the union.
    assert_eq!(
        read_csv(&all.join("graphs.csv")),
        read_csv(&m.join("graphs.csv"))
    );
}

/// `merge --complete` cannot count the missing solves when the config's
/// graph files are gone: that is an error too, after writing.
#[test]
fn merge_complete_refuses_what_it_cannot_check() {
    let tmp = tempfile::tempdir().unwrap();
    let graph = tmp.path().join("g.json");
    run_ok(&["gen", "chain", "-o", arg(&graph)]);
    let cfg = tmp.path().join("c.toml");
    fs::write(
        &cfg,
        format!(
            "solvers = [\"kahn\"]\nplots = []\n[graphs]\nfiles = [{:?}]\n",
            arg(&graph)
        ),
    )
    .unwrap();
    let (shard, m) = (dir(&tmp, "s"), dir(&tmp, "m"));
    run_ok(&run_args(arg(&cfg), &shard, &[]));
    fs::remove_file(&graph).unwrap();
    let (shard, m) = (arg(&shard), arg(&m));
    run_ok(&["merge", shard, "--out", m]);
    let o = memsched(&["merge", shard, "--out", m, "--complete"]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(err.contains("--complete: cannot check"), "{err}");
}

#[test]
fn unknown_key_exits_2_naming_it() {
    let tmp = tempfile::tempdir().unwrap();
    let cfg = tmp.path().join("bad.toml");
    fs::write(&cfg, "solvers = [\"kahn\"]\ntime_limitt = 3\n").unwrap();
    let out = memsched(&["run", arg(&cfg), "-q"]);
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(
        err.contains("time_limitt") && err.contains("bad.toml"),
        "{err}"
    );
    fs::write(&cfg, "solvers = [\"no-such-solver\"]\n").unwrap();
    let out = memsched(&["run", arg(&cfg), "-q"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("no-such-solver"));
}

/// A final pass that cannot write a file says the rows are safe and how to
/// finish; the same command then writes it without solving again.
#[test]
fn a_failed_final_pass_says_the_rows_are_saved_and_the_rerun_finishes() {
    let tmp = tempfile::tempdir().unwrap();
    let out = dir(&tmp, "a");
    run_ok(&["run", TINY, "--out", arg(&out), "--quiet"]);
    let rows = without_time(&out.join("runs.csv"));
    // A directory where the README goes: the pass cannot replace it.
    let readme = out.join("README.md");
    fs::remove_file(&readme).unwrap();
    fs::create_dir_all(readme.join("in-the-way")).unwrap();
    let failed = memsched(&["run", TINY, "--out", arg(&out), "--quiet"]);
    let err = stderr(&failed);
    assert_eq!(failed.status.code(), Some(1), "{err}");
    assert!(err.contains("README.md"), "names the file: {err}");
    assert!(
        err.contains(&format!(
            "every row is saved in {}",
            out.join("runs.csv").display()
        )) && err.contains("run the same command again once that is fixed"),
        "says the rows are safe and how to finish: {err}"
    );
    assert_eq!(
        err.matches("README.md").count(),
        1,
        "the cause told once: {err}"
    );
    assert_eq!(without_time(&out.join("runs.csv")), rows, "rows kept");
    fs::remove_dir_all(&readme).unwrap();
    let again = run_ok(&["run", TINY, "--out", arg(&out)]);
    assert!(
        again.contains("(0 run now,"),
        "solves nothing again: {again}"
    );
    assert!(readme.is_file(), "the README written");
}

#[test]
fn resume_after_a_killed_run_loses_and_doubles_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let cfg = tmp.path().join("slow.toml");
    // About 150 solves of a few ms to tens of ms each on one thread.
    fs::write(
        &cfg,
        "solvers = [\"kahn\", \"seed-greedy\"]\ntime_limit = 30\nplots = []\n\
         [graphs]\ngenerate = [{ spec = \"random-layered:layers=1500,width=6\", seeds = \"0..50\" }]\n",
    )
    .unwrap();
    let out = dir(&tmp, "out");
    let runs = out.join("runs.csv");
    let args = run_args(arg(&cfg), &out, &["-j", "1"]);
    let mut child = Command::new(BIN)
        .args(&args)
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let start = Instant::now();
    while start.elapsed() < Duration::from_secs(60) {
        let lines = fs::read_to_string(&runs).map_or(0, |t| t.lines().count());
        if lines > 20 || child.try_wait().unwrap().is_some() {
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    // SIGKILL: no chance to clean up.
    child.kill().unwrap();
    child.wait().unwrap();
    let partial = fs::read_to_string(&runs).unwrap();
    let before: BTreeSet<String> = partial
        .lines()
        .skip(1)
        .filter(|l| partial.contains(&format!("{l}\n")))
        .map(String::from)
        .collect();
    assert!(
        before.len() >= 10,
        "the run was killed before it wrote rows"
    );
    assert!(
        before.len() < 150,
        "the run finished before it was killed; make the config bigger"
    );
    run_ok(&args);
    let k = keys(&runs);
    let unique: BTreeSet<_> = k.iter().cloned().collect();
    assert_eq!(k.len(), 150, "every item has a row");
    assert_eq!(unique.len(), 150, "no row doubled");
    // Rows written before the kill survive (same peaks), apart from the
    // per-graph columns the final pass fills in.
    let (h, rows) = read_csv(&runs);
    let col = |n: &str| column(&h, n);
    for line in &before {
        let f: Vec<String> = csv::ReaderBuilder::new()
            .has_headers(false)
            .from_reader(line.as_bytes())
            .records()
            .next()
            .unwrap()
            .unwrap()
            .iter()
            .map(String::from)
            .collect();
        let found = rows.iter().find(|r| {
            r[col("graph")] == f[col("graph")]
                && r[col("solver")] == f[col("solver")]
                && r[col("seed")] == f[col("seed")]
        });
        let found = found.expect("a row from before the kill is kept");
        assert_eq!(found[col("time_ms")], f[col("time_ms")], "kept, not rerun");
        assert_eq!(found[col("peak_bytes")], f[col("peak_bytes")]);
    }
}

#[test]
fn adding_a_solver_runs_only_its_rows() {
    let tmp = tempfile::tempdir().unwrap();
    let cfg = tmp.path().join("grow.toml");
    let out = dir(&tmp, "out");
    let body =
        "[graphs]\ngenerate = [{ spec = \"random-layered:layers=4,width=3\", seeds = \"0..5\" }]\n";
    fs::write(&cfg, format!("solvers = [\"kahn\"]\n{body}")).unwrap();
    let args = run_args(arg(&cfg), &out, &[]);
    run_ok(&args);
    let first = read_csv(&out.join("runs.csv"));
    assert_eq!(first.1.len(), 10);
    fs::write(
        &cfg,
        format!("solvers = [\"kahn\", \"seed-greedy\"]\n{body}"),
    )
    .unwrap();
    let err = run_ok(&args);
    assert!(err.contains("5 run now, 10 already done"), "{err}");
    let (h, rows) = read_csv(&out.join("runs.csv"));
    assert_eq!(rows.len(), 15);
    let t = column(&h, "time_ms");
    let s = column(&h, "solver");
    let old: Vec<&String> = first.1.iter().map(|r| &r[t]).collect();
    let kept: Vec<&String> = rows
        .iter()
        .filter(|r| r[s] != "seed-greedy")
        .map(|r| &r[t])
        .collect();
    assert_eq!(old, kept, "earlier rows are kept as they were");
    // Rows are in plan order: graph-major, seed-greedy after kahn.
    let item = column(&h, "item");
    let ids: Vec<usize> = rows.iter().map(|r| r[item].parse().unwrap()).collect();
    assert_eq!(ids, (0..15).collect::<Vec<_>>());
}

/// The solver's note is a column (which member of a best-of won, where
/// `anneal` started), and a `runs.csv` of an older version, without it, is
/// resumed: its rows are kept, with an empty note.
#[test]
fn notes_are_recorded_and_old_files_without_them_resume() {
    let tmp = tempfile::tempdir().unwrap();
    let cfg = tmp.path().join("notes.toml");
    let out = dir(&tmp, "out");
    let body = "plots = []\n[graphs]\ngenerate = [{ spec = \"tensor-program:ops=8\", seeds = \"0..2\" }]\n";
    fs::write(&cfg, format!("solvers = [\"xla-default\"]\n{body}")).unwrap();
    let args = run_args(arg(&cfg), &out, &[]);
    run_ok(&args);
    let (h, rows) = read_csv(&out.join("runs.csv"));
    let col = |n: &str| column(&h, n);
    for r in rows.iter().filter(|r| r[col("solver")] == "xla-default") {
        assert!(r[col("note")].starts_with("best: xla-"), "{r:?}");
    }
    // The same file as an older version wrote it: no `note` column.
    let text = fs::read_to_string(out.join("runs.csv")).unwrap();
    let old: String = text
        .lines()
        .map(|l| l.rsplit_once(',').map_or(l, |(head, _)| head).to_string() + "\n")
        .collect();
    assert!(old.lines().next().unwrap().ends_with(",reason"), "{old}");
    fs::write(out.join("runs.csv"), &old).unwrap();
    fs::write(
        &cfg,
        format!("solvers = [\"xla-default\", \"anneal:kahn\"]\n{body}"),
    )
    .unwrap();
    let err = run_ok(&args);
    assert!(err.contains("2 run now, 4 already done"), "{err}");
    let (h, rows) = read_csv(&out.join("runs.csv"));
    let col = |n: &str| column(&h, n);
    for r in &rows {
        let note = &r[col("note")];
        match r[col("solver")].as_str() {
            "anneal:kahn" => assert_eq!(note, "start: kahn", "{r:?}"),
            _ => assert!(note.is_empty(), "kept from the old file: {r:?}"),
        }
    }
}

/// `restarts = K` in a config reaches the best-of-K solvers: each row's peak
/// is at most the single run's (restart 0 is that run), and lower somewhere.
#[test]
fn config_restarts_keep_the_best_of_k_runs() {
    let tmp = tempfile::tempdir().unwrap();
    let peaks = |restarts: u32| {
        let name = format!("restarts{restarts}");
        let config = tmp.path().join(format!("{name}.toml"));
        let text = format!(
            "solvers = [\"random\"]\nseeds = \"0..3\"\nrestarts = {restarts}\nplots = []\n\
             [graphs]\ngenerate = [{{ spec = \"random-layered:layers=6,width=4,allocs=floating\", seeds = \"0..4\" }}]\n"
        );
        fs::write(&config, text).unwrap();
        let out = dir(&tmp, &name);
        run_ok(&run_args(arg(&config), &out, &[]));
        let (h, rows) = read_csv(&out.join("runs.csv"));
        let col = |n: &str| column(&h, n);
        let mut peaks: Vec<(String, String, u64)> = rows
            .iter()
            .filter(|r| r[col("solver")] == "random")
            .map(|r| {
                let peak = r[col("peak_bytes")].parse().unwrap();
                (r[col("graph")].clone(), r[col("seed")].clone(), peak)
            })
            .collect();
        peaks.sort();
        peaks
    };
    let (one, best_of_8) = (peaks(1), peaks(8));
    assert_eq!(one.len(), 12);
    assert_eq!(one.len(), best_of_8.len());
    for (a, b) in one.iter().zip(&best_of_8) {
        assert_eq!((&a.0, &a.1), (&b.0, &b.1));
        assert!(b.2 <= a.2, "{a:?} -> {b:?}");
    }
    assert!(one.iter().zip(&best_of_8).any(|(a, b)| b.2 < a.2));
}

/// `save_orders = true` keeps every valid solve's order in `orders.jsonl`;
/// each order is a schedule of its graph with the row's peak (checked
/// again here); resuming adds the new solves' orders and keeps the old;
/// shards merged hold every order; turning it on late warns of the rows
/// without one.
#[test]
fn saved_orders_are_the_rows_schedules_and_survive_resume_and_merge() {
    use memsched::corpus::gen::{generate, GenSpec};
    use memsched::experiment::records::SavedOrder;
    let tmp = tempfile::tempdir().unwrap();
    let cfg = tmp.path().join("orders.toml");
    let body = "plots = []\nsave_orders = true\n[graphs]\ngenerate = [{ spec = \"tensor-program:ops=6\", seeds = \"0..3\" }]\n";
    let write = |solvers: &str| fs::write(&cfg, format!("solvers = [{solvers}]\n{body}")).unwrap();
    let cfg_s = arg(&cfg);
    let orders = |dir: &Path| -> Vec<SavedOrder> {
        fs::read_to_string(dir.join("orders.jsonl"))
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    };
    // Every valid row has its order, and the order has the row's peak.
    let check = |dir: &Path, expected: usize| {
        let saved = orders(dir);
        let (h, rows) = read_csv(&dir.join("runs.csv"));
        let col = |n: &str| column(&h, n);
        let valid: Vec<&Vec<String>> = rows.iter().filter(|r| r[col("valid")] == "true").collect();
        assert_eq!(valid.len(), expected);
        assert_eq!(saved.len(), expected, "one order per valid row");
        for r in valid {
            let o = saved
                .iter()
                .find(|o| o.graph == r[col("graph")] && o.solver == r[col("solver")])
                .unwrap_or_else(|| panic!("no order for {r:?}"));
            let (spec, seed) = o.graph.split_once('#').unwrap();
            let g = generate(&GenSpec::parse(spec).unwrap(), seed.parse().unwrap()).unwrap();
            let (_, eval) = memsched::schedule::check_ids(&g, &o.order).unwrap();
            assert_eq!(eval.peak.to_string(), r[col("peak_bytes")], "{r:?}");
        }
    };
    let out = dir(&tmp, "out");
    write("\"kahn\", \"exact\"");
    run_ok(&run_args(cfg_s, &out, &[]));
    check(&out, 9); // 3 graphs x (program, kahn, exact)
                    // An order whose row is not there (a run killed between the two, whose
                    // item then failed) is dropped on resume.
    let stray = r#"{"graph":"tensor-program:ops=6#0","solver":"seed-greedy","seed":0,"order":[0]}"#;
    let mut text = fs::read_to_string(out.join("orders.jsonl")).unwrap();
    text.push_str(stray);
    text.push('\n');
    fs::write(out.join("orders.jsonl"), text).unwrap();
    write("\"kahn\", \"exact\"");
    run_ok(&run_args(cfg_s, &out, &[]));
    check(&out, 9);
    write("\"kahn\", \"exact\", \"seed-greedy\"");
    run_ok(&run_args(cfg_s, &out, &[]));
    check(&out, 12);
    // Two shards merged.
    let (s0, s1, m) = (dir(&tmp, "s0"), dir(&tmp, "s1"), dir(&tmp, "m"));
    for (s, k) in [(&s0, "0/2"), (&s1, "1/2")] {
        run_ok(&run_args(cfg_s, s, &["--shard", k]));
    }
    run_ok(&["merge", arg(&s0), arg(&s1), "--out", arg(&m)]);
    check(&m, 12);
    // A shard that kept no orders, merged after one that did: warned, and
    // only the rows that have one get one.
    let off = dir(&tmp, "off");
    fs::write(
        &cfg,
        format!(
            "solvers = [\"kahn\", \"exact\", \"seed-greedy\"]\n{}",
            body.replace("save_orders = true\n", "")
        ),
    )
    .unwrap();
    run_ok(&run_args(cfg_s, &off, &["--shard", "1/2"]));
    let mixed = dir(&tmp, "mixed");
    let err = run_ok(&["merge", arg(&s0), arg(&off), "--out", arg(&mixed)]);
    assert!(err.contains("have no order in orders.jsonl"), "{err}");
    assert_eq!(orders(&mixed).len(), orders(&s0).len());
    // Merging into `m` an input that lacks its rows (solved elsewhere, no
    // orders kept) is refused: `m` keeps its rows and its orders.
    let before = fs::read(m.join("runs.csv")).unwrap();
    let o = memsched(&["merge", arg(&off), "--out", arg(&m)]);
    let err = stderr(&o);
    assert!(
        o.status.code() == Some(2) && err.contains("that none of the inputs has"),
        "{err}"
    );
    assert_eq!(fs::read(m.join("runs.csv")).unwrap(), before);
    assert!(m.join("orders.jsonl").exists());
    // Turned on after the rows were solved: a warning names them.
    let late = dir(&tmp, "late");
    let without = body.replace("save_orders = true\n", "");
    fs::write(
        &cfg,
        format!("solvers = [\"kahn\", \"seed-greedy\"]\n{without}"),
    )
    .unwrap();
    run_ok(&run_args(cfg_s, &late, &[]));
    assert!(!late.join("orders.jsonl").exists());
    // Only this run's items are counted (seed-greedy's rows are not in it).
    fs::write(&cfg, format!("solvers = [\"kahn\"]\n{body}")).unwrap();
    let err = run_ok(&run_args(cfg_s, &late, &[]));
    assert!(
        err.contains(
            "6 valid rows have no order in orders.jsonl (solved while `save_orders` was off"
        ),
        "{err}"
    );
    // The dropped solver's rows stay, and the run says so.
    assert!(
        err.contains(
            "warning: 3 of the runs are of solver(s) `seed-greedy` no longer in the config"
        ),
        "{err}"
    );
    // Turned off again: the file stays as it was, and the run says so,
    // once it holds orders (here it is still empty: no solve ran with it on).
    fs::write(&cfg, format!("solvers = [\"kahn\", \"exact\"]\n{without}")).unwrap();
    let err = run_ok(&run_args(cfg_s, &late, &[]));
    assert_eq!(fs::read(late.join("orders.jsonl")).unwrap(), b"");
    assert!(!err.contains("orders.jsonl holds"), "{err}");
    let solvers = "solvers = [\"kahn\", \"exact\", \"rule:id\"";
    fs::write(&cfg, format!("{solvers}]\n{body}")).unwrap();
    run_ok(&run_args(cfg_s, &late, &[]));
    let saved = orders(&late).len();
    assert!(saved > 0);
    fs::write(&cfg, format!("{solvers}, \"rule:delta,id\"]\n{without}")).unwrap();
    let err = run_ok(&run_args(cfg_s, &late, &[]));
    assert!(
        err.contains("orders.jsonl holds only orders of earlier solves"),
        "{err}"
    );
    assert_eq!(orders(&late).len(), saved);
}

/// With standard error not a terminal (a log file, here a pipe) and no
/// `--quiet`, progress comes as plain lines (indicatif hid its bar, so a
/// redirected run said nothing until the end); `--quiet` silences them.
#[test]
fn progress_lines_when_stderr_is_not_a_terminal() {
    let tmp = tempfile::tempdir().unwrap();
    let out = dir(&tmp, "a");
    let err = run_ok(&["run", TINY, "--out", arg(&out), "-j", "1"]);
    assert!(
        err.starts_with("[memsched] 24 solves to run (if interrupted, the finished ones are kept"),
        "{err}"
    );
    let counts: Vec<&str> = err
        .lines()
        .filter_map(|l| l.strip_prefix("[memsched] "))
        .filter_map(|l| l.split(' ').next())
        .filter(|c| c.contains('/'))
        .collect();
    // Lines at tenths of the 24 solves, the first and the last always, the
    // others no closer than a second (this run takes less: most are left
    // out).
    let tenths = [
        "3/24", "5/24", "8/24", "10/24", "12/24", "15/24", "17/24", "20/24", "22/24",
    ];
    assert_eq!(counts.first(), Some(&"3/24"), "{err}");
    let (last, before) = counts.split_last().expect("a line at the end");
    assert_eq!(*last, "24/24", "{err}");
    assert!(before.iter().all(|c| tenths.contains(c)), "{err}");
    assert!(counts.len() < 10, "{err}");
    let err = run_ok(&["run", TINY, "--out", arg(&out), "--fresh", "-q"]);
    assert!(!err.contains("[memsched]"), "{err}");
}
