//! XLA's memory schedulers: `xla-list`, `xla-dfs`, `xla-postorder` (and
//! `xla-default`, the best of the three, built in the registry).
//!
//! Source: openxla/xla, `xla/service/hlo_memory_scheduler.cc`
//! (`ListScheduler`, `DFSMemoryScheduler`, `PostOrderMemoryScheduler`,
//! `DefaultMemoryScheduler`) and `xla/hlo/ir/hlo_computation.cc`
//! (`MakeInstructionPostOrder`, `AcceptWithOperandOrder`). Ops, operands,
//! users, defined bytes and buffer uses come from [`OpView`], which also
//! expands the op order into nodes. What has no counterpart in our graphs
//! is left out and said so: parameters/constants (ignored by XLA's
//! heuristics), scalars (XLA's maximum priority), infeed/outfeed,
//! subcomputation memory, control predecessors (all our edges are operands).

use std::collections::BinaryHeap;

use super::{op_scheduler, post_order, post_order_by, Decision, OpScheduler, OpView, Readiness};
use crate::graph::Graph;
use crate::solvers::{enc_int, DeadlineTicker, Outcome, SolveContext};

const NOT_READY: u32 = u32::MAX;

/// XLA's `ListScheduler`: a ready list ordered by *bytes freed minus bytes
/// defined*, then by number of users, largest first.
///
/// Bytes freed by an op: the buffers it uses whose only unscheduled user it
/// is. Bytes defined: the ALLOCs it owns. An op never uses a buffer it
/// defines (XLA's uses are operands), so a buffer no op reads is freed by
/// nobody. Ties go to the op inserted into the ready list last (XLA keeps a
/// `std::multimap` and takes `end() - 1`; equal keys sit in insertion
/// order); the initial ready list is in program order, and the ops a step
/// makes ready are inserted in the order of the scheduled op's users (XLA
/// walks `best->users()`, made in program order; here in program order,
/// whatever the order of the file's `Edges`), in either ALLOC encoding. When a buffer is left
/// with one unscheduled user, that user's priority is recomputed and, if it
/// changed, it is re-inserted, as XLA does it: through the scheduled op's
/// operands in program order (XLA: operand order) and each operand's users
/// in order. Like XLA's, that walk misses a user that shares the buffer but
/// no operand with the scheduled op (two views of one buffer); its priority
/// stays out of date until a later walk meets it.
///
/// Wrong on (ops with their output sizes; `C(a)` reads `a`):
/// `A -> a[10]; B -> b[10]; C(a) -> c[4]; D(b, c)`. A and B tie at
/// `(-10, 1 user)`; the later-inserted B runs first and stays live through
/// A and C: peak 24. `A, C, B, D` peaks at 14 (unit test
/// `list_is_wrong_here`, checked with brute). XLA's own comment draws a
/// seven-op graph where it peaks at 6 against an optimum of 5.
///
/// # Complexity
/// O((n + m) log n) after [`OpView`].
#[derive(Debug, Default, Clone, Copy)]
pub struct XlaList;

op_scheduler!(XlaList, "xla-list");

impl OpScheduler for XlaList {
    fn decide(&self, g: &Graph, view: &OpView, ctx: &SolveContext) -> Decision {
        match KeyLayout::compact(view) {
            Some(layout) => list_schedule::<u64>(g, view, ctx, layout),
            None => list_schedule::<u128>(g, view, ctx, KeyLayout::UNUSED),
        }
    }
}

/// [`XlaList`]'s decision, with ready-list keys of type `K` laid out by
/// `layout`.
fn list_schedule<K: ListKey>(
    g: &Graph,
    view: &OpView,
    ctx: &SolveContext,
    layout: KeyLayout,
) -> Decision {
    let m = view.op_count();
    let mut readiness = Readiness::new(view);
    let mut left = UsersLeft::new(g, view);
    let mut list = ReadyList::<K>::new(m, layout);
    let priority = |op: u32, left: &UsersLeft| -> (i64, i64) {
        let freed: i64 = view
            .uses()
            .neighbors(op)
            .iter()
            .filter(|&&b| left.frees(op, b))
            .map(|&b| view.buffer_size(b))
            .sum();
        (
            freed - view.defined()[op as usize],
            view.user_count()[op as usize] as i64,
        )
    };
    for op in readiness.initially_ready() {
        list.insert(op, priority(op, &left));
    }
    let mut op_order = Vec::with_capacity(m);
    // Where op steps are fixed by op data, the node order is written as
    // ops run: `left` knows when each buffer's last user has run.
    let mut steps = view.step_writer(g);
    let mut ticker = DeadlineTicker::new(1 << 12);
    let mut down_to_one = Vec::new();
    let mut stale = Stale::new(m);
    let (mut changed, mut met, mut operands) = (Vec::new(), Vec::new(), Vec::new());
    while let Some(best) = list.pop() {
        if ticker.expired(ctx) {
            return Decision::Stopped(Outcome::timed_out());
        }
        stale.clear(best);
        op_order.push(best);
        if let Some(steps) = &mut steps {
            steps.op(best);
        }
        left.run(view, best, &mut down_to_one, |b, last| {
            if let Some(steps) = &mut steps {
                steps.free_if(b, last);
            }
        });
        // New ready ops first (XLA adds them before adjusting
        // priorities), in `best`'s users order, as XLA walks
        // `best->users()`: the order `run` reports them in.
        let ran = readiness.run(best, |op| list.insert(op, priority(op, &left)));
        if !ran {
            return Decision::Stopped(Outcome::failed("xla-list: internal error, op not ready"));
        }
        if down_to_one.is_empty() {
            continue;
        }
        // XLA's re-check: through `best`'s operands and each one's
        // users, re-insert every ready op whose priority changed. A
        // priority changes only for the last user of a buffer down to
        // one user; while no op is stale, re-inserting those the walk
        // meets, in the order it meets them, is the walk.
        for b in down_to_one.drain(..) {
            let u = left.last_user(b);
            if list.contains(u) && !changed.contains(&u) && priority(u, &left) != list.priority(u) {
                changed.push(u);
            }
        }
        if changed.is_empty() && stale.count == 0 {
            continue;
        }
        view.operands_of(g, best, &mut operands);
        if stale.count == 0 {
            for u in changed.drain(..) {
                match walk_position(view, &operands, u) {
                    Some(at) => met.push((at, u)),
                    None => stale.mark(u),
                }
            }
            met.sort_unstable();
            for (_, u) in met.drain(..) {
                list.insert(u, priority(u, &left));
            }
        } else {
            for &operand in &operands {
                for &u in view.users().neighbors(operand) {
                    if !list.contains(u) {
                        continue;
                    }
                    let p = priority(u, &left);
                    if p != list.priority(u) {
                        list.insert(u, p);
                        stale.clear(u);
                    }
                }
            }
            for u in changed.drain(..) {
                if priority(u, &left) != list.priority(u) {
                    stale.mark(u);
                }
            }
        }
    }
    if op_order.len() != m {
        return Decision::Stopped(Outcome::failed("xla-list: some op never became ready"));
    }
    match steps {
        Some(steps) => Decision::Nodes(steps.finish()),
        None => Decision::Ops(op_order),
    }
}

/// Where XLA's re-check after `best` meets op `u`, if it does: it walks
/// `best`'s `operands` (here in program order) and each one's users in order.
/// It misses the last user of a buffer that shares no operand with `best`:
/// two ops reading one buffer through different views (as exported
/// PyTorch graphs have), where only the buffer, not an op, is shared.
fn walk_position(view: &OpView, operands: &[u32], u: u32) -> Option<(usize, usize)> {
    operands.iter().enumerate().find_map(|(i, &operand)| {
        let users = view.users().neighbors(operand);
        users.iter().position(|&w| w == u).map(|at| (i, at))
    })
}

/// Ready ops whose priority in the list is out of date: a buffer of theirs
/// came down to one user in a step whose re-check did not meet them. XLA
/// leaves them so until a later re-check meets them.
struct Stale {
    is: Vec<bool>,
    count: usize,
}

impl Stale {
    fn new(m: usize) -> Self {
        Stale {
            is: vec![false; m],
            count: 0,
        }
    }

    fn mark(&mut self, op: u32) {
        if !std::mem::replace(&mut self.is[op as usize], true) {
            self.count += 1;
        }
    }

    fn clear(&mut self, op: u32) {
        if std::mem::replace(&mut self.is[op as usize], false) {
            self.count -= 1;
        }
    }
}

/// The users of each buffer not yet scheduled: how many, and the XOR of
/// their op numbers, which names the last one once one is left (an op
/// uses a buffer once), with no list of each buffer's users to search. A
/// buffer's definer is not among its users (see [`OpView::self_users`]).
struct UsersLeft {
    /// Per buffer, side by side: a use touches one cache line.
    of: Vec<Left>,
}

#[derive(Clone, Copy)]
struct Left {
    count: u32,
    xor: u32,
    /// The buffer's definer where the view lists it as a user and it has
    /// not run, else `u32::MAX`.
    self_user: u32,
}

impl UsersLeft {
    /// Every use unscheduled.
    fn new(g: &Graph, view: &OpView) -> Self {
        let mut of: Vec<Left> = view
            .self_users(g)
            .into_iter()
            .map(|self_user| Left {
                count: 0,
                xor: 0,
                self_user,
            })
            .collect();
        for op in 0..view.op_count() as u32 {
            let uses = view.uses().neighbors(op);
            debug_assert!(
                uses.iter().enumerate().all(|(i, b)| !uses[..i].contains(b)),
                "op {op} uses a buffer twice"
            );
            for &b in uses {
                let left = &mut of[b as usize];
                if left.self_user != op {
                    left.count += 1;
                    left.xor ^= op;
                }
            }
        }
        UsersLeft { of }
    }

    /// Whether running `op`, which uses `b`, frees it.
    #[inline]
    fn frees(&self, op: u32, b: u32) -> bool {
        let left = &self.of[b as usize];
        left.count == 1 && left.self_user != op
    }

    /// Schedules `op`'s uses; the buffers it leaves with one user go to
    /// `down_to_one`. Tells `used` each buffer `b` it uses, in the order of
    /// its uses, and whether `op` was the `last` to use it, counting the
    /// definer's own use (when `b`'s FREE runs in the expansion).
    #[inline]
    fn run(
        &mut self,
        view: &OpView,
        op: u32,
        down_to_one: &mut Vec<u32>,
        mut used: impl FnMut(u32, bool),
    ) {
        for &b in view.uses().neighbors(op) {
            let left = &mut self.of[b as usize];
            if left.self_user == op {
                // Not a user to XLA; to the expansion, the last if every
                // other user has run.
                left.self_user = u32::MAX;
                used(b, left.count == 0);
                continue;
            }
            left.count -= 1;
            left.xor ^= op;
            if left.count == 1 {
                down_to_one.push(b);
            }
            used(b, left.count == 0 && left.self_user == u32::MAX);
        }
    }

    /// The one unscheduled user of buffer `b` (which has exactly one).
    fn last_user(&self, b: u32) -> u32 {
        self.of[b as usize].xor
    }
}

/// XLA's ready list, a `std::multimap` from priority to op taken from the
/// top: equal priorities go to the op inserted last, and re-inserting an op
/// supersedes its earlier entry (left in the heap, skipped when popped).
///
/// A heap entry is one integer, `u64` when the graph's priorities fit
/// (see [`KeyLayout`]), else `u128`: the priority's first key, then its
/// second, then the insertion number. One integer compares without a
/// branch: a `(i64, u64)` pair cost a mispredicted branch per level of the
/// heap (its pops were a fifth of the decision), and a `u64` moves and
/// compares in half the work of a `u128`.
struct ReadyList<K> {
    heap: BinaryHeap<K>,
    layout: KeyLayout,
    /// The op of each insertion, by insertion number.
    op_at: Vec<u32>,
    /// Each op's live insertion, `NOT_READY` when it is not in the list.
    entry_of: Vec<u32>,
    /// Each op's priority at its live insertion.
    prio_of: Vec<(i64, i64)>,
}

/// A ready-list key: a priority and an insertion number packed into one
/// integer whose unsigned order is priority order, then insertion order.
///
/// There are at most `m + buffers` insertions: one per op when it becomes
/// ready, and one per change of an op's priority, which happens only when
/// a buffer comes down to one user (once per buffer).
trait ListKey: Copy + Ord {
    fn pack(layout: &KeyLayout, p: (i64, i64), seq: u32) -> Self;
    fn seq(self, layout: &KeyLayout) -> u32;
}

/// Any graph: the first key with its sign bit flipped, then the second (a
/// user count, below 2^32), then the insertion number (below 2^32).
impl ListKey for u128 {
    #[inline]
    fn pack(_: &KeyLayout, p: (i64, i64), seq: u32) -> u128 {
        (enc_int(p.0) as u128) << 64 | (p.1 as u128) << 32 | seq as u128
    }
    #[inline]
    fn seq(self, _: &KeyLayout) -> u32 {
        self as u32
    }
}

/// A graph whose priorities fit ([`KeyLayout::compact`]).
impl ListKey for u64 {
    #[inline]
    fn pack(layout: &KeyLayout, p: (i64, i64), seq: u32) -> u64 {
        let first = (p.0 + layout.bias) as u64;
        debug_assert!(first >> (64 - layout.first_shift) == 0);
        debug_assert!((p.1 as u64) < 1 << (layout.first_shift - layout.seq_bits));
        debug_assert!((seq as u64) < 1 << layout.seq_bits);
        first << layout.first_shift | (p.1 as u64) << layout.seq_bits | seq as u64
    }
    #[inline]
    fn seq(self, layout: &KeyLayout) -> u32 {
        (self & ((1 << layout.seq_bits) - 1)) as u32
    }
}

/// Where a priority and an insertion number sit in a `u64` key:
/// `(first + bias) << first_shift | second << seq_bits | seq`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct KeyLayout {
    bias: i64,
    first_shift: u32,
    seq_bits: u32,
}

impl KeyLayout {
    /// For `u128` keys, which have a fixed layout and read none.
    const UNUSED: KeyLayout = KeyLayout {
        bias: 0,
        first_shift: 0,
        seq_bits: 0,
    };

    /// The `u64` layout, from bounds read off `view`, if they fit in 64
    /// bits. The first key, bytes freed minus bytes defined, is at least
    /// minus the most bytes an op defines (the bias) and at most the most
    /// buffers an op uses times the largest buffer; the second is at most
    /// the most users an op has. (Reading the bounds is one pass over the
    /// view's per-op and per-buffer arrays.)
    fn compact(view: &OpView) -> Option<KeyLayout> {
        let bits = |range: u128| 128 - range.leading_zeros();
        let m = view.op_count();
        let most_defined = view.defined().iter().copied().max().unwrap_or(0).max(0);
        let largest_buffer = view.buffer_bytes.iter().copied().max().unwrap_or(0).max(0);
        let most_uses = (0..m as u32)
            .map(|op| view.uses().neighbors(op).len())
            .max();
        let most_users = view.user_count().iter().copied().max().unwrap_or(0);
        let first_range =
            most_defined as u128 + largest_buffer as u128 * most_uses.unwrap_or(0) as u128;
        let seq_bits = bits((m + view.buffers().len()) as u128);
        let first_shift = bits(most_users as u128) + seq_bits;
        (first_shift + bits(first_range).max(1) <= 64).then_some(KeyLayout {
            bias: most_defined,
            first_shift,
            seq_bits,
        })
    }
}

impl<K: ListKey> ReadyList<K> {
    /// An empty list over `m` ops.
    fn new(m: usize, layout: KeyLayout) -> Self {
        ReadyList {
            heap: BinaryHeap::new(),
            layout,
            op_at: Vec::with_capacity(m),
            entry_of: vec![NOT_READY; m],
            prio_of: vec![(0, 0); m],
        }
    }

    /// Inserts `op` with priority `p`, superseding its earlier entry.
    fn insert(&mut self, op: u32, p: (i64, i64)) {
        let seq = self.op_at.len() as u32;
        self.op_at.push(op);
        self.entry_of[op as usize] = seq;
        self.prio_of[op as usize] = p;
        self.heap.push(K::pack(&self.layout, p, seq));
    }

    /// Whether `op` is in the list.
    fn contains(&self, op: u32) -> bool {
        self.entry_of[op as usize] != NOT_READY
    }

    /// The priority `op` was last inserted with.
    fn priority(&self, op: u32) -> (i64, i64) {
        self.prio_of[op as usize]
    }

    /// Removes and returns the op with the highest priority (ties: the
    /// last inserted).
    fn pop(&mut self) -> Option<u32> {
        while let Some(key) = self.heap.pop() {
            let seq = key.seq(&self.layout);
            let op = self.op_at[seq as usize];
            if self.entry_of[op as usize] == seq {
                self.entry_of[op as usize] = NOT_READY;
                return Some(op);
            }
        }
        None
    }
}

/// Ops with no users, in program order: XLA's "unreachable roots" in
/// instruction order, then the computation root (our graphs name none; the
/// last user-less op plays it).
fn roots(view: &OpView) -> impl Iterator<Item = u32> + '_ {
    (0..view.op_count() as u32).filter(|&o| view.user_count()[o as usize] == 0)
}

/// XLA's `MakeInstructionPostOrder` over ops: from each user-less op in
/// program order, a DFS that visits operands in program order. XLA visits
/// them in operand order, which our graphs do not record (an edge is a
/// constraint, and lowered graphs list them sorted): the two differ on an
/// op whose operands are not listed in the order their producers ran.
fn instruction_post_order(view: &OpView) -> Vec<u32> {
    post_order(view.op_count(), roots(view), view.operands())
}

/// XLA's `PostOrderMemoryScheduler`: the computation's DFS post-order, no
/// memory heuristic at all.
///
/// Operands are visited in program order (XLA: operand order, which our
/// graphs do not record; see [`instruction_post_order`]), from each
/// user-less op in program order.
///
/// Wrong on `A -> a[10]; B -> b[10]; C(b) -> c[1]; D(a, c)`: it visits D's
/// operands in order, so `A, B, C, D` holds a while b is computed: peak 21;
/// `B, C, A, D` peaks at 11 (unit test `postorder_is_wrong_here`).
///
/// # Complexity
/// O(n + m) after [`OpView`].
#[derive(Debug, Default, Clone, Copy)]
pub struct XlaPostOrder;

op_scheduler!(XlaPostOrder, "xla-postorder");

impl OpScheduler for XlaPostOrder {
    fn decide(&self, _g: &Graph, view: &OpView, ctx: &SolveContext) -> Decision {
        Decision::ops_in_time(instruction_post_order(view), ctx)
    }
}

/// XLA's `DFSMemoryScheduler`: a DFS post-order that visits operands in
/// decreasing cumulative *extra users*, then decreasing cumulative *total
/// size*, then program order (XLA: by name).
///
/// Over the instruction post-order, each op gets `extra_users = max(users -
/// 1, 0)` plus its distinct operands' values, and `total_sizes = bytes
/// defined` plus its operands' values; both are capped as XLA does (by the
/// running sum of defined bytes and by the op count), since a DAG
/// double-counts shared ancestors.
///
/// Wrong on `A -> a[10]; B -> b[6]; C(b) -> c[3]; D(a, c)`: A has the larger
/// cumulative size, so it is visited first and a stays live through B and C:
/// peak 19; `B, C, A, D` peaks at 13 (unit test `dfs_is_wrong_here`).
///
/// # Complexity
/// O((n + m) log n) after [`OpView`] (sorting operand lists).
#[derive(Debug, Default, Clone, Copy)]
pub struct XlaDfs;

op_scheduler!(XlaDfs, "xla-dfs");

impl OpScheduler for XlaDfs {
    fn decide(&self, _g: &Graph, view: &OpView, ctx: &SolveContext) -> Decision {
        let m = view.op_count();
        // Each op's (extra users, total sizes), side by side: the sorts
        // below read both of an operand at once.
        let mut cumulative_of = vec![(0i64, 0i64); m];
        let mut cumulative: i64 = 0;
        // Over the instruction post-order, each op as the DFS finishes it.
        let cumulate = |op: u32| {
            let o = op as usize;
            let mut extra = (view.user_count()[o] as i64 - 1).max(0);
            let own = view.defined()[o];
            let mut total = own;
            cumulative = cumulative.saturating_add(own);
            for &p in view.operands().neighbors(op) {
                let (p_extra, p_total) = cumulative_of[p as usize];
                extra = extra.saturating_add(p_extra);
                total = total.saturating_add(p_total);
            }
            cumulative_of[o] = (extra.min(m as i64), total.min(cumulative));
        };
        post_order_by(m, roots(view), view.operands(), |_| {}, cumulate);
        let by_cumulative = |list: &mut [u32]| {
            list.sort_unstable_by(|&a, &b| {
                let (ka, kb) = (cumulative_of[a as usize], cumulative_of[b as usize]);
                kb.cmp(&ka).then(a.cmp(&b))
            })
        };
        let mut order = Vec::with_capacity(m);
        post_order_by(m, roots(view), view.operands(), by_cumulative, |op| {
            order.push(op)
        });
        Decision::ops_in_time(order, ctx)
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::{
        assert_writes_its_expansion, assert_wrong, in_both_encodings, lowered, op_order,
        unread_buffer,
    };
    use super::*;

    /// xla-list writes its node order as it goes where it can, the
    /// expansion of its op order, with either key type.
    #[test]
    fn list_writes_the_expansion_of_its_op_order() {
        let ctx = SolveContext::default();
        assert_writes_its_expansion(|g, view| match KeyLayout::compact(view) {
            Some(layout) => list_schedule::<u64>(g, view, &ctx, layout),
            None => panic!("no compact layout"),
        });
        assert_writes_its_expansion(|g, view| {
            list_schedule::<u128>(g, view, &ctx, KeyLayout::UNUSED)
        });
    }

    /// `P -> p; X(p) -> x[5]; Y(p) -> y[5]; Z(x, y)`: after P, XLA inserts
    /// its users X then Y; they tie, and the last inserted, Y, runs first,
    /// in both encodings (anchored ALLOCs used to reverse the insertions).
    #[test]
    fn list_breaks_ties_by_users_order_in_both_encodings() {
        use crate::corpus::program::{AllocEncoding, TensorProgram, TensorRef};
        let p_out = TensorRef { op: 0, output: 0 };
        let mut p = TensorProgram::new();
        p.push("P", vec![], vec![1]);
        p.push("X", vec![p_out], vec![5]);
        p.push("Y", vec![p_out], vec![5]);
        let (x, y) = (
            TensorRef { op: 1, output: 0 },
            TensorRef { op: 2, output: 0 },
        );
        p.push("Z", vec![x, y], vec![]);
        for encoding in [AllocEncoding::Anchored, AllocEncoding::Floating] {
            let g = p.to_graph(encoding).unwrap();
            let order = crate::solvers::run(&XlaList, &g, &SolveContext::default())
                .order
                .unwrap();
            let ops: Vec<crate::graph::NodeIdx> = order
                .into_iter()
                .filter(|&v| g.kind(v) == crate::NodeKind::Compute)
                .collect();
            let view = OpView::new(&g).unwrap();
            let op_order: Vec<u32> = ops.iter().map(|&v| view.op_of(v)).collect();
            assert_eq!(op_order, [0, 2, 1, 3], "{encoding:?}");
        }
    }

    /// `P1 -> p1[4]; P2 -> p2[4]; B(p1, p2); X(p2) -> x[5]; Y(p1) -> y[5];
    /// Z(x, y)`. B runs after P2 and P1; then p1 and p2 are down to one
    /// user each and
    /// X and Y are re-inserted tied at (-1, 1 user). XLA re-inserts them
    /// through B's operands in order, P1's user Y then P2's user X, so X
    /// runs first; in the order B lists its buffers (p2, whose FREE comes
    /// first, then p1) Y would.
    #[test]
    fn list_reinserts_in_operand_order() {
        use crate::corpus::program::{AllocEncoding, TensorProgram, TensorRef};
        let out = |op| TensorRef { op, output: 0 };
        let mut p = TensorProgram::new();
        p.push("P1", vec![], vec![4]);
        p.push("P2", vec![], vec![4]);
        p.push("B", vec![out(0), out(1)], vec![]);
        p.push("X", vec![out(1)], vec![5]);
        p.push("Y", vec![out(0)], vec![5]);
        p.push("Z", vec![out(3), out(4)], vec![]);
        for encoding in [AllocEncoding::Anchored, AllocEncoding::Floating] {
            let g = p.to_graph(encoding).unwrap();
            let order = crate::solvers::run(&XlaList, &g, &SolveContext::default())
                .order
                .unwrap();
            let view = OpView::new(&g).unwrap();
            let op_order: Vec<u32> = order
                .into_iter()
                .filter(|&v| g.kind(v) == crate::NodeKind::Compute)
                .map(|v| view.op_of(v))
                .collect();
            // P2 (the later of two ties), P1, B, then X before Y.
            assert_eq!(op_order, [1, 0, 2, 3, 4, 5], "{encoding:?}");
        }
    }

    /// After B, buffers q (from Q) and c1 (from A2) are down to their last
    /// users U and R, which tie. XLA walks B's operands A1, A2, Q: it meets
    /// U first, through A1 (U reads b0), then R, so R is inserted last and
    /// runs first. By the buffers' definers, R then U, U would. (Order
    /// from an independent replica of XLA's `ListScheduler`.)
    #[test]
    fn list_reinserts_in_the_order_of_xlas_walk() {
        use crate::corpus::program::{AllocEncoding, TensorProgram, TensorRef};
        let t = |op, output| TensorRef { op, output };
        let mut p = TensorProgram::new();
        p.push("A0", vec![], vec![1, 2]);
        p.push("A1", vec![], vec![1, 1]);
        p.push("A2", vec![], vec![1, 2]);
        p.push("R", vec![t(0, 0), t(2, 1)], vec![]);
        p.push("Q", vec![t(0, 1)], vec![2]);
        p.push("B", vec![t(4, 0), t(1, 1), t(2, 1)], vec![]);
        p.push("U", vec![t(1, 0), t(4, 0)], vec![1]);
        p.push("V", vec![t(2, 0), t(0, 0)], vec![1]);
        for encoding in [AllocEncoding::Anchored, AllocEncoding::Floating] {
            let g = p.to_graph(encoding).unwrap();
            assert_eq!(
                op_order(&XlaList, &g),
                [1, 2, 0, 4, 5, 3, 6, 7],
                "{encoding:?}"
            );
        }
    }

    /// Two views of one buffer: A writes a[5] and b[3]; V1(A) and V2(A)
    /// are views (no output) and, like X(A, V1) -> c[2], W(V2) -> d[2]
    /// and Z(A) -> e[1], read a; X reads b, Y(Z) reads e. Once A, V2, V1,
    /// X and Z have run, W is a's last user, but W shares no operand with
    /// Z (W reads a through V2): XLA's re-check after Z misses it, so W
    /// keeps its priority `(-2, 0)` without a's 5 bytes and Y, at `(1, 0)`,
    /// runs before it. Re-inserting W would run it first, at `(3, 0)`.
    /// (Order from a replica of XLA's walk.)
    #[test]
    fn list_leaves_a_user_the_walk_misses_out_of_date() {
        let mut g = crate::graph::GraphBuilder::new();
        let (a, b) = (g.alloc(5, 0), g.alloc(3, 1));
        let op_a = g.op("A");
        let v1 = g.op("V1");
        let c = g.alloc(2, 2);
        let x = g.op("X");
        let v2 = g.op("V2");
        let d = g.alloc(2, 3);
        let w = g.op("W");
        let e = g.alloc(1, 4);
        let z = g.op("Z");
        let y = g.op("Y");
        let (free_a, free_b, free_e) = (g.free(0), g.free(1), g.free(4));
        for (u, v) in [
            (a, op_a),
            (b, op_a),
            (op_a, v1),
            (c, x),
            (op_a, x),
            (v1, x),
            (op_a, v2),
            (d, w),
            (v2, w),
            (e, z),
            (op_a, z),
            (z, y),
            (v1, free_a),
            (x, free_a),
            (v2, free_a),
            (w, free_a),
            (z, free_a),
            (x, free_b),
            (y, free_e),
        ] {
            g.edge(u, v);
        }
        let g = g.build().unwrap();
        // Ops in program order: A, V1, X, V2, W, Z, Y.
        assert_eq!(op_order(&XlaList, &g), [0, 3, 1, 2, 5, 6, 4]);
    }

    /// X's buffer is read by no op: XLA gives it no use, so X frees
    /// nothing and ties with Y at `(-10, 1 user)`; Y, inserted last, runs
    /// first and the peak is 20. Counting the buffer as freed by X ran X
    /// first (peak 10).
    #[test]
    fn list_frees_nothing_by_a_buffer_nobody_reads() {
        let g = unread_buffer();
        assert_eq!(op_order(&XlaList, &g), [1, 0, 2]);
        let r = crate::solvers::run(&XlaList, &g, &SolveContext::default());
        assert_eq!(r.peak, Some(20));
    }

    /// `a -> f` (a buffer nobody reads), `f -> X`, and `Y`: X and Y are
    /// both ready from the start and tie at `(0, 0 users)`. XLA's initial
    /// ready list is in program order, X then Y, so Y (inserted last) runs
    /// first. (When the list followed the node-level expansion, X came
    /// after Y: it waits for the FREE, which runs once the sources have.)
    #[test]
    fn list_starts_in_program_order() {
        let mut b = crate::graph::GraphBuilder::new();
        let a = b.alloc(10, 0);
        let f = b.free(0);
        b.edge(a, f);
        let x = b.op("X");
        b.edge(f, x);
        b.op("Y");
        let g = b.build().unwrap();
        let order = crate::solvers::run(&XlaList, &g, &SolveContext::default())
            .order
            .unwrap();
        let ops: Vec<i64> = g.to_ids(&order).into_iter().filter(|&id| id >= x).collect();
        assert_eq!(ops, [x + 1, x]);
    }

    #[test]
    fn list_is_wrong_here() {
        let g = lowered(&[
            (&[], &[10]),
            (&[], &[10]),
            (&[(0, 0)], &[4]),
            (&[(1, 0), (2, 0)], &[]),
        ]);
        assert_wrong(&XlaList, &g, 24, 14);
    }

    #[test]
    fn postorder_is_wrong_here() {
        let g = lowered(&[
            (&[], &[10]),
            (&[], &[10]),
            (&[(1, 0)], &[1]),
            (&[(0, 0), (2, 0)], &[]),
        ]);
        assert_wrong(&XlaPostOrder, &g, 21, 11);
    }

    #[test]
    fn dfs_is_wrong_here() {
        let g = lowered(&[
            (&[], &[10]),
            (&[], &[6]),
            (&[(1, 0)], &[3]),
            (&[(0, 0), (2, 0)], &[]),
        ]);
        assert_wrong(&XlaDfs, &g, 19, 13);
    }

    #[test]
    fn default_is_wrong_here() {
        // A -> a[10], a2[4]; B(a) -> b[4]; C(b); D(a2).
        let g = lowered(&[
            (&[], &[10, 4]),
            (&[(0, 0)], &[4]),
            (&[(1, 0)], &[]),
            (&[(0, 1)], &[]),
        ]);
        assert_wrong(&super::super::xla_default(), &g, 18, 14);
    }

    /// The `u64` keys decide exactly as the `u128` keys, on five
    /// generator families in both encodings (the layout is compact on
    /// each).
    #[test]
    fn u64_keys_decide_as_u128_keys() {
        let ctx = SolveContext::default();
        let families = [
            "random-layered:layers=30,width=6",
            "tensor-program:ops=60",
            "randwire:nodes=24,resolution=64",
            "nasnet:cells=3,resolution=64",
            "adversarial:scale=4",
        ];
        for (name, g) in in_both_encodings(&families, 3) {
            let view = OpView::new(&g).unwrap();
            let layout = KeyLayout::compact(&view).expect("a compact layout");
            let order = |d: Decision| match d {
                Decision::Ops(order) | Decision::Nodes(order) => order,
                Decision::Stopped(o) => panic!("{name}: {}", o.status),
            };
            assert_eq!(
                order(list_schedule::<u64>(&g, &view, &ctx, layout)),
                order(list_schedule::<u128>(&g, &view, &ctx, KeyLayout::UNUSED)),
                "{name}"
            );
        }
    }

    /// Priorities too wide for 64 bits take `u128` keys: an op defining
    /// 2^62 bytes and one reading it.
    #[test]
    fn huge_buffers_take_u128_keys() {
        let g = lowered(&[(&[], &[1 << 62]), (&[], &[3]), (&[(0, 0), (1, 0)], &[])]);
        assert_eq!(KeyLayout::compact(&OpView::new(&g).unwrap()), None);
        let r = crate::solvers::run(&XlaList, &g, &SolveContext::default());
        assert_eq!(r.peak, Some((1 << 62) + 3));
    }
}
