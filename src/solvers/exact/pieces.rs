//! Solving a graph split at cut points: each piece on its own, then the
//! orders joined.
//!
//! Piece `i` starts with `offset_i` bytes live that its graph does not hold
//! (see [`super::split`]), so the whole peak is `max_i(offset_i + peak_i)`
//! and `max_i(offset_i + lower_i)` is a proven lower bound (some optimal
//! schedule runs the pieces in order, [`super::cuts`]). A piece need not
//! reach its own optimum: it is good enough once `offset_i + peak_i` is at
//! or below that bound (the *floor*), which the search is told as its target.
//!
//! Budgets: pieces are searched from the highest `offset + upper bound`
//! down; each gets a share of the remaining time and states in proportion
//! to its nodes among the pieces still to search. Pieces left unproven get
//! a second try with whatever time is left.

use super::moves::Reach;
use super::split::Piece;
use super::{close_or_feasible, Attempt, Exact, Prepared, Resource, StopCause, Upper};
use crate::graph::{Graph, NodeIdx};
use crate::solvers::{Outcome, SolveContext};

/// Solves `g` piece by piece; `parts` are the node lists of the pieces in
/// order. `None` if a piece could not be built as a graph (then the caller
/// solves the whole graph). `upper_ran`: the upper-bound source already ran
/// on `g` (its order is the warm start), so the pieces do not run it.
pub(crate) fn solve(
    exact: &Exact,
    g: &Graph,
    parts: &[Vec<NodeIdx>],
    ctx: &SolveContext,
    upper_ran: bool,
) -> Option<Outcome> {
    let pieces = build_pieces(g, parts)?;
    let preps: Vec<Prepared> = pieces
        .iter()
        .map(|pc| {
            let mut sub = ctx.clone();
            sub.warm_start = ctx.warm_start.as_ref().map(|w| pc.project(w));
            let reach = Reach::within(&pc.graph, &sub);
            let upper = if upper_ran {
                Upper::RanOnWhole
            } else {
                Upper::IfNeeded
            };
            exact.prepare(&pc.graph, &sub, reach, upper)
        })
        .collect();
    let shifted = |i: usize, x: u64| (pieces[i].offset + x as i64).max(0) as u64;
    let mut floor = (0..pieces.len())
        .map(|i| shifted(i, preps[i].global))
        .max()
        .unwrap_or(0);
    let mut attempts: Vec<Option<Attempt>> = (0..pieces.len()).map(|_| None).collect();
    let mut todo: Vec<usize> = (0..pieces.len()).collect();
    todo.sort_by_key(|&i| std::cmp::Reverse(shifted(i, preps[i].ub)));
    let mut states_left = ctx.budget.max_states;
    let (mut states, mut expanded) = (0, 0);
    for pass in 0..2 {
        // Pieces that may still matter: unproven, and above the floor.
        let open = |i: usize, a: &Option<Attempt>, floor: u64| match a {
            None => true,
            Some(a) => a.lower < a.peak && shifted(i, a.peak) > floor,
        };
        let mut queue: Vec<usize> = todo
            .iter()
            .copied()
            .filter(|&i| open(i, &attempts[i], floor))
            .collect();
        if pass > 0 && (queue.is_empty() || ctx.expired()) {
            break;
        }
        while let Some(i) = (!queue.is_empty()).then(|| queue.remove(0)) {
            let weight = pieces[i].graph.node_count() as u64;
            let pending: u64 = weight
                + queue
                    .iter()
                    .map(|&j| pieces[j].graph.node_count() as u64)
                    .sum::<u64>();
            let mut sub = ctx.clone();
            sub.warm_start = None;
            if let Some(left) = ctx.remaining() {
                sub.deadline =
                    Some(std::time::Instant::now() + left.mul_f64(weight as f64 / pending as f64));
            }
            sub.budget.max_states = (states_left as u128 * weight as u128 / pending as u128) as u64;
            let target = (floor as i64 - pieces[i].offset).max(0) as u64;
            let a = exact.attempt(&pieces[i].graph, &preps[i], &sub, target);
            states_left = states_left.saturating_sub(a.work.states);
            // The work of every attempt, kept or not.
            states += a.work.states;
            expanded += a.work.expanded;
            floor = floor.max(shifted(i, a.lower));
            let better = attempts[i].as_ref().is_none_or(|old| {
                (a.peak, std::cmp::Reverse(a.lower)) < (old.peak, std::cmp::Reverse(old.lower))
            });
            if better {
                attempts[i] = Some(a);
            }
        }
    }
    let attempts: Vec<Attempt> = attempts
        .into_iter()
        .map(|a| a.expect("every piece was attempted in the first pass"))
        .collect();
    let mut order = Vec::with_capacity(g.node_count());
    let (mut peak, mut lower) = (0u64, floor);
    let mut branches = 0;
    let mut proven = 0;
    for (i, a) in attempts.iter().enumerate() {
        order.extend(pieces[i].lift(&a.order));
        peak = peak.max(shifted(i, a.peak));
        lower = lower.max(shifted(i, a.lower));
        branches += a.branches;
        proven += usize::from(a.lower >= a.peak);
    }
    let stops: String = (unproven_stops(&attempts, states_left, ctx).iter())
        .map(|c| format!("; {c}"))
        .collect();
    let note = format!(
        "split at cut points into {} pieces ({proven} proven optimal on their own{stops})",
        pieces.len()
    );
    let mut out = close_or_feasible(order, peak, lower)
        .with_note(note)
        .with_counter("states", states)
        .with_counter("expanded", expanded)
        .with_counter("pieces", pieces.len() as u64);
    if branches > 0 {
        out = out.with_counter("symmetric_branches", branches as u64);
    }
    Some(out)
}

/// The pieces of `g` whose node lists are `parts`, in order; `None` if
/// one could not be built as a graph.
fn build_pieces(g: &Graph, parts: &[Vec<NodeIdx>]) -> Option<Vec<Piece>> {
    let mut done = vec![false; g.node_count()];
    let mut pieces = Vec::with_capacity(parts.len());
    for nodes in parts {
        pieces.push(Piece::new(g, nodes, &done).ok()?);
        for &v in nodes {
            done[v as usize] = true;
        }
    }
    Some(pieces)
}

/// What stopped the unproven pieces, each cause once, so the note names
/// it as an unsplit search's does; a piece stopped by its share of the
/// states or of the time, while the whole was not spent (`states_left`,
/// the deadline), says so.
fn unproven_stops(attempts: &[Attempt], states_left: u64, ctx: &SolveContext) -> Vec<String> {
    let share = |stop: &StopCause| match stop {
        StopCause::Spent(b @ Resource::States) if states_left > 0 => Some(*b),
        StopCause::Spent(b @ Resource::Time) if !ctx.expired() => Some(*b),
        _ => None,
    };
    let mut stops: Vec<String> = Vec::new();
    for a in attempts.iter().filter(|a| a.lower < a.peak) {
        if let Some(stop) = &a.stop {
            let stop = match share(stop) {
                Some(resource) => format!("stopped by its share of {}", resource.name()),
                None => stop.to_string(),
            };
            if !stops.contains(&stop) {
                stops.push(stop);
            }
        }
    }
    stops
}
