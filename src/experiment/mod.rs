//! Experiments: a TOML config in, `runs.csv`, `graphs.csv`, `summary.csv`,
//! plots and a README out.
//!
//! - [`config`] reads and validates `experiments/NAME.toml`.
//! - [`plan`] turns it into numbered work items (graph x solver x seed) and shards.
//! - [`runner`] runs the pending items in parallel, appending [`rows::Row`]s;
//!   [`results_dir`] names and guards the files of an output directory,
//!   [`records`] reads and writes its profiles and saved orders, and
//!   `resume` compares what a directory holds with the config run into it.
//! - [`progress`] shows how far a run is: a bar on a terminal, plain lines
//!   in a log.
//! - [`fingerprint`] digests a graph's content, so a resume notices a graph
//!   file edited since its rows were solved.
//! - [`finish()`] is the final pass: [`rows::finalize`] fills the per-graph
//!   columns, [`graphs`] combines each graph's rows (best peak, best lower
//!   bound, gap), then [`summary`], `plots` and [`report`] write their files.
//!   `plots` needs the `plots` feature; without it the README says the
//!   plots were not drawn.
//! - [`merge`] joins shard directories (of one config) and runs the final
//!   pass on the union, warning about items without a row.
//! - [`table`] pivots a directory's rows into a graphs x solvers table
//!   (Markdown, CSV or LaTeX), without solving again.
//! - [`diff`] compares two directories' rows solve by solve (before and
//!   after a change to a solver).

pub(crate) mod catch;
pub mod config;
pub mod diff;
mod drawing;
pub mod fingerprint;
mod finish;
pub mod graphs;
pub mod merge;
pub mod plan;
#[cfg(feature = "plots")]
pub mod plots;
pub(crate) mod progress;
pub mod records;
pub mod report;
pub mod results_dir;
mod resume;
pub mod rows;
pub mod runner;
mod seeds;
pub mod summary;
pub mod table;
mod warnings;
mod wildcard;

use std::path::Path;

use thiserror::Error;

use crate::text::one_line;
pub use config::{Config, ConfigError, PlotKind};
use finish::finish_with;
pub use finish::{finish, Finished, GRAPHS};
pub use plan::{Plan, Shard};
pub use resume::settings_differences;
pub use rows::Row;
pub use runner::{run, RunOptions, RunSummary};
pub use seeds::Seeds;

/// Why an experiment could not run or finish.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum ExperimentError {
    /// The config is unusable: it fails a parsed config's checks, or its
    /// graphs or solvers cannot be planned (a missing graph file, an empty
    /// glob, no graphs; invalid input).
    #[error("{0}")]
    Config(String),
    /// Graphs that cannot be loaded, or that differ from the graphs their
    /// recorded rows were solved on (invalid input).
    #[error("{0}")]
    Graphs(String),
    /// A results directory (the output, or a merge's input) cannot be used
    /// as it is: another experiment's, rows solved with other settings,
    /// records memsched did not write, held by another run (invalid input).
    #[error("{0}")]
    Directory(String),
    /// A [`RunOptions`] field names something the experiment does not
    /// have (`--redo` of a solver it does not run), or a merge is given no
    /// directory or one twice (invalid input).
    #[error("{0}")]
    Options(String),
    /// The worker threads could not be started (the system's error).
    #[error("cannot start threads: {0}")]
    Threads(String),
    /// A file operation failed: `op` says which ("read", "write", ...).
    #[error("cannot {op} {path}: {source}")]
    Io {
        /// The operation, as the message words it: `read`, `write`,
        /// `open`, `create directory`, `rename to`, ...
        op: &'static str,
        /// The file or directory it was applied to, as displayed.
        path: String,
        /// The operating system's error.
        source: std::io::Error,
    },
    /// A plot could not be drawn: `plot` is its file's path.
    #[error("plot {plot}: {message}")]
    Plot {
        /// Path of the PNG or SVG file being drawn.
        plot: String,
        /// The plotting library's error, or a bad file extension.
        message: String,
    },
    /// memsched's own code panicked outside a solve (a bug): the message.
    #[error("internal error (a memsched bug, please report it): {0}")]
    Internal(String),
    /// The final pass failed on a file (`error`) after every row was
    /// saved in `runs`; `again` tells how to finish it.
    #[error(
        "{error}; the final pass (summaries, plots, README) did not finish, but every row \
         is saved in {runs}: {again}"
    )]
    FinalPass {
        /// The `runs.csv` that holds the rows, as displayed.
        runs: String,
        /// What to do once the cause is fixed.
        again: &'static str,
        /// The error that stopped the pass: a file or plot error (in the
        /// message, not as a `source`, so that it is told once).
        error: Box<ExperimentError>,
    },
}

impl ExperimentError {
    /// Whether the error is the user's input (a config, its graphs, an
    /// output directory or an option), not the system's or memsched's:
    /// the command line's exit code 2.
    pub fn is_invalid_input(&self) -> bool {
        matches!(
            self,
            ExperimentError::Config(_)
                | ExperimentError::Graphs(_)
                | ExperimentError::Directory(_)
                | ExperimentError::Options(_)
        )
    }

    /// Wraps an error of the final pass over `out` into
    /// [`ExperimentError::FinalPass`] when it is a file or plot error (the
    /// rows are then safe); others (a refused config, a bug) stay as they
    /// are, with their own exit codes.
    pub(crate) fn in_final_pass(self, out: &Path, again: &'static str) -> Self {
        match self {
            e @ (ExperimentError::Io { .. } | ExperimentError::Plot { .. }) => {
                ExperimentError::FinalPass {
                    runs: out.join(results_dir::RUNS).display().to_string(),
                    again,
                    error: Box::new(e),
                }
            }
            e => e,
        }
    }

    /// `op` (say, "read") failed on `path`.
    pub(crate) fn io(op: &'static str, path: &Path, source: std::io::Error) -> Self {
        ExperimentError::Io {
            op,
            path: path.display().to_string(),
            source,
        }
    }
}
