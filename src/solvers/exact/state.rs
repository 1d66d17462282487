//! Downsets as bitsets: the set operations, closure under F1, and the state
//! table (Zobrist hash + full bitset equality) shared by `exact` and `dp`.
//!
//! A state is the set of executed nodes, one bit per node in `words(n)`
//! 64-bit words. By F3 the memory after a set depends on the set alone, so
//! the set is the whole state. [`StateTable`] stores every set once, in one
//! flat word array; lookups go through a 64-bit Zobrist hash (kept
//! incrementally by the callers) and are confirmed by comparing the words.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use crate::graph::{Graph, NodeIdx};
use crate::rng::Rng;

/// Words needed for `n` bits.
pub(crate) fn words(n: usize) -> usize {
    n.div_ceil(64)
}

/// Whether bit `v` is set.
#[inline]
pub(crate) fn has(set: &[u64], v: NodeIdx) -> bool {
    set[(v >> 6) as usize] >> (v & 63) & 1 == 1
}

/// Sets bit `v`.
#[inline]
pub(crate) fn add(set: &mut [u64], v: NodeIdx) {
    set[(v >> 6) as usize] |= 1 << (v & 63);
}

/// Calls `f` on every set bit, in increasing order.
#[inline]
pub(crate) fn for_each(set: &[u64], mut f: impl FnMut(NodeIdx)) {
    for (i, &w) in set.iter().enumerate() {
        let mut w = w;
        while w != 0 {
            let b = w.trailing_zeros();
            f((i as u32) << 6 | b);
            w &= w - 1;
        }
    }
}

/// Random 64-bit keys per node; the hash of a set is the XOR of its keys.
/// Fixed seed: hashes (and so tie-breaking in tables) are reproducible.
pub(crate) struct Zobrist {
    keys: Vec<u64>,
}

impl Zobrist {
    pub(crate) fn new(n: usize) -> Self {
        let mut rng = Rng::new(0x5EED_D0D0_CAFE_F00D);
        Zobrist {
            keys: (0..n).map(|_| rng.next_u64()).collect(),
        }
    }
    #[inline]
    pub(crate) fn key(&self, v: NodeIdx) -> u64 {
        self.keys[v as usize]
    }
}

/// F1 closure: runs every ready node with delta <= 0 until none is left.
///
/// `seeds` are the nodes just added: only their successors can have become
/// ready (for the empty set, whose ready nodes are the sources, use
/// [`close_empty`]). Each node added is reported to `added` in the order it
/// ran (a valid order). Returns the sum of their deltas (<= 0).
///
/// # Complexity
/// O(sum of in-degrees of the nodes examined).
pub(crate) fn close(
    g: &Graph,
    set: &mut [u64],
    seeds: &[NodeIdx],
    stack: &mut Vec<NodeIdx>,
    mut added: impl FnMut(NodeIdx),
) -> i64 {
    let mut sum = 0;
    stack.clear();
    stack.extend_from_slice(seeds);
    run_successors(g, set, stack, &mut sum, &mut added);
    sum
}

/// Closure of the empty set: every source with delta <= 0, and so on.
pub(crate) fn close_empty(
    g: &Graph,
    set: &mut [u64],
    stack: &mut Vec<NodeIdx>,
    mut added: impl FnMut(NodeIdx),
) -> i64 {
    let mut sum = 0;
    stack.clear();
    for v in g.nodes() {
        if g.preds(v).is_empty() {
            try_run(g, set, v, stack, &mut sum, &mut added);
        }
    }
    run_successors(g, set, stack, &mut sum, &mut added);
    sum
}

/// Pops the nodes on `stack` and runs each successor that is ready with
/// delta <= 0 (pushing it in turn), until the stack is empty.
#[inline]
fn run_successors(
    g: &Graph,
    set: &mut [u64],
    stack: &mut Vec<NodeIdx>,
    sum: &mut i64,
    added: &mut impl FnMut(NodeIdx),
) {
    while let Some(u) = stack.pop() {
        for &v in g.succs(u) {
            try_run(g, set, v, stack, sum, added);
        }
    }
}

#[inline]
fn try_run(
    g: &Graph,
    set: &mut [u64],
    v: NodeIdx,
    stack: &mut Vec<NodeIdx>,
    sum: &mut i64,
    added: &mut impl FnMut(NodeIdx),
) {
    if g.delta(v) <= 0 && !has(set, v) && g.preds(v).iter().all(|&p| has(set, p)) {
        add(set, v);
        *sum += g.delta(v);
        added(v);
        stack.push(v);
    }
}

/// Identity hasher: the keys are already Zobrist hashes.
#[derive(Default)]
pub(crate) struct IdHasher(u64);

impl Hasher for IdHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = self.0.rotate_left(8) ^ b as u64;
        }
    }
    fn write_u64(&mut self, x: u64) {
        self.0 = x;
    }
}

/// Bytes a collection of `len` items of `unit` bytes with room for `cap`
/// holds while `add` more are pushed: past its room, the old buffer and
/// the doubled one at once, as a reallocation that cannot grow in place
/// holds them. A search's budget check counts this, so that one doubling
/// of a table near the budget cannot ask the allocator for twice the
/// budget (which aborts the process where memory is capped).
pub(crate) fn grown_bytes(len: usize, cap: usize, add: usize, unit: usize) -> u64 {
    let held = match len + add > cap {
        true => cap + (2 * cap).max(len + add),
        false => cap,
    };
    (held as u64).saturating_mul(unit as u64)
}

/// Every stored set once: flat words, hash chains for collisions.
pub(crate) struct StateTable {
    words: usize,
    data: Vec<u64>,
    /// Next state with the same hash (`u32::MAX` ends the chain).
    next: Vec<u32>,
    head: HashMap<u64, u32, BuildHasherDefault<IdHasher>>,
}

impl StateTable {
    pub(crate) fn new(n: usize) -> Self {
        StateTable {
            words: words(n),
            data: Vec::new(),
            next: Vec::new(),
            head: HashMap::default(),
        }
    }
    /// Number of stored states.
    pub(crate) fn len(&self) -> usize {
        self.next.len()
    }
    /// The set of state `id`.
    pub(crate) fn get(&self, id: u32) -> &[u64] {
        let s = id as usize * self.words;
        &self.data[s..s + self.words]
    }
    /// Bytes held while `more` states are stored (an estimate: words,
    /// chains, hash map entries; see [`grown_bytes`]).
    pub(crate) fn bytes(&self, more: usize) -> u64 {
        let (data, next, head) = (&self.data, &self.next, &self.head);
        grown_bytes(data.len(), data.capacity(), more * self.words, 8)
            + grown_bytes(next.len(), next.capacity(), more, 4)
            + grown_bytes(head.len(), head.capacity(), more, 16)
    }
    /// Finds `set` (with hash `h`) or stores it; returns its id and whether it is new.
    pub(crate) fn intern(&mut self, set: &[u64], h: u64) -> (u32, bool) {
        let mut id = self.head.get(&h).copied().unwrap_or(u32::MAX);
        let first = id;
        while id != u32::MAX {
            if self.get(id) == set {
                return (id, false);
            }
            id = self.next[id as usize];
        }
        let new = self.next.len() as u32;
        self.data.extend_from_slice(set);
        self.next.push(first);
        self.head.insert(h, new);
        (new, true)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::GraphBuilder;

    #[test]
    fn table_interns_equal_sets_once_even_on_hash_collision() {
        let mut t = StateTable::new(70);
        let a = [1u64, 2];
        let b = [3u64, 4];
        assert_eq!(t.intern(&a, 7), (0, true));
        assert_eq!(t.intern(&b, 7), (1, true)); // same hash, other set
        assert_eq!(t.intern(&a, 7), (0, false));
        assert_eq!(t.intern(&b, 7), (1, false));
        assert_eq!(t.get(1), &b);
    }

    #[test]
    fn closure_runs_ready_non_positive_nodes_only() {
        // a(ALLOC) -> op -> f(FREE); x(op) is a source, runs at once.
        let mut b = GraphBuilder::new();
        let a = b.alloc(5, 0);
        let op = b.op("op");
        let f = b.free(0);
        let x = b.op("x");
        b.edge(a, op);
        b.edge(op, f);
        let g = b.build().unwrap();
        let mut set = vec![0u64; 1];
        let mut ran = Vec::new();
        let sum = close_empty(&g, &mut set, &mut Vec::new(), |v| ran.push(v));
        assert_eq!((sum, ran), (0, vec![x as u32]));
        add(&mut set, a as u32);
        let mut ran = Vec::new();
        let sum = close(&g, &mut set, &[a as u32], &mut Vec::new(), |v| ran.push(v));
        assert_eq!((sum, ran), (-5, vec![op as u32, f as u32]));
    }
}
