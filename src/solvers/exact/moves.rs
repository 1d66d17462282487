//! Moves (F2): commit to one node with delta <= 0, pulling in the positive
//! ancestors it still needs.
//!
//! By F2 a positive node (an ALLOC) can wait until just before its first
//! successor without raising the peak, so from a state `S` some optimal
//! completion starts with a block: the unexecuted ancestors of one node `w`
//! with delta <= 0, all of them positive, then `w`. [`candidates`]
//! lists exactly those `w` (the ones whose unexecuted ancestors are all
//! positive); the block's peak is `mem(S) + sum(block)`, reached just before
//! `w` runs.
//!
//! [`Reach`] holds the strict-ancestor bitset of every node (n^2 bits), which
//! both the moves and the bounds use.

use super::state::{self, has};
use crate::graph::{Graph, NodeIdx};
use crate::solvers::SolveContext;

/// Strict ancestors of every node, as bitsets.
pub(crate) struct Reach {
    pub(crate) words: usize,
    anc: Vec<u64>,
    /// Nodes with delta <= 0.
    pub(crate) nonpos: Vec<u64>,
}

impl Reach {
    /// Bytes `Reach::new` would allocate for `n` nodes.
    pub(crate) fn bytes_for(n: usize) -> u64 {
        (n as u64) * (state::words(n) as u64) * 8
    }

    /// # Complexity
    /// O(m * n / 64) time, n^2 / 8 bytes.
    pub(crate) fn new(g: &Graph) -> Self {
        Self::new_until(g, || false).expect("never stopped")
    }

    /// The ancestor bitsets of `g` if they take at most 1/8 of the memory
    /// budget (the rest is left to the search) and are built before the
    /// deadline; else `None`.
    pub(crate) fn within(g: &Graph, ctx: &SolveContext) -> Option<Self> {
        if Self::bytes_for(g.node_count()) > ctx.budget.max_memory_bytes / 8 {
            return None;
        }
        Self::new_until(g, || ctx.expired())
    }

    /// [`Reach::new`], or `None` as soon as `stop()` says so; it is asked
    /// every 1,024 nodes (on large graphs the bitsets take hundreds of
    /// milliseconds: a time limit must be able to cut them).
    pub(crate) fn new_until(g: &Graph, mut stop: impl FnMut() -> bool) -> Option<Self> {
        const STOP_PERIOD: usize = 1024;
        let n = g.node_count();
        let words = state::words(n);
        let mut anc = vec![0u64; n * words];
        for (i, &v) in g.topo_order().iter().enumerate() {
            if i % STOP_PERIOD == 0 && stop() {
                return None;
            }
            let vi = v as usize * words;
            for &p in g.preds(v) {
                let pi = p as usize * words;
                for k in 0..words {
                    let x = anc[pi + k];
                    anc[vi + k] |= x;
                }
                anc[vi + (p >> 6) as usize] |= 1 << (p & 63);
            }
        }
        let mut nonpos = vec![0u64; words];
        for v in g.nodes() {
            if g.delta(v) <= 0 {
                state::add(&mut nonpos, v);
            }
        }
        Some(Reach { words, anc, nonpos })
    }

    /// Strict ancestors of `v`.
    #[inline]
    pub(crate) fn anc(&self, v: NodeIdx) -> &[u64] {
        let i = v as usize * self.words;
        &self.anc[i..i + self.words]
    }

    /// Whether every node with delta <= 0 is in `set` (then only positive
    /// nodes remain, and they all run at the end).
    pub(crate) fn all_nonpos_done(&self, set: &[u64]) -> bool {
        self.nonpos.iter().zip(set).all(|(&m, &s)| m & !s == 0)
    }
}

/// One move from a state: the node committed to and its block's delta sum.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Move {
    pub(crate) w: NodeIdx,
    /// Sum of the deltas of the positive ancestors still to run (>= 0).
    pub(crate) block: i64,
}

/// Lists the moves of `set` into `out`, in increasing node index.
///
/// # Complexity
/// O(n * (in-degree + n / 64)) per call.
pub(crate) fn candidates(g: &Graph, reach: &Reach, set: &[u64], out: &mut Vec<Move>) {
    out.clear();
    for w in g.nodes() {
        if g.delta(w) > 0 || has(set, w) {
            continue;
        }
        // Quick filter: a non-positive unexecuted predecessor rules w out.
        if g.preds(w).iter().any(|&p| !has(set, p) && g.delta(p) <= 0) {
            continue;
        }
        let anc = reach.anc(w);
        let blocked = anc
            .iter()
            .zip(set)
            .zip(&reach.nonpos)
            .any(|((&a, &s), &np)| a & !s & np != 0);
        if blocked {
            continue;
        }
        let mut block = 0;
        for (k, (&a, &s)) in anc.iter().zip(set).enumerate() {
            let mut x = a & !s;
            while x != 0 {
                let b = x.trailing_zeros();
                block += g.delta((k as u32) << 6 | b);
                x &= x - 1;
            }
        }
        out.push(Move { w, block });
    }
}

/// Adds the block of `w` and `w` to `set`; calls `added` on each new node
/// (block first, in index order, then `w`).
pub(crate) fn apply(reach: &Reach, set: &mut [u64], w: NodeIdx, mut added: impl FnMut(NodeIdx)) {
    let anc = reach.anc(w);
    for k in 0..set.len() {
        let mut x = anc[k] & !set[k];
        set[k] |= x;
        while x != 0 {
            let b = x.trailing_zeros();
            added((k as u32) << 6 | b);
            x &= x - 1;
        }
    }
    state::add(set, w);
    added(w);
}

/// A node order written move by move: the F1 closure of the empty set,
/// then per move its block (in the graph's topological order), its node and
/// the closure that follows; the positive nodes still missing run last.
pub(crate) struct MoveOrder<'a> {
    g: &'a Graph,
    reach: &'a Reach,
    /// Each node's position in the graph's topological order.
    pos: Vec<u32>,
    set: Vec<u64>,
    order: Vec<NodeIdx>,
    stack: Vec<NodeIdx>,
}

impl<'a> MoveOrder<'a> {
    /// The closure of the empty set, written.
    pub(crate) fn new(g: &'a Graph, reach: &'a Reach) -> Self {
        let n = g.node_count();
        let mut w = MoveOrder {
            g,
            reach,
            pos: crate::graph::analysis::positions(g.topo_order(), n),
            set: vec![0u64; state::words(n)],
            order: Vec::with_capacity(n),
            stack: Vec::new(),
        };
        let order = &mut w.order;
        state::close_empty(g, &mut w.set, &mut w.stack, |v| order.push(v));
        w
    }

    /// The nodes written so far, as a bitset.
    pub(crate) fn set(&self) -> &[u64] {
        &self.set
    }

    /// Writes the move of `w`: its block, `w`, then the closure.
    pub(crate) fn run(&mut self, w: NodeIdx) {
        let mut block = Vec::new();
        apply(self.reach, &mut self.set, w, |v| block.push(v));
        let seeds = block.clone();
        block.pop(); // w runs after its block
        block.sort_by_key(|&v| self.pos[v as usize]);
        self.order.extend(block);
        self.order.push(w);
        let order = &mut self.order;
        state::close(self.g, &mut self.set, &seeds, &mut self.stack, |v| {
            order.push(v)
        });
    }

    /// The whole order: the positive nodes left run last, in topological
    /// order.
    pub(crate) fn finish(mut self) -> Vec<NodeIdx> {
        let g = self.g;
        let mut rest: Vec<NodeIdx> = g.nodes().filter(|&v| !has(&self.set, v)).collect();
        rest.sort_by_key(|&v| self.pos[v as usize]);
        self.order.extend(rest);
        self.order
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::GraphBuilder;

    #[test]
    fn a_move_pulls_in_the_allocs_its_op_needs() {
        // ALLOC a(3) -> op1 ; ALLOC b(2) -> op2 ; op1 -> op2.
        let mut bld = GraphBuilder::new();
        let a = bld.alloc(3, 0) as u32;
        let op1 = bld.op("op1") as u32;
        let b = bld.alloc(2, 1) as u32;
        let op2 = bld.op("op2") as u32;
        bld.edge(a as i64, op1 as i64);
        bld.edge(b as i64, op2 as i64);
        bld.edge(op1 as i64, op2 as i64);
        let g = bld.build().unwrap();
        let reach = Reach::new(&g);
        let mut set = vec![0u64; 1];
        let mut out = Vec::new();
        candidates(&g, &reach, &set, &mut out);
        assert_eq!(out, vec![Move { w: op1, block: 3 }]);
        let mut seen = Vec::new();
        apply(&reach, &mut set, op1, |v| seen.push(v));
        assert_eq!(seen, vec![a, op1]);
        candidates(&g, &reach, &set, &mut out);
        assert_eq!(out, vec![Move { w: op2, block: 2 }]);
        let _ = b;
    }
}
