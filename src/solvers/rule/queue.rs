//! Queues of keyed nodes (ready nodes in `rule:`, moves in `moves:`), shared
//! by both schedulers.
//!
//! [`PackedQueue`] holds packed `u64` or `u128` keys ([`Packed`]) when the rule's
//! terms fit: the entries pushed before the first pop are sorted once, later
//! ones go to a [`TieredHeap`]. [`ArenaQueue`] holds keys of any length in
//! the word arena of [`KeyHeap`]. Both are lazy: re-keying a node pushes a
//! new entry and stale entries are skipped when popped. A node's current
//! entry is popped once; a node must not be pushed after that.

use super::features::{encode, stride, Adj, Dynamic, Statics};
use super::heap::KeyHeap;
use super::packed::{KeyInt, Packed};
use super::parse::Key;
use super::tiered_heap::TieredHeap;
use crate::graph::{Graph, NodeIdx};
use crate::prefetch::prefetch;
use crate::solvers::sorted_run::SortedRun;

/// What a key is computed from.
pub(super) struct KeyCtx<'a> {
    pub g: &'a Graph,
    pub adj: &'a Adj<'a>,
    pub statics: &'a Statics,
    pub key: &'a Key,
}

/// Keyed nodes, smallest key first.
pub(super) trait KeyQueue {
    /// Adds node `v` with features `d`, or re-keys it.
    fn push(&mut self, r: &KeyCtx, v: NodeIdx, d: &Dynamic);
    /// Removes the node whose current key is smallest.
    fn pop(&mut self) -> Option<NodeIdx>;
    /// A guess at the node `d` pops from now (a prefetch hint).
    #[inline]
    fn ahead(&self, _d: usize) -> Option<NodeIdx> {
        None
    }
    /// Prefetches what pushing `v` reads.
    #[inline]
    fn prefetch_push(&self, _v: NodeIdx) {}
}

/// Packed keys: the nodes pushed before the first pop are sorted once, later
/// ones go to a [`TieredHeap`] ([`SortedRun`]). A key is the
/// node's static part (computed once per node) with the state-dependent
/// terms filled in when it is pushed.
pub(super) struct PackedQueue<K> {
    packed: Packed,
    static_keys: Vec<K>,
    keys: SortedRun<K, TieredHeap<K>>,
    live: Live<K>,
}

/// How a queue tells a node's live entry from the stale ones its re-keying
/// left behind.
enum Live<K> {
    /// Nodes are pushed once: every entry is live.
    All,
    /// `current[v]` is the key of `v`'s live entry (`K::MAX`, which no key
    /// takes, once it is popped).
    Current(Vec<K>),
    /// Re-keying only lowers a key, so a node's first popped entry is its
    /// live one, and the later ones are stale: one bit per node, set when
    /// it is popped (an eighth of a byte per node where `Current` reads a
    /// whole key at each pop, a cache miss when nodes wait long).
    FirstPop(Vec<u64>),
}

impl<K: KeyInt> PackedQueue<K> {
    /// A queue of keys packed by `packed`, whose static parts are
    /// `static_keys` ([`Packed::static_keys`]), for a rule whose nodes are
    /// pushed once.
    pub fn new(packed: Packed, static_keys: Vec<K>) -> Self {
        PackedQueue {
            packed,
            static_keys,
            keys: SortedRun::default(),
            live: Live::All,
        }
    }

    /// A queue whose nodes may be re-keyed, with the static parts of the
    /// keys of `r`'s rule computed here; stale entries are told by one bit
    /// per node when re-keying can only lower a key, else by each node's
    /// current key.
    pub fn rekeyed(packed: Packed, r: &KeyCtx) -> Self {
        let keys = packed.static_keys::<K>(r.g, r.adj, r.statics, r.key);
        let live = if packed.rekeying_only_lowers() {
            Live::FirstPop(vec![0; r.g.node_count().div_ceil(64)])
        } else {
            Live::Current(Vec::new())
        };
        PackedQueue {
            live,
            ..PackedQueue::new(packed, keys)
        }
    }

    /// Adds node `v` of a rule with no state-dependent term: its key is its
    /// static key. Such a queue is built by [`PackedQueue::new`].
    #[inline]
    pub fn push_static(&mut self, v: NodeIdx) {
        debug_assert!(!self.packed.has_dynamic_terms() && matches!(self.live, Live::All));
        self.keys.push(self.static_keys[v as usize]);
    }
}

impl<K: KeyInt> KeyQueue for PackedQueue<K> {
    #[inline]
    fn push(&mut self, r: &KeyCtx, v: NodeIdx, d: &Dynamic) {
        let base = self.static_keys[v as usize];
        let k = if self.packed.has_dynamic_terms() {
            self.packed.with_state(base, r, v, d)
        } else {
            base
        };
        if let Live::Current(current) = &mut self.live {
            if current.is_empty() {
                current.resize(r.g.node_count(), K::MAX);
            }
            if current[v as usize] == k {
                return; // unchanged: the live entry stays exact
            }
            current[v as usize] = k;
        }
        self.keys.push(k);
    }

    /// A guess at the node `d` pops from now: from the sorted initial run,
    /// else from the heap's sorted run (a prefetch hint).
    #[inline]
    fn ahead(&self, d: usize) -> Option<NodeIdx> {
        Some(self.packed.node(self.keys.ahead(d)?))
    }

    /// Prefetches the static key of `v` (and its current key).
    #[inline]
    fn prefetch_push(&self, v: NodeIdx) {
        prefetch(&self.static_keys, v as usize);
        if let Live::Current(current) = &self.live {
            prefetch(current, v as usize);
        }
    }

    #[inline]
    fn pop(&mut self) -> Option<NodeIdx> {
        loop {
            let k = self.keys.pop()?;
            let v = self.packed.node(k);
            match &mut self.live {
                Live::All => return Some(v),
                Live::Current(c) if c[v as usize] == k => {
                    c[v as usize] = K::MAX;
                    return Some(v);
                }
                Live::Current(_) => {}
                Live::FirstPop(popped) => {
                    let (word, bit) = (v as usize / 64, 1u64 << (v % 64));
                    if popped[word] & bit == 0 {
                        popped[word] |= bit;
                        return Some(v);
                    }
                }
            }
        }
    }
}

/// Keys of any length in the word arena, with a version per node.
pub(super) struct ArenaQueue {
    heap: KeyHeap,
    version: Vec<u32>,
}

impl ArenaQueue {
    /// An empty queue for `n` nodes and keys of `key`.
    pub fn new(n: usize, key: &Key) -> Self {
        ArenaQueue {
            heap: KeyHeap::new(stride(key), n.min(1 << 16)),
            version: vec![0; n],
        }
    }
}

impl KeyQueue for ArenaQueue {
    fn push(&mut self, r: &KeyCtx, v: NodeIdx, d: &Dynamic) {
        let ver = &mut self.version[v as usize];
        *ver += 1;
        self.heap.push(v, *ver, |out| {
            encode(r.g, r.adj, r.statics, r.key, v, d, out)
        });
    }

    fn pop(&mut self) -> Option<NodeIdx> {
        loop {
            let (v, ver) = self.heap.pop()?;
            let current = &mut self.version[v as usize];
            if *current == ver {
                *current += 1; // no entry of `v` is current any more
                return Some(v);
            }
        }
    }
}
