//! The path searches behind the `Inputs` warnings: whether each entry of
//! a node's `Inputs` has a path of edges to the node, and whether an
//! ALLOC's FREE can run before a node that lists it, within a budget of
//! adjacency entries read.

use crate::graph::{Graph, NodeIdx, NodeKind};

/// Most adjacency entries the searches of each Inputs check
/// ([`unordered_inputs`], [`inputs_freed_early`]) read in all: past it,
/// the entries left count as ordered (a warning only when sure), and the
/// warning says the count may be short.
pub(super) const SEARCH_BUDGET: usize = 4_000_000;

/// Distinct `(node, input)` pairs of `Inputs` entries with no path of
/// edges from the input to its node, and whether the search budget ran
/// out first. A FREE is left out: the article's own example lists the
/// FREE that follows the op among its Inputs.
pub(super) fn unordered_inputs(g: &Graph) -> (Vec<(NodeIdx, NodeIdx)>, bool) {
    let n = g.node_count();
    // Predecessors of the node at hand, marked once per node, so that an
    // entry with a direct edge costs one lookup.
    let mut pred_of = vec![usize::MAX; n];
    // Entries already taken for the node at hand (an id listed twice).
    let mut listed = vec![usize::MAX; n];
    let mut pairs: Vec<(NodeIdx, NodeIdx)> = Vec::new();
    for v in g.nodes() {
        let Some(inputs) = listed_inputs(g, v) else {
            continue;
        };
        for &p in g.preds(v) {
            pred_of[p as usize] = v as usize;
        }
        for u in inputs {
            let (direct, again) = (pred_of[u as usize], listed[u as usize]);
            listed[u as usize] = v as usize;
            if u != v && direct != v as usize && again != v as usize && g.kind(u) != NodeKind::Free
            {
                pairs.push((v, u));
            }
        }
    }
    if pairs.is_empty() {
        return (pairs, false);
    }
    // One walk forward from each input, to every node that lists it.
    pairs.sort_unstable_by_key(|&(v, u)| (u, v));
    let mut reach = Reach::new(g);
    let (mut unordered, mut cut_short) = (Vec::new(), false);
    for group in pairs.chunk_by(|a, b| a.1 == b.1) {
        let nodes: Vec<NodeIdx> = group.iter().map(|&(v, _)| v).collect();
        let Some(missed) = reach.unreached(group[0].1, &nodes, Walk::Forward) else {
            cut_short = true;
            break;
        };
        unordered.extend(missed.into_iter().map(|v| (v, group[0].1)));
    }
    unordered.sort_unstable();
    (unordered, cut_short)
}

/// The nodes `v`'s `Inputs` names (entries that name no node skipped), or
/// `None` when it has no `Inputs` list.
pub(super) fn listed_inputs(g: &Graph, v: NodeIdx) -> Option<impl Iterator<Item = NodeIdx> + '_> {
    let inputs = g.extra(v)?.get("Inputs")?.as_array()?;
    Some(inputs.iter().filter_map(|x| g.index_of(input_id(x)?)))
}

/// The clause a warning ends with when its search stopped at the budget.
pub(super) fn budget_note(cut_short: bool) -> &'static str {
    match cut_short {
        true => " (the search stopped at its budget: there may be more)",
        false => "",
    }
}

/// Readers of freed buffers: `Inputs` entries that name an ALLOC whose
/// FREE has no path of edges from the node.
#[derive(Debug, Default)]
pub(super) struct FreedEarly {
    /// `(node, ALLOC, FREE)` where the FREE may run before the node.
    pub(super) may: Vec<(NodeIdx, NodeIdx, NodeIdx)>,
    /// `(node, ALLOC, FREE)` where a path of edges runs the FREE first.
    pub(super) always: Vec<(NodeIdx, NodeIdx, NodeIdx)>,
    /// The search budget ran out: there may be more.
    pub(super) cut_short: bool,
}

/// The `Inputs` entries of compute nodes that name an ALLOC whose FREE no
/// path of edges leads to from the node (which may then read the buffer
/// after its FREE). Only ALLOC entries are read: an op entry does not say
/// which of the op's outputs the node reads.
///
/// # Complexity
/// One search back from each FREE with such readers, down to its earliest
/// reader in topological order, within [`SEARCH_BUDGET`] predecessor
/// entries in all.
pub(super) fn inputs_freed_early(g: &Graph) -> FreedEarly {
    let mut triples: Vec<(NodeIdx, NodeIdx, NodeIdx)> = Vec::new();
    for v in g.nodes().filter(|&v| g.kind(v) == NodeKind::Compute) {
        let Some(inputs) = listed_inputs(g, v) else {
            continue;
        };
        for u in inputs {
            if g.kind(u) == NodeKind::Alloc {
                if let Some(free) = g.partner(u) {
                    triples.push((v, u, free));
                }
            }
        }
    }
    let mut found = FreedEarly::default();
    if triples.is_empty() {
        return found;
    }
    triples.sort_unstable_by_key(|&(v, _, free)| (free, v));
    triples.dedup_by_key(|&mut (v, _, free)| (free, v));
    let mut reach = Reach::new(g);
    let mut candidates = Vec::new();
    // `direct[p] == free` when `p` has an edge straight to `free`.
    let mut direct = vec![NodeIdx::MAX; g.node_count()];
    for readers in triples.chunk_by(|a, b| a.2 == b.2) {
        let free = readers[0].2;
        // An edge straight to the FREE, the usual case, needs no search.
        for &p in g.preds(free) {
            direct[p as usize] = free;
        }
        let others: Vec<NodeIdx> = (readers.iter())
            .map(|r| r.0)
            .filter(|&v| direct[v as usize] != free)
            .collect();
        // One walk back from the FREE, until it has reached them all
        // (`others` is in index order, as the readers are: so is `missed`).
        let Some(missed) = reach.unreached(free, &others, Walk::Back) else {
            found.cut_short = true;
            break;
        };
        candidates.extend(
            (readers.iter())
                .filter(|r| missed.binary_search(&r.0).is_ok())
                .copied(),
        );
    }
    // Of those, the ones the FREE reaches: it always runs first. (One
    // the budget left undecided stays among those it may.)
    for t @ (v, _, free) in candidates {
        match reach.unreached(free, &[v], Walk::Forward) {
            Some(missed) if missed.is_empty() => found.always.push(t),
            Some(_) => found.may.push(t),
            None => {
                found.cut_short = true;
                found.may.push(t);
            }
        }
    }
    found.may.sort_unstable();
    found.always.sort_unstable();
    found
}

/// Which way a [`Reach`] walks the edges.
#[derive(Clone, Copy, PartialEq)]
pub(super) enum Walk {
    /// From a node to its successors: paths from the source.
    Forward,
    /// From a node to its predecessors: paths to the source.
    Back,
}

/// Searches for paths of edges between one node and several, all within
/// one budget of [`SEARCH_BUDGET`] adjacency entries read.
pub(super) struct Reach<'g> {
    g: &'g Graph,
    /// Each node's place in a topological order: a path runs forward in
    /// it, so a walk need not pass the farthest of its targets.
    position: Vec<usize>,
    /// `seen[w] == search` once the current search visited `w`.
    seen: Vec<u32>,
    /// `target[w] == search` while `w` is a target not yet reached.
    target: Vec<u32>,
    search: u32,
    budget: usize,
    stack: Vec<NodeIdx>,
}

impl<'g> Reach<'g> {
    fn new(g: &'g Graph) -> Self {
        let n = g.node_count();
        let mut position = vec![0usize; n];
        for (i, &v) in g.topo.iter().enumerate() {
            position[v as usize] = i;
        }
        Reach {
            g,
            position,
            seen: vec![0; n],
            target: vec![0; n],
            search: 0,
            budget: SEARCH_BUDGET,
            stack: Vec::new(),
        }
    }

    /// The `targets` that no path of edges joins to `source` (from it with
    /// [`Walk::Forward`], to it with [`Walk::Back`]), in the order given;
    /// `None` when the budget ran out first. One walk serves all the
    /// targets, and it ends once it has reached them.
    fn unreached(
        &mut self,
        source: NodeIdx,
        targets: &[NodeIdx],
        walk: Walk,
    ) -> Option<Vec<NodeIdx>> {
        self.search += 1;
        let search = self.search;
        let mut left = 0usize;
        for &t in targets {
            if self.target[t as usize] != search {
                self.target[t as usize] = search;
                left += 1;
            }
        }
        let place = |v: NodeIdx| self.position[v as usize];
        // The farthest target: no node past it leads to one.
        let bound = match walk {
            Walk::Forward => targets.iter().map(|&t| place(t)).max(),
            Walk::Back => targets.iter().map(|&t| place(t)).min(),
        };
        let inside = |p: usize| match walk {
            Walk::Forward => bound.is_some_and(|b| p <= b),
            Walk::Back => bound.is_some_and(|b| p >= b),
        };
        self.stack.clear();
        self.stack.push(source);
        self.seen[source as usize] = search;
        while left > 0 {
            let Some(w) = self.stack.pop() else { break };
            if w != source && self.target[w as usize] == search {
                self.target[w as usize] = 0;
                left -= 1;
            }
            let next = match walk {
                Walk::Forward => self.g.succs(w),
                Walk::Back => self.g.preds(w),
            };
            if next.len() > self.budget {
                return None;
            }
            self.budget -= next.len();
            for &p in next {
                if self.seen[p as usize] != search && inside(self.position[p as usize]) {
                    self.seen[p as usize] = search;
                    self.stack.push(p);
                }
            }
        }
        let missed = (targets.iter())
            .filter(|&&t| self.target[t as usize] == search)
            .copied();
        Some(missed.collect())
    }
}

/// The node id an `Inputs` entry names: an integer, written as one, as a
/// whole float (`0.0`) or as a string (`"0"`).
pub(super) fn input_id(x: &serde_json::Value) -> Option<i64> {
    x.as_i64()
        .or_else(|| {
            // Whole and within i64 (a cast would clamp 1e300 to i64::MAX).
            let f = x
                .as_f64()
                .filter(|f| f.fract() == 0.0 && f.abs() < 9.2e18)?;
            Some(f as i64)
        })
        .or_else(|| x.as_str()?.trim().parse().ok())
}
