//! `memsched table`: a results directory's rows as a graphs x solvers
//! table (Markdown, CSV or LaTeX), without solving again.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Context as _;
use clap::ValueEnum;

use crate::experiment::results_dir::{read_shards_file, ALL_SHARDS, CONFIG, RUNS};
use crate::experiment::rows;
use crate::experiment::table::{self, Options};

use super::{check_out_file, check_output_is_not_an_input, emit, InvalidInput};

#[derive(Debug, Clone, Copy, ValueEnum)]
enum Value {
    /// The checked peak.
    Peak,
    /// The reduction against the graph's baseline, in percent.
    Reduction,
    /// The gap to the graph's best known peak, in percent.
    Gap,
    /// The solve's time, in milliseconds.
    Time,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum Format {
    Markdown,
    Csv,
    Latex,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum Unit {
    Auto,
    #[value(name = "B")]
    B,
    #[value(name = "KiB")]
    KiB,
    #[value(name = "MiB")]
    MiB,
    #[value(name = "GiB")]
    GiB,
}

#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:
  memsched table results/seed_table
  memsched table results/quick --value reduction -s kahn -s exact --graph 'random-layered*'
  memsched table results/seed_table --format latex -o table.tex
  memsched table results/optimality --by-family --value gap")]
pub struct Args {
    /// A results directory (of `memsched run` or `merge`), or its runs.csv.
    #[arg(value_name = "DIR")]
    results: PathBuf,
    /// What a cell shows.
    #[arg(long, value_enum, default_value = "peak")]
    value: Value,
    /// A solver to show as a column (repeat it; columns in this order): one
    /// of the rows', or of the directory's config.toml (no row yet: `-`).
    /// Default: every solver of the rows, in the config's order.
    #[arg(long, short, value_name = "NAME")]
    solver: Vec<String>,
    /// Graphs to show, by name; `*` matches any run of characters and `?`
    /// one (`'random-layered*'`). Repeat it for several. Default: every graph.
    #[arg(long, value_name = "PATTERN")]
    graph: Vec<String>,
    /// Output format. Markdown and LaTeX mark each graph's best cell in
    /// bold and proven optima with `*`; CSV holds plain numbers at full
    /// precision (peaks in bytes unless --unit says otherwise).
    #[arg(long, value_enum, default_value = "markdown")]
    format: Format,
    /// Unit of peak cells. `auto`: one unit for the table, the largest
    /// that keeps its largest peak at 1 or more (bytes in CSV).
    #[arg(long, value_enum, default_value = "auto")]
    unit: Unit,
    /// One row per graph family (a generator's, or a graph file's
    /// directory): each cell the mean over the family's graphs. Not for
    /// peaks, which do not average across graphs.
    #[arg(long)]
    by_family: bool,
    /// Write the table to this file instead of standard output.
    #[arg(long, short, value_name = "FILE")]
    out: Option<PathBuf>,
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let runs = runs_path(&args.results)?;
    if let Some(out) = &args.out {
        check_out_file("--out", out)?;
        // The settings beside the rows are read too (the baselines).
        let settings = runs.with_file_name(CONFIG);
        check_output_is_not_an_input(
            "--out",
            out,
            &[
                ("rows", &runs.to_string_lossy()),
                ("settings", &settings.to_string_lossy()),
            ],
        )?;
    }
    let finalized = read_finalized(&runs, Settings::Required)?;
    if !matches!(args.value, Value::Peak) && !matches!(args.unit, Unit::Auto) {
        note!("warning: --unit applies to peaks only; --value is not `peak`");
    }
    // The directory's config, when it reads: what it plans.
    let config = crate::experiment::Config::load(&runs.with_file_name(CONFIG)).ok();
    let unrun = config
        .as_ref()
        .and_then(|config| unrun_solves(&runs, config, &finalized));
    let opts = Options {
        value: match args.value {
            Value::Peak => table::Value::Peak,
            Value::Reduction => table::Value::Reduction,
            Value::Gap => table::Value::Gap,
            Value::Time => table::Value::Time,
        },
        solvers: args.solver.iter().map(|s| spelled_as_rows(s)).collect(),
        graphs: args.graph,
        unit: match args.unit {
            Unit::Auto => table::Unit::Auto,
            Unit::B => table::Unit::B,
            Unit::KiB => table::Unit::KiB,
            Unit::MiB => table::Unit::MiB,
            Unit::GiB => table::Unit::GiB,
        },
        format: match args.format {
            Format::Markdown => table::Format::Markdown,
            Format::Csv => table::Format::Csv,
            Format::Latex => table::Format::Latex,
        },
        by_family: args.by_family,
        planned: config.as_ref().map_or_else(Vec::new, planned_solvers),
    };
    let t = table::build(&finalized, &opts)
        .map_err(|e| InvalidInput(format!("{}: {e}", runs.display())))?;
    match unrun {
        Some(Ok((0, _))) => {}
        Some(Ok((missing, planned))) => note!(
            "warning: {}: {missing} of the {planned} solves its config.toml plans have no row \
             yet (a run not finished, or graphs or solvers added since: `memsched run` again \
             fills them); a cell without one shows `-`, and a graph without any row is not \
             shown",
            runs.display()
        ),
        // Graphs without any row would go unseen: say the check was not made.
        Some(Err(why)) => note!(
            "warning: {}: cannot tell whether every solve its config.toml plans has a row, as \
             its graphs cannot be listed from this directory ({why}); a graph without any row \
             is not shown: run `memsched table` from the directory the experiment ran in to \
             check{}",
            runs.display(),
            match t.missing {
                0 => String::new(),
                k => format!(" ({k} graph-solver pair(s) of the table have no row, shown as `-`)"),
            }
        ),
        None if t.missing > 0 => note!(
            "warning: {}: {} graph-solver pair(s) of the table have no row yet, shown as `-` \
             (a run not finished, or a graph or solver added since: `memsched run` again fills \
             them)",
            runs.display(),
            t.missing
        ),
        None => {}
    }
    let out = args.out.as_ref().map(|p| p.to_string_lossy().into_owned());
    emit(out.as_deref(), &t.render(opts.format))?;
    Ok(ExitCode::SUCCESS)
}

/// The `runs.csv` that `arg` names: a results directory's, or the file
/// itself; an error (invalid input) when there is none.
pub(super) fn runs_path(arg: &Path) -> Result<PathBuf, InvalidInput> {
    let runs = match arg.is_dir() {
        true => arg.join(RUNS),
        false => arg.to_path_buf(),
    };
    if !runs.is_file() {
        return Err(InvalidInput(format!(
            "{}: no such results directory or runs.csv (give the directory `memsched run` \
             wrote, e.g. results/quick)",
            runs.display()
        )));
    }
    Ok(runs)
}

/// How [`read_finalized`] takes a `config.toml` beside the rows that
/// does not read as TOML.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Settings {
    /// As an error: the baselines it names are needed.
    Required,
    /// With a warning, taking the rows' own baselines.
    IfReadable,
}

/// The rows of `runs`, each solve's first, as the final pass leaves them:
/// rows a run appended but whose final pass did not run (a run in progress
/// or killed) have no reductions or gaps yet, so they are filled from the
/// directory's baselines (see [`Settings`]). Refuses a file most of whose
/// lines are not rows; warns about lines that are not rows, repeated
/// solves and a last line cut short.
pub(super) fn read_finalized(runs: &Path, settings: Settings) -> anyhow::Result<Vec<rows::Row>> {
    let read =
        rows::read_rows_checked(runs).with_context(|| format!("cannot read {}", runs.display()))?;
    read.refuse_if_mostly_rejected(
        runs,
        "is it the runs.csv `memsched run` writes? Give that file, or its directory",
    )
    .map_err(|e| InvalidInput(e.to_string()))?;
    if let Some((line, why)) = &read.first_problem {
        note!(
            "warning: {}: {} line(s) are not rows and are left out (line {line}: {why})",
            runs.display(),
            read.rejected.len()
        );
    }
    if read.conflicting > 0 {
        note!(
            "warning: {}: {} row(s) repeat a solve already in it with another status, peak or \
             bound (joined or edited by hand?): each solve's first row is the one shown",
            runs.display(),
            read.conflicting
        );
    }
    warn_if_cut(runs)?;
    let baselines = match (baselines(runs, &read.rows), settings) {
        (Ok(named), _) => named,
        (Err(e), Settings::Required) => return Err(e),
        (Err(e), Settings::IfReadable) => {
            note!(
                "warning: {}; the rows' own baselines are used",
                super::error_message(&e)
            );
            rows_baselines(&read.rows)
        }
    };
    Ok(rows::finalize(read.rows, &baselines))
}

/// The baselines of the experiment whose rows are `runs`: its results
/// directory's `config.toml`, beside the file; without one, the baselines
/// the rows name (in the order they first name them), else `program`, as
/// a config's default.
fn baselines(runs: &Path, rows: &[rows::Row]) -> anyhow::Result<Vec<String>> {
    let config = runs.with_file_name(CONFIG);
    if config.is_file() {
        // Read as TOML, not as a config to run: one whose solvers this
        // binary cannot build (a solver a program registered, `orders:`
        // files moved since) still names its baselines.
        let text = std::fs::read_to_string(&config)
            .with_context(|| format!("cannot read {}", config.display()))?;
        let table: toml::Table = toml::from_str(&text)
            .map_err(|e| InvalidInput(format!("{} is not TOML: {e}", config.display())))?;
        let named = match table.get("baselines").and_then(toml::Value::as_array) {
            Some(list) => list
                .iter()
                .filter_map(toml::Value::as_str)
                .map(spelled_as_rows)
                .collect(),
            None => vec!["program".to_string()],
        };
        return Ok(named);
    }
    Ok(rows_baselines(rows))
}

/// The baselines `rows` name, in the order they first name them, else
/// `program`, as a config's default.
fn rows_baselines(rows: &[rows::Row]) -> Vec<String> {
    let mut named: Vec<String> = Vec::new();
    for r in rows {
        if !r.baseline.is_empty() && !named.contains(&r.baseline) {
            named.push(r.baseline.clone());
        }
    }
    if named.is_empty() {
        named.push("program".into());
    }
    named
}

/// How many of the solves that the results directory's `config` plans have
/// no row among `rows`, and how many it plans; `None` for a shard's
/// directory (it holds only its share); `Some(Err(why))` when its plan
/// cannot be made from here (graph files relative to another directory).
fn unrun_solves(
    runs: &Path,
    config: &crate::experiment::Config,
    rows: &[rows::Row],
) -> Option<Result<(usize, usize), String>> {
    let shards = read_shards_file(runs.parent()?).ok()??;
    if !shards.shards.iter().any(|s| s == ALL_SHARDS) {
        return None;
    }
    let plan = match crate::experiment::Plan::new(config) {
        Ok(plan) => plan,
        Err(why) => return Some(Err(why)),
    };
    let present: std::collections::BTreeSet<rows::Key> = rows.iter().map(rows::Row::key).collect();
    Some(Ok((plan.items_without(&present).count(), plan.items.len())))
}

/// The solvers and baselines of the results directory's `config`, as the
/// rows spell them.
fn planned_solvers(config: &crate::experiment::Config) -> Vec<String> {
    config
        .all_solvers()
        .iter()
        .map(|s| spelled_as_rows(s))
        .collect()
}

/// A solver's name as the rows spell it (`rule: delta, id` is
/// `rule:delta,id`), where this binary can build it; else as given.
pub(super) fn spelled_as_rows(name: &str) -> String {
    let name = name.trim();
    crate::solvers::build(name).map_or_else(|_| name.to_string(), |s| s.name())
}

/// Warns when `runs` does not end with a newline: its last line, which a
/// killed run may have cut in the middle of a number, is left out.
fn warn_if_cut(runs: &Path) -> anyhow::Result<()> {
    let bytes = std::fs::read(runs).with_context(|| format!("cannot read {}", runs.display()))?;
    if bytes.last().is_some_and(|&b| b != b'\n') {
        let line = bytes.iter().filter(|&&b| b == b'\n').count() + 1;
        // One line that does not start as the header: not a runs.csv at all.
        let header = crate::experiment::rows::header();
        let header = header.trim_end().as_bytes();
        let prefix = &header[..header.len().min(bytes.len())];
        if line == 1 && !bytes.starts_with(prefix) {
            return Err(InvalidInput(format!(
                "{}: its one line (with no newline) is not the header of runs.csv: is it the \
                 runs.csv `memsched run` writes? Give that file, or its directory",
                runs.display()
            ))
            .into());
        }
        note!(
            "warning: {}: line {line}, the last, has no newline (a write a killed run cut \
             short, or an edit): it is left out; end it with a newline to count it",
            runs.display()
        );
    }
    Ok(())
}
