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
//! **Hills** ([`Bounds::hills`]): from a downset `S`, take for each chain
//! with a buffer still to allocate the pair `c_p, c_{p+1}` (`p` at or after
//! the front `f`, or 0 if none is allocated) of largest size sum `H`; both
//! are live just after the later of their ALLOCs, the chain's *hill
//! moment*. Let `c_m` (`m > p`) be the first buffer whose FREE is absent or
//! descends from the hill ALLOCs of every other chain (no such buffer: the
//! chain is dropped), so it outlives every other hill moment. From the hill
//! moment on, one of `c_{p+1}..=c_m` is live (the walk above), at least
//! `post` = their least size; before it, one of `c_f..=c_m` is, at least
//! `low` (0 if no ALLOC of the chain is in `S`). In any completion the
//! chains reach their hill moments in some order `π`; at the `j`-th, that
//! chain holds `H`, the earlier ones `post` and the later ones `low`, in
//! distinct buffers. So the peak is at least `min over π of max_j (H_j +
//! sum_{i<j} post_i + sum_{i>j} low_i)`, and the minimising order sorts by
//! decreasing `H - post` (swapping two neighbours out of that order never
//! lowers the maximum, since `low <= post <= H`). Add the *residents*:
//! buffers live in `S`, other than the chains' fronts, whose FREE is absent
//! or descends from every hill ALLOC. Where branches hold their outputs
//! until a join, this is the bound of running the branches one after
//! another in the best order, plus what finished branches hold.
//!
//! The **merge bound** (`chain_merge.rs`) sees every hill of every chain
//! and merges them by Liu's rule; it joins the hill bound in
//! [`Bounds::state`].
//!
//! All are tested against brute force in `tests/facts_f3_f4.rs`.

use super::chain_merge::{MergeData, MergeScratch};
use super::moves::Reach;
use super::state::has;
use crate::graph::{Graph, NodeIdx};

/// One buffer: its ALLOC, its FREE (if any) and its size.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Buffer {
    pub(super) alloc: NodeIdx,
    pub(super) free: Option<NodeIdx>,
    pub(super) size: i64,
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
    /// What the merge bound precomputes per chain.
    merge: MergeData,
}

/// The graph's buffers: one per ALLOC (delta > 0).
fn buffers(g: &Graph) -> Vec<Buffer> {
    g.nodes()
        .filter(|&v| g.delta(v) > 0)
        .map(|a| Buffer {
            alloc: a,
            free: g.partner(a),
            size: g.delta(a),
        })
        .collect()
}

/// F4 per node: the bytes of every buffer live whenever the node runs
/// (allocated at or before it, freed after it).
///
/// # Complexity
/// O(buffers * n) bit tests.
fn node_bounds(g: &Graph, reach: &Reach, buffers: &[Buffer]) -> Vec<i64> {
    node_bounds_until(g, reach, buffers, &mut || false).expect("never stopped")
}

/// [`node_bounds`], or `None` once `stop()` says so (asked every 64 buffers).
fn node_bounds_until(
    g: &Graph,
    reach: &Reach,
    buffers: &[Buffer],
    stop: &mut impl FnMut() -> bool,
) -> Option<Vec<i64>> {
    let mut node = vec![0i64; g.node_count()];
    for (i, b) in buffers.iter().enumerate() {
        if i % 64 == 0 && stop() {
            return None;
        }
        for v in g.nodes() {
            let after_alloc = v == b.alloc || has(reach.anc(v), b.alloc);
            let before_free = b.free.is_none_or(|f| has(reach.anc(f), v));
            if after_alloc && before_free {
                node[v as usize] += b.size;
            }
        }
    }
    Some(node)
}

/// max(0, final memory, the largest node bound).
fn global_of(g: &Graph, node: &[i64]) -> i64 {
    node.iter()
        .copied()
        .chain([g.final_memory(), 0])
        .max()
        .unwrap_or(0)
}

/// [`Bounds::global`] alone, without the chains and the merge data.
///
/// # Complexity
/// O(buffers * n) bit tests.
pub(crate) fn global(g: &Graph, reach: &Reach) -> i64 {
    global_of(g, &node_bounds(g, reach, &buffers(g)))
}

impl Bounds {
    /// # Complexity
    /// O(buffers * n) bit tests.
    pub(crate) fn new(g: &Graph, reach: &Reach) -> Self {
        Self::new_until(g, reach, || false).expect("never stopped")
    }

    /// [`Bounds::new`], or `None` as soon as `stop()` says so (asked every
    /// 64 buffers or 1,024 nodes in each pass; the last one, the merge
    /// data, is linear and not asked: on 64,000 nodes the others take
    /// seconds).
    pub(crate) fn new_until(
        g: &Graph,
        reach: &Reach,
        mut stop: impl FnMut() -> bool,
    ) -> Option<Self> {
        let buffers = buffers(g);
        let node = node_bounds_until(g, reach, &buffers, &mut stop)?;
        let global = global_of(g, &node);
        let neg: Vec<NodeIdx> = g.nodes().filter(|&v| g.delta(v) < 0).collect();
        let below = |x: NodeIdx| neg.iter().any(|&y| has(reach.anc(y), x));
        let mut last_neg = Vec::new();
        for (i, &f) in neg.iter().enumerate() {
            if i % 1024 == 0 && stop() {
                return None;
            }
            if !below(f) {
                last_neg.push(f);
            }
        }
        let mut tail = Vec::new();
        for x in g.nodes() {
            if x % 1024 == 0 && stop() {
                return None;
            }
            if g.delta(x) > 0 && !below(x) {
                tail.push(x);
            }
        }
        let chains = chains(g, reach, &buffers, &mut stop)?;
        if stop() {
            return None;
        }
        let merge = MergeData::new(reach, &buffers, &chains);
        Some(Bounds {
            buffers,
            node,
            global,
            last_neg,
            tail,
            final_memory: g.final_memory(),
            chains,
            merge,
        })
    }

    /// The chains of buffers (indices for [`Bounds::buffer`]).
    pub(super) fn chains(&self) -> &[Vec<u32>] {
        &self.chains
    }

    /// What the merge bound precomputes per chain.
    pub(super) fn merge_data(&self) -> &MergeData {
        &self.merge
    }

    /// Buffer `i`.
    pub(super) fn buffer(&self, i: u32) -> &Buffer {
        &self.buffers[i as usize]
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
    /// nodes not yet run, their chains and the chains' hills; `scratch` is
    /// scratch space. Returns at least
    /// `floor` (pass a bound already known, to skip nodes that cannot beat it).
    /// Stops as soon as the bound reaches `cap` (the search's upper bound:
    /// such a state is dropped whatever its exact bound; `i64::MAX` for the
    /// full bound).
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
        cap: i64,
    ) -> i64 {
        let LiveScratch {
            live,
            starts,
            fronts,
            hills,
            merge,
        } = scratch;
        if floor >= cap {
            return floor;
        }
        self.starts(set, starts);
        live.clear();
        live.extend(
            self.buffers
                .iter()
                .filter(|b| has(set, b.alloc) && b.free.is_none_or(|f| !has(set, f))),
        );
        let floor = floor.max(self.hills(reach, set, starts, hills));
        if floor >= cap {
            return floor;
        }
        self.fronts(set, starts, fronts);
        if fronts.len() > MAX_FRONTS {
            fronts.clear(); // the chain term is skipped (always safe)
        }
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
            if best >= cap {
                return best;
            }
        }
        // Last: it is skipped when it cannot beat the rest.
        best.max(self.merged(reach, starts, live, best, merge))
    }

    /// Per chain, the position of its last buffer whose ALLOC is in `set`
    /// (its front), if any: what [`Bounds::fronts`] and [`Bounds::hills`]
    /// start from.
    fn starts(&self, set: &[u64], starts: &mut Vec<Option<usize>>) {
        starts.clear();
        starts.extend(self.chains.iter().map(|chain| {
            chain
                .iter()
                .rposition(|&b| has(set, self.buffers[b as usize].alloc))
        }));
    }

    /// Per chain with a live front in `set` that is not its last buffer:
    /// (chain, front position).
    fn fronts(&self, set: &[u64], starts: &[Option<usize>], fronts: &mut Vec<(usize, usize)>) {
        fronts.clear();
        for (c, (chain, &start)) in self.chains.iter().zip(starts).enumerate() {
            let Some(f) = start else { continue };
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
        for &b in rest.iter().skip(1).take(MAX_CHAIN_WALK) {
            let b = &self.buffers[b as usize];
            least = least.min(b.size);
            if freed_after(b) {
                let counted = b.alloc == v || has(anc, b.alloc);
                return if counted { 0 } else { least };
            }
        }
        0 // freed entirely before `v`, or further than the walk looks
    }
}

/// The chain term looks at most this many buffers past a front (0 past
/// that, which is always safe): on long chains (a CNN's backbone) a full
/// walk per node per state made the bound cost O(n^2).
const MAX_CHAIN_WALK: usize = 8;

/// The chain term is skipped when more chains than this have a live front:
/// it costs nodes * fronts per state, which on a 2,303-node training graph
/// with hundreds of fronts halved the states searched per second.
const MAX_FRONTS: usize = 32;

/// The hill bound is skipped (it is always safe to) when more chains than
/// this have hills: its pairwise condition costs chains^2 per state.
pub(super) const MAX_HILLS: usize = 64;

/// Disjoint chains of buffers (see the module docs): each buffer, in the
/// order of its ALLOC, takes as successor the largest buffer not yet taken
/// whose ALLOC is an ancestor of its FREE and later in the stored
/// topological order, and whose FREE (if any) descends from its ALLOC (so
/// the two are live together at some moment). Chains of one buffer are
/// dropped.
///
/// # Complexity
/// O(buffers^2) bit tests.
fn chains(
    g: &Graph,
    reach: &Reach,
    buffers: &[Buffer],
    stop: &mut impl FnMut() -> bool,
) -> Option<Vec<Vec<u32>>> {
    let pos = crate::graph::analysis::positions(g.topo_order(), g.node_count());
    let mut by_alloc: Vec<u32> = (0..buffers.len() as u32).collect();
    by_alloc.sort_by_key(|&b| pos[buffers[b as usize].alloc as usize]);
    let mut next = vec![u32::MAX; buffers.len()];
    let mut taken = vec![false; buffers.len()];
    for (i, &b) in by_alloc.iter().enumerate() {
        // Each step scans every buffer: O(buffers^2) bit tests in all.
        if i % 64 == 0 && stop() {
            return None;
        }
        let buf = &buffers[b as usize];
        let Some(free) = buf.free else { continue };
        let after = pos[buf.alloc as usize];
        let pick = (0..buffers.len() as u32)
            .filter(|&c| {
                let c = &buffers[c as usize];
                // c is allocated before b is freed, and b before c is freed.
                let overlap = has(reach.anc(free), c.alloc)
                    && c.free.is_none_or(|f| has(reach.anc(f), buf.alloc));
                pos[c.alloc as usize] > after && overlap
            })
            .filter(|&c| !taken[c as usize])
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
    Some(chains)
}

impl Bounds {
    /// The hill bound of downset `set` (see the module docs): every
    /// completion peaks at or above it; `i64::MIN` if no chain has a buffer
    /// left to allocate. `hills` is scratch space.
    ///
    /// # Complexity
    /// O(chain buffers + chains^2) bit tests.
    pub(crate) fn hills(
        &self,
        reach: &Reach,
        set: &[u64],
        starts: &[Option<usize>],
        hills: &mut Vec<Hill>,
    ) -> i64 {
        hills.clear();
        for (c, (chain, &started)) in self.chains.iter().zip(starts).enumerate() {
            let front = started.unwrap_or(0);
            if front + 1 < chain.len() {
                hills.push(self.hill(c, front, started.is_some()));
            }
        }
        if hills.len() > MAX_HILLS {
            return i64::MIN;
        }
        // Each chain holds its `post` until the first FREE after its pair
        // that descends from every other chain's hill ALLOCs (so after every
        // other hill moment); a chain without one is dropped (dropping only
        // removes conditions on the rest).
        let others: Vec<[NodeIdx; 2]> = hills.iter().map(|h| h.allocs).collect();
        hills.retain_mut(|h| {
            let chain = &self.chains[h.chain];
            let after_all = |b: &Buffer| {
                b.free.is_none_or(|f| {
                    let anc = reach.anc(f);
                    others
                        .iter()
                        .all(|a| *a == h.allocs || (has(anc, a[0]) && has(anc, a[1])))
                })
            };
            let Some(m) =
                (h.pair + 1..chain.len()).find(|&i| after_all(&self.buffers[chain[i] as usize]))
            else {
                return false;
            };
            let least = |from: usize| {
                chain[from..=m]
                    .iter()
                    .map(|&b| self.buffers[b as usize].size)
                    .min()
                    .unwrap()
            };
            h.post = least(h.pair + 1);
            h.low = if h.started { least(h.front) } else { 0 };
            true
        });
        if hills.is_empty() {
            return i64::MIN;
        }
        // The order of hill moments that minimises the bound: decreasing
        // height - post (an exchange argument, see the module docs).
        hills.sort_unstable_by_key(|h| std::cmp::Reverse(h.height - h.post));
        let lows: i64 = hills.iter().map(|h| h.low).sum();
        let (mut before, mut worst) = (0, i64::MIN);
        for h in hills.iter() {
            worst = worst.max(before + h.height - h.low);
            before += h.post - h.low;
        }
        lows + worst + self.residents(reach, set, hills)
    }

    /// The buffers live in `set`, other than the kept chains' fronts, that
    /// stay live through every hill moment (FREE absent or descending from
    /// every hill ALLOC): their total size.
    fn residents(&self, reach: &Reach, set: &[u64], hills: &[Hill]) -> i64 {
        let fronts: Vec<u32> = hills
            .iter()
            .filter(|h| h.started)
            .map(|h| self.chains[h.chain][h.front])
            .collect();
        self.buffers
            .iter()
            .enumerate()
            .filter(|(i, b)| {
                has(set, b.alloc)
                    && !fronts.contains(&(*i as u32))
                    && b.free.is_none_or(|f| {
                        let anc = reach.anc(f);
                        !has(set, f)
                            && hills
                                .iter()
                                .all(|h| has(anc, h.allocs[0]) && has(anc, h.allocs[1]))
                    })
            })
            .map(|(_, b)| b.size)
            .sum()
    }

    /// The hill pair of chain `c` from position `front` on (at least two
    /// buffers); `started`: whether the front's ALLOC has run. `post` and
    /// `low` are filled in by [`Bounds::hills`].
    fn hill(&self, c: usize, front: usize, started: bool) -> Hill {
        let chain = &self.chains[c];
        let buf = |i: usize| &self.buffers[chain[i] as usize];
        let p = (front..chain.len() - 1)
            .max_by_key(|&i| (buf(i).size + buf(i + 1).size, std::cmp::Reverse(i)))
            .expect("at least two buffers from the front");
        Hill {
            chain: c,
            front,
            pair: p,
            started,
            height: buf(p).size + buf(p + 1).size,
            post: 0,
            low: 0,
            allocs: [buf(p).alloc, buf(p + 1).alloc],
        }
    }

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

/// A chain's hill from a state (see [`Bounds::hills`]).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Hill {
    /// Index of the chain.
    chain: usize,
    /// Position of the chain's front (0 if not started).
    front: usize,
    /// Position of the pair's first buffer.
    pair: usize,
    /// Whether the front's ALLOC has run.
    started: bool,
    /// Size sum of the hill pair.
    height: i64,
    /// Least size held after the hill moment.
    post: i64,
    /// Least size held before it (0 if the chain has not started).
    low: i64,
    /// The pair's ALLOCs.
    allocs: [NodeIdx; 2],
}

/// Scratch for [`Bounds::state`]: the live buffers and the chain fronts.
#[derive(Default)]
pub(crate) struct LiveScratch {
    live: Vec<Buffer>,
    starts: Vec<Option<usize>>,
    fronts: Vec<(usize, usize)>,
    hills: Vec<Hill>,
    merge: MergeScratch,
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
    fn hills_see_branches_run_one_after_another() {
        // Two branches src -> x(6) -> y(5), outputs held until the join:
        // whichever branch goes second peaks at 6 + 5 while the first holds
        // its 5, so every order peaks at 16 or more; F4 sees one branch.
        use crate::corpus::program::{AllocEncoding, TensorProgram};
        let mut p = TensorProgram::new();
        let src = p.op1("src", &[], 1);
        let mut ends = Vec::new();
        for b in 0..2 {
            let x = p.op1(format!("x{b}"), &[src], 6);
            ends.push(p.op1(format!("y{b}"), &[x], 5));
        }
        p.op1("join", &ends, 1);
        let g = p.to_graph(AllocEncoding::Anchored).unwrap();
        let reach = Reach::new(&g);
        let bounds = Bounds::new(&g, &reach);
        let empty = vec![0u64; crate::solvers::exact::state::words(g.node_count())];
        let mut starts = Vec::new();
        bounds.starts(&empty, &mut starts);
        let hills = bounds.hills(&reach, &empty, &starts, &mut Vec::new());
        assert!(bounds.global() < 16, "F4 alone: {}", bounds.global());
        assert!(hills >= 16, "hill bound {hills}");
        let ctx = crate::solvers::SolveContext::default();
        let best = crate::solvers::build("dp").unwrap().solve(&g, &ctx);
        let order = best.order.expect("dp solves a graph this small");
        let peak = crate::schedule::check(&g, &order).unwrap().peak as i64;
        assert!(hills <= peak, "hill bound {hills} above the optimum {peak}");
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
