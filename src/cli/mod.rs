//! The `memsched` command line, as a library function: [`main`] is the
//! binary's whole `main`, so a program of your own can register solvers
//! ([`solvers::register`](crate::solvers::register)) and then hand over,
//! and `memsched schedule -s NAME`, `memsched run` and `memsched solvers`
//! know them:
//!
//! ```no_run
//! use memsched::graph::Graph;
//! use memsched::solvers::{self, Kahn, Outcome, Scheduler, SolveContext};
//!
//! /// Kahn's order under a name of its own (`name()` must return the
//! /// name it is registered under).
//! struct Mine;
//!
//! impl Scheduler for Mine {
//!     fn name(&self) -> String {
//!         "mine".into()
//!     }
//!     fn solve(&self, g: &Graph, ctx: &SolveContext) -> Outcome {
//!         Kahn.solve(g, ctx)
//!     }
//! }
//!
//! fn main() -> std::process::ExitCode {
//!     let make = |arg: Option<&str>| match arg {
//!         None => Ok(Box::new(Mine) as Box<dyn Scheduler>),
//!         Some(a) => Err(format!("takes no argument (got `{a}`)")),
//!     };
//!     solvers::register("mine", "Kahn's order, as an example", make).expect("a new name");
//!     memsched::cli::main()
//! }
//! ```
//!
//! Inside: one clap struct per subcommand (a module each), and here the
//! dispatch and the exit codes; what the commands share is in `input.rs`
//! (graphs and flag values read), `paths.rs` (outputs checked and
//! written) and `numbers.rs` (counts and sizes printed). Needs the `cli`
//! cargo feature.

/// `eprintln!` that cannot panic: a closed or full standard error (as in
/// `memsched run ... 2>&1 | true`) loses the message, not the command.
macro_rules! note {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stderr(), $($arg)*);
    }};
}

mod check;
mod compare;
mod input;
mod interrupt;
mod numbers;
mod paths;
mod saved_for;
mod schedule;
mod solvers;
mod trace;
mod validate;

// Corpus commands.
mod datasets;
mod gen;
mod transform;

// Experiment commands.
mod diff;
mod merge;
mod run;
mod table;

use std::path::Path;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

use crate::graph::GraphError;
use crate::solvers::SolverError;

pub(crate) use crate::text::{count, count_of};
pub(crate) use input::{read_graph, seed_value, threads_value, warn_if_oversubscribed};
pub(crate) use numbers::{human_bytes, percent};
pub(crate) use paths::{
    check_out_file, check_output_is_not_an_input, check_parent_dir, emit, is_broken_pipe,
    output_name, print_stdout, remove_stale_output, same_file, same_output,
};

/// memsched: find execution orders of computation graphs with the lowest peak memory.
///
/// Graphs are JSON files in the article's format: {"Nodes": [{"Id", "Op",
/// "Size"?, "BufId"?}], "Edges": [[u, v], ...]}. ALLOC adds Size bytes, FREE
/// releases its buffer, any other Op is compute. Edges are the only ordering
/// constraints. Exit codes: 0 success, 2 invalid input, 1 anything else;
/// `schedule` and `run` stopped by Ctrl-C, SIGTERM or SIGHUP end by the
/// signal (status 130, 143 or 129).
#[derive(Debug, Parser)]
#[command(name = "memsched", version, about, long_about, max_term_width = 100)]
pub(crate) struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub(crate) enum Command {
    /// Check that graph files are well formed and print each one's size and program-order peak.
    Validate(validate::Args),
    /// Schedule one graph with one solver (or compare several) and report the checked peaks.
    Schedule(schedule::Args),
    /// Check an order made elsewhere (ids in a file, or given) and report its peak, or what breaks it.
    Check(check::Args),
    /// List every solver with a one-line description.
    Solvers(solvers::Args),
    // Corpus commands.
    /// Generate a graph from a seeded family (`memsched gen --list` lists them).
    Gen(gen::Args),
    /// Re-encode the ALLOC nodes of a graph (anchored or floating).
    Transform(transform::Args),
    /// Print or update the tables of datasets/README.md.
    Datasets(datasets::Args),
    // Experiment commands.
    /// Run an experiment config (graphs x solvers x seeds) in parallel; resumes.
    ///
    /// Rows are appended to `runs.csv` as solves end; the final pass then
    /// writes the summaries, plots and README. Ctrl-C (or SIGTERM, SIGHUP)
    /// lets the solves in flight finish (each by the time limit) and starts
    /// no more; a second one (half a second or more later) ends at once.
    /// Either way the finished rows are kept, and the same command resumes
    /// the rest and writes the final pass.
    Run(run::Args),
    /// Join shard output directories into one results directory.
    Merge(merge::Args),
    /// Print a results directory as a graphs x solvers table (Markdown, CSV or LaTeX).
    Table(table::Args),
    /// Compare two results directories solve by solve (before and after a change).
    Diff(diff::Args),
}

/// The `memsched` binary: parses the process's arguments, runs the command
/// and returns its exit code (0 success, 2 invalid input, 1 otherwise; a
/// reader that closed standard output early counts as success; Ctrl-C in
/// `schedule` and `run` ends the process by the signal, 130 in a shell).
/// Errors go to standard error as `error: ...`.
pub fn main() -> ExitCode {
    main_from(std::env::args_os())
}

/// [`main`] with the arguments given (the first is the program's name, as
/// in `std::env::args_os`).
pub fn main_from<I, T>(args: I) -> ExitCode
where
    I: IntoIterator<Item = T>,
    T: Into<std::ffi::OsString> + Clone,
{
    let args = match Cli::try_parse_from(args) {
        Ok(args) => args,
        Err(err) => return usage_error_or_help(err),
    };
    match run(args) {
        Ok(code) => code,
        Err(err) if is_broken_pipe(&err) => ExitCode::SUCCESS,
        Err(err) => {
            // Not eprintln!: a closed standard error must not turn an
            // error's exit code into a panic's.
            note!("error: {}", error_message(&err));
            ExitCode::from(exit_code(&err))
        }
    }
}

/// Prints what clap has to say instead of running: `--help` and `--version`
/// on standard output (exit 0), a usage error on standard error (exit 2).
/// A failed write of the help is an error (exit 1), except to a reader that
/// closed the pipe early (`memsched --help | head`), as for every output.
fn usage_error_or_help(err: clap::Error) -> ExitCode {
    let code = err.exit_code() as u8;
    if let Some(tip) = subcommand_tip(&err) {
        note!("{}", with_tip(&err.render().to_string(), &tip));
        return ExitCode::from(code);
    }
    match err.print() {
        Ok(()) => ExitCode::from(code),
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => ExitCode::from(code),
        Err(e) if code == 0 => {
            note!("error: cannot write to standard output: {e}");
            ExitCode::FAILURE
        }
        Err(_) => ExitCode::from(code),
    }
}

/// Where a command a user may look for lives, for an unknown subcommand
/// of that name (clap's own tip only finds similar spellings: `trace`
/// would get `table`).
fn subcommand_tip(err: &clap::Error) -> Option<String> {
    use clap::error::{ContextKind, ContextValue, ErrorKind};
    if err.kind() != ErrorKind::InvalidSubcommand {
        return None;
    }
    let Some(ContextValue::String(name)) = err.get(ContextKind::InvalidSubcommand) else {
        return None;
    };
    let tip = match name.to_ascii_lowercase().as_str() {
        "trace" => "a schedule's step-by-step trace is `memsched schedule G.json -s SOLVER --trace FILE.csv`",
        "plot" => "`memsched schedule G.json -s SOLVER --plot FILE.svg` plots memory over the steps; `memsched run` draws an experiment's plots",
        "compare" => "`memsched schedule G.json -s A -s B` compares solvers on a graph; `memsched diff OLD NEW` compares two results directories",
        "solve" => "`memsched schedule G.json -s SOLVER` solves a graph",
        "list" => "`memsched solvers` lists the solvers, `memsched gen --list` the graph families",
        "resume" => "`memsched run CONFIG.toml` resumes a run into the same --out directory",
        "bench" | "benchmark" => "the benchmarks run with `cargo bench --no-default-features` (README, Speed)",
        _ => return None,
    };
    Some(format!("tip: {tip}"))
}

/// clap's error text with `tip` in place of its own tip of a similar
/// subcommand (`trace` would get `table`), or under its first line.
fn with_tip(text: &str, tip: &str) -> String {
    let mut lines: Vec<&str> = text.lines().collect();
    if let Some(i) = lines
        .iter()
        .position(|l| l.contains("a similar subcommand exists"))
    {
        lines.remove(i);
        if lines.get(i).is_some_and(|l| l.is_empty()) {
            lines.remove(i);
        }
    }
    let tip = format!("  {tip}");
    let at = 1.min(lines.len());
    lines.splice(at..at, ["", tip.as_str()]);
    lines.join("\n")
}

/// Runs a parsed command line.
pub(crate) fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    match cli.command {
        Command::Validate(a) => validate::run(a),
        Command::Schedule(a) => schedule::run(a),
        Command::Check(a) => check::run(a),
        Command::Solvers(a) => solvers::run(a),
        // Corpus commands.
        Command::Gen(a) => gen::run(a),
        Command::Transform(a) => transform::run(a),
        Command::Datasets(a) => datasets::run(a),
        // Experiment commands.
        Command::Run(a) => run::run(a),
        Command::Merge(a) => merge::run(a),
        Command::Table(a) => table::run(a),
        Command::Diff(a) => diff::run(a),
    }
}

/// Refuses `-o -` for a command that writes a directory: elsewhere `-`
/// means standard output, so a directory named `-` would surprise.
fn refuse_dash_directory(command: &str, out: &Path) -> Result<(), InvalidInput> {
    match out.as_os_str() == "-" {
        true => Err(InvalidInput(format!(
            "--out -: `{command}` writes a results directory (runs.csv, summaries, plots), \
             not standard output; name a directory (`--out ./-` for one named `-`)"
        ))),
        false => Ok(()),
    }
}

/// A user error that is not about a graph (a bad flag value, a bad config).
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub(crate) struct InvalidInput(pub String);

/// Exit code for an error: 2 for invalid input (a graph, a solver name, a
/// flag, a config, the datasets' manifests and tables), 1 otherwise.
pub(crate) fn exit_code(err: &anyhow::Error) -> u8 {
    let invalid = err.chain().any(|e| {
        e.is::<GraphError>()
            || e.is::<SolverError>()
            || e.is::<InvalidInput>()
            || e.downcast_ref::<crate::corpus::stats::StatsError>()
                .is_some_and(|e| !matches!(e, crate::corpus::stats::StatsError::Io { .. }))
    });
    if invalid {
        2
    } else {
        1
    }
}

/// The message of an error and its causes, `outer: inner: ...`, as anyhow's
/// `{:#}` prints it, except that a cause whose text already ends the message
/// is not repeated (an error type that prints its source in its own message,
/// such as `#[error("{path}: {source}")]`, would otherwise show it twice).
pub(crate) fn error_message(err: &anyhow::Error) -> String {
    let mut message = String::new();
    for cause in err.chain() {
        let text = cause.to_string();
        if message.ends_with(&text) {
            continue;
        }
        if !message.is_empty() {
            message.push_str(": ");
        }
        message.push_str(&text);
    }
    message
}

#[cfg(test)]
mod tests {
    use clap::CommandFactory as _;

    /// clap's own checks of the command line's definition (conflicting
    /// names, short flags used twice, defaults that do not parse...),
    /// which it otherwise makes only when that subcommand is run.
    #[test]
    fn the_command_line_is_well_formed() {
        super::Cli::command().debug_assert();
    }

    /// Every flag's `-h` line is its doc's first paragraph: one short
    /// summary, the details left to `--help`.
    #[test]
    fn short_help_is_short() {
        for name in ["schedule", "run", "check"] {
            let mut cli = super::Cli::command();
            let sub = cli.find_subcommand_mut(name).unwrap();
            let short = sub.render_help().to_string();
            assert!(short.lines().count() <= 32, "{name} -h:\n{short}");
            let long = sub.render_long_help().to_string();
            assert!(
                long.lines().count() > short.lines().count(),
                "{name} --help"
            );
        }
    }
}
