//! `memsched table`: a results directory's rows as a graphs x solvers
//! table (Markdown, CSV or LaTeX), without solving again.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context as _;
use clap::ValueEnum;

use memsched::experiment::rows;
use memsched::experiment::table::{self, Options};

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
  memsched table results/seed_table --format latex -o table.tex")]
pub struct Args {
    /// A results directory (of `memsched run` or `merge`), or its runs.csv.
    #[arg(value_name = "DIR")]
    results: PathBuf,
    /// What a cell shows.
    #[arg(long, value_enum, default_value = "peak")]
    value: Value,
    /// A solver to show as a column (repeat it; columns in this order).
    /// Default: every solver of the rows, in the config's order.
    #[arg(long, short, value_name = "NAME")]
    solver: Vec<String>,
    /// Graphs to show, by name; `*` matches any run of characters
    /// (`'random-layered*'`). Repeat it for several. Default: every graph.
    #[arg(long, value_name = "PATTERN")]
    graph: Vec<String>,
    /// Output format. Markdown and LaTeX mark each graph's best cell in
    /// bold and proven optima with `*`; CSV holds plain numbers (peaks in
    /// bytes unless --unit says otherwise).
    #[arg(long, value_enum, default_value = "markdown")]
    format: Format,
    /// Unit of peak cells. `auto`: one unit for the table, the largest
    /// that keeps its largest peak at 1 or more (bytes in CSV).
    #[arg(long, value_enum, default_value = "auto")]
    unit: Unit,
    /// Write the table to this file instead of standard output.
    #[arg(long, short, value_name = "FILE")]
    out: Option<PathBuf>,
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let runs = if args.results.is_dir() {
        args.results.join(memsched::experiment::results_dir::RUNS)
    } else {
        args.results.clone()
    };
    if !runs.is_file() {
        return Err(InvalidInput(format!(
            "{}: no such results directory or runs.csv (give the directory `memsched run` \
             wrote, e.g. results/quick)",
            runs.display()
        ))
        .into());
    }
    if let Some(out) = &args.out {
        check_out_file("--out", out)?;
        check_output_is_not_an_input("--out", out, &[("the rows", &runs.to_string_lossy())])?;
    }
    let read = rows::read_rows_checked(&runs)
        .with_context(|| format!("cannot read {}", runs.display()))?;
    if let Some((line, why)) = &read.first_problem {
        note!(
            "warning: {}: {} line(s) are not rows and are left out (line {line}: {why})",
            runs.display(),
            read.rejected.len()
        );
    }
    let opts = Options {
        value: match args.value {
            Value::Peak => table::Value::Peak,
            Value::Reduction => table::Value::Reduction,
            Value::Gap => table::Value::Gap,
            Value::Time => table::Value::Time,
        },
        solvers: args.solver,
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
    };
    let t = table::build(&read.rows, &opts)
        .map_err(|e| InvalidInput(format!("{}: {e}", runs.display())))?;
    let out = args.out.as_ref().map(|p| p.to_string_lossy().into_owned());
    emit(out.as_deref(), &t.render(opts.format))?;
    Ok(ExitCode::SUCCESS)
}
