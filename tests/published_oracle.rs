//! An oracle for the published schedulers: plain, slow re-implementations
//! of XLA's and Inductor's memory schedulers, written from the upstream
//! algorithms over an op-level model read straight off the graph's nodes
//! and edges (nothing from `memsched::solvers::published`), must give the
//! same op order as memsched's `xla-*` and `inductor-*` solvers, and the
//! node order that op order expands to must have memsched's peak.
//!
//! Where the rules come from:
//! - openxla/xla `xla/service/hlo_memory_scheduler.cc`: `ListScheduler`
//!   (a `std::multimap` ready list keyed by bytes freed minus bytes defined,
//!   then user count, taken from `end() - 1`, so ties go to the op inserted
//!   last; new ready ops inserted in `best->users()` order; when a buffer is
//!   down to one unscheduled use, the ready users of `best`'s operands get
//!   their priority recomputed and are re-inserted if it changed, and an op
//!   that walk misses keeps its stale priority), `DFSMemoryScheduler`
//!   (post-order visiting operands by cumulative extra users, then
//!   cumulative size, both capped, then name) and `PostOrderMemoryScheduler`
//!   (`HloComputation::MakeInstructionPostOrder`: unreachable roots, then the
//!   root, operands in order); `DefaultMemoryScheduler` keeps the lowest
//!   peak, ties in the order list, DFS, post-order.
//! - pytorch/pytorch `torch/_inductor/memory.py`: `topological_sort_lpmf`
//!   (min of `(max(live + size, max_memory), size - memory_to_free, index)`;
//!   an output nobody reads is freed by its op), `topological_sort_bfs`
//!   (heap by the sorted positions of a node's predecessors, then index),
//!   `topological_sort_dfs` (by `size + sizes of pred_buffers`, then index),
//!   and `reorder_for_peak_memory`, whose `min` keeps the first of the
//!   baseline (program order), LPMF, BFS, DFS.
//!
//! The model (as docs/published.md describes it): ops are compute nodes in
//! program order; an op's operands are its compute predecessors, in their
//! program order (our graphs record no operand order), its users the
//! reverse; it defines the ALLOCs feeding it; it uses the buffers whose FREE
//! it precedes, never one it defines (a buffer nobody reads is used by
//! nobody); ALLOCs with no FREE are graph outputs.
//!
//! Graphs (1,227): 500 random tensor programs (250 in each ALLOC
//! encoding), 300 more with a FREE after the producer of some outputs
//! nobody reads, 400 random graphs whose ops read buffers through view ops
//! (a view shares the buffer but no operand with a reader, which leaves
//! XLA's priorities stale), and the 27 shipped graphs in `datasets/`.
//! The `-default` best-ofs must pick the member with the lowest checked
//! peak, ties to the first (XLA: list, DFS, post-order; Inductor: program
//! order when it is a schedule, LPMF, BFS, DFS).

use std::collections::{BTreeMap, HashSet};

use memsched::corpus::program::{AllocEncoding, TensorProgram, TensorRef};
use memsched::graph::{seed, GraphBuilder, NodeIdx};
use memsched::rng::Rng;
use memsched::schedule;
use memsched::solvers::{build, run, SolveContext};
use memsched::{Graph, NodeKind};

/// Buffer sizes of the random graphs: few, so priorities tie often.
const SIZES: [u64; 7] = [1, 2, 3, 4, 5, 8, 10];

/// The op-level model both compilers schedule, read off a graph on the
/// lowering pattern (see [`assert_on_pattern`]). Ops and buffers are
/// numbered in program order.
struct Model {
    /// Each compute node's op number (`usize::MAX` for other nodes).
    op_of: Vec<usize>,
    /// Distinct producers of each op, in program order.
    operands: Vec<Vec<usize>>,
    /// Ops each op is an operand of, in program order.
    users: Vec<Vec<usize>>,
    /// Bytes of the ALLOCs feeding each op.
    defined: Vec<i64>,
    /// Buffers each op reads: FREEs it precedes, minus its own outputs.
    uses: Vec<Vec<usize>>,
    /// Ops reading each buffer.
    readers: Vec<Vec<usize>>,
    /// Bytes of each buffer.
    size: Vec<i64>,
    /// Bytes each op defines that have a FREE and no reader.
    unread: Vec<i64>,
    /// Bytes of the ALLOCs with no FREE (graph outputs).
    output_bytes: i64,
}

/// Panics unless every ALLOC feeds exactly one op and follows only that
/// op's compute predecessors, and every FREE follows compute nodes only and
/// precedes nothing: then compute predecessors are all the operands.
fn assert_on_pattern(g: &Graph, label: &str) {
    for v in g.nodes() {
        let preds = g.preds(v);
        match g.kind(v) {
            NodeKind::Alloc => {
                let succs = g.succs(v);
                assert!(succs.len() == 1, "{label}: ALLOC {} feeds one op", g.id(v));
                let op = succs[0];
                assert_eq!(g.kind(op), NodeKind::Compute, "{label}");
                assert!(preds.iter().all(|p| g.preds(op).contains(p)), "{label}");
            }
            NodeKind::Free => {
                assert!(g.succs(v).is_empty(), "{label}: FREE {}", g.id(v));
                let compute = preds.iter().all(|&p| g.kind(p) == NodeKind::Compute);
                assert!(compute, "{label}: FREE {}", g.id(v));
            }
            NodeKind::Compute => {}
        }
    }
}

/// The sorted, distinct values of `items`.
fn distinct(items: impl Iterator<Item = usize>) -> Vec<usize> {
    let mut v: Vec<usize> = items.collect();
    v.sort_unstable();
    v.dedup();
    v
}

impl Model {
    /// Reads the model off `g`.
    fn new(g: &Graph, label: &str) -> Model {
        assert_on_pattern(g, label);
        let of_kind = |k| g.nodes().filter(move |&v| g.kind(v) == k);
        let ops: Vec<NodeIdx> = of_kind(NodeKind::Compute).collect();
        let frees: Vec<NodeIdx> = of_kind(NodeKind::Free).collect();
        let mut op_of = vec![usize::MAX; g.node_count()];
        let mut buffer_of = vec![usize::MAX; g.node_count()];
        ops.iter()
            .enumerate()
            .for_each(|(i, &v)| op_of[v as usize] = i);
        frees
            .iter()
            .enumerate()
            .for_each(|(b, &f)| buffer_of[f as usize] = b);
        let definer: Vec<usize> = frees
            .iter()
            .map(|&f| op_of[g.succs(g.partner(f).unwrap())[0] as usize])
            .collect();
        let with_kind = |v: NodeIdx, k| g.preds(v).iter().filter(move |&&p| g.kind(p) == k);
        let operands: Vec<Vec<usize>> = ops
            .iter()
            .map(|&v| distinct(with_kind(v, NodeKind::Compute).map(|&p| op_of[p as usize])))
            .collect();
        let mut users = vec![Vec::new(); ops.len()];
        for (v, list) in operands.iter().enumerate() {
            list.iter().for_each(|&u| users[u].push(v));
        }
        let defined = ops
            .iter()
            .map(|&v| with_kind(v, NodeKind::Alloc).map(|&a| g.delta(a)).sum())
            .collect();
        let uses: Vec<Vec<usize>> = (0..ops.len())
            .map(|op| {
                let succs = g.succs(ops[op]).iter();
                let frees = succs.filter(|&&s| g.kind(s) == NodeKind::Free);
                distinct(
                    frees
                        .map(|&f| buffer_of[f as usize])
                        .filter(|&b| definer[b] != op),
                )
            })
            .collect();
        let mut readers = vec![Vec::new(); frees.len()];
        for (op, list) in uses.iter().enumerate() {
            list.iter().for_each(|&b| readers[b].push(op));
        }
        let size: Vec<i64> = frees.iter().map(|&f| -g.delta(f)).collect();
        let mut unread = vec![0; ops.len()];
        for b in (0..frees.len()).filter(|&b| readers[b].is_empty()) {
            unread[definer[b]] += size[b];
        }
        let outputs = of_kind(NodeKind::Alloc).filter(|&a| g.partner(a).is_none());
        Model {
            op_of,
            operands,
            users,
            defined,
            uses,
            readers,
            size,
            unread,
            output_bytes: outputs.map(|a| g.delta(a)).sum(),
        }
    }

    /// Number of ops.
    fn ops(&self) -> usize {
        self.operands.len()
    }
}

/// XLA's list priority: bytes freed minus bytes defined, then user count.
type Priority = (i64, usize);

/// XLA's ready list, a `std::multimap<Priority, op>` read from its last
/// entry: each key carries its insertion number, so among equal priorities
/// the op inserted last comes out first.
struct ReadyList {
    entries: BTreeMap<(Priority, usize), usize>,
    key_of: Vec<Option<(Priority, usize)>>,
    inserted: usize,
}

impl ReadyList {
    fn new(ops: usize) -> Self {
        ReadyList {
            entries: BTreeMap::new(),
            key_of: vec![None; ops],
            inserted: 0,
        }
    }

    /// Inserts `op` at priority `p`, erasing its earlier entry.
    fn insert(&mut self, op: usize, p: Priority) {
        if let Some(old) = self.key_of[op].take() {
            self.entries.remove(&old);
        }
        let key = (p, self.inserted);
        self.inserted += 1;
        self.entries.insert(key, op);
        self.key_of[op] = Some(key);
    }

    /// The priority `op` sits at, if it is ready.
    fn priority(&self, op: usize) -> Option<Priority> {
        self.key_of[op].map(|(p, _)| p)
    }

    /// Removes the last entry (highest priority, inserted last).
    fn pop(&mut self) -> Option<usize> {
        let (_, op) = self.entries.pop_last()?;
        self.key_of[op] = None;
        Some(op)
    }
}

/// XLA's `ListScheduler::CreateSchedule`, step by step.
fn xla_list(m: &Model) -> Vec<usize> {
    let mut unscheduled_uses: Vec<usize> = m.readers.iter().map(Vec::len).collect();
    let mut waiting: Vec<usize> = m.operands.iter().map(Vec::len).collect();
    let priority = |op: usize, uses_left: &[usize]| -> Priority {
        let buffers = m.uses[op].iter().filter(|&&b| uses_left[b] == 1);
        let freed: i64 = buffers.map(|&b| m.size[b]).sum();
        (freed - m.defined[op], m.users[op].len())
    };
    let mut ready = ReadyList::new(m.ops());
    for op in (0..m.ops()).filter(|&op| waiting[op] == 0) {
        ready.insert(op, priority(op, &unscheduled_uses));
    }
    let mut order = Vec::new();
    while let Some(best) = ready.pop() {
        order.push(best);
        let mut adjust = false;
        for &b in &m.uses[best] {
            unscheduled_uses[b] -= 1;
            adjust |= unscheduled_uses[b] == 1;
        }
        for &u in &m.users[best] {
            waiting[u] -= 1;
            if waiting[u] == 0 {
                ready.insert(u, priority(u, &unscheduled_uses));
            }
        }
        if !adjust {
            continue;
        }
        for &operand in &m.operands[best] {
            for &u in &m.users[operand] {
                let Some(old) = ready.priority(u) else {
                    continue;
                };
                let new = priority(u, &unscheduled_uses);
                if new != old {
                    ready.insert(u, new);
                }
            }
        }
    }
    order
}

/// A recursive DFS post-order from `roots`, children as `children` lists
/// them, each op once.
fn post_order(
    m: &Model,
    roots: impl IntoIterator<Item = usize>,
    children: &dyn Fn(usize) -> Vec<usize>,
) -> Vec<usize> {
    fn visit(
        v: usize,
        seen: &mut [bool],
        out: &mut Vec<usize>,
        kids: &dyn Fn(usize) -> Vec<usize>,
    ) {
        if std::mem::replace(&mut seen[v], true) {
            return;
        }
        for c in kids(v) {
            visit(c, seen, out, kids);
        }
        out.push(v);
    }
    let mut seen = vec![false; m.ops()];
    let mut out = Vec::new();
    for r in roots {
        visit(r, &mut seen, &mut out, children);
    }
    out
}

/// XLA's roots: the ops without users, in program order (the unreachable
/// roots, then the last of them as the computation's root).
fn xla_roots(m: &Model) -> Vec<usize> {
    (0..m.ops()).filter(|&v| m.users[v].is_empty()).collect()
}

/// XLA's `PostOrderMemoryScheduler`: `MakeInstructionPostOrder`.
fn xla_postorder(m: &Model) -> Vec<usize> {
    post_order(m, xla_roots(m), &|v| m.operands[v].clone())
}

/// XLA's `DFSMemoryScheduler`: statistics over the instruction post-order,
/// then a post-order visiting operands by descending (extra users, total
/// sizes), then name (program order).
fn xla_dfs(m: &Model) -> Vec<usize> {
    let mut stats = vec![(0i64, 0i64); m.ops()];
    let mut cumulative_total_size = 0;
    for v in xla_postorder(m) {
        let mut extra_users = m.users[v].len().saturating_sub(1) as i64;
        let mut total_sizes = m.defined[v];
        cumulative_total_size += m.defined[v];
        for &p in &m.operands[v] {
            extra_users += stats[p].0;
            total_sizes += stats[p].1;
        }
        stats[v] = (
            extra_users.min(m.ops() as i64),
            total_sizes.min(cumulative_total_size),
        );
    }
    let by_stats = |v: usize| {
        let mut kids = m.operands[v].clone();
        kids.sort_by(|&a, &b| stats[b].cmp(&stats[a]).then(a.cmp(&b)));
        kids
    };
    post_order(m, xla_roots(m), &by_stats)
}

/// Inductor's `topological_sort_lpmf`, scanning the ready set each step.
fn inductor_lpmf(m: &Model) -> Vec<usize> {
    let mut indegree: Vec<usize> = m.operands.iter().map(Vec::len).collect();
    let mut outdegree: Vec<usize> = m.readers.iter().map(Vec::len).collect();
    // Its own outputs nobody reads, and the buffers it is the last to read.
    let mut memory_to_free: Vec<i64> = (0..m.ops())
        .map(|v| {
            let last = m.uses[v].iter().filter(|&&b| outdegree[b] == 1);
            m.unread[v] + last.map(|&b| m.size[b]).sum::<i64>()
        })
        .collect();
    let mut live = 0i64;
    let mut max_memory = live.max(m.output_bytes);
    let mut ready: Vec<usize> = (0..m.ops()).filter(|&v| indegree[v] == 0).collect();
    let mut order = Vec::new();
    while !ready.is_empty() {
        let key = |v: usize| {
            let size = m.defined[v];
            ((live + size).max(max_memory), size - memory_to_free[v], v)
        };
        let at = (0..ready.len()).min_by_key(|&i| key(ready[i])).unwrap();
        let sel = ready.remove(at);
        order.push(sel);
        live += m.defined[sel];
        max_memory = max_memory.max(live);
        live -= memory_to_free[sel];
        for &u in &m.users[sel] {
            indegree[u] -= 1;
            if indegree[u] == 0 {
                ready.push(u);
            }
        }
        for &b in &m.uses[sel] {
            outdegree[b] -= 1;
            if outdegree[b] == 1 {
                m.readers[b]
                    .iter()
                    .for_each(|&u| memory_to_free[u] += m.size[b]);
            }
        }
    }
    order
}

/// Inductor's `topological_sort_bfs`: the ready op whose predecessors'
/// positions, sorted, are least, then the lowest index.
fn inductor_bfs(m: &Model) -> Vec<usize> {
    let mut indegree: Vec<usize> = m.operands.iter().map(Vec::len).collect();
    let mut position = vec![usize::MAX; m.ops()];
    let mut ready: Vec<(Vec<usize>, usize)> = Vec::new();
    let priority =
        |v: usize, position: &[usize]| (distinct(m.operands[v].iter().map(|&p| position[p])), v);
    for v in (0..m.ops()).filter(|&v| indegree[v] == 0) {
        ready.push(priority(v, &position));
    }
    let mut order = Vec::new();
    while !ready.is_empty() {
        let at = (0..ready.len())
            .min_by(|&i, &j| ready[i].cmp(&ready[j]))
            .unwrap();
        let (_, sel) = ready.remove(at);
        position[sel] = order.len();
        order.push(sel);
        for &u in &m.users[sel] {
            indegree[u] -= 1;
            if indegree[u] == 0 {
                ready.push(priority(u, &position));
            }
        }
    }
    order
}

/// Inductor's `topological_sort_dfs`: roots and predecessors both visited
/// by increasing (size with reads, index).
fn inductor_dfs(m: &Model) -> Vec<usize> {
    let size_with_reads: Vec<i64> = (0..m.ops())
        .map(|v| m.defined[v] + m.uses[v].iter().map(|&b| m.size[b]).sum::<i64>())
        .collect();
    let sorted = |mut ops: Vec<usize>| {
        ops.sort_by_key(|&v| (size_with_reads[v], v));
        ops
    };
    let roots = sorted((0..m.ops()).collect());
    post_order(m, roots, &|v| sorted(m.operands[v].clone()))
}

/// An oracle scheduler: the op order it gives a model.
type Oracle = fn(&Model) -> Vec<usize>;

/// The six single schedulers, by memsched's names.
const SINGLES: [(&str, Oracle); 6] = [
    ("xla-list", xla_list),
    ("xla-dfs", xla_dfs),
    ("xla-postorder", xla_postorder),
    ("inductor-lpmf", inductor_lpmf),
    ("inductor-bfs", inductor_bfs),
    ("inductor-dfs", inductor_dfs),
];

/// The node order an op order stands for: each op after the ALLOCs
/// feeding it, each FREE as soon as its last reader ran, the ALLOCs of no
/// op last; and the checker's peak of it.
fn expanded_peak(g: &Graph, m: &Model, ops: &[usize], label: &str) -> u64 {
    let compute: Vec<NodeIdx> = g
        .nodes()
        .filter(|&v| g.kind(v) == NodeKind::Compute)
        .collect();
    let mut pending: Vec<usize> = g.nodes().map(|v| g.preds(v).len()).collect();
    let mut order = Vec::with_capacity(g.node_count());
    for &op in ops {
        let v = compute[op];
        order.extend(g.preds(v).iter().filter(|&&a| g.kind(a) == NodeKind::Alloc));
        order.push(v);
        for &s in g.succs(v) {
            pending[s as usize] -= 1;
            if pending[s as usize] == 0 && g.kind(s) == NodeKind::Free {
                order.push(s);
            }
        }
    }
    let unfed = |&a: &NodeIdx| g.kind(a) == NodeKind::Alloc && g.succs(a).is_empty();
    order.extend(g.nodes().filter(unfed));
    assert_eq!(m.ops(), ops.len(), "{label}: an oracle order misses ops");
    let checked = schedule::check(g, &order);
    checked
        .unwrap_or_else(|e| panic!("{label}: an oracle order: {e}"))
        .peak
}

/// memsched's op order from `solver` on `g` and its checked peak.
fn memsched_ops(solver: &str, g: &Graph, m: &Model, label: &str) -> (Vec<usize>, u64) {
    let r = run(build(solver).unwrap().as_ref(), g, &SolveContext::default());
    let order = r
        .order
        .unwrap_or_else(|| panic!("{label}: {solver}: {}", r.status));
    let ops = order
        .into_iter()
        .filter(|&v| g.kind(v) == NodeKind::Compute)
        .map(|v| m.op_of[v as usize])
        .collect();
    let peak = r
        .peak
        .unwrap_or_else(|| panic!("{label}: {solver}: {}", r.status));
    (ops, peak)
}

/// The first of `candidates` with the lowest peak (ties keep the first).
fn best_of(candidates: Vec<(Vec<usize>, u64)>) -> (Vec<usize>, u64) {
    let mut best: Option<(Vec<usize>, u64)> = None;
    for c in candidates {
        if best.as_ref().is_none_or(|b| c.1 < b.1) {
            best = Some(c);
        }
    }
    best.expect("a best-of has members")
}

/// Asserts that memsched's `solver` gives the oracle's op order and peak.
fn assert_agrees(solver: &str, g: &Graph, m: &Model, label: &str, want: &(Vec<usize>, u64)) {
    let (ops, peak) = memsched_ops(solver, g, m, label);
    assert_eq!(
        ops, want.0,
        "{label}: {solver}: op order (left memsched, right oracle)"
    );
    assert_eq!(peak, want.1, "{label}: {solver}: peak");
}

/// Checks the six schedulers and both defaults on `g`.
fn check_graph(g: &Graph, label: &str) {
    let m = Model::new(g, label);
    let oracle: Vec<(Vec<usize>, u64)> = SINGLES
        .iter()
        .map(|(_, f)| {
            let ops = f(&m);
            let peak = expanded_peak(g, &m, &ops, label);
            (ops, peak)
        })
        .collect();
    for ((solver, _), want) in SINGLES.iter().zip(&oracle) {
        assert_agrees(solver, g, &m, label, want);
    }
    let xla_default = best_of(oracle[..3].to_vec());
    assert_agrees("xla-default", g, &m, label, &xla_default);
    let mut inductor = Vec::new();
    if g.program_order_is_topological() {
        let identity: Vec<NodeIdx> = g.nodes().collect();
        let peak = schedule::check(g, &identity).unwrap().peak;
        inductor.push(((0..m.ops()).collect(), peak));
    }
    inductor.extend_from_slice(&oracle[3..]);
    assert_agrees("inductor-default", g, &m, label, &best_of(inductor));
}

/// A uniform pick from `items`.
fn pick<T: Copy>(rng: &mut Rng, items: &[T]) -> T {
    items[rng.below(items.len() as u64) as usize]
}

/// `k` distinct items of `items` (all of them if fewer), in random order.
fn sample<T: Copy>(rng: &mut Rng, items: &[T], k: usize) -> Vec<T> {
    let mut pool = items.to_vec();
    let k = k.min(pool.len());
    for i in 0..k {
        let j = i + rng.below((pool.len() - i) as u64) as usize;
        pool.swap(i, j);
    }
    pool.truncate(k);
    pool
}

/// A random tensor program of 3-16 ops reading up to three earlier
/// outputs each, sizes from [`SIZES`] (the Python replica's generator).
fn random_program(rng: &mut Rng) -> TensorProgram {
    let n = rng.range(3, 16) as usize;
    let mut p = TensorProgram::new();
    let mut outs: Vec<TensorRef> = Vec::new();
    for i in 0..n {
        let k = if i == 0 {
            0
        } else {
            pick(rng, &[0, 1, 1, 2, 2, 3])
        };
        let inputs = sample(rng, &outs, k);
        let count = if i + 1 < n {
            pick(rng, &[0, 1, 1, 1, 2])
        } else {
            pick(rng, &[0, 1])
        };
        let sizes: Vec<u64> = (0..count).map(|_| pick(rng, &SIZES)).collect();
        p.push(format!("op{i}"), inputs, sizes);
        outs.extend((0..count).map(|output| TensorRef { op: i, output }));
    }
    p
}

const ENCODINGS: [AllocEncoding; 2] = [AllocEncoding::Anchored, AllocEncoding::Floating];

/// Outputs of `p` no op reads.
fn unread_outputs(p: &TensorProgram) -> Vec<TensorRef> {
    let read: HashSet<(usize, usize)> = p
        .ops
        .iter()
        .flat_map(|op| op.inputs.iter().map(|t| (t.op, t.output)))
        .collect();
    let all =
        p.ops.iter().enumerate().flat_map(|(op, spec)| {
            (0..spec.outputs.len()).map(move |output| TensorRef { op, output })
        });
    all.filter(|t| !read.contains(&(t.op, t.output))).collect()
}

/// `p` lowered with a FREE right after the producer of each of `dead`
/// (edge producer -> FREE): buffers nobody reads.
fn with_dead_buffers(p: &TensorProgram, enc: AllocEncoding, dead: &[TensorRef]) -> Graph {
    let plain = p.to_graph(enc).unwrap();
    let ops: Vec<NodeIdx> = plain
        .nodes()
        .filter(|&v| plain.kind(v) == NodeKind::Compute)
        .collect();
    let mut b = p.lower(enc);
    for t in dead {
        let v = ops[t.op];
        let mut allocs: Vec<NodeIdx> = plain.preds(v).to_vec();
        allocs.retain(|&a| plain.kind(a) == NodeKind::Alloc);
        allocs.sort_unstable();
        let f = b.free(plain.buf_id(allocs[t.output]).unwrap());
        b.edge(plain.id(v), f);
    }
    b.build().unwrap()
}

/// A random graph (the Python replica's views generator) where each input is
/// read directly or, half the time, through a view: a compute node with no
/// ALLOC after the producer, reading the buffer too (edge view -> FREE).
/// Floating ALLOCs; outputs nobody reads have no FREE.
fn views_graph(rng: &mut Rng, n: usize) -> Graph {
    let mut b = GraphBuilder::new();
    let mut outs: Vec<(i64, usize)> = Vec::new(); // (producer, buffer)
    let mut readers: BTreeMap<usize, Vec<i64>> = BTreeMap::new();
    let mut buffers = 0usize;
    for i in 0..n {
        let k = if outs.is_empty() {
            0
        } else {
            pick(rng, &[0, 1, 1, 2])
        };
        let inputs = sample(rng, &outs, k);
        let mut sources = Vec::new();
        for &(producer, buf) in &inputs {
            if rng.chance(0.5) {
                let view = b.op("view");
                b.edge(producer, view);
                readers.entry(buf).or_default().push(view);
                sources.push(view);
            } else {
                sources.push(producer);
            }
        }
        let count = pick(rng, &[0, 1, 1, 2]);
        let allocs: Vec<(i64, usize)> = (0..count)
            .map(|_| {
                buffers += 1;
                (
                    b.alloc(pick(rng, &[1, 2, 3, 5, 8]), buffers as i64 - 1),
                    buffers - 1,
                )
            })
            .collect();
        let v = b.op(&format!("op{i}"));
        for &(a, buf) in &allocs {
            b.edge(a, v);
            outs.push((v, buf));
        }
        sources.sort_unstable();
        sources.dedup();
        sources.into_iter().for_each(|s| b.edge(s, v));
        inputs
            .iter()
            .for_each(|&(_, buf)| readers.entry(buf).or_default().push(v));
    }
    for (buf, mut rs) in readers {
        let f = b.free(buf as i64);
        rs.sort_unstable();
        rs.dedup();
        rs.into_iter().for_each(|r| b.edge(r, f));
    }
    b.build().unwrap()
}

/// Random tensor programs (3-16 ops), both encodings: 500 graphs.
#[test]
fn random_programs_match_the_oracle() {
    for seed in 0..250 {
        let p = random_program(&mut Rng::derive(seed, 1));
        for enc in ENCODINGS {
            let g = p.to_graph(enc).unwrap();
            check_graph(&g, &format!("program seed {seed} {enc:?}"));
        }
    }
}

/// Random tensor programs where some outputs nobody reads get a FREE after
/// their producer, both encodings: 300 graphs, each with such a buffer.
#[test]
fn programs_with_unread_buffers_match_the_oracle() {
    let mut checked = 0;
    for seed in 0.. {
        let mut rng = Rng::derive(seed, 2);
        let p = random_program(&mut rng);
        let unread = unread_outputs(&p);
        let mut dead: Vec<TensorRef> = unread.iter().copied().filter(|_| rng.chance(0.7)).collect();
        if dead.is_empty() {
            dead.extend(unread.first());
        }
        if dead.is_empty() {
            continue;
        }
        for enc in ENCODINGS {
            let g = with_dead_buffers(&p, enc, &dead);
            check_graph(&g, &format!("unread-buffer program seed {seed} {enc:?}"));
            checked += 1;
        }
        if checked == 300 {
            break;
        }
    }
}

/// Random graphs with view ops (3-14 ops besides the views): 400 graphs.
#[test]
fn graphs_with_views_match_the_oracle() {
    for seed in 0..400 {
        let mut rng = Rng::derive(seed, 3);
        let n = rng.range(3, 14) as usize;
        let g = views_graph(&mut rng, n);
        check_graph(&g, &format!("views seed {seed}"));
    }
}

/// The graph files in `datasets/<dir>`, as `<dir>/<name>.json`, sorted.
fn dataset_files(dir: &str) -> Vec<String> {
    let path = format!("{}/datasets/{dir}", env!("CARGO_MANIFEST_DIR"));
    let entries = std::fs::read_dir(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let mut files: Vec<String> = entries
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name.ends_with(".json"))
        .map(|name| format!("{dir}/{name}"))
        .collect();
    files.sort();
    files
}

/// Every shipped graph (the 24 exported models and 3 NAS graphs, 27 in
/// all): among them `bert_base_inference_b1` has 50 buffers nobody reads,
/// and `bert_base_training_b1` views that leave XLA's priorities stale.
#[test]
fn shipped_datasets_match_the_oracle() {
    let files = [dataset_files("models"), dataset_files("nas")].concat();
    assert!(files.len() >= 27, "{files:?}");
    for file in files {
        let path = format!("{}/datasets/{file}", env!("CARGO_MANIFEST_DIR"));
        let g = seed::read_path(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
        check_graph(&g, &format!("dataset {file}"));
    }
}
