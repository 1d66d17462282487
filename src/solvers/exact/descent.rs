//! Descending moves: a move that lowers the memory for everything after it,
//! and whose block stays within a peak every completion reaches anyway, is
//! taken at once (the other moves of the state are not tried): a dominance
//! rule in the spirit of F1, the valley half of Liu's hill-valley segments.
//!
//! Let `S` be an F1-closed state with peak so far `p`, and `lb` a lower
//! bound on the peak of every completion of `S`. A move (block `B` of
//! positive nodes, then `w`) followed by its F1 closure `C` runs the set
//! `M = B + w + C`. Suppose
//! 1. `mem(S) + sum(B) <= max(p, lb)`, and
//! 2. `sum(B) + sum(delta(x))` over the `x` in `{w} + C` that descend from
//!    every node of `B` is `<= 0`.
//!
//! Then some best completion of `S` starts with `M`. Take any completion
//! `σ` of `S` and move `M`'s nodes to its front (block, `w`, closure), the
//! rest in `σ`'s order. It is valid: every node of `M` has its predecessors
//! in `S` or earlier in `M`. While `M` runs the memory is at most
//! `mem(S) + sum(B) <= max(p, lb) <= max(p, peak(σ))` (after the block only
//! non-positive nodes run). After `M` and some nodes `P` of the rest, the
//! memory is `σ`'s memory right after the same nodes `P` plus the delta sum
//! of the set `U` of `M`'s nodes that `σ` runs later. `U` is closed under
//! descendants within `M`. If `U` holds no node of `B`, all its nodes have
//! delta `<= 0`; otherwise it holds every node of `{w} + C` that descends
//! from all of `B`, and some of `B`, so its sum is at most the sum in (2).
//! Either way the memory is at most `σ`'s, so the peak of the whole path
//! does not rise. The search goes on from `S + M`, which is F1-closed.

use super::moves::{self, Move, Reach};
use super::state::{self, has};
use crate::graph::{Graph, NodeIdx};

/// Scratch space for [`find`].
#[derive(Default)]
pub(crate) struct Scratch {
    set: Vec<u64>,
    added: Vec<NodeIdx>,
    stack: Vec<NodeIdx>,
}

/// The index in `cands` (the moves of `set`) of the first descending move,
/// if any; `mem` is the memory of `set` and `allowance` is `max(p, lb)`.
///
/// # Complexity
/// O(block + closure work) per candidate within the allowance.
pub(crate) fn find(
    g: &Graph,
    reach: &Reach,
    set: &[u64],
    cands: &[Move],
    mem: i64,
    allowance: i64,
    scratch: &mut Scratch,
) -> Option<usize> {
    let Scratch {
        set: child,
        added,
        stack,
    } = scratch;
    for (i, mv) in cands.iter().enumerate() {
        if mem + mv.block > allowance {
            continue;
        }
        child.clear();
        child.extend_from_slice(set);
        added.clear();
        moves::apply(reach, child, mv.w, |v| added.push(v));
        let block = &added[..added.len() - 1];
        let below_all = |x: NodeIdx| block.iter().all(|&b| has(reach.anc(x), b));
        let mut sum = mv.block + g.delta(mv.w);
        state::close(g, child, added, stack, |x| {
            if below_all(x) {
                sum += g.delta(x);
            }
        });
        if sum <= 0 {
            return Some(i);
        }
    }
    None
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
