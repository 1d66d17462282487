//! Pins the exact orders of the list schedulers: a hash of every order on a
//! corpus of graphs (every generator family in both encodings, random-layered
//! graphs of a few thousand nodes, random DAGs with duplicate edges,
//! shuffled ids and `Latency` fields) is compared with
//! `tests/data/schedule_pins.tsv`, recorded before the speed work on these
//! solvers. A speed-up must not change a single order.
//!
//! To re-record after an intended change of behaviour:
//! `MEMSCHED_BLESS_PINS=1 cargo test --no-default-features --test schedule_pins`.

mod common;

use std::collections::BTreeMap;
use std::fmt::Write as _;

use memsched::graph::Graph;
use memsched::rng::Rng;
use memsched::solvers::{self, SolveContext};

const PINS: &str = "tests/data/schedule_pins.tsv";

/// Every solver whose speed work must keep its orders.
const SOLVERS: &[&str] = &[
    "xla-list",
    "xla-dfs",
    "xla-postorder",
    "xla-default",
    "inductor-lpmf",
    "inductor-bfs",
    "inductor-dfs",
    "inductor-default",
    "best-heuristic",
    "seed-greedy",
    "rule:delta,type,id",
    "rule:-size",
    "rule:-height,delta,id",
    "rule:0.7*delta+0.3*latency,id",
    "rule:-unlocks,-frees_after,delta,id",
    "rule:unlocks,-id",
    "rule:frees_after,rise,-out_degree",
    "rule:2*unlocks-3*delta,frees_after,type",
    "rule:live_after,random",
    "rule:depth,in_degree,out_degree,size,-id",
    "rule:latency,random,-delta",
    "noisy:random,latency,unlocks",
    "moves-greedy",
    "moves:-unlocks,delta,id",
    "moves:rise,-frees_after,id",
    "noisy:delta,type,id",
    "noisy:-unlocks,delta",
    "noisy-moves:delta,type,id",
    "random",
    "random-moves",
];

/// A random DAG off every pattern: duplicate edges, ALLOCs with and without
/// predecessors, FREEs with extra edges, `Latency` on some nodes; then
/// program order reversed and ids permuted when `shuffle`.
fn random_dag(seed: u64, n: usize, shuffle: bool) -> Graph {
    let mut r = Rng::new(seed);
    let mut raw = common::latency_dag(&mut r, n, 0.8, 4).into_raw();
    if shuffle {
        raw.nodes.reverse();
        let mut perm: Vec<i64> = (0..raw.nodes.len() as i64).map(|i| 3 * i + 7).collect();
        r.shuffle(&mut perm);
        let map: BTreeMap<i64, i64> = raw.nodes.iter().map(|x| x.id).zip(perm).collect();
        for node in &mut raw.nodes {
            node.id = map[&node.id];
        }
        for e in &mut raw.edges {
            *e = (map[&e.0], map[&e.1]);
        }
    }
    Graph::from_raw(raw).expect("random DAG is valid")
}

fn corpus() -> Vec<(String, Graph)> {
    let mut out = Vec::new();
    let mut add = |spec: String, seed: u64| {
        let g = common::generated(&spec, seed);
        out.push((format!("{spec} seed {seed}"), g));
    };
    for spec in common::family_specs() {
        add(spec, 3);
    }
    for seed in 0..6u64 {
        for enc in ["anchored", "floating"] {
            let spec = format!(
                "random-layered:layers={},width={},allocs={enc}",
                3 + 40 * seed,
                2 + seed % 5
            );
            add(spec, seed);
        }
    }
    for enc in ["anchored", "floating"] {
        add(
            format!("random-layered:layers=3000,width=5,allocs={enc}"),
            9,
        );
    }
    for seed in 0..40u64 {
        let n = 1 + (seed as usize * 13) % 90;
        let shuffle = seed % 3 != 0;
        out.push((
            format!("random dag n={n} seed {seed} shuffled={shuffle}"),
            random_dag(seed, n, shuffle),
        ));
    }
    out
}

/// FNV-1a over the order's ids: one line per (solver, graph) in the fixture.
fn hash(ids: &[i64]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for id in ids {
        for byte in id.to_le_bytes() {
            h ^= byte as u64;
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
    }
    h
}

fn current() -> String {
    let graphs = corpus();
    let mut ctx = SolveContext::new(11, None);
    ctx.restarts = 3;
    let mut text = String::from("solver\tgraph\tpeak\torder hash\n");
    for name in SOLVERS {
        let s = solvers::build(name).unwrap();
        for (label, g) in &graphs {
            let r = solvers::run(s.as_ref(), g, &ctx);
            assert!(r.valid(), "{name} on {label}: {}", r.status);
            let ids = g.to_ids(r.order.as_deref().unwrap());
            let peak = r.peak.unwrap();
            writeln!(text, "{name}\t{label}\t{peak}\t{:016x}", hash(&ids)).unwrap();
        }
    }
    text
}

#[test]
fn list_scheduler_orders_are_unchanged() {
    let now = current();
    if std::env::var_os("MEMSCHED_BLESS_PINS").is_some() {
        std::fs::write(PINS, &now).unwrap();
        return;
    }
    let pinned = std::fs::read_to_string(PINS).expect("tests/data/schedule_pins.tsv exists");
    let changed: Vec<String> = pinned
        .lines()
        .zip(now.lines())
        .filter(|(a, b)| a != b)
        .map(|(a, b)| format!("pinned  {a}\n   now  {b}"))
        .collect();
    assert!(
        changed.is_empty() && pinned.lines().count() == now.lines().count(),
        "{} orders changed (of {}):\n{}",
        changed.len(),
        pinned.lines().count(),
        changed[..changed.len().min(20)].join("\n")
    );
}
