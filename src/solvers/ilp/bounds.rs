//! Lower bounds on the optimal peak that need no solver (F4 of docs/core.md).
//!
//! The final memory; and, for each node v, the buffers live in every
//! schedule once v has run: ALLOC v or an ancestor of v, FREE absent or a
//! strict descendant of v. The bound is the largest such sum, never below 0.

use crate::graph::{Graph, NodeKind};

/// Largest graph for which the per-node bound is computed (n² bits).
pub(crate) const F4_MAX_NODES: usize = 8192;

/// `max(0, final memory, max_v live(v))`; the per-node part only for graphs
/// of at most [`F4_MAX_NODES`] nodes.
///
/// # Complexity
/// O(n · m / 64) for the ancestor sets, O(a · n) for a ALLOCs.
pub(crate) fn lower_bound(g: &Graph) -> u64 {
    let n = g.node_count();
    let mut best = g.final_memory().max(0);
    if n == 0 || n > F4_MAX_NODES {
        return best as u64;
    }
    let words = n.div_ceil(64);
    // anc[v] holds v's strict ancestors.
    let mut anc = vec![0u64; n * words];
    for &v in g.topo_order() {
        for &p in g.preds(v) {
            let (vi, pi) = (v as usize, p as usize);
            for w in 0..words {
                let bits = anc[pi * words + w];
                anc[vi * words + w] |= bits;
            }
            anc[vi * words + pi / 64] |= 1 << (pi % 64);
        }
    }
    let has = |v: usize, u: usize| anc[v * words + u / 64] >> (u % 64) & 1 == 1;
    let mut live = vec![0i64; n];
    for a in g.nodes().filter(|&a| g.kind(a) == NodeKind::Alloc) {
        let a = a as usize;
        let free = g.partner(a as u32).map(|f| f as usize);
        for (v, l) in live.iter_mut().enumerate() {
            let after_alloc = v == a || has(v, a);
            let before_free = match free {
                Some(f) => has(f, v),
                None => true,
            };
            if after_alloc && before_free {
                *l += g.delta(a as u32);
            }
        }
    }
    best = best.max(live.into_iter().max().unwrap_or(0));
    best as u64
}
