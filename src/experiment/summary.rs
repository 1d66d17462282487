//! `summary.csv`: one line per solver over all its rows.
//!
//! Its gaps are to the best known peak of each graph
//! (docs/experiments.md#gaps); `gap_graphs_proven` says on how many of the
//! solver's graphs that peak is a proven optimum, and the `*_gap_proven_pct`
//! figures are its gap to the optimum on those graphs only.

use std::collections::BTreeSet;
use std::io;
use std::path::Path;

use serde::Serialize;

use super::graphs::GraphSummary;
use super::rows::{Row, RowStatus};

/// Per-solver statistics.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct SolverSummary {
    /// The solver's registry name, as in `runs.csv`'s `solver` column.
    pub solver: String,
    /// Rows (graph x seed).
    pub runs: usize,
    /// Rows whose order passed the checker.
    pub valid: usize,
    /// Mean of the rows' `reduction_pct` (peak saved against the graph's
    /// baseline, %); empty when no row has one.
    pub mean_reduction_pct: Option<f64>,
    /// Median of the rows' `reduction_pct`; empty when no row has one.
    pub median_reduction_pct: Option<f64>,
    /// Largest of the rows' `reduction_pct`; empty when no row has one.
    pub max_reduction_pct: Option<f64>,
    /// Mean of the rows' `gap_pct` (peak above the graph's best known
    /// peak, %); empty when no row has a valid peak.
    pub mean_gap_pct: Option<f64>,
    /// Median of the rows' `gap_pct`; empty when no row has a valid peak.
    pub median_gap_pct: Option<f64>,
    /// Largest of the rows' `gap_pct`; empty when no row has a valid peak.
    pub max_gap_pct: Option<f64>,
    /// Rows with a lower peak than the baseline.
    pub wins: usize,
    /// Rows with the baseline's peak.
    pub ties: usize,
    /// Rows with a higher peak than the baseline.
    pub losses: usize,
    /// Rows where the solver's peak equals the best known peak.
    pub best_known: usize,
    /// Rows with status `optimal` (a proof).
    pub proven_optimal: usize,
    /// Rows with status `timed_out`.
    pub timed_out: usize,
    /// Rows with status `failed`: the solver refused the graph or
    /// panicked, or the graph did not load.
    pub failed: usize,
    /// Rows with status `invalid`: the checker refused the order, its
    /// claimed peak or its bound (above its own peak, or `optimal` without
    /// a matching one), or the claimed lower bound is above another row's
    /// checked peak.
    pub invalid: usize,
    /// Mean `time_ms` over the rows whose solver ran, rounded to the
    /// microsecond; 0 without any.
    pub mean_time_ms: f64,
    /// Graphs with a valid run of the solver (those its gaps are over).
    pub gap_graphs: usize,
    /// Of those, graphs whose best known peak is proven optimal (its gap
    /// there is to the optimum; elsewhere only to the best peak found).
    pub gap_graphs_proven: usize,
    /// Mean and largest gap over its valid runs on proven graphs: the gap
    /// to the optimum.
    pub mean_gap_proven_pct: Option<f64>,
    /// Largest such gap to the optimum (%); empty without a valid run on a
    /// proven graph.
    pub max_gap_proven_pct: Option<f64>,
}

/// Mean, median and largest of `xs`, rounded as the rows' percentages are
/// ([`super::rows::pct`]: 4 decimals, or 3 significant digits below 0.01,
/// so that a tiny figure is not written as 0); `None` each when `xs` is
/// empty.
pub(super) fn stats(mut xs: Vec<f64>) -> (Option<f64>, Option<f64>, Option<f64>) {
    if xs.is_empty() {
        return (None, None, None);
    }
    xs.sort_by(f64::total_cmp);
    let n = xs.len();
    let mean = xs.iter().sum::<f64>() / n as f64;
    let median = if n % 2 == 1 {
        xs[n / 2]
    } else {
        (xs[n / 2 - 1] + xs[n / 2]) / 2.0
    };
    // A sum of figures that cancel (0.1 + 0.2 - 0.3) leaves float noise,
    // far below any figure of whole bytes: that is 0, not 9.25e-18.
    let largest = xs.iter().fold(0f64, |a, x| a.max(x.abs()));
    let round = |x: f64| match x.abs() <= largest * 1e-9 {
        true => 0.0,
        false => super::rows::pct(x),
    };
    (
        Some(round(mean)),
        Some(round(median)),
        Some(round(xs[n - 1])),
    )
}

/// Summarizes rows per solver, in `order` (solvers missing from it follow,
/// sorted); `graphs` (from [`super::graphs::summarize`]) says which graphs
/// are proven optimal.
pub fn summarize(rows: &[Row], order: &[String], graphs: &[GraphSummary]) -> Vec<SolverSummary> {
    let proven: BTreeSet<&str> = graphs
        .iter()
        .filter(|g| g.proven)
        .map(|g| g.graph.as_str())
        .collect();
    let by_solver = super::rows::by_solver(rows);
    let mut names: Vec<String> = order
        .iter()
        .filter(|s| by_solver.contains_key(s.as_str()))
        .cloned()
        .collect();
    let ordered: BTreeSet<&str> = order.iter().map(String::as_str).collect();
    let mut extra: Vec<String> = by_solver
        .keys()
        .filter(|s| !ordered.contains(*s))
        .map(|s| s.to_string())
        .collect();
    extra.sort();
    names.extend(extra);
    names
        .into_iter()
        .map(|name| {
            let mine: &[&Row] = &by_solver[name.as_str()];
            let (mr, medr, maxr) = stats(mine.iter().filter_map(|r| r.reduction_pct).collect());
            let (mg, medg, maxg) = stats(mine.iter().filter_map(|r| r.gap_pct).collect());
            let cmp = |f: fn(u64, u64) -> bool| {
                mine.iter()
                    .filter(|r| match (r.peak_bytes, r.baseline_peak_bytes) {
                        (Some(p), Some(b)) => f(p, b),
                        _ => false,
                    })
                    .count()
            };
            let status = |s: RowStatus| mine.iter().filter(|r| r.status == s).count();
            let gapped: BTreeSet<&str> = mine
                .iter()
                .filter(|r| r.gap_pct.is_some())
                .map(|r| r.graph.as_str())
                .collect();
            let (mean_proven, _, max_proven) = stats(
                mine.iter()
                    .filter(|r| proven.contains(r.graph.as_str()))
                    .filter_map(|r| r.gap_pct)
                    .collect(),
            );
            SolverSummary {
                runs: mine.len(),
                valid: mine.iter().filter(|r| r.valid).count(),
                mean_reduction_pct: mr,
                median_reduction_pct: medr,
                max_reduction_pct: maxr,
                mean_gap_pct: mg,
                median_gap_pct: medg,
                max_gap_pct: maxg,
                wins: cmp(|p, b| p < b),
                ties: cmp(|p, b| p == b),
                losses: cmp(|p, b| p > b),
                best_known: mine
                    .iter()
                    .filter(|r| r.peak_bytes.is_some() && r.peak_bytes == r.best_known_bytes)
                    .count(),
                proven_optimal: status(RowStatus::Optimal),
                timed_out: status(RowStatus::TimedOut),
                failed: status(RowStatus::Failed),
                invalid: status(RowStatus::Invalid),
                mean_time_ms: mean_time_ms(mine),
                gap_graphs: gapped.len(),
                gap_graphs_proven: gapped.iter().filter(|g| proven.contains(*g)).count(),
                mean_gap_proven_pct: mean_proven,
                max_gap_proven_pct: max_proven,
                solver: name,
            }
        })
        .collect()
}

/// Mean solve time of `rows`, to the microsecond, over the solves that ran
/// (a graph that could not be loaded mid-run has none); 0 without any.
fn mean_time_ms(rows: &[&Row]) -> f64 {
    let ran: Vec<f64> = rows
        .iter()
        .filter(|r| !super::rows::never_ran(r))
        .map(|r| r.time_ms)
        .collect();
    if ran.is_empty() {
        return 0.0;
    }
    ((ran.iter().sum::<f64>() / ran.len() as f64) * 1e3).round() / 1e3
}

/// Writes `summary.csv`, whole or not at all.
pub fn write(path: &Path, summary: &[SolverSummary]) -> io::Result<()> {
    crate::output::write_file(path, |file| {
        let mut w = csv::Writer::from_writer(file);
        for s in summary {
            w.serialize(s)?;
        }
        w.flush()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn median_and_counts() {
        assert_eq!(
            stats(vec![3.0, 1.0, 2.0, 10.0]),
            (Some(4.0), Some(2.5), Some(10.0))
        );
        assert_eq!(stats(vec![]), (None, None, None));
        // A tiny figure keeps its digits, as in runs.csv, not rounded to 0.
        assert_eq!(
            stats(vec![0.0, 1e-5, 2.5e-5]),
            (Some(1.17e-5), Some(1e-5), Some(2.5e-5))
        );
        // Figures that cancel leave 0, not float noise (9.25e-18).
        assert_eq!(
            stats(vec![0.1, 0.2, -0.3]),
            (Some(0.0), Some(0.1), Some(0.2))
        );
    }

    /// Rows whose graph could not be loaded ran no solver: their time of 0
    /// does not pull the mean down.
    #[test]
    fn mean_time_leaves_out_solves_that_never_ran() {
        let row = |time_ms: f64, reason: &str| Row {
            status: RowStatus::Failed,
            time_ms,
            reason: reason.into(),
            ..super::super::rows::blank()
        };
        let rows = [
            row(3.0, ""),
            row(5.0, "panicked: boom"),
            row(0.0, "cannot load graph: it changed during the run"),
        ];
        assert_eq!(mean_time_ms(&rows.iter().collect::<Vec<_>>()), 4.0);
        assert_eq!(mean_time_ms(&[]), 0.0);
    }

    /// The gap to the best known peak is split out over the graphs where
    /// that peak is proven: their count and the gap there.
    #[test]
    fn gaps_to_a_proven_optimum_are_counted_apart() {
        let row = |graph: &str, solver: &str, status: &str, peak: u64, lb: Option<u64>| Row {
            graph: graph.into(),
            solver: solver.into(),
            status: RowStatus::from_label(status).expect("a status label"),
            valid: true,
            peak_bytes: Some(peak),
            lower_bound_bytes: lb,
            ..super::super::rows::blank()
        };
        let rows = super::super::rows::finalize(
            vec![
                row("proven", "kahn", "feasible", 150, None),
                row("proven", "exact", "optimal", 100, Some(100)),
                row("open", "kahn", "feasible", 110, None),
                row("open", "exact", "feasible", 100, Some(90)),
            ],
            &[],
        );
        let graphs = super::super::graphs::summarize(&rows);
        let s = summarize(&rows, &["kahn".into(), "exact".into()], &graphs);
        let kahn = &s[0];
        assert_eq!((kahn.gap_graphs, kahn.gap_graphs_proven), (2, 1));
        assert_eq!(kahn.mean_gap_pct, Some(30.0));
        assert_eq!(kahn.mean_gap_proven_pct, Some(50.0));
        assert_eq!(kahn.max_gap_proven_pct, Some(50.0));
    }
}
