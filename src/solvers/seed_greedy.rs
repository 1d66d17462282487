//! `seed-greedy`: the source article's heap scheduler, replicated exactly.
//!
//! The article's Python pushes `(changes[i], types[i], i)` on a `heapq` and
//! always pops the smallest: most negative delta first, then FREE (0) before
//! compute (1) before ALLOC (2), then the smallest id. Because ids are unique
//! the tuple order is total, so the schedule is fully determined.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use super::{DeadlineTicker, Outcome, Scheduler, SolveContext};
use crate::graph::{Graph, NodeIdx};

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
    let biased = (delta as u64) ^ (1 << 63);
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
        // rank -> node and node -> rank, by increasing original id; `None`
        // when ids are 0..n in program order (rank == index).
        let by_id = g.indices_by_id();
        let rank_table = by_id.as_ref().map(|by_id| {
            let mut rank = vec![0u32; by_id.len()];
            for (r, &v) in by_id.iter().enumerate() {
                rank[v as usize] = r as u32;
            }
            rank
        });
        let key = |v: NodeIdx| {
            let rank = rank_table.as_ref().map_or(v, |t| t[v as usize]);
            pack(g.delta(v), g.kind(v).type_code(), rank)
        };
        let node = |k: u128| {
            by_id
                .as_ref()
                .map_or(rank_of(k), |t| t[rank_of(k) as usize])
        };

        let mut indegree: Vec<u32> = g.nodes().map(|v| g.preds(v).len() as u32).collect();
        let mut initial: Vec<u128> = g
            .nodes()
            .filter(|&v| indegree[v as usize] == 0)
            .map(key)
            .collect();
        initial.sort_unstable();
        let mut initial = initial.into_iter().peekable();
        let mut ready: BinaryHeap<Reverse<u128>> = BinaryHeap::new();
        let mut order = Vec::with_capacity(g.node_count());
        let mut ticker = DeadlineTicker::new(1 << 14);
        loop {
            let k = match (initial.peek(), ready.peek()) {
                (Some(&a), Some(&Reverse(b))) if b < a => ready.pop().map(|r| r.0),
                (Some(_), _) => initial.next(),
                (None, Some(_)) => ready.pop().map(|r| r.0),
                (None, None) => None,
            };
            let Some(k) = k else { break };
            if ticker.expired(ctx) {
                return Outcome::timed_out();
            }
            let u = node(k);
            order.push(u);
            for &v in g.succs(u) {
                indegree[v as usize] -= 1;
                if indegree[v as usize] == 0 {
                    ready.push(Reverse(key(v)));
                }
            }
        }
        Outcome::feasible(order)
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
