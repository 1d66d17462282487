//! `brute`: every topological order, for tests (n <= 12).

use super::{DeadlineTicker, Outcome, Scheduler, SolveContext};
use crate::graph::{Graph, NodeIdx};

/// Largest graph `brute` accepts.
pub const BRUTE_MAX_NODES: usize = 12;

/// Enumerates every topological order and keeps the first with the lowest
/// peak (orders are enumerated with ready nodes tried in index order). Never
/// wrong, hopeless beyond a dozen nodes: that is what it is for.
///
/// # Complexity
/// O(n · number of topological orders), up to O(n · n!).
#[derive(Debug, Default, Clone, Copy)]
pub struct Brute;

impl Scheduler for Brute {
    fn name(&self) -> String {
        "brute".into()
    }

    fn abilities(&self) -> super::Abilities {
        super::Abilities {
            exact: true,
            ..Default::default()
        }
    }

    fn solve(&self, g: &Graph, ctx: &SolveContext) -> Outcome {
        let n = g.node_count();
        if n > BRUTE_MAX_NODES {
            return Outcome::failed(format!(
                "brute accepts at most {BRUTE_MAX_NODES} nodes, the graph has {n}"
            ));
        }
        let mut search = Enumeration {
            g,
            indegree: g.nodes().map(|v| g.preds(v).len() as u32).collect(),
            order: Vec::with_capacity(n),
            best: None,
            orders: 0,
            ticker: DeadlineTicker::new(1 << 10),
            ctx,
            stopped: false,
        };
        search.visit(0, 0);
        let orders = search.orders;
        match (search.best, search.stopped) {
            (Some((peak, order)), false) => {
                Outcome::optimal(order, peak).with_counter("orders", orders)
            }
            // Stopped: the F4 bound, as a stopped `exact` or `dp` gives it.
            // Its table is at most a few hundred bytes on <= 12 nodes, so the
            // memory budget is not consulted (`brute` has no `budgeted`
            // ability).
            (Some((peak, order)), true) => {
                let f4 = super::exact::f4_global_bound(g, n, u64::MAX);
                let why = format!(
                    "brute stopped by {} after {orders} orders",
                    ctx.limit_cause()
                );
                match f4 {
                    Some(lb) if lb == peak => Outcome::optimal(order, peak)
                        .with_note(format!("{why}; its best meets the F4 bound")),
                    _ => Outcome::feasible(order)
                        .with_lower_bound(f4)
                        .with_note(format!("{why}; best order so far, F4 bound")),
                }
                .with_counter("orders", orders)
            }
            (None, _) => Outcome::timed_out(),
        }
    }
}

/// Depth-first enumeration state.
struct Enumeration<'a> {
    g: &'a Graph,
    indegree: Vec<u32>,
    order: Vec<NodeIdx>,
    best: Option<(u64, Vec<NodeIdx>)>,
    orders: u64,
    ticker: DeadlineTicker,
    ctx: &'a SolveContext,
    stopped: bool,
}

impl Enumeration<'_> {
    fn visit(&mut self, mem: i64, peak: i64) {
        if self.stopped {
            return;
        }
        if self.order.len() == self.g.node_count() {
            self.orders += 1;
            if self.best.as_ref().is_none_or(|(b, _)| (peak as u64) < *b) {
                self.best = Some((peak as u64, self.order.clone()));
            }
            if self.ticker.expired(self.ctx) {
                self.stopped = true;
            }
            return;
        }
        for v in self.g.nodes() {
            if self.indegree[v as usize] != 0 {
                continue;
            }
            self.indegree[v as usize] = u32::MAX; // mark as run
            for &s in self.g.succs(v) {
                self.indegree[s as usize] -= 1;
            }
            self.order.push(v);
            let m = mem + self.g.delta(v);
            self.visit(m, peak.max(m));
            self.order.pop();
            for &s in self.g.succs(v) {
                self.indegree[s as usize] += 1;
            }
            self.indegree[v as usize] = 0;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::GraphBuilder;
    use crate::solvers::{run, Status};

    /// Stopped by its time limit, `brute` keeps the F4 bound: here twelve
    /// ALLOCs nobody frees, whose bound (their sum) proves any order.
    #[test]
    fn a_stopped_enumeration_reports_the_f4_bound() {
        let mut b = GraphBuilder::new();
        for i in 0..12 {
            b.alloc(i + 1, i as i64);
        }
        let g = b.build().unwrap();
        let ctx = SolveContext::new(0, Some(std::time::Duration::from_nanos(1)));
        let r = run(&Brute, &g, &ctx);
        assert_eq!(
            (r.status, r.lower_bound),
            (Status::Optimal, Some(78)),
            "{:?}",
            r.note
        );
        let note = r.note.unwrap_or_default();
        assert!(
            note.starts_with("brute stopped by the time limit after ")
                && note.ends_with("; its best meets the F4 bound"),
            "{note}"
        );
    }
}
