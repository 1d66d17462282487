//! `seed-greedy`: the source article's heap scheduler, replicated exactly.
//!
//! The article's Python pushes `(changes[i], types[i], i)` on a `heapq` and
//! always pops the smallest: most negative delta first, then FREE (0) before
//! compute (1) before ALLOC (2), then the smallest id. Because ids are unique
//! the tuple order is total, so the schedule is fully determined.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use super::kahn::{list_schedule, ReadySet};
use super::sorted_run::SortedRun;
use super::{Outcome, Scheduler, SolveContext};
use crate::graph::{Graph, NodeIdx};
use crate::prefetch::prefetch;

/// The article's greedy: a binary heap keyed by `(delta, type, id)`.
///
/// Wrong by design on the article's own encoding, where an ALLOC has no
/// predecessor: every ALLOC is ready at the start and, once the FREEs and
/// computes run out, they are run smallest-first long before their op needs
/// them. On a floating-encoding chain of 20 ops with shrinking tensors it
/// peaks at 210 units where `moves-greedy` needs 39 (`tests/rules.rs`).
///
/// # Complexity
/// O((n + m) log n).
#[derive(Debug, Default, Clone, Copy)]
pub struct SeedGreedy;

/// `(delta, type, id rank)` packed so that integer order is tuple order:
/// bits 64..128 hold the delta with its sign bit flipped, bits 32..34 the
/// type, bits 0..32 the rank of the node's id.
fn pack(delta: i64, type_code: u8, rank: u32) -> u128 {
    let biased = super::enc_int(delta);
    ((biased as u128) << 64) | ((type_code as u128) << 32) | rank as u128
}

fn rank_of(key: u128) -> u32 {
    key as u32
}

impl Scheduler for SeedGreedy {
    fn name(&self) -> String {
        "seed-greedy".into()
    }

    fn solve(&self, g: &Graph, ctx: &SolveContext) -> Outcome {
        match list_schedule(g, ArticleHeap::new(g), ctx) {
            Some(order) => Outcome::feasible(order),
            None => Outcome::timed_out(),
        }
    }
}

/// The article's heap as a ready set: the nodes ready at the start (every
/// ALLOC, in the article's encoding) are sorted once when the first node is
/// taken, later ones go to a binary heap ([`SortedRun`]).
struct ArticleHeap<'g> {
    g: &'g Graph,
    /// Rank -> node, by increasing original id; `None` when ids already
    /// follow program order.
    by_id: Option<Vec<NodeIdx>>,
    /// Node -> rank of its id, when `by_id` is known.
    rank: Option<Vec<u32>>,
    keys: SortedRun<u128, BinaryHeap<Reverse<u128>>>,
}

impl<'g> ArticleHeap<'g> {
    fn new(g: &'g Graph) -> Self {
        let by_id = g.indices_by_id();
        let rank = by_id.as_ref().map(|by_id| {
            let mut rank = vec![0u32; by_id.len()];
            for (r, &v) in by_id.iter().enumerate() {
                rank[v as usize] = r as u32;
            }
            rank
        });
        ArticleHeap {
            g,
            by_id,
            rank,
            keys: SortedRun::default(),
        }
    }

    #[inline]
    fn key(&self, v: NodeIdx) -> u128 {
        let rank = self.rank.as_ref().map_or(v, |t| t[v as usize]);
        pack(self.g.delta(v), self.g.kind(v).type_code(), rank)
    }

    #[inline]
    fn node(&self, k: u128) -> NodeIdx {
        self.by_id
            .as_ref()
            .map_or(rank_of(k), |t| t[rank_of(k) as usize])
    }
}

impl ReadySet for ArticleHeap<'_> {
    #[inline]
    fn push(&mut self, v: NodeIdx) {
        let k = self.key(v);
        self.keys.push(k);
    }

    #[inline]
    fn pop(&mut self) -> Option<NodeIdx> {
        let k = self.keys.pop()?;
        Some(self.node(k))
    }

    #[inline]
    fn ahead(&self, d: usize) -> Option<NodeIdx> {
        Some(self.node(self.keys.ahead(d)?))
    }

    #[inline]
    fn prefetch_push(&self, v: NodeIdx) {
        prefetch(self.g.deltas(), v as usize);
        prefetch(&self.g.kinds, v as usize);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packing_preserves_tuple_order() {
        let keys = [
            (i64::MIN, 2u8, 7u32),
            (-5, 0, 0),
            (-5, 0, 1),
            (0, 0, 9),
            (0, 1, 0),
            (0, 2, 0),
            (0, 2, u32::MAX),
            (1, 0, 0),
            (i64::MAX, 2, 3),
        ];
        for w in keys.windows(2) {
            assert!(w[0] < w[1]);
            assert!(pack(w[0].0, w[0].1, w[0].2) < pack(w[1].0, w[1].1, w[1].2));
        }
        assert_eq!(rank_of(pack(-3, 1, 42)), 42);
    }
}
