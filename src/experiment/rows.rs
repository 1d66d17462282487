//! The CSV schema ([`Row`], one per graph x solver x seed) and the final pass
//! that fills the per-graph columns.
//!
//! Rows are appended to `runs.csv` as solves finish, with the per-graph
//! columns (`baseline*`, `reduction_pct`, `best_known_bytes`, `gap_pct`)
//! empty; [`finalize`] recomputes them over the whole file and sorts the rows
//! by item id, so the same config gives the same file except `time_ms`.
//! [`read_rows`] tolerates a file cut mid-line by a killed run.

use std::collections::btree_map::Entry;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fs;
use std::io::{self, Write};
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::solvers::{wrong_bound_claim, wrong_bound_reason, Status};

/// What tells rows (and items, profiles, saved orders) apart: graph,
/// solver, seed.
pub type Key = (String, String, u64);

/// One solve: the schema of `runs.csv`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Row {
    /// Position in the experiment's plan (sort key).
    pub item: usize,
    /// The graph's name: a file's stem, or `SPEC#SEED` for a generated graph.
    pub graph: String,
    /// Generator family, or the directory name of a graph file.
    pub family: String,
    /// The graph's node count (0 when it could not be loaded).
    pub nodes: usize,
    /// The graph's edge count, a repeated edge counted each time (0 when
    /// it could not be loaded).
    pub edges: usize,
    /// The solver's registry name, as the solver spells it (`rule:delta,id`).
    pub solver: String,
    /// The seed passed to the solver: 0 for a deterministic solver.
    pub seed: u64,
    /// `optimal`, `feasible`, `timed_out`, `failed`, `invalid`.
    pub status: RowStatus,
    /// The order passed the independent checker. Read in any case (`TRUE`,
    /// as a spreadsheet saves it).
    #[serde(deserialize_with = "bool_any_case")]
    pub valid: bool,
    /// The checker's peak (empty unless valid).
    pub peak_bytes: Option<u64>,
    /// The baseline used for this graph (first valid of `baselines`).
    pub baseline: String,
    /// That baseline's checked peak on this graph, in bytes (its lowest
    /// seed's row); empty when no baseline gave an order.
    pub baseline_peak_bytes: Option<u64>,
    /// `100 * (baseline - peak) / baseline`.
    pub reduction_pct: Option<f64>,
    /// The solver's proven lower bound, if any.
    pub lower_bound_bytes: Option<u64>,
    /// Lowest valid peak over all solvers on this graph (a proven optimum
    /// when some solver proved one).
    pub best_known_bytes: Option<u64>,
    /// `100 * (peak - best_known) / best_known`.
    pub gap_pct: Option<f64>,
    /// Wall-clock time of the solve (the only column that varies between runs).
    pub time_ms: f64,
    /// States a search stored (the `states` counter), if it reports one.
    pub states: Option<u64>,
    /// Why a solve failed or was invalid (one line).
    pub reason: String,
    /// The solver's note (one line): which member of a best-of won, where
    /// `anneal` started, how `exact` or `dp` proved or why it stopped.
    /// Absent from files of older versions (read as empty).
    #[serde(default)]
    pub note: String,
}

/// `true` or `false` in any case.
fn bool_any_case<'de, D: serde::Deserializer<'de>>(d: D) -> Result<bool, D::Error> {
    let text = String::deserialize(d)?;
    match text.to_ascii_lowercase().as_str() {
        "true" => Ok(true),
        "false" => Ok(false),
        _ => Err(serde::de::Error::custom(format!(
            "`{text}` is not true or false"
        ))),
    }
}

impl Row {
    /// The resume key.
    pub fn key(&self) -> Key {
        (self.graph.clone(), self.solver.clone(), self.seed)
    }
}

/// The header line of `runs.csv`.
pub fn header() -> String {
    let mut w = csv::Writer::from_writer(Vec::new());
    // Serializing a row writes the header first.
    w.serialize(blank()).expect("in-memory write");
    let bytes = w.into_inner().expect("in-memory write");
    let text = String::from_utf8(bytes).expect("utf-8");
    text.lines().next().unwrap_or_default().to_string() + "\n"
}

/// A duration in milliseconds, to the microsecond (runs.csv's `time_ms`).
pub(crate) fn millis(d: std::time::Duration) -> f64 {
    (d.as_secs_f64() * 1e6).round() / 1e3
}

impl Row {
    /// Fills the row's outcome from a checked solve's `report`: status,
    /// validity, peak, bound, time, states, reason and note.
    pub(crate) fn record(&mut self, report: &crate::solvers::Report) {
        self.status = RowStatus::of(&report.status);
        self.valid = report.valid();
        self.peak_bytes = report.peak;
        self.lower_bound_bytes = report.lower_bound;
        self.time_ms = millis(report.time);
        self.states = report.counter("states");
        self.reason = match &report.status {
            Status::Failed(r) | Status::Invalid(r) => super::one_line(r),
            _ => String::new(),
        };
        self.note = report
            .note
            .as_deref()
            .map(super::one_line)
            .unwrap_or_default();
    }
}

/// A row's status, as runs.csv spells it: the label of the solve's
/// [`Status`], without the reason (which has its own column).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RowStatus {
    /// Proven optimal.
    Optimal,
    /// A valid order without a proof.
    Feasible,
    /// Stopped at its time limit.
    TimedOut,
    /// No order: the solver failed, or its graph could not be loaded.
    Failed,
    /// Refused by the checker, or a bound above a checked peak.
    Invalid,
}

/// How a status no solve writes is refused when runs.csv is read.
const UNKNOWN_STATUS: &str = "unknown status";

impl RowStatus {
    /// The status of a solve's report.
    pub fn of(status: &Status) -> RowStatus {
        match status {
            Status::Optimal => RowStatus::Optimal,
            Status::Feasible => RowStatus::Feasible,
            Status::TimedOut => RowStatus::TimedOut,
            Status::Failed(_) => RowStatus::Failed,
            Status::Invalid(_) => RowStatus::Invalid,
        }
    }

    /// Every status, in the order of [`Status::LABELS`].
    const ALL: [RowStatus; 5] = [
        RowStatus::Optimal,
        RowStatus::Feasible,
        RowStatus::TimedOut,
        RowStatus::Failed,
        RowStatus::Invalid,
    ];

    /// The status a label names (`optimal`, `timed_out`, ...).
    pub fn from_label(label: &str) -> Option<RowStatus> {
        let at = Status::LABELS.iter().position(|&l| l == label)?;
        Some(RowStatus::ALL[at])
    }

    /// The label, as in runs.csv: the solve's [`Status::label`].
    pub fn label(self) -> &'static str {
        Status::LABELS[self as usize]
    }
}

impl std::fmt::Display for RowStatus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.label())
    }
}

/// Read from its label; a status no solve writes (`feasibl`, edited by
/// hand) is an error, so the line is malformed instead of counting as done.
impl<'de> Deserialize<'de> for RowStatus {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let label = String::deserialize(d)?;
        RowStatus::from_label(&label)
            .ok_or_else(|| serde::de::Error::custom(format!("{UNKNOWN_STATUS} `{label}`")))
    }
}

/// A row with every field empty (a template).
pub(crate) fn blank() -> Row {
    Row {
        item: 0,
        graph: String::new(),
        family: String::new(),
        nodes: 0,
        edges: 0,
        solver: String::new(),
        seed: 0,
        status: RowStatus::Failed,
        valid: false,
        peak_bytes: None,
        baseline: String::new(),
        baseline_peak_bytes: None,
        reduction_pct: None,
        lower_bound_bytes: None,
        best_known_bytes: None,
        gap_pct: None,
        time_ms: 0.0,
        states: None,
        reason: String::new(),
        note: String::new(),
    }
}

/// One row as a CSV line (no header).
pub fn to_line(row: &Row) -> Vec<u8> {
    let mut w = csv::WriterBuilder::new()
        .has_headers(false)
        .from_writer(Vec::new());
    w.serialize(row).expect("in-memory write");
    w.into_inner().expect("in-memory write")
}

/// Reads `runs.csv`: a trailing partial line (a killed write) and rows that
/// do not parse are dropped, and a key seen twice keeps its first row.
pub fn read_rows(path: &Path) -> io::Result<Vec<Row>> {
    read_rows_checked(path).map(|read| read.rows)
}

/// What [`read_rows_checked`] found in a `runs.csv`.
#[derive(Debug, Default)]
pub struct ReadRows {
    /// The rows, each key once: its first row, unless that one could not
    /// load its graph ([`never_ran`]) and a later one ran.
    pub rows: Vec<Row>,
    /// Complete lines that were not rows, each written back as a CSV line.
    pub rejected: Vec<Vec<u8>>,
    /// The first rejected line: its line number in the file and why.
    pub first_problem: Option<(u64, String)>,
    /// Rows dropped as a repeat of a solve already read whose status, peak
    /// or bound differs from the kept row's (a file edited or joined by
    /// hand: a run writes a solve's row once).
    pub conflicting: usize,
    /// Whether the file ended in a line cut short (a run killed while
    /// writing it), which was dropped.
    pub cut: bool,
}

impl ReadRows {
    /// Refuses a `runs.csv` (at `path`) at least half of whose lines are
    /// not rows (its header lost, or the file saved by a spreadsheet):
    /// `then` says what going on would do with them and what to do instead.
    pub(crate) fn refuse_if_mostly_rejected(
        &self,
        path: &Path,
        then: &str,
    ) -> Result<(), super::ExperimentError> {
        let bad = self.rejected.len();
        if bad == 0 || bad < self.rows.len() {
            return Ok(());
        }
        let (line, why) = self.first_problem.clone().unwrap_or_default();
        Err(super::ExperimentError::Directory(format!(
            "{}: {bad} of its {} lines are not rows (line {line}: {why}); {then}",
            path.display(),
            bad + self.rows.len()
        )))
    }
}

/// Reads `runs.csv` as [`read_rows`] does, keeping the lines it drops.
pub fn read_rows_checked(path: &Path) -> io::Result<ReadRows> {
    let bytes = match fs::read(path) {
        Ok(b) => b,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(ReadRows::default()),
        Err(e) => return Err(e),
    };
    // Bytes, not text: a write cut inside a character is dropped with its line.
    let complete = match bytes.iter().rposition(|&b| b == b'\n') {
        Some(i) => &bytes[..=i],
        None => &[],
    };
    // A cut header alone (an empty run killed at once) is no lost row.
    let cut = complete.len() < bytes.len() && !complete.is_empty();
    let mut reader = csv::ReaderBuilder::new()
        .flexible(true)
        .from_reader(complete);
    let headers = reader.byte_headers()?.clone();
    let has_header = headers.iter().any(|h| h == b"graph");
    // Each key's row in `read.rows`.
    let mut seen = BTreeMap::new();
    let mut read = ReadRows {
        cut,
        ..ReadRows::default()
    };
    for record in reader.byte_records() {
        let record = match record {
            Ok(record) => record,
            Err(e) => {
                let line = e.position().map_or(0, |p| p.line());
                read.first_problem.get_or_insert((line, e.to_string()));
                read.rejected.push(Vec::new());
                continue;
            }
        };
        let problem = match record.deserialize::<Row>(Some(&headers)) {
            // Nor can a time that is not a number of milliseconds.
            Ok(row) if !(row.time_ms.is_finite() && row.time_ms >= 0.0) => {
                format!("time_ms `{}` is not a time", row.time_ms)
            }
            Ok(row) => {
                match seen.entry(row.key()) {
                    Entry::Vacant(slot) => {
                        slot.insert(read.rows.len());
                        read.rows.push(row);
                    }
                    Entry::Occupied(first) => {
                        let kept = &mut read.rows[*first.get()];
                        let outcome = |r: &Row| (r.status, r.peak_bytes, r.lower_bound_bytes);
                        read.conflicting += usize::from(outcome(kept) != outcome(&row));
                        // As `merge` does across inputs: a row that ran
                        // beats one whose graph could not be loaded.
                        if never_ran(kept) && !never_ran(&row) {
                            *kept = row;
                        }
                    }
                }
                continue;
            }
            // A status no solve writes (`feasibl`, edited by hand) would
            // count as done and fall out of every summary: said plainly.
            Err(e) => {
                let unknown_status = match e.kind() {
                    csv::ErrorKind::Deserialize { err, .. } => {
                        let message = err.to_string();
                        message
                            .find(UNKNOWN_STATUS)
                            .map(|at| message[at..].to_string())
                    }
                    _ => None,
                };
                unknown_status.unwrap_or_else(|| e.to_string())
            }
        };
        let line = record.position().map_or(0, |p| p.line());
        read.first_problem.get_or_insert((line, problem));
        read.rejected.push(csv_line(&record));
    }
    // A first line that is not the header (lost, or the file one line of
    // something else) is a line lost too, even alone.
    if !has_header && !headers.is_empty() {
        // The reader took the first line for the header: it is lost too.
        read.rejected.insert(0, csv_line(&headers));
        read.first_problem = Some((1, "the first line is not the header of runs.csv".into()));
    }
    Ok(read)
}

/// `record` as one CSV line.
fn csv_line(record: &csv::ByteRecord) -> Vec<u8> {
    let mut w = csv::WriterBuilder::new()
        .flexible(true)
        .from_writer(Vec::new());
    w.write_byte_record(record).expect("in-memory write");
    w.into_inner().expect("in-memory write")
}

/// Appends `lines` (CSV lines; empty ones and those the file already
/// holds skipped, so a merge done again adds nothing) to `path`, after the
/// header when the file is new.
pub(crate) fn append_lines(path: &Path, lines: &[Vec<u8>]) -> io::Result<()> {
    let held = match fs::read(path) {
        Ok(bytes) => bytes,
        Err(e) if e.kind() == io::ErrorKind::NotFound => Vec::new(),
        Err(e) => return Err(e),
    };
    let mut seen: BTreeSet<&[u8]> = held.split_inclusive(|&b| b == b'\n').collect();
    let mut f = fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)?;
    if held.is_empty() {
        f.write_all(header().as_bytes())?;
    }
    for line in lines.iter().filter(|l| !l.is_empty()) {
        if seen.insert(line) {
            f.write_all(line)?;
        }
    }
    f.sync_data()
}

/// Writes `rows` (header first) to `path` through a temporary file and a rename.
///
/// A file that already holds exactly that text is left untouched, so its
/// modification time stays that of the last change to its rows (a resume
/// compares it with `orders:PATH` files' times).
pub fn write_rows(path: &Path, rows: &[Row]) -> io::Result<()> {
    let text = rows_text(rows);
    if std::fs::read(path).is_ok_and(|old| old == text) {
        return Ok(());
    }
    crate::output::write_file(path, |f| f.write_all(&text))
}

/// The text [`write_rows`] writes: the header, then a line per row.
fn rows_text(rows: &[Row]) -> Vec<u8> {
    let mut text = header().into_bytes();
    for r in rows {
        text.extend_from_slice(&to_line(r));
    }
    text
}

/// Rounds a percentage so the CSV text is stable: to 4 decimals, or to 3
/// significant digits below 0.01, so that a small difference (1 byte of
/// 5 MB is 1.9e-5%) is not written as 0, which means none.
pub(super) fn pct(x: f64) -> f64 {
    if x != 0.0 && x.abs() < 0.01 {
        let scale = 10f64.powf(2.0 - x.abs().log10().floor());
        (x * scale).round() / scale
    } else {
        // `+ 0.0` turns -0.0 into 0.0.
        (x * 1e4).round() / 1e4 + 0.0
    }
}

/// A row that shows a solver bug: an order the checker rejected, a bound
/// above a checked peak, or a panic.
pub fn is_broken(row: &Row) -> bool {
    row.status == RowStatus::Invalid || row.reason.starts_with(PANICKED)
}

/// Marks invalid each of one graph's rows (`idx`) whose lower bound is
/// above another row's checked peak: the bound is wrong (a solver bug), so
/// its claim, a proof of optimality say, must not stand; as `schedule`
/// does ([`crate::solvers::refute_bounds`]). The row keeps its data (its
/// order did pass the checker, so `valid` stays true) and its claimed
/// status in its reason; every pass first restores the claims an earlier
/// pass refuted and judges again, so the verdict follows the rows present
/// (a refuting row deleted and solved again, a merge) and not the history.
fn refute_bounds(rows: &mut [Row], idx: &[usize]) {
    for &i in idx {
        let r = &mut rows[i];
        // A claim of `invalid` is what an earlier version wrote over a row
        // its own check had made invalid: that row stays as it is.
        if let Some(claimed) = wrong_bound_claim(&r.reason)
            .and_then(RowStatus::from_label)
            .filter(|&c| c != RowStatus::Invalid)
        {
            r.status = claimed;
            r.reason.clear();
        }
    }
    let best = idx
        .iter()
        .filter_map(|&i| Some((rows[i].peak_bytes?, i)))
        .min_by_key(|&(p, _)| p);
    let Some((peak, by)) = best else {
        return;
    };
    let by = rows[by].solver.clone();
    for &i in idx {
        let r = &mut rows[i];
        // An invalid row keeps the reason its own check gave.
        if r.status == RowStatus::Invalid {
            continue;
        }
        let Some(lb) = r.lower_bound_bytes.filter(|&lb| lb > peak) else {
            continue;
        };
        r.reason = wrong_bound_reason(r.status.label(), lb, peak, &by);
        r.status = RowStatus::Invalid;
    }
}

/// Fills the per-graph columns and sorts by (item, graph, solver, seed).
///
/// The baseline of a graph is the first name in `baselines` with a valid
/// row (lowest seed); `best_known_bytes` is the lowest valid peak.
///
/// # Complexity
/// O(R log R) for R rows (grouping by graph and the final sort).
pub fn finalize(mut rows: Vec<Row>, baselines: &[String]) -> Vec<Row> {
    let mut by_graph: BTreeMap<String, Vec<usize>> = BTreeMap::new();
    for (i, r) in rows.iter().enumerate() {
        by_graph.entry(r.graph.clone()).or_default().push(i);
    }
    for idx in by_graph.values() {
        refute_bounds(&mut rows, idx);
        let base = baselines.iter().find_map(|b| {
            idx.iter()
                .map(|&i| &rows[i])
                .filter(|r| &r.solver == b && r.peak_bytes.is_some())
                .min_by_key(|r| r.seed)
                .map(|r| (b.clone(), r.peak_bytes))
        });
        let best = idx.iter().filter_map(|&i| rows[i].peak_bytes).min();
        for &i in idx {
            let r = &mut rows[i];
            match &base {
                Some((name, peak)) => {
                    r.baseline = name.clone();
                    r.baseline_peak_bytes = *peak;
                }
                None => {
                    r.baseline = String::new();
                    r.baseline_peak_bytes = None;
                }
            }
            r.reduction_pct = match (r.peak_bytes, r.baseline_peak_bytes) {
                (Some(p), Some(b)) if b > 0 => Some(pct(100.0 * (b as f64 - p as f64) / b as f64)),
                (Some(_), Some(_)) => Some(0.0),
                _ => None,
            };
            r.best_known_bytes = best;
            r.gap_pct = match (r.peak_bytes, best) {
                (Some(p), Some(b)) if b > 0 => Some(pct(100.0 * (p - b) as f64 / b as f64)),
                (Some(_), Some(_)) => Some(0.0),
                _ => None,
            };
        }
    }
    rows.sort_by(|a, b| {
        (a.item, &a.graph, &a.solver, a.seed).cmp(&(b.item, &b.graph, &b.solver, b.seed))
    });
    rows
}

/// The reason of a row whose graph could not be loaded mid-run.
pub(super) const CANNOT_LOAD: &str = "cannot load graph";

/// How the reason of a row whose solver panicked begins.
pub(crate) const PANICKED: &str = "panicked";

/// A row whose solver never ran: its graph could not be loaded. Such rows
/// take no part in mean times, and a resumed run solves their items again.
pub(super) fn never_ran(row: &Row) -> bool {
    row.status == RowStatus::Failed && row.reason.starts_with(CANNOT_LOAD)
}

/// The rows of each solver, in file order: one pass, for the final pass's
/// per-solver figures (a scan of every row per solver made them quadratic
/// in the number of solvers: 14.5 s for 1,600 rule solvers).
pub(crate) fn by_solver(rows: &[Row]) -> HashMap<&str, Vec<&Row>> {
    let mut by: HashMap<&str, Vec<&Row>> = HashMap::new();
    for r in rows {
        by.entry(r.solver.as_str()).or_default().push(r);
    }
    by
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Writing the rows a file already holds leaves it untouched (its
    /// modification time included); other rows replace it.
    #[test]
    fn rewriting_the_same_rows_leaves_the_file_alone() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("runs.csv");
        let rows = vec![row(0, "g", "kahn", Some(7))];
        write_rows(&path, &rows).unwrap();
        let past = std::time::SystemTime::now() - std::time::Duration::from_secs(3600);
        let set_past = || {
            std::fs::File::options()
                .write(true)
                .open(&path)
                .unwrap()
                .set_modified(past)
                .unwrap()
        };
        let modified = || std::fs::metadata(&path).unwrap().modified().unwrap();
        set_past();
        write_rows(&path, &rows).unwrap();
        assert_eq!(modified(), past);
        write_rows(&path, &[row(0, "g", "kahn", Some(8))]).unwrap();
        assert_ne!(modified(), past);
        assert_eq!(read_rows(&path).unwrap()[0].peak_bytes, Some(8));
    }

    fn row(item: usize, graph: &str, solver: &str, peak: Option<u64>) -> Row {
        Row {
            item,
            graph: graph.into(),
            solver: solver.into(),
            valid: peak.is_some(),
            peak_bytes: peak,
            status: if peak.is_some() {
                RowStatus::Feasible
            } else {
                RowStatus::Failed
            },
            ..blank()
        }
    }

    #[test]
    fn finalize_uses_first_valid_baseline_and_best_peak() {
        let rows = vec![
            row(2, "g", "seed-greedy", Some(80)),
            row(0, "g", "program", None),
            row(1, "g", "kahn", Some(100)),
        ];
        let out = finalize(rows, &["program".into(), "kahn".into()]);
        assert_eq!(out[0].solver, "program");
        let greedy = &out[2];
        assert_eq!(greedy.baseline, "kahn");
        assert_eq!(greedy.reduction_pct, Some(20.0));
        assert_eq!(greedy.best_known_bytes, Some(80));
        assert_eq!(greedy.gap_pct, Some(0.0));
        assert_eq!(out[1].gap_pct, Some(25.0));
        assert_eq!(out[0].reduction_pct, None);
    }

    /// A row whose bound is above another row's checked peak becomes
    /// invalid, keeping its data and its claim; the verdict is judged
    /// again on each pass (undone once the refuting row is gone).
    #[test]
    fn a_bound_above_a_checked_peak_makes_its_row_invalid() {
        let mut ilp = row(0, "g", "ilp", Some(888_130));
        (ilp.status, ilp.lower_bound_bytes) = (RowStatus::Optimal, Some(888_130));
        let mut exact = row(1, "g", "exact", Some(888_129));
        (exact.status, exact.lower_bound_bytes) = (RowStatus::Optimal, Some(888_129));
        let out = finalize(vec![ilp.clone(), exact], &[]);
        assert_eq!((out[0].status.label(), out[0].valid), ("invalid", true));
        assert_eq!(
            out[0].reason,
            "claimed `optimal` with lower bound 888130, above the peak 888129 of exact's \
             checked order, so the bound is wrong (a solver bug)"
        );
        assert_eq!(out[0].peak_bytes, Some(888_130));
        assert_eq!(out[1].status, RowStatus::Optimal);
        assert_eq!(out[1].best_known_bytes, Some(888_129));
        // The same verdict again, not a second layer of it.
        let again = finalize(out.clone(), &[]);
        assert_eq!(again, out);
        // Without the refuting row the claim stands again.
        let alone = finalize(vec![out[0].clone()], &[]);
        assert_eq!(
            (alone[0].status.label(), alone[0].reason.as_str()),
            ("optimal", "")
        );
        assert_eq!(alone[0], finalize(vec![ilp], &[])[0]);
        // A row its own check made invalid (its bound above its own peak)
        // keeps that reason beside a lower peak.
        let mut own = row(0, "g", "mine", Some(160));
        own.lower_bound_bytes = Some(1 << 40);
        (own.status, own.valid) = (RowStatus::Invalid, false);
        own.reason = "lower bound 1099511627776 is above the checked peak 160".into();
        let out = finalize(vec![own.clone(), row(1, "g", "kahn", Some(150))], &[]);
        let mut older = own.clone();
        older.reason = wrong_bound_reason("invalid", 1 << 40, 160, "mine");
        let kept = finalize(vec![older.clone(), row(1, "g", "kahn", Some(150))], &[]);
        assert_eq!(
            (kept[0].status, &kept[0].reason),
            (RowStatus::Invalid, &older.reason)
        );
        assert_eq!(
            (out[0].status, out[0].reason.as_str()),
            (RowStatus::Invalid, own.reason.as_str())
        );
    }

    #[test]
    fn a_cut_line_and_duplicates_are_dropped() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("runs.csv");
        let a = row(0, "g", "kahn", Some(5));
        let b = row(1, "g", "program", Some(6));
        let mut text = header().into_bytes();
        text.extend(to_line(&a));
        text.extend(to_line(&a));
        let cut = to_line(&b);
        text.extend(&cut[..cut.len() / 2]);
        fs::write(&path, text).unwrap();
        let read = read_rows_checked(&path).unwrap();
        assert_eq!((read.rows, read.conflicting), (vec![a.clone()], 0));
        // A repeat with another peak is dropped too, and counted.
        let mut other = a.clone();
        other.peak_bytes = Some(4);
        let mut text = header().into_bytes();
        for r in [&a, &a, &other] {
            text.extend(to_line(r));
        }
        fs::write(&path, text).unwrap();
        let read = read_rows_checked(&path).unwrap();
        assert_eq!((read.rows, read.conflicting), (vec![a.clone()], 1));
        // A row that could not load its graph gives way to a later one
        // that ran, as in `merge`; not the other way round.
        let mut unloaded = a.clone();
        unloaded.status = RowStatus::Failed;
        unloaded.peak_bytes = None;
        unloaded.reason = format!("{CANNOT_LOAD}: it changed during the run");
        assert!(never_ran(&unloaded));
        for (rows, kept) in [([&unloaded, &a], &a), ([&a, &unloaded], &a)] {
            let mut text = header().into_bytes();
            for r in rows {
                text.extend(to_line(r));
            }
            fs::write(&path, text).unwrap();
            let read = read_rows_checked(&path).unwrap();
            assert_eq!((read.rows, read.conflicting), (vec![kept.clone()], 1));
        }
    }

    /// A row's status is its solve's, label for label, as serde writes it.
    #[test]
    fn row_statuses_are_the_solves_statuses() {
        let solves = [
            Status::Optimal,
            Status::Feasible,
            Status::TimedOut,
            Status::Failed(String::new()),
            Status::Invalid(String::new()),
        ];
        for status in &solves {
            let row = RowStatus::of(status);
            assert_eq!(row.label(), status.label());
            assert_eq!(RowStatus::from_label(status.label()), Some(row));
            let written = serde_json::to_string(&row).unwrap();
            assert_eq!(written, format!("\"{}\"", status.label()));
        }
        assert_eq!(RowStatus::from_label("feasibl"), None);
    }

    /// A status no solve writes is a malformed line (dropped, its item
    /// solved again), and every status a solve writes is read.
    #[test]
    fn a_row_with_an_unknown_status_is_malformed() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("runs.csv");
        let a = row(0, "g", "kahn", Some(5));
        let b = row(1, "g", "program", Some(6));
        let b = String::from_utf8(to_line(&b)).unwrap();
        let mut text = header().into_bytes();
        text.extend(to_line(&a));
        text.extend(b.replace(",feasible,", ",feasibl,").into_bytes());
        fs::write(&path, text).unwrap();
        let read = read_rows_checked(&path).unwrap();
        assert_eq!((read.rows, read.rejected.len()), (vec![a.clone()], 1));
        let (line, why) = read.first_problem.unwrap();
        assert_eq!((line, why.as_str()), (3, "unknown status `feasibl`"));
        // So is a time that is no time (NaN, infinite, negative).
        for bad in [f64::NAN, f64::INFINITY, -1.0] {
            let mut c = row(1, "g", "program", Some(6));
            c.time_ms = bad;
            let mut text = header().into_bytes();
            text.extend(to_line(&a));
            text.extend(to_line(&c));
            fs::write(&path, text).unwrap();
            let read = read_rows_checked(&path).unwrap();
            assert_eq!((read.rows.len(), read.rejected.len()), (1, 1), "{bad}");
            assert!(read.first_problem.unwrap().1.contains("is not a time"));
        }
        // A lone line that is not the header (the header lost) is a line
        // lost too: the reader took it for the header.
        fs::write(&path, to_line(&a)).unwrap();
        let read = read_rows_checked(&path).unwrap();
        assert_eq!(
            (
                read.rows.len(),
                read.rejected,
                read.first_problem.unwrap().0
            ),
            (0, vec![to_line(&a)], 1)
        );
    }

    /// A write cut inside a multi-byte character (a non-ASCII graph name)
    /// drops that line like any cut line; it used to fail the whole read.
    #[test]
    fn a_line_cut_inside_a_character_is_dropped() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("runs.csv");
        let a = row(0, "g", "kahn", Some(5));
        let b = row(1, "größe", "kahn", Some(6));
        let mut text = header().into_bytes();
        text.extend(to_line(&a));
        let line = to_line(&b);
        let inside = line.iter().position(|&c| c >= 0x80).unwrap() + 1;
        text.extend(&line[..inside]);
        fs::write(&path, text).unwrap();
        assert_eq!(read_rows(&path).unwrap(), vec![a]);
    }
}
