//! The op-level view of a graph ([`OpView`]) and the op-level readiness
//! and node-order writer built on it.

use std::sync::OnceLock;

use super::expand::{expand_with, Expander};
use crate::graph::{Csr, Graph, NodeIdx, NodeKind};

/// Most op-user (or op-buffer) pairs an [`OpView`] holds: 1 GiB of each.
/// Lowered graphs have about one pair per edge.
const MAX_PAIRS: usize = 1 << 28;

/// Marker for "no op" in op-indexed tables.
pub(super) const NO_OP: u32 = u32::MAX;

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
    pub(super) buffer_bytes: Vec<i64>,
    /// Bytes of ALLOCs that have no FREE (graph outputs).
    output_bytes: i64,
    /// ALLOCs with no successor, in program order, when the graph is
    /// [regular](OpView::is_regular); `None` otherwise.
    pub(super) tail_allocs: Option<Vec<NodeIdx>>,
    /// Whether each op's users and uses are its own successors (see
    /// `direct_rows`).
    pub(super) direct: bool,
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
    /// [`expand`](super::expand()) does; on regular graphs without parallel
    /// edges from op data alone (see [`OpView::peak_of`]), and then an op
    /// order that runs an op before its operands is not an error here but
    /// a node order the checker rejects (see `walk_regular`).
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
    pub(super) fn short_path(&self, g: &Graph) -> Option<&[NodeIdx]> {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::GraphBuilder;
    use crate::solvers::published::tests::{in_both_encodings, SMALL_FAMILIES};

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
}
