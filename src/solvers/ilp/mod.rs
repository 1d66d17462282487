//! `ilp`: a time-indexed integer program, solved by HiGHS through good_lp.
//!
//! Pipeline, one module each:
//! [`reduce`] contracts the graph into clusters (exactly: the optimum is
//! unchanged) and gives each a role; [`windows`] bounds the step of each
//! cluster by its ancestors and descendants; [`bounds`] computes the F4
//! lower bound; [`sim`] runs a sequence of clusters (the starting schedules
//! and the decoding of HiGHS's answer); [`model`] builds the program and
//! calls HiGHS. See `docs/ilp.md` for the formulation and what is proven when.
//!
//! Status: `optimal` only when HiGHS returns `Optimal` and the decoded,
//! re-checked order's peak meets HiGHS's dual bound, or when a starting
//! schedule meets the F4 bound; otherwise `feasible` with the best order
//! found and the stronger of HiGHS's dual bound and the F4 bound.

mod bounds;
mod interrupt;
mod model;
mod reduce;
mod sim;
mod windows;

use super::{Abilities, Outcome, ProgramOrder, Scheduler, SeedGreedy, SolveContext};
use crate::graph::Graph;
use crate::schedule;

/// Largest graph `ilp` accepts (beyond it the model could not be solved anyway).
pub const ILP_MAX_NODES: usize = 20_000;
/// Largest number of binary variables `ilp` builds.
pub const ILP_MAX_BINARIES: usize = 300_000;
/// Most units the start's peak may span in the model. Past it sizes are
/// counted in coarser units, a multiple of their gcd, each buffer's size
/// rounded down ([`model::Profiles`]): every memory row then counts at most
/// the bytes' value, so the bound HiGHS proves stays below the optimum (by
/// less than a unit per live buffer) and proofs need it to meet the peak.
/// With sizes counted exactly, HiGHS claimed a bound 7.4% above the optimum
/// of an 11-node graph whose peaks are about 2e9 units (`tests/ilp.rs`,
/// `coarse_units_keep_the_bound_below_the_optimum`); it held on 20,000
/// graphs with sizes up to 4e6 (`examples/ilp_bound_errors.rs`).
const MAX_MODEL_UNITS: u64 = 10_000_000;

/// The ILP scheduler.
///
/// `Ilp::default()` (registry name `ilp`) solves the reduced model;
/// [`Ilp::plain`] solves the plain model (one step per node, no
/// contraction), kept to test the reduction and to measure what it buys.
#[derive(Debug, Clone, Copy)]
pub struct Ilp {
    contract: bool,
}

impl Default for Ilp {
    fn default() -> Self {
        Ilp { contract: true }
    }
}

impl Ilp {
    /// The unreduced model: every node a step of its own.
    pub fn plain() -> Self {
        Ilp { contract: false }
    }
}

impl Scheduler for Ilp {
    fn name(&self) -> String {
        if self.contract {
            "ilp".into()
        } else {
            "ilp-plain".into()
        }
    }

    fn abilities(&self) -> Abilities {
        Abilities {
            exact: true,
            anytime: true,
            steered_by_seed: true,
            ..Abilities::default()
        }
    }

    fn solve(&self, g: &Graph, ctx: &SolveContext) -> Outcome {
        let n = g.node_count();
        if n == 0 {
            return Outcome::optimal(Vec::new(), 0);
        }
        if n > ILP_MAX_NODES {
            return Outcome::failed(format!(
                "model too large: {n} nodes (ilp accepts at most {ILP_MAX_NODES})"
            ));
        }
        let red = reduce::reduce(g, self.contract);
        let win = windows::windows(&red);
        let binaries = win.binaries(&red);
        let steps = red.steps();
        if binaries > ILP_MAX_BINARIES {
            return Outcome::failed(format!(
                "model too large: {binaries} binaries over {steps} steps (limit {ILP_MAX_BINARIES})"
            ));
        }
        let lb = bounds::lower_bound(g);
        let start = best_start(g, ctx, &red);
        let counted = |o: Outcome| {
            o.with_counter("clusters", red.clusters.len() as u64)
                .with_counter("steps", steps as u64)
                .with_counter("binaries", binaries as u64)
        };
        if start.peak <= lb {
            return counted(
                Outcome::optimal(start.order, start.peak)
                    .with_note("a starting schedule meets the F4 lower bound"),
            );
        }
        // HiGHS's set-up and LP solves do not see a stop: should the
        // caller leave this solve behind, the start is its answer.
        ctx.post_fallback(&start.order, Some(lb));
        let units = Units::of(g, start.peak, lb);
        let unit = units.unit;
        let profiles = model::Profiles::new(g, &red, unit);
        let round = |start: &sim::Outcome, tight: bool, warm: bool| {
            let spec = model::Spec {
                red: &red,
                win: &win,
                unit,
                profiles: &profiles,
                lb: units.lb,
                start,
                ctx,
                tight,
                warm,
            };
            model::solve(&spec).map(|answer| Round::settle(answer, start, &red, unit))
        };
        let first = match round(&start, false, true) {
            Ok(r) => r,
            Err(e) => {
                return counted(
                    Outcome::feasible(start.order)
                        .with_lower_bound(Some(lb))
                        .with_note(e),
                )
            }
        };
        let first_lb = first.highs_lb;
        let (r, again) = solve_again(first, &units, ctx, round);
        let Round {
            answer,
            best,
            highs_lb,
        } = r;
        let proven = lb.max(highs_lb.max(first_lb).unwrap_or(0));
        let closed_by_highs = answer.status == "Optimal" && highs_lb == Some(best.peak);
        let note = Note {
            answer: &answer,
            again,
            highs_lb,
            units: &units,
            // The combinatorial bound may close what HiGHS's lowered one leaves open.
            f4_proof: Some(lb).filter(|&lb| !closed_by_highs && lb >= best.peak),
            steps,
            nodes: n,
        }
        .text(ctx);
        let out = if schedule::check(g, &best.order).is_err() {
            // Cannot happen (sim only runs ready clusters); never claim anything on it.
            Outcome::failed("internal error: decoded order rejected by the checker")
        } else if closed_by_highs || proven >= best.peak {
            Outcome::optimal(best.order, best.peak)
        } else {
            Outcome::feasible(best.order).with_lower_bound(Some(proven))
        };
        counted(
            out.with_counter("rows", answer.rows as u64)
                .with_counter("mip_nodes", answer.mip_nodes.unwrap_or(0).max(0) as u64)
                .with_note(note),
        )
    }
}

/// The model's unit of size and the lower bound counted in it.
struct Units {
    /// Bytes per unit: the gcd of the sizes, times `coarse`.
    unit: i64,
    /// The factor above the gcd that keeps the start's peak within
    /// [`MAX_MODEL_UNITS`] units (1: sizes counted exactly).
    coarse: u64,
    /// The lower bound in units.
    lb: i64,
}

impl Units {
    fn of(g: &Graph, start_peak: u64, lb: u64) -> Units {
        let gcd_unit = g
            .deltas()
            .iter()
            .fold(0u64, |a, &d| gcd(a, d.unsigned_abs()))
            .max(1);
        let coarse = (start_peak / gcd_unit).div_ceil(MAX_MODEL_UNITS).max(1);
        let unit = (gcd_unit * coarse) as i64;
        // Every peak is a whole number of gcd units, so the bound rounds up
        // to one; a coarse unit may not divide the optimum: round down.
        let lb = match coarse {
            1 => lb.div_ceil(unit as u64) as i64,
            _ => lb as i64 / unit,
        };
        Units { unit, coarse, lb }
    }
}

/// Solves again when HiGHS says `Optimal` below the peak of the order its
/// solution decodes to: either it handed back its MIP start instead of
/// its incumbent (`stale`: solve again without a start), or it accepted a
/// memory row violated within its feasibility tolerance (the rows sum
/// sizes in the millions: solve again from the decoded order with tight
/// tolerances). Only while time is left; the first answer stands if the
/// second fails (the caller counts the better bound of the two). Returns
/// the answer kept and, if it is the second, the note's words for why.
fn solve_again(
    first: Round,
    units: &Units,
    ctx: &SolveContext,
    round: impl Fn(&sim::Outcome, bool, bool) -> Result<Round, String>,
) -> (Round, &'static str) {
    // Against HiGHS's own bound (before the allowance, which would make
    // every large optimum look short).
    let raw_bound = first
        .answer
        .dual_bound
        .map(|b| Round::raw_units(b) * units.unit as u64);
    // (With coarse units a bound below the peak is expected: only a
    // returned start is solved again.)
    let below = raw_bound < Some(first.best.peak) && (units.coarse == 1 || first.answer.stale);
    let short = first.answer.status == "Optimal" && below;
    if !short || ctx.expired() {
        return (first, "");
    }
    let stale = first.answer.stale;
    match round(&first.best, !stale, !stale) {
        Ok(again) if stale => (
            again,
            " after a re-solve without a start (HiGHS returned its start)",
        ),
        Ok(again) => (again, " after a re-solve with tight tolerances"),
        Err(_) => (first, ""),
    }
}

/// What a finished solve's note says: HiGHS's status and figures, how its
/// bound and the sizes were counted, and what proved the peak.
struct Note<'a> {
    answer: &'a model::Answer,
    /// Why the answer is a second solve's (empty if it is the first's).
    again: &'static str,
    /// HiGHS's bound in bytes, after the allowance.
    highs_lb: Option<u64>,
    units: &'a Units,
    /// The F4 bound, when it proves the peak that HiGHS's bound does not.
    f4_proof: Option<u64>,
    steps: usize,
    nodes: usize,
}

impl Note<'_> {
    fn text(&self, ctx: &SolveContext) -> String {
        let Note { answer, again, .. } = self;
        let unit = self.units.unit;
        // A bound the allowance lowered past a whole unit (an optimum of
        // about 1e5 units or more) cannot close a proof: say so.
        let allowance = match (answer.dual_bound, self.highs_lb) {
            (Some(b), Some(lowered)) if Round::raw_units(b) > Round::units(b) => {
                format!(
                    ", counted as {lowered} after the {BOUND_ALLOWANCE:e} relative allowance for \
                     HiGHS's errors"
                )
            }
            _ => String::new(),
        };
        let coarse_note = match self.units.coarse {
            1 => String::new(),
            _ => format!(
                "; sizes counted in units of {unit} B, rounded down (objective and bound \
                 below the bytes' values)"
            ),
        };
        // Stopped (through its callback, ilp/interrupt.rs, or by the zero
        // time left a stop before the solve leaves it): say by what.
        let stopped = match answer.status.as_str() {
            "ReachedInterrupt" | "ReachedTimeLimit" if ctx.stopped() => {
                format!("stopped by {}; ", ctx.limit_cause())
            }
            _ => String::new(),
        };
        let bound = match answer.dual_bound {
            Some(b) => format!("{}", b * unit as f64),
            None => "none".to_string(),
        };
        let by_f4 = match self.f4_proof {
            Some(lb) => format!("; the F4 bound {lb} meets the peak, which proves it"),
            None => String::new(),
        };
        format!(
            "{stopped}HiGHS: {}{again} (objective {}, bound {bound}{allowance}); {} steps from \
             {} nodes{coarse_note}{by_f4}",
            answer.status,
            answer.objective * unit as f64,
            self.steps,
            self.nodes,
        )
    }
}

/// How far HiGHS's dual bound may stray above the true optimum, relative
/// to it: about nine times the 1.1e-6 of the worst case reviews found
/// (HiGHS accepts rows, and prunes nodes, within feasibility tolerances
/// of rows whose coefficients are in the millions; docs/ilp.md, and
/// `examples/ilp_bound_errors.rs` for a sweep). A bound is trusted only this
/// far below what HiGHS says, so `ilp` alone proves optima of up to about
/// 1e5 units (sizes divided by their gcd, the model's unit there); above,
/// it reports HiGHS's bound so lowered, `feasible`.
pub const BOUND_ALLOWANCE: f64 = 1e-5;

/// One HiGHS solve, settled: its answer, the better of its decoded order and
/// the start, and its bound in bytes.
struct Round {
    answer: model::Answer,
    best: sim::Outcome,
    /// HiGHS's dual bound in bytes, at most `best.peak`.
    highs_lb: Option<u64>,
}

impl Round {
    /// HiGHS's bound `b` (in units) as HiGHS means it: rounded up to a
    /// whole unit after its absolute tolerance only.
    fn raw_units(b: f64) -> u64 {
        (b - 1e-6).ceil().max(0.0) as u64
    }

    /// HiGHS's bound `b` (in units) as a proven whole number of units:
    /// rounded up after allowing for its errors (absolute 1e-6, relative
    /// [`BOUND_ALLOWANCE`]).
    fn units(b: f64) -> u64 {
        (b - 1e-6 - BOUND_ALLOWANCE * b.abs()).ceil().max(0.0) as u64
    }

    fn settle(
        answer: model::Answer,
        start: &sim::Outcome,
        red: &reduce::Reduced,
        unit: i64,
    ) -> Round {
        let decoded = answer
            .steps
            .as_ref()
            .map(|at| sim::run_by_key(red, |_, c| (at[c] as i64, 0)));
        let best = match decoded {
            Some(d) if d.peak < start.peak => d,
            _ => start.clone(),
        };
        // HiGHS's bound in bytes, rounded up to a whole unit (P's optimum is
        // integral) after allowing for its errors (`Round::units`).
        let highs_lb = answer
            .dual_bound
            .map(|b| (Round::units(b) * unit as u64).min(best.peak));
        Round {
            answer,
            best,
            highs_lb,
        }
    }
}

/// The lowest-peak starting sequence: the memory greedy on the reduced graph
/// and the projections of the caller's warm start, the article's greedy and
/// the program order (ties: that order).
fn best_start(g: &Graph, ctx: &SolveContext, red: &reduce::Reduced) -> sim::Outcome {
    let n = g.node_count();
    let mut best = sim::greedy(red);
    let mut orders: Vec<Vec<u32>> = Vec::new();
    if let Some(w) = ctx
        .warm_start
        .as_ref()
        .filter(|w| schedule::check(g, w).is_ok())
    {
        orders.push(w.clone());
    }
    for s in [&SeedGreedy as &dyn Scheduler, &ProgramOrder] {
        if let Some(o) = s.solve(g, ctx).order.filter(|o| o.len() == n) {
            orders.push(o);
        }
    }
    orders.push(g.topo_order().to_vec());
    for o in &orders {
        let p = sim::project(red, o, n);
        if p.peak < best.peak {
            best = p;
        }
    }
    best
}

fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}
