//! A ready queue of `u128` keys for list schedulers where many nodes are
//! ready at the start (every ALLOC, in the article's floating encoding).
//!
//! Keys pushed before the first pop are sorted once into a run; keys pushed
//! later go to a heap, and each pop takes the smaller of the two heads.
//! Sorting the initial keys is cheaper than heaping them, and the sorted run
//! tells the loop which nodes it pops next (a prefetch hint). Shared by
//! `seed-greedy` (a binary heap) and the `rule:` queues (a tiered heap).

use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// A min-heap of `u128` keys.
pub(crate) trait MinHeap: Default {
    /// Adds `k`.
    fn push(&mut self, k: u128);
    /// Removes and returns the smallest key.
    fn pop(&mut self) -> Option<u128>;
    /// The smallest key (`&mut`: a heap may reorganize to find it).
    fn peek(&mut self) -> Option<u128>;
    /// A guess at the key `d` pops from now, when the heap can tell cheaply.
    #[inline]
    fn ahead(&self, _d: usize) -> Option<u128> {
        None
    }
}

impl MinHeap for BinaryHeap<Reverse<u128>> {
    #[inline]
    fn push(&mut self, k: u128) {
        BinaryHeap::push(self, Reverse(k));
    }
    #[inline]
    fn pop(&mut self) -> Option<u128> {
        BinaryHeap::pop(self).map(|r| r.0)
    }
    #[inline]
    fn peek(&mut self) -> Option<u128> {
        BinaryHeap::peek(self).map(|r| r.0)
    }
}

/// The keys ready at the start, sorted once, then a heap `H` for the rest.
#[derive(Debug, Default)]
pub(crate) struct SortedRun<H> {
    initial: Vec<u128>,
    next_initial: usize,
    started: bool,
    heap: H,
}

impl<H: MinHeap> SortedRun<H> {
    /// Adds `k`: to the initial run before the first pop, else to the heap.
    #[inline]
    pub fn push(&mut self, k: u128) {
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
    pub fn pop(&mut self) -> Option<u128> {
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
    pub fn ahead(&self, d: usize) -> Option<u128> {
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
        let mut q: SortedRun<BinaryHeap<Reverse<u128>>> = SortedRun::default();
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
