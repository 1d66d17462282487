//! Property tests on random small graphs (at most 10 nodes), checked against
//! predicates written here from the raw nodes and edges, not with the code
//! under test:
//! - the checker's peak of an order equals a direct recomputation, and it
//!   accepts an order exactly when the order respects every edge;
//! - the minimum over all schedules (exhaustive, over every downset) equals
//!   `brute`'s peak and is never above any registry solver's peak;
//! - F1 and F2 (docs/core.md): moving a ready node with delta <= 0 to the front
//!   of the remaining suffix, or a node with delta > 0 to just before its
//!   first successor, never raises the peak;
//! - `seed-greedy` picks the smallest `(delta, type, id)` ready node at every
//!   step, whatever the ids.

use std::collections::{BTreeSet, HashMap};

use memsched::graph::seed::{RawGraph, RawNode};
use memsched::graph::{Graph, NodeIdx, NodeKind};
use memsched::rng::Rng;
use memsched::schedule::check;
use memsched::solvers::{self, SeedGreedy, SolveContext, Status};
use proptest::prelude::*;

/// One buffer: its size, the compute it follows (none: floating ALLOC), the
/// compute that reads it, whether it is freed and a compute its FREE waits for.
#[derive(Debug, Clone)]
struct BufSpec {
    size: u64,
    anchor: Option<usize>,
    reader: Option<usize>,
    freed: bool,
    free_after: Option<usize>,
}

/// A random graph before it is built; see [`build`].
#[derive(Debug, Clone)]
struct Spec {
    computes: usize,
    dag: Vec<(usize, usize)>,
    bufs: Vec<BufSpec>,
    extra: Vec<(usize, usize)>,
    shuffle: Option<u64>,
    ids: Option<BTreeSet<i64>>,
}

fn spec() -> impl Strategy<Value = Spec> {
    let buf = (
        prop_oneof![3 => 0u64..=8, 1 => 0u64..=(1 << 40)],
        prop::option::of(0usize..4),
        prop::option::of(0usize..4),
        prop::bool::weighted(0.8),
        prop::option::of(0usize..4),
    )
        .prop_map(|(size, anchor, reader, freed, free_after)| BufSpec {
            size,
            anchor,
            reader,
            freed,
            free_after,
        });
    (
        0usize..=4,
        prop::collection::vec((0usize..4, 0usize..4), 0..6),
        prop::collection::vec(buf, 0..=3),
        prop::collection::vec((0usize..10, 0usize..10), 0..8),
        prop::option::of(any::<u64>()),
        prop::option::of(prop::collection::btree_set(-50i64..200, 10)),
    )
        .prop_map(|(computes, dag, bufs, extra, shuffle, ids)| Spec {
            computes,
            dag,
            bufs,
            extra,
            shuffle,
            ids,
        })
}

/// A built graph with the facts the predicates use, kept apart from `Graph`.
#[derive(Debug)]
struct Case {
    g: Graph,
    ids: Vec<i64>,
    delta: HashMap<i64, i64>,
    type_code: HashMap<i64, u8>,
    edges: Vec<(i64, i64)>,
}

/// Builds a valid graph: compute `i` sits at hidden rank `100 i + 50`; an
/// ALLOC at rank 0 (floating) or just after its anchor; its FREE after the
/// ALLOC, the reader and `free_after`. Every edge goes from a lower to a
/// higher (rank, position), so the graph is a DAG, and each FREE is reached
/// from its ALLOC through the reader or a direct edge. Some buffers are
/// never freed. The Nodes array is the hidden order or a shuffle of it; ids
/// are `0..n` or distinct random integers.
fn build(s: &Spec) -> Case {
    let c = s.computes;
    // (rank, kind, size, buf)
    let mut protos: Vec<(u64, NodeKind, u64, i64)> = (0..c)
        .map(|i| (100 * i as u64 + 50, NodeKind::Compute, 0, -1))
        .collect();
    let mut edges: Vec<(usize, usize)> = Vec::new();
    for &(i, j) in &s.dag {
        if c > 0 && i % c != j % c {
            edges.push(((i % c).min(j % c), (i % c).max(j % c)));
        }
    }
    for (b, buf) in s.bufs.iter().enumerate() {
        let anchor = buf.anchor.filter(|_| c > 0).map(|a| a % c);
        let alloc_rank = anchor.map_or(0, |a| 100 * a as u64 + 60);
        let reader = buf
            .reader
            .filter(|_| c > 0)
            .map(|r| r % c)
            .filter(|&r| anchor.is_none_or(|a| r > a));
        let a = protos.len();
        protos.push((alloc_rank, NodeKind::Alloc, buf.size, b as i64));
        if let Some(k) = anchor {
            edges.push((k, a));
        }
        if let Some(r) = reader {
            edges.push((a, r));
        }
        if buf.freed {
            let after = buf.free_after.filter(|_| c > 0).map(|k| k % c);
            let base = [Some(alloc_rank), reader.map(|r| 100 * r as u64 + 50)]
                .into_iter()
                .chain([after.map(|k| 100 * k as u64 + 50)])
                .flatten()
                .max()
                .unwrap();
            let f = protos.len();
            protos.push((base + 5, NodeKind::Free, 0, b as i64));
            edges.push((reader.unwrap_or(a), f));
            if let Some(k) = after {
                edges.push((k, f));
            }
        }
    }
    let n = protos.len();
    let key = |p: usize| (protos[p].0, p);
    for &(u, v) in &s.extra {
        let (u, v) = (u % n.max(1), v % n.max(1));
        if n > 0 && key(u) < key(v) {
            edges.push((u, v));
        }
    }
    let mut array: Vec<usize> = (0..n).collect();
    array.sort_by_key(|&p| key(p));
    if let Some(seed) = s.shuffle {
        Rng::new(seed).shuffle(&mut array);
    }
    let id_pool: Vec<i64> = match &s.ids {
        Some(set) => {
            let mut v: Vec<i64> = set.iter().copied().collect();
            Rng::new(v.len() as u64 ^ 77).shuffle(&mut v);
            v
        }
        None => (0..n as i64).collect(),
    };
    let mut id_of = vec![0i64; n];
    for (k, &p) in array.iter().enumerate() {
        id_of[p] = id_pool[k];
    }
    let mut delta = HashMap::new();
    let mut type_code = HashMap::new();
    let size_of_buf: HashMap<i64, u64> = protos
        .iter()
        .filter(|p| p.1 == NodeKind::Alloc)
        .map(|p| (p.3, p.2))
        .collect();
    let nodes = array
        .iter()
        .map(|&p| {
            let (_, kind, size, buf) = protos[p];
            let (op, d, t) = match kind {
                NodeKind::Alloc => ("ALLOC", size as i64, 2),
                NodeKind::Free => ("FREE", -(size_of_buf[&buf] as i64), 0),
                NodeKind::Compute => ("Conv", 0, 1),
            };
            delta.insert(id_of[p], d);
            type_code.insert(id_of[p], t);
            RawNode {
                id: id_of[p],
                op: op.into(),
                size: (kind == NodeKind::Alloc).then_some(size as i128),
                buf_id: (kind != NodeKind::Compute).then_some(buf),
                extra: None,
            }
        })
        .collect();
    let edges: Vec<(i64, i64)> = edges.iter().map(|&(u, v)| (id_of[u], id_of[v])).collect();
    let raw = RawGraph {
        nodes,
        edges: edges.clone(),
        extra: Default::default(),
    };
    let g = Graph::from_raw(raw).expect("the generator builds valid graphs");
    Case {
        g,
        ids: array.iter().map(|&p| id_of[p]).collect(),
        delta,
        type_code,
        edges,
    }
}

impl Case {
    /// Whether `order` (ids) is a permutation that respects every edge.
    fn respects_edges(&self, order: &[i64]) -> bool {
        let pos: HashMap<i64, usize> = order.iter().enumerate().map(|(i, &v)| (v, i)).collect();
        pos.len() == self.ids.len()
            && order.len() == self.ids.len()
            && self.ids.iter().all(|v| pos.contains_key(v))
            && self.edges.iter().all(|(u, v)| pos[u] < pos[v])
    }

    /// `max(0, max prefix sum)` of the deltas, from the raw sizes.
    fn peak(&self, order: &[i64]) -> u64 {
        let mut mem = 0i64;
        let mut peak = 0i64;
        for v in order {
            mem += self.delta[v];
            peak = peak.max(mem);
        }
        peak as u64
    }

    /// A uniformly chosen ready node at each step, from the raw edges.
    fn random_topological(&self, seed: u64) -> Vec<i64> {
        let mut rng = Rng::new(seed);
        let mut done: BTreeSet<i64> = BTreeSet::new();
        let mut order = Vec::new();
        while order.len() < self.ids.len() {
            let ready: Vec<i64> = self
                .ids
                .iter()
                .copied()
                .filter(|v| !done.contains(v) && self.ready(*v, &done))
                .collect();
            let v = ready[rng.below(ready.len() as u64) as usize];
            done.insert(v);
            order.push(v);
        }
        order
    }

    fn ready(&self, v: i64, done: &BTreeSet<i64>) -> bool {
        self.edges.iter().all(|&(a, b)| b != v || done.contains(&a))
    }

    /// The minimum peak over every schedule, by dynamic programming over the
    /// downsets (sets closed under predecessors): `best[S]` is the lowest
    /// max-so-far of any order of `S`. Exhaustive, exact, O(2^n n).
    fn min_peak(&self) -> u64 {
        let n = self.ids.len();
        let index: HashMap<i64, usize> =
            self.ids.iter().enumerate().map(|(i, &v)| (v, i)).collect();
        let mut preds = vec![0u32; n];
        for (u, v) in &self.edges {
            preds[index[v]] |= 1 << index[u];
        }
        let deltas: Vec<i64> = self.ids.iter().map(|v| self.delta[v]).collect();
        let full = (1u32 << n) - 1;
        let mut best = vec![i64::MAX; 1 << n];
        best[0] = 0;
        for set in 0..=full {
            if best[set as usize] == i64::MAX {
                continue;
            }
            let mem: i64 = (0..n)
                .filter(|&i| set >> i & 1 == 1)
                .map(|i| deltas[i])
                .sum();
            for v in 0..n {
                if set >> v & 1 == 0 && preds[v] & !set == 0 {
                    let next = set | 1 << v;
                    let peak = best[set as usize].max(mem + deltas[v]);
                    best[next as usize] = best[next as usize].min(peak);
                }
            }
        }
        best[full as usize] as u64
    }

    fn to_indices(&self, order: &[i64]) -> Vec<NodeIdx> {
        order
            .iter()
            .map(|&id| self.g.index_of(id).unwrap())
            .collect()
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn checker_peak_equals_direct_recomputation(s in spec(), seed in any::<u64>()) {
        let case = build(&s);
        prop_assert!(case.ids.len() <= 10);
        let order = case.random_topological(seed);
        let eval = check(&case.g, &case.to_indices(&order)).expect("a topological order passes");
        prop_assert_eq!(eval.peak, case.peak(&order));
        let final_memory: i64 = case.delta.values().sum();
        prop_assert_eq!(eval.final_memory, final_memory);
    }

    #[test]
    fn checker_accepts_exactly_the_orders_that_respect_the_edges(
        s in spec(),
        seed in any::<u64>(),
    ) {
        let case = build(&s);
        let mut order = case.ids.clone();
        Rng::new(seed).shuffle(&mut order);
        let verdict = check(&case.g, &case.to_indices(&order));
        prop_assert_eq!(verdict.is_ok(), case.respects_edges(&order));
        if let Ok(eval) = verdict {
            prop_assert_eq!(eval.peak, case.peak(&order));
        }
        // Too short, or a node twice, is never a schedule.
        if !order.is_empty() {
            let short = case.to_indices(&order[1..]);
            prop_assert!(check(&case.g, &short).is_err());
            let mut twice = case.to_indices(&order);
            twice[0] = twice[twice.len() - 1];
            prop_assert_eq!(check(&case.g, &twice).is_ok(), order.len() == 1 && case.respects_edges(&order));
        }
    }

    #[test]
    fn exhaustive_minimum_is_never_above_any_solver(s in spec(), seed in any::<u64>()) {
        let case = build(&s);
        let min = case.min_peak();
        // No time limit: every solver is iteration- or search-bounded on n <= 10.
        let ctx = SolveContext::new(seed, None);
        let brute = solvers::run(&solvers::Brute, &case.g, &ctx);
        prop_assert_eq!(brute.status, Status::Optimal);
        prop_assert_eq!(brute.peak, Some(min));
        for info in solvers::list() {
            // `anneal[:START]` runs without its argument too.
            let Some(name) = info.bare_name().filter(|&n| n != "brute") else {
                continue;
            };
            let solver = solvers::build(name).unwrap();
            let report = solvers::run(solver.as_ref(), &case.g, &ctx);
            match &report.status {
                Status::Failed(why) => {
                    if name == "program" {
                        prop_assert!(!case.g.program_order_is_topological(), "{}", why);
                    }
                    continue;
                }
                Status::Invalid(why) => {
                    return Err(TestCaseError::fail(format!("{}: invalid answer: {why}", info.name)))
                }
                _ => {}
            }
            let peak = report.peak.expect("a valid report has a peak");
            prop_assert!(min <= peak, "{}: peak {} below the minimum {}", info.name, peak, min);
            if report.status == Status::Optimal {
                prop_assert_eq!(peak, min, "{} claims optimal", info.name);
            }
            if let Some(lb) = report.lower_bound {
                prop_assert!(lb <= min, "{}: lower bound {} above the minimum {}", info.name, lb, min);
            }
        }
    }

    /// F1: a ready node with delta <= 0 can run at once.
    #[test]
    fn f1_running_a_ready_nonpositive_node_first_never_raises_the_peak(
        s in spec(),
        seed in any::<u64>(),
    ) {
        let case = build(&s);
        let order = case.random_topological(seed);
        let peak = case.peak(&order);
        let mut tried = 0;
        for k in 0..order.len() {
            let done: BTreeSet<i64> = order[..k].iter().copied().collect();
            for &v in &order[k..] {
                if case.delta[&v] > 0 || !case.ready(v, &done) {
                    continue;
                }
                let mut moved: Vec<i64> = order[..k].to_vec();
                moved.push(v);
                moved.extend(order[k..].iter().copied().filter(|&x| x != v));
                prop_assert!(case.respects_edges(&moved));
                let eval = check(&case.g, &case.to_indices(&moved)).unwrap();
                prop_assert!(eval.peak <= peak, "moving {} to step {}: {} > {}", v, k, eval.peak, peak);
                tried += 1;
            }
        }
        prop_assert!(order.is_empty() || tried > 0 || case.delta.values().all(|&d| d > 0));
    }

    /// F2: a node with delta > 0 can wait until just before its first successor.
    #[test]
    fn f2_delaying_a_positive_node_to_its_first_successor_never_raises_the_peak(
        s in spec(),
        seed in any::<u64>(),
    ) {
        let case = build(&s);
        let order = case.random_topological(seed);
        let peak = case.peak(&order);
        for (i, &v) in order.iter().enumerate() {
            if case.delta[&v] <= 0 {
                continue;
            }
            let first_succ = order
                .iter()
                .enumerate()
                .skip(i + 1)
                .find(|(_, x)| case.edges.contains(&(v, **x)))
                .map_or(order.len(), |(j, _)| j);
            let mut moved: Vec<i64> = order.iter().copied().filter(|&x| x != v).collect();
            moved.insert(first_succ - 1, v);
            prop_assert!(case.respects_edges(&moved));
            let eval = check(&case.g, &case.to_indices(&moved)).unwrap();
            prop_assert!(eval.peak <= peak, "delaying {}: {} > {}", v, eval.peak, peak);
        }
    }

    /// The heap replica agrees with a plain scan for the smallest
    /// `(delta, type, id)` ready node, also when ids are not `0..n`.
    #[test]
    fn seed_greedy_pops_the_smallest_delta_type_id(s in spec()) {
        let case = build(&s);
        let mut done = BTreeSet::new();
        let mut expected = Vec::new();
        while expected.len() < case.ids.len() {
            let v = case
                .ids
                .iter()
                .copied()
                .filter(|v| !done.contains(v) && case.ready(*v, &done))
                .min_by_key(|v| (case.delta[v], case.type_code[v], *v))
                .unwrap();
            done.insert(v);
            expected.push(v);
        }
        let report = solvers::run(&SeedGreedy, &case.g, &SolveContext::default());
        let got = case.g.to_ids(report.order.as_deref().unwrap());
        prop_assert_eq!(got, expected);
    }
}

/// Random nodes (ALLOC/FREE pairs, unfreed ALLOCs, computes) with random
/// edges in any direction: some graphs have cycles, some FREEs unreachable.
fn loose_graph() -> impl Strategy<Value = (Vec<u8>, Vec<(usize, usize)>)> {
    (
        prop::collection::vec(0u8..3, 1..=10),
        prop::collection::vec((0usize..10, 0usize..10), 0..14),
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    /// `Graph::from_raw` accepts exactly the acyclic graphs whose every FREE
    /// is reachable from its ALLOC; a reported cycle is made of real edges;
    /// an unreachable FREE reported is the first in program order.
    #[test]
    fn validation_verdicts_match_a_transitive_closure((kinds, pairs) in loose_graph()) {
        // kinds: 0 compute, 1 ALLOC+FREE (two nodes), 2 ALLOC never freed.
        let mut nodes = Vec::new();
        let mut free_of_alloc = Vec::new();
        for (b, &k) in kinds.iter().enumerate() {
            let node = |op: &str, size: Option<i128>, buf: Option<i64>| RawNode {
                id: 0,
                op: op.into(),
                size,
                buf_id: buf,
                extra: None,
            };
            match k {
                0 => nodes.push(node("Conv", None, None)),
                _ => {
                    nodes.push(node("ALLOC", Some(4), Some(b as i64)));
                    if k == 1 {
                        nodes.push(node("FREE", None, Some(b as i64)));
                        free_of_alloc.push((nodes.len() - 2, nodes.len() - 1));
                    }
                }
            }
        }
        let n = nodes.len();
        for (i, node) in nodes.iter_mut().enumerate() {
            node.id = 1000 + i as i64;
        }
        let edges: Vec<(usize, usize)> = pairs.iter().map(|&(u, v)| (u % n, v % n)).collect();
        // Transitive closure: reach[u][v] when a path of >= 1 edge goes u -> v.
        let mut reach = vec![vec![false; n]; n];
        for &(u, v) in &edges {
            reach[u][v] = true;
        }
        for k in 0..n {
            for i in 0..n {
                for j in 0..n {
                    if reach[i][k] && reach[k][j] {
                        reach[i][j] = true;
                    }
                }
            }
        }
        let cyclic = (0..n).any(|v| reach[v][v]);
        let first_unreachable = free_of_alloc
            .iter()
            .filter(|&&(a, f)| !reach[a][f])
            .map(|&(a, f)| (f, a))
            .min();
        let raw = RawGraph {
            nodes,
            edges: edges.iter().map(|&(u, v)| (1000 + u as i64, 1000 + v as i64)).collect(),
            extra: Default::default(),
        };
        match (Graph::from_raw(raw), cyclic, first_unreachable) {
            (Err(memsched::GraphError::Cycle { cycle, .. }), true, _) => {
                let idx: Vec<usize> = cycle.iter().map(|&id| (id - 1000) as usize).collect();
                prop_assert!(!idx.is_empty());
                for k in 0..idx.len() {
                    let (u, v) = (idx[k], idx[(k + 1) % idx.len()]);
                    prop_assert!(edges.contains(&(u, v)), "{:?} is not a cycle of {:?}", cycle, edges);
                }
            }
            (Err(memsched::GraphError::FreeNotReachable { alloc, free, .. }), false, Some((f, a))) => {
                prop_assert_eq!((alloc, free), (1000 + a as i64, 1000 + f as i64));
            }
            (Ok(_), false, None) => {}
            (other, cyclic, unreachable) => {
                return Err(TestCaseError::fail(format!(
                    "from_raw gave {other:?}; cyclic {cyclic}, first unreachable FREE {unreachable:?}"
                )));
            }
        }
    }
}
