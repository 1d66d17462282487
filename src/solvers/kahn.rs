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
        match list_schedule(g, VecDeque::new(), ctx) {
            Some(order) => Outcome::feasible(order),
            None => Outcome::timed_out(),
        }
    }
}

/// The ready set of a list scheduler: it decides which ready node runs next.
pub(crate) trait ReadySet {
    /// Adds `v`, whose predecessors have all run.
    fn push(&mut self, v: NodeIdx);
    /// Removes and returns the node to run next.
    fn pop(&mut self) -> Option<NodeIdx>;
}

/// First come, first served: `kahn`.
impl ReadySet for VecDeque<NodeIdx> {
    #[inline]
    fn push(&mut self, v: NodeIdx) {
        self.push_back(v);
    }
    #[inline]
    fn pop(&mut self) -> Option<NodeIdx> {
        self.pop_front()
    }
}

/// Kahn's loop with `ready` choosing the next node: the sources are pushed
/// in program order, then each node as its last predecessor runs (in the
/// order the edges were written). `None` if the deadline passed.
///
/// # Complexity
/// O(n + m) plus the ready set's pushes and pops.
pub(crate) fn list_schedule(
    g: &Graph,
    mut ready: impl ReadySet,
    ctx: &SolveContext,
) -> Option<Vec<NodeIdx>> {
    let mut pending: Vec<u32> = g.nodes().map(|v| g.preds(v).len() as u32).collect();
    for v in g.nodes() {
        if pending[v as usize] == 0 {
            ready.push(v);
        }
    }
    let mut order = Vec::with_capacity(g.node_count());
    let mut ticker = DeadlineTicker::new(1 << 14);
    while let Some(u) = ready.pop() {
        if ticker.expired(ctx) {
            return None;
        }
        order.push(u);
        for &w in g.succs(u) {
            pending[w as usize] -= 1;
            if pending[w as usize] == 0 {
                ready.push(w);
            }
        }
    }
    Some(order)
}
