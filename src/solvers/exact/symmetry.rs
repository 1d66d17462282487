//! Identical branches: groups of node-disjoint subgraphs that a graph
//! automorphism permutes, and the canonical form of a state under them.
//!
//! A *group* is `k >= 2` branches with the same number of nodes, matched
//! position by position, such that swapping branch 0 with branch `b` (and
//! fixing every other node) maps edges to edges and keeps every delta and
//! every ALLOC-FREE pairing. Those swaps generate every permutation of the
//! branches, each an automorphism of the graph; the groups act on disjoint
//! nodes, so their permutations commute.
//!
//! An automorphism `s` maps a downset to a downset with the same memory
//! (F3), maps moves to moves with the same block, and keeps the F4 bounds
//! (they are built from edges, deltas and pairings only). So the best
//! completions of `S` and `s(S)` peak the same, and the search may store one
//! state per orbit: [`Symmetry::canonicalize`] sorts the branches' bit
//! patterns within each group, which picks one member of the orbit.
//!
//! Finding groups: colour refinement (kind and delta, then the colours of
//! predecessors, successors and partner) proposes them. Nodes whose colour
//! is unique are fixed; the connected components of the rest (edges and
//! ALLOC-FREE pairs as links) with the same colours are candidate branches,
//! matched position by position through their colours (components in which a
//! colour repeats are skipped). Every swap is then checked exactly, so the
//! colours only propose and never decide.

use std::collections::HashMap;

use super::state;
use crate::graph::{Graph, NodeIdx, NONE};

/// Most nodes a branch may have (its pattern is one `u128`).
pub(crate) const MAX_BRANCH_NODES: usize = 128;

/// Branches that may be permuted: `branches[b][p]` is the node at position
/// `p` of branch `b`.
#[derive(Debug, Clone)]
struct Group {
    branches: Vec<Vec<NodeIdx>>,
}

/// Every group of identical branches of a graph (possibly none).
#[derive(Debug, Clone, Default)]
pub(crate) struct Symmetry {
    groups: Vec<Group>,
    /// Per node: (group, branch, position), or `None` if the node is fixed.
    place: Vec<Option<(u32, u32, u32)>>,
}

/// Which branch of the stored state each branch of the actual state is:
/// `perm[group][b]` is the actual branch shown as branch `b`.
pub(crate) type Frame = Vec<Vec<u32>>;

impl Symmetry {
    /// No symmetry: canonicalisation does nothing.
    pub(crate) fn none() -> Self {
        Symmetry::default()
    }

    /// The groups of identical branches of `g`.
    ///
    /// # Complexity
    /// O(rounds * (n + m) log n) for the refinement, rounds <= 256; O(n + m)
    /// to check the swaps.
    pub(crate) fn find(g: &Graph) -> Self {
        let n = g.node_count();
        let colour = refine(g);
        let mut count: HashMap<u64, u32> = HashMap::new();
        for &c in &colour {
            *count.entry(c).or_default() += 1;
        }
        let fixed: Vec<bool> = colour.iter().map(|c| count[c] == 1).collect();
        let comp = components(g, &fixed);
        // Components keyed by their sorted colours.
        let mut members: HashMap<NodeIdx, Vec<NodeIdx>> = HashMap::new();
        for v in g.nodes().filter(|&v| !fixed[v as usize]) {
            members.entry(comp[v as usize]).or_default().push(v);
        }
        let mut by_shape: HashMap<Vec<u64>, Vec<Vec<NodeIdx>>> = HashMap::new();
        let mut roots: Vec<NodeIdx> = members.keys().copied().collect();
        roots.sort_unstable();
        for r in roots {
            let mut nodes = members.remove(&r).unwrap();
            if nodes.len() > MAX_BRANCH_NODES {
                continue;
            }
            nodes.sort_by_key(|&v| colour[v as usize]);
            let shape: Vec<u64> = nodes.iter().map(|&v| colour[v as usize]).collect();
            if shape.windows(2).any(|w| w[0] == w[1]) {
                continue; // positions would be ambiguous
            }
            by_shape.entry(shape).or_default().push(nodes);
        }
        let mut groups: Vec<Group> = by_shape
            .into_values()
            .filter(|bs| bs.len() >= 2)
            .map(|branches| Group { branches })
            .filter(|grp| (1..grp.branches.len()).all(|b| swap_is_automorphism(g, grp, b)))
            .collect();
        groups.sort_by_key(|grp| grp.branches[0][0]);
        let mut place = vec![None; n];
        for (gi, grp) in groups.iter().enumerate() {
            for (b, branch) in grp.branches.iter().enumerate() {
                for (p, &v) in branch.iter().enumerate() {
                    place[v as usize] = Some((gi as u32, b as u32, p as u32));
                }
            }
        }
        Symmetry { groups, place }
    }

    /// Number of groups and of branches in all of them.
    pub(crate) fn sizes(&self) -> (usize, usize) {
        let branches = self.groups.iter().map(|g| g.branches.len()).sum();
        (self.groups.len(), branches)
    }

    /// The frame that shows every branch as itself.
    pub(crate) fn identity(&self) -> Frame {
        self.groups
            .iter()
            .map(|g| (0..g.branches.len() as u32).collect())
            .collect()
    }

    /// Rewrites `set` into its canonical form (within each group, branch
    /// patterns in decreasing order). If `moved` is given, it receives, per
    /// group, which branch of the old set became branch `b`. Returns whether
    /// `set` changed.
    ///
    /// # Complexity
    /// O(branch nodes + k log k) per group.
    pub(crate) fn canonicalize(
        &self,
        set: &mut [u64],
        scratch: &mut Vec<(u128, u32)>,
        mut moved: Option<&mut Frame>,
    ) -> bool {
        let mut changed = false;
        for (gi, grp) in self.groups.iter().enumerate() {
            scratch.clear();
            for (b, branch) in grp.branches.iter().enumerate() {
                let mut pat = 0u128;
                for (p, &v) in branch.iter().enumerate() {
                    pat |= (state::has(set, v) as u128) << p;
                }
                scratch.push((pat, b as u32));
            }
            let sorted = scratch.windows(2).all(|w| w[0].0 >= w[1].0);
            if !sorted {
                scratch.sort_by(|x, y| y.0.cmp(&x.0).then(x.1.cmp(&y.1)));
                for (b, branch) in grp.branches.iter().enumerate() {
                    let pat = scratch[b].0;
                    for (p, &v) in branch.iter().enumerate() {
                        set_bit(set, v, pat >> p & 1 == 1);
                    }
                }
                changed = true;
            }
            if let Some(m) = moved.as_deref_mut() {
                m[gi].clear();
                m[gi].extend(scratch.iter().map(|&(_, b)| b));
            }
        }
        changed
    }

    /// Where node `v` of a stored state is in the actual state of `frame`.
    pub(crate) fn actual(&self, frame: &Frame, v: NodeIdx) -> NodeIdx {
        match self.place.get(v as usize).copied().flatten() {
            None => v,
            Some((gi, b, p)) => {
                self.groups[gi as usize].branches[frame[gi as usize][b as usize] as usize]
                    [p as usize]
            }
        }
    }

    /// The frame after a step: the old frame, then the step's `moved`.
    pub(crate) fn compose(frame: &Frame, moved: &Frame) -> Frame {
        frame
            .iter()
            .zip(moved)
            .map(|(f, m)| m.iter().map(|&b| f[b as usize]).collect())
            .collect()
    }
}

fn set_bit(set: &mut [u64], v: NodeIdx, on: bool) {
    let (w, b) = ((v >> 6) as usize, v & 63);
    if on {
        set[w] |= 1 << b;
    } else {
        set[w] &= !(1 << b);
    }
}

/// A 64-bit mix (splitmix64's finaliser): colours are hashes.
fn mix(mut x: u64) -> u64 {
    x ^= x >> 30;
    x = x.wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x ^= x >> 27;
    x = x.wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

fn combine(h: u64, x: u64) -> u64 {
    mix(h ^ x.wrapping_add(0x9e37_79b9_7f4a_7c15).wrapping_add(h << 6))
}

/// Most refinement rounds: enough for branches this deep; a colouring cut
/// short is only coarser, and the swaps are checked anyway.
const MAX_ROUNDS: usize = 256;

/// Colour refinement until the number of colours stops growing (or
/// [`MAX_ROUNDS`]).
fn refine(g: &Graph) -> Vec<u64> {
    let mut colour: Vec<u64> = g
        .nodes()
        .map(|v| combine(mix(g.kind(v) as u64), g.delta(v) as u64))
        .collect();
    let distinct = |c: &[u64]| {
        let mut s = c.to_vec();
        s.sort_unstable();
        s.dedup();
        s.len()
    };
    let mut classes = distinct(&colour);
    let mut buf = Vec::new();
    for _ in 0..g.node_count().min(MAX_ROUNDS) {
        let next: Vec<u64> = g
            .nodes()
            .map(|v| {
                let mut h = colour[v as usize];
                for (tag, list) in [(1u64, g.preds(v)), (2, g.succs(v))] {
                    buf.clear();
                    buf.extend(list.iter().map(|&u| colour[u as usize]));
                    buf.sort_unstable();
                    h = combine(h, tag);
                    for &c in &buf {
                        h = combine(h, c);
                    }
                }
                let partner = g.partner(v).map_or(0, |p| colour[p as usize]);
                combine(combine(h, 3), partner)
            })
            .collect();
        let now = distinct(&next);
        colour = next;
        if now == classes {
            break;
        }
        classes = now;
    }
    colour
}

/// Union-find components of the non-fixed nodes, linked by edges and pairs.
fn components(g: &Graph, fixed: &[bool]) -> Vec<NodeIdx> {
    let mut parent: Vec<NodeIdx> = g.nodes().collect();
    fn root(parent: &mut [NodeIdx], mut v: NodeIdx) -> NodeIdx {
        while parent[v as usize] != v {
            parent[v as usize] = parent[parent[v as usize] as usize];
            v = parent[v as usize];
        }
        v
    }
    for u in g.nodes().filter(|&u| !fixed[u as usize]) {
        let links = g.succs(u).iter().copied().chain(g.partner(u));
        for v in links.filter(|&v| !fixed[v as usize]) {
            let (a, b) = (root(&mut parent, u), root(&mut parent, v));
            if a != b {
                parent[a.max(b) as usize] = a.min(b);
            }
        }
    }
    g.nodes().map(|v| root(&mut parent, v)).collect()
}

/// Whether swapping branch 0 and branch `b` (position by position, every
/// other node fixed) keeps edges, deltas, kinds and pairings.
fn swap_is_automorphism(g: &Graph, grp: &Group, b: usize) -> bool {
    let mut image = vec![NONE; g.node_count()];
    for (&x, &y) in grp.branches[0].iter().zip(&grp.branches[b]) {
        image[x as usize] = y;
        image[y as usize] = x;
    }
    let map = |v: NodeIdx| match image[v as usize] {
        NONE => v,
        w => w,
    };
    let same_set = |a: &[NodeIdx], b: &[NodeIdx]| {
        let mut a: Vec<NodeIdx> = a.iter().map(|&v| map(v)).collect();
        let mut b = b.to_vec();
        a.sort_unstable();
        a.dedup();
        b.sort_unstable();
        b.dedup();
        a == b
    };
    grp.branches[0].iter().chain(&grp.branches[b]).all(|&x| {
        let y = map(x);
        g.kind(x) == g.kind(y)
            && g.delta(x) == g.delta(y)
            && g.partner(x).map(map) == g.partner(y)
            && same_set(g.preds(x), g.preds(y))
            && same_set(g.succs(x), g.succs(y))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::corpus::program::{AllocEncoding, TensorProgram};

    fn fork_join(sizes: &[(u64, u64)], enc: AllocEncoding) -> Graph {
        let mut p = TensorProgram::new();
        let src = p.op1("src", &[], 5);
        let mut outs = Vec::new();
        for (i, &(a, b)) in sizes.iter().enumerate() {
            let x = p.op1(format!("a{i}"), &[src], a);
            outs.push(p.op1(format!("b{i}"), &[x], b));
        }
        p.op1("join", &outs, 1);
        p.to_graph(enc).unwrap()
    }

    #[test]
    fn identical_branches_form_one_group_and_different_ones_do_not() {
        for enc in [AllocEncoding::Anchored, AllocEncoding::Floating] {
            let g = fork_join(&[(3, 4); 5], enc);
            let s = Symmetry::find(&g);
            // ALLOC a, a, ALLOC b, b, FREE a, FREE b (after the join).
            assert_eq!(s.sizes(), (1, 5), "{enc:?}");
            assert_eq!(s.groups[0].branches[0].len(), 6);
            let g = fork_join(&[(3, 4), (3, 4), (3, 5), (3, 4)], enc);
            assert_eq!(Symmetry::find(&g).sizes(), (1, 3), "{enc:?}");
            let g = fork_join(&[(3, 4), (2, 4), (3, 5)], enc);
            assert_eq!(Symmetry::find(&g).sizes(), (0, 0), "{enc:?}");
        }
    }

    #[test]
    fn canonical_form_is_the_same_for_every_member_of_an_orbit() {
        let g = fork_join(&[(3, 4); 4], AllocEncoding::Anchored);
        let s = Symmetry::find(&g);
        let grp = &s.groups[0];
        let words = state::words(g.node_count());
        // Branch 1 two nodes in, branch 3 one node in, and the reverse.
        let mut x = vec![0u64; words];
        let mut y = vec![0u64; words];
        for (set, (long, short)) in [(&mut x, (1, 3)), (&mut y, (3, 0))] {
            state::add(set, grp.branches[long][0]);
            state::add(set, grp.branches[long][1]);
            state::add(set, grp.branches[short][0]);
        }
        let mut scratch = Vec::new();
        let mut moved = s.identity();
        let before = x.clone();
        assert!(s.canonicalize(&mut x, &mut scratch, Some(&mut moved)));
        s.canonicalize(&mut y, &mut scratch, None);
        assert_eq!(x, y);
        // Mapping the canonical set through the frame gives back the original.
        let frame = Symmetry::compose(&s.identity(), &moved);
        let mut back = vec![0u64; words];
        state::for_each(&x, |v| state::add(&mut back, s.actual(&frame, v)));
        assert_eq!(back, before);
        assert!(
            !s.canonicalize(&mut x, &mut scratch, None),
            "already canonical"
        );
    }
}
