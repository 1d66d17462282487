//! `MoveGreedy`: the F2-repaired greedy that seeds `exact`'s upper bound.

use super::moves::{self, Move, MoveOrder, Reach};
use crate::graph::Graph;
use crate::solvers::{Outcome, Scheduler, SolveContext};

/// At each F1-closed state, commits to the move (a node with delta <= 0 plus
/// the ALLOCs it still needs) whose block peaks lowest; ties go to the lower
/// memory after the node, then to the lower node index. Positive nodes are
/// only ever run just before the node that needs them (F2), which repairs the
/// article greedy's habit of running floating ALLOCs early.
///
/// Still a greedy that looks one move ahead. Branch B: `ALLOC b1(1) -> B1
/// -> B2 <- ALLOC b2(10)`, then both freed; branch C: `ALLOC c(2) -> C1`,
/// `c` never freed. It runs B1 (block 1), then C1 (block 2 < 10), then B2:
/// peak 13. Finishing B before C peaks at 11.
///
/// # Complexity
/// O(n * n * (in-degree + n / 64)): one candidate scan per step.
#[derive(Debug, Default, Clone, Copy)]
pub struct MoveGreedy;

/// Above this many nodes [`MoveGreedy`] refuses the graph: its steps cost
/// O(n * n / 64) each (2.4 s and 512 MB of bitsets on 64,232 nodes, where
/// `best-heuristic`'s other members take milliseconds), so it is no longer
/// a fast heuristic.
pub const MOVE_GREEDY_MAX_NODES: usize = 32_768;

impl Scheduler for MoveGreedy {
    fn name(&self) -> String {
        "move-greedy".into()
    }

    fn abilities(&self) -> crate::solvers::Abilities {
        crate::solvers::Abilities {
            budgeted: true,
            ..Default::default()
        }
    }

    fn solve(&self, g: &Graph, ctx: &SolveContext) -> Outcome {
        let n = g.node_count();
        if n > MOVE_GREEDY_MAX_NODES {
            return Outcome::failed(format!(
                "{n} nodes: the move greedy takes seconds above {MOVE_GREEDY_MAX_NODES}"
            ));
        }
        let Some(reach) = Reach::within(g, ctx) else {
            return if ctx.expired() {
                Outcome::timed_out()
            } else {
                Outcome::failed("graph too large for the ancestor bitsets")
            };
        };
        let mut order = MoveOrder::new(g, &reach);
        let mut cands: Vec<Move> = Vec::new();
        loop {
            // A step scans every node's bitset: the clock costs nothing next to it.
            if ctx.expired() {
                return Outcome::timed_out();
            }
            moves::candidates(g, &reach, order.set(), &mut cands);
            let Some(best) = cands
                .iter()
                .min_by_key(|m| (m.block, m.block + g.delta(m.w), m.w))
                .copied()
            else {
                break;
            };
            order.run(best.w);
        }
        // Only positive nodes are left: they run last, in topological order.
        Outcome::feasible(order.finish())
    }
}
