//! Validation: turns a [`RawGraph`] into a [`Graph`] or a typed error.
//!
//! Checks, in this order: no top-level field the format reserves, the
//! node and edge counts, duplicate ids; then node by node, `Op` spelling
//! (`alloc` or `Free` is an error, not a compute node), field names
//! (`latency` is an error, not an unread extra field), ALLOC/FREE fields
//! and the running total of ALLOC sizes; then buffers (one ALLOC, at most
//! one FREE, no FREE without ALLOC), edge endpoints, numeric `Latency`
//! fields, cycles, and that every FREE is reachable from its ALLOC.

use std::collections::HashMap;

use serde_json::{Map, Value};

use super::seed::{RawGraph, RawNode};
use super::{Csr, Graph, GraphError, IdIndex, NodeIdx, NodeKind, NONE};

impl Graph {
    /// Validates a raw graph.
    ///
    /// # Complexity
    /// O((n + m) log n) except the FREE-reachability check: a bounded
    /// backward search per FREE (a few nodes per buffer on real graphs), then
    /// O(n + m) per 64 buffers the search leaves unsettled (see
    /// `check_frees_reachable`).
    pub fn from_raw(raw: RawGraph) -> Result<Graph, GraphError> {
        let RawGraph {
            nodes,
            edges,
            extra: graph_extra,
        } = raw;
        check_graph_fields(&graph_extra)?;
        check_capacity(nodes.len(), edges.len())?;
        let n = nodes.len();
        let ids: Vec<i64> = nodes.iter().map(|node| node.id).collect();
        let id_index = index_ids(&ids)?;
        let Columns {
            kinds,
            mut deltas,
            buf_ids,
            op_codes,
            op_names,
            extras,
        } = Columns::read(nodes)?;
        let partner = pair_buffers(&ids, &kinds, &buf_ids, &mut deltas)?;
        let pairs = edge_pairs(&edges, &id_index, n)?;
        let succ = Csr::from_pairs(n, pairs.iter().copied());
        let pred = Csr::from_pairs(n, pairs.iter().map(|&(u, v)| (v, u)));
        let program_is_topological = pairs.iter().all(|&(u, v)| u < v);
        let has_parallel_edges = has_parallel_edges(&succ);
        let latencies = latencies(&ids, &extras)?;
        let topo = kahn_topo(&succ, &pred).map_err(|cycle| GraphError::Cycle {
            cycle: cycle.iter().map(|&v| ids[v as usize]).collect(),
        })?;

        let graph = Graph {
            ids,
            kinds,
            deltas,
            buf_ids,
            partner,
            op_codes,
            op_names,
            extras,
            graph_extra,
            succ,
            pred,
            topo,
            program_is_topological,
            has_parallel_edges,
            latencies,
            id_index,
        };
        check_frees_reachable(&graph)?;
        Ok(graph)
    }

    /// The raw form of this graph (for transforms that edit and re-validate).
    pub fn to_raw(&self) -> RawGraph {
        let nodes = self
            .nodes()
            .map(|v| RawNode {
                id: self.id(v),
                op: self.op(v).to_string(),
                size: (self.kind(v) == NodeKind::Alloc).then(|| self.delta(v) as i128),
                buf_id: self.buf_id(v),
                extra: self.extras[v as usize].clone(),
            })
            .collect();
        let edges = self
            .nodes()
            .flat_map(|u| self.succs(u).iter().map(move |&v| (self.id(u), self.id(v))))
            .collect();
        RawGraph {
            nodes,
            edges,
            extra: self.graph_extra.clone(),
        }
    }
}

/// Refuses a top-level field that the format reserves.
fn check_graph_fields(graph_extra: &Map<String, Value>) -> Result<(), GraphError> {
    match super::seed::GRAPH_FIELDS
        .into_iter()
        .find(|&k| graph_extra.contains_key(k))
    {
        Some(key) => Err(GraphError::ReservedField {
            id: None,
            key: key.into(),
            why: HELD,
        }),
        None => Ok(()),
    }
}

/// Refuses more nodes or edges than `u32` indices can number.
fn check_capacity(nodes: usize, edges: usize) -> Result<(), GraphError> {
    if nodes >= NONE as usize {
        return Err(GraphError::Capacity {
            what: format!("{nodes} nodes"),
            max: NONE as u64 - 1,
        });
    }
    if edges > u32::MAX as usize {
        return Err(GraphError::Capacity {
            what: format!("{edges} edges"),
            max: u32::MAX as u64,
        });
    }
    Ok(())
}

/// The per-node columns of a graph, read from its `Nodes` array.
struct Columns {
    kinds: Vec<NodeKind>,
    /// An ALLOC's size; 0 for the others (FREEs get theirs from their ALLOC).
    deltas: Vec<i64>,
    /// An ALLOC's or FREE's `BufId`; 0 for compute nodes.
    buf_ids: Vec<i64>,
    op_codes: Vec<u32>,
    op_names: Vec<String>,
    extras: Vec<Option<Box<Map<String, Value>>>>,
}

impl Columns {
    /// Reads node by node: `Op` spelling, field names, ALLOC/FREE fields
    /// and the running total of ALLOC sizes.
    fn read(nodes: Vec<RawNode>) -> Result<Columns, GraphError> {
        let n = nodes.len();
        let mut c = Columns {
            kinds: Vec::with_capacity(n),
            deltas: vec![0i64; n],
            buf_ids: vec![0i64; n],
            op_codes: Vec::with_capacity(n),
            op_names: Vec::new(),
            extras: Vec::with_capacity(n),
        };
        let mut op_table: HashMap<String, u32> = HashMap::new();
        let mut total: i128 = 0;
        for (v, node) in nodes.into_iter().enumerate() {
            let RawNode {
                id,
                op,
                size,
                buf_id,
                extra,
            } = node;
            let kind = node_kind(id, &op)?;
            check_field_names(id, kind, extra.as_deref())?;
            let mut extra = extra;
            match kind {
                NodeKind::Alloc => {
                    let size = size.ok_or(GraphError::MissingSize { id })?;
                    if size < 0 {
                        return Err(GraphError::NegativeSize { id, size });
                    }
                    total += size;
                    if total > i64::MAX as i128 {
                        return Err(GraphError::TooLarge {
                            max: i64::MAX,
                            id,
                            size,
                        });
                    }
                    c.deltas[v] = size as i64;
                    c.buf_ids[v] = buf_id.ok_or(GraphError::MissingBufId { id, op: "ALLOC" })?;
                }
                NodeKind::Free => {
                    c.buf_ids[v] = buf_id.ok_or(GraphError::MissingBufId { id, op: "FREE" })?;
                    keep_field(&mut extra, "Size", size.map(int_value));
                }
                NodeKind::Compute => {
                    keep_field(&mut extra, "Size", size.map(int_value));
                    keep_field(&mut extra, "BufId", buf_id.map(Value::from));
                }
            }
            let op_names = &mut c.op_names;
            let code = *op_table.entry(op).or_insert_with_key(|name| {
                op_names.push(name.clone());
                (op_names.len() - 1) as u32
            });
            c.kinds.push(kind);
            c.op_codes.push(code);
            c.extras.push(extra);
        }
        Ok(c)
    }
}

/// The kind an `Op` names: exactly `ALLOC` or `FREE`, or any other (compute)
/// that is not one of those two in another case.
fn node_kind(id: i64, op: &str) -> Result<NodeKind, GraphError> {
    Ok(match op {
        "ALLOC" => NodeKind::Alloc,
        "FREE" => NodeKind::Free,
        other => {
            if let Some(expected) = miscased_op(other) {
                return Err(GraphError::OpCase {
                    id,
                    op: other.to_string(),
                    expected,
                });
            }
            NodeKind::Compute
        }
    })
}

/// The edges as index pairs, refusing one that names a missing node.
fn edge_pairs(
    edges: &[(i64, i64)],
    id_index: &IdIndex,
    n: usize,
) -> Result<Vec<(NodeIdx, NodeIdx)>, GraphError> {
    let mut pairs = Vec::with_capacity(edges.len());
    for (k, &(from, to)) in edges.iter().enumerate() {
        let missing = |m| GraphError::EdgeToMissingNode {
            edge: k,
            from,
            to,
            missing: m,
        };
        let u = id_index.find(from, n).ok_or_else(|| missing(from))?;
        let v = id_index.find(to, n).ok_or_else(|| missing(to))?;
        pairs.push((u, v));
    }
    Ok(pairs)
}

/// A JSON integer as written. `Size` is read as i64 or u64, both of which
/// `Number` holds exactly (`as i64` would wrap sizes above `i64::MAX`).
fn int_value(x: i128) -> Value {
    serde_json::Number::from_i128(x).map_or(Value::Null, Value::Number)
}

/// Keeps a known field that has no meaning for this kind of node as an extra.
fn keep_field(extra: &mut Option<Box<Map<String, Value>>>, key: &str, value: Option<Value>) {
    if let Some(value) = value {
        extra
            .get_or_insert_with(Default::default)
            .insert(key.to_string(), value);
    }
}

fn index_ids(ids: &[i64]) -> Result<IdIndex, GraphError> {
    if ids.iter().enumerate().all(|(i, &id)| id == i as i64) {
        return Ok(IdIndex::Dense);
    }
    let mut table: Vec<(i64, NodeIdx)> = ids
        .iter()
        .enumerate()
        .map(|(i, &id)| (id, i as NodeIdx))
        .collect();
    table.sort_unstable();
    if let Some(w) = table.windows(2).find(|w| w[0].0 == w[1].0) {
        return Err(GraphError::DuplicateId {
            id: w[0].0,
            first: w[0].1 as usize,
            second: w[1].1 as usize,
        });
    }
    Ok(IdIndex::Sorted(table))
}

/// Links ALLOCs with FREEs and sets each FREE's delta to minus its buffer's size.
fn pair_buffers(
    ids: &[i64],
    kinds: &[NodeKind],
    buf_ids: &[i64],
    deltas: &mut [i64],
) -> Result<Vec<NodeIdx>, GraphError> {
    let n = ids.len();
    let mut alloc_of: HashMap<i64, NodeIdx> = HashMap::new();
    let mut free_of: HashMap<i64, NodeIdx> = HashMap::new();
    for v in 0..n {
        let buf = buf_ids[v];
        let table = match kinds[v] {
            NodeKind::Alloc => &mut alloc_of,
            NodeKind::Free => &mut free_of,
            NodeKind::Compute => continue,
        };
        if let Some(&first) = table.get(&buf) {
            let (first, second) = (ids[first as usize], ids[v]);
            return Err(if kinds[v] == NodeKind::Alloc {
                GraphError::DuplicateAlloc { buf, first, second }
            } else {
                GraphError::DuplicateFree { buf, first, second }
            });
        }
        table.insert(buf, v as NodeIdx);
    }
    let mut partner = vec![NONE; n];
    for v in 0..n {
        if kinds[v] != NodeKind::Free {
            continue;
        }
        let buf = buf_ids[v];
        let a = *alloc_of
            .get(&buf)
            .ok_or(GraphError::FreeWithoutAlloc { free: ids[v], buf })?;
        partner[v] = a;
        partner[a as usize] = v as NodeIdx;
        deltas[v] = -deltas[a as usize];
    }
    Ok(partner)
}

/// Why an extra field named as a field the graph holds (`Id`, `Nodes`, ...)
/// is refused.
const HELD: &str = "the graph holds that field itself, so a written file would hold the key twice";

/// Refuses an extra key of node `id` (of kind `kind`) that a written file
/// would not read back ([`GraphError::ReservedField`]: only a builder or a
/// hand-made `RawGraph` can have one), or that is one of the format's
/// fields in another case (`"latency"`, `"Inputs "`): see
/// [`seed::miscased`].
///
/// [`seed::miscased`]: super::seed::miscased
fn check_field_names(
    id: i64,
    kind: NodeKind,
    extra: Option<&Map<String, Value>>,
) -> Result<(), GraphError> {
    for (key, value) in extra.into_iter().flatten() {
        // The reader keeps a FREE's or a compute node's `Size`, and a
        // compute node's `BufId`, among its extras, as integers.
        let why = match (key.as_str(), kind) {
            ("Id" | "Op", _)
            | ("Size", NodeKind::Alloc)
            | ("BufId", NodeKind::Alloc | NodeKind::Free) => Some(HELD),
            // The reader keeps any integer literal there (a negative one,
            // one up to 2^64 - 1), with a warning.
            ("Size", _) if !(value.is_i64() || value.is_u64()) => {
                Some("a kept Size must be an integer from -2^63 to 2^64 - 1")
            }
            ("BufId", _) if value.as_i64().is_none() => {
                Some("a kept BufId must be an integer from -2^63 to 2^63 - 1")
            }
            _ => None,
        };
        if let Some(why) = why {
            return Err(GraphError::ReservedField {
                id: Some(id),
                key: key.clone(),
                why,
            });
        }
        if let Some(expected) = super::seed::miscased(key, &super::seed::NODE_FIELDS) {
            return Err(GraphError::FieldCase {
                id,
                key: key.clone(),
                expected,
            });
        }
    }
    Ok(())
}

/// `ALLOC` or `FREE` if `op` is one of them in another case or with spaces
/// around it (`"alloc"`, `" FREE"`), which a user means as that kind.
fn miscased_op(op: &str) -> Option<&'static str> {
    let t = op.trim();
    ["ALLOC", "FREE"]
        .into_iter()
        .find(|kind| t.eq_ignore_ascii_case(kind))
}

/// Each node's numeric `Latency` field (0 where absent or `null`); empty
/// if no node has a number there. A `Latency` that is not a JSON number, or whose magnitude
/// exceeds [`MAX_LATENCY`](super::MAX_LATENCY), is an error naming the node.
fn latencies(
    ids: &[i64],
    extras: &[Option<Box<Map<String, Value>>>],
) -> Result<Vec<f64>, GraphError> {
    let mut out = Vec::new();
    for (v, extra) in extras.iter().enumerate() {
        // `null`, as exporters write a missing value, is no latency.
        let Some(value) = extra
            .as_ref()
            .and_then(|e| e.get("Latency"))
            .filter(|v| !v.is_null())
        else {
            continue;
        };
        let Some(latency) = value.as_f64() else {
            let mut shown = value.to_string();
            if shown.len() > 40 {
                let cut = (0..=37)
                    .rev()
                    .find(|&i| shown.is_char_boundary(i))
                    .unwrap_or(0);
                shown.truncate(cut);
                shown.push_str("...");
            }
            return Err(GraphError::BadLatency {
                id: ids[v],
                value: shown,
            });
        };
        check_latency_range(ids[v], latency, value)?;
        if out.is_empty() {
            out = vec![0.0; extras.len()];
        }
        out[v] = latency;
    }
    Ok(out)
}

/// Refuses a `Latency` (`value` as written) whose magnitude exceeds
/// [`MAX_LATENCY`](super::MAX_LATENCY), naming node `id`: read from a file
/// or set by [`Graph::with_latencies`].
pub(super) fn check_latency_range(id: i64, latency: f64, value: &Value) -> Result<(), GraphError> {
    if latency.abs() > super::MAX_LATENCY {
        return Err(GraphError::LatencyOutOfRange {
            id,
            value: value.to_string(),
        });
    }
    Ok(())
}

/// Whether some edge is written more than once.
///
/// # Complexity
/// O(n + m).
fn has_parallel_edges(succ: &Csr) -> bool {
    let mut seen = vec![NodeIdx::MAX; succ.node_count()];
    (0..succ.node_count() as NodeIdx).any(|u| {
        succ.neighbors(u).iter().any(|&w| {
            let repeat = seen[w as usize] == u;
            seen[w as usize] = u;
            repeat
        })
    })
}

/// Kahn's algorithm with a FIFO queue seeded in program order. On a cycle,
/// returns the nodes of one cycle in edge order.
///
/// # Complexity
/// O(n + m).
pub(crate) fn kahn_topo(succ: &Csr, pred: &Csr) -> Result<Vec<NodeIdx>, Vec<NodeIdx>> {
    let n = pred.node_count();
    let mut indegree: Vec<u32> = (0..n as NodeIdx).map(|v| pred.degree(v) as u32).collect();
    let mut order: Vec<NodeIdx> = (0..n as NodeIdx)
        .filter(|&v| indegree[v as usize] == 0)
        .collect();
    let mut head = 0;
    while head < order.len() {
        let u = order[head];
        head += 1;
        for &v in succ.neighbors(u) {
            indegree[v as usize] -= 1;
            if indegree[v as usize] == 0 {
                order.push(v);
            }
        }
    }
    if order.len() == n {
        return Ok(order);
    }
    // Every unprocessed node has an unprocessed predecessor: walk backwards
    // until a node repeats, then report that loop forwards.
    let start = (0..n).find(|&v| indegree[v] > 0).unwrap_or(0) as NodeIdx;
    let mut seen_at = vec![usize::MAX; n];
    let mut walk = Vec::new();
    let mut v = start;
    loop {
        if seen_at[v as usize] != usize::MAX {
            let mut cycle = walk[seen_at[v as usize]..].to_vec();
            cycle.reverse();
            return Err(cycle);
        }
        seen_at[v as usize] = walk.len();
        walk.push(v);
        v = *pred
            .neighbors(v)
            .iter()
            .find(|&&p| indegree[p as usize] > 0)
            .unwrap_or(&v);
    }
}

/// Most edges a backward search from one FREE may scan before its buffer
/// is left to the bit-parallel pass (edges, not nodes: a node read by
/// thousands of ops costs each search that passes it thousands).
const SEARCH_BUDGET: usize = 1024;

/// Checks that each FREE has a path from its ALLOC; on failure reports the
/// first such FREE in program order.
///
/// Two passes. First a backward search from each FREE that stops at any
/// successor of the ALLOC (marked beforehand, so a node read by many ops
/// is found without scanning its readers), pruned by longest-path heights
/// (a node on a path from the ALLOC has a smaller height than the ALLOC)
/// and cut off after [`SEARCH_BUDGET`] edges: on real graphs the ALLOC is
/// two or three edges up and this settles almost every buffer. The buffers
/// left over (e.g. many ALLOCs feeding the head of a long chain whose tail
/// feeds their FREEs, where each search would walk the whole chain) are
/// settled 64 at a time by pushing a bit per ALLOC forward along the
/// topological order.
///
/// # Complexity
/// O(m + B · SEARCH_BUDGET + (n + m) · ceil(U / 64)) for B buffers of
/// which U are left to the second pass (U = 0 on the exported models).
fn check_frees_reachable(g: &Graph) -> Result<(), GraphError> {
    let height = super::analysis::heights(g);
    let n = g.node_count();
    let mut stamp = vec![0u32; n];
    // `near[v] == round`: v is a successor of this round's ALLOC.
    let mut near = vec![0u32; n];
    let mut round = 0u32;
    let mut stack = Vec::new();
    let mut unreachable: Vec<NodeIdx> = Vec::new();
    let mut unsettled: Vec<NodeIdx> = Vec::new();
    for free in g.nodes().filter(|&v| g.kind(v) == NodeKind::Free) {
        let alloc = g.partner(free).expect("FREE paired by pair_buffers");
        round += 1;
        for &s in g.succs(alloc) {
            near[s as usize] = round;
        }
        if near[free as usize] == round {
            continue;
        }
        let limit = height[alloc as usize];
        // Edges out of the ALLOC's successors: where a node has more
        // predecessors than that, whether one of them is a successor is
        // asked from this side (an op reading thousands of buffers, each
        // freed after it, was scanned once per buffer).
        let near_out: usize = g.succs(alloc).iter().map(|&s| g.succs(s).len()).sum();
        let mut found = false;
        let mut scanned = 0;
        let mut cut = false;
        stack.clear();
        stack.push(free);
        stamp[free as usize] = round;
        'search: while let Some(x) = stack.pop() {
            if g.preds(x).len() > near_out {
                scanned += near_out;
                if g.succs(alloc).iter().any(|&s| g.succs(s).contains(&x)) {
                    found = true;
                    break 'search;
                }
            }
            for &p in g.preds(x) {
                scanned += 1;
                if near[p as usize] == round {
                    found = true;
                    break 'search;
                }
                if scanned > SEARCH_BUDGET {
                    cut = true;
                    break 'search;
                }
                if stamp[p as usize] != round && height[p as usize] < limit {
                    stamp[p as usize] = round;
                    stack.push(p);
                }
            }
        }
        match (found, cut) {
            (true, _) => {}
            (false, false) => unreachable.push(free),
            (false, true) => unsettled.push(free),
        }
    }
    if !unsettled.is_empty() {
        unreachable.extend(unreachable_in_batches(g, &unsettled));
    }
    match unreachable.into_iter().min() {
        None => Ok(()),
        Some(free) => {
            let alloc = g.partner(free).expect("FREE paired by pair_buffers");
            Err(GraphError::FreeNotReachable {
                buf: g.buf_ids[free as usize],
                alloc: g.id(alloc),
                free: g.id(free),
            })
        }
    }
}

/// The FREEs of `frees` not reachable from their ALLOC, by pushing one bit
/// per buffer (64 buffers per pass) from the ALLOCs along the topological
/// order, between the first ALLOC and the last FREE of the batch.
fn unreachable_in_batches(g: &Graph, frees: &[NodeIdx]) -> Vec<NodeIdx> {
    let topo = g.topo_order();
    let pos = super::analysis::positions(topo, g.node_count());
    let alloc_of = |f: NodeIdx| g.partner(f).expect("FREE paired by pair_buffers");
    // Buffers whose ALLOCs are close in topological order share a pass's range.
    let mut frees = frees.to_vec();
    frees.sort_by_key(|&f| pos[alloc_of(f) as usize]);
    let mut mask = vec![0u64; g.node_count()];
    let mut unreachable = Vec::new();
    for batch in frees.chunks(64) {
        let from = batch.iter().map(|&f| pos[alloc_of(f) as usize]).min();
        let to = batch.iter().map(|&f| pos[f as usize]).max();
        let (Some(from), Some(to)) = (from, to) else {
            continue;
        };
        for (bit, &f) in batch.iter().enumerate() {
            mask[alloc_of(f) as usize] |= 1 << bit;
        }
        for &u in &topo[from as usize..=to as usize] {
            let m = mask[u as usize];
            if m != 0 {
                for &v in g.succs(u) {
                    mask[v as usize] |= m;
                }
            }
        }
        for (bit, &f) in batch.iter().enumerate() {
            if mask[f as usize] & (1 << bit) == 0 {
                unreachable.push(f);
            }
        }
        for &u in &topo[from as usize..=to as usize] {
            mask[u as usize] = 0;
            for &v in g.succs(u) {
                mask[v as usize] = 0;
            }
        }
    }
    unreachable
}

/// Builds graphs in code: generators, transforms and tests.
///
/// Ids are assigned `0, 1, 2, ...` in insertion order, so program order is
/// insertion order.
///
/// ```
/// use memsched::graph::GraphBuilder;
/// let mut b = GraphBuilder::new();
/// let a = b.alloc(1024, 1);
/// let op = b.op("Matmul");
/// let f = b.free(1);
/// b.edge(a, op);
/// b.edge(op, f);
/// let g = b.build().unwrap();
/// assert_eq!(g.node_count(), 3);
/// ```
#[derive(Debug, Default, Clone)]
pub struct GraphBuilder {
    raw: RawGraph,
}

impl GraphBuilder {
    /// An empty builder.
    pub fn new() -> Self {
        Self::default()
    }
    fn push(&mut self, op: &str, size: Option<i128>, buf_id: Option<i64>) -> i64 {
        let id = self.raw.nodes.len() as i64;
        self.raw.nodes.push(RawNode {
            id,
            op: op.to_string(),
            size,
            buf_id,
            extra: None,
        });
        id
    }
    /// Adds `ALLOC size` of buffer `buf`; returns its id.
    pub fn alloc(&mut self, size: u64, buf: i64) -> i64 {
        self.push("ALLOC", Some(size as i128), Some(buf))
    }
    /// Adds `FREE` of buffer `buf`; returns its id.
    pub fn free(&mut self, buf: i64) -> i64 {
        self.push("FREE", None, Some(buf))
    }
    /// Adds a compute node; returns its id.
    pub fn op(&mut self, name: &str) -> i64 {
        self.push(name, None, None)
    }
    /// Adds the edge `u -> v` (u runs before v).
    pub fn edge(&mut self, u: i64, v: i64) {
        self.raw.edges.push((u, v));
    }
    /// Sets an extra field (`Name`, `Latency`, `Inputs`, ...) on node `id`.
    ///
    /// # Panics
    /// If no node has id `id` (ids are the values the adding methods return).
    pub fn set_extra(&mut self, id: i64, key: &str, value: Value) {
        let Some(node) = usize::try_from(id)
            .ok()
            .and_then(|i| self.raw.nodes.get_mut(i))
        else {
            panic!(
                "set_extra: no node {id} (the builder has {})",
                self.raw.nodes.len()
            );
        };
        node.extra
            .get_or_insert_with(Default::default)
            .insert(key.to_string(), value);
    }
    /// Sets a top-level field (e.g. a generator's parameters).
    pub fn set_graph_extra(&mut self, key: &str, value: Value) {
        self.raw.extra.insert(key.to_string(), value);
    }
    /// Number of nodes so far.
    pub fn len(&self) -> usize {
        self.raw.nodes.len()
    }
    /// True before the first node.
    pub fn is_empty(&self) -> bool {
        self.raw.nodes.is_empty()
    }
    /// The graph so far, unvalidated.
    pub fn into_raw(self) -> RawGraph {
        self.raw
    }
    /// Validates and builds.
    pub fn build(self) -> Result<Graph, GraphError> {
        Graph::from_raw(self.raw)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `buffers` ALLOCs feed the head of a chain of `chain` ops whose tail
    /// feeds every FREE: each backward search would walk the whole chain, so
    /// the bit-parallel pass settles them. `skip` ALLOCs get no edge.
    fn chain_graph(buffers: i64, chain: i64, skip: &[i64]) -> Result<Graph, GraphError> {
        let mut b = GraphBuilder::new();
        let allocs: Vec<i64> = (0..buffers).map(|i| b.alloc(1, i)).collect();
        let ops: Vec<i64> = (0..chain).map(|_| b.op("Op")).collect();
        let frees: Vec<i64> = (0..buffers).map(|i| b.free(i)).collect();
        for (i, &a) in allocs.iter().enumerate() {
            if !skip.contains(&(i as i64)) {
                b.edge(a, ops[0]);
            }
        }
        for w in ops.windows(2) {
            b.edge(w[0], w[1]);
        }
        for &f in &frees {
            b.edge(ops[chain as usize - 1], f);
        }
        b.build()
    }

    fn parse(text: &str) -> Result<Graph, GraphError> {
        Graph::from_raw(super::super::seed::parse(text.as_bytes())?)
    }

    #[test]
    fn miscased_alloc_and_free_are_errors_naming_the_node() {
        let err =
            parse(r#"{"Nodes": [{"Id": 7, "Op": "alloc", "Size": 5, "BufId": 1}]}"#).unwrap_err();
        assert_eq!(
            err,
            GraphError::OpCase {
                id: 7,
                op: "alloc".into(),
                expected: "ALLOC"
            }
        );
        assert!(err.to_string().contains("\"ALLOC\""), "{err}");
        for op in ["Free", " FREE", "free"] {
            let text = format!(r#"{{"Nodes": [{{"Id": 3, "Op": "{op}", "BufId": 1}}]}}"#);
            let err = parse(&text).unwrap_err();
            assert!(
                matches!(
                    &err,
                    GraphError::OpCase {
                        id: 3,
                        expected: "FREE",
                        ..
                    }
                ),
                "{op}: {err}"
            );
        }
        // Other ops, even close ones, stay compute.
        let g =
            parse(r#"{"Nodes": [{"Id": 0, "Op": "allocate"}, {"Id": 1, "Op": "FREE_"}]}"#).unwrap();
        assert!(g.nodes().all(|v| g.kind(v) == NodeKind::Compute));
    }

    /// A known field in another case would be kept as an unread extra
    /// field (`latency` left the rule feature at 0): it is an error naming
    /// the node and both spellings, whatever the field and the kind of node.
    #[test]
    fn a_field_in_another_case_is_an_error_naming_the_node_and_both_spellings() {
        let err = parse(
            r#"{"Nodes": [{"Id": 0, "Op": "A"}, {"Id": 4, "Op": "conv", "latency": 5}], "Edges": [[0, 4]]}"#,
        )
        .unwrap_err();
        assert_eq!(
            err,
            GraphError::FieldCase {
                id: 4,
                key: "latency".into(),
                expected: "Latency"
            }
        );
        let text = err.to_string();
        assert!(
            text.starts_with("node 4 has a field \"latency\": write exactly \"Latency\""),
            "{text}"
        );
        for (fields, key, expected) in [
            (r#""Op": "ALLOC", "size": 8, "BufId": 1"#, "size", "Size"),
            (r#""Op": "ALLOC", "Size": 8, "bufid": 1"#, "bufid", "BufId"),
            (r#""Op": "FREE", "BufId": 1, "BUFID": 2"#, "BUFID", "BufId"),
            (r#""Op": "conv", "inputs": [0]"#, "inputs", "Inputs"),
            (r#""Op": "conv", "Latency ": 3"#, "Latency ", "Latency"),
            (r#""Op": "conv", "ID": 3"#, "ID", "Id"),
            (r#""Op": "conv", "op": "x""#, "op", "Op"),
        ] {
            let text = format!(r#"{{"Nodes": [{{"Id": 9, {fields}}}]}}"#);
            let err = parse(&text).unwrap_err();
            assert_eq!(
                err,
                GraphError::FieldCase {
                    id: 9,
                    key: key.into(),
                    expected
                },
                "{fields}"
            );
        }
        // Exact fields, and other fields however they are spelt, are fine.
        let g = parse(
            r#"{"Nodes": [{"Id": 0, "Op": "A", "Latency": 2, "Inputs": [], "name": "a", "LatencyMs": 1}]}"#,
        )
        .unwrap();
        assert_eq!(g.latency(0), 2.0);
        // A builder's extra field is checked too.
        let mut b = GraphBuilder::new();
        let v = b.op("conv");
        b.set_extra(v, "LATENCY", Value::from(1));
        assert!(matches!(
            b.build(),
            Err(GraphError::FieldCase { id: 0, .. })
        ));
    }

    /// A builder cannot give a node or the graph an extra field the format
    /// reads itself: the file written from it would not read back.
    #[test]
    fn a_field_of_the_format_is_no_extra_field() {
        // A graph of an ALLOC, an op and a FREE with `key: value` set on node `at`.
        let built = |at: i64, key: &str, value: Value| {
            let mut b = GraphBuilder::new();
            let (a, x, f) = (b.alloc(4, 0), b.op("x"), b.free(0));
            b.edge(a, x);
            b.edge(x, f);
            b.set_extra(at, key, value);
            b.build()
        };
        let held = |at: i64, key: &str| {
            let err = built(at, key, Value::from(5)).unwrap_err();
            let is_held = matches!(&err, GraphError::ReservedField { id: Some(i), key: k, why }
                if *i == at && k == key && why.contains("holds that field itself"));
            assert!(is_held, "node {at}, {key}: {err:?}");
            assert!(
                err.to_string()
                    .starts_with(&format!("node {at}: extra field \"{key}\": ")),
                "{err}"
            );
        };
        for at in 0..3 {
            held(at, "Id");
            held(at, "Op");
        }
        held(0, "Size");
        held(0, "BufId");
        held(2, "BufId");
        // A FREE's or an op's `Size`, and an op's `BufId`, are kept as the
        // reader keeps them: integers that read back.
        for (at, key) in [(1, "Size"), (2, "Size"), (1, "BufId")] {
            // As the reader keeps them: a negative Size too, or one past
            // i64 (with a warning), and any i64 BufId.
            let goods = match key {
                "Size" => vec![Value::from(7), Value::from(-3), Value::from(u64::MAX)],
                _ => vec![Value::from(7), Value::from(i64::MIN)],
            };
            for good in goods {
                let g = built(at, key, good.clone()).unwrap();
                let mut out = Vec::new();
                crate::graph::seed::write(&g, &mut out).unwrap();
                parse(std::str::from_utf8(&out).unwrap()).unwrap();
            }
            for bad in [Value::from(5.5), Value::from("7"), Value::Null] {
                let err = built(at, key, bad.clone()).unwrap_err();
                assert!(
                    matches!(&err, GraphError::ReservedField { why, .. } if why.contains("must be an integer")),
                    "node {at}, {key} = {bad}: {err:?}"
                );
            }
        }
        for key in ["Nodes", "Edges"] {
            let mut b = GraphBuilder::new();
            b.op("x");
            b.set_graph_extra(key, Value::from(1));
            assert!(matches!(
                b.build().unwrap_err(),
                GraphError::ReservedField { id: None, key: k, .. } if k == key
            ));
        }
        // A parsed graph's kept fields go through `to_raw` and back (as a
        // transform rebuilds a graph).
        let g = parse(
            r#"{"Nodes": [{"Id": 0, "Op": "ALLOC", "Size": 10, "BufId": 1}, {"Id": 1, "Op": "conv", "Size": 3, "BufId": 9}, {"Id": 2, "Op": "FREE", "BufId": 1, "Size": 10}], "Edges": [[0, 1], [1, 2]]}"#,
        )
        .unwrap();
        Graph::from_raw(g.to_raw()).unwrap();
        // `Inputs` and `Latency` are extras the format keeps as they are.
        let mut b = GraphBuilder::new();
        let v = b.op("x");
        b.set_extra(v, "Inputs", Value::from(Vec::<i64>::new()));
        b.set_extra(v, "Latency", Value::from(2.5));
        let g = b.build().unwrap();
        let mut out = Vec::new();
        crate::graph::seed::write(&g, &mut out).unwrap();
        let back = parse(std::str::from_utf8(&out).unwrap()).unwrap();
        assert_eq!(back.latency(0), 2.5);
    }

    #[test]
    fn latency_beyond_2_pow_63_is_an_error_naming_the_node() {
        let graph = |latency: &str| {
            parse(&format!(
                r#"{{"Nodes": [{{"Id": 0, "Op": "A"}}, {{"Id": 5, "Op": "B", "Latency": {latency}}}]}}"#
            ))
        };
        for bad in ["1e300", "-1e19"] {
            let err = graph(bad).unwrap_err();
            assert!(
                matches!(err, GraphError::LatencyOutOfRange { id: 5, .. }),
                "{bad}: {err:?}"
            );
            assert!(err.to_string().contains("at most 2^63"), "{err}");
        }
        assert_eq!(graph("9.2e18").unwrap().latency(1), 9.2e18);
        assert_eq!(graph("-9.2e18").unwrap().latency(1), -9.2e18);
    }

    #[test]
    fn non_numeric_latency_is_an_error_naming_the_node() {
        for value in [r#""fast""#, "[1]", "true"] {
            let text = format!(
                r#"{{"Nodes": [{{"Id": 0, "Op": "A", "Latency": 2}}, {{"Id": 9, "Op": "B", "Latency": {value}}}]}}"#
            );
            let err = parse(&text).unwrap_err();
            assert!(
                matches!(&err, GraphError::BadLatency { id: 9, .. }),
                "{value}: {err}"
            );
            assert!(err.to_string().contains(value), "{err}");
        }
        let g = parse(r#"{"Nodes": [{"Id": 0, "Op": "A", "Latency": 2.5}, {"Id": 1, "Op": "B"}]}"#)
            .unwrap();
        assert_eq!((g.latency(0), g.latency(1)), (2.5, 0.0));
        // `null` is a missing value, as exporters write one: 0.
        let g = parse(r#"{"Nodes": [{"Id": 0, "Op": "A", "Latency": null}, {"Id": 1, "Op": "B", "Latency": 3}]}"#)
            .unwrap();
        assert_eq!((g.latency(0), g.latency(1)), (0.0, 3.0));
        let g = parse(r#"{"Nodes": [{"Id": 0, "Op": "A", "Latency": null}]}"#).unwrap();
        assert!(!g.has_latencies());
    }

    /// `with_latencies` sets the feature and the field (a written graph
    /// reads back the same), and refuses what a file's `Latency` may not be.
    #[test]
    fn latencies_set_in_code_are_checked_and_written() {
        let g = parse(r#"{"Nodes": [{"Id": 3, "Op": "A"}, {"Id": 7, "Op": "B", "Note": "x"}]}"#)
            .unwrap();
        let scored = g.clone().with_latencies(&[1.5, -2.0]).unwrap();
        assert!(scored.has_latencies());
        let mut text = Vec::new();
        crate::graph::seed::write(&scored, &mut text).unwrap();
        let back = parse(std::str::from_utf8(&text).unwrap()).unwrap();
        assert_eq!((back.latency(0), back.latency(1)), (1.5, -2.0));
        assert_eq!(back.extra_f64(1, "Latency"), Some(-2.0));
        assert!(back.extra(1).unwrap().contains_key("Note"));
        let err = g.clone().with_latencies(&[0.0, f64::NAN]).unwrap_err();
        assert!(matches!(err, GraphError::BadLatency { id: 7, .. }), "{err}");
        assert_eq!(
            g.clone().with_latencies(&[1.0]).unwrap_err(),
            GraphError::LatencyCount { given: 1, nodes: 2 }
        );
        let err = g.with_latencies(&[1e19, 0.0]).unwrap_err();
        assert!(
            matches!(err, GraphError::LatencyOutOfRange { id: 3, .. }),
            "{err}"
        );
    }

    #[test]
    fn parallel_edges_are_flagged() {
        let graph = |twice: bool| {
            let mut b = GraphBuilder::new();
            let (x, y, z) = (b.op("x"), b.op("y"), b.op("z"));
            b.edge(x, y);
            b.edge(x, z);
            if twice {
                b.edge(x, z);
            }
            b.build().unwrap()
        };
        assert!(!graph(false).has_parallel_edges());
        assert!(graph(true).has_parallel_edges());
    }

    #[test]
    fn long_paths_from_alloc_to_free_are_found() {
        let chain = 3 * SEARCH_BUDGET as i64;
        assert!(chain_graph(200, chain, &[]).is_ok());
        // Short chains are settled by the search alone.
        assert!(chain_graph(200, 3, &[]).is_ok());
    }

    #[test]
    fn the_first_unreachable_free_in_program_order_is_reported() {
        for chain in [3, 3 * SEARCH_BUDGET as i64] {
            let err = chain_graph(150, chain, &[97, 70, 130]).unwrap_err();
            assert_eq!(
                err,
                GraphError::FreeNotReachable {
                    buf: 70,
                    alloc: 70,
                    free: 150 + chain + 70
                },
                "chain {chain}"
            );
        }
    }

    #[test]
    fn search_and_batch_failures_are_merged_in_program_order() {
        // Buffer 900: ALLOC and FREE with no edges, settled by the search.
        // Buffer 5 of the chain: no edge from its ALLOC, settled in a batch.
        // Whichever FREE comes first in the Nodes array is reported.
        let chain = 3 * SEARCH_BUDGET as i64;
        let lone = |raw: &mut RawGraph, id: i64, op: &str, size: Option<i128>| {
            raw.nodes.push(RawNode {
                id,
                op: op.into(),
                size,
                buf_id: Some(900),
                extra: None,
            })
        };
        let base = chain_graph(10, chain, &[]).unwrap().to_raw();
        let mut first = base.clone();
        let mut last = base;
        for raw in [&mut first, &mut last] {
            raw.edges.retain(|&(u, _)| u != 5);
        }
        lone(&mut last, -1, "ALLOC", Some(1));
        lone(&mut last, -2, "FREE", None);
        let mut nodes = vec![];
        std::mem::swap(&mut nodes, &mut first.nodes);
        lone(&mut first, -1, "ALLOC", Some(1));
        lone(&mut first, -2, "FREE", None);
        first.nodes.extend(nodes);
        let lone_err = GraphError::FreeNotReachable {
            buf: 900,
            alloc: -1,
            free: -2,
        };
        let chain_err = GraphError::FreeNotReachable {
            buf: 5,
            alloc: 5,
            free: 10 + chain + 5,
        };
        assert_eq!(Graph::from_raw(first).unwrap_err(), lone_err);
        assert_eq!(Graph::from_raw(last).unwrap_err(), chain_err);
    }

    /// Many ALLOCs read by one op whose output feeds their FREEs: each
    /// FREE is found through the op without scanning its readers (this was
    /// quadratic), and an ALLOC left out is still caught.
    #[test]
    fn a_fan_in_op_between_allocs_and_frees_is_settled() {
        assert!(chain_graph(5_000, 1, &[]).is_ok());
        let err = chain_graph(5_000, 1, &[4_321]).unwrap_err();
        assert!(
            matches!(err, GraphError::FreeNotReachable { buf: 4_321, .. }),
            "{err:?}"
        );
    }

    /// The two passes agree with a plain search from every ALLOC on random
    /// graphs, with and without a path to each FREE, on both sides of the
    /// search budget (long chains of ops).
    #[test]
    fn reachability_agrees_with_a_plain_search() {
        let mut rng = crate::rng::Rng::new(5);
        for case in 0..300 {
            let mut b = GraphBuilder::new();
            let ops = 2 + rng.below(if case % 3 == 0 { 1_500 } else { 12 }) as i64;
            let buffers = 1 + rng.below(6) as i64;
            let allocs: Vec<i64> = (0..buffers).map(|i| b.alloc(1, i)).collect();
            let chain: Vec<i64> = (0..ops).map(|_| b.op("Op")).collect();
            let frees: Vec<i64> = (0..buffers).map(|i| b.free(i)).collect();
            let mut edges = Vec::new();
            for w in chain.windows(2) {
                if rng.chance(0.9) {
                    edges.push((w[0], w[1]));
                }
            }
            for (&a, &f) in allocs.iter().zip(&frees) {
                let from = rng.below(ops as u64) as usize;
                let to = rng.below(ops as u64) as usize;
                edges.push((a, chain[from]));
                edges.push((chain[to], f));
                if rng.chance(0.1) {
                    edges.push((a, f));
                }
            }
            for &(u, v) in &edges {
                b.edge(u, v);
            }
            // Node ids are 0..n in insertion order; edges only go forward.
            let n = (2 * buffers + ops) as usize;
            let reaches = |from: i64, to: i64| {
                let mut seen = vec![false; n];
                seen[from as usize] = true;
                for v in from as usize..n {
                    if seen[v] {
                        for &(x, y) in &edges {
                            if x as usize == v {
                                seen[y as usize] = true;
                            }
                        }
                    }
                }
                seen[to as usize]
            };
            let first_bad = (0..buffers).find(|&i| !reaches(allocs[i as usize], frees[i as usize]));
            match (b.build(), first_bad) {
                (Ok(_), None) => {}
                (Err(GraphError::FreeNotReachable { buf, .. }), Some(i)) => {
                    assert_eq!(buf, i, "case {case}")
                }
                (got, want) => panic!("case {case}: {got:?}, expected unreachable {want:?}"),
            }
        }
    }
}
