//! `program`: the order of the `Nodes` array, the baseline "original peak".

use super::{Outcome, Scheduler, SolveContext};
use crate::graph::Graph;

/// Runs nodes in file order; fails (naming an edge) if that order breaks one.
///
/// Wrong whenever the file order is not memory-aware, which is the point:
/// it is the baseline the others are measured against.
#[derive(Debug, Default, Clone, Copy)]
pub struct ProgramOrder;

impl Scheduler for ProgramOrder {
    fn name(&self) -> String {
        "program".into()
    }

    fn solve(&self, g: &Graph, _ctx: &SolveContext) -> Outcome {
        if g.program_order_is_topological() {
            return Outcome::feasible(g.nodes().collect());
        }
        let broken = g
            .nodes()
            .find_map(|u| g.succs(u).iter().find(|&&v| v <= u).map(|&v| (u, v)));
        let reason = match broken {
            Some((u, v)) => format!(
                "the Nodes array order breaks edge [{}, {}]: node {} comes first",
                g.id(u),
                g.id(v),
                g.id(v)
            ),
            None => "the Nodes array order breaks an edge".into(),
        };
        Outcome::failed(reason)
    }
}
