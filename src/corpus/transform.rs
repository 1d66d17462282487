//! Re-encoding the ALLOC nodes of any graph: [`to_encoding`].
//!
//! Definitions, for a validated graph G (compute nodes and FREEs are its
//! *non-ALLOC* nodes):
//! - **floating** F(G): every in-edge of every ALLOC is dropped (the
//!   article's encoding: an ALLOC may run at any time before its successors),
//!   ALLOC -> ALLOC edges included. Two kinds of edge are then added, in this
//!   order, each only when the edges so far do not already give the order:
//!   - *bridges* u -> v, for non-ALLOC u and v joined in G by a path
//!     u -> a1 -> ... -> ak -> v whose inner nodes are all ALLOCs: the only
//!     orders the drop could lose between non-ALLOC nodes. Sources are taken
//!     latest first and, for each, targets earliest first (in G's stored
//!     topological order), so no added bridge is implied by the others;
//!   - *repairs* ALLOC -> FREE, when the ALLOC no longer reaches its FREE
//!     (only when every path ran through another ALLOC's in-edge).
//! - **anchored**: F(G), then ALLOC a gets an edge from every node p such
//!   that p is not an ALLOC, p is a direct predecessor in F(G) of some
//!   successor of a, and p is an ancestor of *every* successor of a. For the
//!   usual ALLOC feeding one op c, that is: the non-ALLOC predecessors of c
//!   (the producers of c's inputs), which is what
//!   [`TensorProgram::lower`](super::program::TensorProgram::lower) emits.
//!   An ALLOC without successors gets no edge. The successors of an ALLOC in
//!   F(G) are non-ALLOC nodes: an ALLOC -> ALLOC edge orders two ALLOCs only,
//!   which neither encoding keeps, so it never anchors either end.
//!
//! Properties (tested):
//! - Orders between non-ALLOC nodes are unchanged: every edge of F(G) is an
//!   order of G, and every path of G between non-ALLOC nodes is one of F(G)
//!   (its ALLOC-only stretches are bridged). An anchoring edge p -> a only
//!   adds p -> a -> s where p already precedes every successor s of a, so no
//!   new constraint reaches beyond a, and no cycle can form (p is not a
//!   descendant of a: it would then precede itself).
//! - The graph stays valid (the repairs), and F(G) is a relaxation of G:
//!   every schedule of G is one of F(G).
//! - Program order stays valid when it was: F(G)'s edges all join nodes in
//!   G's order; anchored moves an ALLOC that now comes before one of its new
//!   predecessors to just before its first successor in the Nodes array
//!   (delaying an ALLOC never raises a prefix sum, so the program-order peak
//!   cannot grow). Node ids, fields and kept edges are kept, in their order.
//! - Idempotent (the same nodes and edges, in the same order), F(anchored(G))
//!   = F(G) and anchored(F(G)) = anchored(G) (same edge set).

use std::borrow::Cow;

use super::program::AllocEncoding;
use crate::graph::seed::RawGraph;
use crate::graph::{analysis, Csr, Graph, GraphError, NodeIdx, NodeKind};

/// Re-encodes the ALLOCs of `g` (see the module documentation).
///
/// # Complexity
/// O(n + m) when no ALLOC has a predecessor. Otherwise O(n + m) plus one
/// backward search, bounded by topological position, per bridge candidate
/// (none in generated or exported graphs: a direct edge settles them), per
/// FREE, and per anchoring candidate of an ALLOC with k > 1 successors:
/// O(n + m) each in the worst case.
pub fn to_encoding(g: &Graph, encoding: AllocEncoding) -> Result<Graph, GraphError> {
    let floating = floating(g)?;
    let mut out = match encoding {
        AllocEncoding::Floating => floating.into_owned(),
        AllocEncoding::Anchored => anchored(&floating)?,
    };
    // A generated graph's record names its encoding: keep it true (a
    // saved order is matched to its graph by that name).
    let allocs = out
        .graph_extra
        .get_mut("Generator")
        .and_then(|gen| gen.get_mut("params")?.as_object_mut())
        .and_then(|params| params.get_mut("allocs"));
    if let Some(allocs) = allocs {
        *allocs = serde_json::json!(encoding);
    }
    Ok(out)
}

/// F(G): ALLOC in-edges dropped, then the bridges and the repairs.
fn floating(g: &Graph) -> Result<Cow<'_, Graph>, GraphError> {
    let is_alloc = |v: NodeIdx| g.kind(v) == NodeKind::Alloc;
    if g.nodes()
        .filter(|&v| is_alloc(v))
        .all(|a| g.preds(a).is_empty())
    {
        // Nothing dropped, so nothing to bridge or repair (G is valid).
        return Ok(Cow::Borrowed(g));
    }
    let n = g.node_count();
    // Kept edges: every edge not entering an ALLOC.
    let mut edges: Vec<(NodeIdx, NodeIdx)> = g
        .nodes()
        .flat_map(|u| g.succs(u).iter().map(move |&v| (u, v)))
        .filter(|&(_, v)| !is_alloc(v))
        .collect();
    let topo_pos = analysis::positions(g.topo_order(), n);
    let mut preds: Vec<Vec<NodeIdx>> = vec![Vec::new(); n];
    for &(u, v) in &edges {
        preds[v as usize].push(u);
    }
    let mut search = Search::new(n);
    // Bridges. The kept edges and the bridges are all orders of G, so G's
    // topological positions bound every search.
    let mut via = vec![NodeIdx::MAX; n]; // ALLOCs visited from source `via[a]`
    let mut targets = Vec::new();
    let mut stack = Vec::new();
    for &u in g.topo_order().iter().rev().filter(|&&u| !is_alloc(u)) {
        targets.clear();
        stack.clear();
        for &a in g.succs(u).iter().filter(|&&a| is_alloc(a)) {
            if via[a as usize] != u {
                via[a as usize] = u;
                stack.push(a);
            }
        }
        while let Some(a) = stack.pop() {
            for &s in g.succs(a) {
                if !is_alloc(s) {
                    targets.push(s);
                } else if via[s as usize] != u {
                    via[s as usize] = u;
                    stack.push(s);
                }
            }
        }
        targets.sort_unstable_by_key(|&v| topo_pos[v as usize]);
        targets.dedup();
        for &v in &targets {
            if !search.reaches(|x| preds[x as usize].as_slice(), u, v, &topo_pos) {
                preds[v as usize].push(u);
                edges.push((u, v));
            }
        }
    }
    // Repairs.
    for f in g.nodes().filter(|&v| g.kind(v) == NodeKind::Free) {
        let a = g.partner(f).expect("a valid FREE has an ALLOC");
        if !short_path(g, a, f, &preds[f as usize])
            && !search.reaches(|x| preds[x as usize].as_slice(), a, f, &topo_pos)
        {
            preds[f as usize].push(a);
            edges.push((a, f));
        }
    }
    let order: Vec<NodeIdx> = g.nodes().collect();
    rebuild(g, &order, &edges).map(Cow::Owned)
}

/// Whether ALLOC `a` reaches `f` in F(G), whose predecessors of `f` are
/// `f_preds`, by a path `a -> s -> f` or `a -> s -> p -> f` through
/// non-ALLOC nodes (edges of G out of `a` and `s` are kept in F(G)), asked
/// with at most a few thousand comparisons: a check before a search, which
/// from the FREE behind a join of thousands of branches walked them all.
fn short_path(g: &Graph, a: NodeIdx, f: NodeIdx, f_preds: &[NodeIdx]) -> bool {
    const BUDGET: usize = 4096;
    let mut spent = 0;
    for &s in g.succs(a).iter().filter(|&&s| g.kind(s) != NodeKind::Alloc) {
        if s == f || f_preds.contains(&s) {
            return true;
        }
        let s_succs = g.succs(s);
        spent += f_preds.len() * s_succs.len();
        if spent > BUDGET {
            return false;
        }
        if f_preds
            .iter()
            .any(|&p| g.kind(p) != NodeKind::Alloc && s_succs.contains(&p))
        {
            return true;
        }
    }
    false
}

/// `f` (a floating graph: no ALLOC has a predecessor) with its ALLOCs anchored.
fn anchored(f: &Graph) -> Result<Graph, GraphError> {
    let n = f.node_count();
    let mut edges: Vec<(NodeIdx, NodeIdx)> = f
        .nodes()
        .flat_map(|u| f.succs(u).iter().map(move |&v| (u, v)))
        .collect();
    let topo_pos = analysis::positions(f.topo_order(), n);
    let mut search = Search::new(n);
    let mut moved = vec![None::<NodeIdx>; n];
    let mut anchoring = Vec::new();
    let compute_preds = compute_preds(f);
    for a in f.nodes().filter(|&v| f.kind(v) == NodeKind::Alloc) {
        let anchors = anchors_of(f, a, &compute_preds, &topo_pos, &mut search);
        if f.program_order_is_topological() && anchors.iter().any(|&p| p > a) {
            // Before its first successor in the Nodes array.
            moved[a as usize] = f.succs(a).iter().copied().min();
        }
        anchoring.extend(anchors.into_iter().map(|p| (p, a)));
    }
    let order = if moved.iter().any(Option::is_some) {
        reorder(f, &moved)
    } else {
        f.nodes().collect()
    };
    // Each source's anchoring edges by their target's place in the output,
    // which is where a second pass finds the ALLOCs: idempotent, edge order
    // included.
    let new_pos = analysis::positions(&order, n);
    anchoring.sort_by_key(|&(p, a)| (p, new_pos[a as usize]));
    edges.extend(anchoring);
    rebuild(f, &order, &edges)
}

/// Each node's distinct non-ALLOC predecessors, ascending, computed once:
/// the ALLOCs feeding one op all read its row (an op reading k ALLOCs had
/// its k predecessors scanned k times).
fn compute_preds(f: &Graph) -> Csr {
    let pairs = f.nodes().flat_map(|v| {
        f.preds(v)
            .iter()
            .filter(|&&p| f.kind(p) != NodeKind::Alloc)
            .map(move |&p| (v, p))
    });
    Csr::from_pairs(f.node_count(), pairs).deduped()
}

/// The anchoring predecessors of ALLOC `a` in floating graph `f`, ascending
/// and distinct.
fn anchors_of(
    f: &Graph,
    a: NodeIdx,
    compute_preds: &Csr,
    topo_pos: &[u32],
    search: &mut Search,
) -> Vec<NodeIdx> {
    let succs = f.succs(a);
    // `a` is an ALLOC, so never among the rows; one row is sorted already
    // (the sort then only checks it).
    let mut cand: Vec<NodeIdx> = succs
        .iter()
        .flat_map(|&s| compute_preds.neighbors(s).iter().copied())
        .collect();
    cand.sort_unstable();
    cand.dedup();
    if succs.len() > 1 {
        cand.retain(|&p| {
            succs
                .iter()
                .all(|&s| search.reaches(|x| f.preds(x), p, s, topo_pos))
        });
    }
    cand
}

/// Backward reachability searches that share one visited table.
struct Search {
    /// `mark[v] == round`: v was visited in the current search.
    mark: Vec<u32>,
    round: u32,
    /// The search's queue: breadth first, so that a short path is found
    /// before a long branch is walked (depth first, the backward pass of
    /// a training graph was walked whole from each activation's FREE).
    queue: Vec<NodeIdx>,
}

impl Search {
    fn new(n: usize) -> Self {
        Search {
            mark: vec![0; n],
            round: 0,
            queue: Vec::new(),
        }
    }

    /// Whether there is a path `from -> ... -> to` (`from != to`) in the
    /// graph given by `preds`, searching backwards from `to` through nodes
    /// that come after `from` in `topo_pos`, a topological order of it.
    fn reaches<'p>(
        &mut self,
        preds: impl Fn(NodeIdx) -> &'p [NodeIdx],
        from: NodeIdx,
        to: NodeIdx,
        topo_pos: &[u32],
    ) -> bool {
        let limit = topo_pos[from as usize];
        if topo_pos[to as usize] <= limit {
            return false;
        }
        if preds(to).contains(&from) {
            return true;
        }
        self.round += 1;
        if self.round == u32::MAX {
            self.mark.fill(0);
            self.round = 1;
        }
        self.queue.clear();
        self.queue.push(to);
        let mut next = 0;
        while let Some(&x) = self.queue.get(next) {
            next += 1;
            for &p in preds(x) {
                if p == from {
                    return true;
                }
                if topo_pos[p as usize] > limit && self.mark[p as usize] != self.round {
                    self.mark[p as usize] = self.round;
                    self.queue.push(p);
                }
            }
        }
        false
    }
}

/// Nodes array order with each moved ALLOC placed just before its target.
fn reorder(g: &Graph, moved: &[Option<NodeIdx>]) -> Vec<NodeIdx> {
    let mut before: Vec<Vec<NodeIdx>> = vec![Vec::new(); g.node_count()];
    for a in g.nodes() {
        if let Some(t) = moved[a as usize] {
            before[t as usize].push(a);
        }
    }
    let mut order = Vec::with_capacity(g.node_count());
    for v in g.nodes() {
        if moved[v as usize].is_some() {
            continue;
        }
        order.extend(before[v as usize].iter().copied());
        order.push(v);
    }
    order
}

/// A new graph with `g`'s nodes in `order` and the given edges (in their
/// original relative order: sorted by source index, then as listed).
fn rebuild(
    g: &Graph,
    order: &[NodeIdx],
    edges: &[(NodeIdx, NodeIdx)],
) -> Result<Graph, GraphError> {
    let raw = g.to_raw();
    let mut nodes = raw.nodes;
    let mut slots: Vec<_> = nodes.drain(..).map(Some).collect();
    let nodes = order
        .iter()
        .map(|&v| slots[v as usize].take().expect("order is a permutation"))
        .collect();
    let mut sorted: Vec<(NodeIdx, NodeIdx)> = edges.to_vec();
    sorted.sort_by_key(|&(u, _)| u); // stable: keeps each source's edge order
    let edges = sorted
        .into_iter()
        .map(|(u, v)| (g.id(u), g.id(v)))
        .collect();
    Graph::from_raw(RawGraph {
        nodes,
        edges,
        extra: raw.extra,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::corpus::gen::{generate, GenSpec};
    use crate::graph::GraphBuilder;
    use std::collections::HashSet;

    /// A generated graph's `Generator` record follows the re-encoding, so
    /// an order saved for the other encoding is told apart by name.
    #[test]
    fn the_generator_record_names_the_new_encoding() {
        let g = generate(&GenSpec::parse("chain:length=5").unwrap(), 0).unwrap();
        let allocs = |g: &Graph| g.graph_extra()["Generator"]["params"]["allocs"].clone();
        assert_eq!(allocs(&g), "anchored");
        let f = to_encoding(&g, AllocEncoding::Floating).unwrap();
        assert_eq!(allocs(&f), "floating");
        assert_eq!(
            allocs(&to_encoding(&f, AllocEncoding::Anchored).unwrap()),
            "anchored"
        );
    }

    fn edge_set(g: &Graph) -> Vec<(i64, i64)> {
        let mut e: Vec<(i64, i64)> = g
            .nodes()
            .flat_map(|u| g.succs(u).iter().map(move |&v| (g.id(u), g.id(v))))
            .collect();
        e.sort_unstable();
        e.dedup();
        e
    }

    fn gen(spec: &str, enc: &str) -> Graph {
        let mut s = GenSpec::parse(spec).unwrap();
        s.params.insert("allocs".into(), enc.into());
        generate(&s, 7).unwrap()
    }

    #[test]
    fn transform_matches_the_lowering_in_both_directions() {
        for spec in [
            "tensor-program:ops=40",
            "random-layered",
            "randwire:nodes=8,resolution=32",
            "tree:kind=out",
        ] {
            let (anch, flo) = (gen(spec, "anchored"), gen(spec, "floating"));
            let a2 = to_encoding(&flo, AllocEncoding::Anchored).unwrap();
            let f2 = to_encoding(&anch, AllocEncoding::Floating).unwrap();
            assert_eq!(edge_set(&a2), edge_set(&anch), "{spec}: anchored");
            assert_eq!(edge_set(&f2), edge_set(&flo), "{spec}: floating");
            assert_eq!(a2.ids(), anch.ids(), "{spec}: program order kept");
            // Idempotent.
            let a3 = to_encoding(&a2, AllocEncoding::Anchored).unwrap();
            assert_eq!(edge_set(&a3), edge_set(&a2));
        }
    }

    #[test]
    fn the_article_program_order_is_repaired_when_anchoring() {
        // Article style: both ALLOCs first, floating. 0 ALLOC a; 1 ALLOC b;
        // 2 op1 writes a; 3 op2 reads a, writes b; 4 FREE a.
        let mut b = GraphBuilder::new();
        let a0 = b.alloc(10, 0);
        let a1 = b.alloc(20, 1);
        let op1 = b.op("op1");
        let op2 = b.op("op2");
        let f = b.free(0);
        b.edge(a0, op1);
        b.edge(a1, op2);
        b.edge(op1, op2);
        b.edge(op2, f);
        let g = b.build().unwrap();
        let t = to_encoding(&g, AllocEncoding::Anchored).unwrap();
        assert!(t.program_order_is_topological());
        // ALLOC b (id 1) now follows op1 (id 2) and precedes op2.
        assert_eq!(t.ids(), &[0, 2, 1, 3, 4]);
        assert!(edge_set(&t).contains(&(2, 1)));
        let before = crate::schedule::check(&g, &g.nodes().collect::<Vec<_>>()).unwrap();
        let after = crate::schedule::check(&t, &t.nodes().collect::<Vec<_>>()).unwrap();
        assert!(after.peak <= before.peak);
    }

    #[test]
    fn an_alloc_feeding_two_ops_is_anchored_only_on_common_ancestors() {
        // p -> c1, q -> c2, ALLOC x -> c1, c2: p precedes c1 only, q c2 only;
        // r precedes both (r -> p, r -> q, r -> c1). x is anchored on r only.
        let mut b = GraphBuilder::new();
        let r = b.op("r");
        let p = b.op("p");
        let q = b.op("q");
        let x = b.alloc(5, 0);
        let c1 = b.op("c1");
        let c2 = b.op("c2");
        let f = b.free(0);
        for (u, v) in [
            (r, p),
            (r, q),
            (r, c1),
            (p, c1),
            (q, c2),
            (x, c1),
            (x, c2),
            (c1, f),
            (c2, f),
        ] {
            b.edge(u, v);
        }
        let g = b.build().unwrap();
        let t = to_encoding(&g, AllocEncoding::Anchored).unwrap();
        let into_x: Vec<i64> = edge_set(&t)
            .into_iter()
            .filter(|e| e.1 == x)
            .map(|e| e.0)
            .collect();
        assert_eq!(into_x, vec![r]);
    }

    #[test]
    fn a_free_reached_only_through_another_alloc_keeps_its_order() {
        // ALLOC a -> ALLOC b -> op -> FREE a: dropping b's in-edge would let
        // FREE a run before ALLOC a; the transform adds a -> FREE a.
        let mut b = GraphBuilder::new();
        let a = b.alloc(1, 0);
        let bb = b.alloc(1, 1);
        let op = b.op("op");
        let f = b.free(0);
        b.edge(a, bb);
        b.edge(bb, op);
        b.edge(op, f);
        let g = b.build().unwrap();
        let t = to_encoding(&g, AllocEncoding::Floating).unwrap();
        assert!(edge_set(&t).contains(&(a, f)));
    }

    #[test]
    fn transform_reproduces_the_exporters_encodings_on_every_model() {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/datasets/models/");
        let mut pairs = 0;
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            let name = path.file_name().unwrap().to_str().unwrap().to_string();
            let Some(stem) = name.strip_suffix("_floating.json") else {
                continue;
            };
            let read = |f: &str| crate::graph::seed::read_path(format!("{dir}{f}")).unwrap();
            let (anch, flo) = (read(&format!("{stem}.json")), read(&name));
            let f2 = to_encoding(&anch, AllocEncoding::Floating).unwrap();
            assert_eq!(edge_set(&f2), edge_set(&flo), "{stem}: floating");
            // The exporter anchors an ALLOC on the producers of its op's
            // inputs; the transform on every non-ALLOC predecessor of the op,
            // which in training graphs also includes in-place writers
            // (`relu_`, `copy_`) of an input's buffer. Same otherwise.
            let a2 = to_encoding(&flo, AllocEncoding::Anchored).unwrap();
            let (mine, theirs) = (edge_set(&a2), edge_set(&anch));
            assert!(
                theirs.iter().all(|e| mine.binary_search(e).is_ok()),
                "{stem}"
            );
            for &(p, a) in mine.iter().filter(|e| theirs.binary_search(e).is_err()) {
                let (p, a) = (anch.index_of(p).unwrap(), anch.index_of(a).unwrap());
                assert_eq!(anch.kind(a), crate::NodeKind::Alloc, "{stem}");
                assert!(
                    anch.succs(a).iter().all(|&c| anch.preds(c).contains(&p)),
                    "{stem}"
                );
            }
            assert_eq!(a2.ids(), anch.ids(), "{stem}: program order");
            pairs += 1;
        }
        assert_eq!(pairs, 8);
    }

    /// Reachability among non-ALLOC nodes, as a set of (from id, to id).
    fn compute_closure(g: &Graph) -> Vec<(i64, i64)> {
        let mut out = Vec::new();
        for u in g.nodes().filter(|&v| g.kind(v) != crate::NodeKind::Alloc) {
            let mut seen = vec![false; g.node_count()];
            let mut stack = vec![u];
            while let Some(x) = stack.pop() {
                for &y in g.succs(x) {
                    if !seen[y as usize] {
                        seen[y as usize] = true;
                        stack.push(y);
                    }
                }
            }
            for v in g
                .nodes()
                .filter(|&v| seen[v as usize] && g.kind(v) != crate::NodeKind::Alloc)
            {
                out.push((g.id(u), g.id(v)));
            }
        }
        out.sort_unstable();
        out
    }

    /// The article's layout: every ALLOC first in the Nodes array.
    fn allocs_first(g: &Graph) -> Graph {
        let mut raw = g.to_raw();
        raw.nodes.sort_by_key(|n| n.op != "ALLOC");
        Graph::from_raw(raw).unwrap()
    }

    #[test]
    fn random_graphs_keep_compute_orders_program_order_and_the_optimum() {
        let brute = crate::solvers::Brute;
        let ctx = crate::solvers::SolveContext::default();
        let mut compared = 0;
        for seed in 0..40 {
            let spec = if seed % 2 == 0 {
                "tensor-program:ops=12,two=0.3"
            } else {
                "series-parallel:ops=10"
            };
            let flo = {
                let mut s = GenSpec::parse(spec).unwrap();
                s.params.insert("allocs".into(), "floating".into());
                allocs_first(&generate(&s, seed).unwrap())
            };
            assert!(flo.program_order_is_topological());
            let anch = to_encoding(&flo, AllocEncoding::Anchored).unwrap();
            assert!(anch.program_order_is_topological(), "{spec} seed {seed}");
            assert_eq!(
                compute_closure(&anch),
                compute_closure(&flo),
                "{spec} seed {seed}"
            );
            let back = to_encoding(&anch, AllocEncoding::Floating).unwrap();
            assert_eq!(edge_set(&back), edge_set(&flo), "{spec} seed {seed}");
            let program = |g: &Graph| {
                crate::schedule::check(g, &g.nodes().collect::<Vec<_>>())
                    .unwrap()
                    .peak
            };
            assert!(program(&anch) <= program(&flo), "{spec} seed {seed}");
            // Tiny instances: the same optimum in both encodings (F2).
            let mut s = GenSpec::parse("tensor-program:ops=3,two=0.3").unwrap();
            s.params.insert("allocs".into(), "floating".into());
            let tiny = generate(&s, seed).unwrap();
            if tiny.node_count() <= crate::solvers::BRUTE_MAX_NODES {
                let tiny_a = to_encoding(&tiny, AllocEncoding::Anchored).unwrap();
                let opt = |g: &Graph| crate::solvers::run(&brute, g, &ctx).peak.unwrap();
                assert_eq!(opt(&tiny), opt(&tiny_a), "seed {seed}");
                compared += 1;
            }
        }
        assert!(compared >= 10, "only {compared} tiny graphs compared");
    }

    /// The same nodes in the same order and the same edges in the same order.
    fn assert_same(a: &Graph, b: &Graph, what: &str) {
        assert_eq!(a.ids(), b.ids(), "{what}: node order");
        assert_eq!(a.to_raw().edges, b.to_raw().edges, "{what}: edges");
    }

    /// Each encoding, transformed again into itself, is unchanged.
    fn assert_idempotent(flo: &Graph, anch: &Graph, what: &str) {
        let ff = to_encoding(flo, AllocEncoding::Floating).unwrap();
        let aa = to_encoding(anch, AllocEncoding::Anchored).unwrap();
        assert_same(&ff, flo, &format!("{what}: F(F)"));
        assert_same(&aa, anch, &format!("{what}: A(A)"));
    }

    /// Every (from id, to id) with a path from -> ... -> to, over all nodes.
    fn full_closure(g: &Graph) -> HashSet<(i64, i64)> {
        let mut out = HashSet::new();
        for u in g.nodes() {
            let mut seen = vec![false; g.node_count()];
            let mut stack = vec![u];
            while let Some(x) = stack.pop() {
                for &y in g.succs(x) {
                    if !seen[y as usize] {
                        seen[y as usize] = true;
                        stack.push(y);
                        out.insert((g.id(u), g.id(y)));
                    }
                }
            }
        }
        out
    }

    /// ALLOC 0 -> producer 1 -> FREE 2; producer 1 -> ALLOC 3 -> consumer 4
    /// -> FREE 5: the producer precedes the consumer only through ALLOC 3.
    fn producer_alloc_consumer() -> Graph {
        let mut b = GraphBuilder::new();
        let a0 = b.alloc(100, 0);
        let prod = b.op("producer");
        let f0 = b.free(0);
        let a1 = b.alloc(100, 1);
        let cons = b.op("consumer");
        let f1 = b.free(1);
        for (u, v) in [(a0, prod), (prod, f0), (prod, a1), (a1, cons), (cons, f1)] {
            b.edge(u, v);
        }
        b.build().unwrap()
    }

    #[test]
    fn an_order_carried_only_by_an_alloc_in_edge_is_kept() {
        let g = producer_alloc_consumer();
        let flo = to_encoding(&g, AllocEncoding::Floating).unwrap();
        let anch = to_encoding(&g, AllocEncoding::Anchored).unwrap();
        for (t, what) in [(&flo, "floating"), (&anch, "anchored")] {
            assert!(compute_closure(t).contains(&(1, 4)), "{what}");
            assert_eq!(compute_closure(t), compute_closure(&g), "{what}");
            assert_eq!(t.ids(), g.ids(), "{what}");
        }
        // The bridge producer -> consumer; anchored also anchors ALLOC 3 on
        // the producer, as the lowering of producer -> consumer would.
        assert_eq!(edge_set(&flo), vec![(0, 1), (1, 2), (1, 4), (3, 4), (4, 5)]);
        assert_eq!(
            edge_set(&anch),
            vec![(0, 1), (1, 2), (1, 3), (1, 4), (3, 4), (4, 5)]
        );
        assert_idempotent(&flo, &anch, "");
        assert_eq!(
            edge_set(&to_encoding(&anch, AllocEncoding::Floating).unwrap()),
            edge_set(&flo)
        );
        // A chain of ALLOCs carries the order too: 0 -> A1 -> A2 -> 3.
        let mut b = GraphBuilder::new();
        let p = b.op("p");
        let x = b.alloc(1, 0);
        let y = b.alloc(1, 1);
        let c = b.op("c");
        for (u, v) in [(p, x), (x, y), (y, c)] {
            b.edge(u, v);
        }
        let g = b.build().unwrap();
        for enc in [AllocEncoding::Floating, AllocEncoding::Anchored] {
            let t = to_encoding(&g, enc).unwrap();
            assert!(edge_set(&t).contains(&(p, c)), "{enc:?}");
            assert!(!edge_set(&t).contains(&(x, y)), "{enc:?}");
            assert_same(&to_encoding(&t, enc).unwrap(), &t, "idempotent");
        }
    }

    #[test]
    fn alloc_to_alloc_edges_are_dropped_and_both_encodings_are_idempotent() {
        // conv -> ALLOC 1 <- ALLOC 2: neither ALLOC feeds a non-ALLOC node,
        // so neither is anchored; the ALLOC -> ALLOC edge is dropped.
        let mut b = GraphBuilder::new();
        let conv = b.op("conv");
        let a1 = b.alloc(8, 1);
        let a2 = b.alloc(8, 2);
        b.edge(conv, a1);
        b.edge(a2, a1);
        let g = b.build().unwrap();
        for enc in [AllocEncoding::Floating, AllocEncoding::Anchored] {
            let t = to_encoding(&g, enc).unwrap();
            assert_eq!(edge_set(&t), vec![], "{enc:?}");
            assert_same(&to_encoding(&t, enc).unwrap(), &t, "idempotent");
        }
        // ALLOC a -> ALLOC b -> op -> FREE a: a keeps its FREE (the repair
        // a -> FREE a) and, anchored, runs after op, the FREE's predecessor.
        let mut b = GraphBuilder::new();
        let a = b.alloc(1, 0);
        let bb = b.alloc(1, 1);
        let op = b.op("op");
        let f = b.free(0);
        for (u, v) in [(a, bb), (bb, op), (op, f)] {
            b.edge(u, v);
        }
        let g = b.build().unwrap();
        let flo = to_encoding(&g, AllocEncoding::Floating).unwrap();
        let anch = to_encoding(&g, AllocEncoding::Anchored).unwrap();
        assert_eq!(edge_set(&flo), vec![(a, f), (bb, op), (op, f)]);
        assert_eq!(edge_set(&anch), vec![(a, f), (bb, op), (op, a), (op, f)]);
        assert_eq!(anch.ids(), &[bb, op, a, f], "ALLOC a delayed to its FREE");
        assert_idempotent(&flo, &anch, "");
    }

    /// Whether `u -> v` is a true bridge of G (both non-ALLOC nodes): G
    /// has a path u -> a1 -> ... -> ak -> v with k >= 1 inner nodes, all
    /// ALLOCs, and no path from u to v that avoids ALLOCs (which F(G) would
    /// keep, making the bridge redundant).
    fn bridged_in(g: &Graph, u: NodeIdx, v: NodeIdx) -> bool {
        let alloc = |x: NodeIdx| g.kind(x) == NodeKind::Alloc;
        // Walks from u through the nodes `through` admits; true if v is reached.
        let walk = |through: &dyn Fn(NodeIdx) -> bool, first: &dyn Fn(NodeIdx) -> bool| {
            let mut seen = vec![false; g.node_count()];
            let mut stack: Vec<NodeIdx> =
                g.succs(u).iter().copied().filter(|&x| first(x)).collect();
            while let Some(x) = stack.pop() {
                if std::mem::replace(&mut seen[x as usize], true) {
                    continue;
                }
                for &y in g.succs(x) {
                    if y == v {
                        return true;
                    }
                    if through(y) {
                        stack.push(y);
                    }
                }
            }
            false
        };
        let via_allocs = walk(&alloc, &alloc);
        let direct = g.succs(u).contains(&v) || walk(&|x| !alloc(x), &|x| !alloc(x));
        via_allocs && !direct
    }

    /// A random small DAG: ALLOCs, compute nodes and FREEs (each of an
    /// earlier ALLOC, with an edge from it if no path), forward edges of a
    /// random density, ALLOC -> ALLOC edges included; the Nodes array is
    /// sometimes shuffled (program order not a schedule).
    fn random_dag(seed: u64) -> Graph {
        let mut rng = crate::rng::Rng::new(seed);
        let n = rng.range(3, 11) as usize;
        let density = [0.15, 0.3, 0.5][rng.below(3) as usize];
        let mut b = GraphBuilder::new();
        let mut unfreed: Vec<(i64, i64)> = Vec::new(); // (ALLOC id, buffer)
                                                       // The ALLOC of each FREE.
        let partner: Vec<Option<usize>> = (0..n)
            .map(|v| {
                let r = rng.below(3);
                if r == 2 && !unfreed.is_empty() {
                    let (a, buf) = unfreed.remove(rng.below(unfreed.len() as u64) as usize);
                    b.free(buf);
                    return Some(a as usize);
                } else if r == 0 {
                    let a = b.alloc(rng.range(1, 100), v as i64);
                    unfreed.push((a, v as i64));
                } else {
                    b.op("op");
                }
                None
            })
            .collect();
        let mut anc = vec![0u64; n];
        for j in 0..n {
            for i in 0..j {
                if rng.chance(density) {
                    b.edge(i as i64, j as i64);
                    anc[j] |= anc[i] | 1 << i;
                }
            }
            if let Some(a) = partner[j] {
                if anc[j] & 1 << a == 0 {
                    b.edge(a as i64, j as i64);
                    anc[j] |= anc[a] | 1 << a;
                }
            }
        }
        let mut raw = b.into_raw();
        if rng.chance(0.25) {
            rng.shuffle(&mut raw.nodes);
        }
        Graph::from_raw(raw).unwrap()
    }

    #[test]
    fn random_dags_keep_compute_orders_and_both_encodings_are_idempotent() {
        let brute = crate::solvers::Brute;
        let ctx = crate::solvers::SolveContext::default();
        let mut graphs: Vec<(String, Graph)> = (0..300)
            .map(|seed| (format!("random seed {seed}"), random_dag(seed)))
            .collect();
        for seed in 0..10 {
            for enc in ["anchored", "floating"] {
                for spec in ["tensor-program:ops=6,two=0.3", "series-parallel:ops=5"] {
                    let mut s = GenSpec::parse(spec).unwrap();
                    s.params.insert("allocs".into(), enc.into());
                    let g = generate(&s, seed).unwrap();
                    graphs.push((format!("{spec} {enc} seed {seed} first"), allocs_first(&g)));
                    graphs.push((format!("{spec} {enc} seed {seed}"), g));
                }
            }
        }
        let (mut with_alloc_chains, mut bridged, mut repaired, mut compared) = (0, 0, 0, 0);
        let is_alloc = |g: &Graph, v: NodeIdx| g.kind(v) == NodeKind::Alloc;
        for (what, g) in &graphs {
            let flo = to_encoding(g, AllocEncoding::Floating).unwrap();
            let anch = to_encoding(g, AllocEncoding::Anchored).unwrap();
            if g.nodes()
                .any(|a| is_alloc(g, a) && g.preds(a).iter().any(|&p| is_alloc(g, p)))
            {
                with_alloc_chains += 1;
            }
            let closure = full_closure(g);
            // Every edge F(G) adds is a bridge or a repair, told apart by
            // kind: a bridge joins two non-ALLOC nodes that G orders only
            // through ALLOCs, a repair is an ALLOC -> its FREE.
            let (mut bridges, mut repairs) = (0, 0);
            let old_edges = edge_set(g);
            for (u, v) in edge_set(&flo)
                .into_iter()
                .filter(|e| !old_edges.contains(e))
            {
                let (x, y) = (g.index_of(u).unwrap(), g.index_of(v).unwrap());
                if is_alloc(g, x) {
                    assert_eq!(g.partner(x), Some(y), "{what}: {u} -> {v} is no repair");
                    repairs += 1;
                } else {
                    assert!(!is_alloc(g, y), "{what}: {u} -> ALLOC {v}");
                    assert!(
                        bridged_in(g, x, y),
                        "{what}: bridge {u} -> {v} has no ALLOC-only path in G, \
                         or G orders them without an ALLOC"
                    );
                    bridges += 1;
                }
            }
            bridged += usize::from(bridges > 0);
            repaired += usize::from(repairs > 0);
            // Orders among non-ALLOC nodes: the same in both encodings.
            assert_eq!(
                compute_closure(&flo),
                compute_closure(g),
                "{what}: floating"
            );
            assert_eq!(
                compute_closure(&anch),
                compute_closure(g),
                "{what}: anchored"
            );
            // Floating relaxes G: every edge is an order of G.
            assert!(edge_set(&flo).iter().all(|e| closure.contains(e)), "{what}");
            assert_eq!(flo.ids(), g.ids(), "{what}: floating keeps the order");
            for a in flo.nodes().filter(|&a| is_alloc(&flo, a)) {
                assert!(flo.preds(a).is_empty(), "{what}: floating ALLOC");
            }
            for a in anch.nodes().filter(|&a| is_alloc(&anch, a)) {
                let preds = anch.preds(a);
                assert!(preds.iter().all(|&p| !is_alloc(&anch, p)), "{what}");
            }
            // Idempotent, and each encoding is reached from the other.
            assert_idempotent(&flo, &anch, what);
            let fa = to_encoding(&anch, AllocEncoding::Floating).unwrap();
            let af = to_encoding(&flo, AllocEncoding::Anchored).unwrap();
            assert_eq!(edge_set(&fa), edge_set(&flo), "{what}: F(A)");
            assert_eq!(edge_set(&af), edge_set(&anch), "{what}: A(F)");
            assert_eq!(af.ids(), anch.ids(), "{what}: A(F) order");
            // Program order: kept valid, the anchored peak no higher.
            if g.program_order_is_topological() {
                assert!(flo.program_order_is_topological(), "{what}");
                assert!(anch.program_order_is_topological(), "{what}");
                let program = |g: &Graph| {
                    crate::schedule::check(g, &g.nodes().collect::<Vec<_>>())
                        .unwrap()
                        .peak
                };
                assert_eq!(program(&flo), program(g), "{what}");
                assert!(program(&anch) <= program(g), "{what}");
            }
            // The optimum: anchoring costs nothing; floating never costs.
            if g.node_count() <= 9 {
                let opt = |g: &Graph| crate::solvers::run(&brute, g, &ctx).peak.unwrap();
                assert_eq!(opt(&anch), opt(&flo), "{what}");
                assert!(opt(&flo) <= opt(g), "{what}");
                compared += 1;
            }
        }
        assert!(
            with_alloc_chains >= 30,
            "{with_alloc_chains} with ALLOC -> ALLOC"
        );
        // 94 and 3 graphs at the time of writing: the repairs alone must not
        // carry the bridge count.
        assert!(bridged >= 60, "only {bridged} graphs needed a bridge");
        assert!(repaired >= 1, "no graph needed a repair");
        assert!(compared >= 50, "only {compared} optima compared");
    }
}
