//! Two results directories' rows side by side, solve by solve: which
//! peaks fell, which rose, which solves stopped (or started) giving a
//! valid order, which proofs were won or lost, and how the time changed.
//! The question it answers is "what did my change to a solver do?", asked
//! of an experiment run before and after it.
//!
//! Solves are matched by their key (graph, solver, seed). A graph whose
//! content differs between the two (fingerprints, or node and edge counts)
//! is left out, as its peaks are not comparable; so is one that could not
//! be loaded on one side, whose rows say nothing of the solvers.

use std::collections::{BTreeSet, HashMap, HashSet};

use super::fingerprint::Fingerprints;
use super::rows::{never_ran, Key, Row, RowStatus};
use super::wildcard;

/// Which solves to compare.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// Solvers to compare, as the rows spell them; empty: every solver.
    pub solvers: Vec<String>,
    /// Graph name patterns (`*` any run of characters, `?` one); empty:
    /// every graph.
    pub graphs: Vec<String>,
}

/// What happened to one solve.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Change {
    /// Its checked peak fell.
    Lower,
    /// Same peak and the same proof status.
    Same,
    /// Its checked peak rose.
    Higher,
    /// It gave a valid order before and does not now (it failed, timed
    /// out without one, or its order or bound was refused).
    Unsolved,
    /// It gives a valid order now and did not before.
    Solved,
    /// Same peak, and now proven optimal.
    ProofGained,
    /// Same peak, but it no longer proves it optimal.
    ProofLost,
    /// No valid order before or now.
    NeitherValid,
}

impl Change {
    /// Every change, in the order of the summary's columns (each one's
    /// position is its discriminant).
    pub const ALL: [Change; 8] = [
        Change::Lower,
        Change::Same,
        Change::Higher,
        Change::Unsolved,
        Change::Solved,
        Change::ProofGained,
        Change::ProofLost,
        Change::NeitherValid,
    ];

    /// The change's name in CSV output (`proof_lost`).
    pub fn label(self) -> &'static str {
        match self {
            Change::Lower => "lower",
            Change::Same => "same",
            Change::Higher => "higher",
            Change::Unsolved => "unsolved",
            Change::Solved => "solved",
            Change::ProofGained => "proof_gained",
            Change::ProofLost => "proof_lost",
            Change::NeitherValid => "neither_valid",
        }
    }

    /// A change for the worse: a higher peak, a lost order, a lost proof.
    pub fn is_regression(self) -> bool {
        matches!(self, Change::Unsolved | Change::Higher | Change::ProofLost)
    }

    /// A change for the better.
    pub fn is_improvement(self) -> bool {
        matches!(self, Change::Lower | Change::Solved | Change::ProofGained)
    }

    /// Where the change sorts in a list of changes, the worst first: no
    /// order any more, a higher peak, a lost proof, then a gained proof, a
    /// lower peak, a new order.
    fn severity(self) -> u8 {
        match self {
            Change::Unsolved => 0,
            Change::Higher => 1,
            Change::ProofLost => 2,
            Change::ProofGained => 3,
            Change::Lower => 4,
            Change::Solved => 5,
            Change::Same | Change::NeitherValid => 6,
        }
    }

    /// What happened between `old` and `new`, two rows of one solve. A
    /// peak change outranks a proof change.
    pub fn of(old: &Row, new: &Row) -> Change {
        match (checked_peak(old), checked_peak(new)) {
            (None, None) => Change::NeitherValid,
            (Some(_), None) => Change::Unsolved,
            (None, Some(_)) => Change::Solved,
            (Some(a), Some(b)) if b > a => Change::Higher,
            (Some(a), Some(b)) if b < a => Change::Lower,
            _ => match (optimal(old), optimal(new)) {
                (true, false) => Change::ProofLost,
                (false, true) => Change::ProofGained,
                _ => Change::Same,
            },
        }
    }
}

/// A row's checked peak, if its order is valid and stands: a row the final
/// pass refuted (its bound above another row's checked peak) keeps its
/// peak and `valid`, but its status is `invalid`.
pub fn checked_peak(r: &Row) -> Option<u64> {
    (r.valid && r.status != RowStatus::Invalid)
        .then_some(r.peak_bytes)
        .flatten()
}

fn optimal(r: &Row) -> bool {
    r.status == RowStatus::Optimal
}

/// One solve found in both directories.
#[derive(Debug, Clone)]
pub struct Pair<'a> {
    /// Its row in the old directory.
    pub old: &'a Row,
    /// Its row in the new directory.
    pub new: &'a Row,
    /// What happened.
    pub change: Change,
}

impl Pair<'_> {
    /// How much the peak changed, in percent of the old peak (`None`
    /// unless both are valid and the old one is not zero).
    pub fn change_pct(&self) -> Option<f64> {
        let (a, b) = (checked_peak(self.old)?, checked_peak(self.new)?);
        (a > 0).then(|| 100.0 * (b as f64 - a as f64) / a as f64)
    }
}

/// One solver's pairs, counted by change.
#[derive(Debug, Clone, PartialEq)]
pub struct Tally {
    /// The solver, as the rows spell it.
    pub solver: String,
    /// Solves compared.
    pub pairs: usize,
    /// How many of them changed each way, in the order of [`Change::ALL`].
    pub counts: [usize; Change::ALL.len()],
    /// The total time of its solves, old and new, in milliseconds.
    pub old_ms: f64,
    /// See `old_ms`.
    pub new_ms: f64,
}

impl Tally {
    /// How many solves changed this way.
    pub fn count(&self, change: Change) -> usize {
        self.counts[change as usize]
    }
}

/// The comparison of two directories' rows.
#[derive(Debug, Clone)]
pub struct Diff<'a> {
    /// Solves in both, in the new directory's row order.
    pub pairs: Vec<Pair<'a>>,
    /// One tally per solver, in the order the solvers first appear.
    pub tallies: Vec<Tally>,
    /// Solves (after the filters) only in the old directory.
    pub only_old: Vec<&'a Row>,
    /// Solves only in the new one.
    pub only_new: Vec<&'a Row>,
    /// Graphs whose content differs between the two: left out.
    pub changed_graphs: Vec<String>,
    /// Graphs that could not be loaded on one side (or both), whose solves
    /// are left out: their rows say nothing of the solvers.
    pub unloaded: Vec<String>,
}

impl Diff<'_> {
    /// Pairs changed for the worse.
    pub fn regressions(&self) -> usize {
        self.pairs
            .iter()
            .filter(|p| p.change.is_regression())
            .count()
    }

    /// Pairs changed for the better.
    pub fn improvements(&self) -> usize {
        self.pairs
            .iter()
            .filter(|p| p.change.is_improvement())
            .count()
    }

    /// The pairs that changed, worst first (see [`Change::severity`]):
    /// the largest rise first among higher peaks (a rise from 0 bytes
    /// before any), the largest fall first among lower ones; ties keep
    /// row order.
    pub fn changed(&self) -> Vec<&Pair<'_>> {
        let mut changed: Vec<&Pair> = (self.pairs.iter())
            .filter(|p| p.change.is_regression() || p.change.is_improvement())
            .collect();
        let rank = |p: &Pair| {
            let size = match (p.change, p.change_pct()) {
                (Change::Higher, Some(pct)) => -pct,
                (Change::Higher, None) => f64::NEG_INFINITY,
                (_, pct) => pct.unwrap_or(0.0),
            };
            (p.change.severity(), size)
        };
        changed.sort_by(|a, b| {
            let (ca, sa) = rank(a);
            let (cb, sb) = rank(b);
            ca.cmp(&cb).then(sa.total_cmp(&sb))
        });
        changed
    }
}

/// The comparison of `old`'s and `new`'s rows (each a directory's
/// `runs.csv`, finalized: called OLD and NEW in messages) that `opts`
/// selects, with each directory's graph fingerprints (empty when it has
/// none). An error says which side has no rows, names a solver or graph
/// pattern with no row on one side or both, or says the two have no solve
/// in common.
pub fn compare<'a>(
    old: &'a [Row],
    new: &'a [Row],
    old_fingerprints: &Fingerprints,
    new_fingerprints: &Fingerprints,
    opts: &Options,
) -> Result<Diff<'a>, String> {
    for (rows, side) in [(old, "OLD"), (new, "NEW")] {
        if rows.is_empty() {
            return Err(format!("{side} has no rows: nothing to compare"));
        }
    }
    for s in &opts.solvers {
        let has = |rows: &[Row]| rows.iter().any(|r| &r.solver == s);
        let missing = match (has(old), has(new)) {
            (true, true) => continue,
            (false, false) => "either",
            (true, false) => "NEW",
            (false, true) => "OLD",
        };
        // The solvers that can be compared: those with rows on both sides.
        let of = |rows: &'a [Row]| -> BTreeSet<&'a str> {
            rows.iter().map(|r| r.solver.as_str()).collect()
        };
        let in_both: Vec<&str> = of(old).intersection(&of(new)).copied().collect();
        let names = crate::text::first_few(
            in_both.iter(),
            12,
            |s| format!("`{s}`"),
            |k| format!("{k} more"),
        );
        let choices = match names.is_empty() {
            true => "OLD and NEW have no solver in common".to_string(),
            false => format!("the solvers in both: {}", names.join(", ")),
        };
        return Err(format!(
            "no row of solver `{s}` in {missing}: nothing to compare it with; {choices}"
        ));
    }
    for p in &opts.graphs {
        if !old
            .iter()
            .chain(new)
            .any(|r| wildcard::matches(p, &r.graph))
        {
            return Err(format!(
                "no graph of OLD or NEW matches `{p}` (`*` matches any run of characters)"
            ));
        }
    }
    let (old, new) = (selected(old, opts), selected(new, opts));
    let changed_graphs = changed_graphs(&old, &new, old_fingerprints, new_fingerprints);
    let old_by_key: HashMap<Key, &Row> = old.iter().map(|&r| (r.key(), r)).collect();
    let (mut pairs, mut only_new) = (Vec::new(), Vec::new());
    let mut unloaded: BTreeSet<String> = BTreeSet::new();
    for &r in &new {
        let Some(&o) = old_by_key.get(&r.key()) else {
            only_new.push(r);
            continue;
        };
        if changed_graphs.contains(&r.graph) {
            continue;
        }
        // A graph that could not be loaded says nothing of the solver.
        if never_ran(o) || never_ran(r) {
            unloaded.insert(r.graph.clone());
            continue;
        }
        pairs.push(Pair {
            old: o,
            new: r,
            change: Change::of(o, r),
        });
    }
    let new_keys: HashSet<Key> = new.iter().map(|r| r.key()).collect();
    let only_old: Vec<&Row> = (old.iter().copied())
        .filter(|r| !new_keys.contains(&r.key()))
        .collect();
    if pairs.is_empty() {
        let mut why = Vec::new();
        if !changed_graphs.is_empty() {
            why.push(format!(
                "{} graph(s) in both differ in content and are left out",
                changed_graphs.len()
            ));
        }
        if !unloaded.is_empty() {
            why.push(format!(
                "{} graph(s) in both could not be loaded on one side",
                unloaded.len()
            ));
        }
        return Err(format!(
            "OLD and NEW have no solve (graph, solver, seed) in common{}{}",
            match opts.solvers.is_empty() && opts.graphs.is_empty() {
                true => "",
                false => " among the solvers and graphs asked for",
            },
            match why.is_empty() {
                true => String::new(),
                false => format!(" ({})", why.join("; ")),
            }
        ));
    }
    Ok(Diff {
        tallies: tallies(&pairs),
        pairs,
        only_old,
        only_new,
        changed_graphs: changed_graphs.into_iter().collect(),
        unloaded: unloaded.into_iter().collect(),
    })
}

/// The rows `opts` selects, each solve's first (as `runs.csv` is read).
fn selected<'a>(rows: &'a [Row], opts: &Options) -> Vec<&'a Row> {
    let mut seen: HashSet<Key> = HashSet::new();
    (rows.iter())
        .filter(|r| opts.solvers.is_empty() || opts.solvers.contains(&r.solver))
        .filter(|r| {
            opts.graphs.is_empty() || opts.graphs.iter().any(|p| wildcard::matches(p, &r.graph))
        })
        .filter(|r| seen.insert(r.key()))
        .collect()
}

/// The graphs in both row sets whose content differs: their node or edge
/// counts, or their fingerprints where both directories recorded one.
fn changed_graphs(
    old: &[&Row],
    new: &[&Row],
    old_fingerprints: &Fingerprints,
    new_fingerprints: &Fingerprints,
) -> BTreeSet<String> {
    // Rows of a graph that could not be loaded carry no counts.
    let shape = |rows: &[&Row]| -> HashMap<String, (usize, usize)> {
        (rows.iter())
            .filter(|r| r.nodes > 0)
            .map(|r| (r.graph.clone(), (r.nodes, r.edges)))
            .collect()
    };
    let (old_shape, new_shape) = (shape(old), shape(new));
    new_shape
        .iter()
        .filter(|(graph, counts)| {
            let Some(old_counts) = old_shape.get(*graph) else {
                return false;
            };
            let fingerprints = (old_fingerprints.get(*graph), new_fingerprints.get(*graph));
            old_counts != *counts || matches!(fingerprints, (Some(a), Some(b)) if a != b)
        })
        .map(|(graph, _)| graph.clone())
        .collect()
}

/// The pairs counted per solver, solvers in the order they first appear.
fn tallies(pairs: &[Pair]) -> Vec<Tally> {
    let mut tallies: Vec<Tally> = Vec::new();
    let mut at: HashMap<&str, usize> = HashMap::new();
    for p in pairs {
        let i = *at.entry(p.new.solver.as_str()).or_insert_with(|| {
            tallies.push(Tally {
                solver: p.new.solver.clone(),
                pairs: 0,
                counts: [0; Change::ALL.len()],
                old_ms: 0.0,
                new_ms: 0.0,
            });
            tallies.len() - 1
        });
        let t = &mut tallies[i];
        t.pairs += 1;
        t.counts[p.change as usize] += 1;
        t.old_ms += p.old.time_ms;
        t.new_ms += p.new.time_ms;
    }
    tallies
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::experiment::fingerprint::Fingerprint;
    use crate::experiment::rows::blank;

    fn row(graph: &str, solver: &str, status: RowStatus, peak: Option<u64>) -> Row {
        Row {
            graph: graph.into(),
            solver: solver.into(),
            status,
            valid: peak.is_some() && status != RowStatus::Invalid,
            peak_bytes: peak,
            nodes: 10,
            edges: 12,
            time_ms: 1.0,
            ..blank()
        }
    }

    fn feasible(graph: &str, solver: &str, peak: u64) -> Row {
        row(graph, solver, RowStatus::Feasible, Some(peak))
    }

    #[test]
    fn each_change_is_named_from_the_two_rows() {
        let f = |p| feasible("g", "s", p);
        let opt = |p| row("g", "s", RowStatus::Optimal, Some(p));
        let failed = row("g", "s", RowStatus::Failed, None);
        let invalid = row("g", "s", RowStatus::Invalid, Some(5));
        assert_eq!(Change::of(&f(10), &f(12)), Change::Higher);
        assert_eq!(Change::of(&f(10), &f(8)), Change::Lower);
        assert_eq!(Change::of(&f(10), &f(10)), Change::Same);
        assert_eq!(Change::of(&opt(10), &f(10)), Change::ProofLost);
        assert_eq!(Change::of(&f(10), &opt(10)), Change::ProofGained);
        assert_eq!(Change::of(&f(10), &failed), Change::Unsolved);
        assert_eq!(Change::of(&f(10), &invalid), Change::Unsolved);
        assert_eq!(Change::of(&invalid, &f(10)), Change::Solved);
        assert_eq!(Change::of(&failed, &invalid), Change::NeitherValid);
        // A peak change outranks a proof change.
        assert_eq!(Change::of(&opt(10), &f(9)), Change::Lower);
    }

    /// A tally's counts are indexed by discriminant: `ALL` must follow
    /// the declaration order.
    #[test]
    fn every_change_sits_at_its_discriminant() {
        for (i, c) in Change::ALL.into_iter().enumerate() {
            assert_eq!(c as usize, i, "{c:?}");
        }
    }

    /// A row the final pass refuted keeps `valid` and its peak, but its
    /// status is `invalid`: it has no checked peak.
    #[test]
    fn a_refuted_row_has_no_checked_peak() {
        let mut refuted = feasible("g", "s", 10);
        refuted.status = RowStatus::Invalid;
        assert!(refuted.valid);
        assert_eq!(checked_peak(&refuted), None);
        assert_eq!(
            Change::of(&feasible("g", "s", 10), &refuted),
            Change::Unsolved
        );
    }

    #[test]
    fn pairs_are_matched_by_key_and_counted_per_solver() {
        let old = vec![
            feasible("a", "kahn", 100),
            feasible("a", "rule:delta", 90),
            feasible("b", "kahn", 50),
            feasible("gone", "kahn", 7),
        ];
        let new = vec![
            feasible("a", "kahn", 100),
            feasible("a", "rule:delta", 99),
            feasible("b", "kahn", 40),
            feasible("c", "kahn", 1),
        ];
        let none = Fingerprints::new();
        let d = compare(&old, &new, &none, &none, &Options::default()).unwrap();
        assert_eq!(d.pairs.len(), 3);
        assert_eq!((d.regressions(), d.improvements()), (1, 1));
        assert_eq!(d.only_old.len(), 1);
        assert_eq!(d.only_old[0].graph, "gone");
        assert_eq!(d.only_new[0].graph, "c");
        let kahn = &d.tallies[0];
        assert_eq!(kahn.solver, "kahn");
        assert_eq!(
            (
                kahn.pairs,
                kahn.count(Change::Same),
                kahn.count(Change::Lower)
            ),
            (2, 1, 1)
        );
        assert_eq!(d.tallies[1].count(Change::Higher), 1);
        let changed: Vec<Change> = d.changed().iter().map(|p| p.change).collect();
        assert_eq!(changed, [Change::Higher, Change::Lower]);
        assert_eq!(d.changed()[1].change_pct(), Some(-20.0));
    }

    #[test]
    fn filters_select_and_unknown_names_are_errors() {
        let old = vec![feasible("net-1", "kahn", 10), feasible("tree", "kahn", 10)];
        let new = vec![feasible("net-1", "kahn", 9), feasible("tree", "kahn", 11)];
        let none = Fingerprints::new();
        let opts = Options {
            graphs: vec!["net-*".into()],
            ..Options::default()
        };
        let d = compare(&old, &new, &none, &none, &opts).unwrap();
        assert_eq!((d.pairs.len(), d.improvements()), (1, 1));
        let opts = Options {
            solvers: vec!["kahm".into()],
            ..Options::default()
        };
        let e = compare(&old, &new, &none, &none, &opts).unwrap_err();
        assert!(
            e.contains("`kahm` in either") && e.contains("`kahn`"),
            "{e}"
        );
        let mut more = new.clone();
        more.push(feasible("tree", "ilp", 1));
        let opts = Options {
            solvers: vec!["ilp".into()],
            ..Options::default()
        };
        let e = compare(&old, &more, &none, &none, &opts).unwrap_err();
        assert!(e.contains("`ilp` in OLD"), "{e}");
        // Only the solvers that can be compared are offered.
        assert!(e.ends_with("; the solvers in both: `kahn`"), "{e}");
        let only_ilp = vec![feasible("tree", "ilp", 1)];
        let e = compare(&old, &only_ilp, &none, &none, &opts).unwrap_err();
        assert!(e.ends_with("; OLD and NEW have no solver in common"), "{e}");
        let e = compare(&[], &new, &none, &none, &Options::default()).unwrap_err();
        assert!(e.contains("OLD has no rows"), "{e}");
        let opts = Options {
            graphs: vec!["nope*".into()],
            ..Options::default()
        };
        let e = compare(&old, &new, &none, &none, &opts).unwrap_err();
        assert!(e.contains("`nope*`"), "{e}");
        let other = vec![feasible("x", "kahn", 1)];
        let e = compare(&old, &other, &none, &none, &Options::default()).unwrap_err();
        assert!(e.contains("no solve"), "{e}");
    }

    #[test]
    fn a_graph_whose_content_changed_is_left_out() {
        let old = vec![feasible("a", "kahn", 10), feasible("b", "kahn", 10)];
        let mut new = vec![feasible("a", "kahn", 12), feasible("b", "kahn", 12)];
        let none = Fingerprints::new();
        // Other counts: another graph under the same name.
        new[1].nodes = 11;
        let d = compare(&old, &new, &none, &none, &Options::default()).unwrap();
        assert_eq!(d.changed_graphs, ["b"]);
        assert_eq!(d.pairs.len(), 1);
        // Same counts, other fingerprints.
        let fp = |hex: &str| -> Fingerprints {
            let fp: Fingerprint = hex.parse().unwrap();
            [("a".to_string(), fp)].into_iter().collect()
        };
        let (old_fp, new_fp) = (fp("0000000000000001"), fp("0000000000000002"));
        let e = compare(&old[..1], &new[..1], &old_fp, &new_fp, &Options::default()).unwrap_err();
        assert!(e.contains("differ in content"), "{e}");
        let d = compare(&old[..1], &new[..1], &old_fp, &old_fp, &Options::default()).unwrap();
        assert_eq!(d.regressions(), 1);
    }
}
