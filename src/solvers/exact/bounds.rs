//! Admissible lower bounds (F4 and the final memory).
//!
//! After a node `v` has run, every buffer whose ALLOC is `v` or an ancestor
//! of `v`, and whose FREE is a strict descendant of `v` (or which is never
//! freed), is live in every schedule. [`Bounds::node`] is that sum per node
//! (the static F4 bound); its maximum, with the final memory, bounds the
//! optimum of the whole graph ([`Bounds::global`]).
//!
//! [`Bounds::state`] sharpens it for a downset `S`: after `v` (not in `S`)
//! has run, a buffer is certainly live if its ALLOC is in `S` or an ancestor
//! of `v`, and its FREE is a strict descendant of `v` or absent. So the
//! bound adds, to `node[v]`, the buffers live in `S` whose FREE descends from
//! `v` and whose ALLOC is not already counted. It never exceeds the best peak
//! of any completion of `S` (tested against brute force in
//! `tests/facts_f3_f4.rs`).

use super::moves::Reach;
use super::state::has;
use crate::graph::{Graph, NodeIdx};

/// One buffer: its ALLOC, its FREE (if any) and its size.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Buffer {
    alloc: NodeIdx,
    free: Option<NodeIdx>,
    size: i64,
}

/// Per-node F4 bounds and the data for per-state bounds.
pub(crate) struct Bounds {
    buffers: Vec<Buffer>,
    node: Vec<i64>,
    global: i64,
}

impl Bounds {
    /// # Complexity
    /// O(buffers * n) bit tests.
    pub(crate) fn new(g: &Graph, reach: &Reach) -> Self {
        let buffers: Vec<Buffer> = g
            .nodes()
            .filter(|&v| g.delta(v) > 0)
            .map(|a| Buffer {
                alloc: a,
                free: g.partner(a),
                size: g.delta(a),
            })
            .collect();
        let mut node = vec![0i64; g.node_count()];
        for b in &buffers {
            for v in g.nodes() {
                let after_alloc = v == b.alloc || has(reach.anc(v), b.alloc);
                let before_free = b.free.is_none_or(|f| has(reach.anc(f), v));
                if after_alloc && before_free {
                    node[v as usize] += b.size;
                }
            }
        }
        let global = node
            .iter()
            .copied()
            .chain([g.final_memory(), 0])
            .max()
            .unwrap_or(0);
        Bounds {
            buffers,
            node,
            global,
        }
    }

    /// The F4 bound of node `v`.
    #[cfg(test)]
    pub(crate) fn node(&self, v: NodeIdx) -> i64 {
        self.node[v as usize]
    }

    /// max(0, final memory, max_v node(v)): a bound on the whole graph's optimum.
    pub(crate) fn global(&self) -> i64 {
        self.global
    }

    /// A bound on the peak of every completion of downset `set`, from the
    /// nodes not yet run; `live` is scratch space. Returns at least
    /// `floor` (pass a bound already known, to skip nodes that cannot beat it).
    ///
    /// # Complexity
    /// O(n * live buffers) bit tests.
    pub(crate) fn state(
        &self,
        g: &Graph,
        reach: &Reach,
        set: &[u64],
        live: &mut Vec<Buffer>,
        floor: i64,
    ) -> i64 {
        live.clear();
        live.extend(
            self.buffers
                .iter()
                .filter(|b| has(set, b.alloc) && b.free.is_none_or(|f| !has(set, f))),
        );
        let total: i64 = live.iter().map(|b| b.size).sum();
        let mut best = floor;
        for v in g.nodes() {
            if has(set, v) || self.node[v as usize] + total <= best {
                continue;
            }
            let anc = reach.anc(v);
            let mut sum = self.node[v as usize];
            for b in live.iter() {
                let counted = has(anc, b.alloc);
                let before_free = b.free.is_none_or(|f| has(reach.anc(f), v));
                if !counted && before_free {
                    sum += b.size;
                }
            }
            best = best.max(sum);
        }
        best
    }
}

/// Scratch for [`Bounds::state`].
pub(crate) type LiveScratch = Vec<Buffer>;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::GraphBuilder;

    #[test]
    fn f4_counts_inputs_and_outputs_live_at_an_op() {
        // a(4) -> op1 -> b(ALLOC 6, anchored) -> op2 -> FREE a, FREE b.
        let mut bld = GraphBuilder::new();
        let a = bld.alloc(4, 0);
        let op1 = bld.op("op1");
        let b = bld.alloc(6, 1);
        let op2 = bld.op("op2");
        let fa = bld.free(0);
        let fb = bld.free(1);
        for (u, v) in [
            (a, op1),
            (op1, b),
            (b, op2),
            (op1, op2),
            (op2, fa),
            (op2, fb),
        ] {
            bld.edge(u, v);
        }
        let g = bld.build().unwrap();
        let reach = Reach::new(&g);
        let bounds = Bounds::new(&g, &reach);
        assert_eq!(bounds.node(op2 as u32), 10);
        assert_eq!(bounds.node(op1 as u32), 4);
        assert_eq!(bounds.global(), 10);
    }
}
