//! The ready queue of [`InductorBfs`](super::InductorBfs): ops keyed by the
//! sorted list of their operands' positions in the schedule, then the op.
//!
//! Positions are handed out in increasing order, so an op's list is built
//! sorted as its operands run: no gather through the operand lists, no
//! sort. A ready op's key is one `u128`: its first positions (plus one, 0
//! for "no more") in fixed-width slots, a bit for a list longer than the
//! slots, then the op. Two keys that differ only in the op and both have
//! that bit compare their whole lists; that is the one comparison that
//! reads anything but the keys.

use std::cmp::Ordering;
use std::collections::HashMap;

use crate::graph::Csr;

/// Positions each op holds in place; the rest of a longer list is kept in
/// [`PositionLists::tails`] (few ops have more operands). Six make a
/// [`WaitingOp`] 32 bytes; with four, the bench graph's decision took 25.4
/// ms instead of 23 (more ops in the tails' hash map), with eight 23.7.
const INLINE: usize = 6;

/// An op that has not run: operand edges still waiting, and the positions
/// of its operands that ran, each once, in the order they ran.
#[derive(Clone, Copy, Default)]
struct WaitingOp {
    waiting: u32,
    len: u32,
    head: [u32; INLINE],
}

/// Each op's position list, and the layout of the keys built from it.
struct PositionLists {
    ops: Vec<WaitingOp>,
    /// Positions after the first [`INLINE`], of ops that have more.
    tails: HashMap<u32, Vec<u32>>,
    /// Bits of a slot and of the op: enough for `op_count`.
    width: u32,
    /// Position slots in a key (1 to [`INLINE`]).
    slots: usize,
    /// The bit of a list longer than the slots.
    more: u128,
}

impl PositionLists {
    /// The whole position list of `op`, in order.
    fn list(&self, op: u32) -> impl Iterator<Item = u32> + '_ {
        let s = &self.ops[op as usize];
        let inline = &s.head[..(s.len as usize).min(INLINE)];
        let tail = self.tails.get(&op).map_or(&[][..], Vec::as_slice);
        inline.iter().chain(tail).copied()
    }

    /// The op of a key.
    #[inline]
    fn op_of(&self, key: u128) -> u32 {
        (key & ((1u128 << self.width) - 1)) as u32
    }

    /// The key of ready `op`.
    fn key(&self, op: u32) -> u128 {
        let s = &self.ops[op as usize];
        let mut key = 0u128;
        for slot in 0..self.slots {
            let p = if slot < s.len as usize {
                s.head[slot] as u128 + 1
            } else {
                0
            };
            key = (key << self.width) | p;
        }
        key <<= 1;
        if s.len as usize > self.slots {
            key |= 1;
        }
        (key << self.width) | op as u128
    }

    /// Whether key `a` orders before key `b`.
    #[inline]
    fn less(&self, a: u128, b: u128) -> bool {
        if (a ^ b) >> self.width != 0 || a & self.more == 0 {
            return a < b;
        }
        let (x, y) = (self.op_of(a), self.op_of(b));
        self.list(x).cmp(self.list(y)).then(x.cmp(&y)) == Ordering::Less
    }

    /// Records that an operand of `op` ran at `position`; true when that
    /// made `op` ready.
    #[inline]
    fn ran(&mut self, op: u32, position: u32) -> bool {
        let s = &mut self.ops[op as usize];
        let len = s.len as usize;
        let last = match len {
            0 => None,
            1..=INLINE => Some(s.head[len - 1]),
            _ => self.tails.get(&op).and_then(|t| t.last().copied()),
        };
        // An op that uses several buffers of one operand may be its user
        // once per buffer: no other op runs between those edges, so the
        // repeat is the last position recorded.
        if last != Some(position) {
            if len < INLINE {
                s.head[len] = position;
            } else {
                self.tails.entry(op).or_default().push(position);
            }
            s.len += 1;
        }
        s.waiting -= 1;
        s.waiting == 0
    }
}

/// Ready ops in Inductor's BFS order: a binary min-heap of packed keys.
pub(super) struct BfsQueue {
    lists: PositionLists,
    heap: Vec<u128>,
}

impl BfsQueue {
    /// The queue of `op_count` ops whose users are `users`, holding the
    /// ops with no operand.
    pub fn new(op_count: usize, users: &Csr) -> Self {
        let width = (u64::BITS - (op_count as u64).leading_zeros()).max(1);
        BfsQueue::with_width(op_count, users, width)
    }

    /// [`BfsQueue::new`] with `width` bits per slot (at least enough for
    /// `op_count`, at most 63); tests widen it to get fewer slots.
    fn with_width(op_count: usize, users: &Csr, width: u32) -> Self {
        let mut ops = vec![WaitingOp::default(); op_count];
        for &w in users.targets() {
            ops[w as usize].waiting += 1;
        }
        let slots = ((127 - width) / width).min(INLINE as u32) as usize;
        let mut queue = BfsQueue {
            lists: PositionLists {
                ops,
                tails: HashMap::new(),
                width,
                slots,
                more: 1u128 << width,
            },
            heap: Vec::new(),
        };
        for op in 0..op_count as u32 {
            if queue.lists.ops[op as usize].waiting == 0 {
                queue.push(op);
            }
        }
        queue
    }

    /// Takes the first ready op.
    pub fn pop(&mut self) -> Option<u32> {
        let top = *self.heap.first()?;
        let last = self.heap.pop().expect("the heap is not empty");
        if !self.heap.is_empty() {
            self.sift_down(last);
        }
        let op = self.lists.op_of(top);
        if self.lists.ops[op as usize].len as usize > INLINE {
            self.lists.tails.remove(&op);
        }
        Some(op)
    }

    /// Records that the op whose users are `users` ran at `position` (one
    /// more than the last), queueing the users it made ready.
    pub fn ran(&mut self, users: &[u32], position: u32) {
        for &w in users {
            if self.lists.ran(w, position) {
                self.push(w);
            }
        }
    }

    fn push(&mut self, op: u32) {
        let key = self.lists.key(op);
        let mut i = self.heap.len();
        self.heap.push(key);
        while i > 0 {
            let parent = (i - 1) / 2;
            if !self.lists.less(key, self.heap[parent]) {
                break;
            }
            self.heap[i] = self.heap[parent];
            i = parent;
        }
        self.heap[i] = key;
    }

    /// Puts `key` at the root's place and moves it down to where it belongs.
    fn sift_down(&mut self, key: u128) {
        let n = self.heap.len();
        let mut i = 0;
        loop {
            let mut child = 2 * i + 1;
            if child >= n {
                break;
            }
            if child + 1 < n {
                child += usize::from(self.lists.less(self.heap[child + 1], self.heap[child]));
            }
            if !self.lists.less(self.heap[child], key) {
                break;
            }
            self.heap[i] = self.heap[child];
            i = child;
        }
        self.heap[i] = key;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Rng;
    use std::collections::BTreeSet;

    /// Inductor's BFS as written: at each step, the ready op with the
    /// smallest (sorted operand positions, op).
    fn reference(op_count: usize, users: &Csr) -> Vec<u32> {
        let operands = users.transpose(op_count);
        let mut waiting: Vec<usize> = (0..op_count as u32).map(|o| operands.degree(o)).collect();
        let mut position = vec![u32::MAX; op_count];
        let mut ready: BTreeSet<(Vec<u32>, u32)> = BTreeSet::new();
        let key = |op: u32, position: &[u32]| {
            let mut list: Vec<u32> = operands
                .neighbors(op)
                .iter()
                .map(|&o| position[o as usize])
                .collect();
            list.sort_unstable();
            list.dedup();
            (list, op)
        };
        for op in 0..op_count as u32 {
            if waiting[op as usize] == 0 {
                ready.insert(key(op, &position));
            }
        }
        let mut order = Vec::new();
        while let Some((_, sel)) = ready.pop_first() {
            position[sel as usize] = order.len() as u32;
            order.push(sel);
            for &w in users.neighbors(sel) {
                waiting[w as usize] -= 1;
                if waiting[w as usize] == 0 {
                    ready.insert(key(w, &position));
                }
            }
        }
        order
    }

    fn queue_order(op_count: usize, users: &Csr) -> Vec<u32> {
        let order = queue_order_with(op_count, users, BfsQueue::new(op_count, users));
        // The same with two slots (as past 2^31 ops) and one.
        for width in [32, 63] {
            let wide = BfsQueue::with_width(op_count, users, width);
            assert_eq!(
                queue_order_with(op_count, users, wide),
                order,
                "width {width}"
            );
        }
        order
    }

    fn queue_order_with(op_count: usize, users: &Csr, mut queue: BfsQueue) -> Vec<u32> {
        let mut order = Vec::with_capacity(op_count);
        while let Some(op) = queue.pop() {
            let position = order.len() as u32;
            order.push(op);
            queue.ran(users.neighbors(op), position);
        }
        order
    }

    /// Random DAGs (users after their op, repeated edges in a row, ops with
    /// up to a dozen operands, so that lists outgrow the slots and tie on
    /// them): the queue pops what the reference takes.
    #[test]
    fn pops_in_inductor_order() {
        let mut rng = Rng::new(5);
        for case in 0..300 {
            let n = 1 + rng.below(if case % 3 == 0 { 300 } else { 25 }) as usize;
            let mut pairs = Vec::new();
            for u in 0..n as u32 {
                let fan = rng.below(6);
                for _ in 0..fan {
                    let span = (n as u32 - u - 1).min(if case % 2 == 0 { 4 } else { 40 });
                    if span == 0 {
                        break;
                    }
                    let w = u + 1 + rng.below(span as u64) as u32;
                    for _ in 0..1 + rng.below(2) {
                        pairs.push((u, w));
                    }
                }
            }
            let users = Csr::from_pairs(n, pairs.iter().copied());
            assert_eq!(queue_order(n, &users), reference(n, &users), "case {case}");
        }
    }

    /// Lists longer than the slots (and than [`INLINE`], so kept partly
    /// in the tails) that agree on them are told apart by the rest, then by
    /// the op: sources `0..=I+1` (`I` = `INLINE`), then ops whose lists
    /// share their first `I` positions.
    #[test]
    fn long_lists_compare_whole() {
        let i = INLINE as u32;
        // a and b read 0..=I; c reads 0..I and I+1; d reads 0..I only.
        let (a, b, c, d) = (i + 2, i + 3, i + 4, i + 5);
        let mut pairs = Vec::new();
        for w in [a, b] {
            pairs.extend((0..=i).map(|u| (u, w)));
        }
        pairs.extend((0..i).chain([i + 1]).map(|u| (u, c)));
        pairs.extend((0..i).map(|u| (u, d)));
        let n = (d + 1) as usize;
        let users = Csr::from_pairs(n, pairs.iter().copied());
        assert_eq!(queue_order(n, &users), reference(n, &users));
        let sources = 0..=i + 1;
        let want: Vec<u32> = sources.chain([d, a, b, c]).collect();
        assert_eq!(queue_order(n, &users), want);
    }
}
