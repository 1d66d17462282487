//! Running a run's pending items: each solve on the pool, caught if it
//! panics and recorded as it ends, and the stop flag announced.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{mpsc, Mutex};

use super::sink::{Sink, Solved};
use super::store::GraphStore;
use super::RunOptions;
use crate::experiment::catch::catch_panic;
use crate::experiment::plan::{Item, Plan};
use crate::experiment::progress::Progress;
use crate::experiment::records::{Profile, SavedOrder};
use crate::experiment::rows::{self, Row, RowStatus, CANNOT_LOAD, PANICKED};
use crate::experiment::{one_line, ExperimentError};
use crate::solvers::{self, Scheduler, SolveContext};

/// The solves of a run and what they share: the solver inputs, where
/// rows go, and what is counted while they run.
pub(super) struct Solving<'a> {
    /// What each solve reads.
    pub(super) inputs: SolveInputs<'a>,
    /// Where rows go (`out`) and the stop flag.
    pub(super) opts: &'a RunOptions,
    pub(super) sink: Mutex<Sink>,
    pub(super) bar: Progress,
    /// Rows that show a solver bug.
    pub(super) broken: AtomicUsize,
    /// The first error that ends the run (a failed append, a panic of
    /// memsched's own).
    pub(super) error: Mutex<Option<ExperimentError>>,
    /// Set with `error`: once a row cannot be written (a full disk, say),
    /// later solves would be lost too, so no more start.
    pub(super) failed: AtomicBool,
    /// Items not started because of the stop flag.
    pub(super) not_started: AtomicUsize,
    /// Solves started and not yet recorded (for the stop's announcement).
    pub(super) in_flight: AtomicUsize,
}

/// What the solves leave once they have all ended: the rows' files to
/// close, and the counts the run's summary reports.
pub(super) struct Ended {
    pub(super) sink: Sink,
    /// Rows that show a solver bug.
    pub(super) broken: usize,
    /// Items not started because of the stop flag.
    pub(super) not_started: usize,
}

impl<'a> Solving<'a> {
    /// The solves of `inputs`, appending to `sink`, with `broken` rows
    /// already counted (an earlier run's).
    pub(super) fn new(
        inputs: SolveInputs<'a>,
        opts: &'a RunOptions,
        sink: Sink,
        bar: Progress,
        broken: usize,
    ) -> Self {
        Solving {
            inputs,
            opts,
            sink: Mutex::new(sink),
            bar,
            broken: AtomicUsize::new(broken),
            error: Mutex::new(None),
            failed: AtomicBool::new(false),
            not_started: AtomicUsize::new(0),
            in_flight: AtomicUsize::new(0),
        }
    }

    /// Once every solve has ended: the bar's last drawing, then the
    /// first error that ended the run, if any.
    pub(super) fn end(self) -> Result<Ended, ExperimentError> {
        let Solving {
            sink,
            bar,
            broken,
            error,
            not_started,
            ..
        } = self;
        bar.finish();
        if let Some(e) = error.into_inner().unwrap_or_else(|e| e.into_inner()) {
            return Err(e);
        }
        Ok(Ended {
            sink: sink.into_inner().unwrap_or_else(|e| e.into_inner()),
            broken: broken.into_inner(),
            not_started: not_started.into_inner(),
        })
    }
}

impl Solving<'_> {
    /// True once the stop flag is set.
    fn stopping(&self) -> bool {
        self.opts.stopping()
    }

    /// Solves `item` and records what it left, unless the run is failing
    /// or stopping.
    pub(super) fn solve(&self, item: &Item) {
        if self.failed.load(Ordering::Relaxed) {
            return;
        }
        // Counted before the stop is read, so that the count announced
        // after a stop holds every solve that may still start.
        self.in_flight.fetch_add(1, Ordering::Relaxed);
        if self.stopping() {
            self.in_flight.fetch_sub(1, Ordering::Relaxed);
            self.not_started.fetch_add(1, Ordering::Relaxed);
            return;
        }
        self.bar.begin();
        // A solver's panic is caught in solve_item; one here is memsched's
        // own (the workers' hook is silent): stop and say so.
        let handled = catch_panic(|| self.solve_and_record(item));
        if let Err(msg) = handled {
            let g = &self.inputs.plan.graphs[item.graph].name;
            self.fail(ExperimentError::Internal(format!(
                "panicked while recording a solve of graph `{g}`: {msg}"
            )));
        }
        self.in_flight.fetch_sub(1, Ordering::Relaxed);
    }

    fn solve_and_record(&self, item: &Item) {
        let solved = self.inputs.solve_item(item);
        let row = &solved.row;
        self.inputs.store.release(item.graph);
        if rows::is_broken(row) {
            self.broken.fetch_add(1, Ordering::Relaxed);
            self.bar.println(&format!(
                "{} / {}: {}: {}",
                row.graph, row.solver, row.status, row.reason
            ));
        }
        let written = self
            .sink
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .solved(&solved);
        if let Err((file, e)) = written {
            self.fail(ExperimentError::io(
                "append to",
                &self.opts.out.join(file),
                e,
            ));
        }
        self.bar.inc();
    }

    /// Ends the run with `error` (the first one stands): no more solves
    /// start.
    fn fail(&self, error: ExperimentError) {
        self.failed.store(true, Ordering::Relaxed);
        self.error
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get_or_insert(error);
    }
}

/// Says once, as soon as the stop flag is set while solves run, what
/// happens now (no new solve starts; those in flight finish, each by the
/// time limit) and how to end at once. Returns when `ended` says the
/// solves are over, having said, if the stop came, that no more start
/// (also when the solves ended before it looked: a stop between two
/// solves leaves none in flight).
pub(super) fn announce_stop(
    solving: &Solving,
    ended: mpsc::Receiver<()>,
    limit: std::time::Duration,
) {
    let over = loop {
        let over = !matches!(
            ended.recv_timeout(std::time::Duration::from_millis(50)),
            Err(mpsc::RecvTimeoutError::Timeout)
        );
        if solving.stopping() {
            break over;
        }
        if over {
            return;
        }
    };
    let n = solving.in_flight.load(Ordering::Relaxed);
    let cause = solving.opts.stop_cause();
    let said = if over || n == 0 {
        format!("{cause}: no more solves start; none is in flight. Finished rows are kept")
    } else {
        let again = match cause {
            "Ctrl-C" => "Ctrl-C again".to_string(),
            other => format!("{other} again (or Ctrl-C)"),
        };
        // HiGHS checks its limit between its own steps (docs/ilp.md).
        let overrun = match (solving.inputs.plan.solvers.iter()).any(|s| s.name.contains("ilp")) {
            true => ", which `ilp` may overrun by seconds",
            false => "",
        };
        format!(
            "{cause}: no more solves start; waiting for the {n} in flight (each ends by the \
             time limit, {}{overrun}); {again}, half a second or more later, to end now. \
             Finished rows are kept",
            crate::experiment::progress::duration(limit)
        )
    };
    solving.bar.println(&said);
    solving.bar.stopping();
}

/// Builds a solver by name (the registry; tests pass their own).
pub(super) type Build = fn(&str) -> Result<Box<dyn Scheduler>, String>;

pub(super) fn registry_build(name: &str) -> Result<Box<dyn Scheduler>, String> {
    solvers::build(name).map_err(|e| e.to_string())
}

/// What every solve of a run reads.
pub(super) struct SolveInputs<'a> {
    pub(super) plan: &'a Plan,
    pub(super) store: &'a GraphStore<'a>,
    /// The run's context; each solve sets its seed and graph name.
    pub(super) ctx: SolveContext,
    /// The graph whose solves keep a memory profile (Tetris plot).
    pub(super) tetris: Option<usize>,
    /// Whether valid solves keep their order (`save_orders`).
    pub(super) keep_order: bool,
    pub(super) build: Build,
}

impl SolveInputs<'_> {
    /// One solve, caught if it panics, as a row (and a profile for the
    /// Tetris graph, and its order if `keep_order`).
    pub(super) fn solve_item(&self, item: &Item) -> Solved {
        let entry = &self.plan.graphs[item.graph];
        let solver_name = &self.plan.solvers[item.solver].name;
        let mut row = Row {
            item: item.id,
            graph: entry.name.clone(),
            family: entry.family.clone(),
            solver: solver_name.clone(),
            seed: item.seed,
            status: RowStatus::Failed,
            ..rows::blank()
        };
        let graph = match self.store.get(item.graph) {
            Ok(g) => g,
            Err(e) => {
                row.reason = one_line(&format!("{CANNOT_LOAD}: {e}"));
                return Solved::row(row);
            }
        };
        row.nodes = graph.node_count();
        row.edges = graph.edge_count();
        let ctx = SolveContext {
            graph_name: Some(entry.name.clone()),
            ..self.ctx.with_seed(item.seed)
        };
        let started = std::time::Instant::now();
        let result = catch_panic(|| {
            let solver = (self.build)(solver_name)?;
            Ok::<_, String>(solvers::run(solver.as_ref(), &graph, &ctx))
        });
        let report = match result {
            Ok(Ok(r)) => r,
            Ok(Err(e)) => {
                row.reason = one_line(&e);
                return Solved::row(row);
            }
            Err(msg) => {
                row.reason = one_line(&format!("{PANICKED}: {msg}"));
                row.time_ms = rows::millis(started.elapsed());
                return Solved::row(row);
            }
        };
        row.record(&report);
        let profile = match (&report.order, self.tetris) {
            (Some(order), Some(t)) if t == item.graph => {
                Profile::of_order(&graph, order, &entry.name, solver_name, item.seed)
            }
            _ => None,
        };
        let order = match (&report.order, self.keep_order) {
            (Some(order), true) => Some(SavedOrder {
                graph: entry.name.clone(),
                solver: solver_name.clone(),
                seed: item.seed,
                order: graph.to_ids(order),
            }),
            _ => None,
        };
        Solved {
            row,
            profile,
            order,
        }
    }
}
