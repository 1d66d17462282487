//! `memsched merge`: join shard outputs into one results directory.

use std::path::PathBuf;
use std::process::ExitCode;

use memsched::experiment::{merge, ExperimentError};

use super::InvalidInput;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// Shard output directories of one config (each with runs.csv and config.toml).
    #[arg(value_name = "DIR", required = true)]
    dirs: Vec<PathBuf>,
    /// Where to write the merged runs.csv, summary, plots and README.
    #[arg(long, short, value_name = "DIR")]
    out: PathBuf,
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let done = merge::merge(&args.dirs, &args.out).map_err(|e| match e {
        ExperimentError::Config(m) => anyhow::Error::from(InvalidInput(m)),
        e => e.into(),
    })?;
    for w in &done.warnings {
        note!("warning: {w}");
    }
    note!(
        "merged {} from {} into {} ({})",
        super::count(done.rows, "row"),
        super::count_of(args.dirs.len(), "directory", "directories"),
        args.out.display(),
        super::count(done.plots.len(), "plot file")
    );
    // As `run` does: shards are judged alone, so a bound one shard's row
    // claims above another shard's checked peak shows only here.
    if done.broken > 0 {
        note!(
            "error: {} merged row(s) hold an invalid order or a wrong bound, or a panic (see \
             `reason` in runs.csv)",
            done.broken
        );
        return Ok(ExitCode::from(1));
    }
    Ok(ExitCode::SUCCESS)
}
