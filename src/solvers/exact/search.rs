//! Best-first (bottleneck) search over F1-closed downsets with F2 moves.
//!
//! Each stored state is a downset `S` with the lowest peak-so-far found to
//! reach it. Its key is `max(peak so far, bound(S))`, which never decreases
//! along a path, so (F3) the first complete state popped is optimal, as in
//! Dijkstra's algorithm for a minimax path. States whose key reaches the
//! upper bound are never stored: they cannot beat the known schedule. If the
//! queue runs dry first, the known schedule is optimal.
//!
//! Ties between equal keys go to the deeper state (more nodes run), then to
//! the older one: the search dives towards a complete schedule.
//!
//! # Complexity
//! O(states * (n * (in-degree + n/64) + n * live buffers)) time, exponential
//! in the width of the graph in the worst case (the problem is NP-hard).

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use super::bounds::{Bounds, LiveScratch};
use super::moves::{self, Move, Reach};
use super::state::{self, StateTable, Zobrist};
use crate::graph::{Graph, NodeIdx};
use crate::solvers::{DeadlineTicker, SolveContext};

/// What a search established.
#[derive(Debug)]
pub(crate) enum Found {
    /// An order strictly below the upper bound, proven optimal, with its peak.
    Better(Vec<NodeIdx>, i64),
    /// Nothing below the upper bound exists: the upper bound is optimal.
    UpperIsOptimal,
    /// A budget ran out; every schedule peaks at or above this bound.
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

/// Runs the search below `upper` (exclusive).
pub(crate) fn search(
    g: &Graph,
    reach: &Reach,
    bounds: &Bounds,
    upper: i64,
    ctx: &SolveContext,
    work: &mut Work,
) -> Found {
    let n = g.node_count();
    let zob = Zobrist::new(n);
    let mut table = StateTable::new(n);
    let mut recs: Vec<Record> = Vec::new();
    let mut heap: BinaryHeap<Reverse<(i64, Reverse<u32>, u32)>> = BinaryHeap::new();
    let mut live = LiveScratch::new();
    let mut stack = Vec::new();
    let mut cands: Vec<Move> = Vec::new();
    let mut ticker = DeadlineTicker::new(64);

    let mut set = vec![0u64; state::words(n)];
    let mut hash = 0u64;
    let mem = state::close_empty(g, &mut set, &mut stack, |v| hash ^= zob.key(v));
    let complete = finish_if_done(g, reach, &mut set, &mut hash, &zob);
    let peak = if complete { g.final_memory().max(0) } else { 0 };
    let key = key_of(g, reach, bounds, &set, peak, complete, &mut live);
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
            return Found::Better(rebuild(g, reach, &table, &recs, id), recs[id as usize].peak);
        }
        let over_states = table.len() as u64 >= ctx.budget.max_states;
        let over_memory = table.bytes() + recs.len() as u64 * 40 + heap.len() as u64 * 16
            > ctx.budget.max_memory_bytes;
        if over_states || over_memory || ticker.expired(ctx) {
            work.states = table.len() as u64;
            return Found::Stopped(key);
        }
        work.expanded += 1;
        let (s_peak, s_mem) = (recs[id as usize].peak, recs[id as usize].mem);
        child.copy_from_slice(table.get(id));
        let parent_hash = table_hash(&zob, &child);
        moves::candidates(g, reach, &child, &mut cands);
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
            let mut c_peak = s_peak.max(s_mem + mv.block);
            if complete {
                c_peak = c_peak.max(g.final_memory());
            }
            let c_key = key_of(g, reach, bounds, &child, c_peak, complete, &mut live);
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
                if c_peak >= r.peak {
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

fn key_of(
    g: &Graph,
    reach: &Reach,
    bounds: &Bounds,
    set: &[u64],
    peak: i64,
    complete: bool,
    live: &mut LiveScratch,
) -> i64 {
    if complete {
        return peak;
    }
    let floor = peak.max(bounds.global());
    bounds.state(g, reach, set, live, floor)
}

/// The order of state `id`: per step, the block (index order), the node
/// committed to, the F1 closure and any final positive nodes (each in the
/// stored topological order).
fn rebuild(g: &Graph, reach: &Reach, table: &StateTable, recs: &[Record], id: u32) -> Vec<NodeIdx> {
    let mut chain = vec![id];
    while recs[*chain.last().unwrap() as usize].parent != u32::MAX {
        chain.push(recs[*chain.last().unwrap() as usize].parent);
    }
    chain.reverse();
    let pos = crate::graph::analysis::positions(g.topo_order(), g.node_count());
    let mut order = Vec::with_capacity(g.node_count());
    let mut done = vec![0u64; reach.words];
    let push_diff = |done: &mut Vec<u64>, target: &[u64], order: &mut Vec<NodeIdx>| {
        let mut nonpos = Vec::new();
        let mut pos_nodes = Vec::new();
        for k in 0..target.len() {
            let mut x = target[k] & !done[k];
            while x != 0 {
                let v = (k as u32) << 6 | x.trailing_zeros();
                if g.delta(v) <= 0 {
                    nonpos.push(v);
                } else {
                    pos_nodes.push(v);
                }
                x &= x - 1;
            }
        }
        nonpos.sort_by_key(|&v| pos[v as usize]);
        pos_nodes.sort_by_key(|&v| pos[v as usize]);
        for v in nonpos.into_iter().chain(pos_nodes) {
            state::add(done, v);
            order.push(v);
        }
    };
    for (i, &sid) in chain.iter().enumerate() {
        if i > 0 {
            let w = recs[sid as usize].w;
            let mut block: Vec<NodeIdx> = Vec::new();
            moves::apply(reach, &mut done, w, |v| block.push(v));
            block.pop(); // w itself comes after its block
            block.sort_by_key(|&v| pos[v as usize]);
            order.extend(block);
            order.push(w);
        }
        push_diff(&mut done, table.get(sid), &mut order);
    }
    order
}
