//! The final pass over a results directory: rewrites `runs.csv` with its
//! per-graph columns filled, then writes `graphs.csv`, `summary.csv`, the
//! plots and `README.md`, and gathers the warnings for the user.

use std::path::Path;

use super::warnings::{
    identical_graphs_warning, leftover_note, no_baseline_warning, overrun_warning, refuted_warning,
};
use super::{drawing, graphs, report, results_dir, rows, summary, Config, ExperimentError, Plan};

/// The per-graph file of a results directory ([`graphs::GraphSummary`]).
pub const GRAPHS: &str = "graphs.csv";

/// What the final pass wrote.
#[derive(Debug, Clone, Default)]
pub struct Finished {
    /// Rows of the rewritten `runs.csv`, rows of solvers or graphs no
    /// longer in the config included.
    pub rows: usize,
    /// Rows that show a solver bug ([`rows::is_broken`]), the final pass's
    /// refuted bounds included.
    pub broken: usize,
    /// Plot files written (PNG and SVG).
    pub plots: Vec<String>,
    /// Things the caller should tell the user: graphs without a valid
    /// baseline, and for `merge` items without a row.
    pub warnings: Vec<String>,
    /// Solves of the plan without a row, as `merge` counts them; `None`
    /// where they are not counted (`run`, or a merge whose plan cannot be
    /// made here).
    pub missing: Option<usize>,
}

/// The final pass over a results directory: recomputes the per-graph columns
/// of `runs.csv` and rewrites it sorted, then writes `graphs.csv`,
/// `summary.csv`, the plots and `README.md`. A config built or changed
/// in code is checked, and its solver names read, as a parsed one's (as
/// [`run`](super::run) does).
pub fn finish(out: &Path, config: &Config) -> Result<Finished, ExperimentError> {
    let config = config
        .checked_as_parsed()
        .map_err(ExperimentError::Config)?;
    finish_with(out, &config, None, None)
}

/// [`finish`], given the config's plan if the caller has it (so that it
/// is not built again to learn the default Tetris graph), and, for the
/// results of part of the experiment (a shard, an incomplete merge),
/// `partial`: what they lack, said at the top of the README.
pub(super) fn finish_with(
    out: &Path,
    config: &Config,
    plan: Option<&Plan>,
    partial: Option<&str>,
) -> Result<Finished, ExperimentError> {
    let runs = out.join(results_dir::RUNS);
    let rows = rows::read_rows(&runs).map_err(|e| ExperimentError::io("read", &runs, e))?;
    let rows = rows::finalize(rows, &config.baselines);
    rows::write_rows(&runs, &rows).map_err(|e| ExperimentError::io("write", &runs, e))?;
    let graph_summary = graphs::summarize(&rows);
    let path = out.join(GRAPHS);
    graphs::write(&path, &graph_summary).map_err(|e| ExperimentError::io("write", &path, e))?;
    let order = config.all_solvers();
    let summary = summary::summarize(&rows, &order, &graph_summary);
    let path = out.join("summary.csv");
    summary::write(&path, &summary).map_err(|e| ExperimentError::io("write", &path, e))?;
    let drawn = drawing::draw(out, config, &rows, &order, plan)?;
    let mut warnings: Vec<String> = no_baseline_warning(&rows, config).into_iter().collect();
    warnings.extend(drawn.warnings);
    warnings.extend(graphs::conflicts(&graph_summary));
    warnings.extend(identical_graphs_warning(out, &rows));
    warnings.extend(overrun_warning(&rows, config.time_limit()));
    warnings.extend(refuted_warning(&rows));
    // Said on standard error as well as in the README: rows the config
    // no longer asks for still count in the summaries.
    let leftover = leftover_note(&rows, &order, plan);
    warnings.extend(leftover.clone());
    let caveats = report::Caveats {
        partial,
        leftover,
        plots: drawn.note,
    };
    let readme = report::readme(
        config,
        &rows,
        &graph_summary,
        &summary,
        &order,
        &drawn.files,
        &caveats,
    );
    let path = out.join("README.md");
    crate::output::write_file(&path, |w| std::io::Write::write_all(w, readme.as_bytes()))
        .map_err(|e| ExperimentError::io("write", &path, e))?;
    Ok(Finished {
        rows: rows.len(),
        broken: rows.iter().filter(|r| rows::is_broken(r)).count(),
        plots: drawn.files,
        warnings,
        missing: None,
    })
}
