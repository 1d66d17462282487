//! `memsched datasets`: the tables of `datasets/README.md`, regenerated.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;

use crate::corpus::stats;

use super::InvalidInput;

/// Measure every committed graph (listed in `DIR/models/manifest.csv` and
/// `DIR/nas/manifest.csv`) and print the two markdown tables, or rewrite
/// them in place between the `<!-- BEGIN models-table -->` /
/// `<!-- BEGIN nas-table -->` markers of a document.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The datasets folder (a relative path is taken from the current
    /// directory: run from the repository root for the default).
    #[arg(long, default_value = "datasets")]
    dir: PathBuf,
    /// Rewrite the tables in this markdown file (e.g. datasets/README.md).
    #[arg(long, value_name = "README")]
    update: Option<PathBuf>,
    /// With --update: change nothing, exit 1 if the file is out of date.
    #[arg(long, requires = "update")]
    check: bool,
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    if let Some(path) = args.update.as_deref().filter(|p| !p.is_file()) {
        return Err(InvalidInput(format!(
            "--update {}: {}: name the markdown file whose tables to rewrite \
             (e.g. datasets/README.md)",
            path.display(),
            if path.exists() {
                "not a file"
            } else {
                "no such file"
            }
        ))
        .into());
    }
    for manifest in ["models/manifest.csv", "nas/manifest.csv"] {
        let path = args.dir.join(manifest);
        if !path.is_file() {
            return Err(InvalidInput(format!(
                "{} is missing: --dir must name the datasets folder (default `datasets`, \
                 relative to the current directory: run from the repository root)",
                path.display()
            ))
            .into());
        }
    }
    let models = stats::models_table(&args.dir.join("models"))?;
    let nas = stats::nas_table(&args.dir.join("nas"))?;
    let Some(path) = args.update else {
        super::print_stdout(&format!("## models\n\n{models}\n## nas\n\n{nas}"))?;
        return Ok(ExitCode::SUCCESS);
    };
    let doc = std::fs::read_to_string(&path)
        .with_context(|| format!("cannot read {}", path.display()))?;
    let in_doc = || path.display().to_string();
    let new = stats::replace_sections(&doc, &[("models-table", &models), ("nas-table", &nas)])
        .with_context(in_doc)?;
    if args.check {
        if new != doc {
            note!(
                "{} is out of date: run `memsched datasets --dir {} --update {}`",
                path.display(),
                args.dir.display(),
                path.display()
            );
            return Ok(ExitCode::from(1));
        }
        return Ok(ExitCode::SUCCESS);
    }
    if new == doc {
        note!("{}: the tables are up to date", path.display());
        return Ok(ExitCode::SUCCESS);
    }
    crate::output::write_file(&path, |w| std::io::Write::write_all(w, new.as_bytes()))
        .with_context(|| format!("cannot write {}", path.display()))?;
    note!("{}: tables rewritten", path.display());
    Ok(ExitCode::SUCCESS)
}
