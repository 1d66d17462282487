//! `noisy:EXPR` (and `noisy-moves:EXPR`): a rule with seeded Gumbel noise on
//! its first term, best of `--restarts K` runs in parallel.
//!
//! The first term of each node's key gets `scale * G(v)`, where `G(v)` is a
//! standard Gumbel sample drawn once per node and run (so a re-keyed node
//! keeps its noise) and `scale` is the mean absolute value of the first term
//! over all nodes at the start (1 if that is 0), from the run's own draws
//! when the term reads `random`. With the first term `delta`,
//! two nodes whose deltas differ by much less than a typical buffer are
//! ordered nearly at random, and a FREE of a large buffer still comes before
//! an ALLOC of one.
//!
//! Restarts: run `i` (0-based) uses the seed [`restart_seed`]`(ctx.seed, i)` for
//! its noise (and the `random` feature). The runs are spread over rayon's
//! threads; the result is the lowest checked peak, ties to the smallest
//! restart index, so it does not depend on the thread count.

use std::sync::atomic::{AtomicU32, Ordering};

use rayon::prelude::*;

use super::features::{noise_scale, Adj, Noise, Statics};
use super::list;
use super::moves::{self, Pick};
use super::parse::{Feature, Key};
use crate::graph::{Graph, NodeIdx};
use crate::rng::Rng;
use crate::schedule;
use crate::solvers::{Abilities, Outcome, Scheduler, SolveContext};

/// A rule with Gumbel noise, best of `ctx.restarts` runs.
///
/// # Complexity
/// K times the rule's (see [`super::Rule`], [`super::Moves`]), over the threads.
#[derive(Debug, Clone)]
pub struct Noisy {
    key: Key,
    moves: bool,
}

impl Noisy {
    /// `noisy:EXPR` (`moves == false`) or `noisy-moves:EXPR`.
    pub fn new(key: Key, moves: bool) -> Self {
        Noisy { key, moves }
    }
}

impl Scheduler for Noisy {
    fn name(&self) -> String {
        let base = if self.moves { "noisy-moves" } else { "noisy" };
        format!("{base}:{}", self.key)
    }

    fn abilities(&self) -> Abilities {
        Abilities {
            seeded: true,
            restarts: true,
            ..Abilities::default()
        }
    }

    fn solve(&self, g: &Graph, ctx: &SolveContext) -> Outcome {
        let adj = Adj::new(g);
        // Depths and heights once, shared by the scale and every restart.
        let tables = Statics::new(g, &self.key, ctx.seed, None);
        // A first term reading `random` has each run's own draws, so each
        // run takes their scale; any other first term is the same in all.
        let first_reads_random = self
            .key
            .terms
            .first()
            .is_some_and(|t| t.features().any(|f| f == Feature::Random));
        let shared_scale = (!first_reads_random).then(|| noise_scale(g, &adj, &self.key, &tables));
        best_of_runs(g, ctx, |seed| {
            let scale = shared_scale.unwrap_or_else(|| {
                noise_scale(g, &adj, &self.key, &tables.reseeded(g, seed, None))
            });
            let statics = tables.reseeded(g, seed, Some(Noise { seed, scale }));
            let run_ctx = ctx.with_seed(seed);
            if self.moves {
                let pick = Pick::Key {
                    key: &self.key,
                    statics: &statics,
                };
                moves::schedule(g, &adj, pick, &run_ctx)
            } else {
                list::schedule(g, &adj, &self.key, &statics, &run_ctx)
            }
        })
    }
}

/// Seed of restart `i`.
pub(super) fn restart_seed(seed: u64, i: u32) -> u64 {
    Rng::derive(seed, i as u64).next_u64()
}

/// Runs `run` once per restart (at least once) in parallel and keeps the
/// lowest checked peak, ties to the smaller restart index. A run that hits
/// the deadline is dropped; if all do, the outcome is `timed_out`. A single
/// run is compared with nothing, so it is not checked here.
///
/// Restarts start in batches of a few per thread, in index order, and none
/// starts once the deadline has passed (restart 0 always runs): with a time
/// limit, the result is the best of the restarts that finished, and the
/// `restarts` counter and the note say how many did.
pub(super) fn best_of_runs(
    g: &Graph,
    ctx: &SolveContext,
    run: impl Fn(u64) -> Option<Vec<NodeIdx>> + Sync,
) -> Outcome {
    let k = ctx.restarts.max(1);
    let (best, done) = if k == 1 {
        let order = run(restart_seed(ctx.seed, 0));
        let done = u32::from(order.is_some());
        (order.map(|order| (0, order)), done)
    } else {
        best_of_batches(g, ctx, k, &run)
    };
    match best {
        Some((i, order)) => {
            // One wording, whether or not every restart finished.
            let note = if done < k {
                format!(
                    "best: restart {i} (numbered from 0); {done} of the {k} finished (restarts \
                     run in batches, so not always the first ones), {} stopped the other {}",
                    ctx.limit_cause(),
                    k - done
                )
            } else {
                format!("best: restart {i} (numbered from 0) of {k}")
            };
            Outcome::feasible(order)
                .with_counter("restarts", done as u64)
                .with_note(note)
        }
        None => Outcome::timed_out(),
    }
}

/// Restarts `0..k` (k > 1) in batches, none started past the deadline: the
/// restart with the lowest checked peak (ties to the smaller index) and its
/// order, and how many restarts finished.
fn best_of_batches(
    g: &Graph,
    ctx: &SolveContext,
    k: u32,
    run: &(impl Fn(u64) -> Option<Vec<NodeIdx>> + Sync),
) -> (Option<(u32, Vec<NodeIdx>)>, u32) {
    let batch = 4 * rayon::current_num_threads().max(1) as u32;
    let finished = AtomicU32::new(0);
    let mut best: Option<(u64, u32, Vec<NodeIdx>)> = None;
    let mut start = 0;
    while start < k && (start == 0 || !ctx.expired()) {
        let end = start.saturating_add(batch).min(k);
        let found = (start..end)
            .into_par_iter()
            .filter_map(|i| {
                if i > 0 && ctx.expired() {
                    return None;
                }
                let order = run(restart_seed(ctx.seed, i))?;
                finished.fetch_add(1, Ordering::Relaxed);
                let peak = schedule::check(g, &order).ok()?.peak;
                Some((peak, i, order))
            })
            .min_by_key(|(peak, i, _)| (*peak, *i));
        if let Some(f) = found {
            if best.as_ref().is_none_or(|b| (f.0, f.1) < (b.0, b.1)) {
                best = Some(f);
            }
        }
        start = end;
    }
    (best.map(|(_, i, order)| (i, order)), finished.into_inner())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::corpus::gen::{generate, GenSpec};

    /// The order of one run of `key` with noise of `scale`, as [`Noisy`]
    /// runs it under the run's `seed`.
    fn one_run(g: &Graph, key: &Key, seed: u64, scale: f64) -> Vec<NodeIdx> {
        let adj = Adj::new(g);
        let tables = Statics::new(g, key, seed, None);
        let statics = tables.reseeded(g, seed, Some(Noise { seed, scale }));
        list::schedule(g, &adj, key, &statics, &SolveContext::new(seed, None)).unwrap()
    }

    /// `noisy:random,id` scales its noise by the mean of the `random` draws
    /// of the run itself, not of the draws under the unmixed `--seed`
    /// (which gave another order on this graph).
    #[test]
    fn a_random_first_term_scales_by_the_runs_own_draws() {
        let spec = GenSpec::parse("random-layered:layers=6,width=4").unwrap();
        let g = generate(&spec, 0).unwrap();
        let key = super::super::parse::parse("random,id").unwrap();
        let adj = Adj::new(&g);
        let ctx = SolveContext::new(1, None);
        let run = restart_seed(ctx.seed, 0);
        let scale_of = |seed| noise_scale(&g, &adj, &key, &Statics::new(&g, &key, seed, None));
        let got = Noisy::new(key.clone(), false)
            .solve(&g, &ctx)
            .order
            .unwrap();
        assert_eq!(got, one_run(&g, &key, run, scale_of(run)));
        assert_ne!(got, one_run(&g, &key, run, scale_of(ctx.seed)));
    }
}
