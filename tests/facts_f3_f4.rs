//! Brute-force property tests of facts F3 and F4 (docs/core.md), which `exact`
//! relies on.
//!
//! - F3: the memory after a set of nodes depends on the set alone; so a
//!   best-first search over downsets in increasing max-so-far reaches the
//!   optimum (checked with a search written here, against `brute`).
//! - F4: the global bound and the per-state bound never exceed what brute
//!   force finds, also on fork-joins and chains hanging off DAGs (where the
//!   per-state bound's chain term applies), up to 24 nodes through a
//!   memoised search over downsets.

mod common;

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};

use memsched::corpus::program::AllocEncoding;

use memsched::graph::NodeIdx;
use memsched::rng::Rng;
use memsched::schedule::profile;
use memsched::solvers::exact::{last_free_lower_bound, lower_bound, state_lower_bound};
use memsched::solvers::{self, run, SolveContext};
use memsched::Graph;
use proptest::prelude::*;

/// A uniformly-seeded random topological order that runs `first` (a downset)
/// before anything else.
fn random_order(g: &Graph, rng: &mut Rng, first: &[NodeIdx]) -> Vec<NodeIdx> {
    let n = g.node_count();
    let in_first: Vec<bool> = (0..n as u32).map(|v| first.contains(&v)).collect();
    let mut indeg: Vec<usize> = g.nodes().map(|v| g.preds(v).len()).collect();
    let mut done = vec![false; n];
    let mut order = Vec::with_capacity(n);
    while order.len() < n {
        let phase_one = order.len() < first.len();
        let ready: Vec<NodeIdx> = g
            .nodes()
            .filter(|&v| !done[v as usize] && indeg[v as usize] == 0)
            .filter(|&v| !phase_one || in_first[v as usize])
            .collect();
        let v = ready[rng.below(ready.len() as u64) as usize];
        done[v as usize] = true;
        order.push(v);
        for &s in g.succs(v) {
            indeg[s as usize] -= 1;
        }
    }
    order
}

/// Every topological order beginning with the nodes of `first` (any order of
/// them): the lowest peak over the steps after `first`.
fn best_completion_peak(g: &Graph, first: &[NodeIdx]) -> i64 {
    fn go(g: &Graph, run: &mut Vec<bool>, left: usize, mem: i64, peak: i64, best: &mut i64) {
        if left == 0 {
            *best = (*best).min(peak);
            return;
        }
        for v in g.nodes() {
            if run[v as usize] || !g.preds(v).iter().all(|&p| run[p as usize]) {
                continue;
            }
            run[v as usize] = true;
            let m = mem + g.delta(v);
            go(g, run, left - 1, m, peak.max(m), best);
            run[v as usize] = false;
        }
    }
    let mut run = vec![false; g.node_count()];
    for &v in first {
        run[v as usize] = true;
    }
    let mem: i64 = first.iter().map(|&v| g.delta(v)).sum();
    let mut best = i64::MAX;
    go(
        g,
        &mut run,
        g.node_count() - first.len(),
        mem,
        i64::MIN,
        &mut best,
    );
    best
}

/// Like [`best_completion_peak`], memoised on the set run (n <= 32): the
/// lowest peak over the steps after downset `first`.
fn best_completion_memo(g: &Graph, first: &[NodeIdx]) -> i64 {
    fn go(g: &Graph, set: u32, mem: i64, memo: &mut HashMap<u32, i64>) -> i64 {
        if set.count_ones() as usize == g.node_count() {
            return i64::MIN;
        }
        if let Some(&b) = memo.get(&set) {
            return b;
        }
        let mut best = i64::MAX;
        for v in g.nodes() {
            let ready = g.preds(v).iter().all(|&p| set & (1 << p) != 0);
            if set & (1 << v) != 0 || !ready {
                continue;
            }
            let m = mem + g.delta(v);
            best = best.min(m.max(go(g, set | 1 << v, m, memo)));
        }
        memo.insert(set, best);
        best
    }
    let set = first.iter().fold(0u32, |s, &v| s | 1 << v);
    let mem: i64 = first.iter().map(|&v| g.delta(v)).sum();
    go(g, set, mem, &mut HashMap::new())
}

/// Best-first over downsets keyed by max-so-far (no F1/F2, no bounds).
fn best_first(g: &Graph) -> i64 {
    let n = g.node_count();
    let full: u32 = if n == 32 { u32::MAX } else { (1 << n) - 1 };
    let mem = |s: u32| -> i64 {
        g.nodes()
            .filter(|&v| s >> v & 1 == 1)
            .map(|v| g.delta(v))
            .sum()
    };
    let mut best: HashMap<u32, i64> = HashMap::new();
    let mut heap = BinaryHeap::new();
    heap.push(Reverse((0i64, 0u32)));
    best.insert(0, 0);
    while let Some(Reverse((key, s))) = heap.pop() {
        if s == full {
            return key;
        }
        if best[&s] < key {
            continue;
        }
        for v in g.nodes() {
            if s >> v & 1 == 1 || !g.preds(v).iter().all(|&p| s >> p & 1 == 1) {
                continue;
            }
            let t = s | 1 << v;
            let k = key.max(mem(t));
            if best.get(&t).is_none_or(|&b| k < b) {
                best.insert(t, k);
                heap.push(Reverse((k, t)));
            }
        }
    }
    unreachable!("the full set is reachable")
}

fn brute_peak(g: &Graph) -> u64 {
    let r = run(
        solvers::build("brute").unwrap().as_ref(),
        g,
        &SolveContext::default(),
    );
    r.peak.unwrap()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn f3_memory_after_a_set_depends_on_the_set_alone(seed in any::<u64>()) {
        let g = common::graph(seed, 0);
        let mut rng = Rng::new(seed);
        let o1 = random_order(&g, &mut rng, &[]);
        let k = rng.below(g.node_count() as u64 + 1) as usize;
        let o2 = random_order(&g, &mut rng, &o1[..k]);
        let (p1, p2) = (profile(&g, &o1).unwrap(), profile(&g, &o2).unwrap());
        if k > 0 {
            prop_assert_eq!(p1[k - 1], p2[k - 1]);
        }
    }

    #[test]
    fn f3_best_first_on_max_so_far_reaches_the_brute_optimum(seed in any::<u64>()) {
        let g = common::graph(seed, 1);
        prop_assert_eq!(best_first(&g).max(0) as u64, brute_peak(&g));
    }

    #[test]
    fn f4_bounds_never_exceed_the_optimum(seed in any::<u64>()) {
        let g = common::graph(seed, seed % 2);
        prop_assert!(lower_bound(&g) <= brute_peak(&g));
        if g.node_count() <= 9 {
            let mut rng = Rng::new(seed ^ 1);
            let o = random_order(&g, &mut rng, &[]);
            let k = rng.below(g.node_count() as u64) as usize; // leave >= 1 node
            let b = state_lower_bound(&g, &o[..k]).unwrap();
            let best = best_completion_peak(&g, &o[..k]);
            prop_assert!(b as i64 <= best.max(0), "bound {} > best completion {}", b, best);
            // The last-FREE bound also counts the memory right after the prefix.
            let mem: i64 = o[..k].iter().map(|&v| g.delta(v)).sum();
            let lf = last_free_lower_bound(&g, &o[..k]).unwrap();
            prop_assert!(lf as i64 <= best.max(mem).max(0), "last-FREE {} > {} / {}", lf, best, mem);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn state_bound_holds_on_fork_joins_and_chains(seed in any::<u64>()) {
        let mut rng = Rng::new(seed);
        let enc = if rng.chance(0.5) { AllocEncoding::Anchored } else { AllocEncoding::Floating };
        let g = match rng.below(3) {
            0 => {
                let depth = rng.range(1, 3) as usize;
                common::random_fork_join(&mut rng, 2, depth, enc)
            }
            1 => common::random_fork_join(&mut rng, 3, 1, enc),
            _ => {
                let (m, len) = (rng.range(2, 8) as usize, rng.range(2, 5) as usize);
                common::chain_off_dag(&mut rng, m, len)
            }
        };
        prop_assume!(g.node_count() <= 24);
        let o = random_order(&g, &mut rng, &[]);
        let k = rng.below(g.node_count() as u64) as usize; // leave >= 1 node
        let b = state_lower_bound(&g, &o[..k]).unwrap();
        let best = best_completion_memo(&g, &o[..k]);
        prop_assert!(b as i64 <= best.max(0), "bound {} > best completion {}", b, best);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(600))]

    /// The merge bound (chains merged by Liu's rule) on branches of
    /// different lengths, some reading across branches, some ends never
    /// freed: every state of a random order, against memoised brute force.
    #[test]
    fn state_bound_holds_on_uneven_branches(seed in any::<u64>()) {
        let mut rng = Rng::new(seed);
        let enc = if rng.chance(0.75) { AllocEncoding::Anchored } else { AllocEncoding::Floating };
        let depths: Vec<usize> = match rng.below(4) {
            0 => vec![3, 3],
            1 => vec![2, 2, 2],
            2 => vec![1, 2, 3],
            _ => vec![4, 1],
        };
        let cross = if rng.chance(0.5) { 0.0 } else { 0.4 };
        let g = common::random_branches(&mut rng, &depths, cross, enc);
        prop_assume!(g.node_count() <= 24);
        let o = random_order(&g, &mut rng, &[]);
        for k in 0..g.node_count() {
            let b = state_lower_bound(&g, &o[..k]).unwrap();
            let best = best_completion_memo(&g, &o[..k]);
            prop_assert!(b as i64 <= best.max(0), "bound {} > best completion {} after {:?}", b, best, &o[..k]);
        }
    }
}

#[test]
fn state_bound_rejects_a_set_that_is_not_a_downset() {
    let g = common::graph(3, 0); // a tensor program: node 1 has a predecessor
    let v = g.nodes().find(|&v| !g.preds(v).is_empty()).unwrap();
    assert_eq!(state_lower_bound(&g, &[v]), None);
}
