//! `BestOf`: a scheduler made of schedulers that keeps the lowest peak.

use std::sync::OnceLock;

use rayon::prelude::*;

use super::published::{Decision, OpView};
use super::{Abilities, Outcome, Scheduler, SolveContext, Status};
use crate::graph::{Graph, NodeIdx};
use crate::schedule;

/// Runs every member (in parallel on graphs of [`PARALLEL_MIN_NODES`] or
/// more) and returns the lowest peak the independent checker confirms; ties
/// go to the earlier member, so the result does not depend on the thread
/// count. The note names the winner, and how many members the time limit
/// stopped before they had an order (the best is then of the others).
///
/// Members are ranked by the peak their order would have, and only the
/// best is checked (if it fails the check, the next is, and so on): that
/// picks the same member as checking all of them, since a valid order's
/// peak is the checker's. Checking goes on while a later member's ranked
/// peak is below the best checked one, so even a wrong ranking could not
/// make the result worse than checking all; the reported peak is the
/// checker's. Members that are published op schedulers share
/// one [`OpView`], built by the first that needs it, and an op order is
/// ranked by [`OpView::peak_of`] and expanded only if it wins (a node
/// order a member wrote itself, as `inductor-lpmf` does, by its profile).
///
/// Its lower bound is the best of the members' proven bounds; if that meets
/// the winning peak the result is `optimal`.
pub struct BestOf {
    name: String,
    members: Vec<Box<dyn Scheduler>>,
}

impl std::fmt::Debug for BestOf {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let members: Vec<String> = self.members.iter().map(|m| m.name()).collect();
        f.debug_struct("BestOf")
            .field("name", &self.name)
            .field("members", &members)
            .finish()
    }
}

/// Below this many nodes the members run one after another: handing them
/// to rayon costs more than they take (on 35-60-node graphs
/// `best-heuristic` took 2-3x longer in parallel than in sequence).
const PARALLEL_MIN_NODES: usize = 1_000;

/// A member's order before the check.
enum Pending {
    /// Nodes, as the member returned them.
    Nodes(Vec<NodeIdx>),
    /// Ops, expanded only if they win.
    Ops(Vec<u32>),
}

/// One member's answer: its outcome without the order, the order, and the
/// peak it would have (`None` when it has no order or cannot be valid).
struct Answer {
    outcome: Outcome,
    order: Option<Pending>,
    peak: Option<u64>,
}

impl Answer {
    /// A member's outcome; its order is ranked by its memory profile.
    fn from_outcome(mut outcome: Outcome, g: &Graph) -> Self {
        let order = outcome.order.take();
        let peak = order.as_deref().and_then(|o| profile_peak(g, o));
        Answer {
            outcome,
            order: order.map(Pending::Nodes),
            peak,
        }
    }

    /// An op scheduler's decision; an op order is ranked by the view.
    fn from_decision(decision: Decision, g: &Graph, view: &OpView) -> Self {
        match decision {
            Decision::Ops(ops) => Answer {
                outcome: Outcome::feasible(Vec::new()),
                peak: view.peak_of(g, &ops).ok(),
                order: Some(Pending::Ops(ops)),
            },
            other => Answer::from_outcome(other.into_outcome(g, view), g),
        }
    }

    /// The node order and the checker's peak, if it is a schedule.
    fn checked_order(&mut self, g: &Graph, view: Option<&OpView>) -> Option<(Vec<NodeIdx>, u64)> {
        let order = match self.order.take()? {
            Pending::Nodes(order) => order,
            Pending::Ops(ops) => view?.expand(g, &ops).ok()?,
        };
        let peak = schedule::check(g, &order).ok()?.peak;
        debug_assert_eq!(
            Some(peak),
            self.peak,
            "ranked peak differs from the checker's"
        );
        Some((order, peak))
    }
}

/// Running maximum of memory (from 0) over `order`: the checker's peak if
/// `order` is a schedule; `None` if it names a node that does not exist.
fn profile_peak(g: &Graph, order: &[NodeIdx]) -> Option<u64> {
    let (mut mem, mut peak) = (0i64, 0i64);
    for &v in order {
        mem = mem.checked_add(*g.deltas().get(v as usize)?)?;
        peak = peak.max(mem);
    }
    Some(peak as u64)
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
                restarts: acc.restarts || a.restarts,
                budgeted: acc.budgeted || a.budgeted,
                steered_by_seed: acc.steered_by_seed || a.steered_by_seed,
            }
        })
    }

    fn solve(&self, g: &Graph, ctx: &SolveContext) -> Outcome {
        let view = OnceLock::new();
        let answer = |m: &dyn Scheduler| match m.op_scheduler() {
            Some(op) => match view.get_or_init(|| OpView::new(g)) {
                Ok(view) => Answer::from_decision(op.decide(g, view, ctx), g, view),
                Err(e) => Answer::from_outcome(Outcome::failed(e.clone()), g),
            },
            None => Answer::from_outcome(m.solve(g, ctx), g),
        };
        let mut answers: Vec<Answer> = if g.node_count() < PARALLEL_MIN_NODES {
            self.members.iter().map(|m| answer(m.as_ref())).collect()
        } else {
            self.members
                .par_iter()
                .map(|m| answer(m.as_ref()))
                .collect()
        };
        let lower_bound = answers.iter().filter_map(|a| a.outcome.lower_bound).max();
        let mut ranked: Vec<(u64, usize)> = answers
            .iter()
            .enumerate()
            .filter_map(|(i, a)| a.peak.map(|p| (p, i)))
            .collect();
        ranked.sort_unstable();
        // Check in ranked order until no later member can do better. The
        // ranking is exact (tested), so that is the first valid one; if it
        // ever were not, the checker's peaks decide and label the result.
        let mut winner: Option<(u64, usize, Vec<NodeIdx>)> = None;
        for (ranked_peak, i) in ranked {
            if winner.as_ref().is_some_and(|w| w.0 <= ranked_peak) {
                break;
            }
            if let Some((order, peak)) =
                answers[i].checked_order(g, view.get().and_then(|v| v.as_ref().ok()))
            {
                if winner.as_ref().is_none_or(|w| peak < w.0) {
                    winner = Some((peak, i, order));
                }
            }
        }
        let Some((peak, i, order)) = winner else {
            // A member stopped by the clock might have answered: that is a
            // stop, not a refusal of the graph (anneal falls back on it).
            let any_timed_out = answers.iter().any(|a| a.outcome.status == Status::TimedOut);
            return if any_timed_out {
                Outcome::timed_out()
            } else {
                Outcome::failed("no member returned a valid schedule")
            };
        };
        let mut best = if lower_bound == Some(peak) {
            Outcome::optimal(order, peak)
        } else {
            Outcome::feasible(order).with_lower_bound(lower_bound)
        };
        best.counters = std::mem::take(&mut answers[i].outcome.counters);
        let stopped = answers
            .iter()
            .filter(|a| a.outcome.status == Status::TimedOut)
            .count();
        let mut note = format!("best: {}", self.members[i].name());
        if stopped > 0 {
            let n = answers.len();
            let cause = ctx.limit_cause();
            note += &format!(" ({stopped} of {n} members stopped by {cause})");
        }
        best.with_note(note)
    }
}
