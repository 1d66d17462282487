//! PyTorch Inductor's `reorder_for_peak_memory` orders: `inductor-lpmf`,
//! `inductor-bfs`, `inductor-dfs` (and `inductor-default`, the best of the
//! original order and these three, built in the registry).
//!
//! Source: pytorch/pytorch, `torch/_inductor/memory.py`
//! (`topological_sort_lpmf`, `topological_sort_bfs`, `topological_sort_dfs`,
//! `reorder_for_peak_memory`, which starts its candidate list with the
//! original order as "baseline" and keeps the first lowest estimate).
//! Inductor's scheduler nodes are our ops ([`OpView`]): a node's `size` is
//! the bytes it defines, its `pred_buffers` the buffers it uses, a buffer's
//! `succ_nodes` its users; buffers without a FREE are graph outputs. Inductor
//! has no freeable graph inputs here (every buffer is allocated by the graph).

use super::bfs_queue::BfsQueue;
use super::lpmf_tree::LpmfTree;
use super::view::NO_OP;
use super::{op_scheduler, post_order_by, Decision, OpScheduler, OpView, Readiness};
use crate::graph::Graph;
use crate::solvers::{enc_int, DeadlineTicker, Outcome, SolveContext};

/// Inductor's `topological_sort_lpmf` (least peak memory first).
///
/// It tracks the live memory and the peak so far. Among ready ops it takes
/// the one minimising `(max(live + size, peak), size - memory_to_free,
/// program order)`: while some op fits under the peak so far, the one that
/// leaves the least memory; otherwise the one that raises the peak least.
/// `memory_to_free` of an op is the size of each buffer it uses whose other
/// users have all run; it grows as buffers come down to one pending user.
/// (Inductor also counts an op's own outputs that nobody reads. Here such a
/// buffer is a graph output without a FREE (as lowered graphs have it),
/// which never frees, or its FREE follows the op, which makes the op one
/// of its users: it is then counted with the buffers the op uses.)
///
/// Wrong on `A -> a[10]; B -> b[10]; C(b) -> c[1]; D(a, c)`: A and B tie on
/// every key but program order, so A runs first and a stays live while b
/// and c are computed: peak 21; `B, C, A, D` peaks at 11 (unit test
/// `lpmf_is_wrong_here`, checked with brute).
///
/// # Complexity
/// O(n · min(w, 64) + m log m) after [`OpView`], with w the largest ready
/// set: Inductor scans the ready set each step, and so does this replica
/// until more than 64 ops are ready; from then on, to the end of the run,
/// it finds the same op in a tree ([`LpmfTree`]).
#[derive(Debug, Default, Clone, Copy)]
pub struct InductorLpmf;

op_scheduler!(InductorLpmf, "inductor-lpmf");

impl OpScheduler for InductorLpmf {
    fn decide(&self, g: &Graph, view: &OpView, ctx: &SolveContext) -> Decision {
        lpmf(g, view, ctx, SCAN_MAX)
    }
}

/// Most ready ops `inductor-lpmf` scans at each step, as Inductor does;
/// past it they move to an [`LpmfTree`] (the same choices, found in
/// O(log m)): a graph whose ready set is thousands wide made every step a
/// scan of all of them.
const SCAN_MAX: usize = 64;

/// [`InductorLpmf`], with the ready ops in a tree once more than
/// `scan_max` are ready. On a graph whose op steps are fixed by op data it
/// writes the node order as it goes (it counts each buffer's users left
/// anyway); elsewhere it returns the op order to expand.
fn lpmf(g: &Graph, view: &OpView, ctx: &SolveContext, scan_max: usize) -> Decision {
    let m = view.op_count();
    let mut readiness = Readiness::new(view);
    // Per buffer, its users that have not run: how many, and the XOR of
    // their op numbers, which names the last one (an op uses a buffer
    // once).
    let mut left = vec![(0u32, 0u32); view.buffers().len()];
    for op in 0..m as u32 {
        for &b in view.uses().neighbors(op) {
            let (count, xor) = &mut left[b as usize];
            *count += 1;
            *xor ^= op;
        }
    }
    // A buffer with one user frees with it: that user is the XOR.
    let mut to_free = vec![0i64; m];
    for (b, &(count, user)) in left.iter().enumerate() {
        if count == 1 {
            to_free[user as usize] += view.buffer_size(b as u32);
        }
    }
    let net = |op: u32, to_free: &[i64]| view.defined()[op as usize] - to_free[op as usize];
    let mut live: i64 = 0;
    let mut peak: i64 = live.max(view.output_bytes());
    let mut ready: Vec<u32> = readiness.initially_ready().collect();
    let mut tree: Option<LpmfTree> = None;
    let mut steps = view.step_writer(g);
    let mut op_order = Vec::with_capacity(m);
    let mut ticker = DeadlineTicker::new(1 << 12);
    loop {
        if tree.is_none() && ready.len() > scan_max {
            let mut t = LpmfTree::new(view.defined());
            for op in ready.drain(..) {
                t.set(op, net(op, &to_free));
            }
            tree = Some(t);
        }
        let sel = match &mut tree {
            None if ready.is_empty() => break,
            None => {
                // Each step scans the whole ready list.
                if ticker.expired_after(ready.len(), ctx) {
                    return Decision::Stopped(Outcome::timed_out());
                }
                let slot = lowest_key(&ready, |op| {
                    let size = view.defined()[op as usize];
                    ((live + size).max(peak), net(op, &to_free))
                });
                ready.swap_remove(slot)
            }
            Some(t) => {
                if ticker.expired(ctx) {
                    return Decision::Stopped(Outcome::timed_out());
                }
                match t.pop(peak - live) {
                    Some(op) => op,
                    None => break,
                }
            }
        };
        op_order.push(sel);
        if let Some(steps) = &mut steps {
            steps.op(sel);
        }
        live += view.defined()[sel as usize];
        peak = peak.max(live);
        live -= to_free[sel as usize];
        readiness.run(sel, |op| match &mut tree {
            None => ready.push(op),
            Some(t) => t.set(op, net(op, &to_free)),
        });
        for &b in view.uses().neighbors(sel) {
            let (count, xor) = &mut left[b as usize];
            *count -= 1;
            *xor ^= sel;
            if let Some(steps) = &mut steps {
                steps.free_if(b, *count == 0);
            }
            if *count == 1 {
                // Inductor adds the size to every user's `memory_to_free`;
                // only the one that has not run reads it again.
                let u = *xor;
                to_free[u as usize] += view.buffer_size(b);
                if let Some(t) = tree.as_mut().filter(|t| t.contains(u)) {
                    t.set(u, net(u, &to_free));
                }
            }
        }
    }
    if op_order.len() != m {
        return Decision::Stopped(Outcome::failed("inductor-lpmf: some op never became ready"));
    }
    match steps {
        Some(steps) => Decision::Nodes(steps.finish()),
        None => Decision::Ops(op_order),
    }
}

/// The position in `ready` (not empty) of the op with the lowest
/// `(key(op), op)`. Both keys are packed into one `u128` (sign bits flipped,
/// so unsigned order is signed order) and the running minimum is kept by
/// selects, not branches: a tuple comparison per scanned op mispredicted.
fn lowest_key(ready: &[u32], key: impl Fn(u32) -> (i64, i64)) -> usize {
    let pack = |op: u32| {
        let (a, b) = key(op);
        (enc_int(a) as u128) << 64 | enc_int(b) as u128
    };
    let (mut best, mut best_op, mut slot) = (pack(ready[0]), ready[0], 0);
    for (i, &op) in ready.iter().enumerate().skip(1) {
        let k = pack(op);
        let lower = (k < best) | ((k == best) & (op < best_op));
        best = if lower { k } else { best };
        best_op = if lower { op } else { best_op };
        slot = if lower { i } else { slot };
    }
    slot
}

/// Inductor's `topological_sort_bfs`: among ready ops, the one whose operands
/// ran earliest (the sorted list of its operands' positions in the schedule,
/// compared lexicographically), then program order. A FIFO that keeps
/// buffers short-lived.
///
/// Wrong on `A -> a[10]; B -> b[10]; C(b); D(a)`: both sources have no
/// operands, so A (first in program order) runs first and a waits for D
/// while b is live: peak 20; `B, C, A, D` peaks at 10 (unit test
/// `bfs_is_wrong_here`).
///
/// Each op's list is built as its operands run (positions come in
/// increasing order, so it is born sorted) and a ready op is keyed by one
/// packed `u128` ([`BfsQueue`]).
///
/// # Complexity
/// O((n + m) log n) after [`OpView`].
#[derive(Debug, Default, Clone, Copy)]
pub struct InductorBfs;

op_scheduler!(InductorBfs, "inductor-bfs");

impl OpScheduler for InductorBfs {
    fn decide(&self, _g: &Graph, view: &OpView, ctx: &SolveContext) -> Decision {
        let m = view.op_count();
        let mut queue = BfsQueue::new(m, view.users());
        let mut op_order: Vec<u32> = Vec::with_capacity(m);
        let mut ticker = DeadlineTicker::new(1 << 12);
        while let Some(sel) = queue.pop() {
            if ticker.expired(ctx) {
                return Decision::Stopped(Outcome::timed_out());
            }
            let position = op_order.len() as u32;
            op_order.push(sel);
            queue.ran(view.users().neighbors(sel), position);
        }
        if op_order.len() != m {
            return Decision::Stopped(Outcome::failed("inductor-bfs: some op never became ready"));
        }
        Decision::Ops(op_order)
    }
}

/// Inductor's `topological_sort_dfs`: a DFS post-order whose outer loop and
/// operand visits both go in increasing `size_with_reads` (bytes the op
/// defines plus the bytes of the buffers it reads, its own not among them),
/// then program order.
///
/// Wrong on `A -> a[10]; B -> b[10]; C(b); D(a)`: A and B have equal
/// `size_with_reads`, A is visited first and a stays live while b is: peak
/// 20; `B, C, A, D` peaks at 10 (unit test `dfs_is_wrong_here`).
///
/// # Complexity
/// O((n + m) log n) after [`OpView`].
#[derive(Debug, Default, Clone, Copy)]
pub struct InductorDfs;

op_scheduler!(InductorDfs, "inductor-dfs");

impl OpScheduler for InductorDfs {
    fn decide(&self, g: &Graph, view: &OpView, ctx: &SolveContext) -> Decision {
        let m = view.op_count();
        // An op's own buffers are not among its reads (Inductor's
        // `pred_buffers`), though the view lists a buffer no op reads as
        // used by its definer: such buffers (rare) are taken out after.
        let self_user = view.self_users(g);
        let with_reads = |op: u32, skip_own: bool| -> i64 {
            view.uses()
                .neighbors(op)
                .iter()
                .filter(|&&b| !skip_own || self_user[b as usize] != op)
                // Saturating: on a general graph an op may own, through a
                // chain of ALLOCs, a buffer it also uses.
                .fold(view.defined()[op as usize], |acc, &b| {
                    acc.saturating_add(view.buffer_size(b))
                })
        };
        let mut size_with_reads: Vec<i64> = (0..m as u32).map(|op| with_reads(op, false)).collect();
        // Once per such definer: an op defining k unread buffers was
        // summed k times (k^2 on a graph of many dead outputs).
        let mut definers: Vec<u32> = self_user.iter().copied().filter(|&d| d != NO_OP).collect();
        definers.sort_unstable();
        definers.dedup();
        for d in definers {
            size_with_reads[d as usize] = with_reads(d, true);
        }
        let by_key =
            |list: &mut [u32]| list.sort_unstable_by_key(|&o| (size_with_reads[o as usize], o));
        let mut order = Vec::with_capacity(m);
        post_order_by(
            m,
            ops_by_key(&size_with_reads),
            view.operands(),
            by_key,
            |op| order.push(op),
        );
        Decision::ops_in_time(order, ctx)
    }
}

/// Op numbers sorted by `keys[op]` (bytes, never negative), ties in op
/// order: a stable LSD radix sort over the key bytes that are not all
/// zero. When a key's bits and an op number's fit in 64 together (keys
/// below 2^44 on a million ops), each op travels packed under its key in
/// one `u64`, half the bytes of a (key, op) pair.
///
/// # Complexity
/// O(m · b) for keys of b significant bytes.
pub(super) fn ops_by_key(keys: &[i64]) -> Vec<u32> {
    debug_assert!(keys.iter().all(|&k| k >= 0), "negative bytes");
    let op_bits = u32::BITS - (keys.len() as u32).leading_zeros();
    // Not negative, so the keys sort as unsigned.
    let keys = || keys.iter().map(|&k| k as u64);
    let key_bits = u64::BITS - keys().max().unwrap_or(0).leading_zeros();
    if key_bits + op_bits <= u64::BITS {
        let packed = keys().zip(0..).map(|(k, o)| k << op_bits | o);
        let sorted = stable_radix_sort(packed.collect(), key_bits, |x| x >> op_bits);
        let op_mask = (1u64 << op_bits) - 1;
        return sorted.into_iter().map(|x| (x & op_mask) as u32).collect();
    }
    let pairs = keys().zip(0..).map(|(k, o): (u64, u32)| (k, o));
    let sorted = stable_radix_sort(pairs.collect(), key_bits, |(k, _)| k);
    sorted.into_iter().map(|(_, o)| o).collect()
}

/// `items` stably sorted by the low `bits` bits of `key`, a byte per pass.
fn stable_radix_sort<T: Copy + Default>(
    mut items: Vec<T>,
    bits: u32,
    key: impl Fn(T) -> u64,
) -> Vec<T> {
    let mut spare = vec![T::default(); items.len()];
    for shift in (0..bits.div_ceil(8)).map(|b| 8 * b) {
        let digit = |x: T| ((key(x) >> shift) & 0xff) as usize;
        let mut start = [0usize; 256];
        for &x in &items {
            start[digit(x)] += 1;
        }
        let mut sum = 0;
        for slot in &mut start {
            (*slot, sum) = (sum, sum + *slot);
        }
        for &x in &items {
            spare[start[digit(x)]] = x;
            start[digit(x)] += 1;
        }
        std::mem::swap(&mut items, &mut spare);
    }
    items
}

#[cfg(test)]
mod tests {
    use super::super::tests::{
        assert_writes_its_expansion, assert_wrong, lowered, op_order, unread_buffer,
    };
    use super::*;
    use crate::rng::Rng;

    /// lpmf writes its node order as it goes where it can, the expansion
    /// of its op order.
    #[test]
    fn lpmf_writes_the_expansion_of_its_op_order() {
        let ctx = SolveContext::default();
        assert_writes_its_expansion(|g, view| lpmf(g, view, &ctx, SCAN_MAX));
    }

    /// `lowest_key` finds the lowest `(key, op)`, as a scan by tuples
    /// does, over signed keys and ties in either slot.
    #[test]
    fn lowest_key_is_the_tuple_minimum() {
        let mut rng = Rng::new(7);
        for _ in 0..500 {
            let len = 1 + rng.below(9) as usize;
            let ready: Vec<u32> = (0..len).map(|_| rng.below(40) as u32).collect();
            let second = [i64::MIN, -1, 0, i64::MAX];
            let key = |op: u32| ((op as i64 % 3) - 1, second[op as usize % 4]);
            let want = (0..len)
                .min_by_key(|&i| (key(ready[i]), ready[i], i))
                .unwrap();
            let got = lowest_key(&ready, key);
            assert_eq!(
                (key(ready[got]), ready[got]),
                (key(ready[want]), ready[want])
            );
        }
    }

    #[test]
    fn ops_by_key_sorts_by_key_then_op() {
        let mut rng = Rng::new(3);
        for (len, range) in [
            (0, 1),
            (1, 1),
            (50, 4),
            (500, 1 << 20),
            (300, i64::MAX as u64),
            (300, 1 << 55),
            (256, 1 << 56),
            (255, 1 << 56),
        ] {
            let keys: Vec<i64> = (0..len).map(|_| (rng.next_u64() % range) as i64).collect();
            let mut expected: Vec<u32> = (0..len as u32).collect();
            expected.sort_by_key(|&o| (keys[o as usize], o));
            assert_eq!(ops_by_key(&keys), expected);
        }
    }

    /// The tree chooses as the scan does: every generator family, both
    /// encodings, a scan throughout against a tree from the first step.
    #[test]
    fn lpmf_tree_chooses_as_the_scan() {
        use crate::corpus::gen::{generate, GenSpec};
        let ctx = SolveContext::default();
        for spec in [
            "random-layered:layers=12,width=9",
            "tensor-program:ops=60",
            "series-parallel:ops=50",
            "fork-join:branches=40,depth=2,jitter=0.5",
            "tree:depth=5",
            "randwire",
            "tensor-program:ops=60,allocs=floating",
            "random-layered:layers=12,width=9,allocs=floating",
        ] {
            for seed in 0..4 {
                let g = generate(&GenSpec::parse(spec).unwrap(), seed).unwrap();
                let view = OpView::new(&g).unwrap();
                let ops = |scan_max| match lpmf(&g, &view, &ctx, scan_max) {
                    Decision::Stopped(out) => panic!("{spec}: {out:?}"),
                    decision => decision.into_outcome(&g, &view).order,
                };
                assert_eq!(ops(usize::MAX), ops(0), "{spec} seed {seed}");
            }
        }
    }

    #[test]
    fn lpmf_is_wrong_here() {
        let g = lowered(&[
            (&[], &[10]),
            (&[], &[10]),
            (&[(1, 0)], &[1]),
            (&[(0, 0), (2, 0)], &[]),
        ]);
        assert_wrong(&InductorLpmf, &g, 21, 11);
    }

    #[test]
    fn bfs_is_wrong_here() {
        let g = lowered(&[
            (&[], &[10]),
            (&[], &[10]),
            (&[(1, 0)], &[]),
            (&[(0, 0)], &[]),
        ]);
        assert_wrong(&InductorBfs, &g, 20, 10);
    }

    #[test]
    fn dfs_is_wrong_here() {
        let g = lowered(&[
            (&[], &[10]),
            (&[], &[10]),
            (&[(1, 0)], &[]),
            (&[(0, 0)], &[]),
        ]);
        assert_wrong(&InductorDfs, &g, 20, 10);
    }

    /// X's buffer is read by no op, so it is not among X's reads
    /// (Inductor's `pred_buffers`): X, Y and F all have `size_with_reads`
    /// 10 and run in program order, peak 10. Counted twice, X went last
    /// (Y, X, F: peak 20).
    #[test]
    fn dfs_does_not_count_a_buffer_nobody_reads_as_read() {
        let g = unread_buffer();
        assert_eq!(op_order(&InductorDfs, &g), [0, 1, 2]);
        let r = crate::solvers::run(&InductorDfs, &g, &SolveContext::default());
        assert_eq!(r.peak, Some(10));
    }

    #[test]
    fn default_is_wrong_here() {
        // Program order is A, B, C, D too: every member peaks at 21.
        let g = lowered(&[
            (&[], &[10]),
            (&[], &[10]),
            (&[(1, 0)], &[1]),
            (&[(0, 0), (2, 0)], &[]),
        ]);
        assert_wrong(&super::super::inductor_default(), &g, 21, 11);
    }
}
