//! `memsched merge`: join shard outputs into one results directory.

use std::path::PathBuf;
use std::process::ExitCode;

use crate::experiment::merge;

use super::InvalidInput;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// Shard output directories of one config (each with runs.csv and config.toml).
    #[arg(value_name = "DIR", required = true)]
    dirs: Vec<PathBuf>,
    /// Where to write the merged runs.csv, summary, plots and README.
    #[arg(long, short, value_name = "DIR")]
    out: PathBuf,
    /// Exit with status 1 (after writing the merge) when some solve of the
    /// experiment has no row in the inputs, or when that cannot be checked
    /// here (the config's graph files are not found): for a pipeline that
    /// must not go on with a partial merge. Without it a partial merge is
    /// a warning and exits 0.
    #[arg(long)]
    complete: bool,
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    super::refuse_dash_directory("merge", &args.out)?;
    let done = merge::merge(&args.dirs, &args.out).map_err(|e| match e.is_invalid_input() {
        true => anyhow::Error::from(InvalidInput(e.to_string())),
        false => e.into(),
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
    if args.complete && done.missing != Some(0) {
        note!(
            "error: --complete: {}",
            match done.missing {
                Some(1) => "1 solve of the experiment has no row".into(),
                Some(k) => format!("{k} solves of the experiment have no row"),
                None => "cannot check that every solve of the experiment has a row".into(),
            }
        );
        return Ok(ExitCode::from(1));
    }
    Ok(ExitCode::SUCCESS)
}
