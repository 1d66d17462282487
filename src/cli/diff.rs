//! `memsched diff`: two results directories compared solve by solve, to
//! see what a change to a solver (or to memsched) did to its peaks, its
//! proofs and its time.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::ValueEnum;

use crate::experiment::diff::{self, Change, Diff, Pair};
use crate::experiment::fingerprint::{self, Fingerprints};
use crate::experiment::report::code;
use crate::experiment::results_dir::{CONFIG, FINGERPRINTS};
use crate::experiment::rows::{Row, RowStatus};
use crate::experiment::table::markdown_escape;

use super::table::{read_finalized, runs_path, spelled_as_rows, Settings};
use super::InvalidInput;
use super::{check_out_file, check_output_is_not_an_input, count, emit, human_bytes, percent};

#[derive(Debug, Clone, Copy, ValueEnum)]
enum Format {
    /// A per-solver summary, then the changed solves, worst first.
    Markdown,
    /// One line per solve found in both directories, at full precision.
    Csv,
}

#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:
  memsched diff results/quick /tmp/quick-after
  memsched diff before/ after/ -s 'rule:delta,type,id' --graph 'random-layered*'
  memsched diff before/ after/ --format csv -o changes.csv
  memsched diff before/ after/ --fail-on-regression    # exit 1 if any solve got worse
  memsched diff results/rules results/rules -s 'rule:delta,id' --new-solver 'rule:-height,id'

A solve is matched by graph, solver and seed. Each is counted as: lower or higher (its checked
peak fell or rose), same, now unsolved (a valid order before, none now: failed, invalid or timed
out without one), now solved (the reverse), proof gained or lost (same peak, `optimal` won or
lost), or neither valid. Graphs whose content differs between the two (by fingerprint, or by node
and edge counts), and graphs that could not be loaded on one side, are left out.

A typical use: run an experiment, change a solver, run it again into another directory
(`memsched run CONFIG -o /tmp/after`), then `memsched diff results/NAME /tmp/after`.")]
pub struct Args {
    /// The results directory from before (of `memsched run` or `merge`),
    /// or its runs.csv.
    #[arg(value_name = "OLD")]
    old: PathBuf,
    /// The results directory from after, or its runs.csv.
    #[arg(value_name = "NEW")]
    new: PathBuf,
    /// A solver to compare (repeat it). Default: every solver in both.
    #[arg(long, short, value_name = "NAME")]
    solver: Vec<String>,
    /// Compare OLD's rows of the one `--solver` with NEW's rows of this
    /// solver instead: two rules on the same graphs, say. OLD and NEW may
    /// then be one directory.
    ///
    /// Solves are matched by graph and seed; the report names the pair
    /// and shows OLD's solver name in its rows.
    #[arg(long, value_name = "NAME")]
    new_solver: Option<String>,
    /// Graphs to compare, by name; `*` matches any run of characters and
    /// `?` one (`'random-layered*'`). Repeat it for several. Default: every
    /// graph in both.
    #[arg(long, value_name = "PATTERN")]
    graph: Vec<String>,
    /// Output format.
    #[arg(long, value_enum, default_value = "markdown")]
    format: Format,
    /// How many changed solves the Markdown report lists (worst first);
    /// 0 lists them all.
    #[arg(long, value_name = "N", default_value_t = 20)]
    limit: usize,
    /// Exit with 1 when some solve got worse: a higher peak, no valid
    /// order where there was one, or a proof of optimality lost. For
    /// scripts and CI; the report is written either way.
    #[arg(long)]
    fail_on_regression: bool,
    /// Write the report to this file instead of standard output.
    #[arg(long, short, value_name = "FILE")]
    out: Option<PathBuf>,
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let old_runs = runs_path(&args.old)?;
    let new_runs = runs_path(&args.new)?;
    if let Some(out) = &args.out {
        check_out_file("--out", out)?;
        // Every file read beside the rows too.
        let inputs: Vec<(&str, String)> = [&old_runs, &new_runs]
            .iter()
            .flat_map(|runs| {
                let beside = |name| runs.with_file_name(name).to_string_lossy().into_owned();
                [
                    ("rows", runs.to_string_lossy().into_owned()),
                    ("settings", beside(CONFIG)),
                    ("fingerprints", beside(FINGERPRINTS)),
                ]
            })
            .collect();
        let inputs: Vec<(&str, &str)> = inputs.iter().map(|(r, p)| (*r, p.as_str())).collect();
        check_output_is_not_an_input("--out", out, &inputs)?;
    }
    let pair = match (&args.new_solver, args.solver.as_slice()) {
        (None, _) => None,
        (Some(new), [old]) => Some((spelled_as_rows(old), spelled_as_rows(new))),
        (Some(_), _) => {
            return Err(InvalidInput(
                "--new-solver compares it with one solver of OLD: name that one with --solver \
                 (once)"
                    .into(),
            )
            .into())
        }
    };
    if pair.is_none() && super::same_output(&old_runs, &new_runs) {
        note!(
            "warning: OLD and NEW are the same file, {}: every solve compares equal",
            old_runs.display()
        );
    }
    // Only the bound checks of the final pass matter here, not the
    // baselines: a config beside the rows that does not read is no reason
    // to stop.
    let old_rows = read_finalized(&old_runs, Settings::IfReadable)?;
    let mut new_rows = read_finalized(&new_runs, Settings::IfReadable)?;
    if let Some((old_name, new_name)) = &pair {
        new_rows = as_solver(new_rows, new_name, old_name).map_err(InvalidInput)?;
    }
    let opts = diff::Options {
        solvers: args.solver.iter().map(|s| spelled_as_rows(s)).collect(),
        graphs: args.graph.clone(),
    };
    let d = diff::compare(
        &old_rows,
        &new_rows,
        &fingerprints_beside(&old_runs),
        &fingerprints_beside(&new_runs),
        &opts,
    )
    .map_err(|e| {
        InvalidInput(format!(
            "{} (OLD) vs {} (NEW): {e}",
            old_runs.display(),
            new_runs.display()
        ))
    })?;
    // The solvers compared (`-s` and `--graph` select them).
    let solved = d.pairs.iter().map(|p| &p.new.solver);
    let settings = crate::experiment::settings_differences(
        &old_runs.with_file_name(CONFIG),
        &new_runs.with_file_name(CONFIG),
        solved,
    );
    let settings = match settings.is_empty() {
        true => None,
        false => Some(format!(
            "NEW was solved with another {} than OLD: a change may come from the settings \
             rather than the solvers",
            settings.join(" and ")
        )),
    };
    let text = match args.format {
        Format::Markdown => {
            let compared = pair.as_ref().map_or(String::new(), |(old, new)| {
                format!(
                    "- Compared: {} in OLD with {} in NEW, matched by graph and seed (the lines \
                     below name both {})\n",
                    code(old),
                    code(new),
                    code(old)
                )
            });
            compared + &markdown(&d, args.limit, &old_runs, &new_runs, settings.as_deref())
        }
        Format::Csv => {
            if let Some((old, new)) = &pair {
                note!("note: its `solver` column names `{old}` (OLD); NEW's rows are `{new}`'s");
            }
            if let Some(settings) = &settings {
                note!("warning: {settings}");
            }
            // The file holds the pairs only: the rest goes to standard error.
            for line in left_out(&d) {
                note!("note: {line}");
            }
            csv(&d)
        }
    };
    let out = args.out.as_ref().map(|p| p.to_string_lossy().into_owned());
    emit(out.as_deref(), &text)?;
    let regressions = d.regressions();
    if args.fail_on_regression && regressions > 0 {
        note!(
            "{} got worse (--fail-on-regression)",
            super::count_of(regressions, "solve", "solves")
        );
        return Ok(ExitCode::from(1));
    }
    Ok(ExitCode::SUCCESS)
}

/// NEW's `rows` of solver `new`, named `old` so that they pair with OLD's
/// (`--new-solver`); an error when it has none, naming the solvers it has.
fn as_solver(mut rows: Vec<Row>, new: &str, old: &str) -> Result<Vec<Row>, String> {
    if !rows.iter().any(|r| r.solver == new) {
        let names: std::collections::BTreeSet<&str> =
            rows.iter().map(|r| r.solver.as_str()).collect();
        let names = crate::text::first_few(
            names.iter(),
            12,
            |s| format!("`{s}`"),
            |k| format!("{k} more"),
        );
        return Err(format!(
            "no row of solver `{new}` (--new-solver) in NEW; its solvers: {}",
            names.join(", ")
        ));
    }
    rows.retain(|r| r.solver == new);
    for r in &mut rows {
        r.solver = old.to_string();
    }
    Ok(rows)
}

/// The graph fingerprints recorded beside `runs`; none, with a warning,
/// when the file cannot be read (counts then tell graphs apart).
fn fingerprints_beside(runs: &Path) -> Fingerprints {
    let dir = runs.parent().unwrap_or(Path::new("."));
    fingerprint::read(dir).unwrap_or_else(|e| {
        note!("warning: {e}; graphs there are compared by node and edge counts only");
        Fingerprints::new()
    })
}

/// The least total time, in milliseconds, whose ratio `diff` shows.
const COMPARABLE_MS: f64 = 10.0;

/// A solver's change in total time: NEW's over OLD's (`1.25x`), or both
/// totals (`0.280 -> 12.180 ms`, to the microsecond as in `runs.csv`)
/// when either is under [`COMPARABLE_MS`].
fn time_change(old_ms: f64, new_ms: f64) -> String {
    match old_ms.min(new_ms) >= COMPARABLE_MS {
        true => format!("{:.2}x", new_ms / old_ms),
        false => format!("{old_ms:.3} -> {new_ms:.3} ms"),
    }
}

/// The Markdown report: both paths and the counts, a row per solver, the
/// changed solves (worst first, up to `limit`; 0: all), and what was not
/// compared.
fn markdown(d: &Diff, limit: usize, old: &Path, new: &Path, settings: Option<&str>) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "- OLD: {}\n- NEW: {}\n{}\n{} in both: {} better, {} worse, {} unchanged.\n",
        markdown_escape(&old.display().to_string()),
        markdown_escape(&new.display().to_string()),
        settings.map_or(String::new(), |text| format!(
            "- **Settings differ**: {text}.\n"
        )),
        count(d.pairs.len(), "solve"),
        d.improvements(),
        d.regressions(),
        d.pairs.len() - d.improvements() - d.regressions()
    );
    s.push_str(
        "| solver | solves | lower | same | higher | now unsolved | now solved | proof gained | \
         proof lost | neither valid | time, NEW/OLD |\n",
    );
    s.push_str("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    for t in &d.tallies {
        let _ = write!(s, "| {} | {} |", code(&t.solver), t.pairs);
        for c in Change::ALL {
            let _ = write!(s, " {} |", t.count(c));
        }
        let _ = writeln!(s, " {} |", time_change(t.old_ms, t.new_ms));
    }
    let _ = writeln!(
        s,
        "\nTime: the solver's total solve time in NEW over that in OLD (wall clock: \
         another machine or load moves it); where either total is under {COMPARABLE_MS} ms, \
         the two totals instead, since one hiccup of the machine can be most of such a total."
    );
    let changed = d.changed();
    if !changed.is_empty() {
        let shown = match limit {
            0 => changed.len(),
            k => k.min(changed.len()),
        };
        let seeded = d.pairs.iter().any(|p| p.new.seed != 0);
        let _ = writeln!(
            s,
            "\nChanged solves, worst first ({shown} of {}{}):\n",
            changed.len(),
            match shown < changed.len() {
                true => "; --limit 0 lists them all",
                false => "",
            }
        );
        s.push_str(if seeded {
            "| graph | solver | seed | OLD | NEW | change |\n|---|---|---:|---:|---:|---|\n"
        } else {
            "| graph | solver | OLD | NEW | change |\n|---|---|---:|---:|---|\n"
        });
        for p in &changed[..shown] {
            let seed = match seeded {
                true => format!(" {} |", p.new.seed),
                false => String::new(),
            };
            let _ = writeln!(
                s,
                "| {} | {} |{seed} {} | {} | {} |",
                markdown_escape(&p.new.graph),
                code(&p.new.solver),
                side(p.old),
                side(p.new),
                markdown_escape(&change_text(p))
            );
        }
    }
    for line in left_out(d) {
        let _ = writeln!(s, "\n{line}");
    }
    s
}

/// A sentence for each kind of solve not compared: those in one
/// directory only, and those of graphs left out.
fn left_out(d: &Diff) -> Vec<String> {
    let mut lines = Vec::new();
    for (rows, name) in [(&d.only_old, "OLD"), (&d.only_new, "NEW")] {
        if rows.is_empty() {
            continue;
        }
        // In the order they first appear; the set keeps it linear.
        let mut seen = std::collections::HashSet::new();
        let solvers: Vec<&str> = (rows.iter())
            .map(|r| r.solver.as_str())
            .filter(|&s| seen.insert(s))
            .collect();
        lines.push(format!(
            "{} only in {name} (not compared), of {}: {}.",
            count(rows.len(), "solve"),
            match solvers.len() {
                1 => "solver",
                _ => "solvers",
            },
            quoted_few(&solvers, 8)
        ));
    }
    if !d.changed_graphs.is_empty() {
        lines.push(format!(
            "{} left out, as {} content differs between OLD and NEW (fingerprints, or node \
             and edge counts): {}.",
            count(d.changed_graphs.len(), "graph"),
            its_or_their(d.changed_graphs.len()),
            quoted_few(&d.changed_graphs, 5)
        ));
    }
    if !d.unloaded.is_empty() {
        lines.push(format!(
            "{} left out, as {} could not be loaded in OLD or NEW (`cannot load graph` rows): \
             {}.",
            count(d.unloaded.len(), "graph"),
            match d.unloaded.len() {
                1 => "it",
                _ => "they",
            },
            quoted_few(&d.unloaded, 5)
        ));
    }
    lines
}

fn its_or_their(n: usize) -> &'static str {
    match n {
        1 => "its",
        _ => "their",
    }
}

/// The first `shown` of `names` as inline code, then how many more.
fn quoted_few(names: &[impl AsRef<str>], shown: usize) -> String {
    let names = crate::text::first_few(
        names.iter(),
        shown,
        |n| code(n.as_ref()),
        |k| format!("{k} more"),
    );
    names.join(", ")
}

/// One side of a changed solve: its peak, with its status when that is not
/// plain `feasible` (`optimal`, `timed_out`), or its status alone when it
/// has no valid order.
fn side(r: &Row) -> String {
    match diff::checked_peak(r) {
        Some(peak) if r.status == RowStatus::Feasible => human_bytes(peak),
        Some(peak) => format!("{} ({})", human_bytes(peak), r.status.label()),
        None => r.status.label().to_string(),
    }
}

/// How a changed solve changed: the peak's change as a percentage of the
/// old peak (or in bytes from 0), the reason it has no order now, or what
/// happened to its proof.
fn change_text(p: &Pair) -> String {
    let new_peak = diff::checked_peak(p.new).unwrap_or(0);
    match p.change {
        Change::Higher | Change::Lower => match p.change_pct() {
            Some(pct) if pct > 0.0 => format!("+{}", percent(pct)),
            Some(pct) => percent(pct),
            None => format!("+{} from 0 B", human_bytes(new_peak)),
        },
        Change::Unsolved => match p.new.reason.is_empty() {
            true => "now unsolved".into(),
            false => format!("now unsolved: {}", p.new.reason),
        },
        Change::Solved => "now solved".into(),
        Change::ProofGained => "proof gained".into(),
        Change::ProofLost => "proof lost".into(),
        Change::Same | Change::NeitherValid => String::new(),
    }
}

/// One CSV line per solve in both directories, in NEW's row order.
fn csv(d: &Diff) -> String {
    let mut w = csv::Writer::from_writer(Vec::new());
    let header = [
        "graph",
        "solver",
        "seed",
        "change",
        "old_status",
        "new_status",
        "old_peak_bytes",
        "new_peak_bytes",
        "change_pct",
        "old_time_ms",
        "new_time_ms",
    ];
    w.write_record(header).expect("in-memory write");
    let peak = |r: &Row| diff::checked_peak(r).map_or_else(String::new, |x| x.to_string());
    for p in &d.pairs {
        w.write_record([
            p.new.graph.clone(),
            p.new.solver.clone(),
            p.new.seed.to_string(),
            p.change.label().to_string(),
            p.old.status.label().to_string(),
            p.new.status.label().to_string(),
            peak(p.old),
            peak(p.new),
            p.change_pct().map_or_else(String::new, |x| x.to_string()),
            p.old.time_ms.to_string(),
            p.new.time_ms.to_string(),
        ])
        .expect("in-memory write");
    }
    String::from_utf8(w.into_inner().expect("in-memory write")).expect("CSV of UTF-8 text")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Totals long enough give a ratio; a short one gives both totals, not
    /// a ratio one hiccup of the machine makes.
    #[test]
    fn short_totals_are_shown_not_divided() {
        assert_eq!(time_change(20.0, 25.0), "1.25x");
        assert_eq!(time_change(0.28, 12.18), "0.280 -> 12.180 ms");
        assert_eq!(time_change(0.0, 0.004), "0.000 -> 0.004 ms");
        assert_eq!(time_change(40.0, 9.5), "40.000 -> 9.500 ms");
    }
}
