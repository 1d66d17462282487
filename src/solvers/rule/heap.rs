//! A binary min-heap of encoded keys stored in one flat arena.
//!
//! Keys have a run-time length (one word per rule term, plus id and index),
//! so they live in `words`, `stride` words per slot; the heap orders slot
//! numbers. Each slot also carries its node and a version stamp, which the
//! schedulers use as a lazy heap: re-keying a node pushes a new entry with a
//! new version, and stale entries are skipped when popped. Freed slots are
//! reused, so the arena stays as large as the heap ever was.

use crate::graph::NodeIdx;

pub(super) struct KeyHeap {
    stride: usize,
    words: Vec<u64>,
    meta: Vec<(NodeIdx, u32)>,
    /// Slots in heap order, each with its key's first three words inline
    /// (every key has at least three: a term, id, index), so most
    /// comparisons end without touching the arena.
    heap: Vec<([u64; 3], u32)>,
    free: Vec<u32>,
}

impl KeyHeap {
    pub fn new(stride: usize, capacity: usize) -> Self {
        KeyHeap {
            stride,
            words: Vec::with_capacity(stride * capacity),
            meta: Vec::with_capacity(capacity),
            heap: Vec::with_capacity(capacity),
            free: Vec::new(),
        }
    }

    #[inline]
    fn key(&self, slot: u32) -> &[u64] {
        let s = slot as usize * self.stride;
        &self.words[s..s + self.stride]
    }

    #[inline]
    fn less(&self, a: &([u64; 3], u32), b: &([u64; 3], u32)) -> bool {
        match a.0.cmp(&b.0) {
            std::cmp::Ordering::Less => true,
            std::cmp::Ordering::Greater => false,
            std::cmp::Ordering::Equal => self.stride > 3 && self.key(a.1)[3..] < self.key(b.1)[3..],
        }
    }

    /// Pushes an entry for `(node, version)` whose key `fill` writes.
    ///
    /// # Complexity
    /// O(stride log size).
    pub fn push(&mut self, node: NodeIdx, version: u32, fill: impl FnOnce(&mut [u64])) {
        let slot = match self.free.pop() {
            Some(s) => {
                self.meta[s as usize] = (node, version);
                s
            }
            None => {
                self.words.resize(self.words.len() + self.stride, 0);
                self.meta.push((node, version));
                (self.meta.len() - 1) as u32
            }
        };
        let s = slot as usize * self.stride;
        fill(&mut self.words[s..s + self.stride]);
        let head = [self.words[s], self.words[s + 1], self.words[s + 2]];
        self.heap.push((head, slot));
        let mut i = self.heap.len() - 1;
        while i > 0 {
            let p = (i - 1) / 2;
            if !self.less(&self.heap[i], &self.heap[p]) {
                break;
            }
            self.heap.swap(i, p);
            i = p;
        }
    }

    /// Removes the smallest entry; returns its `(node, version)`.
    ///
    /// # Complexity
    /// O(stride log size).
    pub fn pop(&mut self) -> Option<(NodeIdx, u32)> {
        let (_, top) = *self.heap.first()?;
        let last = self.heap.pop().expect("non-empty");
        if !self.heap.is_empty() {
            self.heap[0] = last;
            let n = self.heap.len();
            let mut i = 0;
            loop {
                let l = 2 * i + 1;
                if l >= n {
                    break;
                }
                let r = l + 1;
                let c = if r < n && self.less(&self.heap[r], &self.heap[l]) {
                    r
                } else {
                    l
                };
                if !self.less(&self.heap[c], &self.heap[i]) {
                    break;
                }
                self.heap.swap(i, c);
                i = c;
            }
        }
        self.free.push(top);
        Some(self.meta[top as usize])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Rng;

    #[test]
    fn pops_in_key_order() {
        let mut h = KeyHeap::new(3, 4);
        let mut r = Rng::new(3);
        let mut keys: Vec<(u64, u64)> = (0..500).map(|i| (r.below(20), i)).collect();
        for &(a, b) in &keys {
            h.push(b as u32, 0, |w| {
                w[0] = a;
                w[1] = b;
                w[2] = 0;
            });
        }
        keys.sort();
        let popped: Vec<u32> = std::iter::from_fn(|| h.pop().map(|(v, _)| v)).collect();
        assert_eq!(
            popped,
            keys.iter().map(|&(_, b)| b as u32).collect::<Vec<_>>()
        );
    }
}
