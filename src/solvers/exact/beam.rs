//! `move-beam`: a beam search over F2 moves, one more upper bound for `exact`.
//!
//! Each step expands every kept state by all its moves (as [`MoveGreedy`]
//! does, one node with delta <= 0 plus the ALLOCs it still needs, then the
//! F1 closure), merges children that are the same set, and keeps the
//! `width` best by (peak so far, memory). A finished state stays in the
//! beam; the search ends when every kept state is finished. Any order it
//! returns is a valid schedule (checked again by the caller), so it only
//! ever tightens the upper bound: it is a heuristic, not a proof.
//!
//! [`MoveGreedy`]: super::MoveGreedy

use std::collections::HashMap;
use std::hash::BuildHasherDefault;

use super::moves::{self, Move, MoveOrder, Reach};
use super::state::{self, IdHasher, Zobrist};
use crate::graph::{Graph, NodeIdx};
use crate::solvers::{DeadlineTicker, SolveContext};

/// One kept state.
#[derive(Clone)]
struct Entry {
    set: Vec<u64>,
    hash: u64,
    peak: i64,
    mem: i64,
    /// Its last step in the step arena (`u32::MAX`: the root).
    step: u32,
    done: bool,
}

/// The best order a beam of `width` states finds, or `None` if the
/// deadline passed first.
///
/// # Complexity
/// O(steps * width * moves * (n * (in-degree + n / 64))): use it on pieces
/// of a few hundred nodes.
pub(crate) fn order(
    g: &Graph,
    reach: &Reach,
    width: usize,
    ctx: &SolveContext,
) -> Option<Vec<NodeIdx>> {
    let n = g.node_count();
    let zob = Zobrist::new(n);
    let mut stack = Vec::new();
    let mut set = vec![0u64; state::words(n)];
    let mut hash = 0;
    let mem = state::close_empty(g, &mut set, &mut stack, |v| hash ^= zob.key(v));
    // The arena of steps: (previous step, node committed to).
    let mut steps: Vec<(u32, NodeIdx)> = Vec::new();
    let mut beam = vec![Entry {
        set,
        hash,
        peak: 0,
        mem,
        step: u32::MAX,
        done: false,
    }];
    let mut cands: Vec<Move> = Vec::new();
    let mut added = Vec::new();
    let mut ticker = DeadlineTicker::new(16);
    while beam.iter().any(|e| !e.done) {
        let mut next: Vec<Entry> = Vec::new();
        // Entries are keyed by their Zobrist hash, already uniform.
        let mut index: HashMap<u64, usize, BuildHasherDefault<IdHasher>> = HashMap::default();
        let mut keep = |e: Entry, next: &mut Vec<Entry>| match index.get(&e.hash) {
            Some(&i) if (next[i].peak, next[i].mem) <= (e.peak, e.mem) => {}
            Some(&i) => next[i] = e,
            None => {
                index.insert(e.hash, next.len());
                next.push(e);
            }
        };
        for e in &beam {
            if ticker.expired(ctx) {
                return None;
            }
            if e.done {
                keep(e.clone(), &mut next);
                continue;
            }
            moves::candidates(g, reach, &e.set, &mut cands);
            if cands.is_empty() {
                let peak = e.peak.max(g.final_memory());
                keep(
                    Entry {
                        peak,
                        done: true,
                        ..e.clone()
                    },
                    &mut next,
                );
                continue;
            }
            for mv in &cands {
                let mut child = e.set.clone();
                let mut h = e.hash;
                added.clear();
                moves::apply(reach, &mut child, mv.w, |v| {
                    h ^= zob.key(v);
                    added.push(v);
                });
                let closed = state::close(g, &mut child, &added, &mut stack, |v| h ^= zob.key(v));
                steps.push((e.step, mv.w));
                let child = Entry {
                    set: child,
                    hash: h,
                    peak: e.peak.max(e.mem + mv.block),
                    mem: e.mem + mv.block + g.delta(mv.w) + closed,
                    step: steps.len() as u32 - 1,
                    done: false,
                };
                keep(child, &mut next);
            }
        }
        next.sort_by_key(|e| (e.peak, e.mem, e.hash));
        next.truncate(width.max(1));
        beam = next;
    }
    let best = beam.iter().min_by_key(|e| (e.peak, e.hash))?;
    Some(replay(g, reach, &steps, best.step))
}

/// The order of the moves ending at `step`: per move its block (in the
/// stored topological order), its node and its closure; positive nodes
/// still missing at the end.
fn replay(g: &Graph, reach: &Reach, steps: &[(u32, NodeIdx)], mut step: u32) -> Vec<NodeIdx> {
    let mut ws = Vec::new();
    while step != u32::MAX {
        ws.push(steps[step as usize].1);
        step = steps[step as usize].0;
    }
    ws.reverse();
    let mut order = MoveOrder::new(g, reach);
    for w in ws {
        order.run(w);
    }
    order.finish()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schedule;

    #[test]
    fn a_beam_of_two_escapes_the_move_greedys_trap() {
        // The greedy peaks at 13 on it, the optimum is 11.
        let g = crate::solvers::exact::tests::greedy_trap();
        let reach = Reach::new(&g);
        let ctx = SolveContext::default();
        let one = order(&g, &reach, 1, &ctx).unwrap();
        assert_eq!(schedule::check(&g, &one).unwrap().peak, 13);
        let two = order(&g, &reach, 2, &ctx).unwrap();
        assert_eq!(schedule::check(&g, &two).unwrap().peak, 11);
    }
}
