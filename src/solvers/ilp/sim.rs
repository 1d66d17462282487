//! Runs a sequence of main clusters on the reduced graph: the expansion to a
//! full schedule of the original graph, its peak, and the step at which each
//! cluster is done (the values of the model's `y` variables).
//!
//! Absorbed clusters run in the closure right after the step that makes them
//! ready (smallest index first); tail clusters run at the end in index
//! (topological) order. Also holds the two ways a starting sequence is made:
//! a memory greedy on the reduced graph, and the projection of any order of
//! the original graph (a heuristic's, or the caller's warm start).

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use super::reduce::{Reduced, Role};
use crate::graph::NodeIdx;

/// The state of a partial run.
pub(crate) struct Sim<'a> {
    red: &'a Reduced,
    left: Vec<usize>,
    /// Step after which each cluster is done (`usize::MAX`: not yet).
    pub done_at: Vec<usize>,
    mem: i64,
    peak: i64,
    step: usize,
    clusters: Vec<usize>,
    ready: BinaryHeap<Reverse<usize>>,
}

impl<'a> Sim<'a> {
    /// A run before step 1: the absorbed clusters without predecessors have run.
    pub fn new(red: &'a Reduced) -> Self {
        let k = red.clusters.len();
        let mut sim = Sim {
            red,
            left: red.preds.iter().map(Vec::len).collect(),
            done_at: vec![usize::MAX; k],
            mem: 0,
            peak: 0,
            step: 0,
            clusters: Vec::with_capacity(k),
            ready: (0..k)
                .filter(|&c| red.preds[c].is_empty() && red.clusters[c].role == Role::Absorbed)
                .map(Reverse)
                .collect(),
        };
        sim.closure();
        sim
    }

    /// True if main cluster `c` can run now.
    pub fn is_ready(&self, c: usize) -> bool {
        self.left[c] == 0 && self.done_at[c] == usize::MAX
    }

    /// Memory now.
    pub fn memory(&self) -> i64 {
        self.mem
    }

    /// Runs main cluster `c` as the next step, then the closure.
    pub fn run_main(&mut self, c: usize) {
        debug_assert!(self.is_ready(c));
        self.step += 1;
        self.run(c);
        self.closure();
    }

    fn run(&mut self, c: usize) {
        let cl = &self.red.clusters[c];
        self.peak = self.peak.max(self.mem + cl.peak);
        self.mem += cl.total;
        self.done_at[c] = self.step;
        self.clusters.push(c);
        for &s in &self.red.succs[c] {
            self.left[s] -= 1;
            if self.left[s] == 0 && self.red.clusters[s].role == Role::Absorbed {
                self.ready.push(Reverse(s));
            }
        }
    }

    fn closure(&mut self) {
        while let Some(Reverse(w)) = self.ready.pop() {
            self.run(w);
        }
    }

    /// Runs the tail and returns the full order of original nodes and its
    /// peak (`max(0, ...)`, as the checker computes it).
    pub fn finish(mut self) -> (Vec<NodeIdx>, u64) {
        for c in 0..self.red.clusters.len() {
            if self.red.clusters[c].role == Role::Tail && self.done_at[c] == usize::MAX {
                self.step = self.red.steps() + 1;
                self.run(c);
                self.closure();
            }
        }
        let order = self
            .clusters
            .iter()
            .flat_map(|&c| self.red.clusters[c].members.iter().copied())
            .collect();
        (order, self.peak.max(0) as u64)
    }
}

/// Runs the main clusters always taking the ready one with the smallest key
/// (ties: smallest index), so any key gives a valid sequence. Returns the
/// finished run's order and peak, and `done_at`.
///
/// # Complexity
/// O(T² + n + m) for T main clusters.
pub(crate) fn run_by_key(red: &Reduced, key: impl Fn(&Sim, usize) -> (i64, i64)) -> Outcome {
    let mut sim = Sim::new(red);
    for _ in 0..red.steps() {
        let next = red
            .main
            .iter()
            .copied()
            .filter(|&c| sim.is_ready(c))
            .min_by_key(|&c| (key(&sim, c), c));
        let Some(c) = next else { break };
        sim.run_main(c);
    }
    let done_at = sim.done_at.clone();
    let (order, peak) = sim.finish();
    Outcome {
        order,
        peak,
        done_at,
    }
}

/// A finished run.
#[derive(Debug, Clone)]
pub(crate) struct Outcome {
    /// The full schedule of the original graph.
    pub order: Vec<NodeIdx>,
    pub peak: u64,
    /// Step after which each cluster is done (tail: steps + 1).
    pub done_at: Vec<usize>,
}

/// Memory greedy on the reduced graph: the ready main cluster whose step
/// peaks lowest, then the one that leaves the least memory.
///
/// Wrong on `a(+2) -> b(-2)` beside `c(+1)`: it runs `c` first (peak 1, then
/// 3 for `a`) where `a, b, c` peaks at 2.
pub(crate) fn greedy(red: &Reduced) -> Outcome {
    run_by_key(red, |sim, c| {
        let cl = &red.clusters[c];
        (sim.memory() + cl.peak, cl.total)
    })
}

/// The main-cluster sequence closest to `order` (a full order of the
/// original graph): clusters by the position of their last member.
pub(crate) fn project(red: &Reduced, order: &[NodeIdx], n: usize) -> Outcome {
    let mut pos = vec![0i64; n];
    for (i, &v) in order.iter().enumerate() {
        if let Some(p) = pos.get_mut(v as usize) {
            *p = i as i64;
        }
    }
    let last: Vec<i64> = red
        .clusters
        .iter()
        .map(|cl| {
            cl.members
                .iter()
                .map(|&v| pos[v as usize])
                .max()
                .unwrap_or(0)
        })
        .collect();
    run_by_key(red, |_, c| (last[c], 0))
}
