//! Best-first (bottleneck) search over F1-closed downsets with F2 moves.
//!
//! Each stored state is a downset `S` with the lowest peak-so-far found to
//! reach it. Its key is `max(peak so far, bound(S))`, which never decreases
//! along a path, so (F3) the first complete state popped is optimal, as in
//! Dijkstra's algorithm for a minimax path. States whose key reaches the
//! upper bound are never stored: they cannot beat the known schedule. If the
//! queue runs dry first, the known schedule is optimal.
//!
//! A state reached again with a lower peak is updated (and expanded again)
//! only if its stored peak is above the key being expanded: the heap always
//! holds a state from which a path peaking at most `m = max(optimum,
//! target)` goes on, with a key at most `m`, so every popped key is at most
//! `m`, and a stored peak at or below it costs nothing (`max(peak, rest) <=
//! max(m, rest)`).
//!
//! Ties between equal keys go to the deeper state (more nodes run), then to
//! the older one: the search dives towards a complete schedule.
//!
//! Symmetry: every state is stored in its canonical form under the
//! identical-branch automorphisms ([`Symmetry`]), so one state stands for its
//! whole orbit. A record's move is in its parent's stored frame; rebuilding
//! the order maps each move into the frame of the states actually run.
//!
//! Target: keys are raised to at least `target`, so every state below it
//! ties and the search dives; a complete state popped with a peak at or
//! below `target` is good enough but not proven optimal (the caller knows
//! the whole graph cannot do better than `target` anyway).
//!
//! # Complexity
//! O(states * (n * (in-degree + n/64) + n * live buffers)) time, exponential
//! in the width of the graph in the worst case (the problem is NP-hard).

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use super::bounds::{Bounds, LiveScratch};
use super::descent;
use super::moves::{self, Move, Reach};
use super::state::{self, StateTable, Zobrist};
use super::symmetry::Symmetry;
use crate::graph::{Graph, NodeIdx};
use crate::solvers::{DeadlineTicker, SolveContext};

/// What a search established.
#[derive(Debug)]
pub(crate) enum Found {
    /// An order strictly below the upper bound, proven optimal, with its peak.
    Better(Vec<NodeIdx>, i64),
    /// Nothing below the upper bound exists: the upper bound is optimal.
    UpperIsOptimal,
    /// A budget ran out; every schedule peaks at or above this bound, or
    /// at or above the bound of the whole graph if it is `target`.
    Stopped(i64),
}

/// Work done, for the report's counters.
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct Work {
    pub(crate) states: u64,
    pub(crate) expanded: u64,
}

struct Record {
    parent: u32,
    /// The node committed to on the way in (`u32::MAX` for the root).
    w: NodeIdx,
    peak: i64,
    mem: i64,
    /// Key the state was last pushed with; older heap entries are stale.
    key: i64,
    /// Peak the state was last expanded with (`i64::MAX`: never).
    expanded_at: i64,
    complete: bool,
}

/// The fixed inputs of a search.
pub(crate) struct Problem<'a> {
    pub(crate) g: &'a Graph,
    pub(crate) reach: &'a Reach,
    pub(crate) bounds: &'a Bounds,
    pub(crate) sym: &'a Symmetry,
    /// Take a descending move at once when there is one ([`descent`]).
    pub(crate) descents: bool,
}

/// Runs the search below `upper` (exclusive), content with any complete
/// order peaking at or below `target` (pass 0 to ask for the optimum).
pub(crate) fn search(
    pb: &Problem,
    upper: i64,
    target: i64,
    ctx: &SolveContext,
    work: &mut Work,
) -> Found {
    let Problem {
        g,
        reach,
        bounds,
        sym,
        descents,
    } = *pb;
    let floor = bounds.global().max(target);
    let mut dscratch = descent::Scratch::default();
    let mut scratch = Vec::new();
    let n = g.node_count();
    let zob = Zobrist::new(n);
    let mut table = StateTable::new(n);
    let mut recs: Vec<Record> = Vec::new();
    let mut heap: BinaryHeap<Reverse<(i64, Reverse<u32>, u32)>> = BinaryHeap::new();
    let mut live = LiveScratch::default();
    let mut stack = Vec::new();
    let mut cands: Vec<Move> = Vec::new();
    let mut ticker = DeadlineTicker::new(64);

    let mut set = vec![0u64; state::words(n)];
    let mut hash = 0u64;
    let mem = state::close_empty(g, &mut set, &mut stack, |v| hash ^= zob.key(v));
    let complete = finish_if_done(g, reach, &mut set, &mut hash, &zob);
    if sym.canonicalize(&mut set, &mut scratch, None) {
        hash = table_hash(&zob, &set);
    }
    let peak = if complete { g.final_memory().max(0) } else { 0 };
    let key = key_of(pb, &set, peak, complete, floor, upper, &mut live);
    if key >= upper {
        work.states = 0;
        return Found::UpperIsOptimal;
    }
    let (root, _) = table.intern(&set, hash);
    recs.push(Record {
        parent: u32::MAX,
        w: u32::MAX,
        peak,
        mem,
        key,
        expanded_at: i64::MAX,
        complete,
    });
    heap.push(Reverse((key, Reverse(0), root)));

    let mut child = vec![0u64; set.len()];
    let mut added: Vec<NodeIdx> = Vec::new();
    while let Some(Reverse((key, Reverse(_), id))) = heap.pop() {
        let rec = &mut recs[id as usize];
        if rec.key != key || rec.peak >= rec.expanded_at {
            continue; // stale, or already expanded with this peak
        }
        rec.expanded_at = rec.peak;
        if recs[id as usize].complete {
            work.states = table.len() as u64;
            let order = rebuild(pb, &table, &recs, id);
            return Found::Better(order, recs[id as usize].peak);
        }
        let over_states = table.len() as u64 >= ctx.budget.max_states;
        if over_states || ticker.expired(ctx) {
            work.states = table.len() as u64;
            return Found::Stopped(key);
        }
        let (s_peak, s_mem) = (recs[id as usize].peak, recs[id as usize].mem);
        child.copy_from_slice(table.get(id));
        let parent_hash = table_hash(&zob, &child);
        moves::candidates(g, reach, &child, &mut cands);
        if descents {
            // The key is a lower bound on every completion unless the target raised it.
            let allowance = if target <= bounds.global() {
                key
            } else {
                s_peak.max(bounds.global())
            };
            if let Some(i) =
                descent::find(g, reach, &child, &cands, s_mem, allowance, &mut dscratch)
            {
                cands.swap(0, i);
                cands.truncate(1);
            }
        }
        // Room for every child this expansion may store, one per move.
        let more = cands.len();
        let over_memory = table.bytes(more)
            + state::grown_bytes(recs.len(), recs.capacity(), more, size_of::<Record>())
            + state::grown_bytes(heap.len(), heap.capacity(), more, 16)
            > ctx.budget.max_memory_bytes;
        if over_memory {
            work.states = table.len() as u64;
            return Found::Stopped(key);
        }
        work.expanded += 1;
        let base = child.clone();
        for mv in &cands {
            child.copy_from_slice(&base);
            let mut h = parent_hash;
            added.clear();
            moves::apply(reach, &mut child, mv.w, |v| {
                h ^= zob.key(v);
                added.push(v);
            });
            let closed = state::close(g, &mut child, &added, &mut stack, |v| h ^= zob.key(v));
            let c_mem = s_mem + mv.block + g.delta(mv.w) + closed;
            let complete = finish_if_done(g, reach, &mut child, &mut h, &zob);
            if sym.canonicalize(&mut child, &mut scratch, None) {
                h = table_hash(&zob, &child);
            }
            let mut c_peak = s_peak.max(s_mem + mv.block);
            if complete {
                c_peak = c_peak.max(g.final_memory());
            }
            let c_key = key_of(pb, &child, c_peak, complete, floor, upper, &mut live);
            if c_key >= upper {
                continue;
            }
            let (cid, new) = table.intern(&child, h);
            let depth = count(&child);
            if new {
                recs.push(Record {
                    parent: id,
                    w: mv.w,
                    peak: c_peak,
                    mem: c_mem,
                    key: c_key,
                    expanded_at: i64::MAX,
                    complete,
                });
            } else {
                let r = &mut recs[cid as usize];
                // A lower peak matters only above the popped key: every
                // popped key is at most the optimum, so a stored peak at or
                // below it already leads to an optimal completion if this
                // state is on one.
                if c_peak >= r.peak || r.peak <= key {
                    continue;
                }
                r.parent = id;
                r.w = mv.w;
                r.peak = c_peak;
                r.key = c_key;
            }
            heap.push(Reverse((c_key, Reverse(depth), cid)));
        }
    }
    work.states = table.len() as u64;
    Found::UpperIsOptimal
}

fn count(set: &[u64]) -> u32 {
    set.iter().map(|w| w.count_ones()).sum()
}

fn table_hash(zob: &Zobrist, set: &[u64]) -> u64 {
    let mut h = 0;
    state::for_each(set, |v| h ^= zob.key(v));
    h
}

/// If only positive nodes remain, runs them all (they belong at the end, F2).
fn finish_if_done(g: &Graph, reach: &Reach, set: &mut [u64], h: &mut u64, zob: &Zobrist) -> bool {
    if !reach.all_nonpos_done(set) {
        return false;
    }
    for v in g.nodes() {
        if !state::has(set, v) {
            state::add(set, v);
            *h ^= zob.key(v);
        }
    }
    true
}

/// A state's key: its peak if complete, else the largest of its peak so far,
/// `floor` (the global bound, or the target) and its per-state bounds (F4
/// and last-FREE); once it reaches `upper` (the state is dropped) the
/// remaining bounds are skipped.
fn key_of(
    pb: &Problem,
    set: &[u64],
    peak: i64,
    complete: bool,
    floor: i64,
    upper: i64,
    live: &mut LiveScratch,
) -> i64 {
    if complete {
        return peak;
    }
    // The last-FREE bound counts the memory of `set`, which `peak` covers.
    let floor = floor.max(pb.bounds.last_free(pb.g, set));
    pb.bounds
        .state(pb.g, pb.reach, set, live, peak.max(floor), upper)
}

/// The order of state `id`: per step, the block (topological order), the
/// node committed to, the F1 closure and any final positive nodes (each in
/// the stored topological order), all mapped from the stored frame into the
/// frame of the nodes actually run.
fn rebuild(pb: &Problem, table: &StateTable, recs: &[Record], id: u32) -> Vec<NodeIdx> {
    let Problem { g, reach, sym, .. } = *pb;
    let mut chain = vec![id];
    while recs[*chain.last().unwrap() as usize].parent != u32::MAX {
        chain.push(recs[*chain.last().unwrap() as usize].parent);
    }
    chain.reverse();
    let pos = crate::graph::analysis::positions(g.topo_order(), g.node_count());
    let mut order = Vec::with_capacity(g.node_count());
    let mut done = vec![0u64; reach.words];
    let mut frame = sym.identity();
    let mut moved = sym.identity();
    let mut scratch = Vec::new();
    let mut stack = Vec::new();
    // `stored` is the previous stored state (its frame is `frame`); `next`
    // becomes the step's result in that frame, before canonicalisation.
    let mut stored = vec![0u64; reach.words];
    let mut next = vec![0u64; reach.words];
    for (i, &sid) in chain.iter().enumerate() {
        let mut added = Vec::new();
        if i == 0 {
            state::close_empty(g, &mut next, &mut stack, |_| {});
        } else {
            next.copy_from_slice(&stored);
            let w = recs[sid as usize].w;
            moves::apply(reach, &mut next, w, |v| added.push(v));
            state::close(g, &mut next, &added, &mut stack, |_| {});
            let w_run = sym.actual(&frame, w);
            let mut block: Vec<NodeIdx> = Vec::new();
            moves::apply(reach, &mut done, w_run, |v| block.push(v));
            block.pop(); // w itself comes after its block
            block.sort_by_key(|&v| pos[v as usize]);
            order.extend(block);
            order.push(w_run);
        }
        if reach.all_nonpos_done(&next) {
            g.nodes().for_each(|v| state::add(&mut next, v));
        }
        // Everything else the step ran: its closure, then positive leftovers.
        let mut rest: Vec<NodeIdx> = Vec::new();
        state::for_each(&next, |v| {
            let run = sym.actual(&frame, v);
            if !state::has(&done, run) {
                rest.push(run);
            }
        });
        rest.sort_by_key(|&v| (g.delta(v) > 0, pos[v as usize]));
        for v in rest {
            state::add(&mut done, v);
            order.push(v);
        }
        sym.canonicalize(&mut next, &mut scratch, Some(&mut moved));
        debug_assert_eq!(
            next.as_slice(),
            table.get(sid),
            "rebuild left the stored path"
        );
        frame = Symmetry::compose(&frame, &moved);
        stored.copy_from_slice(&next);
    }
    order
}
