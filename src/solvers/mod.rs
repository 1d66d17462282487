//! Schedulers behind one trait, a registry by name, and the checked runner.
//!
//! - [`Scheduler`] is the one signature every solver has: graph and
//!   [`SolveContext`] (seed, deadline, budgets) in, [`Outcome`] out.
//! - [`registry`] finds a solver by name (`kahn`, `rule:delta,id`, ...).
//! - [`run`] calls a solver, times it and passes its order through the
//!   independent checker ([`crate::schedule::check`]); the [`Report`] it
//!   returns is the only thing the rest of memsched records.
//! - [`BestOf`] is a scheduler made of schedulers: it keeps the lowest peak.

mod best_of;
mod context;
pub(crate) mod kahn;
mod outcome;
mod program;
pub mod registry;
mod seed_greedy;
pub(crate) mod sorted_run;

// Heuristics: priority rules, published schedulers, randomized, local search.
pub mod anneal;
mod best_heuristic;
pub mod published;
pub mod rule;

// Exact solvers.
mod brute;
mod dp;
pub mod exact;
mod external;
mod liu;

// ILP.
#[cfg(feature = "ilp")]
mod ilp;
#[cfg(feature = "ilp")]
pub use ilp::{Ilp, BOUND_ALLOWANCE as ILP_BOUND_ALLOWANCE, ILP_MAX_BINARIES, ILP_MAX_NODES};

pub use anneal::Anneal;
pub use best_heuristic::best_heuristic;
pub use best_of::BestOf;
pub use brute::{Brute, BRUTE_MAX_NODES};
pub use context::{Budget, DeadlineTicker, Fallback, Posted, SolveContext, Stop};
pub use dp::Dp;
pub use exact::{Exact, MoveGreedy};
pub(crate) use external::source_path as orders_source_path;
pub use external::ExternalOrders;
pub use kahn::Kahn;
pub use liu::Liu;
pub use outcome::{gap_to_bound_pct, refute_bounds, Outcome, Rejection, Report, Status};
pub(crate) use outcome::{wrong_bound_claim, wrong_bound_reason, wrong_bound_refuter};
pub use program::ProgramOrder;
pub use registry::{
    build, list, names_with, not_built, register, split_name, SolverError, SolverInfo,
};
pub use seed_greedy::SeedGreedy;

use std::time::{Duration, Instant};

use crate::graph::Graph;
use crate::schedule;

/// An `i64` as a word that compares like the integer (its sign bit
/// flipped), for keys packed into one unsigned integer.
#[inline]
pub(crate) fn enc_int(x: i64) -> u64 {
    (x as u64) ^ (1 << 63)
}

/// What a solver can do beyond returning an order; shown by `memsched solvers`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Abilities {
    /// The result depends on [`SolveContext::seed`].
    pub seeded: bool,
    /// It can prove optimality (status `optimal`) and report lower bounds.
    pub exact: bool,
    /// It stops at [`SolveContext::deadline`] with its best order so far.
    pub anytime: bool,
    /// It keeps the best of [`SolveContext::restarts`] seeded runs
    /// (`--restarts K`, an experiment's `restarts`).
    pub restarts: bool,
    /// It reads [`SolveContext::budget`] (`--max-states`,
    /// `--memory-budget`, an experiment's `[budget]`), itself or through a
    /// member or its start.
    pub budgeted: bool,
    /// It reads [`SolveContext::seed`] without being
    /// [`seeded`](Abilities::seeded): the seed only steers its search
    /// (`ilp` hands it to HiGHS), so an experiment runs it once, with seed
    /// 0, but `schedule --seed` reaches it.
    pub steered_by_seed: bool,
}

/// A memory-aware scheduler.
///
/// Implementations return an order of node indices; the recorded peak is
/// never theirs but the checker's (see [`run`]; a solver may call
/// [`crate::schedule::check`] itself, to keep the best of
/// several tries). Every implementation must stop within the context's
/// deadline (checked cooperatively: [`SolveContext::expired`], or a
/// [`DeadlineTicker`] in a hot loop) and must be deterministic for a given
/// seed (draw from [`Rng::derive`](crate::rng::Rng::derive)`(ctx.seed, k)`
/// for a `k`-th stream). [`run`] starts the deadline's clock; `solve`
/// called directly gets one from [`SolveContext::started`].
///
/// [`register`] makes a solver of your own buildable by name, for
/// experiments and a command line of your own (`memsched::cli::main`):
///
/// ```
/// use memsched::graph::Graph;
/// use memsched::solvers::{self, Outcome, Scheduler, SolveContext};
///
/// /// Program order: the graph's `Nodes` order, which is a schedule
/// /// only when the file lists every node after its predecessors.
/// struct AsListed;
///
/// impl Scheduler for AsListed {
///     fn name(&self) -> String {
///         "as-listed".into()
///     }
///     fn solve(&self, g: &Graph, _ctx: &SolveContext) -> Outcome {
///         Outcome::feasible(g.nodes().collect())
///     }
/// }
///
/// let g = memsched::graph::GraphBuilder::new().build()?;
/// let report = solvers::run(&AsListed, &g, &SolveContext::default());
/// assert_eq!(report.peak, Some(0)); // the checker's figure
/// # Ok::<(), memsched::GraphError>(())
/// ```
pub trait Scheduler: Send + Sync {
    /// The registry name that builds this solver (e.g. `rule:delta,id`).
    fn name(&self) -> String;
    /// Computes a schedule.
    fn solve(&self, graph: &Graph, ctx: &SolveContext) -> Outcome;
    /// Optional abilities; none by default.
    fn abilities(&self) -> Abilities {
        Abilities::default()
    }
    /// The same solver working on a prebuilt op view, if it is one of the
    /// published op-level schedulers; best-ofs then build the view once.
    /// Internal to memsched's own schedulers: a solver of your own keeps
    /// this default.
    fn op_scheduler(&self) -> Option<&dyn published::OpScheduler> {
        None
    }
}

/// Runs `solver` on `graph` and checks its answer independently.
///
/// A wrong answer (an order that is not a schedule, a claimed peak the checker
/// does not reproduce, a lower bound above the peak, "optimal" with an open
/// gap) becomes a report with `status = Invalid`, never a figure.
///
/// A panic in the solver reaches the caller; an experiment
/// ([`crate::experiment::run`]) catches it as a `failed` row whose reason
/// starts `panicked: `. The time limit is the solver's to keep (see
/// [`Scheduler`]): `run` does not stop a solve that overruns it, and the
/// report's `time` shows by how much.
pub fn run(solver: &dyn Scheduler, graph: &Graph, ctx: &SolveContext) -> Report {
    let ctx = ctx.started();
    let start = Instant::now();
    let outcome = solver.solve(graph, &ctx);
    let time = start.elapsed();
    Report::from_outcome(solver.name(), graph, outcome, time, schedule::check)
}

/// The checked report of the order a solve posted to its
/// [`Fallback`] (the solve itself left behind, `time` after it started):
/// `feasible` with the posted lower bound, or `invalid` as [`run`] makes
/// a wrong answer.
pub fn posted_report(solver: String, graph: &Graph, posted: Posted, time: Duration) -> Report {
    let outcome = Outcome::feasible(posted.order).with_lower_bound(posted.lower_bound);
    Report::from_outcome(solver, graph, outcome, time, schedule::check)
}
