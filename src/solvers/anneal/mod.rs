//! `anneal`: simulated annealing over topological orders.
//!
//! [`Anneal`] improves a starting schedule (the context's warm start, else the
//! best of a start solver) by shifting one node at a time to another position
//! inside the window its predecessors and successors leave it in the current
//! order, so every order it visits is a schedule. [`MoveState`] keeps the
//! order, each node's position and a segment tree over the prefix memory: a
//! move's new peak costs O(log n + degree) to evaluate, an accepted move
//! O(distance + log n) to apply; nothing is ever re-evaluated from scratch.

mod arg;

pub(crate) use arg::make_anneal;

use std::time::{Duration, Instant};

use super::{Abilities, Outcome, Scheduler, SolveContext, Status};
use crate::graph::{Csr, Graph, NodeIdx};
use crate::rng::Rng;
use crate::schedule;

/// Maximum and how many leaves reach it, over a range of prefix sums.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct MaxCount {
    max: i64,
    count: u32,
}

const EMPTY: MaxCount = MaxCount {
    max: i64::MIN,
    count: 0,
};

fn join(a: MaxCount, b: MaxCount) -> MaxCount {
    match a.max.cmp(&b.max) {
        std::cmp::Ordering::Greater => a,
        std::cmp::Ordering::Less => b,
        std::cmp::Ordering::Equal => MaxCount {
            max: a.max,
            count: a.count + b.count,
        },
    }
}

fn shifted(a: MaxCount, by: i64) -> MaxCount {
    if a.count == 0 {
        a
    } else {
        MaxCount {
            max: a.max + by,
            count: a.count,
        }
    }
}

/// A bottom-up segment tree over the prefix memory `P[k]` (memory after the
/// node at position `k`), answering range max-and-count.
#[derive(Debug, Clone)]
struct PrefixTree {
    size: usize,
    nodes: Vec<MaxCount>,
}

impl PrefixTree {
    fn new(prefix: &[i64]) -> Self {
        let size = prefix.len().next_power_of_two().max(1);
        let mut nodes = vec![EMPTY; 2 * size];
        for (k, &p) in prefix.iter().enumerate() {
            nodes[size + k] = MaxCount { max: p, count: 1 };
        }
        for i in (1..size).rev() {
            nodes[i] = join(nodes[2 * i], nodes[2 * i + 1]);
        }
        PrefixTree { size, nodes }
    }

    fn leaf(&self, k: usize) -> i64 {
        self.nodes[self.size + k].max
    }

    /// Max and count over positions `lo..hi`.
    fn query(&self, lo: usize, hi: usize) -> MaxCount {
        let (mut l, mut r) = (lo + self.size, hi + self.size);
        let mut acc = EMPTY;
        while l < r {
            if l & 1 == 1 {
                acc = join(acc, self.nodes[l]);
                l += 1;
            }
            if r & 1 == 1 {
                r -= 1;
                acc = join(acc, self.nodes[r]);
            }
            l >>= 1;
            r >>= 1;
        }
        acc
    }

    /// Sets leaves `lo..lo + values.len()` and repairs their ancestors.
    fn rewrite(&mut self, lo: usize, values: impl Iterator<Item = i64>) {
        let mut hi = lo;
        for (k, v) in values.enumerate() {
            self.nodes[self.size + lo + k] = MaxCount { max: v, count: 1 };
            hi = lo + k;
        }
        let (mut l, mut r) = ((self.size + lo) >> 1, (self.size + hi) >> 1);
        while l >= 1 {
            for i in l..=r {
                self.nodes[i] = join(self.nodes[2 * i], self.nodes[2 * i + 1]);
            }
            l >>= 1;
            r >>= 1;
        }
    }
}

/// A schedule under local search: the order, positions, and prefix memory.
///
/// A *move* takes node `v` from its position to position `to` inside
/// [`MoveState::window`], shifting the nodes between by one.
#[derive(Debug, Clone)]
pub struct MoveState<'g> {
    g: &'g Graph,
    order: Vec<NodeIdx>,
    pos: Vec<u32>,
    tree: PrefixTree,
    /// Predecessors and successors without repeated edges, when the graph
    /// has some: a window reads every edge of its node, and a million
    /// copies of one edge made each move a million steps.
    distinct: Option<(Csr, Csr)>,
}

impl<'g> MoveState<'g> {
    /// The state of `order`, which must be a valid schedule of `g`.
    ///
    /// # Complexity
    /// O(n).
    pub fn new(g: &'g Graph, order: Vec<NodeIdx>) -> Self {
        let mut pos = vec![0u32; g.node_count()];
        let mut mem = 0i64;
        let mut prefix = Vec::with_capacity(order.len());
        for (k, &v) in order.iter().enumerate() {
            pos[v as usize] = k as u32;
            mem += g.delta(v);
            prefix.push(mem);
        }
        let distinct = g
            .has_parallel_edges()
            .then(|| (g.pred_csr().deduped(), g.succ_csr().deduped()));
        MoveState {
            g,
            tree: PrefixTree::new(&prefix),
            order,
            pos,
            distinct,
        }
    }

    /// The current order.
    pub fn order(&self) -> &[NodeIdx] {
        &self.order
    }

    /// The current peak, `max(0, max_k P[k])` as the checker defines it.
    pub fn peak(&self) -> u64 {
        self.tree.query(0, self.order.len()).max.max(0) as u64
    }

    /// Positions `v` may move to: after its last predecessor, before its
    /// first successor (inclusive bounds). O(degree).
    pub fn window(&self, v: NodeIdx) -> (usize, usize) {
        let (preds, succs) = match &self.distinct {
            Some((preds, succs)) => (preds.neighbors(v), succs.neighbors(v)),
            None => (self.g.preds(v), self.g.succs(v)),
        };
        let lo = preds
            .iter()
            .map(|&p| self.pos[p as usize] as usize + 1)
            .max()
            .unwrap_or(0);
        let hi = succs
            .iter()
            .map(|&s| self.pos[s as usize] as usize)
            .min()
            .unwrap_or(self.order.len())
            - 1;
        (lo, hi)
    }

    /// Max prefix memory and how many steps reach it if `v` moved to `to`.
    /// O(log n).
    fn evaluate(&self, v: NodeIdx, to: usize) -> MaxCount {
        let n = self.order.len();
        let from = self.pos[v as usize] as usize;
        let d = self.g.delta(v);
        if to < from {
            // New P over to..=from is old P over to-1..=from-1, plus d.
            let mut mid = shifted(self.tree.query(to.max(1) - 1, from), d);
            if to == 0 {
                mid = join(mid, MaxCount { max: d, count: 1 });
                // query(0, from) covered old P[0..from-1]; P[-1] = 0 added above.
            }
            join(
                join(self.tree.query(0, to), mid),
                self.tree.query(from + 1, n),
            )
        } else if to > from {
            // New P over from..to is old P over from+1..=to, minus d.
            let mid = shifted(self.tree.query(from + 1, to + 1), -d);
            join(join(self.tree.query(0, from), mid), self.tree.query(to, n))
        } else {
            self.tree.query(0, n)
        }
    }

    /// The peak if `v` moved to `to` (which must be in its window).
    pub fn peak_after(&self, v: NodeIdx, to: usize) -> u64 {
        self.evaluate(v, to).max.max(0) as u64
    }

    /// Moves `v` to `to` (which must be in its window). O(distance + log n).
    pub fn apply(&mut self, v: NodeIdx, to: usize) {
        let from = self.pos[v as usize] as usize;
        let (lo, hi) = if to < from {
            self.order[to..=from].rotate_right(1);
            (to, from)
        } else {
            self.order[from..=to].rotate_left(1);
            (from, to)
        };
        for k in lo..=hi {
            self.pos[self.order[k] as usize] = k as u32;
        }
        let mut mem = if lo == 0 { 0 } else { self.tree.leaf(lo - 1) };
        let g = self.g;
        let order = &self.order;
        self.tree.rewrite(
            lo,
            (lo..=hi).map(|k| {
                mem += g.delta(order[k]);
                mem
            }),
        );
    }
}

/// Largest distance of a random (non-directed) shift: keeps accepted moves cheap.
const LOCAL: usize = 32;

/// Default number of proposed moves: 64 per node,
/// at least 20,000 and at most 4,000,000.
pub fn default_iterations(n: usize) -> u64 {
    (64 * n as u64).clamp(20_000, 4_000_000)
}

/// Simulated annealing over single-node shifts.
///
/// Start: the context's warm start if it is a valid schedule, else the start
/// solver's order (by default `best-heuristic`'s: see
/// [`super::best_heuristic::MEMBERS`]), else Kahn's order. Each step picks
/// a node uniformly and a target in its window: one time in four (for an
/// ALLOC or FREE) the window's end F2/F1 favour (an ALLOC as late, a FREE as
/// early as allowed), otherwise uniformly within 32 positions of the node.
/// It accepts by the
/// Metropolis rule on the energy `peak + steps_at_peak / (n + 1)` (so among
/// equal peaks, fewer steps at the peak is better). The temperature falls
/// geometrically from 30% to 0.1% of the mean buffer size. The best order
/// seen is returned: never worse than the start.
///
/// Budget: [`default_iterations`] proposed moves (times the factor set
/// with [`Anneal::with_length`], or the number set with
/// [`Anneal::with_iterations`]); the temperature follows the fraction of
/// that budget spent. A time limit caps it: past 90% of the time left after
/// the start it stops. It times its first 1/64 of the moves: once they
/// project all of them past half of that 90%, the temperature follows
/// whichever is further along, the moves or the clock, and the note says
/// so (a search cut short then still cools); otherwise (the usual case
/// below a few hundred thousand nodes) the result depends on the seed only.
///
/// Wrong on any graph where the optimum needs two nodes to move at once: a
/// single shift that helps only after another one is never accepted at low
/// temperature (local search proves nothing; it reports no lower bound).
///
/// # Complexity
/// O(log n + degree) per proposed move, O(distance) more per accepted one
/// (at most 32 except for the directed F1/F2 shifts).
pub struct Anneal {
    start: Box<dyn Scheduler>,
    iterations: Option<u64>,
    /// What [`default_iterations`] is multiplied by (1 unless set).
    length: f64,
    /// The registry name, when not the default `anneal` (`anneal:START`).
    name: Option<String>,
}

impl std::fmt::Debug for Anneal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Anneal")
            .field("name", &self.name())
            .field("start", &self.start.name())
            .field("iterations", &self.iterations)
            .field("length", &self.length)
            .finish()
    }
}

impl Default for Anneal {
    fn default() -> Self {
        Anneal::with_start(Box::new(super::best_heuristic()))
    }
}

impl Anneal {
    /// Annealing that starts from `start`'s order (when no warm start is given).
    pub fn with_start(start: Box<dyn Scheduler>) -> Self {
        Anneal {
            start,
            iterations: None,
            length: 1.0,
            name: None,
        }
    }

    /// Sets the name it reports (the registry name that builds it).
    pub fn named(mut self, name: impl Into<String>) -> Self {
        self.name = Some(name.into());
        self
    }

    /// Sets the number of proposed moves when there is no time limit.
    pub fn with_iterations(mut self, iterations: u64) -> Self {
        self.iterations = Some(iterations);
        self
    }

    /// Runs `length` times [`default_iterations`] moves (rounded, at
    /// least one), unless [`Anneal::with_iterations`] sets the number.
    pub fn with_length(mut self, length: f64) -> Self {
        self.length = length;
        self
    }

    /// The number of moves to propose on a graph of `n` nodes.
    fn budget(&self, n: usize) -> u64 {
        self.iterations.unwrap_or_else(|| {
            let base = default_iterations(n);
            match self.length == 1.0 {
                true => base,
                false => ((base as f64 * self.length).round() as u64).max(1),
            }
        })
    }

    /// The starting order, the note naming it, and the lower bound its
    /// solver proved, if any (a bound of the graph, so of every result).
    /// A start solver that refuses the graph (`anneal:liu` on a graph that
    /// is not a tree) is an error, its reason kept; one stopped without an
    /// order leaves Kahn's order as the start, and the note says why.
    fn start_order(
        &self,
        g: &Graph,
        ctx: &SolveContext,
    ) -> Result<(Vec<NodeIdx>, String, Option<u64>), String> {
        if let Some(w) = &ctx.warm_start {
            if schedule::check(g, w).is_ok() {
                return Ok((w.clone(), "start: warm start".into(), None));
            }
        }
        let out = self.start.solve(g, ctx);
        let start = self.start.name();
        let rejected = out
            .order
            .as_deref()
            .and_then(|o| schedule::check(g, o).err());
        match (out.order, out.status) {
            (Some(o), _) if rejected.is_none() => {
                let why = out.note.map(|n| format!(" ({n})")).unwrap_or_default();
                Ok((o, format!("start: {start}{why}"), out.lower_bound))
            }
            (_, Status::Failed(why)) => Err(format!("start solver {start} failed: {why}")),
            (Some(_), _) => Err(format!(
                "start solver {start} returned an order the checker rejects: {}",
                rejected.map(|e| e.to_string()).unwrap_or_default()
            )),
            (None, status) => Ok((
                g.topo_order().to_vec(),
                format!("start: kahn ({start}: {status})"),
                None,
            )),
        }
    }
}

impl Scheduler for Anneal {
    fn name(&self) -> String {
        self.name.clone().unwrap_or_else(|| "anneal".into())
    }

    fn abilities(&self) -> Abilities {
        Abilities {
            seeded: true,
            anytime: true,
            // As its start (by default best-heuristic, which runs the
            // search's greedy).
            budgeted: self.start.abilities().budgeted,
            // `anneal:noisy:EXPR` restarts its start.
            restarts: self.start.abilities().restarts,
            ..Abilities::default()
        }
    }

    fn solve(&self, g: &Graph, ctx: &SolveContext) -> Outcome {
        let n = g.node_count();
        let (start, note, bound) = match self.start_order(g, ctx) {
            Ok(start) => start,
            Err(why) => return Outcome::failed(why),
        };
        if n < 2 {
            let peak = schedule::check(g, &start).map_or(0, |e| e.peak);
            return settled(start, peak, bound, note);
        }
        let mut state = MoveState::new(g, start);
        let start_peak = state.peak();
        // Nothing to improve on a start proven optimal.
        if bound == Some(start_peak) {
            return settled(state.order().to_vec(), start_peak, bound, note);
        }
        let mut best_peak = start_peak;
        let mut best = state.order().to_vec();
        let (t0, t1) = temperatures(g);
        let timed = ctx.deadline.map(time_span);
        let iterations = self.budget(n);
        let mut rng = Rng::new(ctx.seed);
        let mut current = energy(state.tree.query(0, n), n);
        let (mut proposed, mut accepted) = (0u64, 0u64);
        let mut clock = Clock::new(timed, iterations);
        loop {
            if proposed >= iterations || (proposed % 256 == 0 && ctx.stopped()) {
                break;
            }
            if clock.expired(proposed) {
                break;
            }
            let fraction = clock.cooled(proposed);
            proposed += 1;
            let v = rng.below(n as u64) as NodeIdx;
            let Some(to) = propose(&state, v, &mut rng) else {
                continue;
            };
            let next = energy(state.evaluate(v, to), n);
            let temperature = t0 * (t1 / t0).powf(fraction);
            if next <= current || rng.f64() < ((current - next) / temperature).exp() {
                state.apply(v, to);
                current = next;
                accepted += 1;
                let peak = state.peak();
                if peak < best_peak {
                    best_peak = peak;
                    best.copy_from_slice(state.order());
                }
            }
        }
        let note = closing_note(note, ctx, proposed, iterations, clock.clocked);
        settled(best, best_peak, bound, note)
            .with_counter("proposed", proposed)
            .with_counter("accepted", accepted)
    }
}

/// The outcome of `order` at `peak`: optimal when the start's proven
/// `bound` is that peak, else feasible with the bound kept.
fn settled(order: Vec<NodeIdx>, peak: u64, bound: Option<u64>, note: String) -> Outcome {
    match bound {
        // A bound above the peak is wrong: kept, so the checks flag it.
        Some(lb) if lb == peak => Outcome::optimal(order, peak).with_note(note),
        _ => Outcome::feasible(order)
            .with_lower_bound(bound)
            .with_note(note),
    }
}

/// The starting and final temperatures: 30% and 0.1% of `g`'s mean
/// buffer size (1 without buffers).
fn temperatures(g: &Graph) -> (f64, f64) {
    let allocs: Vec<i64> = g.deltas().iter().copied().filter(|&d| d > 0).collect();
    let mean = if allocs.is_empty() {
        1.0
    } else {
        allocs.iter().map(|&d| d as f64).sum::<f64>() / allocs.len() as f64
    };
    ((0.3 * mean).max(1e-9), (0.001 * mean).max(1e-12))
}

/// When the search begins, when it must stop to meet `deadline` (after
/// 90% of the time left), and that span.
fn time_span(deadline: Instant) -> (Instant, Instant, Duration) {
    let now = Instant::now();
    let left = deadline.saturating_duration_since(now);
    (now, now + left.mul_f64(0.9), left.mul_f64(0.9))
}

/// The energy of a max-and-count over `n` nodes: the peak, plus the steps
/// at it over `n + 1` (0 when nothing is allocated).
fn energy(mc: MaxCount, n: usize) -> f64 {
    if mc.max <= 0 {
        0.0
    } else {
        mc.max as f64 + mc.count as f64 / (n as f64 + 1.0)
    }
}

/// A position to move `v` to, drawn from `rng`, or `None` when its window
/// leaves it no room or the draw is its own position: one time in four
/// (for an ALLOC or FREE) the window's end F2/F1 favour, otherwise
/// uniformly within [`LOCAL`] positions of `v`.
fn propose(state: &MoveState, v: NodeIdx, rng: &mut Rng) -> Option<usize> {
    let (lo, hi) = state.window(v);
    if hi <= lo {
        return None;
    }
    let from = state.pos[v as usize] as usize;
    let d = state.g.delta(v);
    let to = if d != 0 && rng.below(4) == 0 {
        // F1/F2 direction: a FREE as early, an ALLOC as late as allowed.
        if d > 0 {
            hi
        } else {
            lo
        }
    } else {
        let (a, b) = (lo.max(from.saturating_sub(LOCAL)), hi.min(from + LOCAL));
        a + rng.below((b - a + 1) as u64) as usize
    };
    (to != from).then_some(to)
}

/// `note`, plus what cut the search short (when it proposed fewer than its
/// `iterations` moves) and whether its cooling followed the clock.
fn closing_note(
    note: String,
    ctx: &SolveContext,
    proposed: u64,
    iterations: u64,
    clocked: bool,
) -> String {
    // Cut short: fewer moves than planned.
    let note = match proposed < iterations {
        true => format!(
            "{note}; {} ended it after {proposed} of {iterations} moves",
            ctx.limit_cause()
        ),
        false => note,
    };
    match clocked {
        true => format!(
            "{note}; its first 1/{CHECKPOINT_SHARE} of {iterations} moves projected all \
             of them past 45% of the time left, so the cooling followed the clock (the \
             result depends on the machine's speed)"
        ),
        false => note,
    }
}

/// The share of the move budget after which `anneal` times its moves
/// (1/64: the clock is read once there, besides every 256 moves).
const CHECKPOINT_SHARE: u64 = 64;

/// The clock of a search of `iterations` moves, and whether its cooling
/// follows it.
///
/// The cooling follows the moves alone, so that the result depends on
/// the seed only, unless the limit cannot fit them: the first moves, up
/// to the checkpoint, are timed, and once they project all of them past
/// half of the span (90% of the time left), the cooling follows the
/// clock too (a machine's hiccup could otherwise change the schedule).
/// The clock only grows, so deciding before the checkpoint decides as
/// the checkpoint would, and a search the limit cuts short before it
/// still cools.
struct Clock {
    /// The search's [`time_span`], under a time limit.
    timed: Option<(Instant, Instant, Duration)>,
    /// The moves planned.
    iterations: u64,
    /// The move at which the clock is read besides every 256th.
    checkpoint: u64,
    /// The share of the span spent at the last reading.
    time_fraction: f64,
    /// Whether the cooling follows the clock too.
    clocked: bool,
}

impl Clock {
    /// The clock of a search of `iterations` moves in `timed`, if timed.
    fn new(timed: Option<(Instant, Instant, Duration)>, iterations: u64) -> Self {
        Clock {
            timed,
            iterations,
            checkpoint: (iterations / CHECKPOINT_SHARE).max(1),
            time_fraction: 0.0,
            clocked: false,
        }
    }

    /// Reads the clock when due after `proposed` moves: whether the search
    /// is past its stop.
    fn expired(&mut self, proposed: u64) -> bool {
        if let Some((began, stop, span)) = self.timed {
            if proposed.is_multiple_of(256) || proposed == self.checkpoint {
                let now = Instant::now();
                if now >= stop {
                    return true;
                }
                self.time_fraction =
                    (now - began).as_secs_f64() / span.max(Duration::from_nanos(1)).as_secs_f64();
                if proposed <= self.checkpoint && !self.clocked {
                    self.clocked = self.time_fraction
                        * (self.iterations as f64 / self.checkpoint as f64)
                        > 0.5;
                }
            }
        }
        false
    }

    /// The share of the cooling done after `proposed` moves (see [`cooled`]).
    fn cooled(&self, proposed: u64) -> f64 {
        cooled(
            proposed,
            self.iterations,
            self.clocked.then_some(self.time_fraction),
        )
    }
}

/// The share of the cooling done after `proposed` of `iterations` moves:
/// the moves' share, or the clock's `time_fraction` when the cooling
/// follows it too and it is further along.
fn cooled(proposed: u64, iterations: u64, time_fraction: Option<f64>) -> f64 {
    let moves = proposed as f64 / iterations as f64;
    time_fraction.map_or(moves, |t| moves.max(t))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::corpus::gen::{generate, GenSpec};

    /// The cooling reads the clock only when asked to: a moment lost to
    /// the machine early on cannot change a run whose moves fit the limit.
    #[test]
    fn cooling_follows_the_moves_unless_clocked() {
        assert_eq!(cooled(10, 100, None), 0.1);
        assert_eq!(cooled(10, 100, Some(0.5)), 0.5);
        assert_eq!(cooled(60, 100, Some(0.5)), 0.6);
    }

    /// A limit far too short for the budget makes the cooling follow the
    /// clock, and the note says so, whether or not the search reaches the
    /// checkpoint before the limit.
    #[test]
    fn a_limit_the_moves_cannot_fit_is_said_in_the_note() {
        let g = generate(&GenSpec::parse("tensor-program:ops=200").unwrap(), 1).unwrap();
        let solver = crate::solvers::build("anneal:length=1000,kahn").unwrap();
        let ctx = SolveContext::new(0, Some(Duration::from_millis(300)));
        let r = crate::solvers::run(solver.as_ref(), &g, &ctx);
        let note = r.note.clone().unwrap_or_default();
        // "... ended it after P of N moves".
        let counts: Vec<u64> = note
            .split_once("ended it after ")
            .map(|(_, rest)| {
                rest.split(' ')
                    .filter_map(|w| w.parse().ok())
                    .take(2)
                    .collect()
            })
            .unwrap_or_default();
        let [proposed, planned] = counts[..] else {
            panic!("{note}")
        };
        assert!(proposed < planned, "{note}");
        assert!(note.contains("the cooling followed the clock"), "{note}");
    }

    /// With a time limit the moves fit, the result is the seed's alone:
    /// the same order as with no limit.
    #[test]
    fn a_limit_the_moves_fit_does_not_change_the_result() {
        let g = generate(&GenSpec::parse("tensor-program:ops=60").unwrap(), 4).unwrap();
        let solver = crate::solvers::build("anneal:length=0.5,kahn").unwrap();
        for seed in 0..3 {
            let free = SolveContext::new(seed, None);
            let limited = SolveContext::new(seed, Some(Duration::from_secs(60)));
            let (a, b) = (
                crate::solvers::run(solver.as_ref(), &g, &free),
                crate::solvers::run(solver.as_ref(), &g, &limited),
            );
            assert_eq!(a.order, b.order, "seed {seed}");
            assert!(!b.note.unwrap_or_default().contains("clock"));
        }
    }

    /// `anneal:START` where START refuses the graph fails with START's
    /// reason; it used to start from Kahn's order and look like a result.
    #[test]
    fn a_start_solver_that_refuses_the_graph_is_an_error() {
        let g = generate(
            &GenSpec::parse("random-layered:layers=8,width=3").unwrap(),
            3,
        )
        .unwrap();
        for (start, says) in [
            ("anneal:brute", "start solver brute failed: "),
            ("anneal:liu", "start solver liu failed: "),
        ] {
            let r = crate::solvers::run(
                crate::solvers::build(start).unwrap().as_ref(),
                &g,
                &SolveContext::default(),
            );
            assert!(
                matches!(&r.status, Status::Failed(why) if why.starts_with(says)),
                "{start}: {r:?}"
            );
        }
    }

    /// A start whose order the checker rejects is an error that says why
    /// (the broken edge), as the start run alone would.
    #[test]
    fn a_rejected_start_says_what_the_checker_found() {
        /// The program order reversed: every edge broken.
        struct Reversed;
        impl Scheduler for Reversed {
            fn name(&self) -> String {
                "reversed".into()
            }
            fn solve(&self, g: &Graph, _: &SolveContext) -> Outcome {
                Outcome::feasible(g.nodes().rev().collect())
            }
        }
        let g = generate(&GenSpec::parse("chain:length=4").unwrap(), 0).unwrap();
        let out = Anneal::with_start(Box::new(Reversed)).solve(&g, &SolveContext::default());
        assert!(
            matches!(&out.status, Status::Failed(why)
                if why.starts_with("start solver reversed returned an order the checker rejects: edge [")),
            "{:?}",
            out.status
        );
    }

    #[test]
    fn move_state_tracks_the_checker() {
        let g = generate(
            &GenSpec::parse("random-layered:layers=8,width=3").unwrap(),
            3,
        )
        .unwrap();
        let mut s = MoveState::new(&g, g.topo_order().to_vec());
        let mut rng = Rng::new(1);
        for _ in 0..2000 {
            let v = rng.below(g.node_count() as u64) as NodeIdx;
            let (lo, hi) = s.window(v);
            let to = lo + rng.below((hi - lo + 1) as u64) as usize;
            let predicted = s.peak_after(v, to);
            s.apply(v, to);
            let eval = schedule::check(&g, s.order()).unwrap();
            assert_eq!(eval.peak, predicted);
            assert_eq!(s.peak(), eval.peak);
        }
    }

    /// Repeated edges change no window (they are read once each).
    #[test]
    fn parallel_edges_leave_windows_as_they_are() {
        use crate::graph::GraphBuilder;
        let build = |copies: usize| {
            let mut b = GraphBuilder::new();
            let a = b.alloc(4, 0);
            let x = b.op("X");
            let f = b.free(0);
            let y = b.op("Y");
            b.edge(a, x);
            b.edge(a, f);
            for _ in 0..copies {
                b.edge(x, f);
            }
            b.edge(x, y);
            b.build().unwrap()
        };
        let (once, many) = (build(1), build(50));
        assert!(many.has_parallel_edges() && !once.has_parallel_edges());
        let (s1, s2) = (
            MoveState::new(&once, once.topo_order().to_vec()),
            MoveState::new(&many, many.topo_order().to_vec()),
        );
        assert_eq!(s1.order(), s2.order());
        for v in once.nodes() {
            assert_eq!(s1.window(v), s2.window(v), "node {v}");
        }
    }

    /// A start's proven bound holds for the result: a start proven optimal
    /// stays proven (nothing to anneal), an open one keeps its bound.
    #[test]
    fn the_start_s_bound_is_kept() {
        use crate::solvers::{Kahn, Status};
        /// kahn's order with a bound chosen by the test.
        struct Bounded(u64);
        impl Scheduler for Bounded {
            fn name(&self) -> String {
                "bounded".into()
            }
            fn solve(&self, g: &Graph, ctx: &SolveContext) -> Outcome {
                Kahn.solve(g, ctx).with_lower_bound(Some(self.0))
            }
        }
        let g = generate(
            &GenSpec::parse("random-layered:layers=8,width=3").unwrap(),
            3,
        )
        .unwrap();
        let kahn_peak = schedule::check(&g, g.topo_order()).unwrap().peak;
        let ctx = SolveContext::default();
        let proven = Anneal::with_start(Box::new(Bounded(kahn_peak))).solve(&g, &ctx);
        assert_eq!(proven.status, Status::Optimal);
        assert_eq!(proven.lower_bound, Some(kahn_peak));
        let open = Anneal::with_start(Box::new(Bounded(1))).solve(&g, &ctx);
        assert_eq!(open.status, Status::Feasible);
        assert_eq!(open.lower_bound, Some(1));
        let plain = Anneal::with_start(Box::new(Kahn)).solve(&g, &ctx);
        assert_eq!(plain.lower_bound, None);
    }
}
