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
//! Inside: one clap struct per subcommand, and the dispatch. Needs the
//! `cli` cargo feature.

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
mod interrupt;
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

use crate::graph::lint::lint;
use crate::graph::{seed, Graph, GraphError};
use crate::solvers::SolverError;

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
    /// Check an order made elsewhere (ids in a file) and report its peak, or what breaks it.
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

/// Removes a file an earlier run left at `path`, an output this run does
/// not write (a stale trace beside a new report is easily misread): the
/// clause a warning adds to say so, or an empty one. Only a regular file
/// that starts as such an output does (a trace's CSV header, a PNG, an
/// SVG) is removed: the path may name any file, an input among them.
pub(crate) fn remove_stale_output(path: &std::path::Path) -> String {
    use std::io::Read;
    const STARTS: [&[u8]; 4] = [b"step,id,op,", b"\x89PNG", b"<svg", b"<?xml"];
    let mut head = [0u8; 16];
    let is_ours = std::fs::symlink_metadata(path).is_ok_and(|m| m.is_file())
        && std::fs::File::open(path)
            .and_then(|mut f| f.read(&mut head))
            .is_ok_and(|n| STARTS.iter().any(|s| head[..n].starts_with(s)));
    if !is_ours {
        return String::new();
    }
    match std::fs::remove_file(path) {
        Ok(()) => "; the one an earlier run left there is removed".into(),
        Err(e) => format!("; the one an earlier run left there stays ({e})"),
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

/// Reads and validates the graph file `path` (`-`: standard input); errors
/// name the file (see [`graph_error`]). Where no file has the name and it
/// is a generated graph's name as `runs.csv` gives it (`SPEC#SEED`), the
/// graph is generated.
pub(crate) fn read_graph(path: &str) -> anyhow::Result<Graph> {
    if let Some(g) = generated_graph(path)? {
        return Ok(g);
    }
    if let Some(hint) = spec_without_seed(path) {
        return Err(InvalidInput(hint).into());
    }
    let g = seed::read_path(path).map_err(|e| graph_error(path, e))?;
    warn_about_graph(path, &g);
    Ok(g)
}

/// When no file is named `path` but it is a spec of a generator family
/// without a seed (`chain:length=10`), the error that says how to name its
/// graph.
fn spec_without_seed(path: &str) -> Option<String> {
    if path == "-" || std::path::Path::new(path).exists() {
        return None;
    }
    let spec = crate::corpus::gen::GenSpec::parse(path).ok()?;
    crate::corpus::gen::family(&spec.family).ok()?;
    Some(format!(
        "{path}: no such file; a generated graph is named with its seed, e.g. `{path}#0` \
         (`memsched gen --list` lists the families)"
    ))
}

/// The graph a generated graph's name (`SPEC#SEED`, as in `runs.csv`)
/// stands for, when no file has that name; `None` for a file or a name of
/// another shape (see [`saved_for::generated_name`]).
fn generated_graph(path: &str) -> anyhow::Result<Option<Graph>> {
    let not_a_name = |e: &dyn std::fmt::Display| {
        InvalidInput(format!(
            "{path}: no such file, and not a generated graph's name (SPEC#SEED): {e}"
        ))
    };
    let (spec, seed) = match saved_for::generated_name(path) {
        None => return Ok(None),
        Some(Err(e)) => return Err(not_a_name(&e).into()),
        Some(Ok(named)) => named,
    };
    let g = crate::corpus::gen::generate(&spec, seed).map_err(|e| not_a_name(&e))?;
    note!("{path}: no such file; generated ({spec}, seed {seed}), as `memsched gen` would");
    gen::warn_if_seed_ignored(&spec, seed, &g);
    Ok(Some(g))
}

/// Warns about a valid graph that is likely not what its writer meant
/// (see [`lint`]): no edge, a FREE or compute node with an ignored `Size`.
pub(crate) fn warn_about_graph(path: &str, g: &Graph) {
    let name = saved_for::shown(path);
    for warning in lint(g) {
        note!("warning: {name}: {warning}");
    }
}

/// A graph error with the file it came from: `PATH is not a valid graph: ...`
/// (an unreadable file is already named by the error itself).
pub(crate) fn graph_error(path: &str, e: GraphError) -> anyhow::Error {
    match e {
        GraphError::Io { .. } => anyhow::Error::new(e),
        e => {
            let name = saved_for::shown(path);
            anyhow::Error::new(e).context(format!("{name} is not a valid graph"))
        }
    }
}

/// Checks a `--seed` value read as i128 (so that clap accepts `-1` and this
/// says what is wrong with it instead of "unexpected argument").
pub(crate) fn seed_value(seed: i128) -> Result<u64, InvalidInput> {
    u64::try_from(seed).map_err(|_| {
        InvalidInput(format!(
            "--seed must be a non-negative integer (0 to {}), got {seed}",
            u64::MAX
        ))
    })
}

/// Most worker threads `--threads` accepts (each is an OS thread).
pub(crate) const MAX_THREADS: usize = 4096;

/// Checks a `--threads` value (`run`, `schedule`): at least 1, at most
/// [`MAX_THREADS`]. Left out, `RAYON_NUM_THREADS` stands for it when set to
/// a positive number (held to the same cap: 20,000 threads took a run over
/// a minute); set to 0 or empty, or unset, `None`: rayon's default of every
/// core. Any other value is an error (rayon would ignore it silently).
pub(crate) fn threads_value(threads: Option<usize>) -> Result<Option<usize>, InvalidInput> {
    if let Some(n) = threads {
        return match n {
            0 => Err(InvalidInput("--threads must be at least 1".into())),
            n if n > MAX_THREADS => Err(InvalidInput(format!(
                "--threads {n}: at most {MAX_THREADS}"
            ))),
            n => Ok(Some(n)),
        };
    }
    let Ok(text) = std::env::var("RAYON_NUM_THREADS") else {
        return Ok(None);
    };
    match text.trim() {
        "" | "0" => Ok(None),
        t => match t.parse::<usize>() {
            Ok(n) if n <= MAX_THREADS => Ok(Some(n)),
            _ => Err(InvalidInput(format!(
                "RAYON_NUM_THREADS={text}: a number of worker threads from 1 to {MAX_THREADS} \
                 (0 or unset: one per core)"
            ))),
        },
    }
}

/// Warns when a pool of `n` worker threads (from `--threads` or
/// `RAYON_NUM_THREADS`) is many times the cores (see
/// [`runner::oversubscribed`](crate::experiment::runner::oversubscribed)).
pub(crate) fn warn_if_oversubscribed(n: usize) {
    let cores = std::thread::available_parallelism().map_or(1, |c| c.get());
    if let Some(w) = crate::experiment::runner::oversubscribed(n, cores) {
        note!("warning: {w}");
    }
}

/// Writes `text` to `path`, or standard output when `path` is `None` or `-`.
pub(crate) fn emit(path: Option<&str>, text: &str) -> anyhow::Result<()> {
    use anyhow::Context;
    match path {
        None | Some("-") => print_stdout(text),
        Some(p) => crate::output::write_file(std::path::Path::new(p), |w| {
            std::io::Write::write_all(w, text.as_bytes())
        })
        .with_context(|| format!("cannot write {p}")),
    }
}

/// Writes `text` to standard output. A failed write is an error (`cannot
/// write to standard output: ...`), not a panic as `print!` makes it; a
/// reader that closed the pipe early ends the command quietly (see
/// [`is_broken_pipe`]).
pub(crate) fn print_stdout(text: &str) -> anyhow::Result<()> {
    use anyhow::Context;
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes())
        .and_then(|()| out.flush())
        .context("cannot write to standard output")
}

/// Refuses an output file (`flag` is `--out` or `--plot`) that is one of
/// the command's `inputs` (each a role such as `graph` and a path; `-` is
/// standard input, compared when it is redirected from a file): the report
/// would replace the file it was made from. An output of `-` (standard
/// output) is never refused, nor one that is not an existing regular file
/// (a new file, `/dev/null`, a pipe): writing there destroys nothing.
/// Called before any input is read or solved.
pub(crate) fn check_output_is_not_an_input(
    flag: &str,
    out: &std::path::Path,
    inputs: &[(&str, &str)],
) -> Result<(), InvalidInput> {
    if out.as_os_str() == "-" || !out.is_file() {
        return Ok(());
    }
    for &(role, input) in inputs {
        if same_file(out, std::path::Path::new(input)) {
            let shown = if input == "-" {
                "standard input (redirected from it)"
            } else {
                input
            };
            return Err(InvalidInput(format!(
                "{flag} {}: it is the {role} file, {shown}: writing there would replace the \
                 {role}; name another file",
                out.display()
            )));
        }
    }
    Ok(())
}

/// Whether the existing file `out` is the input `input` (`-`: standard
/// input). On Unix: the same device and inode, so a hard link, a symbolic
/// link or a redirection of standard input counts. Elsewhere: the same
/// canonical path (standard input is never compared).
pub(crate) fn same_file(out: &std::path::Path, input: &std::path::Path) -> bool {
    let stdin = input.as_os_str() == "-";
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt as _;
        let meta = if stdin {
            use std::os::fd::AsFd as _;
            std::io::stdin()
                .as_fd()
                .try_clone_to_owned()
                .and_then(|fd| std::fs::File::from(fd).metadata())
        } else {
            std::fs::metadata(input)
        };
        match (std::fs::metadata(out), meta) {
            (Ok(a), Ok(b)) => a.dev() == b.dev() && a.ino() == b.ino(),
            _ => false,
        }
    }
    #[cfg(not(unix))]
    {
        !stdin
            && matches!(
                (std::fs::canonicalize(out), std::fs::canonicalize(input)),
                (Ok(a), Ok(b)) if a == b
            )
    }
}

/// Refuses a `flag` output file that is a directory or lies in no
/// directory, before any work (a long solve would otherwise end in "cannot
/// write").
pub(crate) fn check_out_file(flag: &str, path: &std::path::Path) -> Result<(), InvalidInput> {
    if path.is_dir() {
        return Err(InvalidInput(format!(
            "{flag} {}: it is a directory: name a file",
            path.display()
        )));
    }
    check_parent_dir(flag, path)
}

/// Refuses a `flag` file whose directory does not exist, an empty name, or
/// a name that can only be a directory (`r.txt/`, `r.txt/.`: `parent`
/// hides the separator); a symbolic link is judged by where it leads (a
/// dangling one by its target's directory, a loop refused).
pub(crate) fn check_parent_dir(flag: &str, path: &std::path::Path) -> Result<(), InvalidInput> {
    let refuse = |why: String| Err(InvalidInput(format!("{flag} {}: {why}", path.display())));
    if path.as_os_str().is_empty() {
        return Err(InvalidInput(format!("{flag} is empty: name a file")));
    }
    // Checked on the text: `components` drops a trailing `.`.
    let bytes = path.as_os_str().as_encoded_bytes();
    let last = bytes
        .rsplit(|&b| std::path::is_separator(b as char))
        .next()
        .unwrap_or_default();
    if matches!(last, b"" | b"." | b"..") {
        return refuse(
            "it names a directory (it ends in a separator, `.` or `..`): name a file".into(),
        );
    }
    let is_link = std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink());
    let target = match is_link {
        true => match std::fs::metadata(path) {
            Ok(_) => None,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => resolved_link(path),
            Err(e) => return refuse(format!("a symbolic link that cannot be followed: {e}")),
        },
        false => None,
    };
    let target = target.as_deref().unwrap_or(path);
    match target.parent() {
        Some(dir) if !dir.as_os_str().is_empty() && !dir.is_dir() => refuse(format!(
            "there is no directory {}{}",
            dir.display(),
            if is_link {
                " (where the link leads)"
            } else {
                ""
            }
        )),
        _ => Ok(()),
    }
}

/// Where `path` leads once every symbolic link is followed (a relative
/// target is relative to the link's directory, an absolute one replaces
/// the path): `path` itself when it is no link; `None` past 40 links, as
/// the kernel allows.
fn resolved_link(path: &std::path::Path) -> Option<std::path::PathBuf> {
    let mut path = path.to_path_buf();
    for _ in 0..40 {
        match std::fs::read_link(&path) {
            Ok(target) => path = path.parent()?.join(target),
            Err(_) => return Some(path),
        }
    }
    None
}

/// Whether two output paths, which need not exist yet, name one file:
/// compared after following symbolic links and resolving `.` and `..`
/// through the directories that exist, and as the same file (device and
/// inode on Unix) when both exist, so a hard link counts too.
pub(crate) fn same_output(a: &std::path::Path, b: &std::path::Path) -> bool {
    let both_exist = a.exists() && b.exists();
    if both_exist && same_file(a, b) {
        return true;
    }
    match (resolved(a), resolved(b)) {
        (Some(a), Some(b)) => a == b,
        _ => a == b,
    }
}

/// `path` made absolute with its links followed ([`resolved_link`]) and
/// its directory canonical; the file itself need not exist.
fn resolved(path: &std::path::Path) -> Option<std::path::PathBuf> {
    let path = resolved_link(&std::path::absolute(path).ok()?)?;
    if let Ok(canonical) = std::fs::canonicalize(&path) {
        return Some(canonical);
    }
    let dir = std::fs::canonicalize(path.parent()?).ok()?;
    Some(dir.join(path.file_name()?))
}

/// How an output path is named in messages: `-` is standard output.
pub(crate) fn output_name(path: &str) -> &str {
    if path == "-" {
        "to standard output"
    } else {
        path
    }
}

/// Whether `err` comes from writing to a pipe whose reader has gone, as in
/// `memsched schedule ... | head` (the only pipes memsched writes are its
/// standard output and error): the reader has what it wanted, so the command
/// stops without a message and exits 0, as ripgrep does.
pub(crate) fn is_broken_pipe(err: &anyhow::Error) -> bool {
    err.chain().any(|e| {
        e.downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    })
}

/// `1 node`, `2 nodes`: a count and its noun, plural unless the count is 1
/// (`s` added; [`count_of`] for other plurals).
pub(crate) fn count(n: usize, noun: &str) -> String {
    count_of(n, noun, &format!("{noun}s"))
}

/// `1 directory`, `2 directories`: a count and the noun's form for it.
pub(crate) fn count_of(n: usize, one: &str, many: &str) -> String {
    if n == 1 {
        format!("1 {one}")
    } else {
        format!("{n} {many}")
    }
}

/// Formats a percentage with two decimals (`12.35%`), or two significant
/// digits when it is not zero but would show as `0.00%` (`0.0040%`, and
/// below 0.0001% in scientific notation, `1.0e-7%`): an open gap must not
/// read as a closed one.
pub(crate) fn percent(x: f64) -> String {
    if x == 0.0 || x.abs() >= 0.005 {
        return format!("{x:.2}%");
    }
    // Rounded to two significant digits first, so that 9.99e-4 shows as
    // 0.0010, not 0.00100.
    let rounded: f64 = format!("{x:.1e}").parse().unwrap_or(x);
    if rounded.abs() < 1e-4 {
        return format!("{x:.1e}%");
    }
    let decimals = (1 - rounded.abs().log10().floor() as i32).max(0) as usize;
    format!("{rounded:.decimals$}%")
}

/// Formats a byte count as `123456 B (120.6 KiB)`.
pub(crate) fn human_bytes(b: u64) -> String {
    // Up to EiB: a graph's bytes stay below 2^63 (8 EiB).
    const UNITS: [&str; 6] = ["KiB", "MiB", "GiB", "TiB", "PiB", "EiB"];
    if b < 1024 {
        return format!("{b} B");
    }
    let mut x = b as f64;
    let mut unit = "B";
    for u in UNITS {
        if x < 1024.0 {
            break;
        }
        x /= 1024.0;
        unit = u;
    }
    format!("{b} B ({x:.1} {unit})")
}

#[cfg(test)]
mod tests {
    use super::human_bytes;

    /// Bytes read in the largest unit that keeps them at 1 or more, up to
    /// EiB (2^63 B read `8192.0 PiB`).
    #[test]
    fn byte_counts_read_in_their_unit() {
        assert_eq!(human_bytes(1023), "1023 B");
        assert_eq!(human_bytes(1536), "1536 B (1.5 KiB)");
        assert_eq!(human_bytes(1 << 63), "9223372036854775808 B (8.0 EiB)");
    }
}
