//! The text report of `memsched schedule` with several solvers: one table
//! row per solver, then the best peak and the best lower bound any of them
//! found.

use std::fmt::Write as _;

use crate::solvers::{gap_to_bound_pct, Report, Status};
use crate::Graph;

use super::schedule::{reduction_pct, About};
use super::{human_bytes, percent};

/// How a column's cells line up.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Align {
    Left,
    Right,
}

/// The comparison table of `reports` (solves of `g`, in the order given).
/// `vs best` is how far a peak is above the lowest checked peak of the
/// table; `gap` how far it is above the solver's own lower bound, relative
/// to the bound ([`Report::gap_pct`]). A lower bound any solver proved
/// bounds every order of `g`, so the highest one says how far the best
/// peak may be from the optimum, by the same definition of a gap.
pub fn to_table(g: &Graph, reports: &[Report], program_peak: Option<u64>, about: &About) -> String {
    let best = reports
        .iter()
        .filter_map(|r| Some((r.peak?, r.solver.as_str())))
        .min_by_key(|&(peak, _)| peak);
    // An invalid report's bound is not trusted: it may be why it is invalid.
    // The first of the highest bounds (`max_by_key` keeps the last), one
    // that proved its own order optimal first: a stopped `dp` and `exact`
    // can give the same bound, and the proof is `exact`'s.
    let bound = reports
        .iter()
        .rev()
        .filter(|r| !matches!(r.status, Status::Invalid(_)))
        .filter_map(|r| {
            Some((
                r.lower_bound?,
                r.status == Status::Optimal,
                r.solver.as_str(),
            ))
        })
        .max_by_key(|&(lb, proved, _)| (lb, proved))
        .map(|(lb, _, by)| (lb, by));
    let pct = |x: Option<f64>| x.map_or("-".into(), percent);
    let bytes = |x: Option<u64>| x.map_or("-".into(), |x| x.to_string());
    let header = [
        ("solver", Align::Left),
        ("status", Align::Left),
        ("peak (bytes)", Align::Right),
        ("reduction", Align::Right),
        ("vs best", Align::Right),
        ("lower bound", Align::Right),
        ("gap", Align::Right),
        ("time (ms)", Align::Right),
    ];
    let rows: Vec<Vec<String>> = reports
        .iter()
        .map(|r| {
            let vs_best = match (r.peak, best) {
                (Some(p), Some((b, _))) if b > 0 => Some(100.0 * (p - b) as f64 / b as f64),
                (Some(_), Some(_)) => Some(0.0),
                _ => None,
            };
            vec![
                r.solver.clone(),
                r.status.label().to_string(),
                bytes(r.peak),
                pct(reduction_pct(r.peak, program_peak)),
                vs_best.map_or("-".into(), |x| {
                    let sign = if x > 0.0 { "+" } else { "" };
                    format!("{sign}{}", percent(x))
                }),
                bytes(r.lower_bound),
                pct(r.gap_pct()),
                format!("{:.3}", r.time.as_secs_f64() * 1e3),
            ]
        })
        .collect();
    let mut s = String::new();
    let opt = |x: Option<u64>| x.map_or("- (the Nodes order breaks an edge)".into(), human_bytes);
    let _ = writeln!(s, "graph         {}", about.graph_line(g));
    if let Some(settings) = &about.settings {
        let _ = writeln!(s, "settings      {settings}");
    }
    let _ = writeln!(s, "program peak  {}\n", opt(program_peak));
    write_table(&mut s, &header, &rows);
    s.push('\n');
    match best {
        Some((peak, by)) => {
            let _ = writeln!(s, "best peak     {} by {by}", human_bytes(peak));
        }
        None => s.push_str("best peak     - (no solver returned a valid schedule)\n"),
    }
    if let Some((lb, by)) = bound {
        let _ = write!(s, "lower bound   {} by {by}", human_bytes(lb));
        match best {
            Some((peak, _)) if peak <= lb => s.push_str(": the best peak is optimal\n"),
            // The optimum is at least the bound, so the best peak is at
            // most `peak / lb - 1` above it: the table's gap, of the best peak.
            Some((peak, _)) => match gap_to_bound_pct(peak, lb) {
                Some(above) => {
                    let _ = writeln!(
                        s,
                        ": the best peak is at most {} above the optimum",
                        percent(above)
                    );
                }
                None => s.push('\n'),
            },
            None => s.push('\n'),
        }
    }
    let notes: Vec<&Report> = reports.iter().filter(|r| r.note.is_some()).collect();
    if !notes.is_empty() {
        s.push_str("notes\n");
        for r in notes {
            let _ = writeln!(
                s,
                "  {}: {}",
                r.solver,
                r.note.as_deref().unwrap_or_default()
            );
        }
    }
    for r in reports {
        if let Some(reason) = r.status.reason() {
            let _ = writeln!(s, "{} {}: {reason}", r.solver, r.status.label());
        }
    }
    s
}

/// Writes `rows` under `header`, each column as wide as its widest cell,
/// two spaces apart, with no trailing spaces.
fn write_table(s: &mut String, header: &[(&str, Align)], rows: &[Vec<String>]) {
    let widths: Vec<usize> = header
        .iter()
        .enumerate()
        .map(|(c, (title, _))| {
            rows.iter()
                .map(|row| row[c].chars().count())
                .fold(title.len(), usize::max)
        })
        .collect();
    let titles: Vec<String> = header.iter().map(|(t, _)| t.to_string()).collect();
    for row in std::iter::once(&titles).chain(rows) {
        let mut line = String::new();
        for (c, cell) in row.iter().enumerate() {
            let (w, align) = (widths[c], header[c].1);
            if c > 0 {
                line.push_str("  ");
            }
            let _ = match align {
                Align::Left => write!(line, "{cell:<w$}"),
                Align::Right => write!(line, "{cell:>w$}"),
            };
        }
        let _ = writeln!(s, "{}", line.trim_end());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::corpus::gen::{generate, GenSpec};
    use crate::solvers::{self, SolveContext};

    fn reports(g: &Graph, names: &[&str]) -> Vec<Report> {
        let ctx = SolveContext::new(0, None);
        names
            .iter()
            .map(|n| solvers::run(solvers::build(n).unwrap().as_ref(), g, &ctx))
            .collect()
    }

    /// The best peak and the bound come from the right rows, the proof is
    /// stated, and every column of every row lines up.
    #[test]
    fn table_names_the_best_and_closes_the_gap() {
        let spec = GenSpec::parse("tensor-program:ops=12").unwrap();
        let g = generate(&spec, 3).unwrap();
        let r = reports(&g, &["kahn", "exact", "seed-greedy"]);
        let exact = r[1].peak.unwrap();
        // The first row with the lowest peak is named.
        let first = r.iter().find(|x| x.peak == Some(exact)).unwrap();
        let program = solvers::run(&solvers::ProgramOrder, &g, &SolveContext::default()).peak;
        let text = to_table(&g, &r, program, &About::default());
        let named = format!("best peak     {} by {}\n", human_bytes(exact), first.solver);
        assert!(text.contains(&named), "{text}");
        assert!(
            text.contains("by exact: the best peak is optimal"),
            "{text}"
        );
        let lines: Vec<&str> = text.lines().skip(3).take(4).collect();
        assert!(lines[0].starts_with("solver "), "{text}");
        // Right-aligned columns end at the same place on every line.
        let ends: Vec<usize> = lines.iter().map(|l| l.len()).collect();
        assert!(ends.iter().all(|&e| e == ends[0]), "{text}");
        for (row, report) in lines[1..].iter().zip(&r) {
            let peak = row.split_whitespace().nth(2);
            assert_eq!(
                peak,
                Some(report.peak.unwrap().to_string().as_str()),
                "{row}"
            );
        }
    }

    /// A gap too small for two decimals is not shown as a closed one.
    #[test]
    fn a_tiny_open_gap_does_not_read_as_zero() {
        assert_eq!(percent(0.0), "0.00%");
        assert_eq!(percent(12.345), "12.35%");
        assert_eq!(percent(1e-7), "1.0e-7%");
        assert_eq!(percent(-0.004), "-0.0040%");
        assert_eq!(percent(0.0049), "0.0049%");
        assert_eq!(percent(0.00012), "0.00012%");
        assert_eq!(percent(0.0001), "0.00010%");
        assert_eq!(percent(0.000099), "9.9e-5%");
        assert_eq!(percent(9.99e-4), "0.0010%");
        assert_eq!(percent(9.9999e-5), "0.00010%");
        assert_eq!(percent(0.0049999), "0.0050%");
    }

    /// An open gap is stated against the bound (the optimum is at least
    /// the bound), and an invalid report's bound is not used.
    #[test]
    fn an_open_gap_is_measured_from_the_bound() {
        let spec = GenSpec::parse("tensor-program:ops=8").unwrap();
        let g = generate(&spec, 1).unwrap();
        let mut r = reports(&g, &["kahn", "seed-greedy"]);
        let peak = r.iter().filter_map(|x| x.peak).min().unwrap();
        r[1].lower_bound = Some(peak / 2);
        let text = to_table(&g, &r, None, &About::default());
        let above = 100.0 * (peak - peak / 2) as f64 / (peak / 2) as f64;
        let line = format!(
            "the best peak is at most {} above the optimum",
            percent(above)
        );
        assert!(text.contains(&line), "{text}");
        // The row's gap has the summary line's definition: relative to the
        // bound (it was relative to the peak).
        let own = r[1].peak.unwrap();
        let gap = 100.0 * (own - peak / 2) as f64 / (peak / 2) as f64;
        let row = text
            .lines()
            .find(|l| l.starts_with("seed-greedy "))
            .unwrap();
        let cells: Vec<&str> = row.split_whitespace().collect();
        assert_eq!(cells[6], percent(gap), "{text}");
        // The same bound from a report the checker refused: no bound line.
        r[1].status = Status::Invalid("claimed a bound above its peak".into());
        (r[1].peak, r[1].order) = (None, None);
        let text = to_table(&g, &r, None, &About::default());
        assert!(!text.contains("lower bound   "), "{text}");
    }

    /// Of two equal bounds the line names the solver that proved its order
    /// optimal, not the first (a stopped `dp` before `exact`).
    #[test]
    fn an_equal_bound_is_credited_to_the_proof() {
        let spec = GenSpec::parse("tensor-program:ops=8").unwrap();
        let g = generate(&spec, 1).unwrap();
        let mut r = reports(&g, &["kahn", "seed-greedy"]);
        let proved = r[1].peak.unwrap();
        for x in r.iter_mut() {
            x.lower_bound = Some(proved);
        }
        r[1].status = Status::Optimal;
        let text = to_table(&g, &r, None, &About::default());
        let line = format!("lower bound   {} by seed-greedy", human_bytes(proved));
        assert!(text.contains(&line), "{text}");
    }

    /// Without a lower bound there is no optimality line, and an invalid
    /// solve is a row of dashes plus its reason.
    #[test]
    fn table_without_bound_or_with_a_failure() {
        let spec = GenSpec::parse("tensor-program:ops=8").unwrap();
        let g = generate(&spec, 1).unwrap();
        let mut r = reports(&g, &["kahn", "seed-greedy"]);
        let text = to_table(&g, &r, None, &About::default());
        assert!(!text.contains("lower bound   "), "{text}");
        assert!(text.contains("program peak  - (the Nodes order breaks an edge)"));
        r[0].status = crate::solvers::Status::Failed("no luck".into());
        (r[0].peak, r[0].order) = (None, None);
        let text = to_table(&g, &r, None, &About::default());
        assert!(text.contains("kahn failed: no luck"), "{text}");
        assert!(
            text.contains("best peak") && text.contains("by seed-greedy"),
            "{text}"
        );
    }
}
