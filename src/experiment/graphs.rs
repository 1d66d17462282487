//! `graphs.csv`: one line per graph ([`GraphSummary`]) combining its rows:
//! the best known peak and who found it, the best lower bound any solver
//! proved and who proved it, and the gap between them.
//!
//! [`summarize`] reads finalized rows (see [`super::rows::finalize`]);
//! [`Optimality`] counts proven and open graphs for the README's header.
//! The gap is `100 * (best_known - lower_bound) / lower_bound`
//! ([`crate::solvers::gap_to_bound_pct`], docs/experiments.md#gaps): a
//! graph is proven optimal when it is 0, open when it is positive, and has
//! no gap when no solver gave a bound.

use std::collections::BTreeMap;
use std::io;
use std::path::Path;

use serde::Serialize;

use super::rows::{pct, Row, RowStatus};
use crate::solvers::gap_to_bound_pct;

/// The per-graph figures (`graphs.csv`'s schema).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct GraphSummary {
    /// The graph's first item in the plan (rows are sorted by it).
    pub item: usize,
    /// The graph's name, as in `runs.csv`'s `graph` column.
    pub graph: String,
    /// Generator family, or the directory name of a graph file.
    pub family: String,
    /// Node count, from the graph's first row (0 if it could not be loaded).
    pub nodes: usize,
    /// Edge count, from the graph's first row (0 if it could not be loaded).
    pub edges: usize,
    /// The baseline used for this graph (empty when none gave an order).
    pub baseline: String,
    /// That baseline's checked peak in bytes; empty when none gave an order.
    pub baseline_peak_bytes: Option<u64>,
    /// The lowest checked peak over all solvers.
    pub best_known_bytes: Option<u64>,
    /// The solver of the first row (by item, then seed) with that peak.
    pub best_solver: String,
    /// The highest lower bound over the graph's rows, leaving out rows
    /// with status `invalid` (the checker refused their answer, so their
    /// bound is not trusted either).
    pub lower_bound_bytes: Option<u64>,
    /// The solver of the first row with that bound.
    pub bound_solver: String,
    /// The bound meets the best known peak: that peak is the optimum.
    pub proven: bool,
    /// `100 * (best_known - lower_bound) / lower_bound`; 0 when proven,
    /// empty without a peak or a bound (or with a bound of 0 under a
    /// positive peak), and empty when the bound passes the best known
    /// peak (a wrong bound: see [`conflicts`]).
    pub gap_pct: Option<f64>,
}

/// One [`GraphSummary`] per graph of `rows` (finalized), in item order.
///
/// # Complexity
/// O(R log R) for R rows.
pub fn summarize(rows: &[Row]) -> Vec<GraphSummary> {
    let mut by_graph: BTreeMap<&str, Vec<&Row>> = BTreeMap::new();
    for r in rows {
        by_graph.entry(&r.graph).or_default().push(r);
    }
    let mut out: Vec<GraphSummary> = by_graph
        .into_values()
        .map(|mut rs| {
            rs.sort_by_key(|r| (r.item, r.seed));
            of_graph(&rs)
        })
        .collect();
    out.sort_by(|a, b| (a.item, &a.graph).cmp(&(b.item, &b.graph)));
    out
}

/// The figures of one graph from its rows, sorted by (item, seed).
fn of_graph(rs: &[&Row]) -> GraphSummary {
    let first = rs[0];
    let best = rs
        .iter()
        .filter_map(|r| Some((r.peak_bytes?, *r)))
        .min_by_key(|&(peak, _)| peak);
    // The first of the highest bounds (`max_by_key` keeps the last).
    let bound = rs
        .iter()
        .rev()
        .filter(|r| r.status != RowStatus::Invalid)
        .filter_map(|r| Some((r.lower_bound_bytes?, *r)))
        .max_by_key(|&(lb, _)| lb);
    let best_bytes = best.map(|(p, _)| p);
    let lb_bytes = bound.map(|(b, _)| b);
    let (proven, gap_pct) = match (best_bytes, lb_bytes) {
        (Some(p), Some(b)) if p == b => (true, Some(0.0)),
        (Some(p), Some(b)) if p > b => (false, gap_to_bound_pct(p, b).map(pct)),
        _ => (false, None),
    };
    GraphSummary {
        item: first.item,
        graph: first.graph.clone(),
        family: first.family.clone(),
        nodes: first.nodes,
        edges: first.edges,
        baseline: first.baseline.clone(),
        baseline_peak_bytes: first.baseline_peak_bytes,
        best_known_bytes: best_bytes,
        best_solver: best.map_or(String::new(), |(_, r)| r.solver.clone()),
        lower_bound_bytes: lb_bytes,
        bound_solver: bound.map_or(String::new(), |(_, r)| r.solver.clone()),
        proven,
        gap_pct,
    }
}

/// Graphs whose lower bound passes their best known peak: one of the
/// solvers proved a wrong bound (a bug), named in a warning; `None` when
/// there is no such graph.
pub fn conflicts(graphs: &[GraphSummary]) -> Option<String> {
    let wrong: Vec<String> = graphs
        .iter()
        .filter_map(|g| {
            let (peak, lb) = (g.best_known_bytes?, g.lower_bound_bytes?);
            (lb > peak).then(|| {
                format!(
                    "`{}` (bound {lb} B by {}, checked peak {peak} B by {})",
                    g.graph, g.bound_solver, g.best_solver
                )
            })
        })
        .collect();
    if wrong.is_empty() {
        return None;
    }
    Some(format!(
        "{} graph(s) have a lower bound above a checked peak, so some solver's bound is \
         wrong (a solver bug; their gap is left empty): {}",
        wrong.len(),
        wrong.join(", ")
    ))
}

/// How many graphs are proven optimal, open or without a bound, and the
/// gaps of the open ones.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Optimality {
    /// All graphs counted: `proven + open + unbounded + unsolved`.
    pub graphs: usize,
    /// Graphs whose best known peak equals their best lower bound.
    pub proven: usize,
    /// Graphs with a positive gap to their bound.
    pub open: usize,
    /// The open graphs' largest and median gap (%).
    pub max_gap_pct: Option<f64>,
    /// The open graphs' median gap (%); `None` when no graph is open.
    pub median_gap_pct: Option<f64>,
    /// Graphs with a valid peak and no usable bound: none at all
    /// (`boundless`), a bound of 0, or one above the peak.
    pub unbounded: usize,
    /// Graphs with a valid peak for which no solver gave any bound.
    pub boundless: usize,
    /// Graphs without any checked order.
    pub unsolved: usize,
}

impl Optimality {
    /// Counts over `graphs`.
    pub fn of(graphs: &[GraphSummary]) -> Optimality {
        let gaps: Vec<f64> = graphs
            .iter()
            .filter(|g| !g.proven)
            .filter_map(|g| g.gap_pct)
            .collect();
        let open = gaps.len();
        let (_, median_gap_pct, max_gap_pct) = super::summary::stats(gaps);
        let proven = graphs.iter().filter(|g| g.proven).count();
        let unsolved = graphs
            .iter()
            .filter(|g| g.best_known_bytes.is_none())
            .count();
        let boundless = graphs
            .iter()
            .filter(|g| g.best_known_bytes.is_some() && g.lower_bound_bytes.is_none())
            .count();
        Optimality {
            graphs: graphs.len(),
            proven,
            open,
            max_gap_pct,
            median_gap_pct,
            unbounded: graphs.len() - proven - open - unsolved,
            boundless,
            unsolved,
        }
    }
}

/// Writes `graphs.csv`, whole or not at all.
pub fn write(path: &Path, graphs: &[GraphSummary]) -> io::Result<()> {
    crate::output::write_file(path, |file| {
        let mut w = csv::Writer::from_writer(file);
        for g in graphs {
            w.serialize(g)?;
        }
        w.flush()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A small open gap keeps its digits; others keep 4 decimals.
    #[test]
    fn small_gaps_are_not_rounded_to_zero() {
        let gap = gap_to_bound_pct(5_216_507, 5_216_506).unwrap();
        assert_eq!(pct(gap), 1.92e-5);
        assert_eq!(pct(12.345678), 12.3457);
        assert_eq!(pct(0.0), 0.0);
    }
    use crate::experiment::rows::blank;

    fn row(
        item: usize,
        graph: &str,
        solver: &str,
        status: &str,
        peak: u64,
        lb: Option<u64>,
    ) -> Row {
        Row {
            item,
            graph: graph.into(),
            solver: solver.into(),
            status: RowStatus::from_label(status).expect("a status label"),
            valid: status != "invalid",
            peak_bytes: (status != "invalid").then_some(peak),
            lower_bound_bytes: lb,
            ..blank()
        }
    }

    /// The user's case: the best peak comes from a heuristic, two solvers
    /// give bounds, and the graph's line combines them (the highest bound,
    /// the gap relative to it); a graph a solver proved is closed; one
    /// without any bound has no gap.
    #[test]
    fn combines_best_peak_and_best_bound_per_graph() {
        let rows = [
            row(0, "open", "program", "feasible", 243055, None),
            row(1, "open", "best-heuristic", "feasible", 184273, None),
            row(2, "open", "exact", "feasible", 184273, Some(166709)),
            row(3, "open", "ilp", "feasible", 190000, Some(163432)),
            // A refused answer's bound is not trusted.
            row(4, "open", "broken", "invalid", 0, Some(184000)),
            row(5, "closed", "kahn", "feasible", 120, None),
            row(6, "closed", "exact", "optimal", 100, Some(100)),
            row(7, "free", "kahn", "feasible", 50, None),
        ];
        let g = summarize(&rows);
        assert_eq!(
            g.iter().map(|g| g.graph.as_str()).collect::<Vec<_>>(),
            ["open", "closed", "free"]
        );
        let open = &g[0];
        assert_eq!(open.best_known_bytes, Some(184273));
        assert_eq!(open.best_solver, "best-heuristic");
        assert_eq!(open.lower_bound_bytes, Some(166709));
        assert_eq!(open.bound_solver, "exact");
        assert!(!open.proven);
        assert_eq!(open.gap_pct, Some(10.5357));
        let closed = &g[1];
        assert!(closed.proven);
        assert_eq!(closed.gap_pct, Some(0.0));
        assert_eq!((closed.item, closed.best_solver.as_str()), (5, "exact"));
        let free = &g[2];
        assert_eq!((free.lower_bound_bytes, free.gap_pct), (None, None));
        assert!(!free.proven);
        assert_eq!(
            Optimality::of(&g),
            Optimality {
                graphs: 3,
                proven: 1,
                open: 1,
                max_gap_pct: Some(10.5357),
                median_gap_pct: Some(10.5357),
                unbounded: 1,
                boundless: 1,
                unsolved: 0,
            }
        );
        assert_eq!(conflicts(&g), None);
    }

    /// A bound that meets the best peak found by another solver closes
    /// the graph without any `optimal` row; a bound above a checked peak
    /// is a conflict, named, with no gap.
    #[test]
    fn a_bound_met_by_another_solver_proves_and_a_wrong_one_is_named() {
        let rows = [
            row(0, "a", "greedy", "feasible", 90, None),
            row(1, "a", "exact", "feasible", 95, Some(90)),
            row(2, "b", "greedy", "feasible", 80, None),
            row(3, "b", "dp", "feasible", 100, Some(85)),
        ];
        let g = summarize(&rows);
        assert!(g[0].proven && g[0].gap_pct == Some(0.0));
        assert!(!g[1].proven && g[1].gap_pct.is_none());
        let text = conflicts(&g).unwrap();
        assert!(
            text.contains("`b` (bound 85 B by dp, checked peak 80 B by greedy)"),
            "{text}"
        );
        let o = Optimality::of(&g);
        assert_eq!((o.proven, o.open, o.unbounded), (1, 0, 1));
    }

    /// The median of an even number of open gaps is the mean of the middle two.
    #[test]
    fn median_of_open_gaps() {
        let rows = [
            row(0, "a", "x", "feasible", 110, Some(100)),
            row(1, "b", "x", "feasible", 130, Some(100)),
            row(2, "c", "x", "timed_out", 0, Some(100)),
        ];
        let mut rows = rows.to_vec();
        rows[2].peak_bytes = None;
        rows[2].valid = false;
        let o = Optimality::of(&summarize(&rows));
        assert_eq!(o.median_gap_pct, Some(20.0));
        assert_eq!(o.max_gap_pct, Some(30.0));
        assert_eq!((o.open, o.unsolved, o.unbounded), (2, 1, 0));
    }
}
