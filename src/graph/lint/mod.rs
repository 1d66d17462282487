//! Warnings about a valid graph that is likely not what its writer meant.
//! `validate`, `schedule` and `check` print them for the graph they read;
//! `run` lists them among its final warnings, by graph.

mod inputs;

use super::{Graph, NodeIdx, NodeKind};
use crate::text::{more_like_it, printable};
use inputs::{budget_note, input_id, inputs_freed_early, unordered_inputs, SEARCH_BUDGET};

/// What looks wrong in `g`, one message per kind, naming the first node of
/// each and counting the others, in this order:
/// - no node at all: every solver returns the empty schedule, of peak 0;
/// - several nodes and no edge: every order is then a schedule, which
///   usually means the dependencies were not exported as `Edges`;
/// - a FREE with a `Size` other than its ALLOC's: kept as metadata and
///   ignored (a FREE releases its ALLOC's bytes);
/// - a compute node with a `Size`: ignored too (only ALLOCs allocate; an
///   op's output is an ALLOC feeding it);
/// - an `Inputs` entry that is not the id of a node;
/// - `Inputs` that is not a list (`"Inputs": "0"`), which nothing checks;
/// - an empty `Op` (or only blanks): a compute node, as any name other
///   than `ALLOC` and `FREE` is, which an export that lost the name did
///   not mean;
/// - an edge listed more than once: the repeat orders nothing, but the
///   edge count counts it;
/// - a field that is a near misspelling of one the node lacks
///   (`"Lantency"`): kept as metadata nothing reads;
/// - a compute node whose `BufId` names a buffer no FREE releases (a
///   release under another Op name, `DEALLOC`): the buffer stays live;
/// - the FREEs of most buffers (two or more, three quarters of the
///   ALLOCs) have one predecessor, the node their ALLOC feeds, which
///   other nodes follow: the edges from the buffers' readers to their
///   FREEs look lost, and every peak would count too little;
/// - an `Inputs` entry (not a FREE) with no path of edges to its node: the
///   node may then run first, which an export that lost an edge did not
///   mean;
/// - an `Inputs` entry that is an ALLOC whose FREE has a path of edges to
///   the node (it always runs after the buffer is freed), or none from it
///   (the buffer may be freed before the node reads it).
pub fn lint(g: &Graph) -> Vec<String> {
    let checks: [fn(&Graph) -> Option<String>; 12] = [
        empty_graph,
        edgeless_graph,
        free_sizes_ignored,
        op_sizes_ignored,
        dangling_inputs,
        inputs_not_lists,
        empty_op_names,
        repeated_edge,
        misspelt_field,
        op_naming_an_unfreed_buffer,
        frees_after_writers_only,
        unordered_input,
    ];
    let mut warnings: Vec<String> = checks.iter().filter_map(|check| check(g)).collect();
    warnings.extend(inputs_freed_early_warnings(g));
    warnings
}

/// No node at all.
fn empty_graph(g: &Graph) -> Option<String> {
    (g.node_count() == 0).then(|| {
        "it has no nodes, so its one schedule is the empty one, of peak 0: is `Nodes` \
         the list it was meant to be?"
            .to_string()
    })
}

/// Several nodes and no edge.
fn edgeless_graph(g: &Graph) -> Option<String> {
    (g.edge_count() == 0 && g.node_count() > 1).then(|| {
        format!(
            "it has {} nodes and no edge, so any order of them is a schedule: are its \
             dependencies missing from `Edges`?",
            g.node_count()
        )
    })
}

/// The nodes of `kind` with a `Size` kept among their extra fields.
fn sized(g: &Graph, kind: NodeKind) -> Vec<(NodeIdx, &serde_json::Value)> {
    g.nodes()
        .filter(|&v| g.kind(v) == kind)
        .filter_map(|v| Some((v, g.extra(v)?.get("Size")?)))
        .collect()
}

/// FREEs whose `Size` is not their ALLOC's.
fn free_sizes_ignored(g: &Graph) -> Option<String> {
    let mut frees = sized(g, NodeKind::Free);
    frees.retain(|&(v, size)| size.as_i64() != Some(-g.delta(v)));
    let &(v, size) = frees.first()?;
    Some(format!(
        "FREE node {} has Size {size}, but a FREE releases its ALLOC's {} B; its Size is \
         ignored{}",
        g.id(v),
        -g.delta(v),
        more_like_it(frees.len(), "FREE", "FREEs")
    ))
}

/// Compute nodes with a `Size` other than 0.
fn op_sizes_ignored(g: &Graph) -> Option<String> {
    let mut ops = sized(g, NodeKind::Compute);
    // `"Size": 0` on an op (a common export habit) changes nothing.
    ops.retain(|&(_, size)| size.as_u64() != Some(0));
    let &(v, size) = ops.first()?;
    Some(format!(
        "compute node {} (`{}`) has Size {size}, which is ignored: only ALLOC nodes \
         allocate (an op's output is an ALLOC with an edge into the op){}",
        g.id(v),
        printable(g.op(v)),
        more_like_it(ops.len(), "compute node", "compute nodes")
    ))
}

/// `Inputs` entries that name no node. `Inputs` is metadata (the
/// article's own example lists the FREE after its op among them, so it is
/// not read as predecessors), but an id that names no node is a writer's
/// slip worth a word.
fn dangling_inputs(g: &Graph) -> Option<String> {
    let dangling: Vec<(NodeIdx, &serde_json::Value)> = g
        .nodes()
        .filter_map(|v| Some((v, g.extra(v)?.get("Inputs")?.as_array()?)))
        .flat_map(|(v, inputs)| inputs.iter().map(move |x| (v, x)))
        .filter(|&(_, x)| input_id(x).and_then(|id| g.index_of(id)).is_none())
        .collect();
    let &(v, x) = dangling.first()?;
    Some(format!(
        "node {} lists {x} in its Inputs, which is not the id of a node (Inputs is kept \
         as metadata; only Edges order the nodes){}",
        g.id(v),
        more_like_it(dangling.len(), "Inputs entry", "Inputs entries")
    ))
}

/// `Inputs` fields that are not lists.
fn inputs_not_lists(g: &Graph) -> Option<String> {
    let not_lists: Vec<(NodeIdx, &serde_json::Value)> = g
        .nodes()
        .filter_map(|v| Some((v, g.extra(v)?.get("Inputs")?)))
        .filter(|(_, inputs)| !inputs.is_array())
        .collect();
    let &(v, inputs) = not_lists.first()?;
    Some(format!(
        "node {} has Inputs {}, which is not a list of node ids (`[0, 3]`); it is kept \
         as metadata, and no Inputs check reads it{}",
        g.id(v),
        printable(&inputs.to_string()),
        more_like_it(not_lists.len(), "node", "nodes")
    ))
}

/// Nodes whose `Op` is empty or blank.
fn empty_op_names(g: &Graph) -> Option<String> {
    let unnamed: Vec<NodeIdx> = g.nodes().filter(|&v| g.op(v).trim().is_empty()).collect();
    let &v = unnamed.first()?;
    Some(format!(
        "node {} has an empty Op, so it is a compute node (only `ALLOC` and `FREE` \
         allocate and release){}",
        g.id(v),
        more_like_it(unnamed.len(), "node", "nodes")
    ))
}

/// Edges listed more than once.
fn repeated_edge(g: &Graph) -> Option<String> {
    let repeated = repeated_edges(g);
    let &(u, v, times) = repeated.first()?;
    let others = match repeated.len() - 1 {
        0 => String::new(),
        1 => " (1 other edge is listed more than once too)".to_string(),
        k => format!(" ({k} other edges are listed more than once too)"),
    };
    Some(format!(
        "the edge [{}, {}] is listed {times} times in `Edges`: a repeat adds no \
         constraint, though the edge count counts it{others}",
        g.id(u),
        g.id(v),
    ))
}

/// Fields that look like a misspelling of one the node lacks.
fn misspelt_field(g: &Graph) -> Option<String> {
    let misspelt = misspelt_fields(g);
    let &(v, key, field) = misspelt.first()?;
    Some(format!(
        "node {} has a field `{}`, which memsched does not read: did you mean `{field}`?{}",
        g.id(v),
        printable(key),
        more_like_it(misspelt.len(), "field", "fields")
    ))
}

/// Most buffers' FREEs (two or more, and at least three quarters of the
/// ALLOCs) follow their writer alone, the compute node their ALLOC feeds,
/// while some such writer has another compute successor (a likely
/// reader). Only the edges order the nodes, so each of those buffers may
/// be freed as soon as it is written: an export that kept the
/// producer-to-FREE edges and lost the reader-to-FREE ones, whose every
/// peak, the optimum's too, is counted too low without a word. Counting
/// against the ALLOCs, not the FREEs, keeps quiet a graph whose outputs
/// stay live and whose workspaces alone are freed after their op.
fn frees_after_writers_only(g: &Graph) -> Option<String> {
    let writer = |free: NodeIdx| {
        let alloc = g.partner(free)?;
        match *g.preds(free) {
            [w] if g.kind(w) == NodeKind::Compute && g.preds(w).contains(&alloc) => Some(w),
            _ => None,
        }
    };
    let frees = g.nodes().filter(|&v| g.kind(v) == NodeKind::Free);
    let writers: Vec<(NodeIdx, NodeIdx)> = frees.filter_map(|f| Some((f, writer(f)?))).collect();
    let allocs = g.nodes().filter(|&v| g.kind(v) == NodeKind::Alloc).count();
    if writers.len() < 2 || writers.len() * 4 < allocs * 3 {
        return None;
    }
    let (free, w, reader) = writers.iter().find_map(|&(f, w)| {
        let compute = |&&r: &&NodeIdx| g.kind(r) == NodeKind::Compute;
        Some((f, w, *g.succs(w).iter().find(compute)?))
    })?;
    Some(format!(
        "the FREEs of {} of its {} follow only the node their ALLOC feeds (FREE {} follows node {} \
         alone), so those buffers may be freed as soon as they are written, before the nodes \
         that read them (node {} follows node {}): if other nodes read these buffers, the \
         edges from them to the FREEs are missing, and every peak counts too little",
        writers.len(),
        crate::text::count(allocs, "buffer"),
        g.id(free),
        g.id(w),
        g.id(reader),
        g.id(w),
    ))
}

/// Compute nodes whose `BufId` names a buffer no FREE releases.
fn op_naming_an_unfreed_buffer(g: &Graph) -> Option<String> {
    let releasing = ops_naming_unfreed_buffers(g);
    let &(v, alloc) = releasing.first()?;
    Some(format!(
        "compute node {} (`{}`) has BufId {}, the buffer of ALLOC node {}, which no FREE \
         releases: only a node whose Op is `FREE` releases memory, so the buffer stays \
         live to the end; is node {} meant to be a FREE?{}",
        g.id(v),
        printable(g.op(v)),
        g.buf_id(alloc).unwrap_or_default(),
        g.id(alloc),
        g.id(v),
        more_like_it(releasing.len(), "compute node", "compute nodes")
    ))
}

/// `Inputs` entries with no path of edges to their node.
fn unordered_input(g: &Graph) -> Option<String> {
    let (unordered, cut_short) = unordered_inputs(g);
    let &(v, u) = unordered.first()?;
    Some(format!(
        "node {} (`{}`) lists {} in its Inputs, but no path of Edges leads from {} to {}, \
         so {} may run first (only Edges order the nodes): is an edge missing?{}{}",
        g.id(v),
        printable(g.op(v)),
        g.id(u),
        g.id(u),
        g.id(v),
        g.id(v),
        more_like_it(unordered.len(), "Inputs entry", "Inputs entries"),
        budget_note(cut_short),
    ))
}

/// ALLOCs in a node's `Inputs` whose FREE always runs before it, or may;
/// or, when the search's budget ran out before any finding, a word that
/// the check did not finish (it would otherwise pass in silence).
fn inputs_freed_early_warnings(g: &Graph) -> Vec<String> {
    let mut warnings = Vec::new();
    let freed_early = inputs_freed_early(g);
    if freed_early.cut_short && freed_early.may.is_empty() && freed_early.always.is_empty() {
        warnings.push(format!(
            "the check that each node listing an ALLOC in its Inputs runs before that \
             buffer's FREE stopped at its search budget ({SEARCH_BUDGET} adjacency entries \
             read) before every entry was checked: an edge missing from Edges may go \
             unreported"
        ));
    }
    let cut_short = budget_note(freed_early.cut_short);
    if let Some(&(v, alloc, free)) = freed_early.always.first() {
        warnings.push(format!(
            "node {} (`{}`) lists ALLOC {} in its Inputs, but a path of Edges runs FREE node {} \
             of that buffer before it, so {} always runs after the buffer is freed: does it \
             read another buffer, or is an edge the wrong way round?{}{}",
            g.id(v),
            printable(g.op(v)),
            g.id(alloc),
            g.id(free),
            g.id(v),
            more_like_it(freed_early.always.len(), "Inputs entry", "Inputs entries"),
            cut_short,
        ));
    }
    if let Some(&(v, alloc, free)) = freed_early.may.first() {
        warnings.push(format!(
            "node {} (`{}`) lists ALLOC {} in its Inputs, but no path of Edges leads from {} \
             to FREE node {} of that buffer, so the buffer may be freed before {} reads it \
             (only Edges order the nodes): is the edge [{}, {}] missing?{}{}",
            g.id(v),
            printable(g.op(v)),
            g.id(alloc),
            g.id(v),
            g.id(free),
            g.id(v),
            g.id(v),
            g.id(free),
            more_like_it(freed_early.may.len(), "Inputs entry", "Inputs entries"),
            cut_short,
        ));
    }
    warnings
}

/// The edges `[u, v]` listed more than once, with how many times, by
/// `u`'s position then `v`'s.
///
/// # Complexity
/// O(1) for a graph without repeats (the graph knows, from when it was
/// built), else O(E log(max out-degree)).
pub fn repeated_edges(g: &Graph) -> Vec<(NodeIdx, NodeIdx, usize)> {
    if !g.has_parallel_edges() {
        return Vec::new();
    }
    let mut repeated = Vec::new();
    let mut row = Vec::new();
    for u in g.nodes() {
        row.clear();
        row.extend_from_slice(g.succs(u));
        row.sort_unstable();
        for run in row.chunk_by(|a, b| a == b).filter(|run| run.len() > 1) {
            repeated.push((u, run[0], run.len()));
        }
    }
    repeated
}

/// Compute nodes with a `BufId` field (which a compute node does not
/// read) naming the buffer of an ALLOC that no FREE releases, with that
/// ALLOC: a release written under another name (`DEALLOC`, `free_buffer`)
/// leaves the buffer live to the end.
fn ops_naming_unfreed_buffers(g: &Graph) -> Vec<(NodeIdx, NodeIdx)> {
    let unfreed: std::collections::HashMap<i64, NodeIdx> = g
        .nodes()
        .filter(|&v| g.kind(v) == NodeKind::Alloc && g.partner(v).is_none())
        .filter_map(|v| Some((g.buf_id(v)?, v)))
        .collect();
    if unfreed.is_empty() {
        return Vec::new();
    }
    g.nodes()
        .filter(|&v| g.kind(v) == NodeKind::Compute)
        .filter_map(|v| {
            let buf = g.extra(v)?.get("BufId")?.as_i64()?;
            Some((v, *unfreed.get(&buf)?))
        })
        .collect()
}

/// Each node's extra fields that misspell a field of the format the node
/// does not have (see [`seed::misspelt`](super::seed::misspelt)), with
/// that field.
fn misspelt_fields(g: &Graph) -> Vec<(NodeIdx, &str, &'static str)> {
    let mut found = Vec::new();
    for v in g.nodes() {
        let Some(extra) = g.extra(v) else { continue };
        // Any node reads `Id` and `Op`; ALLOC and FREE nodes read `Size`
        // and `BufId`, which mean nothing on a compute node (no guess).
        let has = |field: &str| {
            extra.contains_key(field) || matches!(field, "Id" | "Op" | "Size" | "BufId")
        };
        for key in extra.keys() {
            let lacking = super::seed::NODE_FIELDS.into_iter().filter(|f| !has(f));
            if let Some(field) = super::seed::misspelt(key, lacking) {
                found.push((v, key.as_str(), field));
            }
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::seed;

    fn lint_of(json: &str) -> Vec<String> {
        lint(&Graph::from_raw(seed::parse(json.as_bytes()).unwrap()).unwrap())
    }

    #[test]
    fn each_kind_is_named_once_with_a_count() {
        let w = lint_of(
            r#"{"Nodes": [{"Id": 0, "Op": "ALLOC", "Size": 8, "BufId": 1},
                {"Id": 1, "Op": "Conv", "Size": 4096}, {"Id": 2, "Op": "Relu", "Size": 1},
                {"Id": 3, "Op": "FREE", "BufId": 1, "Size": 9}],
                "Edges": [[0, 1], [1, 3]]}"#,
        );
        assert_eq!(w.len(), 2, "{w:?}");
        assert!(w[0].contains("FREE node 3 has Size 9") && !w[0].contains("more"));
        assert!(w[1].contains("compute node 1 (`Conv`) has Size 4096"));
        assert!(w[1].ends_with("(1 more compute node like it)"), "{w:?}");
        let w = lint_of(r#"{"Nodes": [{"Id": 0, "Op": "A"}, {"Id": 1, "Op": "B"}]}"#);
        assert_eq!(w.len(), 1, "{w:?}");
        assert!(w[0].starts_with("it has 2 nodes and no edge"), "{w:?}");
        let w = lint_of(
            r#"{"Nodes": [{"Id": 0, "Op": "A", "Inputs": [7], "Size": 0}, {"Id": 1, "Op": "B",
                "Inputs": [0, "0", 0.0, "x"]}], "Edges": [[0, 1]]}"#,
        );
        assert_eq!(w.len(), 1, "{w:?}");
        assert!(w[0].starts_with("node 0 lists 7 in its Inputs"), "{w:?}");
        assert!(w[0].ends_with("(1 more Inputs entry like it)"), "{w:?}");
        // 1e300 is no id, even beside a node whose id a cast would clamp to.
        let w = lint_of(
            r#"{"Nodes": [{"Id": 9223372036854775807, "Op": "A"},
                {"Id": 1, "Op": "B", "Inputs": [1e300]}],
                "Edges": [[9223372036854775807, 1]]}"#,
        );
        assert!(
            w.iter().any(|w| w.starts_with("node 1 lists 1e+300")),
            "{w:?}"
        );
    }

    /// FREEs that all follow only their writers, which other nodes follow,
    /// are named: the readers' edges to them look lost. With the reader's
    /// edge to the FREE, or with one FREE only, nothing is said.
    #[test]
    fn frees_after_their_writers_alone_are_named() {
        let graph = |free_edge: &str| {
            format!(
                r#"{{"Nodes": [{{"Id": 0, "Op": "ALLOC", "Size": 8, "BufId": 1}},
                    {{"Id": 1, "Op": "Conv"}}, {{"Id": 2, "Op": "ALLOC", "Size": 8, "BufId": 2}},
                    {{"Id": 3, "Op": "Relu"}}, {{"Id": 4, "Op": "FREE", "BufId": 1}},
                    {{"Id": 5, "Op": "FREE", "BufId": 2}}],
                    "Edges": [[0, 1], [1, 3], [2, 3], {free_edge}, [3, 5]]}}"#
            )
        };
        let w = lint_of(&graph("[1, 4]"));
        assert_eq!(w.len(), 1, "{w:?}");
        assert!(
            w[0].starts_with(
                "the FREEs of 2 of its 2 buffers follow only the node their ALLOC feeds (FREE 4 follows \
                 node 1 alone)"
            ) && w[0].contains("(node 3 follows node 1)"),
            "{w:?}"
        );
        assert!(lint_of(&graph("[3, 4]")).is_empty());
        let one_free = r#"{"Nodes": [{"Id": 0, "Op": "ALLOC", "Size": 8, "BufId": 1},
            {"Id": 1, "Op": "Conv"}, {"Id": 2, "Op": "Relu"}, {"Id": 3, "Op": "FREE", "BufId": 1}],
            "Edges": [[0, 1], [1, 2], [1, 3]]}"#;
        assert!(lint_of(one_free).is_empty());
        // Outputs that stay live, workspaces freed after their op: quiet.
        let workspaces = r#"{"Nodes": [{"Id": 0, "Op": "ALLOC", "Size": 8, "BufId": 1},
            {"Id": 1, "Op": "ALLOC", "Size": 4, "BufId": 2}, {"Id": 2, "Op": "A"},
            {"Id": 3, "Op": "FREE", "BufId": 2}, {"Id": 4, "Op": "ALLOC", "Size": 8, "BufId": 3},
            {"Id": 5, "Op": "ALLOC", "Size": 4, "BufId": 4}, {"Id": 6, "Op": "B"},
            {"Id": 7, "Op": "FREE", "BufId": 4}],
            "Edges": [[0, 2], [1, 2], [2, 3], [2, 6], [4, 6], [5, 6], [6, 7]]}"#;
        assert!(lint_of(workspaces).is_empty(), "{:?}", lint_of(workspaces));
    }

    /// Inputs that are not a list are named: nothing checks them.
    #[test]
    fn inputs_that_are_not_a_list_are_named() {
        let w = lint_of(r#"{"Nodes": [{"Id": 0, "Op": "A", "Inputs": "0"}]}"#);
        assert_eq!(w.len(), 1, "{w:?}");
        assert!(
            w[0].starts_with(r#"node 0 has Inputs "0", which is not a list"#),
            "{w:?}"
        );
    }

    /// A release under another Op name leaves its buffer live: named.
    #[test]
    fn an_op_naming_an_unfreed_buffer_is_named() {
        let w = lint_of(
            r#"{"Nodes": [{"Id": 0, "Op": "ALLOC", "Size": 1, "BufId": 1},
                {"Id": 1, "Op": "DEALLOC", "BufId": 1}], "Edges": [[0, 1]]}"#,
        );
        assert_eq!(w.len(), 1, "{w:?}");
        assert!(
            w[0].starts_with(
                "compute node 1 (`DEALLOC`) has BufId 1, the buffer of ALLOC node 0, which \
                 no FREE releases"
            ),
            "{w:?}"
        );
        // A buffer its FREE releases: the op's BufId is only metadata.
        let w = lint_of(
            r#"{"Nodes": [{"Id": 0, "Op": "ALLOC", "Size": 1, "BufId": 1},
                {"Id": 1, "Op": "Conv", "BufId": 1}, {"Id": 2, "Op": "FREE", "BufId": 1}],
                "Edges": [[0, 1], [1, 2]]}"#,
        );
        assert!(w.is_empty(), "{w:?}");
    }

    /// A field that misspells one the node lacks is named, with a count; the
    /// same key beside the real field, on an ALLOC for `Size`, or on a
    /// compute node for `Size` or `BufId` (which mean nothing there), is not.
    #[test]
    fn a_misspelt_field_is_named() {
        let w = lint_of(
            r#"{"Nodes": [{"Id": 0, "Op": "ALLOC", "Size": 8, "BufId": 1, "Sise": 1},
                {"Id": 1, "Op": "A", "Lantency": 2}, {"Id": 2, "Op": "B", "Lantency": 2,
                "Latency": 1}, {"Id": 3, "Op": "FREE", "BufId": 1, "Inputz": [1]},
                {"Id": 4, "Op": "C", "BufIds": [1], "Sizes": 2}],
                "Edges": [[0, 1], [1, 2], [2, 3], [2, 4]]}"#,
        );
        assert_eq!(w.len(), 1, "{w:?}");
        assert!(
            w[0].starts_with(
                "node 1 has a field `Lantency`, which memsched does not read: did you mean \
                 `Latency`?"
            ),
            "{w:?}"
        );
        assert!(w[0].ends_with("(1 more field like it)"), "{w:?}");
    }

    /// The first edge listed more than once is named, with how many times
    /// and how many more are repeated.
    #[test]
    fn repeated_edges_are_named_with_their_count() {
        let w = lint_of(
            r#"{"Nodes": [{"Id": 5, "Op": "A"}, {"Id": 6, "Op": "B"}, {"Id": 7, "Op": "C"}],
                "Edges": [[5, 6], [6, 7], [5, 6], [5, 7], [6, 7], [5, 6]]}"#,
        );
        assert_eq!(w.len(), 1, "{w:?}");
        assert!(
            w[0].starts_with("the edge [5, 6] is listed 3 times"),
            "{w:?}"
        );
        assert!(
            w[0].ends_with("(1 other edge is listed more than once too)"),
            "{w:?}"
        );
        assert!(lint_of(
            r#"{"Nodes": [{"Id": 5, "Op": "A"}, {"Id": 6, "Op": "B"}],
                "Edges": [[5, 6]]}"#
        )
        .is_empty());
    }

    /// An empty or blank `Op` is named, with a count.
    #[test]
    fn an_empty_op_is_named() {
        let w = lint_of(
            r#"{"Nodes": [{"Id": 0, "Op": ""}, {"Id": 1, "Op": " "}, {"Id": 2, "Op": "A"}],
                "Edges": [[0, 1], [1, 2]]}"#,
        );
        assert_eq!(w.len(), 1, "{w:?}");
        assert!(w[0].starts_with("node 0 has an empty Op"), "{w:?}");
        assert!(w[0].ends_with("(1 more node like it)"), "{w:?}");
    }

    /// An input the edges leave unordered is named (an exporter that lost
    /// an edge); one reached through other nodes, and the FREE after the
    /// op (the article's example), are not.
    #[test]
    fn an_input_with_no_path_to_its_node_is_named() {
        let w = lint_of(
            r#"{"Nodes": [{"Id": 0, "Op": "ALLOC", "Size": 8, "BufId": 1},
                {"Id": 1, "Op": "ALLOC", "Size": 8, "BufId": 2},
                {"Id": 2, "Op": "Relu", "Inputs": [1]},
                {"Id": 3, "Op": "Conv", "Inputs": [0, 2, 4]},
                {"Id": 4, "Op": "FREE", "BufId": 1}, {"Id": 5, "Op": "FREE", "BufId": 2}],
                "Edges": [[1, 2], [2, 3], [3, 5], [0, 4], [3, 4]]}"#,
        );
        assert_eq!(w.len(), 1, "{w:?}");
        assert!(
            w[0].starts_with("node 3 (`Conv`) lists 0 in its Inputs, but no path"),
            "{w:?}"
        );
        assert!(!w[0].contains("more"), "{w:?}");
        // An id listed twice (in two spellings) counts once.
        let w = lint_of(
            r#"{"Nodes": [{"Id": 0, "Op": "A"}, {"Id": 1, "Op": "B", "Inputs": [0, "0", 0.0]}],
                "Edges": []}"#,
        );
        assert!(
            w.iter()
                .any(|w| w.contains("lists 0") && !w.contains("more")),
            "{w:?}"
        );
        // Through a chain of nodes, the path counts.
        let w = lint_of(
            r#"{"Nodes": [{"Id": 0, "Op": "A"}, {"Id": 1, "Op": "B"},
                {"Id": 2, "Op": "C", "Inputs": [0]}], "Edges": [[0, 1], [1, 2]]}"#,
        );
        assert!(w.is_empty(), "{w:?}");
        // The wrong way round is named too.
        let w = lint_of(
            r#"{"Nodes": [{"Id": 0, "Op": "A", "Inputs": [1]}, {"Id": 1, "Op": "B"}],
                "Edges": [[0, 1]]}"#,
        );
        assert!(w[0].starts_with("node 0 (`A`) lists 1"), "{w:?}");
    }

    /// A reader whose buffer's FREE the edges leave unordered after it (a
    /// hand-written graph that forgot the edge to the FREE) is named; a
    /// FREE reached through other nodes is not.
    #[test]
    fn an_input_freed_before_its_reader_is_named() {
        // Node 4 reads buffer 1 (ALLOC 0), whose FREE 3 waits only for op 1.
        let json = r#"{"Nodes": [{"Id": 0, "Op": "ALLOC", "Size": 1000, "BufId": 1},
            {"Id": 1, "Op": "A", "Inputs": [0]}, {"Id": 2, "Op": "ALLOC", "Size": 1000, "BufId": 2},
            {"Id": 3, "Op": "FREE", "BufId": 1}, {"Id": 4, "Op": "B", "Inputs": [0, 2]},
            {"Id": 5, "Op": "ALLOC", "Size": 1000, "BufId": 3}, {"Id": 6, "Op": "FREE", "BufId": 3}],
            "Edges": [[0, 1], [2, 1], [1, 3], [1, 4], [5, 4], [4, 6]]}"#;
        let w = lint_of(json);
        // Buffer 2 is never freed: the check of FREEs after their writers
        // alone (two of three buffers) stays quiet.
        assert_eq!(w.len(), 1, "{w:?}");
        assert!(
            w[0].starts_with(
                "node 4 (`B`) lists ALLOC 0 in its Inputs, but no path of Edges leads from 4 \
                 to FREE node 3 of that buffer"
            ),
            "{w:?}"
        );
        assert!(w[0].contains("is the edge [4, 3] missing?"), "{w:?}");
        // With the edge, or a path through another node, nothing is named.
        assert!(lint_of(&json.replace("[4, 6]]", "[4, 6], [4, 3]]")).is_empty());
        let through = json.replace("[4, 6]]", "[4, 6], [6, 3]]");
        assert!(lint_of(&through).is_empty(), "{:?}", lint_of(&through));
        // A FREE the edges run first is named as such: adding the edge
        // would close a cycle.
        let after = lint_of(
            r#"{"Nodes": [{"Id": 0, "Op": "ALLOC", "Size": 8, "BufId": 1},
                {"Id": 1, "Op": "A", "Inputs": [0]}, {"Id": 2, "Op": "FREE", "BufId": 1},
                {"Id": 3, "Op": "B", "Inputs": [0, 1]}],
                "Edges": [[0, 1], [1, 2], [2, 3]]}"#,
        );
        assert_eq!(after.len(), 1, "{after:?}");
        assert!(
            after[0].starts_with(
                "node 3 (`B`) lists ALLOC 0 in its Inputs, but a path of Edges runs FREE node 2 \
                 of that buffer before it"
            ),
            "{after:?}"
        );
    }

    /// Readers with an edge straight to their FREE take no search, so a
    /// dense graph (300 buffers, each read by the same 300 readers) keeps
    /// its budget for the one reader whose edge is missing.
    #[test]
    fn readers_with_a_direct_edge_spend_no_budget() {
        let (buffers, readers) = (300, 300);
        let mut b = crate::graph::GraphBuilder::new();
        let allocs: Vec<i64> = (0..buffers).map(|i| b.alloc(8, i)).collect();
        let ops: Vec<i64> = (0..readers).map(|_| b.op("read")).collect();
        let frees: Vec<i64> = (0..buffers).map(|i| b.free(i)).collect();
        for &op in &ops {
            b.set_extra(op, "Inputs", serde_json::json!(allocs));
            for &a in &allocs {
                b.edge(a, op);
            }
        }
        let (lost_op, lost_free) = (ops[readers - 1], frees[buffers as usize / 2]);
        for &f in &frees {
            for &op in &ops {
                if (op, f) != (lost_op, lost_free) {
                    b.edge(op, f);
                }
            }
        }
        let w = lint(&b.build().unwrap());
        assert_eq!(w.len(), 1, "{w:?}");
        assert!(
            w[0].contains(&format!(
                "no path of Edges leads from {lost_op} to FREE node {lost_free}"
            )),
            "{w:?}"
        );
    }

    /// Many nodes listing one input along a chain take one walk forward
    /// from it, not one search each: a node off the chain is still found.
    #[test]
    fn a_long_chain_listing_one_input_is_walked_once() {
        let mut b = crate::graph::GraphBuilder::new();
        let source = b.op("source");
        let mut last = source;
        for _ in 0..5_000 {
            let v = b.op("read");
            b.set_extra(v, "Inputs", serde_json::json!([source]));
            b.edge(last, v);
            last = v;
        }
        let other = b.op("other");
        let stray = b.op("stray");
        b.set_extra(stray, "Inputs", serde_json::json!([source]));
        b.edge(other, stray);
        let w = lint(&b.build().unwrap());
        assert_eq!(w.len(), 1, "{w:?}");
        assert!(
            w[0].starts_with(&format!(
                "node {stray} (`stray`) lists {source} in its Inputs, but no path of Edges leads \
                 from {source} to {stray}"
            )),
            "{w:?}"
        );
        assert!(!w[0].contains("budget"), "{w:?}");
    }

    /// Many readers of one buffer in a chain take one search back from its
    /// FREE, not one each: a reader off the chain is still found.
    #[test]
    fn a_long_chain_of_readers_is_searched_once() {
        let readers = 300_000;
        let mut b = crate::graph::GraphBuilder::new();
        let alloc = b.alloc(8, 1);
        let mut last = alloc;
        for _ in 0..readers {
            let v = b.op("read");
            b.set_extra(v, "Inputs", serde_json::json!([alloc]));
            b.edge(last, v);
            last = v;
        }
        let free = b.free(1);
        b.edge(last, free);
        let side = b.op("side");
        b.set_extra(side, "Inputs", serde_json::json!([alloc]));
        b.edge(alloc, side);
        let w = lint(&b.build().unwrap());
        assert_eq!(w.len(), 1, "{w:?}");
        assert!(
            w[0].starts_with(&format!("node {side} (`side`) lists ALLOC {alloc}")),
            "{w:?}"
        );
        assert!(!w[0].contains("budget"), "{w:?}");
    }

    #[test]
    fn a_plain_graph_has_none() {
        let w = lint_of(
            r#"{"Nodes": [{"Id": 0, "Op": "ALLOC", "Size": 8, "BufId": 1},
                {"Id": 1, "Op": "Conv"}, {"Id": 2, "Op": "FREE", "BufId": 1, "Size": 8}],
                "Edges": [[0, 1], [1, 2]]}"#,
        );
        assert!(w.is_empty(), "{w:?}");
        // A name with control characters is shown escaped.
        let w = lint_of(
            r#"{"Nodes": [{"Id": 0, "Op": "x\u001b[31m\nfake: ok", "Size": 5}], "Edges": []}"#,
        );
        assert!(
            w.iter().any(|w| w.contains(r"(`x\u{1b}[31m\nfake: ok`)")),
            "{w:?}"
        );
        assert!(w.iter().all(|w| !w.contains('\n') && !w.contains('\u{1b}')));
        assert_eq!(more_like_it(1, "x", "xs"), "");
        assert_eq!(more_like_it(2, "edge", "edges"), " (1 more edge like it)");
        assert_eq!(more_like_it(3, "edge", "edges"), " (2 more edges like it)");
    }
}
