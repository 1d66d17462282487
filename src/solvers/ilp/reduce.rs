//! The exact model reduction: contract zero-choice structure into clusters,
//! then sort clusters into the three roles the model treats differently.
//!
//! A [`Cluster`] is a sequence of original nodes that some optimal schedule
//! runs contiguously, in that order. Its memory profile is summarised by
//! `total` (sum of deltas) and `peak` (largest prefix sum, relative to the
//! memory before it). Two contractions are applied until nothing changes
//! (F1/F2 of docs/core.md, lifted from nodes to clusters):
//!
//! - **fold forward (F2)**: a cluster with `total >= 0` and `peak <= total`
//!   (memory only rises to its end value, e.g. an ALLOC, or ALLOCs followed by
//!   their op) whose successors all lie in one cluster `C` is prepended to `C`.
//!   Moving it later, to just before `C`, lowers the memory of everything it
//!   passes and its own values end at the memory the old schedule had just
//!   before `C`.
//! - **fold back (F1)**: a cluster with `peak <= 0` (it never rises above the
//!   memory before it, e.g. a FREE or a compute node) whose predecessors all
//!   lie in one cluster `U` is appended to `U`, for the mirror reason.
//!
//! Each contraction maps an optimal schedule in which the current clusters are
//! contiguous to one in which the merged cluster is too, with no higher peak,
//! so the optimum of the contracted graph equals the original optimum.
//!
//! Then every cluster gets a [`Role`]:
//! - [`Role::Absorbed`] (`peak <= 0`): some optimal schedule runs such a
//!   cluster as soon as it is ready (move it earlier past any non-absorbed
//!   cluster: nothing it passes rises, its own values stay below the memory
//!   before it). The model gives these no step of their own: they run in the
//!   "closure" right after the step that makes them ready, where memory can
//!   only fall ("merge steps where no memory can change").
//! - [`Role::Tail`]: clusters that can rise only to their end value and whose
//!   successors are all tail clusters: some optimal schedule runs them last
//!   (F2), where the memory climbs monotonically to the final memory.
//! - [`Role::Main`]: the rest; one model step each.
//!
//! Example: the anchored lowering of `t = op(x)` is `ALLOC t -> op -> FREE x`
//! (when `op` is the last reader of `x`): the ALLOC folds forward into the op,
//! the FREE folds back, and the three nodes become one main step with profile
//! `(+|t|, +|t|, +|t| - |x|)`. A random-layered graph of k ops (3k nodes)
//! typically reduces to about k main steps.
//!
//! Ties are broken by node index, so the reduction is deterministic.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};

use crate::graph::{Graph, NodeIdx};

/// How the model treats a cluster.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Role {
    /// One model step.
    Main,
    /// Runs as soon as ready, inside the previous step (memory can only fall).
    Absorbed,
    /// Runs after everything else (memory rises to the final memory).
    Tail,
}

/// A run of original nodes executed contiguously.
#[derive(Debug, Clone)]
pub(crate) struct Cluster {
    /// The original nodes, in the order they run.
    pub members: Vec<NodeIdx>,
    /// Sum of the members' deltas.
    pub total: i64,
    /// Largest prefix sum of the members' deltas (at least the first delta).
    pub peak: i64,
    pub role: Role,
}

/// The contracted graph: clusters in a topological order, with distinct
/// cluster edges.
#[derive(Debug, Clone)]
pub(crate) struct Reduced {
    pub clusters: Vec<Cluster>,
    pub preds: Vec<Vec<usize>>,
    pub succs: Vec<Vec<usize>>,
    /// Indices of the main clusters, in topological order.
    pub main: Vec<usize>,
    /// Position of each cluster in `main` (usize::MAX if not main).
    pub main_pos: Vec<usize>,
}

impl Reduced {
    /// Number of model steps.
    pub fn steps(&self) -> usize {
        self.main.len()
    }
}

/// Contracts `g` (when `contract` is false every node stays a main cluster of
/// its own: the plain time-indexed model of the issue, kept for tests and
/// measurements).
///
/// # Complexity
/// O((n + m) · s) for clusters of at most s nodes (each re-examination scans
/// the cluster's edges), O(n log n) for the merges themselves.
pub(crate) fn reduce(g: &Graph, contract: bool) -> Reduced {
    let mut clustering = Clustering::singletons(g);
    if contract {
        clustering.contract(g);
    }
    // Renumber the live clusters in a topological order (ties: smallest member).
    let ids = clustering.live_ids();
    let succ_sets = clustering.edges(g, &ids);
    let topo = topo_order(&succ_sets, |i| clustering.first_member(ids[i]));
    let (mut clusters, preds, succs) = clustering.in_order(&ids, &topo, &succ_sets, contract);
    if contract {
        mark_tails(&mut clusters, &succs);
    }
    let (main, main_pos) = main_steps(&clusters);
    Reduced {
        clusters,
        preds,
        succs,
        main,
        main_pos,
    }
}

/// Clusters under contraction, indexed by id (a node's index at the start;
/// a merge keeps one of the two ids).
struct Clustering {
    /// Per node, the id of its cluster.
    owner: Vec<usize>,
    /// Per id, the members in the order they run (empty once merged away).
    seq: Vec<VecDeque<NodeIdx>>,
    /// Per id, the profile (total, peak).
    prof: Vec<(i64, i64)>,
    /// Per id, whether it is still a cluster (not merged into another).
    alive: Vec<bool>,
}

impl Clustering {
    /// Every node a cluster of its own.
    fn singletons(g: &Graph) -> Self {
        let n = g.node_count();
        Clustering {
            owner: (0..n).collect(),
            seq: g.nodes().map(|v| VecDeque::from([v])).collect(),
            prof: g.nodes().map(|v| (g.delta(v), g.delta(v))).collect(),
            alive: vec![true; n],
        }
    }

    /// Applies the two contractions until nothing changes: every cluster is
    /// examined, and again (with its neighbours) after each merge it takes
    /// part in.
    fn contract(&mut self, g: &Graph) {
        let mut stack: Vec<usize> = (0..self.alive.len()).rev().collect();
        while let Some(c) = stack.pop() {
            if !self.alive[c] {
                continue;
            }
            if let Some(m) = self.fold(g, c) {
                stack.push(m);
                self.push_neighbours(g, m, &mut stack);
            }
        }
    }

    /// Folds cluster `c` back (F1) into its one predecessor cluster or, if
    /// it cannot, forward (F2) into its one successor cluster; returns the
    /// merged cluster's id, or `None` if neither applies.
    fn fold(&mut self, g: &Graph, c: usize) -> Option<usize> {
        let (total, peak) = self.prof[c];
        let merged = if peak <= 0 {
            self.single_neighbour(g, c, false).map(|u| self.merge(u, c))
        } else {
            None
        };
        merged.or_else(|| {
            if total >= 0 && peak <= total {
                self.single_neighbour(g, c, true).map(|s| self.merge(c, s))
            } else {
                None
            }
        })
    }

    /// Pushes onto `stack` the cluster of every successor and predecessor
    /// of `m`'s members, other than `m` (repeats included).
    fn push_neighbours(&self, g: &Graph, m: usize, stack: &mut Vec<usize>) {
        for &v in &self.seq[m] {
            for &w in g.succs(v).iter().chain(g.preds(v)) {
                let o = self.owner[w as usize];
                if o != m {
                    stack.push(o);
                }
            }
        }
    }

    /// The one cluster other than `c` holding every successor (`forward`) or
    /// every predecessor of `c`'s members; `None` if there are none or several.
    fn single_neighbour(&self, g: &Graph, c: usize, forward: bool) -> Option<usize> {
        let mut found = None;
        for &v in &self.seq[c] {
            let next = if forward { g.succs(v) } else { g.preds(v) };
            for &w in next {
                let o = self.owner[w as usize];
                if o == c {
                    continue;
                }
                match found {
                    None => found = Some(o),
                    Some(f) if f != o => return None,
                    _ => {}
                }
            }
        }
        found
    }

    /// Merges cluster `a` followed by cluster `b`; returns the surviving id (the
    /// larger one keeps its storage, the smaller one's members are relabelled).
    fn merge(&mut self, a: usize, b: usize) -> usize {
        let Clustering {
            owner,
            seq,
            prof,
            alive,
        } = self;
        let (ta, pa) = prof[a];
        let (tb, pb) = prof[b];
        let joined = (ta + tb, pa.max(ta + pb));
        let (keep, gone) = if seq[a].len() >= seq[b].len() {
            let moved = std::mem::take(&mut seq[b]);
            for &v in &moved {
                owner[v as usize] = a;
            }
            seq[a].extend(moved);
            (a, b)
        } else {
            let moved = std::mem::take(&mut seq[a]);
            for &v in moved.iter().rev() {
                owner[v as usize] = b;
                seq[b].push_front(v);
            }
            (b, a)
        };
        alive[gone] = false;
        prof[keep] = joined;
        keep
    }

    /// The ids of the live clusters, increasing.
    fn live_ids(&self) -> Vec<usize> {
        (0..self.alive.len()).filter(|&c| self.alive[c]).collect()
    }

    /// The smallest member of cluster `c` (the topological order's tie-break).
    fn first_member(&self, c: usize) -> NodeIdx {
        self.seq[c].iter().copied().min().unwrap_or(0)
    }

    /// Per live cluster (numbered by its position in `ids`), its distinct
    /// successor clusters, increasing.
    fn edges(&self, g: &Graph, ids: &[usize]) -> Vec<Vec<usize>> {
        let mut index = vec![usize::MAX; self.alive.len()];
        for (i, &c) in ids.iter().enumerate() {
            index[c] = i;
        }
        let mut succ_sets: Vec<Vec<usize>> = vec![Vec::new(); ids.len()];
        for u in g.nodes() {
            let cu = index[self.owner[u as usize]];
            for &v in g.succs(u) {
                let cv = index[self.owner[v as usize]];
                if cu != cv {
                    succ_sets[cu].push(cv);
                }
            }
        }
        for s in &mut succ_sets {
            s.sort_unstable();
            s.dedup();
        }
        succ_sets
    }

    /// The live clusters (`ids`, with edges `succ_sets`) listed in the order
    /// `topo`, with their predecessors and successors renumbered to match.
    /// Roles: [`Role::Absorbed`] if `contract` and `peak <= 0`, else
    /// [`Role::Main`].
    fn in_order(
        &self,
        ids: &[usize],
        topo: &[usize],
        succ_sets: &[Vec<usize>],
        contract: bool,
    ) -> (Vec<Cluster>, Vec<Vec<usize>>, Vec<Vec<usize>>) {
        let k = ids.len();
        let mut rank = vec![0usize; k];
        for (r, &i) in topo.iter().enumerate() {
            rank[i] = r;
        }
        let mut clusters = Vec::with_capacity(k);
        let mut succs = vec![Vec::new(); k];
        let mut preds = vec![Vec::new(); k];
        for &i in topo {
            let c = ids[i];
            let (total, peak) = self.prof[c];
            let role = if contract && peak <= 0 {
                Role::Absorbed
            } else {
                Role::Main
            };
            clusters.push(Cluster {
                members: self.seq[c].iter().copied().collect(),
                total,
                peak,
                role,
            });
            let r = rank[i];
            for &j in &succ_sets[i] {
                succs[r].push(rank[j]);
                preds[rank[j]].push(r);
            }
        }
        for list in succs.iter_mut().chain(preds.iter_mut()) {
            list.sort_unstable();
        }
        (clusters, preds, succs)
    }
}

/// A topological order of the clusters with edges `succ_sets`, ties broken
/// by the smallest `first` (then the smallest index): Kahn's algorithm on a
/// min-heap.
fn topo_order(succ_sets: &[Vec<usize>], first: impl Fn(usize) -> NodeIdx) -> Vec<usize> {
    let k = succ_sets.len();
    let mut indeg = vec![0usize; k];
    for s in succ_sets {
        for &v in s {
            indeg[v] += 1;
        }
    }
    let mut heap: BinaryHeap<Reverse<(NodeIdx, usize)>> = (0..k)
        .filter(|&i| indeg[i] == 0)
        .map(|i| Reverse((first(i), i)))
        .collect();
    let mut topo = Vec::with_capacity(k);
    while let Some(Reverse((_, i))) = heap.pop() {
        topo.push(i);
        for &v in &succ_sets[i] {
            indeg[v] -= 1;
            if indeg[v] == 0 {
                heap.push(Reverse((first(v), v)));
            }
        }
    }
    debug_assert_eq!(topo.len(), k, "contractions keep the graph acyclic");
    topo
}

/// Turns [`Role::Tail`] every main cluster that can rise only to its end
/// value and whose successors are all tail clusters, from the last cluster
/// back (`clusters` in topological order, successors `succs`).
fn mark_tails(clusters: &mut [Cluster], succs: &[Vec<usize>]) {
    for c in (0..clusters.len()).rev() {
        let cl = &clusters[c];
        let rises_to_end = cl.total >= 0 && cl.peak <= cl.total;
        if cl.role == Role::Main
            && rises_to_end
            && succs[c].iter().all(|&s| clusters[s].role == Role::Tail)
        {
            clusters[c].role = Role::Tail;
        }
    }
}

/// The main clusters in order, and each cluster's position among them
/// (`usize::MAX` if not main).
fn main_steps(clusters: &[Cluster]) -> (Vec<usize>, Vec<usize>) {
    let k = clusters.len();
    let main: Vec<usize> = (0..k).filter(|&c| clusters[c].role == Role::Main).collect();
    let mut main_pos = vec![usize::MAX; k];
    for (p, &c) in main.iter().enumerate() {
        main_pos[c] = p;
    }
    (main, main_pos)
}
