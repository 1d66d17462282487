//! `memsched diff`: two results directories compared solve by solve, to
//! see what a change to a solver (or to memsched) did to its peaks, its
//! proofs and its time.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::ValueEnum;

use crate::experiment::diff::{self, Change, Diff, Pair};
use crate::experiment::fingerprint::{self, Fingerprints};
use crate::experiment::results_dir::CONFIG;
use crate::experiment::rows::{Row, RowStatus};

use super::table::{read_finalized, runs_path, spelled_as_rows};
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

A solve is matched by graph, solver and seed. Each is counted as: lower or higher (its checked
peak fell or rose), same, broken (a valid order before, none now: failed, invalid or timed out
without one), mended (the reverse), proof gained or lost (same peak, `optimal` won or lost), or
neither valid. Graphs whose content differs between the two (by fingerprint, or by node and edge
counts) are left out.

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
        let inputs: Vec<(&str, String)> = [&old_runs, &new_runs]
            .iter()
            .flat_map(|runs| {
                [
                    ("rows", runs.to_string_lossy().into_owned()),
                    (
                        "settings",
                        runs.with_file_name(CONFIG).to_string_lossy().into_owned(),
                    ),
                ]
            })
            .collect();
        let inputs: Vec<(&str, &str)> = inputs.iter().map(|(r, p)| (*r, p.as_str())).collect();
        check_output_is_not_an_input("--out", out, &inputs)?;
    }
    if super::same_output(&old_runs, &new_runs) {
        note!(
            "warning: OLD and NEW are the same file, {}: every solve compares equal",
            old_runs.display()
        );
    }
    let old_rows = read_finalized(&old_runs)?;
    let new_rows = read_finalized(&new_runs)?;
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
            "{} vs {}: {e}",
            old_runs.display(),
            new_runs.display()
        ))
    })?;
    if !d.changed_graphs.is_empty() {
        let names = quoted_few(&d.changed_graphs, 5);
        note!(
            "warning: {} left out, as {} content differs between the two directories \
             (fingerprints, or node and edge counts): {}",
            count(d.changed_graphs.len(), "graph"),
            its_or_their(d.changed_graphs.len()),
            names
        );
    }
    let text = match args.format {
        Format::Markdown => markdown(&d, &args, &old_runs, &new_runs),
        Format::Csv => csv(&d),
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

/// The graph fingerprints recorded beside `runs`; none, with a warning,
/// when the file cannot be read (counts then tell graphs apart).
fn fingerprints_beside(runs: &Path) -> Fingerprints {
    let dir = runs.parent().unwrap_or(Path::new("."));
    fingerprint::read(dir).unwrap_or_else(|e| {
        note!("warning: {e}; graphs there are compared by node and edge counts only");
        Fingerprints::new()
    })
}

/// The Markdown report: a summary line, a table per solver, the changed
/// solves (worst first, up to `--limit`), and what only one side has.
fn markdown(d: &Diff, args: &Args, old: &Path, new: &Path) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "OLD: {}\nNEW: {}\n\n{} in both: {} better, {} worse, {} unchanged.\n",
        old.display(),
        new.display(),
        count(d.pairs.len(), "solve"),
        d.improvements(),
        d.regressions(),
        d.pairs.len() - d.improvements() - d.regressions()
    );
    s.push_str(
        "| solver | solves | lower | same | higher | broken | mended | proof gained | \
         proof lost | neither valid | time, NEW/OLD |\n",
    );
    s.push_str("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    for t in &d.tallies {
        let _ = write!(s, "| `{}` | {} |", t.solver, t.pairs);
        for c in Change::ALL {
            let _ = write!(s, " {} |", t.count(c));
        }
        let ratio = match t.old_ms > 0.0 {
            true => format!("{:.2}x", t.new_ms / t.old_ms),
            false => "-".into(),
        };
        let _ = writeln!(s, " {ratio} |");
    }
    s.push_str(
        "\nTime: the solver's total solve time in NEW over that in OLD (wall clock: \
         another machine or load moves it).\n",
    );
    let changed = d.changed();
    if !changed.is_empty() {
        let shown = match args.limit {
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
                "| {} | `{}` |{seed} {} | {} | {} |",
                p.new.graph,
                p.new.solver,
                side(p.old),
                side(p.new),
                change_text(p)
            );
        }
    }
    for (rows, name) in [(&d.only_old, "OLD"), (&d.only_new, "NEW")] {
        if rows.is_empty() {
            continue;
        }
        let mut solvers: Vec<&str> = Vec::new();
        for r in rows.iter() {
            if !solvers.contains(&r.solver.as_str()) {
                solvers.push(&r.solver);
            }
        }
        let names = quoted_few(&solvers, 8);
        let _ = writeln!(
            s,
            "\n{} only in {name} (not compared), of {}.",
            count(rows.len(), "solve"),
            match solvers.len() {
                1 => format!("solver {names}"),
                _ => format!("solvers {names}"),
            }
        );
    }
    if !d.changed_graphs.is_empty() {
        let _ = writeln!(
            s,
            "\n{} left out, as {} content differs between OLD and NEW: {}.",
            count(d.changed_graphs.len(), "graph"),
            its_or_their(d.changed_graphs.len()),
            quoted_few(&d.changed_graphs, 5)
        );
    }
    s
}

fn its_or_their(n: usize) -> &'static str {
    match n {
        1 => "its",
        _ => "their",
    }
}

/// The first `shown` of `names` in backticks, then how many more.
fn quoted_few(names: &[impl AsRef<str>], shown: usize) -> String {
    let names = crate::experiment::first_few(
        names.iter(),
        shown,
        |n| format!("`{}`", n.as_ref()),
        |k| format!("{k} more"),
    );
    names.join(", ")
}

/// One side of a changed solve: its peak, marked when proven optimal, or
/// its status when it has no valid order.
fn side(r: &Row) -> String {
    match (r.valid, r.peak_bytes) {
        (true, Some(peak)) if r.status != RowStatus::Invalid => {
            match r.status == RowStatus::Optimal {
                true => format!("{} (optimal)", human_bytes(peak)),
                false => human_bytes(peak),
            }
        }
        _ => r.status.label().to_string(),
    }
}

/// How a changed solve changed, in words or as a percentage of its old peak.
fn change_text(p: &Pair) -> String {
    match p.change {
        Change::Higher | Change::Lower => match p.change_pct() {
            Some(pct) if pct > 0.0 => format!("+{}", percent(pct)),
            Some(pct) => percent(pct),
            None => format!("{} from 0 B", human_bytes(p.new.peak_bytes.unwrap_or(0))),
        },
        Change::Broken => match p.new.reason.is_empty() {
            true => "broken".into(),
            false => format!("broken: {}", p.new.reason.replace('|', "\\|")),
        },
        Change::Mended => "mended".into(),
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
    let opt = |x: Option<u64>| x.map_or_else(String::new, |x| x.to_string());
    for p in &d.pairs {
        w.write_record([
            p.new.graph.clone(),
            p.new.solver.clone(),
            p.new.seed.to_string(),
            p.change.label().to_string(),
            p.old.status.label().to_string(),
            p.new.status.label().to_string(),
            opt(p.old.peak_bytes.filter(|_| p.old.valid)),
            opt(p.new.peak_bytes.filter(|_| p.new.valid)),
            p.change_pct().map_or_else(String::new, |x| x.to_string()),
            p.old.time_ms.to_string(),
            p.new.time_ms.to_string(),
        ])
        .expect("in-memory write");
    }
    String::from_utf8(w.into_inner().expect("in-memory write")).expect("CSV of UTF-8 text")
}
