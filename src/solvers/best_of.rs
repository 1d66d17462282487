//! `BestOf`: a scheduler made of schedulers that keeps the lowest peak.

use std::sync::OnceLock;

use rayon::prelude::*;

use super::published::OpView;
use super::{Abilities, Outcome, Scheduler, SolveContext, Status};
use crate::graph::Graph;
use crate::schedule;

/// Runs every member (in parallel), checks each answer with the independent
/// checker and returns the lowest peak; ties go to the earlier member, so the
/// result does not depend on the thread count. The note names the winner.
///
/// Its lower bound is the best of the members' proven bounds; if that meets
/// the winning peak the result is `optimal`. Members that are published op
/// schedulers share one [`OpView`], built by the first that needs it.
pub struct BestOf {
    name: String,
    members: Vec<Box<dyn Scheduler>>,
}

impl BestOf {
    /// A best-of named `name` over `members` (in tie-breaking order).
    pub fn new(name: impl Into<String>, members: Vec<Box<dyn Scheduler>>) -> Self {
        BestOf {
            name: name.into(),
            members,
        }
    }
}

impl Scheduler for BestOf {
    fn name(&self) -> String {
        self.name.clone()
    }

    fn abilities(&self) -> Abilities {
        self.members.iter().fold(Abilities::default(), |acc, m| {
            let a = m.abilities();
            Abilities {
                seeded: acc.seeded || a.seeded,
                exact: acc.exact || a.exact,
                anytime: acc.anytime || a.anytime,
            }
        })
    }

    fn solve(&self, g: &Graph, ctx: &SolveContext) -> Outcome {
        let view = OnceLock::new();
        let results: Vec<(String, Outcome, Option<u64>)> = self
            .members
            .par_iter()
            .map(|m| {
                let out = match m.op_scheduler() {
                    Some(op) => op.solve_ops(g, view.get_or_init(|| OpView::new(g)), ctx),
                    None => m.solve(g, ctx),
                };
                let peak = out
                    .order
                    .as_deref()
                    .and_then(|o| schedule::check(g, o).ok())
                    .map(|e| e.peak);
                (m.name(), out, peak)
            })
            .collect();
        let lower_bound = results.iter().filter_map(|(_, o, _)| o.lower_bound).max();
        let winner = results
            .iter()
            .enumerate()
            .filter_map(|(i, (_, _, p))| p.map(|p| (p, i)))
            .min();
        let Some((peak, i)) = winner else {
            let all_timed_out = results.iter().all(|(_, o, _)| o.status == Status::TimedOut);
            return if all_timed_out {
                Outcome::timed_out()
            } else {
                Outcome::failed("no member returned a valid schedule")
            };
        };
        let (name, out, _) = results
            .into_iter()
            .nth(i)
            .expect("winner index is in range");
        let order = out.order.expect("winner has an order");
        let mut best = if lower_bound == Some(peak) {
            Outcome::optimal(order, peak)
        } else {
            Outcome::feasible(order).with_lower_bound(lower_bound)
        };
        best.counters = out.counters;
        best.with_note(format!("best: {name}"))
    }
}
