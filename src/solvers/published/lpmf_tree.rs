//! `inductor-lpmf`'s ready set when it is wide: Inductor's choice found in
//! O(log m) instead of by a scan of every ready op.
//!
//! Inductor takes the ready op minimising `(max(live + size, peak), size -
//! to_free, op)`. The ops with `size <= peak - live` all tie on the first
//! part (it is `peak`) and beat every other, so the choice is the least
//! `(size - to_free, op)` among the ready ops of size at most `peak - live`,
//! or, if there is none, the least `(size, size - to_free, op)` of all.
//! Two min segment trees over every op, in order of size, answer both.

/// The ready ops in two min segment trees over all ops in `(size, op)`
/// order: one holding `(size - to_free, op)` for a prefix query (ops up to
/// a size), one holding `(size, size - to_free, op)` for the overall least.
pub(super) struct LpmfTree {
    /// Each op's leaf.
    leaf_of: Vec<u32>,
    /// The size of the op at each leaf, ascending.
    sizes: Vec<i64>,
    fit: MinTree<(i64, u32)>,
    any: MinTree<(i64, i64, u32)>,
}

/// Marks an empty leaf's op.
const NONE: u32 = u32::MAX;

impl LpmfTree {
    /// No op ready; `sizes[op]` is the bytes each op defines (not negative).
    pub(super) fn new(sizes: &[i64]) -> Self {
        debug_assert!(sizes.iter().all(|&s| s >= 0), "negative bytes defined");
        let by_size = super::inductor::ops_by_key(sizes);
        let mut leaf_of = vec![0u32; sizes.len()];
        for (leaf, &op) in by_size.iter().enumerate() {
            leaf_of[op as usize] = leaf as u32;
        }
        LpmfTree {
            leaf_of,
            sizes: by_size.iter().map(|&op| sizes[op as usize]).collect(),
            fit: MinTree::new(sizes.len(), (i64::MAX, NONE)),
            any: MinTree::new(sizes.len(), (i64::MAX, i64::MAX, NONE)),
        }
    }

    /// Makes `op` ready, or changes its `size - to_free` if it is.
    pub(super) fn set(&mut self, op: u32, net: i64) {
        let leaf = self.leaf_of[op as usize] as usize;
        self.fit.set(leaf, (net, op));
        self.any.set(leaf, (self.sizes[leaf], net, op));
    }

    /// Whether `op` is ready.
    pub(super) fn contains(&self, op: u32) -> bool {
        self.fit.get(self.leaf_of[op as usize] as usize).1 != NONE
    }

    /// Removes and returns Inductor's choice when `room = peak - live`
    /// bytes fit under the peak so far; `None` when no op is ready.
    pub(super) fn pop(&mut self, room: i64) -> Option<u32> {
        let fitting = self.sizes.partition_point(|&s| s <= room);
        let (_, mut op) = self.fit.min_below(fitting);
        if op == NONE {
            op = self.any.min().2;
        }
        if op == NONE {
            return None;
        }
        let leaf = self.leaf_of[op as usize] as usize;
        self.fit.set(leaf, self.fit.empty);
        self.any.set(leaf, self.any.empty);
        Some(op)
    }
}

/// A min segment tree over `len` leaves, all `empty` at first.
struct MinTree<T> {
    /// Leaves start here (a power of two).
    base: usize,
    nodes: Vec<T>,
    empty: T,
}

impl<T: Copy + Ord> MinTree<T> {
    fn new(len: usize, empty: T) -> Self {
        let base = len.next_power_of_two();
        MinTree {
            base,
            nodes: vec![empty; 2 * base],
            empty,
        }
    }

    fn get(&self, leaf: usize) -> T {
        self.nodes[self.base + leaf]
    }

    fn set(&mut self, leaf: usize, value: T) {
        let mut k = self.base + leaf;
        self.nodes[k] = value;
        while k > 1 {
            k /= 2;
            self.nodes[k] = self.nodes[2 * k].min(self.nodes[2 * k + 1]);
        }
    }

    /// The least value of leaves `0..end`.
    fn min_below(&self, end: usize) -> T {
        let (mut lo, mut hi) = (self.base, self.base + end);
        let mut least = self.empty;
        while lo < hi {
            if lo % 2 == 1 {
                least = least.min(self.nodes[lo]);
                lo += 1;
            }
            if hi % 2 == 1 {
                hi -= 1;
                least = least.min(self.nodes[hi]);
            }
            lo /= 2;
            hi /= 2;
        }
        least
    }

    /// The least value of all leaves.
    fn min(&self) -> T {
        self.nodes[1]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Rng;

    /// Against a scan of the ready ops with Inductor's key.
    #[test]
    fn pops_what_a_scan_would_choose() {
        let mut rng = Rng::new(5);
        for m in [1usize, 2, 3, 17, 64, 300] {
            let sizes: Vec<i64> = (0..m).map(|_| rng.below(20) as i64).collect();
            let mut tree = LpmfTree::new(&sizes);
            let mut net = vec![0i64; m];
            let mut ready: Vec<u32> = Vec::new();
            for _ in 0..4 * m {
                match rng.below(3) {
                    0 => {
                        let op = rng.below(m as u64) as u32;
                        net[op as usize] = sizes[op as usize] - rng.below(25) as i64;
                        if !ready.contains(&op) {
                            ready.push(op);
                        }
                        tree.set(op, net[op as usize]);
                    }
                    _ => {
                        let (live, peak) = (rng.below(30) as i64, 30);
                        let key = |op: u32| {
                            let size = sizes[op as usize];
                            ((live + size).max(peak), net[op as usize], op)
                        };
                        let scanned = ready.iter().copied().min_by_key(|&op| key(op));
                        ready.retain(|&op| Some(op) != scanned);
                        assert_eq!(tree.pop(peak - live), scanned);
                    }
                }
                for op in 0..m as u32 {
                    assert_eq!(tree.contains(op), ready.contains(&op));
                }
            }
        }
    }
}
