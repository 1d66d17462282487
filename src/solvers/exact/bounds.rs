//! Admissible lower bounds (F4 and the final memory).
//!
//! After a node `v` has run, every buffer whose ALLOC is `v` or an ancestor
//! of `v`, and whose FREE is a strict descendant of `v` (or which is never
//! freed), is live in every schedule. [`Bounds::node`] is that sum per node
//! (the static F4 bound); its maximum, with the final memory, bounds the
//! optimum of the whole graph ([`Bounds::global`]).
//!
//! [`Bounds::state`] sharpens it for a downset `S`: after `v` (not in `S`)
//! has run, a buffer is certainly live if its ALLOC is in `S` or an ancestor
//! of `v`, and its FREE is a strict descendant of `v` or absent. So the
//! bound adds, to `node[v]`, the buffers live in `S` whose FREE descends from
//! `v` and whose ALLOC is not already counted.
//!
//! [`Bounds::last_free`] is another bound for `S`, on the peak of a
//! completion *counting the memory of `S` itself* (the search's peak so far
//! always does). Let `F` be the final memory. In any
//! completion of `S`, let `f` be the last node with delta < 0 to run; `f` has
//! no strict descendant with delta < 0. The nodes after it have delta >= 0
//! and are no ancestors of a node with delta < 0 (those all ran before or
//! are `f`). So just before `f` the memory is `F - delta(f) - (their sum)
//! >= F + min |delta(f)| - Z`, the minimum over the unexecuted nodes with
//! delta < 0 and no such descendant, `Z` the sum of the unexecuted positive
//! nodes that are no ancestors of a node with delta < 0. On a fork-join
//! whose outputs stay live to the end this is the final memory plus the
//! least input still to be freed. (Just before `f` may be `S` itself, hence
//! the memory of `S` in what it bounds.)
//!
//! **Chains** sharpen [`Bounds::state`] further. A chain is a sequence of
//! buffers `c_0, c_1, ...` where the ALLOC of `c_{i+1}` is an ancestor of
//! the FREE of `c_i` (and comes later in the stored topological order): once
//! `c_i` is freed, `c_{i+1}` has been allocated. Chains are disjoint, built
//! once per graph (each buffer takes the largest unclaimed candidate as its
//! successor). In a downset `S`, let `c_f` be the last buffer of a chain
//! whose ALLOC is in `S` (its *front*). After `v` runs, let `m >= f` be the
//! first index whose FREE is absent or a strict descendant of `v`: one of
//! `c_f..=c_m` is live (walk from `c_f`: each freed one has allocated the
//! next, and `c_m` cannot be freed yet), so memory holds at least their least
//! size. None of them is counted by the other terms when `c_f`'s FREE is not
//! a descendant of `v` and `c_m`'s ALLOC is neither `v` nor an ancestor of
//! `v` (the others are not in `S` and their FREEs do not descend from `v`);
//! the bound adds that least size for every such chain. On a fork-join it is
//! what the other branches must hold, at least, while one branch runs.
//!
//! All are tested against brute force in `tests/facts_f3_f4.rs`.

use super::moves::Reach;
use super::state::has;
use crate::graph::{Graph, NodeIdx};

/// One buffer: its ALLOC, its FREE (if any) and its size.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Buffer {
    alloc: NodeIdx,
    free: Option<NodeIdx>,
    size: i64,
}

/// Per-node F4 bounds and the data for per-state bounds.
pub(crate) struct Bounds {
    buffers: Vec<Buffer>,
    node: Vec<i64>,
    global: i64,
    /// Nodes with delta < 0 and no strict descendant with delta < 0.
    last_neg: Vec<NodeIdx>,
    /// Positive nodes that are no ancestors of a node with delta < 0.
    tail: Vec<NodeIdx>,
    final_memory: i64,
    /// Chains of buffers (indices into `buffers`), each at least two long.
    chains: Vec<Vec<u32>>,
}

impl Bounds {
    /// # Complexity
    /// O(buffers * n) bit tests.
    pub(crate) fn new(g: &Graph, reach: &Reach) -> Self {
        let buffers: Vec<Buffer> = g
            .nodes()
            .filter(|&v| g.delta(v) > 0)
            .map(|a| Buffer {
                alloc: a,
                free: g.partner(a),
                size: g.delta(a),
            })
            .collect();
        let mut node = vec![0i64; g.node_count()];
        for b in &buffers {
            for v in g.nodes() {
                let after_alloc = v == b.alloc || has(reach.anc(v), b.alloc);
                let before_free = b.free.is_none_or(|f| has(reach.anc(f), v));
                if after_alloc && before_free {
                    node[v as usize] += b.size;
                }
            }
        }
        let global = node
            .iter()
            .copied()
            .chain([g.final_memory(), 0])
            .max()
            .unwrap_or(0);
        let neg: Vec<NodeIdx> = g.nodes().filter(|&v| g.delta(v) < 0).collect();
        let below = |x: NodeIdx| neg.iter().any(|&y| has(reach.anc(y), x));
        let last_neg = neg.iter().copied().filter(|&f| !below(f)).collect();
        let tail = g.nodes().filter(|&x| g.delta(x) > 0 && !below(x)).collect();
        let chains = chains(g, reach, &buffers);
        Bounds {
            buffers,
            node,
            global,
            last_neg,
            tail,
            final_memory: g.final_memory(),
            chains,
        }
    }

    /// The F4 bound of node `v`.
    #[cfg(test)]
    pub(crate) fn node(&self, v: NodeIdx) -> i64 {
        self.node[v as usize]
    }

    /// max(0, final memory, max_v node(v)): a bound on the whole graph's optimum.
    pub(crate) fn global(&self) -> i64 {
        self.global
    }

    /// A bound on the peak of every completion of downset `set`, from the
    /// nodes not yet run; `scratch` is scratch space. Returns at least
    /// `floor` (pass a bound already known, to skip nodes that cannot beat it).
    ///
    /// # Complexity
    /// O(n * (live buffers + chain buffers not in `set`)) bit tests.
    pub(crate) fn state(
        &self,
        g: &Graph,
        reach: &Reach,
        set: &[u64],
        scratch: &mut LiveScratch,
        floor: i64,
    ) -> i64 {
        let LiveScratch { live, fronts } = scratch;
        live.clear();
        live.extend(
            self.buffers
                .iter()
                .filter(|b| has(set, b.alloc) && b.free.is_none_or(|f| !has(set, f))),
        );
        self.fronts(set, fronts);
        // Every term is a distinct live buffer or at most one (a front's chain).
        let total: i64 = live.iter().map(|b| b.size).sum();
        let mut best = floor;
        for v in g.nodes() {
            if has(set, v) || self.node[v as usize] + total <= best {
                continue;
            }
            let anc = reach.anc(v);
            // Whether `v` is a strict ancestor of `b`'s FREE (or it has none).
            let freed_after = |b: &Buffer| b.free.is_none_or(|f| has(reach.anc(f), v));
            let mut sum = self.node[v as usize];
            for b in live.iter() {
                if !has(anc, b.alloc) && freed_after(b) {
                    sum += b.size;
                }
            }
            for &(chain, front) in fronts.iter() {
                sum += self.chain_hold(anc, v, &self.chains[chain][front..], &freed_after);
            }
            best = best.max(sum);
        }
        best
    }

    /// Per chain with a live front in `set` that is not its last buffer:
    /// (chain, front position).
    fn fronts(&self, set: &[u64], fronts: &mut Vec<(usize, usize)>) {
        fronts.clear();
        for (c, chain) in self.chains.iter().enumerate() {
            let Some(f) = chain
                .iter()
                .rposition(|&b| has(set, self.buffers[b as usize].alloc))
            else {
                continue;
            };
            let front = &self.buffers[chain[f] as usize];
            if f + 1 < chain.len() && front.free.is_none_or(|x| !has(set, x)) {
                fronts.push((c, f));
            }
        }
    }

    /// What the chain from its front `rest[0]` holds for certain after `v`
    /// runs, beyond the other terms (see the module docs); `anc` is `v`'s
    /// ancestors.
    fn chain_hold(
        &self,
        anc: &[u64],
        v: NodeIdx,
        rest: &[u32],
        freed_after: &impl Fn(&Buffer) -> bool,
    ) -> i64 {
        let front = &self.buffers[rest[0] as usize];
        if freed_after(front) {
            return 0; // counted among the live buffers
        }
        let mut least = front.size;
        for &b in &rest[1..] {
            let b = &self.buffers[b as usize];
            least = least.min(b.size);
            if freed_after(b) {
                let counted = b.alloc == v || has(anc, b.alloc);
                return if counted { 0 } else { least };
            }
        }
        0 // the chain may be freed entirely before `v`
    }
}

/// Disjoint chains of buffers (see the module docs): each buffer, in the
/// order of its ALLOC, takes as successor the largest buffer not yet taken
/// whose ALLOC is an ancestor of its FREE and later in the stored
/// topological order. Chains of one buffer are dropped.
///
/// # Complexity
/// O(buffers^2) bit tests.
fn chains(g: &Graph, reach: &Reach, buffers: &[Buffer]) -> Vec<Vec<u32>> {
    let pos = crate::graph::analysis::positions(g.topo_order(), g.node_count());
    let mut by_alloc: Vec<u32> = (0..buffers.len() as u32).collect();
    by_alloc.sort_by_key(|&b| pos[buffers[b as usize].alloc as usize]);
    let mut next = vec![u32::MAX; buffers.len()];
    let mut taken = vec![false; buffers.len()];
    for &b in &by_alloc {
        let buf = &buffers[b as usize];
        let Some(free) = buf.free else { continue };
        let after = pos[buf.alloc as usize];
        let pick = (0..buffers.len() as u32)
            .filter(|&c| {
                let a = buffers[c as usize].alloc;
                !taken[c as usize] && pos[a as usize] > after && has(reach.anc(free), a)
            })
            .max_by_key(|&c| (buffers[c as usize].size, std::cmp::Reverse(c)));
        if let Some(c) = pick {
            next[b as usize] = c;
            taken[c as usize] = true;
        }
    }
    let mut chains = Vec::new();
    for &b in &by_alloc {
        if taken[b as usize] || next[b as usize] == u32::MAX {
            continue; // not a chain head, or a chain of one
        }
        let mut chain = vec![b];
        let mut c = next[b as usize];
        while c != u32::MAX {
            chain.push(c);
            c = next[c as usize];
        }
        chains.push(chain);
    }
    chains
}

impl Bounds {
    /// The last-FREE bound of downset `set` (see the module docs): every
    /// completion peaks at or above it, counting the memory of `set`;
    /// `i64::MIN` if no node with delta < 0 is left.
    ///
    /// # Complexity
    /// O(n) bit tests.
    pub(crate) fn last_free(&self, g: &Graph, set: &[u64]) -> i64 {
        let least = self
            .last_neg
            .iter()
            .filter(|&&f| !has(set, f))
            .map(|&f| -g.delta(f))
            .min();
        let Some(least) = least else {
            return i64::MIN;
        };
        let z: i64 = self
            .tail
            .iter()
            .filter(|&&x| !has(set, x))
            .map(|&x| g.delta(x))
            .sum();
        self.final_memory + least - z
    }
}

/// Scratch for [`Bounds::state`]: the live buffers and the chain fronts.
#[derive(Default)]
pub(crate) struct LiveScratch {
    live: Vec<Buffer>,
    fronts: Vec<(usize, usize)>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::GraphBuilder;

    #[test]
    fn f4_counts_inputs_and_outputs_live_at_an_op() {
        // a(4) -> op1 -> b(ALLOC 6, anchored) -> op2 -> FREE a, FREE b.
        let mut bld = GraphBuilder::new();
        let a = bld.alloc(4, 0);
        let op1 = bld.op("op1");
        let b = bld.alloc(6, 1);
        let op2 = bld.op("op2");
        let fa = bld.free(0);
        let fb = bld.free(1);
        for (u, v) in [
            (a, op1),
            (op1, b),
            (b, op2),
            (op1, op2),
            (op2, fa),
            (op2, fb),
        ] {
            bld.edge(u, v);
        }
        let g = bld.build().unwrap();
        let reach = Reach::new(&g);
        let bounds = Bounds::new(&g, &reach);
        assert_eq!(bounds.node(op2 as u32), 10);
        assert_eq!(bounds.node(op1 as u32), 4);
        assert_eq!(bounds.global(), 10);
    }

    #[test]
    fn last_free_adds_the_least_input_still_to_free_to_the_final_memory() {
        // src(5) read by a(3) and b(4), whose outputs stay live: src's FREE
        // runs after both, so some moment holds 5 + 3 + 4 (F4 sees 5 + 4).
        use crate::corpus::program::{AllocEncoding, TensorProgram};
        let mut p = TensorProgram::new();
        let src = p.op1("src", &[], 5);
        p.op1("a", &[src], 3);
        p.op1("b", &[src], 4);
        let g = p.to_graph(AllocEncoding::Anchored).unwrap();
        let reach = Reach::new(&g);
        let bounds = Bounds::new(&g, &reach);
        let empty = vec![0u64; 1];
        assert_eq!(bounds.last_free(&g, &empty), 12);
        assert_eq!(bounds.global(), 9);
        // Once everything ran, no FREE is left: no bound.
        let all = vec![(1u64 << g.node_count()) - 1];
        assert_eq!(bounds.last_free(&g, &all), i64::MIN);
    }
}
