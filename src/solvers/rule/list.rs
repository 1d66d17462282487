//! `rule:EXPR`: a list scheduler whose ready set is ordered by a rule's key.
//!
//! At each step the ready node (all predecessors run) with the smallest key
//! runs; ties are broken by id, then by index, so the schedule is fully
//! determined (by the seed too, if the rule reads `random`).
//! `rule:delta,type,id` is exactly the article's greedy (`seed-greedy`).
//!
//! Dynamic keys: `unlocks(x)` and `frees_after(x)` count the successors `w`
//! of a ready node `x` whose only unrun predecessor is `x`. The scheduler
//! keeps `pending[w]`, the number of distinct unrun predecessors. A ready
//! node's feature can only change when `pending[w]` of one of its successors
//! drops to 1 (it never goes back up), and then exactly one node, the last
//! unrun predecessor of `w`, is affected. So the scheduler re-keys that one
//! node (if ready), pushing a new heap entry with a new version stamp; stale
//! entries are skipped when popped. Every popped key is therefore the exact
//! current key, at O(m) extra work over a whole run.

use super::features::{encode, stride, Adj, Dynamic, Noise, Statics};
use super::heap::KeyHeap;
use super::parse::Key;
use crate::graph::{Graph, NodeIdx};
use crate::solvers::{Abilities, DeadlineTicker, Outcome, Scheduler, SolveContext};

const DONE: u32 = u32::MAX;

/// The node-mode rule scheduler.
///
/// A priority rule looks one node ahead. With the article's key
/// (`delta,type,id`) on the article's own encoding, where an ALLOC has no
/// predecessor: a chain of ops `op0 -> op1 -> op2 -> op3` whose outputs take
/// 4, 3, 2, 1 bytes. All four ALLOCs are ready at the start and nothing else
/// is, so it runs them smallest first before any op (peak 10) where
/// allocating each output just before its op peaks at 7. `moves:EXPR`
/// repairs this.
///
/// # Complexity
/// O((n + m) log n) time (times the number of terms), O(n + m) space.
#[derive(Debug, Clone)]
pub struct Rule {
    key: Key,
}

impl Rule {
    /// The scheduler for a parsed rule.
    pub fn new(key: Key) -> Self {
        Rule { key }
    }
}

impl Scheduler for Rule {
    fn name(&self) -> String {
        format!("rule:{}", self.key)
    }

    fn abilities(&self) -> Abilities {
        Abilities {
            seeded: self.key.uses(super::Feature::Random),
            ..Abilities::default()
        }
    }

    fn solve(&self, g: &Graph, ctx: &SolveContext) -> Outcome {
        match schedule(g, &self.key, ctx, None) {
            Some(order) => Outcome::feasible(order),
            None => Outcome::timed_out(),
        }
    }
}

/// Runs the node-mode list scheduler; `None` if the deadline passed.
pub(super) fn schedule(
    g: &Graph,
    key: &Key,
    ctx: &SolveContext,
    noise: Option<Noise>,
) -> Option<Vec<NodeIdx>> {
    let n = g.node_count();
    let adj = Adj::new(g);
    let statics = Statics::new(g, key, ctx.seed, noise);
    let dynamic = key.is_dynamic();
    let mut pending: Vec<u32> = g.nodes().map(|v| adj.preds(v).len() as u32).collect();
    let mut version: Vec<u32> = if dynamic { vec![0; n] } else { Vec::new() };
    let mut heap = KeyHeap::new(stride(key), n.min(1 << 16));

    let push = |heap: &mut KeyHeap, pending: &[u32], v: NodeIdx, ver: u32| {
        let delta = g.delta(v);
        let mut d = Dynamic {
            delta,
            rise: delta.max(0),
            ..Dynamic::default()
        };
        if dynamic {
            for &w in adj.succs(v) {
                if pending[w as usize] == 1 {
                    d.unlocks += 1;
                    if g.delta(w) < 0 {
                        d.frees_after += g.size(w) as i64;
                    }
                }
            }
        }
        heap.push(v, ver, |out| encode(g, &adj, &statics, key, v, &d, out));
    };

    for v in g.nodes() {
        if pending[v as usize] == 0 {
            push(&mut heap, &pending, v, 0);
        }
    }
    let mut order = Vec::with_capacity(n);
    let mut ticker = DeadlineTicker::new(1 << 14);
    while let Some((u, ver)) = heap.pop() {
        if dynamic && (pending[u as usize] == DONE || version[u as usize] != ver) {
            continue;
        }
        if ticker.expired(ctx) {
            return None;
        }
        order.push(u);
        pending[u as usize] = DONE;
        for &w in adj.succs(u) {
            let p = &mut pending[w as usize];
            *p -= 1;
            if *p == 0 {
                push(
                    &mut heap,
                    &pending,
                    w,
                    if dynamic { version[w as usize] } else { 0 },
                );
            } else if dynamic && *p == 1 {
                // The last unrun predecessor of `w` now unlocks it: re-key it if ready.
                let x = *adj
                    .preds(w)
                    .iter()
                    .find(|&&x| pending[x as usize] != DONE)
                    .expect("pending counts an unrun predecessor");
                if pending[x as usize] == 0 {
                    version[x as usize] += 1;
                    push(&mut heap, &pending, x, version[x as usize]);
                }
            }
        }
    }
    Some(order)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::corpus::program::{AllocEncoding, TensorProgram};
    use crate::graph::GraphBuilder;
    use crate::schedule::check;
    use crate::solvers::rule::parse;

    fn order(g: &Graph, rule: &str) -> Vec<i64> {
        let key = parse(rule).unwrap();
        g.to_ids(&schedule(g, &key, &SolveContext::default(), None).unwrap())
    }

    /// A chain of four ops, outputs of 4, 3, 2, 1 bytes, floating ALLOCs.
    pub(crate) fn floating_chain() -> Graph {
        let mut p = TensorProgram::new();
        let mut prev = None;
        for (i, bytes) in [4u64, 3, 2, 1].into_iter().enumerate() {
            let inputs: Vec<_> = prev.into_iter().collect();
            prev = Some(p.op1(format!("op{i}"), &inputs, bytes));
        }
        p.to_graph(AllocEncoding::Floating).unwrap()
    }

    #[test]
    fn article_rule_runs_floating_allocs_early() {
        let g = floating_chain();
        let key = parse("delta,type,id").unwrap();
        let o = schedule(&g, &key, &SolveContext::default(), None).unwrap();
        // Smallest ALLOC first, all four before any op: peak 4+3+2+1.
        assert_eq!(check(&g, &o).unwrap().peak, 10);
        let ids = g.to_ids(&o);
        assert!(ids[..4]
            .iter()
            .all(|&i| g.kind(g.index_of(i).unwrap()) == crate::NodeKind::Alloc));
    }

    #[test]
    fn unlocks_is_kept_exact_as_predecessors_run() {
        // x and y both ready; z needs x and y; a FREE-like sink f after x only.
        // After y runs, x unlocks z too: unlocks(x) goes from 1 to 2.
        let mut b = GraphBuilder::new();
        let x = b.op("x");
        let y = b.op("y");
        let w = b.op("w");
        let z = b.op("z");
        let f = b.op("f");
        for (u, v) in [(x, z), (y, z), (x, f), (w, f)] {
            b.edge(u, v);
        }
        let g = b.build().unwrap();
        // Most unlocks first, then id: all 0 at the start, x runs; then y and
        // w each become the last predecessor of z and f (unlocks 1): y, w.
        assert_eq!(order(&g, "-unlocks,id"), vec![0, 1, 2, 3, 4]);
        // Most unlocks first, then highest id: w runs first; that makes x the
        // last predecessor of f, so x (now 1) beats y (0). A stale key would
        // have run y (higher id) next.
        assert_eq!(order(&g, "-unlocks,-id"), vec![2, 0, 1, 4, 3]);
    }
}
