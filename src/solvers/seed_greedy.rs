//! `seed-greedy`: the source article's heap scheduler, replicated exactly.
//!
//! The article's Python pushes `(changes[i], types[i], i)` on a `heapq` and
//! always pops the smallest: most negative delta first, then FREE (0) before
//! compute (1) before ALLOC (2), then the smallest id. Because ids are unique
//! the tuple order is total, so the schedule is fully determined.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use super::{DeadlineTicker, Outcome, Scheduler, SolveContext};
use crate::graph::Graph;

/// The article's greedy: a binary heap keyed by `(delta, type, id)`.
///
/// Wrong by design on the article's own encoding, where an ALLOC has no
/// predecessor: every ALLOC is ready at the start and, once the FREEs and
/// computes run out, they are run smallest-first long before their op needs
/// them. On `ALLOC a(1); ALLOC b(1); op1 reads a; FREE a; op2 reads b; FREE b`
/// it allocates both before either op (peak 2; the optimum is 1).
///
/// # Complexity
/// O((n + m) log n).
#[derive(Debug, Default, Clone, Copy)]
pub struct SeedGreedy;

impl Scheduler for SeedGreedy {
    fn name(&self) -> String {
        "seed-greedy".into()
    }

    fn solve(&self, g: &Graph, ctx: &SolveContext) -> Outcome {
        let key = |v: u32| Reverse((g.delta(v), g.kind(v).type_code(), g.id(v), v));
        let mut indegree: Vec<u32> = g.nodes().map(|v| g.preds(v).len() as u32).collect();
        let mut ready: BinaryHeap<_> = g
            .nodes()
            .filter(|&v| indegree[v as usize] == 0)
            .map(key)
            .collect();
        let mut order = Vec::with_capacity(g.node_count());
        let mut ticker = DeadlineTicker::new(1 << 14);
        while let Some(Reverse((_, _, _, u))) = ready.pop() {
            if ticker.expired(ctx) {
                return Outcome::timed_out();
            }
            order.push(u);
            for &v in g.succs(u) {
                indegree[v as usize] -= 1;
                if indegree[v as usize] == 0 {
                    ready.push(key(v));
                }
            }
        }
        Outcome::feasible(order)
    }
}
