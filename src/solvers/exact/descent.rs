//! Descending valleys: a move, alone or with up to two continuations, that
//! lowers the memory for everything after it and stays within a peak every
//! completion reaches anyway, is taken at once (the other moves of the
//! state are not tried). A dominance rule in the spirit of F1: the valley
//! half of Liu's hill-valley segments, for hills that cost nothing.
//!
//! Let `S` be an F1-closed state with peak so far `p`, and `lb` a lower
//! bound on the peak of every completion of `S`. Moves `m_1, ..., m_r`
//! (each a move of the state the previous one left, its node a descendant
//! of the previous move's node), each a block `B_i` of positive nodes then
//! its node `w_i`, then the F1 closure, run the set `M`. Suppose
//! 1. before each block the memory plus the block's sum is `<= max(p, lb)`;
//! 2. every subset of `M` closed under descendants within `M` has a delta
//!    sum `<= 0` (checked through its positive nodes `P`: such a set holds
//!    every node of `M` descending from `P`, so its sum is at most `sum(P)`
//!    plus the deltas of the non-positive nodes descending from `P`; every
//!    non-empty subset `P` of `M`'s positive nodes is tried, at most 6).
//!
//! Then some best completion of `S` starts with `M`, so with `m_1`. Take
//! any completion `σ` of `S` and move `M`'s nodes to its front in the
//! valley's order, the rest in `σ`'s order. It is valid: every node of `M`
//! has its predecessors in `S` or earlier in `M`. While `M` runs the memory
//! is highest at the ends of the blocks, so at most
//! `max(p, lb) <= max(p, peak(σ))`. After `M` and some nodes `P'` of the
//! rest, the memory is `σ`'s memory right after the same nodes `P'` plus
//! the delta sum of the set `U` of `M`'s nodes that `σ` runs later; `U` is
//! closed under descendants within `M`, so by (2) that sum is `<= 0`. The
//! peak of the whole path does not rise. Restricting `S` to its first move
//! is then sound: the search goes on from `S + m_1` as from any state.

use super::moves::{self, Move, Reach};
use super::state::{self, has};
use crate::graph::{Graph, NodeIdx};

/// Most moves in one valley (the first and its continuations).
const MAX_MOVES: usize = 3;
/// Most positive nodes in one valley (the check enumerates their subsets).
const MAX_POSITIVE: usize = 6;

/// Scratch space for [`find`].
#[derive(Default)]
pub(crate) struct Scratch {
    /// The set after each move of the valley being tried.
    sets: Vec<Vec<u64>>,
    /// Nodes of the valley so far, and how many each move added.
    nodes: Vec<NodeIdx>,
    added: Vec<NodeIdx>,
    cands: Vec<Vec<Move>>,
    stack: Vec<NodeIdx>,
}

/// The index in `cands` (the moves of `set`) of the first move that starts
/// a descending valley, if any; `mem` is the memory of `set` and
/// `allowance` is `max(p, lb)`.
///
/// # Complexity
/// O(moves^MAX_MOVES * (block + closure work)) in the worst case; only
/// continuations (moves whose node descends from the previous one) are tried
/// after the first move.
pub(crate) fn find(
    g: &Graph,
    reach: &Reach,
    set: &[u64],
    cands: &[Move],
    mem: i64,
    allowance: i64,
    scratch: &mut Scratch,
) -> Option<usize> {
    scratch.sets.resize_with(MAX_MOVES + 1, Vec::new);
    scratch.cands.resize_with(MAX_MOVES, Vec::new);
    scratch.sets[0].clear();
    scratch.sets[0].extend_from_slice(set);
    scratch.nodes.clear();
    scratch.cands[0].clear();
    scratch.cands[0].extend_from_slice(cands);
    (0..cands.len()).find(|&i| valley(g, reach, scratch, 0, i, mem, allowance))
}

/// Whether move `i` of `scratch.cands[depth]`, from `scratch.sets[depth]`
/// with memory `mem`, ends a descending valley, alone or followed by
/// continuations (up to [`MAX_MOVES`] moves in all).
fn valley(
    g: &Graph,
    reach: &Reach,
    scratch: &mut Scratch,
    depth: usize,
    i: usize,
    mem: i64,
    allowance: i64,
) -> bool {
    let mv = scratch.cands[depth][i];
    if mem + mv.block > allowance {
        return false;
    }
    let (before, after) = scratch.sets.split_at_mut(depth + 1);
    let child = &mut after[0];
    child.clear();
    child.extend_from_slice(&before[depth]);
    let mark = scratch.nodes.len();
    scratch.added.clear();
    moves::apply(reach, child, mv.w, |v| scratch.added.push(v));
    scratch.nodes.extend_from_slice(&scratch.added);
    let nodes = &mut scratch.nodes;
    let closed = state::close(g, child, &scratch.added, &mut scratch.stack, |v| {
        nodes.push(v)
    });
    let c_mem = mem + mv.block + g.delta(mv.w) + closed;
    let mut found = descends(g, reach, &scratch.nodes) == Some(true);
    if !found && depth + 1 < MAX_MOVES {
        let mut next = std::mem::take(&mut scratch.cands[depth + 1]);
        moves::candidates(g, reach, &scratch.sets[depth + 1], &mut next);
        next.retain(|m| has(reach.anc(m.w), mv.w));
        scratch.cands[depth + 1] = next;
        for j in 0..scratch.cands[depth + 1].len() {
            if valley(g, reach, scratch, depth + 1, j, c_mem, allowance) {
                found = true;
                break;
            }
        }
    }
    scratch.nodes.truncate(mark);
    found
}

/// Whether every set of `nodes` closed under descendants (within `nodes`)
/// has a delta sum `<= 0`; `None` if there are too many positive nodes to
/// tell. Such a set's positive nodes `P` force in every node of `nodes`
/// descending from one of them, so its sum is at most `sum(P)` plus the
/// deltas of the non-positive nodes descending from `P`; every non-empty
/// `P` is tried (a set without positive nodes sums to `<= 0`).
fn descends(g: &Graph, reach: &Reach, nodes: &[NodeIdx]) -> Option<bool> {
    let positive: Vec<NodeIdx> = nodes.iter().copied().filter(|&v| g.delta(v) > 0).collect();
    if positive.len() > MAX_POSITIVE {
        return None;
    }
    // Per non-positive node: its delta and which positive nodes it descends from.
    let below: Vec<(i64, u32)> = nodes
        .iter()
        .filter(|&&v| g.delta(v) <= 0)
        .map(|&y| {
            let mask = positive
                .iter()
                .enumerate()
                .filter(|&(_, &p)| has(reach.anc(y), p))
                .fold(0u32, |m, (k, _)| m | 1 << k);
            (g.delta(y), mask)
        })
        .collect();
    let worst = (1u32..1 << positive.len())
        .map(|p| {
            let up: i64 = (0..positive.len())
                .filter(|&k| p >> k & 1 == 1)
                .map(|k| g.delta(positive[k]))
                .sum();
            let down: i64 = below
                .iter()
                .filter(|(_, m)| m & p != 0)
                .map(|(d, _)| d)
                .sum();
            up + down
        })
        .max()
        .unwrap_or(0);
    Some(worst <= 0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::corpus::program::{AllocEncoding, TensorProgram};

    /// A chain of ops with the given output sizes.
    fn chain(sizes: &[u64]) -> Graph {
        let mut p = TensorProgram::new();
        let mut t = p.op1("op0", &[], sizes[0]);
        for (i, &s) in sizes.iter().enumerate().skip(1) {
            t = p.op1(format!("op{i}"), &[t], s);
        }
        p.to_graph(AllocEncoding::Anchored).unwrap()
    }

    fn descending(g: &Graph, ran: usize, allowance: i64) -> Option<NodeIdx> {
        let reach = Reach::new(g);
        let mut set = vec![0u64; state::words(g.node_count())];
        let order: Vec<NodeIdx> = g.nodes().collect();
        let mut mem = 0;
        for &v in &order[..ran] {
            state::add(&mut set, v);
            mem += g.delta(v);
        }
        let mut cands = Vec::new();
        moves::candidates(g, &reach, &set, &mut cands);
        let i = find(
            g,
            &reach,
            &set,
            &cands,
            mem,
            allowance,
            &mut Scratch::default(),
        )?;
        Some(cands[i].w)
    }

    #[test]
    fn a_smaller_output_that_frees_its_input_descends_within_the_allowance() {
        // ALLOC 8, op0, | ALLOC 3, op1, FREE 8: memory 8 -> 3, block peak 11.
        let g = chain(&[8, 3]);
        assert_eq!(descending(&g, 2, 11), Some(3));
        assert_eq!(
            descending(&g, 2, 10),
            None,
            "the block would raise the peak"
        );
        // A larger output does not descend, whatever the allowance.
        let g = chain(&[3, 8]);
        assert_eq!(descending(&g, 2, 100), None);
    }

    #[test]
    fn a_valley_of_two_moves_descends_if_it_ends_below_its_start() {
        // Memory 8, then up to 9 (hill 17), then down to 2 (hill 11).
        let g = chain(&[8, 9, 2]);
        assert_eq!(descending(&g, 2, 17), Some(3));
        assert_eq!(
            descending(&g, 2, 16),
            None,
            "the hill is above the allowance"
        );
        // Ending at 9, above the start: no valley.
        let g = chain(&[8, 9, 9]);
        assert_eq!(descending(&g, 2, 100), None);
        // Three moves: 8 -> 9 -> 10 -> 1.
        let g = chain(&[8, 9, 10, 1]);
        assert_eq!(descending(&g, 2, 19), Some(3));
        assert_eq!(descending(&g, 2, 18), None, "the second hill is 19");
        // Four moves would be needed: 8 -> 9 -> 10 -> 11 -> 1.
        let g = chain(&[8, 9, 10, 11, 1]);
        assert_eq!(descending(&g, 2, 100), None);
    }

    #[test]
    fn a_free_that_waits_for_another_reader_does_not_count() {
        // op1 and op2 both read op0's output: running op1 frees nothing.
        let mut p = TensorProgram::new();
        let a = p.op1("op0", &[], 8);
        p.op1("op1", &[a], 3);
        p.op1("op2", &[a], 3);
        let g = p.to_graph(AllocEncoding::Anchored).unwrap();
        assert_eq!(descending(&g, 2, 100), None);
    }
}
