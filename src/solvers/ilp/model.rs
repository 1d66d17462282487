//! The time-indexed integer program over the reduced graph, built with
//! good_lp and solved by HiGHS.
//!
//! Variables: `y(c, t)` = "cluster c is done after step t", binary for main
//! clusters inside their window, continuous in [0, 1] for absorbed clusters
//! (forced integral by their rows), constants outside the windows; `P`, the
//! peak in model units ([`Spec::unit`]; continuous: see [`solve`]). Rows, for
//! steps t = 1..T:
//! - `y(c, t) <= y(c, t+1)` (main clusters);
//! - `y(v, t) <= y(u, t-1)` for each cluster edge u -> v into a main v;
//! - `sum over main c of y(c, t) = t` (one main cluster per step);
//! - absorbed w with predecessors U: `y(w, t) <= y(u, t)` for u in U and
//!   `y(w, t) >= sum y(u, t) - (|U| - 1)` (done exactly when all are);
//! - memory: `sum_c total_c y(c, t-1) + sum_main peak_c (y(c, t) - y(c, t-1)) <= P`:
//!   the memory after step t-1 and its closure, plus the rise of the main
//!   cluster run at step t to its own peak;
//! - `LB <= P <= UB`, the bound from [`super::bounds`] and the starting
//!   schedule's peak (also passed to HiGHS as the MIP start, unless `warm`
//!   is off).
//!
//! good_lp's `HighsProblem::solve` drops the solved model and with it
//! HiGHS's dual bound, so this module takes the `highs::Model` out with
//! `into_inner()` and sets options, the start and reads the result there.

use good_lp::{highs, variable, Expression, ProblemVariables, SolverModel, Variable};

use super::reduce::{Reduced, Role};
use super::sim;
use super::windows::Windows;
use crate::graph::{Graph, NodeIdx};
use crate::solvers::SolveContext;

/// What the model needs beside the reduced graph.
pub(crate) struct Spec<'a> {
    pub red: &'a Reduced,
    pub win: &'a Windows,
    /// Bytes per model unit: the gcd of the sizes, or a multiple of it
    /// when sizes are counted coarsely (see [`Profiles`]).
    pub unit: i64,
    /// Each cluster's total and peak in units.
    pub profiles: &'a Profiles,
    /// A lower bound on the model's optimum, in units: the proven bound
    /// rounded up when `unit` divides every size, down otherwise.
    pub lb: i64,
    /// The start: its peak (in bytes) bounds P from above.
    pub start: &'a sim::Outcome,
    /// Deadline and seed (HiGHS gets the time left once the model is built).
    pub ctx: &'a SolveContext,
    /// Feasibility tolerances of 1e-9 instead of HiGHS's 1e-6 / 1e-7, for
    /// the re-solve when a memory row was accepted slightly violated (on
    /// every solve they did harm: see [`solve`]).
    pub tight: bool,
    /// Pass the start to HiGHS as its MIP start (its peak bounds P either way).
    pub warm: bool,
}

/// What HiGHS said.
#[derive(Debug, Clone)]
pub(crate) struct Answer {
    /// HiGHS's model status, as it names it (`Optimal`, `TimeLimit`, ...).
    pub status: String,
    /// For each cluster, the step at which the solution runs it (main
    /// clusters; 0 for the others), if HiGHS has a solution.
    pub steps: Option<Vec<usize>>,
    /// The solution HiGHS returned has a worse objective than the one it
    /// reports: it handed back the MIP start, not its incumbent (seen on
    /// small models with a start, status `Optimal`).
    pub stale: bool,
    /// HiGHS's objective and dual bound, in units.
    pub objective: f64,
    pub dual_bound: Option<f64>,
    pub mip_nodes: Option<i64>,
    pub rows: usize,
}

#[derive(Clone, Copy)]
enum Y {
    Const(f64),
    Var(Variable),
}

struct Vars<'a> {
    win: &'a Windows,
    y: Vec<Vec<Variable>>,
}

impl Vars<'_> {
    fn y(&self, c: usize, t: usize) -> Y {
        let (lo, hi) = (self.win.lo[c], self.win.hi[c]);
        if t < lo {
            Y::Const(0.0)
        } else if t >= hi {
            Y::Const(1.0)
        } else {
            Y::Var(self.y[c][t - lo])
        }
    }
}

/// A linear expression with its constant kept apart.
#[derive(Default)]
struct Lin {
    expr: Expression,
    konst: f64,
    vars: usize,
}

impl Lin {
    fn add(&mut self, coef: f64, y: Y) {
        match y {
            Y::Const(v) => self.konst += coef * v,
            Y::Var(x) => {
                self.expr.add_mul(coef, x);
                self.vars += 1;
            }
        }
    }
}

/// Each cluster's (total, peak) in model units, from its members' deltas
/// with every buffer's size rounded down to whole units (an ALLOC's and
/// its FREE's alike). The memory a row counts is then the rounded sizes of
/// the buffers live at some point of the schedule: at most the bytes'
/// value over the unit (a freed buffer cancels exactly), and below it by
/// less than a unit per live buffer. When the unit divides every size
/// (the gcd), these are the exact profiles.
pub(crate) struct Profiles(Vec<(i64, i64)>);

impl Profiles {
    /// The profiles of `red`'s clusters over `g` in units of `unit` bytes.
    pub(crate) fn new(g: &Graph, red: &Reduced, unit: i64) -> Self {
        let profile = |members: &[NodeIdx]| {
            let (mut total, mut peak) = (0i64, i64::MIN);
            for &v in members {
                // Toward zero: an ALLOC's size and its FREE's round alike.
                total += g.delta(v) / unit;
                peak = peak.max(total);
            }
            (total, peak)
        };
        Profiles(red.clusters.iter().map(|c| profile(&c.members)).collect())
    }
}

/// Builds and solves the model.
pub(crate) fn solve(spec: &Spec) -> Result<Answer, String> {
    // The start's rows count whole units, at most its peak's bytes: P up
    // to the peak in whole units (rounded down) keeps the start feasible.
    let ub = (spec.start.peak / spec.unit as u64) as i64;
    let Columns { vars, vs, p, init } = Columns::new(spec, ub);
    let mut rows = Rows {
        problem: vars.minimise(p).using(highs),
        count: 0,
    };
    rows.order(spec.red, &vs);
    rows.one_per_step(spec.red, &vs);
    rows.memory(spec, &vs, p);
    let Rows { problem, count } = rows;
    let mut model = problem
        .try_into_inner()
        .map_err(|e| format!("HiGHS rejected the model: {e}"))?;
    macro_rules! option {
        ($key:expr, $value:expr) => {
            model
                .try_set_option($key, $value)
                .map_err(|_| format!("HiGHS rejected option {}", $key))?
        };
    }
    option!("output_flag", false);
    // HiGHS 1.16's presolve can cut feasible solutions off: on a 33-node
    // graph (`tests/ilp.rs`, `presolve_cut_off_the_optimum`) it called
    // every schedule below the start's peak 11 infeasible, and the start
    // came back `Optimal` with bound 11 where 10 is feasible. Without it
    // the same model gives 10; on `examples/ilp_sizes` it costs little.
    option!("presolve", "off");
    // Equivalent of good_lp's `set_mip_rel_gap(0)`: prove, do not stop at a gap.
    option!("mip_rel_gap", 0.0);
    // HiGHS's default feasibility tolerances, but for the re-solve. Set
    // to 1e-9 on every solve (against rows accepted violated), they made
    // wrong proofs ten times as frequent: with coefficients in the
    // millions, rounding errors in a row's activity pass 1e-9, and
    // feasible nodes are pruned as infeasible.
    if spec.tight {
        option!("mip_feasibility_tolerance", 1e-9);
        option!("primal_feasibility_tolerance", 1e-9);
    }
    option!("random_seed", (spec.ctx.seed % (i32::MAX as u64)) as i32);
    if let Some(left) = spec.ctx.remaining() {
        option!("time_limit", left.as_secs_f64());
    }
    if spec.warm {
        model
            .try_set_solution(Some(&init), None, None, None)
            .map_err(|e| format!("HiGHS rejected the start: {e:?}"))?;
    }
    // A stop (Ctrl-C in `schedule`) ends HiGHS at its next check, with its
    // incumbent and bound, as its time limit would. The guard is declared
    // before `solved`, so it outlives the instance.
    #[allow(unsafe_code)]
    let _armed = spec.ctx.stop.as_ref().and_then(|stop| {
        // SAFETY: the model's own pointer, alive until `try_solve` hands it
        // to `solved`; `_armed` lives to the end of this function, past
        // every call HiGHS makes back.
        unsafe { super::interrupt::on_flag(model.as_mut_ptr(), &stop.flag) }
    });
    let solved = model
        .try_solve()
        .map_err(|e| format!("HiGHS failed: {e:?}"))?;
    // The `highs` crate is not a direct dependency, so its enums cannot be
    // named here: read them through their Debug names (versions pinned by
    // Cargo.lock).
    let has_solution = format!("{:?}", solved.primal_solution_status()) == "Feasible";
    let reading = Reading {
        status: format!("{:?}", solved.status()),
        objective: solved.objective_value(),
        dual_bound: (solved.double_info_value(c"mip_dual_bound").ok()).filter(|b| b.is_finite()),
        // SAFETY: `solved`'s own pointer, alive while `solved` is.
        #[allow(unsafe_code)]
        mip_nodes: unsafe { mip_node_count(solved.as_ptr()) },
        columns: has_solution.then(|| solved.get_solution().columns().to_vec()),
    };
    Ok(reading.answer(spec.red, &vs, count))
}

/// The model's columns: the `y` of each cluster's window, then P; with
/// the start's values of them all, in that order, for HiGHS's MIP start.
struct Columns<'a> {
    vars: ProblemVariables,
    vs: Vars<'a>,
    p: Variable,
    init: Vec<f64>,
}

impl<'a> Columns<'a> {
    /// The columns of `spec`'s model, P at most `ub`.
    fn new(spec: &Spec<'a>, ub: i64) -> Self {
        let (red, win) = (spec.red, spec.win);
        let mut vars = ProblemVariables::new();
        let mut init = Vec::new();
        let mut y = vec![Vec::new(); red.clusters.len()];
        for (c, cl) in red.clusters.iter().enumerate() {
            let def = match cl.role {
                Role::Main => variable().binary(),
                Role::Absorbed => variable().min(0).max(1),
                Role::Tail => continue,
            };
            for t in win.lo[c]..win.hi[c] {
                y[c].push(vars.add(def.clone()));
                init.push(if spec.start.done_at[c] <= t { 1.0 } else { 0.0 });
            }
        }
        // P is continuous, though its optimum is integral: with an integer P
        // HiGHS sees an integral objective and rounds its dual bound up to the
        // next integer after subtracting its tolerance, so LP noise just above
        // an integer became a whole unit. A continuous P leaves the rounding to
        // `Round::units`, which allows for HiGHS's errors first (docs/ilp.md).
        let p = vars.add(variable().min(spec.lb.min(ub) as f64).max(ub as f64));
        init.push(ub as f64);
        Columns {
            vars,
            vs: Vars { win, y },
            p,
            init,
        }
    }
}

/// The model's rows as they are added, and how many.
struct Rows {
    problem: good_lp::solvers::highs::HighsProblem,
    count: usize,
}

impl Rows {
    /// Adds `lin (- rhs) <= bound`, or `= bound` when `eq`; nothing when
    /// it has no variable.
    fn add(&mut self, lin: Lin, rhs: Option<Variable>, bound: f64, eq: bool) {
        if lin.vars == 0 && rhs.is_none() {
            return;
        }
        let mut lhs = lin.expr;
        if let Some(r) = rhs {
            lhs.add_mul(-1.0, r);
        }
        let bound = bound - lin.konst;
        (self.problem).add_constraint(if eq { lhs.eq(bound) } else { lhs.leq(bound) });
        self.count += 1;
    }

    /// Each cluster's rows in cluster order: a main one's monotone and
    /// precedence rows, an absorbed one's "done exactly when all its
    /// predecessors are".
    fn order(&mut self, red: &Reduced, vs: &Vars) {
        let win = vs.win;
        for (c, cl) in red.clusters.iter().enumerate() {
            let (lo, hi) = (win.lo[c], win.hi[c]);
            match cl.role {
                Role::Main => {
                    for t in lo..hi {
                        // Monotone.
                        let mut lin = Lin::default();
                        lin.add(1.0, vs.y(c, t));
                        lin.add(-1.0, vs.y(c, t + 1));
                        self.add(lin, None, 0.0, false);
                        // Precedence.
                        for &u in &red.preds[c] {
                            if let Y::Const(v) = vs.y(u, t - 1) {
                                if v == 1.0 {
                                    continue;
                                }
                            }
                            let mut lin = Lin::default();
                            lin.add(1.0, vs.y(c, t));
                            lin.add(-1.0, vs.y(u, t - 1));
                            self.add(lin, None, 0.0, false);
                        }
                    }
                }
                Role::Absorbed => {
                    let preds = &red.preds[c];
                    for t in lo..hi {
                        let mut all = Lin::default();
                        all.add(-1.0, vs.y(c, t));
                        for &u in preds {
                            let mut lin = Lin::default();
                            lin.add(1.0, vs.y(c, t));
                            lin.add(-1.0, vs.y(u, t));
                            self.add(lin, None, 0.0, false);
                            all.add(1.0, vs.y(u, t));
                        }
                        // sum y(u) - y(w) <= |U| - 1
                        self.add(all, None, preds.len() as f64 - 1.0, false);
                    }
                }
                Role::Tail => {}
            }
        }
    }

    /// One main cluster per step: `sum over main c of y(c, t) = t`.
    fn one_per_step(&mut self, red: &Reduced, vs: &Vars) {
        for t in 1..red.steps() {
            let mut lin = Lin::default();
            for &c in &red.main {
                lin.add(1.0, vs.y(c, t));
            }
            self.add(lin, None, t as f64, true);
        }
    }

    /// The memory rows: at each step, what stays of the clusters done
    /// before it, plus the rise of the main cluster it runs, is at most P.
    fn memory(&mut self, spec: &Spec, vs: &Vars, p: Variable) {
        let (red, win) = (spec.red, spec.win);
        for t in 1..=red.steps() {
            let mut lin = Lin::default();
            for (c, cl) in red.clusters.iter().enumerate() {
                if cl.role == Role::Tail || t < win.lo[c] {
                    continue;
                }
                let (total, peak) = spec.profiles.0[c];
                let (total, peak) = (total as f64, peak as f64);
                if cl.role == Role::Main && t <= win.hi[c] {
                    lin.add(peak, vs.y(c, t));
                    lin.add(total - peak, vs.y(c, t - 1));
                } else {
                    lin.add(total, vs.y(c, t - 1));
                }
            }
            self.add(lin, Some(p), 0.0, false);
        }
    }
}

/// What HiGHS's solve of the model of `red` (columns `vs`, `rows` rows)
/// said, as [`solve`] reads it off the solved model.
struct Reading {
    status: String,
    objective: f64,
    dual_bound: Option<f64>,
    mip_nodes: Option<i64>,
    /// The solution's column values, if HiGHS has a solution.
    columns: Option<Vec<f64>>,
}

impl Reading {
    /// The answer for the model of `red` (columns `vs`, `rows` rows): the
    /// LP's optimum as the bound of a model without binaries, a stale
    /// start told apart, the step of each main cluster.
    fn answer(self, red: &Reduced, vs: &Vars, rows: usize) -> Answer {
        let Reading {
            status,
            objective,
            dual_bound,
            mip_nodes,
            columns,
        } = self;
        // Without a binary (P is continuous) HiGHS solves an LP and reports no
        // MIP bound (0): the LP's optimum is the bound.
        let has_binaries = red
            .clusters
            .iter()
            .zip(&vs.y)
            .any(|(cl, y)| cl.role == Role::Main && !y.is_empty());
        let dual_bound = match dual_bound {
            _ if !has_binaries && status == "Optimal" => Some(objective),
            b => b,
        };
        // P is the last column; its value is the solution's objective.
        let stale = (columns.as_ref())
            .and_then(|cols| cols.last().copied())
            .is_some_and(|p| p > objective + 0.5);
        Answer {
            steps: columns.map(|cols| main_steps(&cols, red, vs)),
            status,
            stale,
            objective,
            dual_bound,
            mip_nodes,
            rows,
        }
    }
}

/// For each cluster, the step at which the solution `cols` runs it: a main
/// cluster's first step done (the window's end if none), 0 for the others.
fn main_steps(cols: &[f64], red: &Reduced, vs: &Vars) -> Vec<usize> {
    let mut at = vec![0usize; red.clusters.len()];
    let mut next = 0usize;
    for (c, cl) in red.clusters.iter().enumerate() {
        let width = vs.y[c].len();
        if cl.role == Role::Main {
            let first = (0..width).find(|&i| cols[next + i] > 0.5);
            at[c] = first.map_or(vs.win.hi[c], |i| vs.win.lo[c] + i);
        }
        next += width;
    }
    at
}

/// HiGHS's count of branch-and-bound nodes of the solve behind `highs` (a
/// solved model's pointer), if HiGHS reports one. It is an `int64` info
/// value, which the `highs` crate's `int_info_value` cannot read: that one
/// asks for a `HighsInt` and fails on it, so the count came out as none.
///
/// # Safety
/// `highs` must point to a live HiGHS instance.
#[allow(unsafe_code)]
unsafe fn mip_node_count(highs: *const std::ffi::c_void) -> Option<i64> {
    let mut value = 0i64;
    // SAFETY: the caller vouches for `highs`; the name is a NUL-terminated
    // string and `value` an `i64` HiGHS writes at most once, as the C
    // API's signature says.
    let status = unsafe {
        highs_sys::Highs_getInt64InfoValue(highs, c"mip_node_count".as_ptr(), &mut value)
    };
    (status == highs_sys::kHighsStatusOk).then_some(value)
}
