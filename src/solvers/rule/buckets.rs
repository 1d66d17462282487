//! A bucket queue for static rules whose first term rises along every edge.
//!
//! When a rule's first term is `depth` or `-height`, every successor of a
//! node has a strictly larger first term than the node (it is deeper, and
//! lower). In a list schedule a node is pushed only when one of its
//! predecessors runs, so every push lands in a later bucket of the first
//! term than the bucket being popped. A bucket is therefore complete when
//! the scheduler reaches it: it is sorted once and popped in order, and no
//! heap is needed. Each node enters the queue once (the rule is static), so
//! the buckets are laid out in one array by counting their nodes first.
//! Within a bucket the first term is the same, so a slot holds only the
//! key's lower bits (the other terms and the id rank) in a `u64`, when they
//! fit. Pops return exactly what a heap of the same keys would.

use super::packed::{KeyInt, Packed};
use crate::graph::NodeIdx;
use crate::prefetch::prefetch;
use crate::solvers::kahn::ReadySet;

/// The ready set of a static rule whose first term is one of the per-node
/// columns `depth` or `height`, ascending or descending, and rises strictly
/// along every edge.
pub(super) struct Buckets<'a, K> {
    packed: Packed,
    static_keys: Vec<K>,
    /// The first term's column (`depth` or `height` of each node).
    column: &'a [u32],
    /// Largest value in `column` when it is read descending (`-height`).
    flip: Option<u32>,
    /// The keys without their first field, bucket `b` in
    /// `slots[start[b]..start[b + 1]]`.
    slots: Vec<u64>,
    /// Selects the bits below the first field.
    mask: u128,
    start: Vec<u32>,
    /// Next free slot of each bucket.
    fill: Vec<u32>,
    /// The bucket being popped (`usize::MAX` before the first pop), and its
    /// next and end slots.
    current: usize,
    next: usize,
    end: usize,
}

/// Whether keys packed by `packed` fit the buckets: the bits below the
/// first field must fit in a slot.
pub(super) fn fit(packed: &Packed) -> bool {
    packed.bits_after_first() <= u64::BITS
}

impl<'a, K: KeyInt> Buckets<'a, K> {
    /// A queue of the keys `static_keys` packed by `packed` (which must
    /// [`fit`]), bucketed by `column` (whose largest value is `max`), read
    /// descending if `descending`. The caller guarantees that the bucket
    /// rises strictly along every edge.
    ///
    /// # Complexity
    /// O(n + the column's range).
    pub fn new(
        packed: Packed,
        static_keys: Vec<K>,
        column: &'a [u32],
        max: u32,
        descending: bool,
    ) -> Self {
        debug_assert!(fit(&packed));
        let mask = u128::MAX
            .checked_shr(u128::BITS - packed.bits_after_first())
            .unwrap_or(0);
        debug_assert_eq!(column.iter().copied().max(), Some(max));
        let flip = descending.then_some(max);
        let mut start = vec![0u32; max as usize + 2];
        for &c in column {
            start[bucket(flip, c) + 1] += 1;
        }
        for b in 1..start.len() {
            start[b] += start[b - 1];
        }
        let fill = start[..start.len() - 1].to_vec();
        Buckets {
            packed,
            slots: vec![0; static_keys.len()],
            mask,
            static_keys,
            column,
            flip,
            start,
            fill,
            current: usize::MAX,
            next: 0,
            end: 0,
        }
    }
}

/// The bucket of a node whose column value is `c`.
#[inline]
fn bucket(flip: Option<u32>, c: u32) -> usize {
    flip.map_or(c, |max| max - c) as usize
}

impl<K: KeyInt> ReadySet for Buckets<'_, K> {
    #[inline]
    fn push(&mut self, v: NodeIdx) {
        let b = bucket(self.flip, self.column[v as usize]);
        debug_assert!(
            self.current == usize::MAX || b > self.current,
            "a push into a bucket already popped: the first term does not rise"
        );
        let slot = &mut self.fill[b];
        self.slots[*slot as usize] = (self.static_keys[v as usize].to_u128() & self.mask) as u64;
        *slot += 1;
    }

    #[inline]
    fn pop(&mut self) -> Option<NodeIdx> {
        while self.next == self.end {
            self.current = self.current.wrapping_add(1);
            if self.current >= self.fill.len() {
                self.current = self.fill.len(); // stays exhausted
                return None;
            }
            self.next = self.start[self.current] as usize;
            self.end = self.fill[self.current] as usize;
            self.slots[self.next..self.end].sort_unstable();
        }
        let k = self.slots[self.next];
        self.next += 1;
        Some(self.packed.node(k))
    }

    /// The node `d` pops from now, if it is in the bucket being popped.
    #[inline]
    fn ahead(&self, d: usize) -> Option<NodeIdx> {
        let i = self.next + d;
        (i < self.end).then(|| self.packed.node(self.slots[i]))
    }

    /// Prefetches the key and the column value of `v`.
    #[inline]
    fn prefetch_push(&self, v: NodeIdx) {
        prefetch(&self.static_keys, v as usize);
        prefetch(self.column, v as usize);
    }
}
