//! The graph model: nodes with a memory delta, and edges stored compactly.
//!
//! [`Graph`] is immutable once built and is the input of every solver. It is
//! made by validating a [`RawGraph`](seed::RawGraph) ([`Graph::from_raw`]),
//! which comes from seed JSON ([`seed::parse`]) or from a [`GraphBuilder`]
//! (generators, transforms, tests). Nodes are indexed `0..n` in program order
//! (the order of the `Nodes` array); the original ids are kept and are what
//! every report shows.
//!
//! Memory model (normative, see docs/core.md): ALLOC adds `Size`, FREE subtracts
//! the size of its buffer's ALLOC, anything else is compute with delta 0.
//! Edges are the only ordering constraints.

pub mod analysis;
mod build;
mod csr;
mod error;
pub mod fingerprint;
pub mod lint;
pub mod seed;

pub use build::GraphBuilder;
pub use csr::Csr;
pub use error::GraphError;

/// Largest magnitude of a node's `Latency` (2^63, as for sizes and ids):
/// a graph with a larger one is refused when read, so that a rule's
/// weighted sum of features can be checked against overflow when it is
/// parsed (`2*latency` is then always finite).
pub const MAX_LATENCY: f64 = 9_223_372_036_854_775_808.0;

use serde_json::{Map, Value};

/// Index of a node inside a [`Graph`]: its position in the `Nodes` array.
pub type NodeIdx = u32;

/// Marker for "no node" in compact per-node tables.
pub(crate) const NONE: NodeIdx = NodeIdx::MAX;

/// The three kinds of node the memory model distinguishes.
///
/// The discriminants are the article's priority "type": FREE 0, compute 1,
/// ALLOC 2.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[repr(u8)]
pub enum NodeKind {
    /// A node with `"Op": "FREE"`: releases its buffer, delta `-Size` of
    /// the buffer's ALLOC.
    Free = 0,
    /// Any other `Op` (`Matmul`, `Conv`, ...): delta 0.
    Compute = 1,
    /// A node with `"Op": "ALLOC"`: reserves `Size` bytes for its buffer,
    /// delta `+Size`.
    Alloc = 2,
}

impl NodeKind {
    /// The article's priority type: FREE 0, compute 1, ALLOC 2.
    #[inline]
    pub fn type_code(self) -> u8 {
        self as u8
    }

    /// `ALLOC`, `FREE` or `op`, as messages and traces name a node's kind.
    pub fn label(self) -> &'static str {
        match self {
            NodeKind::Alloc => "ALLOC",
            NodeKind::Free => "FREE",
            NodeKind::Compute => "op",
        }
    }
}

/// A validated computation graph.
///
/// Invariants (established by [`Graph::from_raw`]):
/// - the edges form a DAG; `topo` is one topological order;
/// - every FREE has exactly one ALLOC, reachable from it by edges, and no
///   buffer has two FREEs; `partner` links each ALLOC with its FREE (if any);
/// - `delta(v)` is `+Size` for ALLOC, `-Size` for FREE, `0` otherwise, and the
///   sum of all sizes fits in `i64`, so every prefix sum of deltas does too.
#[derive(Debug, Clone)]
pub struct Graph {
    pub(crate) ids: Vec<i64>,
    pub(crate) kinds: Vec<NodeKind>,
    pub(crate) deltas: Vec<i64>,
    pub(crate) buf_ids: Vec<i64>,
    pub(crate) partner: Vec<NodeIdx>,
    pub(crate) op_codes: Vec<u32>,
    pub(crate) op_names: Vec<String>,
    pub(crate) extras: Vec<Option<Box<Map<String, Value>>>>,
    pub(crate) graph_extra: Map<String, Value>,
    pub(crate) succ: Csr,
    pub(crate) pred: Csr,
    pub(crate) topo: Vec<NodeIdx>,
    pub(crate) program_is_topological: bool,
    pub(crate) has_parallel_edges: bool,
    /// Numeric `Latency` fields (0 where absent); empty if there are none.
    pub(crate) latencies: Vec<f64>,
    pub(crate) id_index: IdIndex,
}

/// Id -> index lookup: free when ids are `0..n` in order, a sorted table otherwise.
#[derive(Debug, Clone)]
pub(crate) enum IdIndex {
    Dense,
    Sorted(Vec<(i64, NodeIdx)>),
}

impl IdIndex {
    /// The index of the node with id `id`, among `n` nodes.
    #[inline]
    pub(crate) fn find(&self, id: i64, n: usize) -> Option<NodeIdx> {
        match self {
            IdIndex::Dense => (id >= 0 && (id as usize) < n).then_some(id as NodeIdx),
            IdIndex::Sorted(table) => table
                .binary_search_by_key(&id, |&(k, _)| k)
                .ok()
                .map(|i| table[i].1),
        }
    }
}

impl Graph {
    /// Number of nodes.
    #[inline]
    pub fn node_count(&self) -> usize {
        self.ids.len()
    }
    /// Number of edges (duplicates counted).
    #[inline]
    pub fn edge_count(&self) -> usize {
        self.succ.edge_count()
    }
    /// The node's original id.
    #[inline]
    pub fn id(&self, v: NodeIdx) -> i64 {
        self.ids[v as usize]
    }
    /// All original ids, in program order.
    #[inline]
    pub fn ids(&self) -> &[i64] {
        &self.ids
    }
    /// The index of the node with original id `id`.
    pub fn index_of(&self, id: i64) -> Option<NodeIdx> {
        self.id_index.find(id, self.ids.len())
    }
    /// Node indices sorted by original id, or `None` when ids are `0..n` in
    /// program order (then index order is id order).
    pub(crate) fn indices_by_id(&self) -> Option<Vec<NodeIdx>> {
        match &self.id_index {
            IdIndex::Dense => None,
            IdIndex::Sorted(table) => Some(table.iter().map(|&(_, v)| v).collect()),
        }
    }
    /// Translates an order of indices into original ids.
    pub fn to_ids(&self, order: &[NodeIdx]) -> Vec<i64> {
        order.iter().map(|&v| self.id(v)).collect()
    }
    /// ALLOC, FREE or compute.
    #[inline]
    pub fn kind(&self, v: NodeIdx) -> NodeKind {
        self.kinds[v as usize]
    }
    /// Memory change when `v` runs: `+Size`, `-Size` or 0.
    #[inline]
    pub fn delta(&self, v: NodeIdx) -> i64 {
        self.deltas[v as usize]
    }
    /// All deltas, indexed by node.
    #[inline]
    pub fn deltas(&self) -> &[i64] {
        &self.deltas
    }
    /// Bytes the node allocates or frees (`|delta|`).
    #[inline]
    pub fn size(&self, v: NodeIdx) -> u64 {
        self.deltas[v as usize].unsigned_abs()
    }
    /// The `Op` string as written (`"ALLOC"`, `"FREE"`, `"Matmul"`, ...).
    pub fn op(&self, v: NodeIdx) -> &str {
        &self.op_names[self.op_codes[v as usize] as usize]
    }
    /// The buffer id of an ALLOC or FREE.
    pub fn buf_id(&self, v: NodeIdx) -> Option<i64> {
        match self.kind(v) {
            NodeKind::Compute => None,
            _ => Some(self.buf_ids[v as usize]),
        }
    }
    /// For an ALLOC its FREE (None for a graph output); for a FREE its ALLOC.
    #[inline]
    pub fn partner(&self, v: NodeIdx) -> Option<NodeIdx> {
        let p = self.partner[v as usize];
        (p != NONE).then_some(p)
    }
    /// Fields other than Id, Op, Size and BufId, as written.
    pub fn extra(&self, v: NodeIdx) -> Option<&Map<String, Value>> {
        self.extras[v as usize].as_deref()
    }
    /// Whether some node has a numeric `Latency` field (else the `latency` feature
    /// of a rule reads 0 everywhere).
    pub fn has_latencies(&self) -> bool {
        !self.latencies.is_empty()
    }
    /// The node's numeric `Latency` field, 0 if it has none (read once, when
    /// the graph is built).
    #[inline]
    pub fn latency(&self, v: NodeIdx) -> f64 {
        self.latencies.get(v as usize).copied().unwrap_or(0.0)
    }
    /// This graph with node `v`'s `Latency` set to `latencies[v]`, in its
    /// fields too (a graph written out keeps them): how a score of your own
    /// (FLOPs, a cost model's estimate, a layer index) reaches the rule
    /// feature `latency`. An error names the first node whose value is not
    /// finite ([`GraphError::BadLatency`]) or exceeds
    /// [`MAX_LATENCY`] in magnitude ([`GraphError::LatencyOutOfRange`]),
    /// as reading such a `Latency` from a file would; a slice without one
    /// value per node is [`GraphError::LatencyCount`].
    ///
    /// ```
    /// use memsched::graph::GraphBuilder;
    /// use memsched::solvers::{self, SolveContext};
    ///
    /// let mut b = GraphBuilder::new();
    /// let (a, x, y) = (b.op("A"), b.op("X"), b.op("Y"));
    /// b.edge(a, x);
    /// b.edge(a, y);
    /// // Y scores lower, so `rule:latency,id` runs it before X.
    /// let g = b.build()?.with_latencies(&[0.0, 5.0, 1.0])?;
    /// let r = solvers::run(solvers::build("rule:latency,id")?.as_ref(), &g, &SolveContext::default());
    /// assert_eq!(r.order.map(|o| g.to_ids(&o)), Some(vec![0, 2, 1]));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn with_latencies(mut self, latencies: &[f64]) -> Result<Graph, GraphError> {
        if latencies.len() != self.node_count() {
            return Err(GraphError::LatencyCount {
                given: latencies.len(),
                nodes: self.node_count(),
            });
        }
        for (v, &latency) in latencies.iter().enumerate() {
            let id = self.ids[v];
            if !latency.is_finite() {
                let value = latency.to_string();
                return Err(GraphError::BadLatency { id, value });
            }
            let value = Value::from(latency);
            build::check_latency_range(id, latency, &value)?;
            self.extras[v]
                .get_or_insert_with(Default::default)
                .insert("Latency".into(), value);
        }
        self.latencies = latencies.to_vec();
        Ok(self)
    }
    /// A numeric extra field (e.g. `Latency`), if present.
    pub fn extra_f64(&self, v: NodeIdx, key: &str) -> Option<f64> {
        self.extra(v)?.get(key)?.as_f64()
    }
    /// Top-level fields other than Nodes and Edges.
    pub fn graph_extra(&self) -> &Map<String, Value> {
        &self.graph_extra
    }
    /// Successors of `v`, in the order their edges were written.
    #[inline]
    pub fn succs(&self, v: NodeIdx) -> &[NodeIdx] {
        self.succ.neighbors(v)
    }
    /// Predecessors of `v`.
    #[inline]
    pub fn preds(&self, v: NodeIdx) -> &[NodeIdx] {
        self.pred.neighbors(v)
    }
    /// Successor adjacency.
    #[inline]
    pub fn succ_csr(&self) -> &Csr {
        &self.succ
    }
    /// Predecessor adjacency.
    #[inline]
    pub fn pred_csr(&self) -> &Csr {
        &self.pred
    }
    /// One topological order (Kahn's, FIFO, program order first).
    #[inline]
    pub fn topo_order(&self) -> &[NodeIdx] {
        &self.topo
    }
    /// Whether the `Nodes` array order respects every edge.
    pub fn program_order_is_topological(&self) -> bool {
        self.program_is_topological
    }
    /// Whether some edge is written more than once (then `succs` and `preds`
    /// list it more than once).
    pub fn has_parallel_edges(&self) -> bool {
        self.has_parallel_edges
    }
    /// Memory after every node has run (sum of all deltas).
    pub fn final_memory(&self) -> i64 {
        self.deltas.iter().sum()
    }
    /// Sum of all ALLOC sizes.
    pub fn total_allocated(&self) -> i64 {
        self.deltas.iter().filter(|&&d| d > 0).sum()
    }
    /// Iterator over all node indices.
    pub fn nodes(&self) -> std::ops::Range<NodeIdx> {
        0..self.ids.len() as NodeIdx
    }
}
