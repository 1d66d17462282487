//! What the commands read: a graph file or a generated graph's name, and
//! the values of `--seed` and `--threads`.

use crate::graph::lint::lint;
use crate::graph::{seed, Graph, GraphError};

use super::{gen, saved_for, InvalidInput};

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

/// Warns about a valid graph that is likely not what its writer meant:
/// each of [`lint`]'s warnings (no edge, a FREE or compute node with an
/// ignored `Size`, a misspelt field, ...), one line each.
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
