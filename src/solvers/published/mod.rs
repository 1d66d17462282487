//! The compilers' published memory schedulers, mapped onto our graphs.
//!
//! XLA ([`xla`]) and PyTorch Inductor ([`inductor`]) schedule *ops* whose
//! outputs are buffers: an op **defines** its output buffers, and a buffer is
//! freed after its last **user**. Our graphs spell the same thing with nodes:
//! an op's output buffer is an ALLOC feeding it (`ALLOC -> op`), and the
//! buffer's FREE comes after its readers (`reader -> FREE`). This module holds
//! the two pieces every published scheduler shares:
//!
//! - [`OpView`]: the op-level graph. Ops are the compute nodes. `u` is an
//!   operand of `v` when a path `u -> .. -> v` runs through ALLOC/FREE nodes
//!   only (so every ordering constraint between ops is kept). Op `v` defines
//!   the ALLOCs it pulls in (ALLOC-only paths backwards from `v`); when several
//!   ops could pull one ALLOC, the first in program order owns it. A buffer
//!   (a FREE node) is used by the ops that reach its FREE through ALLOC/FREE
//!   nodes only, normally its direct readers.
//! - [`Expander`]: turns op decisions into a full node order. An ALLOC runs
//!   just before the first node that needs it (fact F2), a FREE runs as soon
//!   as it is ready (fact F1), and ALLOCs nobody needs run at the very end
//!   (F2 again).
//!
//! # Graphs off the pattern
//! The output is always a topological order of *all* nodes:
//! - an ALLOC feeding several nodes is pulled in by whichever runs first; the
//!   heuristics charge it to its owner (first in program order), so when
//!   another op runs first its priority did not count those bytes;
//! - an ALLOC with no successor (a graph output nobody reads) runs last;
//! - a compute node with no ALLOC defines 0 bytes;
//! - a FREE with extra edges: edges into it delay it (it still runs the
//!   moment it is ready); edges out of it become operand edges between the ops
//!   on either side; a FREE that needs an ALLOC not yet run (an ALLOC -> FREE
//!   edge for a buffer nobody reads) pulls that ALLOC in just before itself;
//! - a graph with no compute node at all: FREEs and their ALLOCs as soon as
//!   possible, the remaining ALLOCs last.

mod bfs_queue;
pub mod inductor;
mod lpmf_tree;
pub mod xla;

pub use inductor::{InductorBfs, InductorDfs, InductorLpmf};
pub use xla::{XlaDfs, XlaList, XlaPostOrder};

use super::{BestOf, Outcome, ProgramOrder, SolveContext};
use std::sync::OnceLock;

use crate::graph::{Csr, Graph, NodeIdx, NodeKind};

/// The registry names of the eight published schedulers, XLA's then
/// Inductor's, each family's best-of last.
pub const NAMES: [&str; 8] = [
    "xla-list",
    "xla-dfs",
    "xla-postorder",
    "xla-default",
    "inductor-lpmf",
    "inductor-bfs",
    "inductor-dfs",
    "inductor-default",
];

/// `xla-default`: XLA's `DefaultMemoryScheduler`, the lowest peak of list,
/// DFS and post-order (ties in that order, as XLA breaks them).
pub fn xla_default() -> BestOf {
    BestOf::new(
        "xla-default",
        vec![Box::new(XlaList), Box::new(XlaDfs), Box::new(XlaPostOrder)],
    )
}

/// `inductor-default`: Inductor's `reorder_for_peak_memory`, the lowest peak
/// of the original order (when it is a schedule), LPMF, BFS and DFS (ties in
/// that order, as Inductor's `min` keeps the first).
pub fn inductor_default() -> BestOf {
    BestOf::new(
        "inductor-default",
        vec![
            Box::new(ProgramOrder),
            Box::new(InductorLpmf),
            Box::new(InductorBfs),
            Box::new(InductorDfs),
        ],
    )
}

/// A published scheduler that decides an op order on an [`OpView`]. Its
/// [`Scheduler`](super::Scheduler) impl builds the view, calls
/// [`decide`](OpScheduler::decide) and expands the decision; a best-of of
/// several builds the view once, shares it, and expands only the winner.
pub trait OpScheduler: Send + Sync {
    /// Decides a schedule of `g` whose op view is `view`.
    fn decide(&self, g: &Graph, view: &OpView, ctx: &SolveContext) -> Decision;
}

/// What an [`OpScheduler`] decided.
#[derive(Debug)]
pub enum Decision {
    /// A complete op order (op numbers), still to expand.
    Ops(Vec<u32>),
    /// A node order the scheduler expanded as it went: what
    /// [`OpView::expand`] would make of its op order (the crate's own
    /// schedulers write it step by step as they decide).
    Nodes(Vec<NodeIdx>),
    /// No order: timed out or failed.
    Stopped(Outcome),
}

impl Decision {
    /// An op order, unless the deadline passed while it was built (the DFS
    /// schedulers check the clock here, their work before is near-linear).
    pub(crate) fn ops_in_time(op_order: Vec<u32>, ctx: &SolveContext) -> Decision {
        if ctx.expired() {
            Decision::Stopped(Outcome::timed_out())
        } else {
            Decision::Ops(op_order)
        }
    }

    /// The outcome: an op order expanded by `view`, or the node order a
    /// scheduler wrote itself.
    pub fn into_outcome(self, g: &Graph, view: &OpView) -> Outcome {
        match self {
            Decision::Ops(ops) => match view.expand(g, &ops) {
                Ok(order) => Outcome::feasible(order),
                Err(e) => Outcome::failed(e),
            },
            Decision::Nodes(order) => Outcome::feasible(order),
            Decision::Stopped(out) => out,
        }
    }
}

/// Implements [`Scheduler`](super::Scheduler) for op schedulers: the view is
/// built per solve, or shared through [`op_scheduler`](super::Scheduler::op_scheduler).
macro_rules! op_scheduler {
    ($ty:ty, $name:literal) => {
        impl $crate::solvers::Scheduler for $ty {
            fn name(&self) -> String {
                $name.into()
            }

            fn solve(&self, g: &Graph, ctx: &SolveContext) -> Outcome {
                match $crate::solvers::published::OpView::new(g) {
                    Ok(view) => {
                        $crate::solvers::published::OpScheduler::decide(self, g, &view, ctx)
                            .into_outcome(g, &view)
                    }
                    Err(e) => $crate::solvers::Outcome::failed(e),
                }
            }

            fn op_scheduler(&self) -> Option<&dyn $crate::solvers::published::OpScheduler> {
                Some(self)
            }
        }
    };
}
pub(crate) use op_scheduler;

/// Most op-user (or op-buffer) pairs an [`OpView`] holds: 1 GiB of each.
/// Lowered graphs have about one pair per edge.
const MAX_PAIRS: usize = 1 << 28;

/// Marker for "no op" in op-indexed tables.
const NO_OP: u32 = u32::MAX;

/// Tags a FREE's buffer number in [`OpView`]'s node table.
const FREE_BIT: u32 = 1 << 31;

/// The op-level view of a graph: ops, their operands and users, the bytes
/// each defines and the buffers each uses. Ops are numbered `0..op_count()`
/// in program order.
///
/// # Complexity
/// O(n + m) on graphs where each op reaches few ALLOC/FREE nodes (every
/// lowered graph); in general O(Σ over ops of the ALLOC/FREE region reachable
/// from the op), O(n · m) in the worst case.
#[derive(Debug, Clone)]
pub struct OpView {
    /// The compute node of each op.
    ops: Vec<NodeIdx>,
    /// Node -> op number of a compute node (see [`OpView::op_of`]); for a
    /// FREE, [`FREE_BIT`] and its buffer number; [`NO_OP`] for an ALLOC.
    index_of: Vec<u32>,
    /// Number of users of each op.
    user_count: Vec<u32>,
    /// Bytes of the ALLOCs each op owns ("bytes defined").
    defined: Vec<i64>,
    /// Users of each op, in program order (sorted where the rows came
    /// out of order).
    users: Csr,
    /// Buffers each op uses, in discovery order.
    uses: Csr,
    operands: OnceLock<Csr>,
    buffer_users: OnceLock<Csr>,
    /// The FREE node of each buffer.
    buffers: Vec<NodeIdx>,
    /// Bytes of each buffer (its FREE's size).
    buffer_bytes: Vec<i64>,
    /// Bytes of ALLOCs that have no FREE (graph outputs).
    output_bytes: i64,
    /// ALLOCs with no successor, in program order, when the graph is
    /// [regular](OpView::is_regular); `None` otherwise.
    tail_allocs: Option<Vec<NodeIdx>>,
    /// Whether each op's users and uses are its own successors (see
    /// `direct_rows`).
    direct: bool,
}

impl OpView {
    /// Builds the op-level view of `g`: one pass to number ops and buffers,
    /// then each op's users and uses written straight into CSR rows. On a
    /// regular graph whose ALLOCs add no path between ops (every lowered
    /// graph) those are the op's own successors; otherwise one search per op
    /// through ALLOC/FREE nodes, which also claims the ALLOCs it owns.
    ///
    /// Fails when the view would hold more than [`MAX_PAIRS`] op-user or
    /// op-buffer pairs: ALLOC/FREE nodes that many ops both feed and read
    /// make the view quadratic in the graph, and past that it would take
    /// gigabytes (its `u32` offsets stay in range).
    pub fn new(g: &Graph) -> Result<OpView, String> {
        Self::with_pair_limit(g, MAX_PAIRS)
    }

    /// [`OpView::new`], failing beyond `limit` pairs of either kind.
    fn with_pair_limit(g: &Graph, limit: usize) -> Result<OpView, String> {
        let numbers = Numbering::new(g);
        let direct = numbers.rows_are_direct(g);
        let (mut rows, defined, sorted) = match direct {
            true => {
                let (rows, sorted) = direct_rows(g, &numbers, limit)?;
                (rows, numbers.regular_defined(), sorted)
            }
            false => {
                let (rows, defined) = searched_rows(g, &numbers, limit)?;
                (rows, defined, false)
            }
        };
        if !sorted {
            sort_rows(&rows.user_offsets, &mut rows.user_targets);
        }
        let user_count = rows.user_offsets.windows(2).map(|w| w[1] - w[0]).collect();
        let Numbering {
            ops,
            index_of,
            buffers,
            buffer_bytes,
            output_bytes,
            regular,
            tail_allocs,
            ..
        } = numbers;
        Ok(OpView {
            ops,
            index_of,
            user_count,
            defined,
            users: Csr::from_parts(rows.user_offsets, rows.user_targets),
            uses: Csr::from_parts(rows.use_offsets, rows.use_targets),
            operands: OnceLock::new(),
            buffer_users: OnceLock::new(),
            buffers,
            buffer_bytes,
            output_bytes,
            tail_allocs: regular.then_some(tail_allocs),
            direct,
        })
    }

    /// The compute node of each op, by op number.
    pub fn ops(&self) -> &[NodeIdx] {
        &self.ops
    }

    /// The number of users of each op.
    pub fn user_count(&self) -> &[u32] {
        &self.user_count
    }

    /// Bytes of the ALLOCs each op owns ("bytes defined").
    pub fn defined(&self) -> &[i64] {
        &self.defined
    }

    /// The FREE node of each buffer, by buffer number.
    pub fn buffers(&self) -> &[NodeIdx] {
        &self.buffers
    }

    /// Bytes of ALLOCs that have no FREE (graph outputs).
    pub fn output_bytes(&self) -> i64 {
        self.output_bytes
    }

    /// The op number of compute node `v`.
    #[inline]
    pub fn op_of(&self, v: NodeIdx) -> u32 {
        self.index_of[v as usize]
    }

    /// Operands of each op (deduplicated, in program order); built on
    /// first use.
    pub fn operands(&self) -> &Csr {
        self.operands
            .get_or_init(|| self.users.transpose(self.ops.len()))
    }

    /// Users of each op, in program order (as XLA's `users()` are in the
    /// order they were made), whatever the order of the file's `Edges`.
    pub fn users(&self) -> &Csr {
        &self.users
    }

    /// Buffers (indices into `buffers`) each op uses, each once per op
    /// (the search stamps what it has reached; direct rows are read only
    /// without parallel edges).
    pub fn uses(&self) -> &Csr {
        &self.uses
    }

    /// Ops using each buffer; built on first use.
    pub fn buffer_users(&self) -> &Csr {
        self.buffer_users
            .get_or_init(|| self.uses.transpose(self.buffers.len()))
    }

    /// Number of ops.
    pub fn op_count(&self) -> usize {
        self.ops.len()
    }

    /// Bytes of a buffer (its FREE's size).
    pub fn buffer_size(&self, b: u32) -> i64 {
        self.buffer_bytes[b as usize]
    }

    /// The op defining buffer `b`: the first, in program order, of the ops
    /// its ALLOC feeds (`None` if it feeds none).
    fn definer(&self, g: &Graph, b: u32) -> Option<u32> {
        let alloc = g.partner(self.buffers[b as usize])?;
        g.succs(alloc)
            .iter()
            .filter(|&&w| g.kind(w) == NodeKind::Compute)
            .map(|&w| self.op_of(w))
            .min()
    }

    /// For each buffer, its definer when the definer also *uses* it (its
    /// FREE is reached from the definer through ALLOC/FREE nodes, as a
    /// buffer no op reads is), else [`NO_OP`]. XLA and Inductor never count
    /// an op's own output among its operands: a dead buffer has no user.
    pub(crate) fn self_users(&self, g: &Graph) -> Vec<u32> {
        if self.direct {
            // A regular graph: an ALLOC feeds one op at most, and a use is
            // an edge to the FREE. One pass in buffer (node) order.
            return self
                .buffers
                .iter()
                .map(|&free| match g.partner(free).map(|a| g.succs(a)) {
                    Some(&[w]) if g.preds(free).contains(&w) => self.op_of(w),
                    _ => NO_OP,
                })
                .collect();
        }
        (0..self.buffers.len() as u32)
            .map(|b| match self.definer(g, b) {
                Some(d) if self.uses.neighbors(d).contains(&b) => d,
                _ => NO_OP,
            })
            .collect()
    }

    /// The operands of `op` in program order, into `out`: on direct rows
    /// read off its own predecessors, else from [`OpView::operands`].
    pub(crate) fn operands_of(&self, g: &Graph, op: u32, out: &mut Vec<u32>) {
        out.clear();
        if self.direct {
            let node = self.ops[op as usize];
            out.extend(
                g.preds(node)
                    .iter()
                    .filter(|&&p| g.kind(p) == NodeKind::Compute)
                    .map(|&p| self.op_of(p)),
            );
            out.sort_unstable();
        } else {
            out.extend_from_slice(self.operands().neighbors(op));
        }
    }

    /// Whether the graph is *regular*: every ALLOC has at most one
    /// successor, a compute node, and every FREE has no successor and only
    /// compute predecessors (every lowered graph). Then each op's step of
    /// the expansion is fixed: its ALLOCs, itself, the FREEs it releases.
    pub fn is_regular(&self) -> bool {
        self.tail_allocs.is_some()
    }

    /// Expands a complete order of op numbers into a node order, as
    /// [`expand`] does; on regular graphs without parallel edges from op
    /// data alone (see [`OpView::peak_of`]), and then an op order that runs
    /// an op before its operands is not an error here but a node order
    /// the checker rejects (see `walk_regular`).
    pub fn expand(&self, g: &Graph, op_order: &[u32]) -> Result<Vec<NodeIdx>, String> {
        if let Some(mut steps) = self.step_writer(g) {
            self.walk_regular(g, op_order, |step| match step {
                Step::Op(op) => steps.op(op),
                Step::Use { buffer, last } => steps.free_if(buffer, last),
            })?;
            return Ok(steps.finish());
        }
        let nodes = op_order.iter().map(|&o| self.ops[o as usize]);
        expand_with(Expander::for_view(g, self), g, nodes)
    }

    /// The peak [`schedule::check`](crate::schedule::check) finds on
    /// `self.expand(g, op_order)` when that is a schedule; an error, or a
    /// peak that means nothing, when it is not. On regular graphs from op
    /// data alone, without building the node order; on others by expanding.
    ///
    /// On a regular graph an op's step of the expansion runs its ALLOC
    /// predecessors (the bytes it defines: it owns them, nobody else can
    /// pull them), itself, then the FREEs whose last user it is, in the
    /// order of its edges; so memory peaks within the step right after the
    /// ALLOCs. The successor-less ALLOCs run last. (With parallel edges the
    /// FREEs' order may differ, so such graphs are expanded node by node.)
    pub fn peak_of(&self, g: &Graph, op_order: &[u32]) -> Result<u64, String> {
        let Some(tail) = self.short_path(g) else {
            let (mut mem, mut peak) = (0i64, 0i64);
            for v in self.expand(g, op_order)? {
                mem += g.delta(v);
                peak = peak.max(mem);
            }
            return Ok(peak as u64);
        };
        let (mut mem, mut peak) = (0i64, 0i64);
        self.walk_regular(g, op_order, |step| match step {
            Step::Op(op) => {
                mem += self.defined[op as usize];
                peak = peak.max(mem);
            }
            // A select, not a branch: which use is the last is unpredictable.
            Step::Use { buffer, last } => mem -= if last { self.buffer_size(buffer) } else { 0 },
        })?;
        mem += tail.iter().map(|&a| g.delta(a)).sum::<i64>();
        Ok(peak.max(mem) as u64)
    }

    /// A writer of the node order step by step, when op steps are fixed by
    /// op data (see [`OpView::peak_of`]): a scheduler that knows when each
    /// buffer's last user runs can expand as it goes, without
    /// [`OpView::expand`]'s second walk over its op order.
    pub(crate) fn step_writer<'a>(&'a self, g: &'a Graph) -> Option<StepWriter<'a>> {
        let tail = self.short_path(g)?;
        Some(StepWriter {
            g,
            view: self,
            order: Vec::with_capacity(g.node_count()),
            tail,
        })
    }

    /// The successor-less ALLOCs, when op steps are fixed by op data: the
    /// graph is regular and has no parallel edges.
    fn short_path(&self, g: &Graph) -> Option<&[NodeIdx]> {
        self.tail_allocs
            .as_deref()
            .filter(|_| !g.has_parallel_edges())
    }

    /// Runs `op_order` on a regular graph: each op, then each buffer it uses
    /// (in the order of its uses), saying whether the op was its last user;
    /// an error if an op runs after its last use has gone or the order is
    /// not as long as the ops.
    ///
    /// It does not check that each op's operands ran before it (that took a
    /// third of an expansion): [`schedule::check`](crate::schedule::check)
    /// does, on every order a solver returns, and [`BestOf`](super::BestOf)
    /// checks the order it ranked first before it keeps it.
    fn walk_regular(
        &self,
        g: &Graph,
        op_order: &[u32],
        mut step: impl FnMut(Step),
    ) -> Result<(), String> {
        // On a regular graph a buffer's users are its FREE's predecessors,
        // all ops, each once without parallel edges (the short path's
        // graphs): read off the FREEs in order, not counted by a pass of
        // scattered increments over every use.
        let mut users_left: Vec<u32> = self
            .buffers
            .iter()
            .map(|&free| g.preds(free).len() as u32)
            .collect();
        debug_assert_eq!(users_left, {
            let mut counted = vec![0u32; self.buffers.len()];
            for &b in self.uses.targets() {
                counted[b as usize] += 1;
            }
            counted
        });
        for &op in op_order {
            step(Step::Op(op));
            for &b in self.uses.neighbors(op) {
                let left = &mut users_left[b as usize];
                let Some(now) = left.checked_sub(1) else {
                    let v = self.ops[op as usize];
                    return Err(format!("op {} runs twice", g.id(v)));
                };
                *left = now;
                step(Step::Use {
                    buffer: b,
                    last: now == 0,
                });
            }
        }
        if op_order.len() != self.op_count() {
            return Err("the op order leaves some node unscheduled".to_string());
        }
        Ok(())
    }
}

/// The first pass of [`OpView::new`]: ops and buffers numbered in program
/// order, and what the rest of the build needs to know of the graph.
struct Numbering {
    ops: Vec<NodeIdx>,
    /// Op number of each compute node, [`FREE_BIT`] and the buffer number
    /// of each FREE, [`NO_OP`] for ALLOCs.
    index_of: Vec<u32>,
    buffers: Vec<NodeIdx>,
    buffer_bytes: Vec<i64>,
    output_bytes: i64,
    /// See [`OpView::is_regular`].
    regular: bool,
    /// ALLOCs with no successor, in program order.
    tail_allocs: Vec<NodeIdx>,
    /// On a regular graph, each ALLOC with a successor: that successor and
    /// the ALLOC's bytes.
    alloc_into: Vec<(NodeIdx, i64)>,
    /// Whether some ALLOC with a successor `w` has a predecessor that is
    /// not one of `w`'s: then the ALLOC adds a path between ops.
    allocs_add_paths: bool,
}

impl Numbering {
    fn new(g: &Graph) -> Self {
        // Sized up front: growing vectors of this size costs the allocator
        // more than passes over the kinds. One count per kind: a compare
        // and a sum that vectorize, where one pass of `count[k] += 1`
        // waits on the counter it just stored.
        let count = |kind: NodeKind| g.kinds.iter().filter(|&&k| k == kind).count();
        let frees = count(NodeKind::Free);
        let mut nb = Numbering {
            ops: Vec::with_capacity(count(NodeKind::Compute)),
            index_of: vec![NO_OP; g.node_count()],
            buffers: Vec::with_capacity(frees),
            buffer_bytes: Vec::with_capacity(frees),
            output_bytes: 0,
            regular: true,
            tail_allocs: Vec::new(),
            alloc_into: Vec::with_capacity(count(NodeKind::Alloc)),
            allocs_add_paths: false,
        };
        for v in g.nodes() {
            match g.kind(v) {
                NodeKind::Compute => {
                    nb.index_of[v as usize] = nb.ops.len() as u32;
                    nb.ops.push(v);
                }
                NodeKind::Free => {
                    // Below FREE_BIT: a FREE has an ALLOC partner, so n/2 at most.
                    nb.index_of[v as usize] = FREE_BIT | nb.buffers.len() as u32;
                    nb.buffers.push(v);
                    nb.buffer_bytes.push(g.size(v) as i64);
                    // Its predecessors are then compute nodes too: an ALLOC
                    // or FREE before it would have a successor of the wrong kind.
                    nb.regular &= g.succs(v).is_empty();
                }
                NodeKind::Alloc => {
                    if g.partner(v).is_none() {
                        nb.output_bytes += g.delta(v);
                    }
                    match g.succs(v) {
                        [] => nb.tail_allocs.push(v),
                        &[w] if g.kind(w) == NodeKind::Compute => {
                            nb.alloc_into.push((w, g.delta(v)));
                            nb.allocs_add_paths |= !contained(g.preds(v), g.preds(w));
                        }
                        _ => nb.regular = false,
                    }
                }
            }
        }
        nb
    }

    /// Whether each op's users and uses are read off its own edges
    /// ([`direct_rows`]): the graph is regular, has no parallel edges and
    /// no ALLOC adds a path between ops (and every op number is below
    /// [`FREE_BIT`], which graphs of fewer than 2^31 nodes guarantee).
    fn rows_are_direct(&self, g: &Graph) -> bool {
        self.regular
            && !self.allocs_add_paths
            && !g.has_parallel_edges()
            && self.ops.len() <= FREE_BIT as usize
    }

    /// Bytes each op defines on a regular graph: those of its ALLOC
    /// predecessors (each has that op as its only successor).
    fn regular_defined(&self) -> Vec<i64> {
        let mut defined = vec![0i64; self.ops.len()];
        for &(w, bytes) in &self.alloc_into {
            defined[self.index_of[w as usize] as usize] += bytes;
        }
        defined
    }
}

/// Whether every node of `sub` is in `of`: at once when `of` ends with
/// `sub` (an anchored ALLOC's predecessors are its op's last ones in our
/// lowering), else in one pass as a subsequence (both lists name their
/// shared nodes in one order), else by a search per node. A search per
/// node alone took a fifth of the anchored op view: a mispredicted loop
/// exit per node.
#[inline]
fn contained(sub: &[NodeIdx], of: &[NodeIdx]) -> bool {
    // Empty first: the floating encoding's ALLOCs have no predecessor.
    let mut rest = of.iter();
    sub.is_empty()
        || ends_with(of, sub)
        || sub.iter().all(|p| rest.any(|q| q == p))
        || sub.iter().all(|p| of.contains(p))
}

/// Whether `of` ends with `sub`, compared inline: [`slice::ends_with`]
/// calls `memcmp`, one call per ALLOC for lists of one to three nodes
/// (perf put a tenth of a loop of anchored views in `memcmp`).
#[inline]
fn ends_with(of: &[NodeIdx], sub: &[NodeIdx]) -> bool {
    of.len() >= sub.len()
        && of[of.len() - sub.len()..]
            .iter()
            .zip(sub)
            .all(|(a, b)| a == b)
}

/// Users and uses of each op, as CSR parts built one op at a time.
#[derive(Debug, PartialEq)]
struct Rows {
    user_offsets: Vec<u32>,
    user_targets: Vec<u32>,
    use_offsets: Vec<u32>,
    use_targets: Vec<u32>,
}

impl Rows {
    /// No op's rows yet.
    fn new(numbers: &Numbering) -> Self {
        let m = numbers.ops.len();
        let mut rows = Rows {
            user_offsets: Vec::with_capacity(m + 1),
            // A guess: ops of lowered graphs have a few users each.
            user_targets: Vec::with_capacity(m * 4),
            use_offsets: Vec::with_capacity(m + 1),
            use_targets: Vec::with_capacity(numbers.buffers.len()),
        };
        rows.user_offsets.push(0);
        rows.use_offsets.push(0);
        rows
    }

    /// Ends op `u`'s rows; an error once either kind passes `limit` pairs.
    #[inline]
    fn close(&mut self, g: &Graph, u: NodeIdx, limit: usize) -> Result<(), String> {
        let (users, uses) = (self.user_targets.len(), self.use_targets.len());
        self.close_at(g, u, limit, users, uses)
    }

    /// [`Rows::close`] where the rows end at `users` and `uses` targets.
    #[inline]
    fn close_at(
        &mut self,
        g: &Graph,
        u: NodeIdx,
        limit: usize,
        users: usize,
        uses: usize,
    ) -> Result<(), String> {
        if users.max(uses) > limit {
            return Err(too_many_pairs(g, u, limit));
        }
        self.user_offsets.push(users as u32);
        self.use_offsets.push(uses as u32);
        Ok(())
    }
}

/// Sorts each row of a CSR (`offsets`, `targets`) not sorted yet: op
/// numbers follow program order, so the users rows come out in program
/// order however the graph's edges were listed.
fn sort_rows(offsets: &[u32], targets: &mut [u32]) {
    for w in offsets.windows(2) {
        let row = &mut targets[w[0] as usize..w[1] as usize];
        if !row.is_sorted() {
            row.sort_unstable();
        }
    }
}

/// The error of a view that passes `limit` op-user or op-buffer pairs at
/// op `u`.
#[cold]
fn too_many_pairs(g: &Graph, u: NodeIdx, limit: usize) -> String {
    format!(
        "the op view is too large: more than {limit} op-user or op-buffer pairs, reached at \
         op `{}` (ALLOC/FREE nodes shared by many ops make it quadratic)",
        g.id(u)
    )
}

/// The rows of a regular graph without parallel edges, from each op's own
/// successors: its compute successors are its users and its FREE
/// successors its uses, in edge order, each once. That is the search's
/// result when no ALLOC adds a path between ops, i.e. when for every edge
/// `u -> a` into an ALLOC, `u -> w` is an edge too for `a`'s successor `w`
/// (the anchored encoding's `producer -> ALLOC -> op` beside `producer ->
/// op`; floating ALLOCs have no predecessor): see [`Numbering::rows_are_direct`].
///
/// Without branches on the kind: each successor's number is written to
/// both rows, and each row's length moves on only for its kind (the kinds
/// of successors alternate unpredictably, and a mispredicted branch per
/// edge cost more than the writes). Also says whether every users row came
/// out sorted (edges listed in order, as every generated and lowered graph
/// lists them), which spares [`sort_rows`] its pass.
fn direct_rows(g: &Graph, numbers: &Numbering, limit: usize) -> Result<(Rows, bool), String> {
    // Every pair is an edge out of an op. The vectors are locals, not
    // `Rows`' fields, so that the loop keeps them in registers.
    let bound = g.edge_count();
    let m = numbers.ops.len();
    let index_of = numbers.index_of.as_slice();
    let (mut user_targets, mut use_targets) = (vec![0u32; bound], vec![0u32; bound]);
    let (mut user_offsets, mut use_offsets) =
        (Vec::with_capacity(m + 1), Vec::with_capacity(m + 1));
    user_offsets.push(0);
    use_offsets.push(0);
    let (mut users, mut uses) = (0usize, 0usize);
    let mut unsorted = false;
    for &u in &numbers.ops {
        let mut last_user = 0;
        for &x in g.succs(u) {
            // One lookup tells the kind and the number; NO_OP (an ALLOC)
            // has FREE_BIT set and is neither.
            let v = index_of[x as usize];
            let user = v & FREE_BIT == 0;
            user_targets[users] = v;
            use_targets[uses] = v & !FREE_BIT;
            unsorted |= user & (v < last_user);
            last_user = if user { v } else { last_user };
            users += usize::from(user);
            uses += usize::from(v & FREE_BIT != 0 && v != NO_OP);
        }
        if users.max(uses) > limit {
            return Err(too_many_pairs(g, u, limit));
        }
        user_offsets.push(users as u32);
        use_offsets.push(uses as u32);
    }
    for (targets, len) in [(&mut user_targets, users), (&mut use_targets, uses)] {
        targets.truncate(len);
        targets.shrink_to_fit();
    }
    let rows = Rows {
        user_offsets,
        user_targets,
        use_offsets,
        use_targets,
    };
    Ok((rows, !unsorted))
}

/// The rows and bytes defined of any graph: from each op, a search forward
/// through ALLOC/FREE nodes for its users and uses, in discovery order
/// (successors that are ops or leaf FREEs first, then the rest depth
/// first); the ALLOCs it owns claimed on the way.
fn searched_rows(g: &Graph, numbers: &Numbering, limit: usize) -> Result<(Rows, Vec<i64>), String> {
    let index_of = &numbers.index_of;
    let mut rows = Rows::new(numbers);
    let mut defined = Vec::with_capacity(numbers.ops.len());
    let mut stamp = vec![NO_OP; g.node_count()];
    let mut stack = Vec::new();
    // Ownership (general graphs): first op in program order wins.
    let mut owned = match numbers.regular {
        true => Vec::new(),
        false => vec![false; g.node_count()],
    };
    for (i, &u) in numbers.ops.iter().enumerate() {
        let i = i as u32;
        stamp[u as usize] = i;
        // First level inline: most successors are ops or leaf FREEs.
        for &x in g.succs(u) {
            if stamp[x as usize] == i {
                continue;
            }
            match g.kind(x) {
                NodeKind::Compute => {
                    stamp[x as usize] = i;
                    rows.user_targets.push(index_of[x as usize]);
                }
                NodeKind::Free if g.succs(x).is_empty() => {
                    stamp[x as usize] = i;
                    rows.use_targets.push(index_of[x as usize] & !FREE_BIT);
                }
                _ => stack.push(x),
            }
        }
        stack.reverse();
        while let Some(x) = stack.pop() {
            if stamp[x as usize] == i {
                continue;
            }
            stamp[x as usize] = i;
            match g.kind(x) {
                NodeKind::Compute => rows.user_targets.push(index_of[x as usize]),
                kind => {
                    if kind == NodeKind::Free {
                        rows.use_targets.push(index_of[x as usize] & !FREE_BIT);
                    }
                    stack.extend(g.succs(x).iter().rev());
                }
            }
        }
        rows.close(g, u, limit)?;
        defined.push(match numbers.regular {
            true => alloc_pred_bytes(g, u),
            false => claim_allocs(g, u, &mut owned, &mut stack),
        });
    }
    Ok((rows, defined))
}

/// The node order of a regular graph without parallel edges, written one
/// step at a time ([`OpView::step_writer`]): each op after its ALLOCs, each
/// FREE when its buffer's last user has run, the successor-less ALLOCs last.
pub(crate) struct StepWriter<'a> {
    g: &'a Graph,
    view: &'a OpView,
    order: Vec<NodeIdx>,
    tail: &'a [NodeIdx],
}

impl StepWriter<'_> {
    /// Op `op` runs: its ALLOC predecessors (in the order of its edges),
    /// then its node.
    #[inline]
    pub(crate) fn op(&mut self, op: u32) {
        let g = self.g;
        let v = self.view.ops[op as usize];
        let allocs = g.preds(v).iter().filter(|&&a| g.kind(a) == NodeKind::Alloc);
        self.order.extend(allocs);
        self.order.push(v);
    }

    /// The op that ran used buffer `b`: if it was the `last` user, `b`'s
    /// FREE runs. Without a branch on `last` (which use is the last is
    /// unpredictable): the FREE is pushed, and taken back unless `last`.
    #[inline]
    pub(crate) fn free_if(&mut self, b: u32, last: bool) {
        self.order.push(self.view.buffers[b as usize]);
        self.order.truncate(self.order.len() - usize::from(!last));
    }

    /// The node order, with the successor-less ALLOCs at the end.
    pub(crate) fn finish(mut self) -> Vec<NodeIdx> {
        self.order.extend_from_slice(self.tail);
        self.order
    }
}

/// One step of [`OpView::walk_regular`].
enum Step {
    /// An op runs (its ALLOCs just before it).
    Op(u32),
    /// An op that ran used `buffer`; if it was the `last` user, the
    /// buffer's FREE runs. (Every use is a step, so that callers decide
    /// by selects: a branch on `last` mispredicts about once a buffer.)
    Use { buffer: u32, last: bool },
}

/// Which ops are ready: those whose operands have all run, exactly the ops
/// [`Expander::is_ready`] calls ready (an op's predecessors are settled once
/// the ops before them through ALLOC/FREE nodes have run). Ready ops come
/// out in the order of the run op's users; those ready at the start in
/// program order.
pub(crate) struct Readiness<'v> {
    view: &'v OpView,
    /// Operands of each op not yet run; `u32::MAX` once the op has run.
    waiting: Vec<u32>,
}

impl<'v> Readiness<'v> {
    /// Nothing run yet.
    pub(crate) fn new(view: &'v OpView) -> Self {
        let mut waiting = vec![0u32; view.op_count()];
        for &w in view.users.targets() {
            waiting[w as usize] += 1;
        }
        Readiness { view, waiting }
    }

    /// The ops ready before any has run, in program order.
    pub(crate) fn initially_ready(&self) -> impl Iterator<Item = u32> + '_ {
        (0..self.waiting.len() as u32).filter(|&o| self.waiting[o as usize] == 0)
    }

    /// Runs `op` and passes each op it makes ready to `ready`; false, doing
    /// nothing, if `op` is not ready (or has run).
    pub(crate) fn run(&mut self, op: u32, mut ready: impl FnMut(u32)) -> bool {
        if self.waiting[op as usize] != 0 {
            return false;
        }
        self.waiting[op as usize] = u32::MAX;
        for &w in self.view.users.neighbors(op) {
            self.waiting[w as usize] -= 1;
            if self.waiting[w as usize] == 0 {
                ready(w);
            }
        }
        true
    }
}

/// Bytes of `v`'s ALLOC predecessors: what it owns on a regular graph,
/// where each ALLOC has one successor and no ALLOC before it.
fn alloc_pred_bytes(g: &Graph, v: NodeIdx) -> i64 {
    g.preds(v)
        .iter()
        .filter(|&&a| g.kind(a) == NodeKind::Alloc)
        .map(|&a| g.delta(a))
        .sum()
}

/// Bytes of the ALLOCs op `v` pulls in (ALLOC-only paths backwards) that no
/// earlier op owns; marks them owned by `v`.
fn claim_allocs(g: &Graph, v: NodeIdx, owned: &mut [bool], stack: &mut Vec<NodeIdx>) -> i64 {
    let unowned_alloc =
        |a: NodeIdx, owned: &[bool]| g.kind(a) == NodeKind::Alloc && !owned[a as usize];
    let mut bytes = 0;
    stack.extend(g.preds(v).iter().filter(|&&a| unowned_alloc(a, owned)));
    while let Some(a) = stack.pop() {
        if owned[a as usize] {
            continue;
        }
        owned[a as usize] = true;
        bytes += g.delta(a);
        stack.extend(g.preds(a).iter().filter(|&&p| unowned_alloc(p, owned)));
    }
    bytes
}

/// Builds the full node order from op decisions (F1 for FREEs, F2 for ALLOCs).
///
/// A node is *settled* once it has run or, for an ALLOC, once everything
/// before it has settled (it could run at any moment, so it waits). An op is
/// ready when all its predecessors are settled; running it first runs the
/// ALLOCs it still needs (in post-order of their own ALLOC predecessors), then
/// every FREE that becomes ready, in the order they become ready.
///
/// # Complexity
/// O(n + m) over a whole run.
#[derive(Debug)]
pub struct Expander<'g> {
    g: &'g Graph,
    /// Predecessors not yet settled.
    unsettled: Vec<u32>,
    ran: Vec<bool>,
    order: Vec<NodeIdx>,
    free_queue: std::collections::VecDeque<NodeIdx>,
    settle_stack: Vec<NodeIdx>,
    pull_stack: Vec<(NodeIdx, u32)>,
    /// On a regular graph, its successor-less ALLOCs: each op's step then
    /// takes the short path ([`run_regular`](Expander::run_regular)).
    regular_tail: Option<&'g [NodeIdx]>,
}

impl<'g> Expander<'g> {
    /// A fresh expansion; FREEs ready at the start have already run.
    pub fn new(g: &'g Graph) -> Self {
        let n = g.node_count();
        let mut e = Expander {
            g,
            unsettled: g.nodes().map(|v| g.preds(v).len() as u32).collect(),
            ran: vec![false; n],
            order: Vec::with_capacity(n),
            free_queue: Default::default(),
            settle_stack: Vec::new(),
            pull_stack: Vec::new(),
            regular_tail: None,
        };
        let sources: Vec<NodeIdx> = g.nodes().filter(|&v| g.preds(v).is_empty()).collect();
        for v in sources {
            e.became_ready(v);
        }
        e.drain_frees();
        e
    }

    /// A fresh expansion of `g` whose op view is `view`; on a regular graph
    /// (see [`OpView::is_regular`]) each op step takes the short path.
    pub fn for_view(g: &'g Graph, view: &'g OpView) -> Self {
        Expander {
            regular_tail: view.tail_allocs.as_deref(),
            ..Expander::new(g)
        }
    }

    /// Whether compute node `v` can run now.
    pub fn is_ready(&self, v: NodeIdx) -> bool {
        !self.ran[v as usize] && self.unsettled[v as usize] == 0
    }

    /// Runs op `v` (with the ALLOCs it needs, then the FREEs it releases).
    /// Returns false, doing nothing, if `v` is not ready.
    pub fn run_op(&mut self, v: NodeIdx) -> bool {
        if !self.is_ready(v) {
            return false;
        }
        if self.regular_tail.is_some() {
            self.run_regular(v);
        } else {
            self.run_with_allocs(v);
            self.drain_frees();
        }
        true
    }

    /// An op step on a regular graph, as the general one goes there: `v`'s
    /// ALLOC predecessors (each has `v` as its only successor, so nobody ran
    /// it), `v`, each FREE successor it was the last to settle (a FREE has
    /// compute predecessors only and no successor); then the ALLOCs it
    /// settled settle their successors.
    fn run_regular(&mut self, v: NodeIdx) {
        let g = self.g;
        let allocs = g.preds(v).iter().filter(|&&a| g.kind(a) == NodeKind::Alloc);
        self.order.extend(allocs);
        self.ran[v as usize] = true;
        self.order.push(v);
        for &s in g.succs(v) {
            let c = &mut self.unsettled[s as usize];
            *c -= 1;
            if *c == 0 {
                match g.kind(s) {
                    NodeKind::Compute => {}
                    NodeKind::Free => self.order.push(s),
                    NodeKind::Alloc => self.settle_stack.push(s),
                }
            }
        }
        self.settle_from_stack();
    }

    /// The node order, once every op has run: any ALLOC still waiting (no
    /// successor) runs last, in program order. `None` if some op never ran.
    pub fn finish(mut self) -> Option<Vec<NodeIdx>> {
        if let Some(tail) = self.regular_tail {
            let complete = self.order.len() + tail.len() == self.g.node_count();
            self.order.extend_from_slice(tail);
            return complete.then_some(self.order);
        }
        for v in self.g.nodes() {
            if !self.ran[v as usize] {
                if self.g.kind(v) != NodeKind::Alloc || self.unsettled[v as usize] != 0 {
                    return None;
                }
                // Already settled: run it after the ALLOCs before it, no re-settling.
                self.pull(v);
            }
        }
        Some(self.order)
    }

    fn became_ready(&mut self, v: NodeIdx) {
        match self.g.kind(v) {
            NodeKind::Compute => {}
            NodeKind::Free => self.free_queue.push_back(v),
            NodeKind::Alloc => {
                self.settle_stack.push(v);
                self.settle_from_stack();
            }
        }
    }

    /// Settles the nodes on the settle stack and everything that follows.
    fn settle_from_stack(&mut self) {
        while let Some(x) = self.settle_stack.pop() {
            for &s in self.g.succs(x) {
                let c = &mut self.unsettled[s as usize];
                *c -= 1;
                if *c == 0 {
                    match self.g.kind(s) {
                        NodeKind::Compute => {}
                        NodeKind::Free => self.free_queue.push_back(s),
                        NodeKind::Alloc => self.settle_stack.push(s),
                    }
                }
            }
        }
    }

    /// Runs the ALLOCs `v` still needs (post-order), then `v`, then settles
    /// its successors.
    fn run_with_allocs(&mut self, v: NodeIdx) {
        self.pull(v);
        self.settle_stack.push(v);
        self.settle_from_stack();
    }

    /// Runs the ALLOCs `v` still needs (post-order of their own ALLOC
    /// predecessors), then `v`.
    fn pull(&mut self, v: NodeIdx) {
        self.pull_stack.push((v, 0));
        while let Some(&(x, next)) = self.pull_stack.last() {
            let preds = self.g.preds(x);
            let unclaimed = preds[next as usize..]
                .iter()
                .position(|&p| !self.ran[p as usize] && self.g.kind(p) == NodeKind::Alloc);
            match unclaimed {
                Some(k) => {
                    let p = preds[next as usize + k];
                    if let Some(top) = self.pull_stack.last_mut() {
                        top.1 = next + k as u32 + 1;
                    }
                    self.ran[p as usize] = true; // claimed; pushed to order below
                    self.pull_stack.push((p, 0));
                }
                None => {
                    self.pull_stack.pop();
                    self.ran[x as usize] = true;
                    self.order.push(x);
                }
            }
        }
    }

    fn drain_frees(&mut self) {
        while let Some(f) = self.free_queue.pop_front() {
            self.run_with_allocs(f);
        }
    }
}

/// Expands a complete op order (ops given as compute nodes) into a node order.
///
/// Fails if the op order breaks an operand edge (a bug in the caller).
pub fn expand(g: &Graph, op_order: &[NodeIdx]) -> Result<Vec<NodeIdx>, String> {
    expand_with(Expander::new(g), g, op_order.iter().copied())
}

/// Runs `op_order` (compute nodes) through `e` and finishes it.
fn expand_with(
    mut e: Expander,
    g: &Graph,
    op_order: impl Iterator<Item = NodeIdx>,
) -> Result<Vec<NodeIdx>, String> {
    for v in op_order {
        if !e.run_op(v) {
            return Err(format!("op {} is not ready when its turn comes", g.id(v)));
        }
    }
    e.finish()
        .ok_or_else(|| "the op order leaves some node unscheduled".to_string())
}

/// Depth-first post-order over ops: from each root in turn, visit the
/// children of an op in the given order, skipping ops already visited, and
/// emit an op after its children (the order of a recursive DFS).
///
/// # Complexity
/// O(ops + operand edges), iterative.
pub(crate) fn post_order(
    op_count: usize,
    roots: impl IntoIterator<Item = u32>,
    children: &Csr,
) -> Vec<u32> {
    let mut out = Vec::with_capacity(op_count);
    post_order_by(op_count, roots, children, |_| {}, |op| out.push(op));
    out
}

/// [`post_order`] with each op's children visited in the order `arrange`
/// puts them, and each op handed to `emit` as it is finished (after every
/// op it reaches).
///
/// A row is arranged when the DFS first reaches its op, on a copy without
/// the children visited by then (they would be skipped anyway): sorting
/// each row of a copied table first, then walking it, reads every row
/// twice and the second time from farther away.
///
/// # Complexity
/// O(ops + operand edges) plus the arranging, iterative.
pub(crate) fn post_order_by(
    op_count: usize,
    roots: impl IntoIterator<Item = u32>,
    children: &Csr,
    mut arrange: impl FnMut(&mut [u32]),
    mut emit: impl FnMut(u32),
) {
    let mut visited = vec![false; op_count];
    // The rows of the ops on the stack, end to end: an op's row runs from
    // its `start` to the next op's, or to the end for the top one.
    let mut rows: Vec<u32> = Vec::new();
    // (op, start of its row in `rows`, next child to look at).
    let mut stack: Vec<(u32, u32, u32)> = Vec::new();
    let mut enter = |op: u32, visited: &mut [bool], rows: &mut Vec<u32>| {
        visited[op as usize] = true;
        let start = rows.len();
        rows.extend(
            children
                .neighbors(op)
                .iter()
                .filter(|&&c| !visited[c as usize]),
        );
        arrange(&mut rows[start..]);
        (op, start as u32, start as u32)
    };
    for r in roots {
        if visited[r as usize] {
            continue;
        }
        stack.push(enter(r, &mut visited, &mut rows));
        while let Some(top) = stack.last_mut() {
            if let Some(&c) = rows.get(top.2 as usize) {
                top.2 += 1;
                if !visited[c as usize] {
                    stack.push(enter(c, &mut visited, &mut rows));
                }
                continue;
            }
            let (op, start, _) = *top;
            stack.pop();
            rows.truncate(start as usize);
            emit(op);
        }
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::corpus::program::{AllocEncoding, TensorProgram, TensorRef};
    use crate::graph::GraphBuilder;
    use crate::schedule;
    use crate::solvers::{build, run, Scheduler, SolveContext};

    /// `contained` is set inclusion, whatever the order of either list.
    #[test]
    fn contained_is_inclusion_in_any_order() {
        for (sub, of, want) in [
            (&[][..], &[][..], true),
            (&[], &[1], true),
            (&[1, 2], &[9, 1, 2], true),
            (&[1, 2], &[1, 9, 2], true),
            (&[2, 1], &[1, 9, 2], true),
            (&[1, 3], &[1, 2], false),
            (&[1], &[], false),
            (&[2, 2], &[2], true),
        ] {
            assert_eq!(contained(sub, of), want, "{sub:?} in {of:?}");
        }
    }

    /// One op of a test program: inputs as (op, output) pairs, output sizes.
    pub(crate) type TestOp<'a> = (&'a [(usize, usize)], &'a [u64]);

    /// A lowered (anchored) tensor program.
    pub(crate) fn lowered(ops: &[TestOp]) -> Graph {
        let mut p = TensorProgram::new();
        for (i, (inputs, outputs)) in ops.iter().enumerate() {
            let inputs = inputs
                .iter()
                .map(|&(op, output)| TensorRef { op, output })
                .collect();
            p.push(format!("op{i}"), inputs, outputs.to_vec());
        }
        p.to_graph(AllocEncoding::Anchored).unwrap()
    }

    /// The op numbers of `solver`'s schedule of `g`, in order.
    pub(crate) fn op_order(solver: &dyn Scheduler, g: &Graph) -> Vec<u32> {
        let order = run(solver, g, &SolveContext::default()).order.unwrap();
        let view = OpView::new(g).unwrap();
        order
            .into_iter()
            .filter(|&v| g.kind(v) == NodeKind::Compute)
            .map(|v| view.op_of(v))
            .collect()
    }

    /// `a[10] -> X -> free a` (a buffer nobody reads), `Y -> y[10]`,
    /// `F(y)` after X: ops X, Y, F.
    pub(crate) fn unread_buffer() -> Graph {
        let mut b = GraphBuilder::new();
        let a = b.alloc(10, 1);
        let x = b.op("X");
        let fa = b.free(1);
        let y_out = b.alloc(10, 2);
        let y = b.op("Y");
        let f = b.op("F");
        let fy = b.free(2);
        for (u, v) in [(a, x), (x, fa), (y_out, y), (y, f), (x, f), (f, fy)] {
            b.edge(u, v);
        }
        b.build().unwrap()
    }

    /// `solver` peaks at `peak` on `g` where brute proves `optimum`.
    pub(crate) fn assert_wrong(solver: &dyn Scheduler, g: &Graph, peak: u64, optimum: u64) {
        let ctx = SolveContext::default();
        let brute = run(build("brute").unwrap().as_ref(), g, &ctx);
        assert_eq!(brute.status, crate::solvers::Status::Optimal);
        assert_eq!(brute.peak, Some(optimum));
        let r = run(solver, g, &ctx);
        assert_eq!(r.peak, Some(peak), "{}: {}", solver.name(), r.status);
    }

    /// A FREE between k writers and k readers makes every writer an
    /// operand of every reader: k^2 pairs. Beyond the limit the view is an
    /// error naming the op, not a wrapped offset.
    #[test]
    fn a_view_past_its_pair_limit_is_an_error() {
        let mut b = GraphBuilder::new();
        let a = b.alloc(5, 1);
        let f = b.free(1);
        for i in 0..4 {
            let writer = b.op(&format!("w{i}"));
            let reader = b.op(&format!("r{i}"));
            b.edge(a, writer);
            b.edge(writer, f);
            b.edge(f, reader);
        }
        let g = b.build().unwrap();
        let view = OpView::with_pair_limit(&g, 16).unwrap();
        assert_eq!(
            view.operands()
                .neighbors(view.op_of(g.node_count() as NodeIdx - 1))
                .len(),
            4
        );
        let e = OpView::with_pair_limit(&g, 15).unwrap_err();
        assert!(e.contains("more than 15 op-user or op-buffer pairs"), "{e}");
    }

    /// Where the view reads users and uses off each op's edges (every
    /// generated family, both encodings), it finds what the search finds,
    /// in the same order, and the same bytes defined.
    #[test]
    fn direct_rows_are_the_search_rows() {
        let mut direct = 0;
        for (name, g) in in_both_encodings(&SMALL_FAMILIES, 3) {
            let numbers = Numbering::new(&g);
            if !numbers.rows_are_direct(&g) {
                continue;
            }
            direct += 1;
            let (searched, defined) = searched_rows(&g, &numbers, MAX_PAIRS).unwrap();
            let (rows, sorted) = direct_rows(&g, &numbers, MAX_PAIRS).unwrap();
            assert_eq!(rows, searched, "{name}");
            assert!(sorted, "{name}: generated graphs list edges in order");
            assert_eq!(numbers.regular_defined(), defined, "{name}");
        }
        assert_eq!(direct, 36, "every generated graph takes the direct path");
    }

    /// The order of the file's `Edges` changes no published scheduler's op
    /// order or peak: users rows follow program order (as XLA's `users()`
    /// follow creation order). A review found `xla-list`'s ties decided
    /// by edge order: on the graph below (docs/published.md's `xla-list`
    /// example with a root `R` feeding `A` and `B`), listing `R -> B`
    /// before `R -> A` ran A first, peak 14, and the other way B first,
    /// peak 24 (as in program order, B inserted last).
    #[test]
    fn the_order_of_the_edges_changes_no_op_order() {
        let mut b = GraphBuilder::new();
        let r = b.op("R");
        let (a_out, a) = (b.alloc(10, 1), b.op("A"));
        let (b_out, b_op) = (b.alloc(10, 2), b.op("B"));
        let (c_out, c) = (b.alloc(4, 3), b.op("C"));
        let fa = b.free(1);
        let d = b.op("D");
        let (fb, fc) = (b.free(2), b.free(3));
        for (u, v) in [
            (r, a),
            (r, b_op),
            (a_out, a),
            (b_out, b_op),
            (c_out, c),
            (a, c),
            (c, d),
            (b_op, d),
            (c, fa),
            (d, fb),
            (d, fc),
        ] {
            b.edge(u, v);
        }
        // The same with `A -> C` twice: parallel edges, so the view
        // searches its rows (the sort must cover that path too).
        let mut repeated = b.clone();
        repeated.edge(a, c);
        let (example, repeated) = (b.build().unwrap(), repeated.build().unwrap());
        assert!(OpView::new(&example).unwrap().direct);
        assert!(!OpView::new(&repeated).unwrap().direct);
        let mut graphs = in_both_encodings(&SMALL_FAMILIES, 2);
        graphs.push(("xla-list example with a root".into(), example));
        graphs.push(("the same with a repeated edge".into(), repeated));
        let mut rng = crate::rng::Rng::new(7);
        // Op ids in schedule order, and the peak.
        let ops_and_peak = |g: &Graph, name: &str| {
            let out = run(&*build(name).unwrap(), g, &SolveContext::default());
            let order = out.order.expect("an order");
            let ops: Vec<i64> = (order.iter())
                .filter(|&&v| g.kind(v) == NodeKind::Compute)
                .map(|&v| g.id(v))
                .collect();
            (ops, schedule::check(g, &order).unwrap())
        };
        for (graph, g) in &graphs {
            let raw = g.to_raw();
            let mut reversed = raw.clone();
            reversed.edges.reverse();
            let mut shuffled = raw.clone();
            rng.shuffle(&mut shuffled.edges);
            for other in [reversed, shuffled] {
                let h = Graph::from_raw(other).unwrap();
                for name in NAMES {
                    assert_eq!(
                        ops_and_peak(g, name),
                        ops_and_peak(&h, name),
                        "{name} on {graph}"
                    );
                }
            }
        }
    }

    /// Small graphs of six generator families (regular, every one).
    pub(crate) const SMALL_FAMILIES: [&str; 6] = [
        "random-layered:layers=6,width=4",
        "tensor-program:ops=14",
        "randwire:nodes=8,resolution=64",
        "darts:cells=3,resolution=64",
        "nasnet:cells=3,resolution=64",
        "adversarial:scale=3",
    ];

    /// Seeds `0..seeds` of each generator spec in `families`, with ALLOCs
    /// anchored and floating, named by spec and seed.
    pub(crate) fn in_both_encodings(families: &[&str], seeds: u64) -> Vec<(String, Graph)> {
        use crate::corpus::gen::{generate, GenSpec};
        let mut graphs = Vec::new();
        for family in families {
            for enc in ["anchored", "floating"] {
                let spec = format!("{family},allocs={enc}");
                for seed in 0..seeds {
                    let g = generate(&GenSpec::parse(&spec).unwrap(), seed).unwrap();
                    graphs.push((format!("{spec} seed {seed}"), g));
                }
            }
        }
        graphs
    }

    /// Checks a scheduler that writes its node order as it decides
    /// ([`OpView::step_writer`]). Where op steps are fixed by op data
    /// (regular graphs without parallel edges: every generated graph, one
    /// whose view searches its rows, and buffers their definers use), the
    /// order `decide` writes must be the one the node-level expander
    /// ([`expand`], no `StepWriter`) makes of its ops. Where they are not
    /// (an ALLOC feeding its FREE; parallel edges), it must return the op
    /// order.
    pub(crate) fn assert_writes_its_expansion(decide: impl Fn(&Graph, &OpView) -> Decision) {
        let mut graphs = in_both_encodings(&SMALL_FAMILIES, 3);
        // x -> a -> y -> free a: regular, but its rows are searched.
        let mut b = GraphBuilder::new();
        let (x, a, y, f) = (b.op("x"), b.alloc(5, 1), b.op("y"), b.free(1));
        b.edge(x, a);
        b.edge(a, y);
        b.edge(y, f);
        graphs.push(("searched rows".into(), b.build().unwrap()));
        // A buffer nobody reads: its definer is its one use.
        graphs.push(("unread buffer".into(), unread_buffer()));
        // a[5] -> X, and X and Y both before a's FREE, with no path
        // between them: X uses its own buffer, and Y may run first. Y
        // defines y[1] or y[100], which changes who runs first.
        for y_bytes in [1, 100] {
            let mut b = GraphBuilder::new();
            let (a, x, fa) = (b.alloc(5, 1), b.op("X"), b.free(1));
            let (y_out, y, fy) = (b.alloc(y_bytes, 2), b.op("Y"), b.free(2));
            for (u, v) in [(a, x), (x, fa), (y, fa), (y_out, y), (y, fy)] {
                b.edge(u, v);
            }
            graphs.push((format!("own buffer, y[{y_bytes}]"), b.build().unwrap()));
        }
        for (name, g) in &graphs {
            let view = OpView::new(g).unwrap();
            let Decision::Nodes(order) = decide(g, &view) else {
                panic!("{name}: no node order");
            };
            let ops: Vec<NodeIdx> = order
                .iter()
                .copied()
                .filter(|&v| g.kind(v) == NodeKind::Compute)
                .collect();
            assert_eq!(expand(g, &ops).unwrap(), order, "{name}");
        }
        // An ALLOC with an edge to its FREE: not regular.
        let mut b = GraphBuilder::new();
        let (a, x, f) = (b.alloc(5, 1), b.op("x"), b.free(1));
        b.edge(a, x);
        b.edge(x, f);
        b.edge(a, f);
        // Two edges x -> y: regular, with parallel edges.
        let mut p = GraphBuilder::new();
        let (x2, y2) = (p.op("x"), p.op("y"));
        p.edge(x2, y2);
        p.edge(x2, y2);
        for g in [b.build().unwrap(), p.build().unwrap()] {
            let view = OpView::new(&g).unwrap();
            let decision = decide(&g, &view);
            assert!(matches!(decision, Decision::Ops(_)), "{:?}", g.to_raw());
        }
    }

    /// An ALLOC between two ops with no edge of their own is a path the
    /// ops' edges do not show: the view searches, and finds the operand.
    #[test]
    fn an_alloc_that_links_two_ops_is_searched() {
        let mut b = GraphBuilder::new();
        let x = b.op("x");
        let a = b.alloc(5, 1);
        let y = b.op("y");
        let f = b.free(1);
        b.edge(x, a);
        b.edge(a, y);
        b.edge(y, f);
        let g = b.build().unwrap();
        let numbers = Numbering::new(&g);
        assert!(numbers.regular && numbers.allocs_add_paths);
        assert!(!numbers.rows_are_direct(&g));
        let view = OpView::new(&g).unwrap();
        assert_eq!(
            view.operands().neighbors(view.op_of(y as NodeIdx)),
            &[view.op_of(x as NodeIdx)]
        );
        assert_eq!(view.defined, vec![0, 5]);
        let order = view.expand(&g, &[0, 1]).unwrap();
        assert_eq!(
            order,
            vec![x as NodeIdx, a as NodeIdx, y as NodeIdx, f as NodeIdx]
        );
    }

    /// On a regular graph an op order that runs an op before its operand
    /// expands without complaint, to an order the checker rejects; an op
    /// run twice is an error, as is an order too short.
    #[test]
    fn the_checker_rejects_a_bad_op_order_the_short_path_expands() {
        let g = lowered(&[(&[], &[10]), (&[(0, 0)], &[4]), (&[(1, 0)], &[])]);
        let view = OpView::new(&g).unwrap();
        assert!(view.short_path(&g).is_some());
        let good = view.expand(&g, &[0, 1, 2]).unwrap();
        assert_eq!(schedule::check(&g, &good).unwrap().peak, 14);
        let swapped = view.expand(&g, &[1, 0, 2]).unwrap();
        assert!(schedule::check(&g, &swapped).is_err());
        assert!(view.peak_of(&g, &[1, 0, 2]).is_ok());
        let twice = view.expand(&g, &[0, 1, 1]).unwrap_err();
        assert!(twice.contains("runs twice"), "{twice}");
        assert!(view.expand(&g, &[0, 1]).is_err());
    }

    /// Graphs off the lowering pattern still expand to valid orders.
    #[test]
    fn odd_graphs_expand_to_valid_orders() {
        let mut b = GraphBuilder::new();
        let a = b.alloc(5, 1); // feeds two ops
        let x = b.op("x");
        let y = b.op("y");
        let z = b.op("z"); // no ALLOC
        let dangling = b.alloc(7, 2); // no successor
        let lone = b.alloc(3, 3); // ALLOC -> FREE only
        let lone_free = b.free(3);
        let fa = b.free(1);
        let w = b.op("w"); // after a FREE
        b.edge(a, x);
        b.edge(a, y);
        b.edge(x, fa);
        b.edge(y, fa);
        b.edge(fa, w);
        b.edge(z, w);
        b.edge(lone, lone_free);
        let g = b.build().unwrap();
        let view = OpView::new(&g).unwrap();
        assert_eq!(view.op_count(), 4);
        // x owns `a` (first in program order); w's operands are x, y (via the FREE) and z.
        assert_eq!(view.defined, vec![5, 0, 0, 0]);
        let w_op = view.op_of(w as NodeIdx);
        let mut ops: Vec<u32> = view.operands().neighbors(w_op).to_vec();
        ops.sort_unstable();
        assert_eq!(ops, vec![0, 1, 2]);
        for op_order in [vec![x, y, z, w], vec![z, y, x, w]] {
            let op_order: Vec<u32> = op_order.into_iter().map(|v| v as u32).collect();
            let order = expand(&g, &op_order).unwrap();
            schedule::check(&g, &order).unwrap();
            assert_eq!(*order.last().unwrap(), dangling as u32);
        }
        assert!(expand(&g, &[w as u32]).is_err());
    }

    /// The recursive DFS `post_order_by` stands for: visit `x`'s children
    /// as listed or, given `key`, in the order it sorts them (ties by op),
    /// skipping visited ones, then emit `x`.
    fn recursive_post_order(
        x: u32,
        children: &Csr,
        key: Option<&[u64]>,
        visited: &mut [bool],
        out: &mut Vec<u32>,
    ) {
        visited[x as usize] = true;
        let mut row = children.neighbors(x).to_vec();
        if let Some(key) = key {
            row.sort_by_key(|&c| (key[c as usize], c));
        }
        for c in row {
            if !visited[c as usize] {
                recursive_post_order(c, children, key, visited, out);
            }
        }
        out.push(x);
    }

    /// Random DAGs with repeated edges and shared children, visited from
    /// roots in a shuffled order, children by a random key or as listed:
    /// `post_order_by` and `post_order` emit what the recursive DFS does.
    #[test]
    fn post_order_by_is_the_recursive_dfs() {
        use crate::rng::Rng;
        let mut rng = Rng::new(11);
        for case in 0..300 {
            let n = 1 + rng.below(if case % 3 == 0 { 200 } else { 20 }) as usize;
            let mut pairs = Vec::new();
            for u in 1..n as u32 {
                for _ in 0..rng.below(5) {
                    let c = rng.below(u as u64) as u32;
                    for _ in 0..1 + rng.below(2) {
                        pairs.push((u, c));
                    }
                }
            }
            let children = Csr::from_pairs(n, pairs.iter().copied());
            let keys: Vec<u64> = (0..n).map(|_| rng.below(4)).collect();
            let mut roots: Vec<u32> = (0..n as u32).collect();
            for i in (1..n).rev() {
                roots.swap(i, rng.below(i as u64 + 1) as usize);
            }
            roots.truncate(1 + n / 2);
            for key in [Some(&keys[..]), None] {
                let mut visited = vec![false; n];
                let mut want = Vec::new();
                for &r in &roots {
                    if !visited[r as usize] {
                        recursive_post_order(r, &children, key, &mut visited, &mut want);
                    }
                }
                let mut got = Vec::new();
                let arrange = |row: &mut [u32]| {
                    if let Some(key) = key {
                        row.sort_by_key(|&c| (key[c as usize], c))
                    }
                };
                post_order_by(n, roots.iter().copied(), &children, arrange, |op| {
                    got.push(op)
                });
                assert_eq!(got, want, "case {case}, key {key:?}");
                if key.is_none() {
                    assert_eq!(post_order(n, roots.iter().copied(), &children), want);
                }
            }
        }
    }
}
