//! Integration tests of the rule solvers (`rule:`, `moves:`, `random`,
//! `noisy:`): equivalence with the article's greedy, validity on random
//! graphs, exact dynamic keys against naive references, error messages,
//! determinism across thread counts, and the repaired greedy's gain.

mod common;

use std::time::{Duration, Instant};

use common::generated;
use memsched::corpus::program::{AllocEncoding, TensorProgram};
use memsched::graph::{Graph, GraphBuilder, NodeIdx};
use memsched::rng::Rng;
use memsched::solvers::{self, SolveContext};
use memsched::{check, NodeKind};

/// A random DAG of ALLOC / FREE / compute nodes, with duplicate edges and
/// `Latency` fields sometimes, and ALLOCs both with and without predecessors.
fn random_dag(seed: u64, n: usize) -> Graph {
    common::latency_dag(&mut Rng::new(seed), n, 0.7, 3)
        .build()
        .unwrap()
}

/// Small graphs of every kind: random DAGs, random-layered in both encodings, chains.
fn corpus() -> Vec<Graph> {
    let mut gs = vec![GraphBuilder::new().build().unwrap()];
    for seed in 0..25 {
        gs.push(random_dag(seed, 5 + (seed as usize * 7) % 60));
        for enc in ["anchored", "floating"] {
            let spec = format!(
                "random-layered:layers={},width=4,allocs={enc}",
                2 + seed % 9
            );
            gs.push(generated(&spec, seed));
        }
        if seed % 5 == 0 {
            let spec = format!("chain:length={},allocs=floating", 3 + seed);
            gs.push(generated(&spec, seed));
        }
    }
    gs
}

fn order_of(name: &str, g: &Graph, ctx: &SolveContext) -> Vec<NodeIdx> {
    let s = solvers::build(name).unwrap();
    let report = solvers::run(s.as_ref(), g, ctx);
    assert!(report.valid(), "{name}: {}", report.status);
    report.order.unwrap()
}

fn peak(g: &Graph, order: &[NodeIdx]) -> u64 {
    check(g, order).unwrap().peak
}

/// `memsched schedule` of a small chain with `--solver solver`, expected to
/// exit 2: its standard error.
#[cfg(feature = "cli")]
fn refused_by_the_cli(solver: &str) -> String {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("g.json");
    let g = generated("chain:length=3", 1);
    memsched::graph::seed::write_path(&g, path.to_str().unwrap()).unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_memsched"))
        .args(["schedule", path.to_str().unwrap(), "--solver", solver])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(2), "{solver}: {err}");
    err
}

#[test]
fn article_rule_is_exactly_seed_greedy() {
    let ctx = SolveContext::default();
    for (i, g) in corpus().iter().enumerate() {
        assert_eq!(
            order_of("rule:delta,type,id", g, &ctx),
            order_of("seed-greedy", g, &ctx),
            "graph {i}"
        );
    }
}

const RULES: &[&str] = &[
    "delta,type,id",
    "-height,delta",
    "-unlocks,-frees_after,id",
    "0.7*delta+0.3*latency,id",
    "live_after,random",
    "rise,depth,-out_degree,in_degree,size",
    "-frees_after+2*delta,-id",
];

#[test]
fn every_rule_and_mode_passes_the_checker() {
    let mut names: Vec<String> = Vec::new();
    for r in RULES {
        for mode in ["rule", "moves", "noisy", "noisy-moves"] {
            names.push(format!("{mode}:{r}"));
        }
    }
    names.extend(["moves-greedy", "random", "random-moves"].map(String::from));
    let mut ctx = SolveContext::new(11, None);
    ctx.restarts = 3;
    for g in corpus() {
        for name in &names {
            let s = solvers::build(name).unwrap();
            let report = solvers::run(s.as_ref(), &g, &ctx);
            assert!(report.valid(), "{name}: {}", report.status);
        }
    }
}

/// A node-mode key from a ready node's `unlocks` and `frees_after`, its id
/// and index.
type DynamicKey = fn(i64, i64, &Graph, NodeIdx) -> (i64, i64, i64, NodeIdx);

/// Naive node-mode reference for a rule on `unlocks` and `frees_after`:
/// recomputes every ready node's features from scratch at every step.
fn naive_dynamic_rule(g: &Graph, key_of: DynamicKey) -> Vec<NodeIdx> {
    let n = g.node_count();
    let mut done = vec![false; n];
    let mut order = Vec::new();
    while order.len() < n {
        let ready = g
            .nodes()
            .filter(|&v| !done[v as usize] && g.preds(v).iter().all(|&p| done[p as usize]));
        let key = |v: NodeIdx| {
            let mut succs: Vec<NodeIdx> = g.succs(v).to_vec();
            succs.sort_unstable();
            succs.dedup();
            let unlocked: Vec<NodeIdx> = succs
                .into_iter()
                .filter(|&w| g.preds(w).iter().all(|&p| p == v || done[p as usize]))
                .collect();
            let frees: i64 = unlocked
                .iter()
                .filter(|&&w| g.kind(w) == NodeKind::Free)
                .map(|&w| g.size(w) as i64)
                .sum();
            key_of(unlocked.len() as i64, frees, g, v)
        };
        let v = ready.min_by_key(|&v| key(v)).unwrap();
        done[v as usize] = true;
        order.push(v);
    }
    order
}

#[test]
fn dynamic_node_keys_match_a_from_scratch_reference() {
    let ctx = SolveContext::default();
    let rules: [(&str, DynamicKey); 3] = [
        ("rule:-unlocks,-frees_after,id", |u, f, g, v| {
            (-u, -f, g.id(v), v)
        }),
        // Only FREEs change `frees_after`: re-keys for other nodes are skipped.
        ("rule:-frees_after,id", |_, f, g, v| (-f, 0, g.id(v), v)),
        // Keys that rise when re-keyed (the queue keeps current keys).
        ("rule:frees_after,-unlocks,id", |u, f, g, v| {
            (f, -u, g.id(v), v)
        }),
    ];
    for g in corpus() {
        for (rule, key_of) in rules {
            let want = naive_dynamic_rule(&g, key_of);
            assert_eq!(order_of(rule, &g, &ctx), want, "{rule}");
        }
    }
}

/// A lexicographic key of a move, ending in the target's index.
type Tuple = (i64, i64, i64, NodeIdx);
type MoveKey = fn(&Graph, &[bool], NodeIdx, &[NodeIdx]) -> Tuple;

/// `delta,type,id` on a move (`closure` is the target and its pulled nodes).
fn article_move_key(g: &Graph, _: &[bool], v: NodeIdx, closure: &[NodeIdx]) -> Tuple {
    let net: i64 = closure.iter().map(|&x| g.delta(x)).sum();
    (net, g.kind(v).type_code() as i64, g.id(v), v)
}

/// `-unlocks,delta,id` on a move: successors of the target ready after the move.
fn unlocks_move_key(g: &Graph, done: &[bool], v: NodeIdx, closure: &[NodeIdx]) -> Tuple {
    let mut succs: Vec<NodeIdx> = g.succs(v).to_vec();
    succs.sort_unstable();
    succs.dedup();
    let unlocks = succs
        .into_iter()
        .filter(|&w| {
            g.preds(w)
                .iter()
                .all(|&p| done[p as usize] || closure.contains(&p))
        })
        .count() as i64;
    let net: i64 = closure.iter().map(|&x| g.delta(x)).sum();
    (-unlocks, net, g.id(v), v)
}

/// Naive move-mode reference: the sequence of delta <= 0 nodes it commits
/// to, recomputing every move's closure and key at every step.
fn naive_move_targets(g: &Graph, move_key: MoveKey) -> Vec<NodeIdx> {
    let n = g.node_count();
    let mut done = vec![false; n];
    let mut targets = Vec::new();
    loop {
        let mut best: Option<(Tuple, Vec<NodeIdx>)> = None;
        for v in g.nodes().filter(|&v| !done[v as usize] && g.delta(v) <= 0) {
            let mut seen = vec![false; n];
            let mut stack = vec![v];
            let mut closure = Vec::new();
            seen[v as usize] = true;
            while let Some(x) = stack.pop() {
                closure.push(x);
                for &p in g.preds(x) {
                    if !done[p as usize] && !seen[p as usize] {
                        seen[p as usize] = true;
                        stack.push(p);
                    }
                }
            }
            if closure.iter().any(|&x| x != v && g.delta(x) <= 0) {
                continue;
            }
            let key = move_key(g, &done, v, &closure);
            if best.as_ref().is_none_or(|(k, _)| key < *k) {
                best = Some((key, closure));
            }
        }
        let Some(((_, _, _, v), closure)) = best else {
            break;
        };
        for x in closure {
            done[x as usize] = true;
        }
        targets.push(v);
    }
    targets
}

#[test]
fn move_keys_match_a_from_scratch_reference() {
    let ctx = SolveContext::default();
    let rules: [(&str, MoveKey); 2] = [
        ("moves:delta,type,id", article_move_key),
        ("moves:-unlocks,delta,id", unlocks_move_key),
    ];
    for g in corpus() {
        for (name, key) in rules {
            let order = order_of(name, &g, &ctx);
            let targets: Vec<NodeIdx> = order.into_iter().filter(|&v| g.delta(v) <= 0).collect();
            assert_eq!(targets, naive_move_targets(&g, key), "{name}");
        }
    }
}

#[test]
fn a_bad_rule_names_the_term_and_lists_the_features() {
    let err = solvers::build("rule:delta,bogus")
        .err()
        .unwrap()
        .to_string();
    assert!(err.contains("`bogus`"), "{err}");
    assert!(
        err.contains("frees_after") && err.contains("live_after"),
        "{err}"
    );
    let err = solvers::build("moves:0.5*").err().unwrap().to_string();
    assert!(err.contains("`0.5*`") && err.contains("unlocks"), "{err}");
}

#[test]
fn randomized_solvers_are_deterministic_across_thread_counts() {
    let g = generated("random-layered:layers=30,width=6,allocs=floating", 3);
    for name in [
        "noisy:delta,type,id",
        "noisy-moves:delta,-height",
        "random",
        "random-moves",
    ] {
        let s = solvers::build(name).unwrap();
        let mut ctx = SolveContext::new(42, None);
        ctx.restarts = 8;
        let in_pool = |threads: usize| {
            rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap()
                .install(|| solvers::run(s.as_ref(), &g, &ctx))
        };
        let (one, two) = (in_pool(1), in_pool(2));
        assert!(one.valid() && two.valid());
        assert_eq!(one.order, two.order, "{name}");
        assert_eq!(one.note, two.note, "{name}");
        // A different seed explores differently (the runs are not all equal).
        let other = solvers::run(s.as_ref(), &g, &SolveContext::new(43, None));
        assert_ne!(one.order, other.order, "{name}");
    }
}

/// Restarts stop at the time limit: a billion restarts of a small graph
/// under a quarter of a second return quickly, with a valid order and the
/// number of restarts that finished.
#[test]
fn restarts_stop_at_the_time_limit() {
    let g = generated("random-layered:layers=30,width=6,allocs=floating", 3);
    for name in ["random", "noisy:delta,type,id"] {
        let s = solvers::build(name).unwrap();
        let mut ctx = SolveContext::new(1, Some(Duration::from_millis(250)));
        ctx.restarts = 1_000_000_000;
        let start = Instant::now();
        let report = solvers::run(s.as_ref(), &g, &ctx);
        assert!(
            start.elapsed() < Duration::from_secs(20),
            "{name}: {:?}",
            start.elapsed()
        );
        assert!(report.valid(), "{name}");
        let done = report.counter("restarts").unwrap();
        assert!((1..1_000_000_000).contains(&done), "{name}: {done}");
        let note = report.note.unwrap();
        let other = 1_000_000_000 - done;
        assert!(
            note.contains(&format!(
                "{done} of the 1000000000 finished (restarts run in batches, so not always the \
                 first ones), the time limit stopped the other {other}"
            )),
            "{name}: {note}"
        );
    }
}

#[test]
fn more_restarts_never_hurt() {
    let g = generated("random-layered:layers=20,width=5,allocs=floating", 9);
    let s = solvers::build("noisy:delta,type,id").unwrap();
    let mut last = u64::MAX;
    for k in [1, 2, 4, 8] {
        let mut ctx = SolveContext::new(5, None);
        ctx.restarts = k;
        let report = solvers::run(s.as_ref(), &g, &ctx);
        let note = report.note.unwrap();
        assert!(
            note.starts_with("best: restart ")
                && note.ends_with(&format!("(numbered from 0) of {k}")),
            "{note}"
        );
        let p = report.peak.unwrap();
        assert!(p <= last, "restarts {k}: {p} > {last}");
        last = p;
    }
}

/// A chain of 20 ops whose outputs shrink (20, 19, ..., 1 bytes), floating
/// ALLOCs: the article's failure mode at its plainest.
#[test]
fn repaired_greedy_fixes_the_floating_alloc_failure() {
    let mut p = TensorProgram::new();
    let mut prev = None;
    for (i, bytes) in (1..=20u64).rev().enumerate() {
        let inputs: Vec<_> = prev.into_iter().collect();
        prev = Some(p.op1(format!("op{i}"), &inputs, bytes));
    }
    let g = p.to_graph(AllocEncoding::Floating).unwrap();
    let ctx = SolveContext::default();
    let greedy = peak(&g, &order_of("seed-greedy", &g, &ctx));
    let moves = peak(&g, &order_of("moves-greedy", &g, &ctx));
    let program = peak(&g, &order_of("program", &g, &ctx));
    assert_eq!(greedy, (1..=20).sum::<u64>()); // every ALLOC first: 210
    assert_eq!(moves, 20 + 19); // two live tensors at a time
    assert_eq!(program, moves);
}

#[test]
fn repaired_greedy_beats_the_article_on_floating_graphs_in_aggregate() {
    let ctx = SolveContext::default();
    let (mut better, mut worse, mut total) = (0, 0, 0);
    let (mut sum_greedy, mut sum_moves) = (0u128, 0u128);
    for seed in 0..60 {
        let spec = format!(
            "random-layered:layers={},width=6,allocs=floating",
            5 + seed % 20
        );
        let g = generated(&spec, seed);
        let greedy = peak(&g, &order_of("seed-greedy", &g, &ctx));
        let moves = peak(&g, &order_of("moves:delta,type,id", &g, &ctx));
        total += 1;
        better += (moves < greedy) as u32;
        worse += (moves > greedy) as u32;
        sum_greedy += greedy as u128;
        sum_moves += moves as u128;
    }
    eprintln!("moves:delta,type,id vs seed-greedy on {total} floating graphs: better {better}, worse {worse}; total peak {sum_moves} vs {sum_greedy}");
    assert_eq!(worse, 0, "worse on {worse} of {total}");
    assert!(better * 2 > total, "better on only {better} of {total}");
    assert!(
        sum_moves * 10 < sum_greedy * 7,
        "{sum_moves} vs {sum_greedy}"
    );
}

/// `1e308*size-1e308*size` used to be accepted: its products overflow to
/// inf and `inf - inf` made NaN keys. Every rule solver now refuses it,
/// naming the term and the summand, and the CLI exits 2.
#[test]
fn a_float_sum_that_can_overflow_is_refused_naming_the_term() {
    for name in [
        "rule:1e308*size-1e308*size",
        "moves:delta,1e308*size-1e308*size",
        "noisy:1e308*size-1e308*size,id",
        "noisy-moves:1e308*size-1e308*size",
    ] {
        let err = solvers::build(name).err().unwrap().to_string();
        assert!(
            err.contains("term `1e308*size-1e308*size` can overflow f64")
                && err.contains("`1e308*size` alone exceeds it when `size` nears its bound"),
            "{name}: {err}"
        );
    }
}

/// The CLI exits 2 on the rules refused above (a bad term, a sum that
/// can overflow), with their messages.
#[cfg(feature = "cli")]
#[test]
fn the_cli_refuses_a_bad_rule_with_its_message() {
    let err = refused_by_the_cli("rule:bogus");
    assert!(
        err.contains("`bogus`") && err.contains("frees_after"),
        "{err}"
    );
    let err = refused_by_the_cli("rule:1e308*size-1e308*size");
    assert!(
        err.contains("term `1e308*size-1e308*size` can overflow f64"),
        "{err}"
    );
}

/// Every rule docs/rules.md shows (its `--solver` lines, bar the error
/// examples that start with `$`, and its Examples table) builds, so the
/// range check refuses none of them.
#[test]
fn the_documented_rules_all_build() {
    let docs =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/rules.md")).unwrap();
    let mut rules: Vec<String> = Vec::new();
    for line in docs.lines().filter(|l| !l.trim_start().starts_with('$')) {
        if let Some((_, rest)) = line.split_once("--solver '") {
            rules.push(rest.split('\'').next().unwrap().to_string());
        }
    }
    let examples = docs.split("### Examples").nth(1).unwrap();
    let examples = examples.split("\n## ").next().unwrap();
    for line in examples.lines().filter(|l| l.starts_with("| `")) {
        rules.push(format!("rule:{}", line.split('`').nth(1).unwrap()));
    }
    assert!(rules.len() >= 10, "{rules:?}");
    assert!(rules.iter().any(|r| r.contains("0.7*delta+0.3*latency")));
    for r in &rules {
        assert!(
            solvers::build(r).is_ok(),
            "{r}: {:?}",
            solvers::build(r).err()
        );
    }
}

/// An integer term whose weighted values pass an `i64` on the graph
/// saturates (docs/rules.md); the solve's note says which term, in node
/// and move mode. Rules within range, and unweighted ones, say nothing.
#[test]
fn a_saturating_term_is_named_in_the_note() {
    let json = r#"{"Nodes":[{"Id":0,"Op":"ALLOC","Size":20000000,"BufId":0},{"Id":1,"Op":"ALLOC","Size":10000000,"BufId":1},{"Id":2,"Op":"x"},{"Id":3,"Op":"FREE","BufId":0},{"Id":4,"Op":"FREE","BufId":1}],"Edges":[[0,2],[1,2],[2,3],[2,4]]}"#;
    let g =
        memsched::Graph::from_raw(memsched::graph::seed::parse(json.as_bytes()).unwrap()).unwrap();
    let note = |name: &str| {
        let s = solvers::build(name).unwrap();
        let r = solvers::run(s.as_ref(), &g, &SolveContext::default());
        assert!(r.valid(), "{name}: {r:?}");
        r.note.unwrap_or_default()
    };
    for name in ["rule:1000000000000*size,id", "moves:1000000000000*size,id"] {
        assert!(
            note(name).contains("term(s) `1000000000000*size` pass the range of a 64-bit integer"),
            "{name}: {}",
            note(name)
        );
    }
    for name in ["rule:size,id", "rule:1000*size,-id", "moves:delta,type,id"] {
        assert!(!note(name).contains("64-bit"), "{name}: {}", note(name));
    }
    // `-id` saturates only at the id -2^63, whose negation is past i64.
    let json = r#"{"Nodes":[{"Id":-9223372036854775807,"Op":"a"},{"Id":-9223372036854775808,"Op":"b"},{"Id":5,"Op":"c"}],"Edges":[]}"#;
    let g =
        memsched::Graph::from_raw(memsched::graph::seed::parse(json.as_bytes()).unwrap()).unwrap();
    for name in ["rule:-id", "rule:-1*id", "moves:-id"] {
        let s = solvers::build(name).unwrap();
        let r = solvers::run(s.as_ref(), &g, &SolveContext::default());
        let note = r.note.unwrap_or_default();
        assert!(
            note.contains("pass the range of a 64-bit integer"),
            "{name}: {note}"
        );
    }
}

/// The noise of `noisy:` is continuous, so its later terms never decide
/// (docs/rules.md says so): `noisy:delta,type,id` is `noisy:delta`, seed
/// for seed, in both modes.
#[test]
fn noisy_later_terms_do_not_change_the_order() {
    for (i, g) in corpus().iter().enumerate() {
        for seed in 0..3 {
            let ctx = SolveContext::new(seed, None);
            for (long, short) in [
                ("noisy:delta,type,id", "noisy:delta"),
                ("noisy-moves:delta,-type,id", "noisy-moves:delta"),
            ] {
                assert_eq!(
                    order_of(long, g, &ctx),
                    order_of(short, g, &ctx),
                    "graph {i}, seed {seed}: {long}"
                );
            }
        }
    }
}
