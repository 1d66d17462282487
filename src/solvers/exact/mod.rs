//! `exact`: proven-optimal schedules by best-first search over downsets.
//!
//! The pieces, each in its own module:
//! - [`state`]: downsets as bitsets, the F1 closure (ready nodes with
//!   delta <= 0 run at once), and the table of stored states (Zobrist hash
//!   plus full equality);
//! - [`moves`]: F2 moves (one node with delta <= 0 plus the ALLOCs it still
//!   needs) and the ancestor bitsets;
//! - [`bounds`]: the F4 lower bounds, per node and per state;
//! - [`search`]: the best-first (bottleneck) search with upper-bound pruning
//!   and budgets;
//! - [`greedy`]: [`MoveGreedy`], the F2 greedy that seeds the upper bound;
//! - [`cuts`] and [`split`]: cut points, and the pieces between them as
//!   graphs of their own;
//! - [`symmetry`]: groups of identical branches, one stored state per orbit;
//! - [`pieces`]: solving the pieces one by one and joining their orders.
//!
//! [`Exact`] ties them together: split at cut points (if any); per piece an
//! upper bound from the move beam (and the warm start, if any), from a fast
//! scheduler too when those leave a gap (or, under a limit shorter than a
//! second or on graphs whose bitsets pass 32 MiB, from that scheduler run
//! first on the whole graph), the global lower bound (closing at once when
//! they meet), then the search for anything strictly better; a search
//! stopped without proof is polished by `anneal`.

mod beam;
mod bounds;
mod chain_merge;
mod cuts;
mod descent;
mod greedy;
mod moves;
mod pieces;
mod search;
mod segments;
mod split;
pub(crate) mod state;
mod symmetry;

pub use greedy::MoveGreedy;

use std::time::{Duration, Instant};

use super::{Abilities, Anneal, Outcome, Scheduler, SolveContext};
use crate::graph::{Graph, NodeIdx};
use crate::schedule;
use crate::Status;
use bounds::Bounds;
use moves::Reach;
use search::{Found, Problem, Work};
use symmetry::Symmetry;

/// The F4 lower bound on the whole graph's optimum (the most memory some
/// node must see live; `exact`'s global bound) for callers outside the
/// search, such as a stopped `dp`; `None` past `max_nodes` nodes, where
/// its n^2/8-byte reachability table would cost more than it tells, or when
/// that table passes 1/8 of `max_memory_bytes` (as in `exact`).
///
/// # Complexity
/// O(m * n / 64 + buffers * n).
pub(crate) fn f4_global_bound(g: &Graph, max_nodes: usize, max_memory_bytes: u64) -> Option<u64> {
    let n = g.node_count();
    (n <= max_nodes && Reach::bytes_for(n) <= max_memory_bytes / 8)
        .then(|| bounds::global(g, &Reach::new(g)) as u64)
}

/// The lower bound every graph has at no cost: memory never drops below 0
/// (a FREE follows its ALLOC), so after any node at least its own delta is
/// live, and at the end the final memory. The F4 bound is never below it.
///
/// # Complexity
/// O(n).
pub(crate) fn trivial_bound(g: &Graph) -> u64 {
    let largest = g.nodes().map(|v| g.delta(v)).max().unwrap_or(0);
    largest.max(g.final_memory()).max(0) as u64
}

/// Up to this many nodes a search stopped before its bounds were built
/// (`exact`, `dp`) still reports the F4 bound: a few milliseconds there,
/// where the final memory alone can be far below the largest buffer.
pub(crate) const STOPPED_BOUND_MAX_NODES: usize = 8_192;

/// The lower bound of a search stopped before its bounds were built: the
/// global F4 bound where it is cheap (up to [`STOPPED_BOUND_MAX_NODES`]
/// nodes; from `reach` when the bitsets were built, else from its own if
/// they fit the budget), as a stopped `dp` reports it; else the
/// [`trivial_bound`].
fn stopped_bound(g: &Graph, reach: Option<&Reach>, ctx: &SolveContext) -> u64 {
    let f4 = match reach {
        Some(reach) if g.node_count() <= STOPPED_BOUND_MAX_NODES => {
            Some(bounds::global(g, reach) as u64)
        }
        Some(_) => None,
        None => f4_global_bound(g, STOPPED_BOUND_MAX_NODES, ctx.budget.max_memory_bytes),
    };
    f4.unwrap_or_else(|| trivial_bound(g))
}

/// Which reductions [`Exact`] uses. All are on by default; tests turn them
/// off to check that they never change the optimum.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Options {
    /// Solve in-trees of ops by Liu's algorithm ([`crate::solvers::Liu`]).
    pub liu: bool,
    /// Split at cut points and solve the pieces one after another.
    pub split: bool,
    /// Consecutive pieces are merged until each has at least this many nodes.
    pub min_piece: usize,
    /// Store one state per orbit of the identical-branch symmetry.
    pub symmetry: bool,
    /// Take a descending move at once when a state has one.
    pub descents: bool,
    /// Also take the upper bound from a beam search over moves ([`beam`]).
    pub beam: bool,
    /// When the search stops without a proof, improve its order with a
    /// short `anneal` from it (see [`Exact::polish`]).
    pub polish: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            liu: true,
            split: true,
            min_piece: 16,
            symmetry: true,
            descents: true,
            beam: true,
            polish: true,
        }
    }
}

/// The reductions `exact:OPTIONS` can turn off, by name, in the order a
/// name lists them.
pub const ABLATIONS: [&str; 6] = [
    "no-liu",
    "no-split",
    "no-symmetry",
    "no-descents",
    "no-beam",
    "no-polish",
];

impl Options {
    /// The switch `exact:OPTIONS` calls `name` (one of [`ABLATIONS`]).
    fn switch(&mut self, name: &str) -> Option<&mut bool> {
        match name {
            "no-liu" => Some(&mut self.liu),
            "no-split" => Some(&mut self.split),
            "no-symmetry" => Some(&mut self.symmetry),
            "no-descents" => Some(&mut self.descents),
            "no-beam" => Some(&mut self.beam),
            "no-polish" => Some(&mut self.polish),
            _ => None,
        }
    }

    /// The options of `exact:OPTIONS`: every reduction on but those that
    /// the comma-separated `text` turns off (see [`ABLATIONS`]).
    pub fn parse(text: &str) -> Result<Options, String> {
        let mut o = Options::default();
        for (i, word) in text.split(',').map(str::trim).enumerate() {
            if word.is_empty() {
                return Err(format!("option {} of `{text}` is empty", i + 1));
            }
            let on = o.switch(word).ok_or_else(|| {
                format!(
                    "unknown option `{word}`: write a comma-separated list of {}",
                    ABLATIONS.join(", ")
                )
            })?;
            if !*on {
                return Err(format!("option `{word}` is given twice in `{text}`"));
            }
            *on = false;
        }
        Ok(o)
    }

    /// The reductions turned off, as `exact:OPTIONS` names them (in the
    /// order of [`ABLATIONS`]), or `None` when all are on. `min_piece` is
    /// not named (only the library sets it).
    pub fn ablations(&self) -> Option<String> {
        let mut o = *self;
        let names: Vec<&str> = ABLATIONS
            .into_iter()
            .filter(|name| o.switch(name).is_some_and(|on| !*on))
            .collect();
        (!names.is_empty()).then(|| names.join(","))
    }
}

/// The exact solver. See the module docs for the algorithm.
///
/// Past its budget (deadline, `max_states`, `max_memory_bytes`) it returns
/// the best schedule known, status `feasible`, with the proven lower bound
/// (the lowest key still open); it says `optimal` only when the search is
/// exhausted or the bounds meet.
///
/// # Complexity
/// Exponential in the graph's width in the worst case (NP-hard); see
/// [`search`] for the per-state cost. Precomputation is O(n^2 / 64 * m).
pub struct Exact {
    upper: Box<dyn Scheduler>,
    options: Options,
    /// The name it reports, when set by [`Exact::named`].
    name: Option<String>,
}

impl std::fmt::Debug for Exact {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Exact")
            .field("name", &self.name())
            .field("upper", &self.upper.name())
            .finish()
    }
}

impl Exact {
    /// An exact solver whose initial upper bound comes from `upper`.
    pub fn new(upper: Box<dyn Scheduler>) -> Self {
        Exact::with_options(upper, Options::default())
    }

    /// An exact solver with the given reductions.
    pub fn with_options(upper: Box<dyn Scheduler>, options: Options) -> Self {
        Exact {
            upper,
            options,
            name: None,
        }
    }

    /// Sets the name it reports: an `Exact` over an upper bound of your
    /// own is another solver than the registry's `exact`, and its rows
    /// should say so (register it under that name, see
    /// [`register`](crate::solvers::register)).
    pub fn named(mut self, name: impl Into<String>) -> Self {
        self.name = Some(name.into());
        self
    }

    /// The default upper-bound source: `best-heuristic` (every fast
    /// heuristic, including this search's own move greedy).
    pub fn default_upper() -> Box<dyn Scheduler> {
        Box::new(super::best_heuristic())
    }
}

impl Default for Exact {
    fn default() -> Self {
        Exact::new(Exact::default_upper())
    }
}

impl Scheduler for Exact {
    fn name(&self) -> String {
        if let Some(name) = &self.name {
            return name.clone();
        }
        match self.options.ablations() {
            Some(off) => format!("exact:{off}"),
            None => "exact".into(),
        }
    }

    fn abilities(&self) -> Abilities {
        Abilities {
            exact: true,
            anytime: true,
            budgeted: true,
            ..Abilities::default()
        }
    }

    fn solve(&self, g: &Graph, ctx: &SolveContext) -> Outcome {
        if self.options.liu {
            // Liu's merge copies each subtree's order, quadratic on deep
            // branching (a caterpillar): under a limit it gets half the
            // time left, and a tree it cannot finish goes to the search.
            let mut liu_ctx = ctx.clone();
            if let Some(left) = ctx.remaining() {
                liu_ctx.deadline = Instant::now().checked_add(left / 2);
            }
            if let Ok(out) = super::liu::solve_forest(g, &liu_ctx) {
                if out.status == Status::Optimal {
                    return out;
                }
            }
        }
        if !self.options.polish || g.node_count() > POLISH_MAX_NODES {
            return self.search(g, ctx);
        }
        // The search leaves the polish time for its moves
        // ([`POLISH_NS_PER_MOVE`]), at most a tenth of the time left.
        let mut search_ctx = ctx.clone();
        if let Some(left) = ctx.remaining() {
            let moves = super::anneal::default_iterations(g.node_count());
            let reserve = (Duration::from_nanos(moves * POLISH_NS_PER_MOVE) + SEARCH_OVERSHOOT)
                .min(left / 10);
            search_ctx.deadline = Instant::now().checked_add(left - reserve);
        }
        let out = self.search(g, &search_ctx);
        self.polish(g, ctx, out)
    }
}

/// The time the search leaves the polish, per `anneal` move: twice the
/// 250 ns measured (20,000 moves in 5 ms on 150-node trees).
const POLISH_NS_PER_MOVE: u64 = 500;

/// How far past its deadline the search may run before it sees it (17 ms
/// seen on a 164-node tree under a 5 s limit), also left to the polish.
const SEARCH_OVERSHOOT: Duration = Duration::from_millis(50);

/// Ancestor bitsets above this size (about 16,000 nodes) take long enough
/// to build that the upper-bound source runs before them.
const UPPER_FIRST_BYTES: u64 = 32 << 20;

/// A time limit this short may run out in the setup (bitsets, beam,
/// bounds: about 10 ms on 150 nodes): the upper-bound source runs first.
const UPPER_FIRST_TIME: Duration = Duration::from_secs(1);

/// Graphs above this many nodes are not polished: there `anneal`'s moves
/// (64 per node) take seconds, and the search's tables rarely fit anyway.
const POLISH_MAX_NODES: usize = 20_000;

impl Exact {
    /// The search proper: pieces, upper bound, bounds, best-first search.
    fn search(&self, g: &Graph, ctx: &SolveContext) -> Outcome {
        let n = g.node_count();
        if n == 0 {
            return Outcome::optimal(Vec::new(), 0);
        }
        // Under a short limit, or where the ancestor bitsets are large, the
        // upper-bound source runs first: a limit that runs out while they
        // are built still returns its order.
        let early = self
            .runs_upper_first(g, ctx)
            .then(|| self.upper_order(g, ctx));
        let reach = Reach::within(g, ctx);
        let splittable = self.options.split && n >= 2 * self.options.min_piece.max(1);
        if let (true, Some(reach)) = (splittable, &reach) {
            // Past the deadline no parts: the whole graph, which then stops.
            let parts = cuts::pieces_until(g, reach, self.options.min_piece, || ctx.expired())
                .unwrap_or_default();
            if parts.len() > 1 {
                // The pieces take the early order as their warm start when
                // it beats the one given.
                let mut piece_ctx = ctx.started();
                if let Some((Some(order), _)) = &early {
                    let peak = |o: &[NodeIdx]| schedule::check(g, o).ok().map(|e| e.peak);
                    let warm = piece_ctx.warm_start.as_deref().and_then(peak);
                    if peak(order).is_some_and(|p| warm.is_none_or(|w| p < w)) {
                        piece_ctx.warm_start = Some(order.clone());
                    }
                }
                let upper_ran = early.is_some();
                if let Some(out) = pieces::solve(self, g, &parts, &piece_ctx, upper_ran) {
                    return out;
                }
            }
        }
        let upper = match early {
            Some((order, from)) => Upper::Ran(order, from),
            None => Upper::IfNeeded,
        };
        let prep = self.prepare(g, ctx, reach, upper);
        self.attempt(g, &prep, ctx, 0).into_outcome()
    }

    /// Whether the upper-bound source runs before the ancestor bitsets:
    /// when they are large ([`UPPER_FIRST_BYTES`]) or the time left is
    /// short ([`UPPER_FIRST_TIME`]). Otherwise it runs after the move beam,
    /// and only if the beam leaves a gap to the F4 bound (on small graphs
    /// it costs as much as the search).
    fn runs_upper_first(&self, g: &Graph, ctx: &SolveContext) -> bool {
        Reach::bytes_for(g.node_count()) > UPPER_FIRST_BYTES
            || ctx.remaining().is_some_and(|left| left < UPPER_FIRST_TIME)
    }

    /// The upper-bound source's order (if any) and where it came from.
    fn upper_order(&self, g: &Graph, ctx: &SolveContext) -> (Option<Vec<NodeIdx>>, String) {
        let up = self.upper.solve(g, ctx);
        let from = match &up.note {
            Some(note) => format!("{} ({note})", self.upper.name()),
            None => self.upper.name(),
        };
        (up.order, from)
    }

    /// A search stopped without a proof (`feasible`) hands its order to
    /// `anneal` (seed 0 whatever the context's, so `exact` stays
    /// deterministic without a time limit; under one, `anneal` paces its
    /// moves by the clock): local moves the search's upper-bound sources do
    /// not make can lower it (on `gen tree --seed 1`, 281792 -> 265520 where a 5 s
    /// search had not moved the best heuristic's order). The lower bound
    /// stays the search's; the order is kept only if it is better, and is
    /// `optimal` if it meets the bound.
    fn polish(&self, g: &Graph, ctx: &SolveContext, out: Outcome) -> Outcome {
        if out.status != Status::Feasible {
            return out;
        }
        let Some(order) = &out.order else {
            return out;
        };
        let peak_of = |o: &[NodeIdx]| schedule::check(g, o).ok().map(|e| e.peak);
        let Some(before) = peak_of(order) else {
            return out;
        };
        let mut sub = ctx.with_seed(0);
        sub.warm_start = Some(order.clone());
        let annealed = Anneal::default().solve(g, &sub);
        let Some(better) = annealed.order else {
            return out;
        };
        let Some(after) = peak_of(&better).filter(|&p| p < before) else {
            return out;
        };
        let lower = out.lower_bound.unwrap_or(0);
        let note = format!(
            "{}; anneal from it lowered the peak from {before} to {after}",
            out.note.as_deref().unwrap_or("search stopped")
        );
        let mut polished = close_or_feasible(better, after, lower).with_note(note);
        polished.counters = out.counters;
        polished
    }
}

/// The move beam keeps `BEAM_NODES / n` states (at most [`MAX_BEAM_WIDTH`];
/// none below 4): its cost grows with the width times n^2.
const BEAM_NODES: usize = 16_384;
const MAX_BEAM_WIDTH: usize = 64;

/// The upper-bound source's part in [`Exact::prepare`].
pub(crate) enum Upper {
    /// Run it if the other sources leave a gap to the F4 bound.
    IfNeeded,
    /// It ran already: its order (if any) and where it came from.
    Ran(Option<Vec<NodeIdx>>, String),
    /// It ran on the whole graph, whose order reaches this piece as its
    /// warm start: not again.
    RanOnWhole,
}

/// A graph ready to search: the best order known and the bounds.
pub(crate) struct Prepared {
    ub: u64,
    ub_order: Vec<NodeIdx>,
    ub_from: String,
    /// Ancestor bitsets and F4 bounds; `None` if the graph is too large.
    tools: Option<(Reach, Bounds)>,
    /// The F4 bound of the whole graph (at least its final memory).
    global: u64,
}

/// What one solve established about one graph.
pub(crate) struct Attempt {
    order: Vec<NodeIdx>,
    peak: u64,
    /// Every schedule of the graph peaks at or above this.
    lower: u64,
    work: Work,
    /// Identical branches the search stored once (0: none or not searched).
    branches: usize,
    note: String,
    /// What stopped it before it ended on its own, as its note's first
    /// clause says; `None` otherwise.
    stop: Option<StopCause>,
}

/// What stopped an [`Attempt`] before its search ended on its own.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum StopCause {
    /// One of the solve's budgets ran out (a piece's: maybe its share).
    Spent(Resource),
    /// A stop from outside (Ctrl-C, SIGTERM): its cause, as
    /// [`SolveContext::limit_cause`] words it.
    Outside(&'static str),
    /// The search could not be prepared: the note's whole clause.
    Preparing(String),
}

/// What a budget of a solve limits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Resource {
    /// The states the search may store.
    States,
    /// The time limit.
    Time,
    /// The memory the search may fill.
    Memory,
}

impl Resource {
    /// As a note names it.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Resource::States => "the state budget",
            Resource::Time => "the time limit",
            Resource::Memory => "the memory budget",
        }
    }
}

impl StopCause {
    /// The time limit or an outside stop, whichever ended `ctx`.
    fn limit(ctx: &SolveContext) -> StopCause {
        if ctx.stopped() {
            StopCause::Outside(ctx.limit_cause())
        } else {
            StopCause::Spent(Resource::Time)
        }
    }
}

impl std::fmt::Display for StopCause {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            StopCause::Spent(resource) => write!(f, "stopped by {}", resource.name()),
            StopCause::Outside(cause) => write!(f, "stopped by {cause}"),
            StopCause::Preparing(clause) => f.write_str(clause),
        }
    }
}

impl Attempt {
    fn into_outcome(self) -> Outcome {
        let out = close_or_feasible(self.order, self.peak, self.lower)
            .with_note(self.note)
            .with_counter("states", self.work.states)
            .with_counter("expanded", self.work.expanded);
        if self.branches > 0 {
            out.with_counter("symmetric_branches", self.branches as u64)
        } else {
            out
        }
    }
}

impl Exact {
    /// The upper bound (the best checked order among the warm start, the
    /// stored topological order, the move beam and the upper-bound source)
    /// and bounds; `reach` is `g`'s ancestor bitsets, `None` when over the
    /// budget. The upper-bound source runs only if the others leave a gap
    /// to the F4 bound: on small graphs it costs as much as the search.
    /// `upper` says whether the upper-bound source already ran
    /// ([`Exact::runs_upper_first`]).
    fn prepare(
        &self,
        g: &Graph,
        ctx: &SolveContext,
        reach: Option<Reach>,
        upper: Upper,
    ) -> Prepared {
        type Best = Option<(u64, Vec<NodeIdx>, String)>;
        let consider = |best: &mut Best, order: Option<Vec<NodeIdx>>, from: &str| {
            let Some(order) = order else { return };
            if let Ok(e) = schedule::check(g, &order) {
                if best.as_ref().is_none_or(|(p, _, _)| e.peak < *p) {
                    *best = Some((e.peak, order, from.to_string()));
                }
            }
        };
        let mut best: Best = None;
        let upper_ran = !matches!(upper, Upper::IfNeeded);
        if let Upper::Ran(order, from) = upper {
            consider(&mut best, order, &from);
        }
        consider(&mut best, ctx.warm_start.clone(), "warm start");
        consider(
            &mut best,
            Some(g.topo_order().to_vec()),
            "topological order",
        );
        let (tools, global) = match reach {
            // Over the budget, or stopped while building them.
            None => (None, stopped_bound(g, None, ctx)),
            Some(reach) => {
                let width = BEAM_NODES / g.node_count().max(1);
                if self.options.beam && width >= 4 {
                    let order = beam::order(g, &reach, width.min(MAX_BEAM_WIDTH), ctx);
                    consider(&mut best, order, "move-beam");
                }
                match Bounds::new_until(g, &reach, || ctx.expired()) {
                    Some(bounds) => {
                        let global = bounds.global() as u64;
                        (Some((reach, bounds)), global)
                    }
                    None => (None, stopped_bound(g, Some(&reach), ctx)),
                }
            }
        };
        let known = best.as_ref().map(|(peak, _, _)| *peak);
        if !upper_ran && known.is_none_or(|peak| peak > global) {
            let (order, from) = self.upper_order(g, ctx);
            consider(&mut best, order, &from);
        }
        let (ub, ub_order, ub_from) = best.expect("the stored topological order is a schedule");
        Prepared {
            ub,
            ub_order,
            ub_from,
            tools,
            global,
        }
    }

    /// Searches `g` for an order below the upper bound, content with one at
    /// or below `target` (0: the optimum).
    fn attempt(&self, g: &Graph, prep: &Prepared, ctx: &SolveContext, target: u64) -> Attempt {
        let from = &prep.ub_from;
        let known = |lower: u64, note: String| Attempt {
            order: prep.ub_order.clone(),
            peak: prep.ub,
            lower,
            work: Work::default(),
            branches: 0,
            note,
            stop: None,
        };
        let Some((reach, bounds)) = &prep.tools else {
            let bytes = Reach::bytes_for(g.node_count());
            let why = if bytes > ctx.budget.max_memory_bytes / 8 {
                format!(
                    "ancestor bitsets ({bytes} bytes for {} nodes) exceed 1/8 of the memory \
                     budget",
                    g.node_count()
                )
            } else {
                format!(
                    "stopped by {} while preparing the search (bitsets, cut points, bounds)",
                    ctx.limit_cause()
                )
            };
            // The bound taken without the search's tables may still close
            // the proof.
            let note = match prep.ub <= prep.global {
                true => format!(
                    "{why}; upper bound from {from} meets the lower bound {} found without \
                     the search, which proves it",
                    prep.global
                ),
                false => format!("{why}; upper bound from {from}"),
            };
            return Attempt {
                stop: Some(StopCause::Preparing(why)),
                ..known(prep.global, note)
            };
        };
        if prep.ub <= prep.global {
            return known(
                prep.global,
                format!("upper bound from {from} meets the F4 bound"),
            );
        }
        if prep.ub <= target {
            return known(
                prep.global,
                format!("upper bound from {from} is good enough"),
            );
        }
        let sym = if self.options.symmetry {
            Symmetry::find(g)
        } else {
            Symmetry::none()
        };
        let pb = Problem {
            g,
            reach,
            bounds,
            sym: &sym,
            descents: self.options.descents,
        };
        let mut work = Work::default();
        let found = search::search(&pb, prep.ub as i64, target as i64, ctx, &mut work);
        // A key at or below the target says nothing beyond the global bound.
        let proven = |key: i64| {
            let key = key.max(0) as u64;
            if key > target {
                key.max(prep.global)
            } else {
                prep.global
            }
        };
        let mut out = match found {
            Found::Better(order, peak) => Attempt {
                order,
                peak: peak as u64,
                lower: proven(peak),
                work,
                branches: 0,
                note: format!("search improved on {from} ({})", prep.ub),
                stop: None,
            },
            Found::UpperIsOptimal => known(prep.ub, format!("search proved {from} optimal")),
            Found::Stopped(key) => {
                // In the order the search tests them.
                let stop = if work.states >= ctx.budget.max_states {
                    StopCause::Spent(Resource::States)
                } else if ctx.expired() {
                    StopCause::limit(ctx)
                } else {
                    StopCause::Spent(Resource::Memory)
                };
                Attempt {
                    note: format!("{stop}; best order from {from}"),
                    stop: Some(stop),
                    ..known(proven(key), String::new())
                }
            }
        };
        out.work = work;
        out.branches = sym.sizes().1;
        out
    }
}

fn close_or_feasible(order: Vec<NodeIdx>, peak: u64, lb: u64) -> Outcome {
    if lb >= peak {
        Outcome::optimal(order, peak)
    } else {
        Outcome::feasible(order).with_lower_bound(Some(lb))
    }
}

/// The F4 bound of the whole graph: max(0, final memory, the buffers live
/// after each node in every schedule). Never above the optimal peak.
///
/// # Complexity
/// O(n^2 / 64 * m + buffers * n).
pub fn lower_bound(g: &Graph) -> u64 {
    let reach = Reach::new(g);
    Bounds::new(g, &reach).global() as u64
}

/// The per-state F4 bound: every order that runs the nodes of `executed`
/// (a downset) first then peaks, after that point, at or above it. Returns
/// `None` if `executed` is not a downset or names a node twice or out of range.
pub fn state_lower_bound(g: &Graph, executed: &[NodeIdx]) -> Option<u64> {
    let set = downset_bits(g, executed)?;
    let reach = Reach::new(g);
    let bounds = Bounds::new(g, &reach);
    let mut live = bounds::LiveScratch::default();
    let b = bounds.state(g, &reach, &set, &mut live, 0, i64::MAX);
    Some(b as u64)
}

/// `executed` as a bitset, or `None` if it is not a downset of `g` or names a
/// node twice or out of range.
fn downset_bits(g: &Graph, executed: &[NodeIdx]) -> Option<Vec<u64>> {
    let n = g.node_count();
    let mut set = vec![0u64; state::words(n)];
    for &v in executed {
        if v as usize >= n || state::has(&set, v) {
            return None;
        }
        state::add(&mut set, v);
    }
    let downset = executed
        .iter()
        .all(|&v| g.preds(v).iter().all(|&p| state::has(&set, p)));
    if !downset {
        return None;
    }
    Some(set)
}

/// The last-FREE bound of a state: every order that runs the nodes of
/// `executed` (a downset) first peaks at or above it, counting the memory
/// right after `executed` (see `bounds.rs`). Returns `None` if `executed` is
/// not a downset or names a node twice or out of range, and 0 when no node
/// with delta < 0 is left.
pub fn last_free_lower_bound(g: &Graph, executed: &[NodeIdx]) -> Option<u64> {
    let set = downset_bits(g, executed)?;
    let reach = Reach::new(g);
    Some(Bounds::new(g, &reach).last_free(g, &set).max(0) as u64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::GraphBuilder;
    use crate::solvers::{run, Status};

    /// The graph in [`MoveGreedy`]'s doc: the greedy peaks at 13, the optimum is 11.
    pub(super) fn greedy_trap() -> Graph {
        let mut b = GraphBuilder::new();
        let b1 = b.alloc(1, 0);
        let op_b1 = b.op("B1");
        let b2 = b.alloc(10, 1);
        let op_b2 = b.op("B2");
        let f1 = b.free(0);
        let f2 = b.free(1);
        let c = b.alloc(2, 2);
        let op_c = b.op("C1");
        for (u, v) in [
            (b1, op_b1),
            (op_b1, op_b2),
            (b2, op_b2),
            (op_b2, f1),
            (op_b2, f2),
            (c, op_c),
        ] {
            b.edge(u, v);
        }
        b.build().unwrap()
    }

    /// An `Exact` over another upper bound can carry its own name, which
    /// its reports and rows use; `Debug` names it and its upper bound.
    #[test]
    fn a_named_exact_reports_its_name() {
        let mine = Exact::new(Box::new(crate::solvers::Kahn)).named("exact-from-kahn");
        assert_eq!(mine.name(), "exact-from-kahn");
        let r = run(&mine, &greedy_trap(), &SolveContext::default());
        assert_eq!(
            (r.solver.as_str(), r.status),
            ("exact-from-kahn", Status::Optimal)
        );
        let debug = format!("{mine:?}");
        assert!(
            debug.contains("exact-from-kahn") && debug.contains("kahn"),
            "{debug}"
        );
    }

    #[test]
    fn exact_beats_the_move_greedy_on_its_documented_trap() {
        let g = greedy_trap();
        let ctx = SolveContext::default();
        assert_eq!(run(&MoveGreedy, &g, &ctx).peak, Some(13));
        // The trap is a forest of ops: `liu` would answer without search.
        let options = Options {
            liu: false,
            beam: false,
            ..Options::default()
        };
        let only_greedy = Exact::with_options(Box::new(MoveGreedy), options);
        let r = run(&only_greedy, &g, &ctx);
        assert_eq!((r.status.clone(), r.peak), (Status::Optimal, Some(11)));
        assert!(
            r.counter("expanded").unwrap() > 0,
            "the search did the work"
        );
    }

    /// A graph split at cut points whose pieces a budget stopped says what
    /// stopped them, as an unsplit search does (`series-parallel:ops=150`,
    /// seed 0: two pieces, neither proven under 1,000 states), and counts
    /// the states of every attempt, the second pass's too.
    #[test]
    fn a_split_search_names_what_stopped_its_pieces() {
        let spec = crate::corpus::gen::GenSpec::parse("series-parallel:ops=150").unwrap();
        let g = crate::corpus::gen::generate(&spec, 0).unwrap();
        let mut ctx = SolveContext::default();
        ctx.budget.max_states = 1_000;
        let r = run(&Exact::default(), &g, &ctx);
        assert_eq!(r.status, Status::Feasible);
        assert!(r.counter("states").unwrap() >= 1_000);
        let note = r.note.unwrap();
        assert!(
            note.starts_with("split at cut points")
                && note.ends_with("; stopped by the state budget)"),
            "{note}"
        );
    }

    /// A piece stopped by its share of the states, which the rest of the
    /// search then did not need, is not blamed on the whole budget
    /// (`series-parallel:ops=60`, seed 5, 50 states: optimal after 28, one
    /// piece unproven but below what the others prove).
    #[test]
    fn a_split_search_names_a_share_of_the_budget() {
        let spec = crate::corpus::gen::GenSpec::parse("series-parallel:ops=60").unwrap();
        let g = crate::corpus::gen::generate(&spec, 5).unwrap();
        let mut ctx = SolveContext::default();
        ctx.budget.max_states = 50;
        let r = run(&Exact::default(), &g, &ctx);
        assert_eq!(r.status, Status::Optimal);
        assert!(r.counter("states").unwrap() < 50);
        let note = r.note.unwrap();
        assert!(
            note.ends_with("; stopped by its share of the state budget)"),
            "{note}"
        );
    }

    /// `gen tree --seed 1`: a search stopped by its state budget keeps the
    /// best heuristic's order; the polish lowers it (281792 -> 265520),
    /// keeps the search's bound and says so. Without the polish, the
    /// search's order stands.
    #[test]
    fn a_stopped_search_is_polished_by_anneal() {
        let spec = crate::corpus::gen::GenSpec::parse("tree").unwrap();
        let g = crate::corpus::gen::generate(&spec, 1).unwrap();
        let mut ctx = SolveContext::default();
        ctx.budget.max_states = 1_000;
        // An in-tree: `liu` would prove it without search.
        let search = Options {
            liu: false,
            ..Options::default()
        };
        let plain = Exact::with_options(
            Exact::default_upper(),
            Options {
                polish: false,
                ..search
            },
        );
        let polishing = Exact::with_options(Exact::default_upper(), search);
        let stopped = run(&plain, &g, &ctx);
        let polished = run(&polishing, &g, &ctx);
        assert_eq!(stopped.status, Status::Feasible);
        assert_eq!(polished.status, Status::Feasible);
        assert!(
            polished.peak < stopped.peak,
            "{:?} {:?}",
            polished.peak,
            stopped.peak
        );
        assert_eq!(polished.lower_bound, stopped.lower_bound);
        assert!(polished
            .note
            .unwrap()
            .contains("anneal from it lowered the peak"));
        // Deterministic whatever the context's seed.
        let again = run(&polishing, &g, &SolveContext { seed: 9, ..ctx });
        assert_eq!(again.peak, polished.peak);
    }

    /// A search stopped before its bitsets were built still reports the
    /// F4 bound, as a stopped `dp` does (it reported the final memory:
    /// 65,536 against 851,968 on this fork-join).
    #[test]
    fn a_search_stopped_at_once_keeps_the_f4_bound() {
        let spec = crate::corpus::gen::GenSpec::parse("fork-join:branches=12").unwrap();
        let g = crate::corpus::gen::generate(&spec, 1).unwrap();
        let f4 = f4_global_bound(&g, STOPPED_BOUND_MAX_NODES, u64::MAX).unwrap();
        assert!(f4 > g.final_memory() as u64);
        let ctx = SolveContext::new(0, Some(std::time::Duration::from_nanos(1)));
        let r = run(&Exact::default(), &g, &ctx);
        assert!(r.lower_bound >= Some(f4), "{r:?}");
    }

    /// Where the F4 table is not built (too many nodes, or past the memory
    /// budget), a stop keeps the largest buffer (10 here), not the final
    /// memory alone (2).
    #[test]
    fn a_search_stopped_without_the_f4_table_keeps_the_largest_buffer() {
        let g = greedy_trap();
        assert_eq!(g.final_memory(), 2);
        let mut ctx = SolveContext::default();
        ctx.budget.max_memory_bytes = 5;
        assert_eq!(stopped_bound(&g, None, &ctx), 10);
    }

    #[test]
    fn an_optimal_warm_start_closes_without_search_when_bounds_meet() {
        let g = greedy_trap();
        let warm: Vec<NodeIdx> = vec![0, 1, 2, 3, 4, 5, 6, 7];
        let ctx = SolveContext {
            warm_start: Some(warm),
            ..SolveContext::default()
        };
        let options = Options {
            liu: false,
            ..Options::default()
        };
        let r = run(
            &Exact::with_options(Box::new(MoveGreedy), options),
            &g,
            &ctx,
        );
        assert_eq!((r.status.clone(), r.peak), (Status::Optimal, Some(11)));
        assert_eq!(r.counter("states"), Some(0));
    }
}
