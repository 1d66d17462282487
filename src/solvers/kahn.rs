//! `kahn`: Kahn's topological sort with a FIFO queue (memory-oblivious).

use std::collections::VecDeque;

use super::{DeadlineTicker, Outcome, Scheduler, SolveContext};
use crate::graph::{Graph, NodeIdx};

/// Kahn's algorithm: sources in program order, then successors in the order
/// their edges were written, first come first served.
///
/// Ignores memory entirely; on a fork-join of k branches that each allocate
/// and then free, it runs all k allocations before any free (peak k times a
/// branch) where running branches one by one needs one.
///
/// # Complexity
/// O(n + m).
#[derive(Debug, Default, Clone, Copy)]
pub struct Kahn;

impl Scheduler for Kahn {
    fn name(&self) -> String {
        "kahn".into()
    }

    fn solve(&self, g: &Graph, ctx: &SolveContext) -> Outcome {
        let n = g.node_count();
        let mut indegree: Vec<u32> = g.nodes().map(|v| g.preds(v).len() as u32).collect();
        let mut queue: VecDeque<NodeIdx> =
            g.nodes().filter(|&v| indegree[v as usize] == 0).collect();
        let mut order = Vec::with_capacity(n);
        let mut ticker = DeadlineTicker::new(1 << 14);
        while let Some(u) = queue.pop_front() {
            if ticker.expired(ctx) {
                return Outcome::timed_out();
            }
            order.push(u);
            for &v in g.succs(u) {
                indegree[v as usize] -= 1;
                if indegree[v as usize] == 0 {
                    queue.push_back(v);
                }
            }
        }
        Outcome::feasible(order)
    }
}
