//! `random` and `random-moves`: uniformly random choice, seeded.
//!
//! `random` runs, at each step, a node chosen uniformly among the ready ones;
//! `random-moves` chooses uniformly among the available moves (see
//! [`super::moves`]). They are baselines: what a rule gains over chance.
//! With `--restarts K` they keep the best of K runs (see [`super::noisy`]).
//!
//! Uniform among ready nodes is not uniform over schedules, and on the
//! article's encoding it is poor for the same reason as the article's greedy:
//! every ALLOC is ready at the start, so the first steps run ALLOCs long
//! before their ops with high probability.

use super::features::Adj;
use super::moves::{self, Pick};
use super::noisy::best_of_runs;
use crate::graph::{Graph, NodeIdx};
use crate::rng::Rng;
use crate::solvers::kahn::{list_schedule, ReadySet};
use crate::solvers::{Abilities, Outcome, Scheduler, SolveContext};

/// Uniformly random list scheduling.
///
/// # Complexity
/// O(n + m) per run.
#[derive(Debug, Clone, Copy, Default)]
pub struct RandomOrder {
    /// Choose among moves instead of ready nodes.
    pub moves: bool,
}

impl Scheduler for RandomOrder {
    fn name(&self) -> String {
        if self.moves { "random-moves" } else { "random" }.into()
    }

    fn abilities(&self) -> Abilities {
        Abilities {
            seeded: true,
            restarts: true,
            ..Abilities::default()
        }
    }

    fn solve(&self, g: &Graph, ctx: &SolveContext) -> Outcome {
        let adj = self.moves.then(|| Adj::new(g));
        best_of_runs(g, ctx, |seed| {
            if let Some(adj) = &adj {
                moves::schedule(g, adj, Pick::Uniform { seed }, ctx)
            } else {
                uniform_nodes(g, seed, ctx)
            }
        })
    }
}

/// One run of uniform choice among ready nodes; `None` past the deadline.
pub(super) fn uniform_nodes(g: &Graph, seed: u64, ctx: &SolveContext) -> Option<Vec<NodeIdx>> {
    let ready = UniformReady {
        rng: Rng::new(seed),
        ready: Vec::new(),
    };
    list_schedule(g, ready, ctx)
}

/// Ready nodes, one drawn uniformly at each pop.
struct UniformReady {
    rng: Rng,
    ready: Vec<NodeIdx>,
}

impl ReadySet for UniformReady {
    #[inline]
    fn push(&mut self, v: NodeIdx) {
        self.ready.push(v);
    }

    #[inline]
    fn pop(&mut self) -> Option<NodeIdx> {
        if self.ready.is_empty() {
            return None;
        }
        let i = self.rng.below(self.ready.len() as u64) as usize;
        Some(self.ready.swap_remove(i))
    }
}
