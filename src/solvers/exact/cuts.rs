//! Cut points (SERENITY's divide and conquer): nodes every schedule can be
//! made to pass through, splitting the graph into pieces run one after another.
//!
//! A node `c` with delta <= 0 is a *cut* when every other node is an
//! ancestor of `c`, a descendant of `c`, or unrelated to `c` and either
//! - *floating*: delta > 0, and every successor descends from `c` (or it
//!   has none); it goes after `c`; or
//! - *sinking*: delta <= 0, and every predecessor is an ancestor of `c`
//!   (a FREE whose readers all run before `c`); it goes before `c`.
//!
//! Soundness. Take any optimal schedule and change it in two rounds, each
//! move keeping it valid and never raising the peak:
//! 1. every floating node waits until just before the first of its
//!    successors: this is F2 as docs/core.md states it (the memory only drops
//!    at the positions it skips). Its first successor descends from `c`, so
//!    it now runs after `c`.
//! 2. every sinking node runs just after the last of its predecessors: the
//!    mirror of F2 and the exchange that proves F1 (a node with delta <= 0
//!    moved earlier only lowers the memory at the positions it skips). Its
//!    predecessors are ancestors of `c`, so it now runs before `c`.
//!
//! Both rounds serve every cut of a chain at once: a move never reorders
//! the nodes it does not move, cuts are never moved (they are related to
//! each other and non-positive), a floating node of `c` lands before a
//! descendant of `c`, hence after `c`, and a sinking node of `c` lands
//! right after an ancestor of `c`, hence before `c`. So some optimal
//! schedule runs, for every cut `c`, exactly `before(c)` =
//! anc(c) + c + sinking(c) first. Nothing else is used: a positive node is
//! only ever moved later, a non-positive one only earlier. A positive node
//! unrelated to `c` whose successor is another positive node unrelated to
//! `c` (ALLOC -> ALLOC) blocks the cut, though F2 applied twice would place
//! both after it: the rule stays simple and conservative.
//!
//! Two cuts need not be related (two FREEs right after the same op are
//! each sinking for the other), so [`find_until`] keeps a chain `c_1 < ... < c_k`,
//! each a descendant of the one before. Along a chain `before(c_i)` grows
//! with `i` (a sinking node of `c_i` is an ancestor or a sinking node of any
//! later cut), and node `v` belongs to piece `i`, the first with `v` in
//! `before(c_i)` (or to the last piece).

use super::moves::Reach;
use super::state::has;
use crate::graph::{Graph, NodeIdx};

/// [`find_until`] without a stop.
#[cfg(test)]
pub(crate) fn find(g: &Graph, reach: &Reach) -> Vec<NodeIdx> {
    find_until(g, reach, &mut || false).expect("never stopped")
}

/// A chain of cut nodes of `g`, in topological order: a cut is kept if it
/// descends from the last one kept. `None` as soon as `stop()` says so
/// (asked every 64 candidates: on 64,000 nodes the whole search takes
/// about 0.4 s).
///
/// # Complexity
/// O(n + m) per node with delta <= 0 (early exit on the first node that
/// fits no rule): O(n * (n + m)) in the worst case.
fn find_until(g: &Graph, reach: &Reach, stop: &mut impl FnMut() -> bool) -> Option<Vec<NodeIdx>> {
    let topo = g.topo_order();
    let mut cuts: Vec<NodeIdx> = Vec::new();
    let mut tried = 0usize;
    for (i, &c) in topo.iter().enumerate() {
        if g.delta(c) > 0 || cuts.last().is_some_and(|&d| !has(reach.anc(c), d)) {
            continue;
        }
        tried += 1;
        if tried.is_multiple_of(64) && stop() {
            return None;
        }
        // Nodes near `c` in the order are the likeliest to be unrelated to it.
        let near = topo[i + 1..].iter().chain(topo[..i].iter().rev());
        if near.copied().all(|v| fits(g, reach, c, v)) {
            cuts.push(c);
        }
    }
    Some(cuts)
}

/// Whether `v` is an ancestor or descendant of `c`, floating or sinking.
fn fits(g: &Graph, reach: &Reach, c: NodeIdx, v: NodeIdx) -> bool {
    let descends = |x: NodeIdx| has(reach.anc(x), c);
    let before = |x: NodeIdx| has(reach.anc(c), x);
    if before(v) || descends(v) {
        return true;
    }
    if g.delta(v) > 0 {
        g.succs(v).iter().all(|&s| descends(s))
    } else {
        g.preds(v).iter().all(|&p| before(p))
    }
}

/// The piece of every node for the cuts `cuts` (a chain, in topological
/// order): piece `i` holds the nodes in `before(c_i)` and in no earlier
/// one; the last piece, index `cuts.len()`, holds the rest.
///
/// # Complexity
/// O(n log k) membership tests, each O(in-degree).
pub(crate) fn assign(g: &Graph, reach: &Reach, cuts: &[NodeIdx]) -> Vec<usize> {
    let in_before = |c: NodeIdx, v: NodeIdx| {
        let anc = reach.anc(c);
        c == v
            || has(anc, v)
            || (g.delta(v) <= 0 && !has(reach.anc(v), c) && g.preds(v).iter().all(|&p| has(anc, p)))
    };
    g.nodes()
        .map(|v| cuts.partition_point(|&c| !in_before(c, v)))
        .collect()
}

/// [`pieces_until`] without a stop.
#[cfg(test)]
pub(crate) fn pieces(g: &Graph, reach: &Reach, min_piece: usize) -> Vec<Vec<NodeIdx>> {
    pieces_until(g, reach, min_piece, || false).expect("never stopped")
}

/// Node lists of the pieces, each in index order, merging consecutive
/// pieces until each has at least `min_piece` nodes (the last may have
/// fewer, then it joins the one before). Merging keeps the split sound: a
/// union of consecutive pieces is still a downset of what follows. `None`
/// as soon as `stop()` says so (see [`find_until`]).
pub(crate) fn pieces_until(
    g: &Graph,
    reach: &Reach,
    min_piece: usize,
    mut stop: impl FnMut() -> bool,
) -> Option<Vec<Vec<NodeIdx>>> {
    let cuts = find_until(g, reach, &mut stop)?;
    let piece = assign(g, reach, &cuts);
    let mut fine: Vec<Vec<NodeIdx>> = vec![Vec::new(); cuts.len() + 1];
    for v in g.nodes() {
        fine[piece[v as usize]].push(v);
    }
    let mut out: Vec<Vec<NodeIdx>> = Vec::new();
    let mut open = false; // whether the last piece of `out` is still below `min_piece`
    for p in fine.into_iter().filter(|p| !p.is_empty()) {
        match out.last_mut() {
            Some(last) if open => last.extend(p),
            _ => out.push(p),
        }
        open = out.last().unwrap().len() < min_piece;
    }
    if open && out.len() > 1 {
        let last = out.pop().unwrap();
        out.last_mut().unwrap().extend(last);
    }
    for p in &mut out {
        p.sort_unstable();
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::corpus::program::{AllocEncoding, TensorProgram};

    /// Two ops in a chain, then a fork of two readers of the second.
    fn chain_then_fork(enc: AllocEncoding) -> Graph {
        let mut p = TensorProgram::new();
        let a = p.op1("a", &[], 3);
        let b = p.op1("b", &[a], 4);
        let c = p.op1("c", &[b], 5);
        p.op1("d", &[b], 6);
        let _ = c;
        p.to_graph(enc).unwrap()
    }

    fn names(g: &Graph, vs: &[NodeIdx]) -> Vec<String> {
        vs.iter().map(|&v| g.op(v).to_string()).collect()
    }

    #[test]
    fn cuts_take_floating_allocs_after_and_sinking_frees_before() {
        for enc in [AllocEncoding::Anchored, AllocEncoding::Floating] {
            let g = chain_then_fork(enc);
            let reach = Reach::new(&g);
            let cuts = find(&g, &reach);
            // `a`, `b`, and the FREE of b's buffer (after `c` and `d`): the
            // FREE of a's buffer (after `b` only) sinks before it. The FREE
            // of a's buffer is no cut: the ALLOCs of `c`, `d` do not
            // descend from it; `c` and `d` are unrelated.
            assert_eq!(names(&g, &cuts), ["a", "b", "FREE"], "{enc:?}");
            let piece = assign(&g, &reach, &cuts);
            for v in g.nodes() {
                let want = match g.op(v) {
                    "a" => 0,
                    "b" => 1,
                    "ALLOC" => piece[v as usize],
                    _ => 2, // c, d and both FREEs
                };
                assert_eq!(piece[v as usize], want, "{enc:?} node {v}");
            }
            // The ALLOCs of `c` and `d` (anchored after `b`, or floating) come after `b`.
            let allocs_last = g
                .nodes()
                .filter(|&v| g.delta(v) > 0 && piece[v as usize] == 2)
                .count();
            assert_eq!(allocs_last, 2, "{enc:?}");
        }
    }

    /// ALLOC x feeds `a` and `z`; `a` and `a2` (delta 0) join at `m`, then `z`.
    /// With `chained`, ALLOC q feeds ALLOC r which feeds `z`.
    fn join_graph(chained: bool) -> Graph {
        let mut b = crate::graph::GraphBuilder::new();
        let x = b.alloc(1, 0);
        let a = b.op("a");
        let a2 = b.op("a2");
        let m = b.op("m");
        let z = b.op("z");
        let mut edges = vec![(x, a), (a, m), (a2, m), (m, z), (x, z)];
        if chained {
            let q = b.alloc(1, 1);
            let r = b.alloc(1, 2);
            edges.extend([(q, r), (r, z)]);
        }
        for (u, v) in edges {
            b.edge(u, v);
        }
        b.build().unwrap()
    }

    #[test]
    fn a_positive_chain_unrelated_to_a_node_prevents_its_cut() {
        // `a2` (delta 0, no predecessor) sinks before `a`; x is an ancestor of
        // `a` and `m`.
        let g = join_graph(false);
        assert_eq!(names(&g, &find(&g, &Reach::new(&g))), ["a", "m", "z"]);
        // q is unrelated to `a` and `m`, and its successor r is no
        // descendant of them: F2 as stated does not place q after them.
        let g = join_graph(true);
        assert_eq!(names(&g, &find(&g, &Reach::new(&g))), ["z"]);
    }

    #[test]
    fn small_pieces_merge_forwards() {
        let g = chain_then_fork(AllocEncoding::Anchored);
        let reach = Reach::new(&g);
        let all: Vec<usize> = pieces(&g, &reach, 1).iter().map(Vec::len).collect();
        assert_eq!(all.iter().sum::<usize>(), g.node_count());
        assert_eq!(all.len(), 3);
        assert_eq!(pieces(&g, &reach, 100).len(), 1);
    }
}
