//! A ready queue of integer keys for list schedulers where many nodes are
//! ready at the start (every ALLOC, in the article's floating encoding).
//!
//! Keys (`u64` or `u128`) pushed before the first pop are sorted once into a run; keys pushed
//! later go to a heap, and each pop takes the smaller of the two heads.
//! Sorting the initial keys is cheaper than heaping them, and the sorted run
//! tells the loop which nodes it pops next (a prefetch hint). Shared by
//! `seed-greedy` (a binary heap) and the `rule:` queues (a tiered heap).

use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// A min-heap of keys `K`.
pub(crate) trait MinHeap<K>: Default {
    /// Adds `k`.
    fn push(&mut self, k: K);
    /// Removes and returns the smallest key.
    fn pop(&mut self) -> Option<K>;
    /// The smallest key (`&mut`: a heap may reorganize to find it).
    fn peek(&mut self) -> Option<K>;
    /// A guess at the key `d` pops from now, when the heap can tell cheaply.
    #[inline]
    fn ahead(&self, _d: usize) -> Option<K> {
        None
    }
}

impl<K: Ord + Copy> MinHeap<K> for BinaryHeap<Reverse<K>> {
    #[inline]
    fn push(&mut self, k: K) {
        BinaryHeap::push(self, Reverse(k));
    }
    #[inline]
    fn pop(&mut self) -> Option<K> {
        BinaryHeap::pop(self).map(|r| r.0)
    }
    #[inline]
    fn peek(&mut self) -> Option<K> {
        BinaryHeap::peek(self).map(|r| r.0)
    }
}

/// The keys `K` ready at the start, sorted once, then a heap `H` for the rest.
#[derive(Debug)]
pub(crate) struct SortedRun<K, H> {
    initial: Vec<K>,
    next_initial: usize,
    started: bool,
    heap: H,
}

impl<K, H: Default> Default for SortedRun<K, H> {
    fn default() -> Self {
        SortedRun {
            initial: Vec::new(),
            next_initial: 0,
            started: false,
            heap: H::default(),
        }
    }
}

impl<K: Ord + Copy, H: MinHeap<K>> SortedRun<K, H> {
    /// Adds `k`: to the initial run before the first pop, else to the heap.
    #[inline]
    pub fn push(&mut self, k: K) {
        if self.started {
            self.heap.push(k);
        } else {
            self.initial.push(k);
        }
    }

    /// Removes and returns the smallest key; the first call sorts the run.
    ///
    /// # Complexity
    /// O(r log r) for the first call (r initial keys), then the heap's pop.
    #[inline]
    pub fn pop(&mut self) -> Option<K> {
        if !self.started {
            self.started = true;
            self.initial.sort_unstable();
        }
        match self.initial.get(self.next_initial) {
            None => self.heap.pop(),
            Some(&a) => match self.heap.peek() {
                Some(b) if b < a => self.heap.pop(),
                _ => {
                    self.next_initial += 1;
                    Some(a)
                }
            },
        }
    }

    /// A guess at the key `d` pops from now: from the sorted run, else from
    /// the heap (a prefetch hint; `None` before the first pop).
    #[inline]
    pub fn ahead(&self, d: usize) -> Option<K> {
        if !self.started {
            return None;
        }
        match self.initial.get(self.next_initial + d) {
            Some(&k) => Some(k),
            None => self.heap.ahead(d),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Rng;

    /// Pops match one binary heap's, with keys pushed before and after the
    /// first pop interleaving.
    #[test]
    fn pops_like_one_heap() {
        let mut r = Rng::new(3);
        let mut q: SortedRun<u128, BinaryHeap<Reverse<u128>>> = SortedRun::default();
        let mut reference = BinaryHeap::new();
        for _ in 0..500 {
            let k = r.below(10_000) as u128;
            q.push(k);
            reference.push(Reverse(k));
        }
        for step in 0..3_000 {
            if step % 3 == 0 {
                assert_eq!(q.pop(), reference.pop().map(|x| x.0));
            } else {
                let k = r.below(10_000) as u128;
                q.push(k);
                reference.push(Reverse(k));
            }
        }
        while let Some(Reverse(k)) = reference.pop() {
            assert_eq!(q.pop(), Some(k));
        }
        assert_eq!(q.pop(), None);
    }
}
