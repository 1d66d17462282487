//! What a solver returns ([`Outcome`]) and what is recorded after the
//! independent check ([`Report`]).

use std::fmt;
use std::time::Duration;

use crate::graph::{Graph, NodeIdx};
use crate::schedule::{Evaluation, ScheduleError};

/// How a solve ended.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Status {
    /// The order's peak is proven minimal (search exhausted or bound closed).
    Optimal,
    /// A valid order with no optimality proof.
    Feasible,
    /// The time limit or budget ran out before any order was found.
    TimedOut,
    /// The solver cannot handle this graph (reason given).
    Failed(String),
    /// The solver's answer failed the independent check (set by the runner only).
    Invalid(String),
}

impl Status {
    /// Every [`Status::label`], in the order of the variants.
    pub const LABELS: [&'static str; 5] = ["optimal", "feasible", "timed_out", "failed", "invalid"];

    /// Short machine-readable label: `optimal`, `feasible`, `timed_out`, `failed`, `invalid`.
    pub fn label(&self) -> &'static str {
        match self {
            Status::Optimal => "optimal",
            Status::Feasible => "feasible",
            Status::TimedOut => "timed_out",
            Status::Failed(_) => "failed",
            Status::Invalid(_) => "invalid",
        }
    }
    /// The reason for `failed` and `invalid`.
    pub fn reason(&self) -> Option<&str> {
        match self {
            Status::Failed(r) | Status::Invalid(r) => Some(r),
            _ => None,
        }
    }
}

impl fmt::Display for Status {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // `pad`, so that `{:9}` and `{:<12}` line statuses up.
        match self.reason() {
            Some(r) => f.pad(&format!("{}: {r}", self.label())),
            None => f.pad(self.label()),
        }
    }
}

/// A solver's answer, before checking.
#[derive(Debug, Clone)]
pub struct Outcome {
    /// The schedule, as node indices (absent for timed out / failed).
    pub order: Option<Vec<NodeIdx>>,
    /// What the solver claims: `Optimal` only with a proof, which the
    /// check can still turn into `Invalid`.
    pub status: Status,
    /// A proven lower bound on the optimal peak, if the solver has one.
    pub lower_bound: Option<u64>,
    /// The peak the solver believes its order has (cross-checked if given).
    pub claimed_peak: Option<u64>,
    /// Work counters (`states`, `expanded`, `restarts`, ...).
    pub counters: Vec<(String, u64)>,
    /// Free text for the report (e.g. which member of a best-of won).
    pub note: Option<String>,
}

impl Outcome {
    /// A valid order without a proof.
    pub fn feasible(order: Vec<NodeIdx>) -> Self {
        Outcome {
            order: Some(order),
            status: Status::Feasible,
            lower_bound: None,
            claimed_peak: None,
            counters: Vec::new(),
            note: None,
        }
    }
    /// An order proven optimal with peak `peak`.
    pub fn optimal(order: Vec<NodeIdx>, peak: u64) -> Self {
        Outcome {
            status: Status::Optimal,
            lower_bound: Some(peak),
            claimed_peak: Some(peak),
            ..Outcome::feasible(order)
        }
    }
    /// The solver does not apply to this graph.
    pub fn failed(reason: impl Into<String>) -> Self {
        Outcome {
            order: None,
            status: Status::Failed(reason.into()),
            ..Outcome::feasible(Vec::new())
        }
    }
    /// Nothing found in time.
    pub fn timed_out() -> Self {
        Outcome {
            order: None,
            status: Status::TimedOut,
            ..Outcome::feasible(Vec::new())
        }
    }
    /// Adds a work counter.
    pub fn with_counter(mut self, name: &str, value: u64) -> Self {
        self.counters.push((name.to_string(), value));
        self
    }
    /// Sets the lower bound.
    pub fn with_lower_bound(mut self, bound: Option<u64>) -> Self {
        self.lower_bound = bound;
        self
    }
    /// Sets the note.
    pub fn with_note(mut self, note: impl Into<String>) -> Self {
        self.note = Some(note.into());
        self
    }
}

/// A checked result: the only record of a solve that memsched keeps.
///
/// Made only by memsched ([`run`](super::run) checks the solver's order;
/// [`Report::unsolved`] records a solve without one), so a peak in a
/// report has always passed the checker.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct Report {
    /// The solver's name, as the registry takes it (`rule:delta,id`).
    pub solver: String,
    /// The solver's status after the check: `Invalid` (with the checker's
    /// reason) when the order broke an edge, missed a node, or its claimed
    /// peak or bound disagreed with the checker's figures.
    pub status: Status,
    /// Why the status is `Invalid`, typed (its text is the status's
    /// reason); `None` for every other status.
    pub rejection: Option<Rejection>,
    /// The order (present whenever `peak` is).
    pub order: Option<Vec<NodeIdx>>,
    /// The checker's peak; `None` unless the order passed the check.
    pub peak: Option<u64>,
    /// The checker's memory after the last node.
    pub final_memory: Option<i64>,
    /// The solver's proven lower bound on the optimal peak, if any. A bound
    /// above another solver's checked peak of the same graph is a bug that
    /// a later comparison can still expose (see [`refute_bounds`]).
    pub lower_bound: Option<u64>,
    /// Work counters (`states`, `expanded`, `restarts`, ...).
    pub counters: Vec<(String, u64)>,
    /// The solver's free text (e.g. which member of a best-of won).
    pub note: Option<String>,
    /// Wall time of the solve alone, not of the check.
    pub time: Duration,
}

/// Why a solver's answer was refused ([`Report::rejection`]). Its text is
/// the `invalid` status's reason, as `runs.csv` records it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Rejection {
    /// The solver claimed `optimal` or `feasible` and gave no order.
    #[error("solver reported success without an order")]
    NoOrder,
    /// The order is not a schedule of the graph.
    #[error("order rejected by the checker: {0}")]
    Order(ScheduleError),
    /// The solver's claimed peak differs from the checker's.
    #[error("solver claimed peak {claimed} but the checker measures {peak}")]
    WrongPeak {
        /// The peak the solver claimed, in bytes.
        claimed: u64,
        /// The checker's peak of the order, in bytes.
        peak: u64,
    },
    /// The solver's lower bound is above its own order's checked peak.
    #[error("lower bound {bound} is above the checked peak {peak}")]
    BoundAbovePeak {
        /// The solver's lower bound, in bytes.
        bound: u64,
        /// The checker's peak of the solver's order, in bytes.
        peak: u64,
    },
    /// `optimal` without a lower bound equal to the checked peak.
    #[error("claimed optimal without a matching lower bound (peak {peak}, bound {bound:?})")]
    UnprovenOptimal {
        /// The checker's peak of the order, in bytes.
        peak: u64,
        /// The solver's lower bound, if it gave one.
        bound: Option<u64>,
    },
    /// The solver's lower bound is above another order's checked peak of
    /// the same graph ([`refute_bounds`]).
    #[error("{}", wrong_bound_reason(claimed, *bound, *peak, by))]
    RefutedBound {
        /// The status label the solver claimed (`optimal`, `feasible`).
        claimed: &'static str,
        /// The solver's lower bound, in bytes.
        bound: u64,
        /// The lower checked peak, in bytes.
        peak: u64,
        /// Whose order has that peak (a solver's name, or `program`).
        by: String,
    },
}

/// Marks invalid every report of one graph whose lower bound is above a
/// checked peak: another report's, or `known` (a checked peak of the
/// graph, such as program order's). A bound above a schedule's peak is
/// wrong, a solver bug, so its claim (a proof of optimality, say) must not
/// stand. The report keeps its order, peak and bound (its order did pass
/// the checker); its status says what it claimed. Returns how many
/// reports were marked.
pub fn refute_bounds(reports: &mut [Report], known: Option<(u64, &str)>) -> usize {
    let best = reports
        .iter()
        .filter_map(|r| Some((r.peak?, r.solver.clone())))
        .chain(known.map(|(p, by)| (p, by.to_string())))
        .min_by_key(|&(p, _)| p);
    let Some((peak, by)) = best else {
        return 0;
    };
    let mut marked = 0;
    // A report already invalid keeps the reason its own check gave (its
    // bound above its own peak, say): it claimed nothing that stands.
    for r in reports
        .iter_mut()
        .filter(|r| !matches!(r.status, Status::Invalid(_)))
    {
        let Some(lb) = r.lower_bound.filter(|&lb| lb > peak) else {
            continue;
        };
        let claimed = r.status.label();
        r.reject(Rejection::RefutedBound {
            claimed,
            bound: lb,
            peak,
            by: by.clone(),
        });
        marked += 1;
    }
    marked
}

/// How [`wrong_bound_reason`] begins and ends.
const CLAIMED: &str = "claimed `";
const WRONG_BOUND: &str = "so the bound is wrong (a solver bug)";

/// Why a solve whose status was `claimed` is invalid: its lower bound `lb`
/// is above the checked `peak` of `by`'s order. [`wrong_bound_claim`]
/// reads `claimed` back.
pub(crate) fn wrong_bound_reason(claimed: &str, lb: u64, peak: u64, by: &str) -> String {
    format!(
        "{CLAIMED}{claimed}` with lower bound {lb}, above the peak {peak} of {by}'s checked \
         order, {WRONG_BOUND}"
    )
}

/// The solver whose checked order a [`wrong_bound_reason`] names (its
/// `by`); `None` for any other reason.
pub(crate) fn wrong_bound_refuter(reason: &str) -> Option<&str> {
    wrong_bound_claim(reason)?;
    // The peak's digits hold no " of ", the solver's name may
    // (`orders:runs of May.jsonl`).
    let after_peak = reason.split_once(", above the peak ")?.1;
    let by_on = after_peak.split_once(" of ")?.1;
    Some(by_on.rsplit_once("'s checked order, ")?.0)
}

/// The status a [`wrong_bound_reason`] says was claimed; `None` for any
/// other reason.
pub(crate) fn wrong_bound_claim(reason: &str) -> Option<&str> {
    let rest = reason.strip_suffix(WRONG_BOUND)?.strip_prefix(CLAIMED)?;
    rest.split('`').next()
}

impl Report {
    /// Checks an outcome with `check` and records it.
    pub(crate) fn from_outcome(
        solver: String,
        graph: &Graph,
        outcome: Outcome,
        time: Duration,
        check: fn(&Graph, &[NodeIdx]) -> Result<Evaluation, ScheduleError>,
    ) -> Report {
        let Outcome {
            order,
            status,
            lower_bound,
            claimed_peak,
            counters,
            note,
        } = outcome;
        // `invalid` is the checker's word: a solver that says it of its
        // own answer failed.
        let status = match status {
            Status::Invalid(r) => Status::Failed(format!("the solver returned `invalid`: {r}")),
            s => s,
        };
        let Some(order) = order else {
            return Report {
                lower_bound,
                counters,
                ..Report::unsolved(solver, status, note, time)
            };
        };
        let mut report = Report {
            lower_bound,
            counters,
            ..Report::unchecked(solver, status, note, time)
        };
        if !matches!(report.status, Status::Optimal | Status::Feasible) {
            // An order beside timed_out/failed is still worth keeping if
            // valid; a failure's reason goes to the note, not lost.
            if let Status::Failed(why) = &report.status {
                let failed = format!("failed ({why}), its order kept");
                report.note = Some(match report.note.take() {
                    Some(n) => format!("{failed}; {n}"),
                    None => failed,
                });
            }
            report.status = Status::Feasible;
        }
        match check(graph, &order) {
            Err(e) => report.reject(Rejection::Order(e)),
            Ok(eval) => {
                if let Some(why) =
                    inconsistency(&report.status, eval.peak, claimed_peak, lower_bound)
                {
                    report.reject(why);
                } else {
                    report.peak = Some(eval.peak);
                    report.final_memory = Some(eval.final_memory);
                    report.order = Some(order);
                }
            }
        }
        report
    }

    /// The report of a solve that gave no order: one that stopped, failed,
    /// or never ran (a caller that gave up waiting for it, say). `status`
    /// stands as given unless it claims success, which without an order is
    /// [`Rejection::NoOrder`].
    pub fn unsolved(
        solver: String,
        status: Status,
        note: Option<String>,
        time: Duration,
    ) -> Report {
        let mut report = Report::unchecked(solver, status, note, time);
        if matches!(report.status, Status::Optimal | Status::Feasible) {
            report.reject(Rejection::NoOrder);
        }
        report
    }

    /// A report of `status` with no order, peak, bound or counters yet,
    /// before any check: the start of [`Report::from_outcome`] and
    /// [`Report::unsolved`].
    fn unchecked(solver: String, status: Status, note: Option<String>, time: Duration) -> Report {
        Report {
            solver,
            status,
            rejection: None,
            order: None,
            peak: None,
            final_memory: None,
            lower_bound: None,
            counters: Vec::new(),
            note,
            time,
        }
    }

    /// Sets the status to `Invalid` for `why`.
    fn reject(&mut self, why: Rejection) {
        self.status = Status::Invalid(why.to_string());
        self.rejection = Some(why);
    }

    /// True when the order passed the checker.
    pub fn valid(&self) -> bool {
        self.peak.is_some()
    }

    /// `100 * (peak - lower_bound) / lower_bound`: how far the peak is
    /// above the bound, relative to the bound, so at most how far it is
    /// above the optimum (the one definition of a gap to a bound that
    /// memsched prints; see `docs/experiments.md#gaps`). `None` without a
    /// peak or a bound, and for a bound of 0 under a positive peak (no
    /// finite ratio); 0 when the bound meets the peak.
    pub fn gap_pct(&self) -> Option<f64> {
        gap_to_bound_pct(self.peak?, self.lower_bound?)
    }

    /// A counter by name.
    pub fn counter(&self, name: &str) -> Option<u64> {
        self.counters
            .iter()
            .find(|(k, _)| k == name)
            .map(|&(_, v)| v)
    }
}

/// `100 * (peak - bound) / bound`: how far `peak` is above a proven lower
/// `bound`, relative to the bound; since the optimum is at least the
/// bound, the peak is at most this far above the optimum. 0 when the bound
/// meets (or, for a wrong bound, passes) the peak; `None` for a bound of 0
/// under a positive peak, where no finite ratio exists.
pub fn gap_to_bound_pct(peak: u64, bound: u64) -> Option<f64> {
    if peak <= bound {
        Some(0.0)
    } else if bound == 0 {
        None
    } else {
        Some(100.0 * (peak - bound) as f64 / bound as f64)
    }
}

fn inconsistency(
    status: &Status,
    peak: u64,
    claimed: Option<u64>,
    lb: Option<u64>,
) -> Option<Rejection> {
    if let Some(claimed) = claimed.filter(|&c| c != peak) {
        return Some(Rejection::WrongPeak { claimed, peak });
    }
    if let Some(bound) = lb.filter(|&lb| lb > peak) {
        return Some(Rejection::BoundAbovePeak { bound, peak });
    }
    if *status == Status::Optimal && lb != Some(peak) {
        return Some(Rejection::UnprovenOptimal { peak, bound: lb });
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The refuter's name is read back whole, whatever it holds.
    #[test]
    fn wrong_bound_reasons_read_back() {
        for by in [
            "exact",
            "orders:runs of May.jsonl",
            "orders:x's checked order, y",
        ] {
            let reason = wrong_bound_reason("optimal", 12, 10, by);
            assert_eq!(wrong_bound_refuter(&reason), Some(by), "{reason}");
            assert_eq!(wrong_bound_claim(&reason), Some("optimal"));
        }
        assert_eq!(wrong_bound_refuter("timed out"), None);
    }

    /// `LABELS` holds every variant's label, in order; a new variant
    /// breaks the match below until it is added.
    #[test]
    fn labels_list_every_status() {
        let all = [
            Status::Optimal,
            Status::Feasible,
            Status::TimedOut,
            Status::Failed(String::new()),
            Status::Invalid(String::new()),
        ];
        for (i, status) in all.iter().enumerate() {
            let index = match status {
                Status::Optimal => 0,
                Status::Feasible => 1,
                Status::TimedOut => 2,
                Status::Failed(_) => 3,
                Status::Invalid(_) => 4,
            };
            assert_eq!(index, i);
            assert_eq!(Status::LABELS[index], status.label());
        }
    }

    /// The gap is relative to the bound (it said how far the bound is
    /// below the peak, relative to the peak: 20% here instead of 25%).
    #[test]
    fn gap_is_relative_to_the_bound() {
        assert_eq!(gap_to_bound_pct(125, 100), Some(25.0));
        assert_eq!(gap_to_bound_pct(100, 100), Some(0.0));
        assert_eq!(gap_to_bound_pct(0, 0), Some(0.0));
        assert_eq!(gap_to_bound_pct(5, 0), None);
        let report = Report {
            solver: "x".into(),
            status: Status::Feasible,
            rejection: None,
            order: Some(Vec::new()),
            peak: Some(300),
            final_memory: Some(0),
            lower_bound: Some(200),
            counters: Vec::new(),
            note: None,
            time: Duration::ZERO,
        };
        assert_eq!(report.gap_pct(), Some(50.0));
        let no_bound = Report {
            lower_bound: None,
            ..report
        };
        assert_eq!(no_bound.gap_pct(), None);
    }

    /// A report without an order keeps a stop or failure as it is, and
    /// turns a claimed success into [`Rejection::NoOrder`].
    #[test]
    fn an_unsolved_report_cannot_claim_success() {
        let stopped = Report::unsolved("x".into(), Status::TimedOut, None, Duration::ZERO);
        assert_eq!(
            (stopped.status, stopped.rejection),
            (Status::TimedOut, None)
        );
        let claimed = Report::unsolved("x".into(), Status::Optimal, None, Duration::ZERO);
        assert_eq!(claimed.rejection, Some(Rejection::NoOrder));
        assert_eq!(claimed.status.label(), "invalid");
        assert!(!claimed.valid());
    }

    /// A solver's `failed` beside a valid order is kept as `feasible`
    /// with the failure in the note; its own `invalid` is a failure (the
    /// checker alone finds answers invalid, and says why in `rejection`).
    #[test]
    fn a_solvers_failure_and_invalid_are_kept_as_failures() {
        let g = crate::graph::GraphBuilder::new().build().unwrap();
        let report = |status: Status, order: Option<Vec<NodeIdx>>, note: Option<&str>| {
            let outcome = Outcome {
                order,
                status,
                lower_bound: None,
                claimed_peak: None,
                counters: Vec::new(),
                note: note.map(String::from),
            };
            Report::from_outcome(
                "x".into(),
                &g,
                outcome,
                Duration::ZERO,
                crate::schedule::check,
            )
        };
        let kept = report(
            Status::Failed("ran dry".into()),
            Some(Vec::new()),
            Some("won"),
        );
        assert_eq!(kept.status, Status::Feasible);
        assert_eq!(
            kept.note.as_deref(),
            Some("failed (ran dry), its order kept; won")
        );
        let said_invalid = report(Status::Invalid("oops".into()), None, None);
        assert_eq!(
            said_invalid.status,
            Status::Failed("the solver returned `invalid`: oops".into())
        );
        assert_eq!(said_invalid.rejection, None);
        let with_order = report(Status::Invalid("oops".into()), Some(Vec::new()), None);
        assert_eq!(with_order.status, Status::Feasible);
        assert!(with_order.note.unwrap().contains("oops"));
    }

    /// `Display` pads to a width, as a table of statuses needs.
    #[test]
    fn a_status_pads_to_its_width() {
        assert_eq!(format!("{:<9}|", Status::Optimal), "optimal  |");
        assert_eq!(format!("{:>11}", Status::Failed("x".into())), "  failed: x");
    }

    /// A bound above another report's checked peak, or above a known
    /// peak, makes its report invalid; bounds at or below stand.
    #[test]
    fn a_bound_above_a_checked_peak_is_refuted() {
        let report = |solver: &str, peak: u64, lb: Option<u64>| Report {
            solver: solver.into(),
            status: if lb == Some(peak) {
                Status::Optimal
            } else {
                Status::Feasible
            },
            rejection: None,
            order: Some(Vec::new()),
            peak: Some(peak),
            final_memory: Some(0),
            lower_bound: lb,
            counters: Vec::new(),
            note: None,
            time: Duration::ZERO,
        };
        let mut reports = vec![
            report("ilp", 888_130, Some(888_130)),
            report("exact", 888_129, Some(888_129)),
            report("kahn", 900_000, None),
        ];
        assert_eq!(refute_bounds(&mut reports, None), 1);
        assert!(matches!(
            &reports[0].rejection,
            Some(Rejection::RefutedBound { claimed: "optimal", bound: 888_130, peak: 888_129, by })
                if by == "exact"
        ));
        let reason = reports[0].status.reason().unwrap_or_default().to_string();
        assert!(
            reason.contains(
                "claimed `optimal` with lower bound 888130, above the peak 888129 of exact's"
            ),
            "{reason}"
        );
        assert_eq!(reports[0].peak, Some(888_130));
        assert_eq!(reports[1].status, Status::Optimal);
        let mut reports = vec![report("x", 50, Some(45))];
        assert_eq!(refute_bounds(&mut reports, Some((40, "program"))), 1);
        // Already invalid (its bound above its own peak): its reason stays.
        let mut own = report("x", 50, Some(60));
        own.status = Status::Invalid("its own reason".into());
        let mut reports = vec![own, report("kahn", 40, None)];
        assert_eq!(refute_bounds(&mut reports, None), 0);
        assert_eq!(reports[0].status, Status::Invalid("its own reason".into()));
        assert_eq!(
            refute_bounds(&mut [report("x", 50, Some(45))], Some((45, "p"))),
            0
        );
    }
    /// Each way an answer is refused is typed in `rejection`, and the
    /// status's reason is its text.
    #[test]
    fn rejections_are_typed_and_their_text_is_the_reason() {
        use crate::graph::GraphBuilder;
        let mut b = GraphBuilder::new();
        let (a, x) = (b.alloc(10, 0), b.op("X"));
        let f = b.free(0);
        b.edge(a, x);
        b.edge(x, f);
        let g = b.build().unwrap();
        let [a, x, f] = [a, x, f].map(|id| g.index_of(id).unwrap());
        let report = |outcome: Outcome| {
            Report::from_outcome(
                "s".into(),
                &g,
                outcome,
                Duration::ZERO,
                crate::schedule::check,
            )
        };
        let good = vec![a, x, f];
        let cases = [
            (Outcome::feasible(vec![x, a, f]), "EdgeViolated"),
            (Outcome::feasible(vec![a, x]), "WrongLength"),
            (
                Outcome {
                    claimed_peak: Some(5),
                    ..Outcome::feasible(good.clone())
                },
                "WrongPeak",
            ),
            (
                Outcome::feasible(good.clone()).with_lower_bound(Some(11)),
                "BoundAbovePeak",
            ),
            (
                Outcome {
                    lower_bound: None,
                    ..Outcome::optimal(good.clone(), 10)
                },
                "UnprovenOptimal",
            ),
            (
                Outcome {
                    order: None,
                    ..Outcome::feasible(good.clone())
                },
                "NoOrder",
            ),
        ];
        for (outcome, kind) in cases {
            let r = report(outcome);
            let why = r
                .rejection
                .as_ref()
                .unwrap_or_else(|| panic!("{kind}: accepted"));
            assert!(format!("{why:?}").contains(kind), "{kind}: {why:?}");
            assert_eq!(r.status, Status::Invalid(why.to_string()));
            assert_eq!(r.peak, None);
        }
        let ok = report(Outcome::optimal(good, 10));
        assert_eq!(
            (ok.status, ok.rejection, ok.peak),
            (Status::Optimal, None, Some(10))
        );
    }
}
