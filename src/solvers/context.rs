//! What a solve may use: seed, deadline, stop flag and budgets.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::graph::NodeIdx;

/// Limits on a search's work, beside the deadline.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Budget {
    /// Most states a search may store.
    pub max_states: u64,
    /// Most bytes a search's tables may hold (an estimate the search keeps).
    pub max_memory_bytes: u64,
}

impl Default for Budget {
    fn default() -> Self {
        Budget {
            max_states: 50_000_000,
            max_memory_bytes: 4 << 30,
        }
    }
}

/// The inputs of one solve besides the graph.
#[derive(Debug, Clone, Default)]
pub struct SolveContext {
    /// Seed for randomized solvers (ignored by deterministic ones).
    pub seed: u64,
    /// Wall-clock limit for the solve; `None` is unlimited.
    pub time_limit: Option<Duration>,
    /// Set by [`SolveContext::started`]: when the time limit runs out.
    pub deadline: Option<Instant>,
    /// Work limits for searches.
    pub budget: Budget,
    /// A known schedule to start from or to bound with (optional ability).
    pub warm_start: Option<Vec<NodeIdx>>,
    /// Independent runs a randomized solver makes, keeping the best (0 or 1: one run).
    pub restarts: u32,
    /// The graph's name, when it has one (an experiment item's, or a graph
    /// file's stem): what `orders:` looks a schedule up by.
    pub graph_name: Option<String>,
    /// Once its flag is set, the deadline counts as passed: every solver
    /// sharing it returns its best so far, as at its time limit. `memsched
    /// schedule` sets it on the first Ctrl-C.
    pub stop: Option<Stop>,
    /// Where a solver posts its best order so far before a phase a stop
    /// cannot interrupt (see [`SolveContext::post_fallback`]); `None`: no
    /// caller would read it.
    pub fallback: Option<Fallback>,
}

/// A solver's best answer so far, posted before a phase that a stop cannot
/// interrupt (`ilp` before HiGHS's set-up and LP solves): what a caller
/// that leaves the solve behind after a stop (`memsched schedule`, 5 s
/// after Ctrl-C) reports instead of nothing, once the checker accepts it.
#[derive(Debug, Clone, Default)]
pub struct Fallback(Arc<Mutex<Option<Posted>>>);

/// An order posted to a [`Fallback`], with what the solver had proven.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Posted {
    /// A schedule the solver found (it goes through the checker).
    pub order: Vec<NodeIdx>,
    /// A lower bound on every schedule's peak the solver had proven.
    pub lower_bound: Option<u64>,
}

impl Fallback {
    /// Replaces what was posted.
    pub fn post(&self, posted: Posted) {
        // A poisoned lock (a solver panicked while posting) still holds
        // either answer whole: take it over.
        *self.0.lock().unwrap_or_else(|e| e.into_inner()) = Some(posted);
    }

    /// What was posted last, if anything.
    pub fn take(&self) -> Option<Posted> {
        self.0.lock().unwrap_or_else(|e| e.into_inner()).take()
    }
}

/// A flag that ends solves early, and its name for their notes.
#[derive(Debug, Clone)]
pub struct Stop {
    /// Shared with whoever asks for the stop (a signal handler): once it
    /// is `true`, every context holding it counts as expired.
    pub flag: Arc<AtomicBool>,
    /// What set it, as a note names it (`Ctrl-C`, `SIGTERM`): asked when
    /// a solve stops, since which signal came is known only then.
    pub cause: fn() -> &'static str,
}

impl Stop {
    /// True once the flag is set.
    pub fn is_set(&self) -> bool {
        self.flag.load(Ordering::Relaxed)
    }
}

impl SolveContext {
    /// A context with this seed and time limit and default budgets.
    ///
    /// The limit's clock starts in [`started`](SolveContext::started),
    /// which [`solvers::run`](crate::solvers::run) calls: a solver's
    /// `solve` called directly with this context has no deadline. Call
    /// `solve(g, &ctx.started())` to give it one.
    pub fn new(seed: u64, time_limit: Option<Duration>) -> Self {
        SolveContext {
            seed,
            time_limit,
            ..Default::default()
        }
    }

    /// A copy whose deadline is the time limit from now (kept if already set).
    /// A limit too far away for the clock to represent means no deadline.
    pub fn started(&self) -> SolveContext {
        let mut ctx = self.clone();
        if ctx.deadline.is_none() {
            ctx.deadline = ctx.time_limit.and_then(|t| Instant::now().checked_add(t));
        }
        ctx
    }

    /// True once the deadline has passed or a stop was asked for.
    pub fn expired(&self) -> bool {
        self.stopped() || self.deadline.is_some_and(|d| Instant::now() >= d)
    }

    /// True once the [`stop`](SolveContext::stop) flag is set.
    pub fn stopped(&self) -> bool {
        self.stop.as_ref().is_some_and(Stop::is_set)
    }

    /// What a solve that found [`expired`](SolveContext::expired) true
    /// names as its end in a note: the stop's cause once it is set, else
    /// `the time limit`.
    pub fn limit_cause(&self) -> &'static str {
        match &self.stop {
            Some(stop) if self.stopped() => (stop.cause)(),
            _ => "the time limit",
        }
    }

    /// Time left before the deadline (`None` if unlimited; zero once
    /// stopped).
    pub fn remaining(&self) -> Option<Duration> {
        if self.stopped() {
            return Some(Duration::ZERO);
        }
        self.deadline
            .map(|d| d.saturating_duration_since(Instant::now()))
    }

    /// Posts `order` (and a proven `lower_bound`) as the solve's answer
    /// should its caller leave it behind (see [`Fallback`]); nothing, not
    /// even a copy of the order, when no caller reads one.
    pub fn post_fallback(&self, order: &[NodeIdx], lower_bound: Option<u64>) {
        if let Some(fallback) = &self.fallback {
            fallback.post(Posted {
                order: order.to_vec(),
                lower_bound,
            });
        }
    }

    /// A copy for a sub-solve with a different seed (same deadline).
    pub fn with_seed(&self, seed: u64) -> SolveContext {
        SolveContext {
            seed,
            ..self.clone()
        }
    }
}

/// Checks the deadline every `period` calls, keeping `Instant::now` off hot loops.
#[derive(Debug)]
pub struct DeadlineTicker {
    count: u32,
    period: u32,
}

impl DeadlineTicker {
    /// A ticker that looks at the clock every `period` ticks.
    pub fn new(period: u32) -> Self {
        DeadlineTicker { count: 0, period }
    }
    /// True when the deadline has passed (checked every `period` calls).
    pub fn expired(&mut self, ctx: &SolveContext) -> bool {
        self.expired_after(1, ctx)
    }

    /// [`expired`](DeadlineTicker::expired) for a step that did `work`
    /// units (a scan of a ready list of that length, say): the clock is
    /// read every `period` units, so a step that grows with the graph does
    /// not push the next look thousands of steps away.
    pub fn expired_after(&mut self, work: usize, ctx: &SolveContext) -> bool {
        self.count = self
            .count
            .saturating_add(u32::try_from(work).unwrap_or(u32::MAX));
        if self.count >= self.period {
            self.count = 0;
            return ctx.expired();
        }
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_set_stop_flag_counts_as_the_deadline() {
        let flag = Arc::new(AtomicBool::new(false));
        let ctx = SolveContext {
            stop: Some(Stop {
                flag: flag.clone(),
                cause: || "Ctrl-C",
            }),
            ..SolveContext::new(0, None)
        };
        let child = ctx.with_seed(7).started();
        assert!(!child.expired() && child.remaining().is_none());
        assert_eq!(child.limit_cause(), "the time limit");
        flag.store(true, Ordering::Relaxed);
        assert!(child.expired());
        assert_eq!(child.remaining(), Some(Duration::ZERO));
        assert_eq!(child.limit_cause(), "Ctrl-C");
        let mut ticker = DeadlineTicker::new(1);
        assert!(ticker.expired(&child));
    }
}
