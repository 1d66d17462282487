//! A min-heap that parks large keys in an unordered overflow.
//!
//! Some rules leave many ready nodes waiting until the very end (`-height`
//! defers every sink, `-unlocks` every node that unlocks nothing), so a plain
//! heap grows to a third of the graph and every pop pays for its depth. Here
//! a small binary heap holds the keys below a threshold and the rest wait
//! unordered: a push at or above the threshold costs O(1). When the small
//! heap runs dry, the smallest chunk of the overflow is selected and sorted
//! into a run that pops from its end. Pops return exactly what one big heap
//! would.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use super::packed::KeyInt;
use crate::solvers::sorted_run::MinHeap;

/// Most keys the small heap holds before half of them move to the overflow.
const SMALL_MAX: usize = 1 << 12;

/// Min-heap of packed keys (`u64` or `u128`). Invariant: every key in `small` and `run` is at
/// most `threshold`, and every key in `overflow` is at least `threshold`.
#[derive(Debug)]
pub(super) struct TieredHeap<K> {
    small: BinaryHeap<Reverse<K>>,
    /// Sorted in decreasing order: the smallest key is last.
    run: Vec<K>,
    overflow: Vec<K>,
    threshold: K,
}

impl<K: KeyInt> Default for TieredHeap<K> {
    fn default() -> Self {
        TieredHeap {
            small: BinaryHeap::new(),
            run: Vec::new(),
            overflow: Vec::new(),
            threshold: K::MAX,
        }
    }
}

impl<K: KeyInt> MinHeap<K> for TieredHeap<K> {
    #[inline]
    fn push(&mut self, k: K) {
        TieredHeap::push(self, k);
    }
    #[inline]
    fn pop(&mut self) -> Option<K> {
        TieredHeap::pop(self)
    }
    #[inline]
    fn peek(&mut self) -> Option<K> {
        TieredHeap::peek(self)
    }
    #[inline]
    fn ahead(&self, d: usize) -> Option<K> {
        TieredHeap::ahead(self, d)
    }
}

impl<K: KeyInt> TieredHeap<K> {
    /// Adds `k`.
    ///
    /// # Complexity
    /// O(log SMALL_MAX) amortized.
    #[inline]
    pub fn push(&mut self, k: K) {
        if k >= self.threshold {
            self.overflow.push(k);
            return;
        }
        self.small.push(Reverse(k));
        if self.small.len() > SMALL_MAX {
            self.spill();
        }
    }

    /// The smallest key.
    #[inline]
    pub fn peek(&mut self) -> Option<K> {
        match (self.small.peek().map(|r| r.0), self.run.last()) {
            (Some(a), Some(&b)) => Some(a.min(b)),
            (Some(a), None) => Some(a),
            (None, Some(&b)) => Some(b),
            (None, None) => self.refill().then(|| self.run.last().copied())?,
        }
    }

    /// Removes and returns the smallest key.
    #[inline]
    pub fn pop(&mut self) -> Option<K> {
        match (self.small.peek().map(|r| r.0), self.run.last()) {
            (Some(a), Some(&b)) if b < a => self.run.pop(),
            (Some(_), _) => self.small.pop().map(|r| r.0),
            (None, Some(_)) => self.run.pop(),
            (None, None) => self.refill().then(|| self.run.pop())?,
        }
    }

    /// The key `d` places from the end of the sorted run, if the run is
    /// that long: a guess at a later pop (a prefetch hint).
    #[inline]
    pub fn ahead(&self, d: usize) -> Option<K> {
        let i = self.run.len().checked_sub(d + 1)?;
        Some(self.run[i])
    }

    /// Moves the larger half of the small heap, and the run's keys above
    /// the new threshold, to the overflow.
    fn spill(&mut self) {
        let mut keys: Vec<K> = std::mem::take(&mut self.small)
            .into_vec()
            .into_iter()
            .map(|r| r.0)
            .collect();
        let half = keys.len() / 2;
        keys.select_nth_unstable(half);
        let t = keys[half];
        self.threshold = t;
        self.overflow.extend_from_slice(&keys[half..]);
        self.small = keys[..half].iter().map(|&k| Reverse(k)).collect();
        let above = self.run.partition_point(|&k| k > t);
        self.overflow.extend(self.run.drain(..above));
    }

    /// When the small heap and the run are empty: sorts the smallest chunk
    /// of the overflow (at least half of `SMALL_MAX`, at least an eighth of
    /// the overflow) into the run; false if the overflow is empty too.
    #[cold]
    fn refill(&mut self) -> bool {
        if self.overflow.is_empty() {
            return false;
        }
        let chunk = (SMALL_MAX / 2).max(self.overflow.len() / 8);
        if self.overflow.len() <= chunk {
            self.threshold = K::MAX;
            std::mem::swap(&mut self.run, &mut self.overflow);
        } else {
            self.overflow.select_nth_unstable(chunk);
            self.threshold = self.overflow[chunk];
            self.run.extend(self.overflow.drain(..chunk));
        }
        self.run.sort_unstable_by(|a, b| b.cmp(a));
        true
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

    /// Random keys, push rates changing by phase: spills while a run is
    /// being popped, refills of every size.
    #[test]
    fn pops_like_one_heap_under_random_phases() {
        let mut r = Rng::new(17);
        let mut h = TieredHeap::default();
        let mut reference = BinaryHeap::new();
        for step in 0..300_000u64 {
            let push_rate = [0.9, 0.5, 0.2, 0.55][(step / 9_000 % 4) as usize];
            if r.chance(push_rate) {
                let k = r.below(1 << 20) as u128;
                h.push(k);
                reference.push(Reverse(k));
            } else {
                assert_eq!(h.pop(), reference.pop().map(|x| x.0));
            }
        }
        while let Some(Reverse(k)) = reference.pop() {
            assert_eq!(h.pop(), Some(k));
        }
    }
}
