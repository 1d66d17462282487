//! `kahn`: Kahn's topological sort with a FIFO queue (memory-oblivious).

use std::collections::VecDeque;

use super::{DeadlineTicker, Outcome, Scheduler, SolveContext};
use crate::graph::{Csr, Graph, NodeIdx};
use crate::prefetch::prefetch;

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

    /// The node about `d` pops from now, when the set can tell cheaply
    /// (say, from a sorted run). Only a prefetch hint: a wrong answer costs
    /// time, never a different schedule.
    #[inline]
    fn ahead(&self, _d: usize) -> Option<NodeIdx> {
        None
    }

    /// Prefetches what pushing `v` will read (its key, say).
    #[inline]
    fn prefetch_push(&self, _v: NodeIdx) {}
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

/// Pops between the prefetch stages of [`list_schedule`] (measured on the
/// heuristics bench's floating graph: 4-8 all gain about a third).
const STAGE: usize = 6;

/// Kahn's loop with `ready` choosing the next node: the sources are pushed
/// in program order, then each node as its last predecessor runs (in the
/// order the edges were written). `None` if the deadline passed.
///
/// When the ready set can name the nodes it pops next ([`ReadySet::ahead`]),
/// the loop prefetches, for the node `4 * STAGE` pops ahead, where its
/// successor row starts; `3 * STAGE` ahead, the row; `2 * STAGE` ahead, its
/// successors' counters and keys. Each stage reads only lines the stage
/// before asked for, so the misses of a random walk over the graph (the
/// article's greedy on its own encoding) overlap instead of queueing.
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
        prefetch_ahead(
            g.succ_csr(),
            |d| ready.ahead(d),
            |w| {
                prefetch(&pending, w as usize);
                ready.prefetch_push(w);
            },
        );
        for &w in g.succs(u) {
            pending[w as usize] -= 1;
            if pending[w as usize] == 0 {
                ready.push(w);
            }
        }
    }
    Some(order)
}

/// The prefetch stages of a list scheduler's loop (see [`list_schedule`]):
/// `ahead(d)` guesses the node `d` pops from now, `succ` holds the
/// successor rows the loop walks, and `touch(w)` prefetches what the loop
/// reads for a successor `w` of a popped node.
#[inline]
pub(crate) fn prefetch_ahead(
    succ: &Csr,
    ahead: impl Fn(usize) -> Option<NodeIdx>,
    mut touch: impl FnMut(NodeIdx),
) {
    if let Some(v) = ahead(4 * STAGE) {
        succ.prefetch_offsets(v);
    }
    if let Some(v) = ahead(3 * STAGE) {
        succ.prefetch_row(v);
    }
    if let Some(v) = ahead(2 * STAGE) {
        succ.neighbors(v).iter().for_each(|&w| touch(w));
    }
}
