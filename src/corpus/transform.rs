//! Re-encoding the ALLOC nodes of any graph: [`to_encoding`].
//!
//! Definitions, for a validated graph G:
//! - **floating**: every in-edge of every ALLOC is dropped (the article's
//!   encoding: an ALLOC may run at any time before its successors).
//! - **anchored**: the ALLOCs' in-edges are dropped, then ALLOC a gets an
//!   edge from every node p such that p is not an ALLOC, p is a direct
//!   predecessor of some successor of a, and p is an ancestor of *every*
//!   successor of a. For the usual ALLOC feeding one op c, that is: the
//!   non-ALLOC predecessors of c (the producers of c's inputs), which is
//!   what [`TensorProgram::lower`](super::program::TensorProgram::lower)
//!   emits. An ALLOC without successors gets no edge.
//!
//! Properties (tested):
//! - Orders between non-ALLOC nodes are unchanged: an anchoring edge p -> a
//!   only adds p -> a -> s where p already precedes every successor s of a,
//!   so no new constraint reaches beyond a, and no cycle can form (p is not
//!   a descendant of a: it would then precede itself).
//! - The graph stays valid: if dropping in-edges leaves a FREE unreachable
//!   from its ALLOC (only when a path ran through another ALLOC's in-edge),
//!   the edge ALLOC -> FREE is added; G already forced that order.
//! - Program order stays valid when it was: floating only removes edges;
//!   anchored moves an ALLOC that now comes before one of its new
//!   predecessors to just before its first successor in the Nodes array
//!   (delaying an ALLOC never raises a prefix sum, so the program-order peak
//!   cannot grow). Node ids, fields and other edges are kept.
//! - Idempotent, and anchored(floating(G)) = anchored(G).

use std::collections::HashSet;

use super::program::AllocEncoding;
use crate::graph::seed::RawGraph;
use crate::graph::{analysis, Graph, GraphError, NodeIdx, NodeKind};

/// Re-encodes the ALLOCs of `g` (see the module documentation).
///
/// # Complexity
/// O(n + m) for floating. Anchored: O(n + m) plus, for each ALLOC with k > 1
/// successors, one backward search per candidate bounded by topological
/// position; O(n + m) per ALLOC in the worst case.
pub fn to_encoding(g: &Graph, encoding: AllocEncoding) -> Result<Graph, GraphError> {
    let n = g.node_count();
    let is_alloc = |v: NodeIdx| g.kind(v) == NodeKind::Alloc;
    // Kept edges: every edge not entering an ALLOC.
    let mut edges: Vec<(NodeIdx, NodeIdx)> = g
        .nodes()
        .flat_map(|u| g.succs(u).iter().map(move |&v| (u, v)))
        .filter(|&(_, v)| !is_alloc(v))
        .collect();
    let mut order: Vec<NodeIdx> = g.nodes().collect();
    if encoding == AllocEncoding::Anchored {
        let topo_pos = analysis::positions(g.topo_order(), n);
        let mut moved = vec![None::<NodeIdx>; n];
        for a in g.nodes().filter(|&v| is_alloc(v)) {
            let anchors = anchors_of(g, a, &topo_pos);
            if g.program_order_is_topological() && anchors.iter().any(|&p| p > a) {
                // Before its first successor in the Nodes array.
                moved[a as usize] = g.succs(a).iter().copied().min();
            }
            edges.extend(anchors.into_iter().map(|p| (p, a)));
        }
        if moved.iter().any(Option::is_some) {
            order = reorder(g, &moved);
        }
    }
    add_missing_free_edges(g, &mut edges);
    rebuild(g, &order, &edges)
}

/// The anchoring predecessors of ALLOC `a`, ascending and distinct.
fn anchors_of(g: &Graph, a: NodeIdx, topo_pos: &[u32]) -> Vec<NodeIdx> {
    let succs = g.succs(a);
    let mut cand: Vec<NodeIdx> = succs
        .iter()
        .flat_map(|&s| g.preds(s).iter().copied())
        .filter(|&p| p != a && g.kind(p) != NodeKind::Alloc)
        .collect();
    cand.sort_unstable();
    cand.dedup();
    if succs.len() > 1 {
        cand.retain(|&p| succs.iter().all(|&s| reaches(g, p, s, topo_pos)));
    }
    cand
}

/// Whether there is a path `from -> ... -> to`, searching backwards from `to`
/// through nodes that come after `from` in the stored topological order.
fn reaches(g: &Graph, from: NodeIdx, to: NodeIdx, topo_pos: &[u32]) -> bool {
    if g.preds(to).contains(&from) {
        return true;
    }
    let limit = topo_pos[from as usize];
    let mut seen = HashSet::new();
    let mut stack = vec![to];
    while let Some(x) = stack.pop() {
        for &p in g.preds(x) {
            if p == from {
                return true;
            }
            if topo_pos[p as usize] > limit && seen.insert(p) {
                stack.push(p);
            }
        }
    }
    false
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

/// Adds ALLOC -> FREE for every FREE the kept edges no longer reach from its ALLOC.
fn add_missing_free_edges(g: &Graph, edges: &mut Vec<(NodeIdx, NodeIdx)>) {
    let n = g.node_count();
    let mut preds: Vec<Vec<NodeIdx>> = vec![Vec::new(); n];
    for &(u, v) in edges.iter() {
        preds[v as usize].push(u);
    }
    let mut extra = Vec::new();
    let mut seen = vec![u32::MAX; n];
    for f in g.nodes().filter(|&v| g.kind(v) == NodeKind::Free) {
        let a = g.partner(f).expect("a valid FREE has an ALLOC");
        let mut stack = vec![f];
        let mut found = false;
        while let Some(x) = stack.pop() {
            if x == a {
                found = true;
                break;
            }
            for &p in &preds[x as usize] {
                if seen[p as usize] != f {
                    seen[p as usize] = f;
                    stack.push(p);
                }
            }
        }
        if !found {
            extra.push((a, f));
        }
    }
    edges.extend(extra);
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
            let read = |f: &str| crate::graph::seed::read_path(&format!("{dir}{f}")).unwrap();
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
}
