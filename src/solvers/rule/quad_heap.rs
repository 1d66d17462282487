//! A 4-ary min-heap of `u128` keys.
//!
//! Ready sets of a million nodes do not fit in cache; a node's four
//! children share one 64-byte line, so a pop touches half as many lines as
//! in a binary heap. A pop walks the hole down to a leaf along the smallest
//! children, then sifts the last key up from there (it usually belongs near
//! the bottom), as `std`'s `BinaryHeap` does.

/// Min-heap of distinct or equal `u128` keys.
#[derive(Debug, Default)]
pub(super) struct QuadHeap {
    keys: Vec<u128>,
}

impl QuadHeap {
    /// Number of keys.
    pub fn len(&self) -> usize {
        self.keys.len()
    }

    /// Removes every key, in no particular order.
    pub fn take_all(&mut self) -> Vec<u128> {
        std::mem::take(&mut self.keys)
    }

    /// The smallest key.
    #[inline]
    pub fn peek(&self) -> Option<u128> {
        self.keys.first().copied()
    }

    /// Adds `k`.
    ///
    /// # Complexity
    /// O(log size).
    #[inline]
    pub fn push(&mut self, k: u128) {
        self.keys.push(k);
        self.sift_up(self.keys.len() - 1);
    }

    /// Removes and returns the smallest key.
    ///
    /// # Complexity
    /// O(log size).
    #[inline]
    pub fn pop(&mut self) -> Option<u128> {
        let last = self.keys.pop()?;
        let Some(&top) = self.keys.first() else {
            return Some(last);
        };
        let n = self.keys.len();
        let mut hole = 0;
        loop {
            let first = 4 * hole + 1;
            if first >= n {
                break;
            }
            let end = (first + 4).min(n);
            let mut c = first;
            for i in first + 1..end {
                if self.keys[i] < self.keys[c] {
                    c = i;
                }
            }
            self.keys[hole] = self.keys[c];
            hole = c;
        }
        self.keys[hole] = last;
        self.sift_up(hole);
        Some(top)
    }

    #[inline]
    fn sift_up(&mut self, mut i: usize) {
        let k = self.keys[i];
        while i > 0 {
            let p = (i - 1) / 4;
            if self.keys[p] <= k {
                break;
            }
            self.keys[i] = self.keys[p];
            i = p;
        }
        self.keys[i] = k;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Rng;

    #[test]
    fn pops_in_order_with_interleaved_pushes() {
        let mut h = QuadHeap::default();
        let mut r = Rng::new(5);
        let mut reference = std::collections::BinaryHeap::new();
        for step in 0..5000 {
            if r.chance(0.6) || step < 10 {
                let k = r.below(300) as u128 * (1 << 70) + r.below(7) as u128;
                h.push(k);
                reference.push(std::cmp::Reverse(k));
            } else {
                assert_eq!(h.pop(), reference.pop().map(|x| x.0));
            }
            assert_eq!(h.peek(), reference.peek().map(|x| x.0));
        }
        while let Some(x) = reference.pop() {
            assert_eq!(h.pop(), Some(x.0));
        }
        assert_eq!(h.pop(), None);
    }
}
