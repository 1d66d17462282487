//! Runs the chosen solvers on one graph, one after another, each on a
//! thread of its own: after Ctrl-C, one that does not return within a grace
//! period is left behind with what it posted, and the rest do not run.

use std::sync::{mpsc, Arc};
use std::time::{Duration, Instant};

use crate::experiment::catch::catch_panic;
use crate::experiment::rows::PANICKED;
use crate::solvers::{self, Fallback, Report, Scheduler, SolveContext, Status};
use crate::Graph;

/// Runs each chosen solver in turn on its own thread (see
/// [`Solve::run_or_abandon`]), each report beside what became of it; after
/// Ctrl-C the rest do not run, and the reports say so.
pub(super) fn solve_all(
    chosen: &[(&str, Arc<dyn Scheduler>)],
    graph: &Arc<Graph>,
    ctx: &SolveContext,
    pool: &Option<Arc<rayon::ThreadPool>>,
    interrupt: &crate::cli::interrupt::Interrupt,
    progress: bool,
) -> (Vec<Report>, Vec<Fate>) {
    chosen
        .iter()
        .enumerate()
        .map(|(i, (shown, solver))| {
            if interrupt.happened() {
                return (not_run(solver.name()), Fate::NotRun);
            }
            if progress {
                note!("[{}/{}] {shown}", i + 1, chosen.len());
            }
            let solve = Solve {
                solver: solver.clone(),
                graph: Arc::clone(graph),
                ctx: ctx.clone(),
                pool: pool.clone(),
            };
            let (mut report, fate) = solve.run_or_abandon(interrupt);
            if interrupt.happened() {
                // A solver whose note names its end names the signal
                // (`limit_cause`); the others are marked here.
                let cause = crate::cli::interrupt::cause();
                report.note = Some(match report.note.take() {
                    Some(n) if n.contains(cause) => n,
                    Some(n) => format!("interrupted ({cause}); {n}"),
                    None => format!("interrupted ({cause})"),
                });
            }
            (report, fate)
        })
        .unzip()
}

/// How long a solver may take to stop after Ctrl-C before `schedule`
/// leaves it behind and writes the report without its answer: `ilp`
/// cannot stop during HiGHS's set-up of the MIP or inside an LP it solves
/// (its interrupt callback reaches the branch and bound only), and the root
/// LP alone can take minutes without `--time-limit`.
pub(super) const STOP_GRACE: Duration = Duration::from_secs(5);

/// How the note of a solver left behind after Ctrl-C begins.
pub(super) const LEFT_BEHIND: &str = "left without an answer";
/// How it begins when the solver had posted an order before (its
/// [`Fallback`]).
pub(super) const LEFT_BEHIND_POSTED: &str = "left behind, with the order it had before HiGHS";

/// What became of a solver under Ctrl-C, beside its report.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Fate {
    /// It ran and returned (stopped by the signal or not).
    Ran,
    /// The signal came before it started.
    NotRun,
    /// It did not stop within [`STOP_GRACE`]; `posted`: its report holds
    /// the order it had posted before.
    LeftBehind { posted: bool },
}

/// One solve, run on a thread of its own so that it can be left behind.
pub(super) struct Solve {
    solver: Arc<dyn Scheduler>,
    graph: Arc<Graph>,
    ctx: SolveContext,
    /// The `--threads` pool, for the solver's parallel work.
    pool: Option<Arc<rayon::ThreadPool>>,
}

impl Solve {
    /// The solve's report; once Ctrl-C came and the solver has not
    /// returned within [`STOP_GRACE`], the checked order it posted to its
    /// [`Fallback`] before an uninterruptible phase (`ilp`'s start, before
    /// HiGHS), or else a `timed_out` report, each saying so (the solver's
    /// thread ends with the process, after the report). A panic in the
    /// solver is a `failed` report (`panicked: MESSAGE`), as a row of `run`
    /// is, so the other solvers' reports are kept.
    fn run_or_abandon(mut self, interrupt: &crate::cli::interrupt::Interrupt) -> (Report, Fate) {
        let name = self.solver.name();
        let fallback = Fallback::default();
        self.ctx.fallback = Some(fallback.clone());
        let graph = Arc::clone(&self.graph);
        let (tx, rx) = mpsc::channel();
        let started = Instant::now();
        let thread = std::thread::Builder::new()
            .name(format!("solve {name}"))
            // The main thread's usual 8 MiB, where the solves ran before
            // without `--threads` (a spawned thread gets 2 MiB; with it the
            // solve runs on a pool worker, as before).
            .stack_size(8 << 20)
            .spawn({
                let name = name.clone();
                move || {
                    let solve = || solvers::run(self.solver.as_ref(), &self.graph, &self.ctx);
                    let report = catch_panic(|| match &self.pool {
                        Some(pool) => pool.install(solve),
                        None => solve(),
                    })
                    .unwrap_or_else(|message| failed(name, format!("{PANICKED}: {message}")));
                    let _ = tx.send(report);
                }
            });
        let thread = match thread {
            Ok(t) => t,
            Err(e) => {
                let why = format!("cannot start a thread for the solve: {e}");
                return (failed(name, why), Fate::Ran);
            }
        };
        let mut asked_to_stop: Option<Instant> = None;
        loop {
            match rx.recv_timeout(Duration::from_millis(20)) {
                Ok(report) => return (report, Fate::Ran),
                Err(mpsc::RecvTimeoutError::Disconnected) => match thread.join() {
                    Err(panic) => std::panic::resume_unwind(panic),
                    Ok(()) => {
                        let why = "the solve ended without a report".into();
                        return (failed(name, why), Fate::Ran);
                    }
                },
                Err(mpsc::RecvTimeoutError::Timeout) if interrupt.happened() => {
                    let since = *asked_to_stop.get_or_insert_with(Instant::now);
                    if since.elapsed() >= STOP_GRACE {
                        let why = format!(
                            "it did not stop within {} s of {} (`ilp` cannot stop during \
                             HiGHS's set-up or inside an LP solve; give it a --time-limit)",
                            STOP_GRACE.as_secs(),
                            crate::cli::interrupt::cause()
                        );
                        let Some(posted) = fallback.take() else {
                            let note = format!("{LEFT_BEHIND}: {why}");
                            let report = Report::unsolved(
                                name,
                                Status::TimedOut,
                                Some(note),
                                started.elapsed(),
                            );
                            return (report, Fate::LeftBehind { posted: false });
                        };
                        let mut report =
                            solvers::posted_report(name, &graph, posted, started.elapsed());
                        report.note = Some(format!("{LEFT_BEHIND_POSTED}: {why}"));
                        return (report, Fate::LeftBehind { posted: true });
                    }
                }
                Err(mpsc::RecvTimeoutError::Timeout) => {}
            }
        }
    }
}

/// A report of `solver` with status `failed` for `why`, no order.
pub(super) fn failed(solver: String, why: String) -> Report {
    Report::unsolved(solver, Status::Failed(why), None, Duration::ZERO)
}

/// The note of a solver that Ctrl-C (or SIGTERM) kept from starting.
pub(super) fn not_run_note() -> String {
    format!(
        "not run: interrupted ({}) before it started",
        crate::cli::interrupt::cause()
    )
}

/// The report of a solver that Ctrl-C kept from starting: no order.
pub(super) fn not_run(solver: String) -> Report {
    Report::unsolved(
        solver,
        Status::TimedOut,
        Some(not_run_note()),
        Duration::ZERO,
    )
}
