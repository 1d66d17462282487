//! A min-heap that parks large keys in an unordered overflow.
//!
//! Some rules leave many ready nodes waiting until the very end (`-height`
//! defers every sink, `-unlocks` every node that unlocks nothing), so a plain
//! heap grows to a third of the graph and every pop pays for its depth. Here
//! a small [`QuadHeap`] holds the keys below a threshold and the rest wait
//! unordered: a push at or above the threshold costs O(1), and the overflow
//! is sorted only in chunks, smallest first, when the small heap runs dry.
//! Pops return exactly what one big heap would.

use super::quad_heap::QuadHeap;

/// Most keys the small heap holds before half of them move to the overflow.
const SMALL_MAX: usize = 1 << 12;

/// Min-heap of `u128` keys. Invariant: every key in `small` is at most
/// `threshold`, and every key in `overflow` is at least `threshold`.
#[derive(Debug)]
pub(super) struct TieredHeap {
    small: QuadHeap,
    overflow: Vec<u128>,
    threshold: u128,
}

impl Default for TieredHeap {
    fn default() -> Self {
        TieredHeap {
            small: QuadHeap::default(),
            overflow: Vec::new(),
            threshold: u128::MAX,
        }
    }
}

impl TieredHeap {
    /// Adds `k`.
    ///
    /// # Complexity
    /// O(log SMALL_MAX) amortized.
    #[inline]
    pub fn push(&mut self, k: u128) {
        if k >= self.threshold {
            self.overflow.push(k);
            return;
        }
        self.small.push(k);
        if self.small.len() > SMALL_MAX {
            self.spill();
        }
    }

    /// The smallest key.
    #[inline]
    pub fn peek(&mut self) -> Option<u128> {
        if self.small.len() == 0 {
            self.refill();
        }
        self.small.peek()
    }

    /// Removes and returns the smallest key.
    #[inline]
    pub fn pop(&mut self) -> Option<u128> {
        if self.small.len() == 0 {
            self.refill();
        }
        self.small.pop()
    }

    /// Moves the larger half of the small heap to the overflow.
    fn spill(&mut self) {
        let mut keys = self.small.take_all();
        let half = keys.len() / 2;
        keys.select_nth_unstable(half);
        self.threshold = keys[half];
        self.overflow.extend_from_slice(&keys[half..]);
        for &k in &keys[..half] {
            self.small.push(k);
        }
    }

    /// Moves the smallest chunk of the overflow (at least half of
    /// `SMALL_MAX`, at least an eighth of the overflow) into the small heap.
    fn refill(&mut self) {
        let chunk = (SMALL_MAX / 2).max(self.overflow.len() / 8);
        if self.overflow.len() <= chunk {
            self.threshold = u128::MAX;
            for k in self.overflow.drain(..) {
                self.small.push(k);
            }
            return;
        }
        self.overflow.select_nth_unstable(chunk);
        self.threshold = self.overflow[chunk];
        for k in self.overflow.drain(..chunk) {
            self.small.push(k);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Rng;
    use std::cmp::Reverse;
    use std::collections::BinaryHeap;

    /// Pops match a plain heap's under bursts of small and large keys.
    #[test]
    fn pops_like_one_heap() {
        let mut r = Rng::new(9);
        let mut h = TieredHeap::default();
        let mut reference = BinaryHeap::new();
        for step in 0..60_000u64 {
            let phase = (step / 7_000) % 3;
            if phase < 2 && r.chance(0.7) {
                let k = if r.chance(0.5) {
                    step as u128 + r.below(50) as u128
                } else {
                    (1u128 << 100) + r.below(1000) as u128
                };
                h.push(k);
                reference.push(Reverse(k));
            } else {
                assert_eq!(h.peek(), reference.peek().map(|x| x.0));
                assert_eq!(h.pop(), reference.pop().map(|x| x.0));
            }
        }
        while let Some(Reverse(k)) = reference.pop() {
            assert_eq!(h.pop(), Some(k));
        }
        assert_eq!(h.pop(), None);
    }
}
