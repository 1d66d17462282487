//! `MoveGreedy`: the F2-repaired greedy that seeds `exact`'s upper bound.

use super::moves::{self, Move, Reach};
use super::state;
use crate::graph::{Graph, NodeIdx};
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
        let pos = crate::graph::analysis::positions(g.topo_order(), n);
        let mut set = vec![0u64; state::words(n)];
        let mut order: Vec<NodeIdx> = Vec::with_capacity(n);
        let mut stack = Vec::new();
        state::close_empty(g, &mut set, &mut stack, |v| order.push(v));
        let mut cands: Vec<Move> = Vec::new();
        loop {
            // A step scans every node's bitset: the clock costs nothing next to it.
            if ctx.expired() {
                return Outcome::timed_out();
            }
            moves::candidates(g, &reach, &set, &mut cands);
            let Some(best) = cands
                .iter()
                .min_by_key(|m| (m.block, m.block + g.delta(m.w), m.w))
                .copied()
            else {
                break;
            };
            let mut block = Vec::new();
            moves::apply(&reach, &mut set, best.w, |v| block.push(v));
            let seeds = block.clone();
            block.pop(); // w runs after its block
            block.sort_by_key(|&v| pos[v as usize]);
            order.extend(block);
            order.push(best.w);
            state::close(g, &mut set, &seeds, &mut stack, |v| order.push(v));
        }
        // Only positive nodes are left: they run last, in topological order.
        let mut rest: Vec<NodeIdx> = g.nodes().filter(|&v| !state::has(&set, v)).collect();
        rest.sort_by_key(|&v| pos[v as usize]);
        order.extend(rest);
        Outcome::feasible(order)
    }
}
