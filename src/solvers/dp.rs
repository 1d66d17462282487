//! `dp`: the plain dynamic programme over downsets (the baseline `exact` is
//! measured against).
//!
//! The value of a downset `S` is the lowest peak-so-far of any order that
//! runs exactly `S`; it is the minimum, over the nodes `v` of `S` that no
//! other node of `S` needs, of `max(value(S - v), mem(S))`. The programme
//! fills it layer by layer (`|S| = 0, 1, ..., n`), every ready node a branch,
//! memoised on the executed set, as SERENITY and HMCOS do before their
//! pruning. No F1/F2, no bounds, no pruning beyond memoisation: it is the
//! yardstick, kept in the repo so `exact`'s speed-up is measured in the same run.
//!
//! Past the deadline or a budget it returns the better of the program order
//! (when it is topological) and the stored topological order with a proven
//! lower bound: the larger of the minimum over the current layer (every
//! schedule passes through exactly one downset of each size) and, on graphs
//! of at most [`STOPPED_BOUND_MAX_NODES`] nodes whose bitsets fit 1/8 of the memory
//! budget, the F4 bound `exact` starts from (the most memory some node must
//! see live), else the largest delta of a node (memory never drops below
//! 0). Status `feasible`, or `optimal` when the order meets the bound.
//!
//! # Complexity
//! O(D * n * in-degree) time and O(D * n / 64) words, D the number of
//! downsets (up to 2^n).

use super::exact::state::{self, StateTable, Zobrist};
use super::exact::{f4_global_bound, trivial_bound, STOPPED_BOUND_MAX_NODES};
use super::{Abilities, DeadlineTicker, Outcome, Scheduler, SolveContext};
use crate::graph::{Graph, NodeIdx};
use crate::schedule;

/// The plain downset DP. Ties between equal peaks keep the first order found
/// (ready nodes tried in index order, layer states in insertion order).
#[derive(Debug, Default, Clone, Copy)]
pub struct Dp;

struct Rec {
    parent: u32,
    node: NodeIdx,
    peak: i64,
    mem: i64,
}

impl Scheduler for Dp {
    fn name(&self) -> String {
        "dp".into()
    }

    fn abilities(&self) -> Abilities {
        Abilities {
            exact: true,
            budgeted: true,
            ..Default::default()
        }
    }

    fn solve(&self, g: &Graph, ctx: &SolveContext) -> Outcome {
        let n = g.node_count();
        let zob = Zobrist::new(n);
        let mut table = StateTable::new(n);
        let mut recs = vec![Rec {
            parent: u32::MAX,
            node: u32::MAX,
            peak: 0,
            mem: 0,
        }];
        let mut hashes = vec![0u64];
        table.intern(&vec![0u64; state::words(n)], 0);
        let mut ticker = DeadlineTicker::new(256);
        let mut expanded = 0u64;
        let (mut layer_start, mut layer_end) = (0usize, 1usize);
        let mut set = vec![0u64; state::words(n)];
        // What stops the search, if anything: looked at before each
        // expansion and after each new state (one expansion of a wide
        // graph's state makes as many states as it has ready nodes).
        let limit = |table: &StateTable,
                     recs: &Vec<Rec>,
                     hashes: &Vec<u64>,
                     ticker: &mut DeadlineTicker| {
            // Checked after each new state: room for the next one.
            let bytes = table.bytes(1)
                + state::grown_bytes(recs.len(), recs.capacity(), 1, size_of::<Rec>())
                + state::grown_bytes(hashes.len(), hashes.capacity(), 1, 8);
            if table.len() as u64 >= ctx.budget.max_states {
                Some("the state budget")
            } else if bytes > ctx.budget.max_memory_bytes {
                Some("the memory budget")
            } else if ticker.expired(ctx) {
                Some(ctx.limit_cause())
            } else {
                None
            }
        };
        for size in 0..n {
            // Every downset of this layer's size is in it: no schedule
            // passes below the lowest peak it records.
            let stopped = |why: &str, recs: &[Rec], states: usize, expanded: u64| {
                let layer = recs[layer_start..layer_end].iter().map(|r| r.peak).min();
                stopped_at(g, ctx, why, layer.unwrap_or(0))
                    .with_counter("states", states as u64)
                    .with_counter("expanded", expanded)
            };
            // The last layer's expansions make only the full set: no
            // budget to keep, and stopping there would drop a proof.
            let last = size + 1 == n;
            for id in layer_start..layer_end {
                if let Some(why) = limit(&table, &recs, &hashes, &mut ticker).filter(|_| !last) {
                    return stopped(why, &recs, table.len(), expanded);
                }
                expanded += 1;
                set.copy_from_slice(table.get(id as u32));
                let (peak, mem, h) = (recs[id].peak, recs[id].mem, hashes[id]);
                for v in g.nodes() {
                    if state::has(&set, v) || !g.preds(v).iter().all(|&p| state::has(&set, p)) {
                        continue;
                    }
                    state::add(&mut set, v);
                    let c_mem = mem + g.delta(v);
                    let c_peak = peak.max(c_mem);
                    let ch = h ^ zob.key(v);
                    let (cid, new) = table.intern(&set, ch);
                    if new {
                        recs.push(Rec {
                            parent: id as u32,
                            node: v,
                            peak: c_peak,
                            mem: c_mem,
                        });
                        hashes.push(ch);
                        if let Some(why) =
                            limit(&table, &recs, &hashes, &mut ticker).filter(|_| !last)
                        {
                            return stopped(why, &recs, table.len(), expanded);
                        }
                    } else if c_peak < recs[cid as usize].peak {
                        let r = &mut recs[cid as usize];
                        r.parent = id as u32;
                        r.node = v;
                        r.peak = c_peak;
                    }
                    set[(v >> 6) as usize] &= !(1 << (v & 63));
                }
            }
            (layer_start, layer_end) = (layer_end, recs.len());
        }
        // The last layer holds the full set alone.
        let last = layer_start;
        let mut order = Vec::with_capacity(n);
        let mut id = last as u32;
        while recs[id as usize].parent != u32::MAX {
            order.push(recs[id as usize].node);
            id = recs[id as usize].parent;
        }
        order.reverse();
        let peak = recs[last].peak as u64;
        Outcome::optimal(order, peak)
            .with_counter("states", table.len() as u64)
            .with_counter("expanded", expanded)
    }
}

/// The outcome of a `dp` stopped by `why` (a budget or the time limit)
/// with `layer` the lowest peak of its last complete layer: the fallback
/// order, with the better of that and the F4 bound as lower bound (and a
/// proof when the fallback meets it).
fn stopped_at(g: &Graph, ctx: &SolveContext, why: &str, layer: i64) -> Outcome {
    let layer = layer.max(g.final_memory()).max(0) as u64;
    let f4 = f4_global_bound(g, STOPPED_BOUND_MAX_NODES, ctx.budget.max_memory_bytes)
        .unwrap_or_else(|| trivial_bound(g));
    let lb = layer.max(f4);
    let (order, which, peak) = fallback_order(g);
    if peak == Some(lb) {
        // The fallback meets the bound: proven after all.
        Outcome::optimal(order, lb).with_note(format!(
            "dp stopped by {why}; the {which} meets the lower bound"
        ))
    } else {
        Outcome::feasible(order)
            .with_lower_bound(Some(lb))
            .with_note(format!("dp stopped by {why}; order is the {which}"))
    }
}

/// The order a stopped `dp` returns: the program order when it is
/// topological and peaks no higher than the stored topological order, else
/// the topological order; its name for the note, and its checked peak.
fn fallback_order(g: &Graph) -> (Vec<NodeIdx>, &'static str, Option<u64>) {
    let peak = |o: &[NodeIdx]| schedule::check(g, o).map(|e| e.peak).ok();
    let topo = g.topo_order().to_vec();
    let topo_peak = peak(&topo);
    if !g.program_order_is_topological() {
        return (topo, "topological order", topo_peak);
    }
    let program: Vec<NodeIdx> = g.nodes().collect();
    match (peak(&program), topo_peak) {
        (Some(p), Some(t)) if t < p => (topo, "topological order", Some(t)),
        (p, _) => (program, "program order", p),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::GraphBuilder;

    #[test]
    fn dp_finds_the_optimum_the_article_greedy_misses() {
        // Floating ALLOCs: a, b ready at once; the optimum uses one at a time.
        let mut b = GraphBuilder::new();
        let a = b.alloc(1, 0);
        let bb = b.alloc(1, 1);
        let op1 = b.op("op1");
        let fa = b.free(0);
        let op2 = b.op("op2");
        let fb = b.free(1);
        for (u, v) in [(a, op1), (op1, fa), (bb, op2), (op2, fb)] {
            b.edge(u, v);
        }
        let g = b.build().unwrap();
        let r = crate::solvers::run(&Dp, &g, &SolveContext::default());
        assert_eq!(r.status, crate::Status::Optimal);
        assert_eq!(r.peak, Some(1));
    }

    #[test]
    fn a_dp_stopped_early_reports_a_sound_bound() {
        let g = crate::corpus::gen::generate(
            &crate::corpus::gen::GenSpec::parse("random-layered:layers=4,width=3").unwrap(),
            1,
        )
        .unwrap();
        let mut ctx = SolveContext::default();
        ctx.budget.max_states = 3;
        let r = crate::solvers::run(&Dp, &g, &ctx);
        assert_eq!(r.status, crate::Status::Feasible);
        let lb = r.lower_bound.unwrap();
        assert!(lb <= r.peak.unwrap());
        // Stopped after three states, the layers prove next to nothing; the
        // F4 bound is at least the largest buffer.
        let largest = g.nodes().map(|v| g.delta(v)).max().unwrap() as u64;
        assert!(lb >= largest, "{lb} < {largest}");
    }

    /// A memory budget too small for the F4 table, spent before the first
    /// layer, still leaves the largest buffer as the bound (it was 0): on
    /// the article's example, the program order meets it.
    #[test]
    fn a_dp_out_of_memory_at_once_keeps_the_largest_buffer() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/seed_example.json");
        let g = crate::graph::seed::read_path(path).unwrap();
        let mut ctx = SolveContext::default();
        ctx.budget.max_memory_bytes = 5;
        let r = crate::solvers::run(&Dp, &g, &ctx);
        assert_eq!(r.lower_bound, Some(1024));
        assert_eq!(r.status, crate::Status::Optimal);
    }

    /// A stopped dp returns the program order where it beats the
    /// topological order (floating ALLOCs: Kahn's order runs every ALLOC
    /// first).
    #[test]
    fn a_stopped_dp_returns_the_better_of_program_and_topological_order() {
        let g = crate::corpus::gen::generate(
            &crate::corpus::gen::GenSpec::parse("random-layered:layers=6,width=3,allocs=floating")
                .unwrap(),
            1,
        )
        .unwrap();
        let peak = |o: &[NodeIdx]| schedule::check(&g, o).unwrap().peak;
        let program: Vec<NodeIdx> = g.nodes().collect();
        assert!(peak(&program) < peak(g.topo_order()), "the case to test");
        let mut ctx = SolveContext::default();
        ctx.budget.max_states = 3;
        let r = crate::solvers::run(&Dp, &g, &ctx);
        assert_eq!(r.peak, Some(peak(&program)));
        assert!(
            r.note.as_deref().unwrap_or("").contains("program order"),
            "{:?}",
            r.note
        );
    }

    /// One expansion of a wide graph's first state makes a state per ready
    /// node (n/8 bytes each): the budget is looked at after each, not once
    /// the expansion is done (100,000 ALLOCs took 1.25 GB under 16 MiB).
    #[test]
    fn the_memory_budget_holds_within_one_expansion() {
        let mut b = crate::graph::GraphBuilder::new();
        for i in 0..20_000 {
            b.alloc(1, i);
        }
        let g = b.build().unwrap();
        let mut ctx = SolveContext::default();
        ctx.budget.max_memory_bytes = 1 << 20;
        let r = crate::solvers::run(&Dp, &g, &ctx);
        let states = r
            .counters
            .iter()
            .find(|(k, _)| k == "states")
            .map(|&(_, v)| v)
            .unwrap();
        // 2,500 bytes a state: about 420 fit in 1 MiB.
        assert!(states < 500, "{states} states");
        assert!(
            r.note.as_deref().unwrap_or("").contains("memory budget"),
            "{:?}",
            r.note
        );
    }

    /// The budget is not looked at once the last layer is reached: two
    /// buffers (ALLOC a, ALLOC b, FREE a, FREE b) have 9 downsets, and a
    /// budget of 9 states still proves 10 B (it returned program order's
    /// 20 B, and a chain could not show it: its fallback meets the bound).
    #[test]
    fn the_last_layer_does_not_trip_the_budget() {
        let mut b = crate::graph::GraphBuilder::new();
        let (a, c) = (b.alloc(10, 0), b.alloc(10, 1));
        let (fa, fc) = (b.free(0), b.free(1));
        b.edge(a, fa);
        b.edge(c, fc);
        let g = b.build().unwrap();
        let mut ctx = SolveContext::default();
        ctx.budget.max_states = 9;
        let r = crate::solvers::run(&Dp, &g, &ctx);
        assert_eq!(
            (r.status.clone(), r.peak),
            (crate::Status::Optimal, Some(10)),
            "{r:?}"
        );
        assert_eq!(r.note, None, "proven by the search, not the fallback");
    }
}
