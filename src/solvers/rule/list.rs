//! `rule:EXPR`: a list scheduler whose ready set is ordered by a rule's key.
//!
//! At each step the ready node (all predecessors run) with the smallest key
//! runs; ties are broken by id, then by index, so the schedule is fully
//! determined (by the seed too, if the rule reads `random`).
//! `rule:delta,type,id` is exactly the article's greedy (`seed-greedy`).
//!
//! Dynamic keys: `unlocks(x)` and `frees_after(x)` count the successors `w`
//! of a ready node `x` whose only unrun predecessor is `x`. The scheduler
//! keeps `pending[w]`, the number of distinct unrun predecessors, and the XOR
//! of those predecessors. A node's features change only when `pending[w]` of
//! one of its successors drops to 1 (it never goes back up), and then
//! exactly one node is affected: the last unrun predecessor of `w`, which the
//! XOR names. Its counters go up in O(1) and, if it is ready, it is re-keyed
//! (a new queue entry; stale entries are skipped when popped). Every popped
//! key is therefore the exact current key, at O(m) extra work over a run.
//! When the rule reads the dynamic features with weights of at most 0 (as
//! `-unlocks` does), a re-key only lowers a key, so a node's first popped
//! entry is its live one and one bit per node tells the stale ones.
//!
//! Ready nodes wait in a [`KeyQueue`]: packed `u128` keys when the rule's
//! terms fit, with the nodes ready at the start sorted once instead of
//! heaped; otherwise the word arena (see [`super::queue`]). Packed keys are
//! computed before the run for every node, whole when the rule reads no
//! dynamic feature (the loop is then Kahn's with a priority queue), else
//! without their dynamic terms, which each push fills in.

use super::buckets::{self, Buckets};
use super::features::{Adj, Dynamic, Statics, Unlocks};
use super::packed::{KeyInt, Mode, Packed};
use super::parse::{Feature, Key, Term};
use super::queue::{ArenaQueue, KeyCtx, KeyQueue, PackedQueue};
use crate::graph::{Graph, NodeIdx};
use crate::prefetch::prefetch;
use crate::solvers::kahn::{list_schedule, prefetch_ahead, ReadySet};
use crate::solvers::{Abilities, DeadlineTicker, Outcome, Scheduler, SolveContext};

/// The node-mode rule scheduler.
///
/// A priority rule looks one node ahead. With the article's key
/// (`delta,type,id`) on the article's own encoding, where an ALLOC has no
/// predecessor: a chain of ops `op0 -> op1 -> op2 -> op3` whose outputs take
/// 4, 3, 2, 1 bytes. All four ALLOCs are ready at the start and nothing else
/// is, so it runs them smallest first before any op (peak 10) where
/// allocating each output just before its op peaks at 7. `moves:EXPR`
/// repairs this.
///
/// # Complexity
/// O((n + m) log n) time (times the number of terms), O(n + m) space.
#[derive(Debug, Clone)]
pub struct Rule {
    key: Key,
}

impl Rule {
    /// The scheduler for a parsed rule.
    pub fn new(key: Key) -> Self {
        Rule { key }
    }
}

impl Scheduler for Rule {
    fn name(&self) -> String {
        format!("rule:{}", self.key)
    }

    fn abilities(&self) -> Abilities {
        Abilities {
            seeded: self.key.uses(super::Feature::Random),
            ..Abilities::default()
        }
    }

    fn solve(&self, g: &Graph, ctx: &SolveContext) -> Outcome {
        let statics = Statics::new(g, &self.key, ctx.seed, None);
        let adj = Adj::new(g);
        match schedule(g, &adj, &self.key, &statics, ctx) {
            Some(order) => Outcome {
                note: super::packed::saturation_note(g, &adj, &statics, &self.key, Mode::Nodes),
                ..Outcome::feasible(order)
            },
            None => Outcome::timed_out(),
        }
    }
}

/// Runs the node-mode list scheduler on `g` (whose distinct adjacency is
/// `adj`) with the tables and seeds of `statics`; `None` if the deadline
/// passed.
pub(super) fn schedule(
    g: &Graph,
    adj: &Adj,
    key: &Key,
    statics: &Statics,
    ctx: &SolveContext,
) -> Option<Vec<NodeIdx>> {
    let rule = KeyCtx {
        g,
        adj,
        statics,
        key,
    };
    match Packed::layout(g, adj, statics, key, Mode::Nodes) {
        Some(packed) if packed.fits_u64() => packed_run::<u64>(&rule, packed, ctx),
        Some(packed) => packed_run::<u128>(&rule, packed, ctx),
        None => run(&rule, ArenaQueue::new(g.node_count(), key), ctx),
    }
}

/// The list scheduler with packed keys held in `K`.
fn packed_run<K: KeyInt>(r: &KeyCtx, packed: Packed, ctx: &SolveContext) -> Option<Vec<NodeIdx>> {
    let (g, key, statics) = (r.g, r.key, r.statics);
    if key.is_dynamic() {
        return run(r, PackedQueue::<K>::rekeyed(packed, r), ctx);
    }
    let keys = packed.static_keys::<K>(g, r.adj, statics, key);
    match rising_first_term(key, statics) {
        Some((column, max, descending)) if buckets::fit(&packed) => {
            list_schedule(g, Buckets::new(packed, keys, column, max, descending), ctx)
        }
        _ => list_schedule(g, StaticKeys(PackedQueue::new(packed, keys)), ctx),
    }
}

/// The column of the first term, its largest value, and whether it is read
/// descending, when that term rises strictly along every edge: `depth` (a
/// successor is deeper) or `-height` (it is lower), under any positive
/// weight, without noise. A static rule that starts with one runs on
/// [`Buckets`].
fn rising_first_term<'s>(key: &Key, statics: &'s Statics) -> Option<(&'s [u32], u32, bool)> {
    if statics.noisy() {
        return None;
    }
    let (w, (column, max), descending) = match key.terms.first()? {
        Term::Int(sum) => match sum.as_slice() {
            [(w, Feature::Depth)] if *w > 0 => (*w, statics.column(Feature::Depth)?, false),
            [(w, Feature::Height)] if *w < 0 => (*w, statics.column(Feature::Height)?, true),
            _ => return None,
        },
        Term::Float(_) => return None,
    };
    // The key saturates `w * value`: past i64's range values would tie in
    // the heap but not in the buckets.
    w.checked_mul(max as i64)?;
    Some((column, max, descending))
}

/// A static rule's queue as Kahn's ready set: every node's packed key is in
/// the queue from the start, so the loop is Kahn's with a priority queue in
/// place of the FIFO.
struct StaticKeys<K>(PackedQueue<K>);

impl<K: KeyInt> ReadySet for StaticKeys<K> {
    #[inline]
    fn push(&mut self, v: NodeIdx) {
        self.0.push_static(v);
    }

    #[inline]
    fn pop(&mut self) -> Option<NodeIdx> {
        KeyQueue::pop(&mut self.0)
    }

    #[inline]
    fn ahead(&self, d: usize) -> Option<NodeIdx> {
        KeyQueue::ahead(&self.0, d)
    }

    #[inline]
    fn prefetch_push(&self, v: NodeIdx) {
        KeyQueue::prefetch_push(&self.0, v);
    }
}

/// Per node: the number of its distinct unrun predecessors and their XOR,
/// side by side so that the scheduler's one random access per edge reads
/// both from one cache line.
#[derive(Clone, Copy)]
struct Waiting {
    pending: u32,
    unrun_xor: NodeIdx,
}

/// The counters at the start: each node with one predecessor credits it.
fn starting_unlocks(g: &Graph, waiting: &[Waiting]) -> Unlocks {
    let mut u = Unlocks::new(g.node_count());
    for (w, state) in waiting.iter().enumerate() {
        if state.pending == 1 {
            u.credit(g, w as NodeIdx, state.unrun_xor);
        }
    }
    u
}

/// The list scheduler over any queue.
fn run(r: &KeyCtx, mut queue: impl KeyQueue, ctx: &SolveContext) -> Option<Vec<NodeIdx>> {
    let (g, adj) = (r.g, r.adj);
    let n = g.node_count();
    let mut waiting: Vec<Waiting> = g
        .nodes()
        .map(|v| Waiting {
            pending: adj.preds(v).len() as u32,
            unrun_xor: adj.preds(v).iter().fold(0, |acc, &p| acc ^ p),
        })
        .collect();
    let mut unlocks = r.key.is_dynamic().then(|| starting_unlocks(g, &waiting));
    let reads_unlocks = r.key.uses(Feature::Unlocks);
    let features = |unlocks: &Option<Unlocks>, v: NodeIdx| Dynamic::counted(g, v, unlocks.as_ref());
    for v in g.nodes() {
        if waiting[v as usize].pending == 0 {
            queue.push(r, v, &features(&unlocks, v));
        }
    }
    let mut order = Vec::with_capacity(n);
    let mut ticker = DeadlineTicker::new(1 << 14);
    while let Some(u) = queue.pop() {
        if ticker.expired(ctx) {
            return None;
        }
        order.push(u);
        prefetch_ahead(
            adj.succ_csr(),
            |d| queue.ahead(d),
            |w| {
                prefetch(&waiting, w as usize);
                queue.prefetch_push(w);
            },
        );
        for &w in adj.succs(u) {
            let state = &mut waiting[w as usize];
            state.pending -= 1;
            state.unrun_xor ^= u;
            let Waiting { pending, unrun_xor } = *state;
            if pending == 0 {
                queue.push(r, w, &features(&unlocks, w));
            } else if pending == 1 {
                if let Some(c) = &mut unlocks {
                    // The last unrun predecessor of `w` now unlocks it: re-key it if ready.
                    // Its key changes only if the rule reads `unlocks`, or
                    // `w` is a FREE (its bytes go to `frees_after`).
                    let x = unrun_xor;
                    c.credit(g, w, x);
                    if waiting[x as usize].pending == 0 && (reads_unlocks || g.delta(w) < 0) {
                        queue.push(r, x, &features(&unlocks, x));
                    }
                }
            }
        }
    }
    Some(order)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::corpus::gen::{generate, GenSpec};
    use crate::corpus::program::{AllocEncoding, TensorProgram};
    use crate::graph::GraphBuilder;
    use crate::schedule::check;
    use crate::solvers::rule::packed::rekeying_only_lowers;
    use crate::solvers::rule::parse;

    fn order(g: &Graph, rule: &str) -> Vec<i64> {
        let key = parse(rule).unwrap();
        let ctx = SolveContext::default();
        let statics = Statics::new(g, &key, ctx.seed, None);
        g.to_ids(&schedule(g, &Adj::new(g), &key, &statics, &ctx).unwrap())
    }

    /// Small random graphs of both encodings and tensor programs, named by
    /// their spec: `seeds` of each kind, the anchored ones `width` wide.
    pub(crate) fn small_graphs(seeds: u64, width: u32) -> Vec<(String, Graph)> {
        let mut graphs = Vec::new();
        for seed in 0..seeds {
            for spec in [
                format!("random-layered:layers={},width=5,allocs=floating", 2 + seed),
                format!(
                    "random-layered:layers={},width={width},allocs=anchored",
                    3 + seed
                ),
                format!("tensor-program:ops={}", 5 + 3 * seed),
            ] {
                let g = generate(&GenSpec::parse(&spec).unwrap(), seed).unwrap();
                graphs.push((spec, g));
            }
        }
        graphs
    }

    /// A chain of four ops, outputs of 4, 3, 2, 1 bytes, floating ALLOCs.
    pub(crate) fn floating_chain() -> Graph {
        let mut p = TensorProgram::new();
        let mut prev = None;
        for (i, bytes) in [4u64, 3, 2, 1].into_iter().enumerate() {
            let inputs: Vec<_> = prev.into_iter().collect();
            prev = Some(p.op1(format!("op{i}"), &inputs, bytes));
        }
        p.to_graph(AllocEncoding::Floating).unwrap()
    }

    #[test]
    fn article_rule_runs_floating_allocs_early() {
        let g = floating_chain();
        let key = parse("delta,type,id").unwrap();
        let ctx = SolveContext::default();
        let statics = Statics::new(&g, &key, ctx.seed, None);
        let o = schedule(&g, &Adj::new(&g), &key, &statics, &ctx).unwrap();
        // Smallest ALLOC first, all four before any op: peak 4+3+2+1.
        assert_eq!(check(&g, &o).unwrap().peak, 10);
        let ids = g.to_ids(&o);
        assert!(ids[..4]
            .iter()
            .all(|&i| g.kind(g.index_of(i).unwrap()) == crate::NodeKind::Alloc));
    }

    /// Runs the static rule `rule` on `g` with the bucket queue or with the
    /// heap of the same packed keys.
    fn static_order(g: &Graph, rule: &str, bucketed: bool) -> Vec<NodeIdx> {
        let key = parse(rule).unwrap();
        let ctx = SolveContext::default();
        let statics = Statics::new(g, &key, ctx.seed, None);
        let adj = Adj::new(g);
        let packed = Packed::layout(g, &adj, &statics, &key, Mode::Nodes).unwrap();
        let keys = packed.static_keys::<u128>(g, &adj, &statics, &key);
        let order = if bucketed {
            let (column, max, descending) = rising_first_term(&key, &statics).unwrap();
            assert!(buckets::fit(&packed));
            list_schedule(g, Buckets::new(packed, keys, column, max, descending), &ctx)
        } else {
            list_schedule(g, StaticKeys(PackedQueue::new(packed, keys)), &ctx)
        };
        order.unwrap()
    }

    /// The bucket queue pops what a heap of the same keys pops, first term
    /// ascending or descending, under any positive weight.
    #[test]
    fn buckets_pop_like_the_heap() {
        let rules = [
            "-height,delta,id",
            "depth,-id",
            "-3*height,size",
            "2*depth,type,-delta",
        ];
        for (spec, g) in small_graphs(12, 3) {
            for rule in rules {
                let bucketed = static_order(&g, rule, true);
                assert_eq!(bucketed, static_order(&g, rule, false), "{rule} on {spec}");
                assert!(check(&g, &bucketed).is_ok());
            }
        }
    }

    /// Only a first term that rises along every edge takes the buckets.
    #[test]
    fn rising_first_terms() {
        let g = floating_chain();
        let rising = |rule: &str| {
            let key = parse(rule).unwrap();
            rising_first_term(&key, &Statics::new(&g, &key, 1, None)).map(|(_, _, desc)| desc)
        };
        assert_eq!(rising("depth,id"), Some(false));
        assert_eq!(rising("-height,id"), Some(true));
        assert_eq!(rising("2*depth"), Some(false));
        for rule in [
            "height,id",
            "-depth",
            "0.5*depth",
            "depth+size",
            "id,depth",
            "delta",
        ] {
            assert_eq!(rising(rule), None, "{rule}");
        }
        // A weight that saturates the key on this graph's depths: the heap
        // would see ties the buckets would not, so the heap it is.
        let key = Key {
            terms: vec![Term::Int(vec![(i64::MAX / 2, Feature::Depth)])],
            text: "huge*depth".into(),
        };
        assert!(rising_first_term(&key, &Statics::new(&g, &key, 1, None)).is_none());
    }

    /// Runs the dynamic rule `rule` on `g` with packed keys (whichever way
    /// the queue tells stale entries) or with the word arena.
    fn dynamic_order(g: &Graph, rule: &str, packed: bool) -> Vec<NodeIdx> {
        let key = parse(rule).unwrap();
        let ctx = SolveContext::default();
        let statics = Statics::new(g, &key, ctx.seed, None);
        let adj = Adj::new(g);
        let r = KeyCtx {
            g,
            adj: &adj,
            statics: &statics,
            key: &key,
        };
        let order = if packed {
            let layout = Packed::layout(g, &adj, &statics, &key, Mode::Nodes).unwrap();
            packed_run::<u128>(&r, layout, &ctx)
        } else {
            run(&r, ArenaQueue::new(g.node_count(), &key), &ctx)
        };
        order.unwrap()
    }

    /// Packed queues pop what the word arena pops, for rules whose
    /// re-keying only lowers keys (one bit per node tells stale entries)
    /// and for rules where it raises them (the current key per node).
    #[test]
    fn dynamic_packed_keys_pop_like_the_arena() {
        let rules = [
            ("-unlocks,-frees_after,delta,id", true),
            ("-2*unlocks-frees_after,id", true),
            ("delta,-0.5*frees_after,-id", true),
            ("unlocks,delta,id", false),
            ("-unlocks,frees_after,id", false),
            ("size-unlocks,0.25*frees_after,id", false),
        ];
        for (rule, lowers) in rules {
            assert_eq!(
                rekeying_only_lowers(&parse(rule).unwrap(), Mode::Nodes),
                lowers,
                "{rule}"
            );
        }
        for (spec, g) in small_graphs(10, 4) {
            for (rule, _) in rules {
                let packed = dynamic_order(&g, rule, true);
                assert_eq!(packed, dynamic_order(&g, rule, false), "{rule} on {spec}");
                assert!(check(&g, &packed).is_ok());
            }
        }
    }

    #[test]
    fn unlocks_is_kept_exact_as_predecessors_run() {
        // x and y both ready; z needs x and y; a FREE-like sink f after x only.
        // After y runs, x unlocks z too: unlocks(x) goes from 1 to 2.
        let mut b = GraphBuilder::new();
        let x = b.op("x");
        let y = b.op("y");
        let w = b.op("w");
        let z = b.op("z");
        let f = b.op("f");
        for (u, v) in [(x, z), (y, z), (x, f), (w, f)] {
            b.edge(u, v);
        }
        let g = b.build().unwrap();
        // Most unlocks first, then id: all 0 at the start, x runs; then y and
        // w each become the last predecessor of z and f (unlocks 1): y, w.
        assert_eq!(order(&g, "-unlocks,id"), vec![0, 1, 2, 3, 4]);
        // Most unlocks first, then highest id: w runs first; that makes x the
        // last predecessor of f, so x (now 1) beats y (0). A stale key would
        // have run y (higher id) next.
        assert_eq!(order(&g, "-unlocks,-id"), vec![2, 0, 1, 4, 3]);
    }
}
