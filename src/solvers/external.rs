//! `orders:PATH`: schedules made elsewhere (a compiler, a script, another
//! experiment), read from files and checked like any solver's, so that an
//! external heuristic sits in an experiment beside `exact` and the rest.
//!
//! PATH is either a directory holding one file per graph, `NAME.json`
//! (or `NAME.txt`, or `NAME`) in any format [`crate::order_file`] reads,
//! or a JSON Lines file of objects with `graph` and `order` fields (an
//! experiment's `orders.jsonl`); `orders:FILE.jsonl#SOLVER` keeps the
//! lines of one solver. NAME is the graph's name: an experiment item's
//! (a file's stem, `SPEC#SEED` for a generated graph) or, in `memsched
//! schedule`, the graph file's stem. Where several lines match, the one
//! whose `seed` is the solve's seed is taken.
//!
//! The row's time is memsched's reading time, not the external tool's.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

use serde_json::Value;

use super::{Outcome, Scheduler, SolveContext, SolverError};
use crate::graph::{Graph, NodeIdx};
use crate::input::{self, ReadError, Start, MAX_INPUT_BYTES};
use crate::order_file;

/// Where the orders come from.
#[derive(Debug)]
enum Source {
    /// One file per graph.
    Directory(PathBuf),
    /// A JSON Lines file, optionally one solver's lines only.
    Lines {
        path: PathBuf,
        solver: Option<String>,
    },
}

/// One line of a JSON Lines file: the solver and seed it was saved for,
/// and its ids.
#[derive(Debug)]
struct Line {
    solver: Option<String>,
    seed: Option<u64>,
    ids: Vec<i64>,
}

/// The `orders:PATH` solver (see the module docs).
#[derive(Debug)]
pub struct ExternalOrders {
    argument: String,
    source: Source,
    /// A JSON Lines file's lines (shared by every solver built on it).
    lines: Option<Arc<LinesFile>>,
    /// Some graph has several lines (of the chosen solver): they are told
    /// apart by seed, so an experiment runs this solver once per seed.
    seeded: bool,
}

/// `PATH` and the `SOLVER` of `PATH#SOLVER` (only after a `.jsonl` path:
/// a directory's name may hold a `#`), both trimmed.
fn split_argument(argument: &str) -> (&str, Option<&str>) {
    match argument.rsplit_once('#') {
        Some((path, solver)) if path.trim_end().ends_with(".jsonl") => {
            (path.trim(), Some(solver.trim()))
        }
        _ => (argument.trim(), None),
    }
}

/// The directory or `.jsonl` file that `orders:ARGUMENT` reads (for the
/// command line's check that it writes nowhere there, and a resume's that
/// it did not change since its rows).
pub(crate) fn source_path(argument: &str) -> &std::path::Path {
    std::path::Path::new(split_argument(argument).0)
}

/// The name's argument with spellings of one path made one (`./odir/` and
/// `odir` name one solver, so one column of an experiment): no surrounding
/// blanks, no leading `./`, no trailing `/`.
fn canonical_argument(argument: &str) -> String {
    let (path, solver) = split_argument(argument);
    let mut path = path;
    while let Some(rest) = path.strip_prefix("./") {
        path = rest;
    }
    let path = match path.trim_end_matches('/') {
        "" => path,
        trimmed => trimmed,
    };
    match solver {
        Some(solver) => format!("{path}#{}", canonical_solver(solver)),
        None => path.to_string(),
    }
}

/// A solver's name as the registry spells it (`noisy: delta, id` is
/// `noisy:delta,id`), where it builds; else as given, trimmed. An
/// `orders:` name is respelled without being built, and a name holding
/// one elsewhere (`anneal:orders:...`) is only trimmed: building either
/// reads a file, whose lines may name `orders:` solvers in turn (a file
/// that names itself would never end).
fn canonical_solver(name: &str) -> String {
    match super::split_name(name.trim()) {
        ("orders", Some(argument)) => format!("orders:{}", canonical_argument(argument)),
        // `anneal:orders:...` and the like would read a file too.
        _ if name.contains("orders:") => name.trim().to_string(),
        _ => super::build(name).map_or_else(|_| name.trim().to_string(), |s| s.name()),
    }
}

/// The spelling among `file`'s solvers of the solver `wanted` names: the
/// same text, else the first that names the same solver (lines written by
/// hand may spell it otherwise than memsched does); `wanted` itself when
/// none does.
fn spelling_in_file(file: &LinesFile, wanted: &str) -> String {
    if file.solvers.iter().any(|s| s == wanted) {
        return wanted.to_string();
    }
    let canonical = canonical_solver(wanted);
    (file.solvers.iter())
        .find(|s| canonical_solver(s) == canonical)
        .cloned()
        .unwrap_or_else(|| wanted.to_string())
}

/// A JSON Lines file's lines by graph name.
type ByGraph = HashMap<String, Vec<Line>>;

/// A JSON Lines file as read: its lines by graph name, the solvers its
/// lines name (sorted, each once), and which of them have several lines
/// for one graph.
#[derive(Debug)]
struct LinesFile {
    by_graph: ByGraph,
    solvers: Vec<String>,
    /// Solvers with some graph of several lines (sorted, each once).
    repeated_solvers: Vec<String>,
    /// Some graph has several lines, whatever their solvers.
    repeated: bool,
}

impl LinesFile {
    /// Whether some graph has several lines of `solver` (of any solver
    /// when `None`): then seeds tell them apart.
    fn seeded(&self, solver: Option<&str>) -> bool {
        match solver {
            None => self.repeated,
            Some(s) => self.repeated_solvers.iter().any(|r| r == s),
        }
    }
}

/// JSON Lines files read so far, by path: an experiment builds its solvers
/// once per solve, and a file of many orders is read once per process.
fn cached_lines(path: &Path) -> Result<Arc<LinesFile>, String> {
    static CACHE: OnceLock<Mutex<HashMap<PathBuf, Arc<LinesFile>>>> = OnceLock::new();
    let cache = CACHE.get_or_init(Default::default);
    if let Some(found) = cache.lock().unwrap_or_else(|e| e.into_inner()).get(path) {
        return Ok(Arc::clone(found));
    }
    let by_graph = read_lines(path)?;
    let mut solvers: Vec<String> = by_graph
        .values()
        .flatten()
        .filter_map(|l| l.solver.clone())
        .collect();
    solvers.sort_unstable();
    solvers.dedup();
    let mut repeated = false;
    let mut repeated_solvers = Vec::new();
    for of_graph in by_graph.values().filter(|lines| lines.len() > 1) {
        repeated = true;
        let mut named: Vec<&String> = of_graph.iter().filter_map(|l| l.solver.as_ref()).collect();
        named.sort_unstable();
        for pair in named.windows(2).filter(|p| p[0] == p[1]) {
            repeated_solvers.push(pair[0].clone());
        }
    }
    repeated_solvers.sort_unstable();
    repeated_solvers.dedup();
    let read = Arc::new(LinesFile {
        by_graph,
        solvers,
        repeated_solvers,
        repeated,
    });
    cache
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .insert(path.to_path_buf(), Arc::clone(&read));
    Ok(read)
}

impl ExternalOrders {
    /// The solver for `orders:ARGUMENT`: a directory, or a `.jsonl` file
    /// with an optional `#SOLVER`. Refuses a path that does not exist.
    pub fn new(argument: &str) -> Result<ExternalOrders, SolverError> {
        let bad = |message: String| SolverError::BadArgument {
            name: "orders".into(),
            message,
        };
        let (path, solver) = split_argument(argument);
        if solver == Some("") {
            return Err(bad(format!(
                "`{argument}` ends in `#` with no solver after it: name the solver whose lines \
                 to take (`{path}#exact`), or leave out the `#` for every line"
            )));
        }
        let path = PathBuf::from(path);
        let mut source = if path.is_dir() {
            if solver.is_some() {
                return Err(bad(format!(
                    "`#SOLVER` picks lines of a .jsonl file, and `{}` is a directory",
                    path.display()
                )));
            }
            Source::Directory(path)
        } else if path.is_file() {
            if path.extension().is_none_or(|e| e != "jsonl") {
                return Err(bad(format!(
                    "`{}` is a file but not a .jsonl file of {{graph, order}} lines: for one \
                     order per graph, give a directory of NAME.json files",
                    path.display()
                )));
            }
            Source::Lines {
                path,
                solver: solver.map(String::from),
            }
        } else {
            return Err(bad(format!(
                "`{}` is neither a directory of orders nor a .jsonl file (relative paths \
                 are read from the current directory)",
                path.display()
            )));
        };
        // A file's lines are read now: a malformed file is an error before
        // any solve, and whether seeds tell lines apart is known.
        let (lines, seeded) = match &mut source {
            Source::Directory(_) => (None, false),
            Source::Lines { path, solver } => {
                let lines = cached_lines(path).map_err(bad)?;
                if let Some(wanted) = solver {
                    *wanted = spelling_in_file(&lines, wanted);
                    check_solver_named(&lines, path, wanted).map_err(bad)?;
                }
                let seeded = lines.seeded(solver.as_deref());
                (Some(lines), seeded)
            }
        };
        Ok(ExternalOrders {
            argument: canonical_argument(argument),
            source,
            lines,
            seeded,
        })
    }

    /// The ids of graph `name`'s order, with the file they came from. A
    /// generated graph's name (`SPEC#SEED`) matches any spelling of its
    /// spec (its parameters in another order, its seed with leading zeros).
    fn ids_for(&self, name: &str, seed: u64) -> Result<(Vec<i64>, String), String> {
        let name = &canonical_graph_name(name);
        match &self.source {
            Source::Directory(dir) => {
                let candidates = ["json", "txt", ""].map(|ext| match ext {
                    "" => dir.join(name),
                    _ => dir.join(format!("{name}.{ext}")),
                });
                let mut found: Vec<PathBuf> =
                    candidates.into_iter().filter(|p| p.is_file()).collect();
                if found.is_empty() && name.contains('#') {
                    found = spelled_otherwise(dir, name);
                }
                let file = match found.as_slice() {
                    [] => {
                        return Err(format!(
                            "no order for graph `{name}` in {} (looked for {name}.json, \
                             {name}.txt and {name})",
                            dir.display(),
                        ))
                    }
                    [one] => one,
                    several => {
                        let names: Vec<String> =
                            several.iter().map(|p| p.display().to_string()).collect();
                        return Err(format!(
                            "{} files hold an order for graph `{name}`: {}; keep one",
                            several.len(),
                            names.join(", ")
                        ));
                    }
                };
                let text = read_text(file)?;
                let order = order_file::parse(&text)
                    .map_err(|e| format!("{} is not an order: {e}", file.display()))?;
                Ok((order.ids, file.display().to_string()))
            }
            Source::Lines { path, solver } => {
                let by_graph = &self.lines.as_deref().expect("read when built").by_graph;
                let lines: Vec<&Line> = by_graph
                    .get(name)
                    .into_iter()
                    .flatten()
                    .filter(|l| solver.is_none() || l.solver == *solver)
                    .collect();
                let whose = solver
                    .as_ref()
                    .map_or(String::new(), |s| format!(" and solver `{s}`"));
                let line = match lines.as_slice() {
                    [] => {
                        return Err(format!(
                            "no line for graph `{name}`{whose} in {}",
                            path.display()
                        ))
                    }
                    [one] => *one,
                    several => {
                        let mut solvers: Vec<&str> =
                            several.iter().filter_map(|l| l.solver.as_deref()).collect();
                        solvers.sort_unstable();
                        solvers.dedup();
                        if solvers.len() > 1 {
                            return Err(format!(
                                "{} lines for graph `{name}` in {} from solvers {}: pick one \
                                 with `orders:{}#SOLVER`",
                                several.len(),
                                path.display(),
                                solvers.join(", "),
                                path.display()
                            ));
                        }
                        let Some(line) = several.iter().find(|l| l.seed == Some(seed)) else {
                            return Err(format!(
                                "{} lines for graph `{name}`{whose} in {} and none for seed \
                                 {seed}",
                                several.len(),
                                path.display()
                            ));
                        };
                        *line
                    }
                };
                Ok((line.ids.clone(), path.display().to_string()))
            }
        }
    }
}

/// A generated graph's name (`SPEC#SEED`, the seed in decimal digits) as
/// an experiment spells it: the spec's parameters in their canonical
/// order and the seed as a number; any other name as it is.
fn canonical_graph_name(name: &str) -> String {
    match crate::corpus::gen::parse_graph_name(name) {
        Some(Ok((spec, seed))) => format!("{spec}#{seed}"),
        _ => name.to_string(),
    }
}

/// The order files in `dir` whose stem spells the generated graph `name`
/// (canonical) otherwise: `chain:length=4,allocs=anchored#0.json` for
/// `chain:allocs=anchored,length=4#0`.
fn spelled_otherwise(dir: &Path, name: &str) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut found: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_file())
        .filter(|p| {
            let file = p.file_name().map(|f| f.to_string_lossy().into_owned());
            let stem = file.as_deref().map(|f| {
                f.strip_suffix(".json")
                    .or_else(|| f.strip_suffix(".txt"))
                    .unwrap_or(f)
                    .to_string()
            });
            stem.is_some_and(|s| s.contains('#') && canonical_graph_name(&s) == name)
        })
        .collect();
    found.sort();
    found
}

/// The text of an order file, read as `check` reads one: a file whose
/// first bytes are not text is refused at once, one over
/// [`MAX_INPUT_BYTES`] before it is read.
fn read_text(path: &Path) -> Result<String, String> {
    input::read_text(path, MAX_INPUT_BYTES, Start::ORDER).map_err(|e| match e {
        ReadError::Io(e) => format!("cannot read {}: {e}", path.display()),
        e => format!("{} is not an order: {e}", path.display()),
    })
}

/// Refuses a `#SOLVER` that no line of the file has (a misspelling would
/// fail every solve), naming the solvers it has.
fn check_solver_named(file: &LinesFile, path: &Path, wanted: &str) -> Result<(), String> {
    let solvers = &file.solvers;
    if solvers.iter().any(|s| s == wanted) {
        return Ok(());
    }
    Err(match solvers.as_slice() {
        [] => format!(
            "no line of {} names a solver, so `#{wanted}` picks none: leave out the `#`",
            path.display()
        ),
        _ => format!(
            "no line of {} is of solver `{wanted}`; its solvers: {}",
            path.display(),
            solvers.join(", ")
        ),
    })
}

/// A JSON Lines file's orders by graph name; the error names the first
/// line that is not an object with a `graph` string and an `order` array.
fn read_lines(path: &Path) -> Result<ByGraph, String> {
    let text = read_text(path)?;
    let mut by_graph: ByGraph = HashMap::new();
    // (graph, solver, seed) -> line number: a repeat (two files joined)
    // would leave the choice between them to chance.
    let mut seen: HashMap<(String, Option<String>, Option<u64>), usize> = HashMap::new();
    for (i, raw) in text.lines().enumerate() {
        if raw.trim().is_empty() {
            continue;
        }
        let at = || format!("{} line {}", path.display(), i + 1);
        let value: Value =
            serde_json::from_str(raw).map_err(|e| format!("{} is not JSON: {e}", at()))?;
        let Some(graph) = value.get("graph").and_then(Value::as_str) else {
            return Err(format!("{} has no `graph` string", at()));
        };
        let order = order_file::parse(raw).map_err(|e| format!("{}: {e}", at()))?;
        let solver = value
            .get("solver")
            .and_then(Value::as_str)
            .map(String::from);
        let seed = value.get("seed").and_then(Value::as_u64);
        if let Some(first) = seen.insert((graph.to_string(), solver.clone(), seed), i + 1) {
            return Err(format!(
                "{} repeats line {first}: the same graph `{graph}`, solver and seed",
                at()
            ));
        }
        by_graph
            .entry(canonical_graph_name(graph))
            .or_default()
            .push(Line {
                solver,
                seed,
                ids: order.ids,
            });
    }
    Ok(by_graph)
}

impl Scheduler for ExternalOrders {
    fn name(&self) -> String {
        format!("orders:{}", self.argument)
    }

    fn abilities(&self) -> super::Abilities {
        super::Abilities {
            seeded: self.seeded,
            ..super::Abilities::default()
        }
    }

    fn solve(&self, g: &Graph, ctx: &SolveContext) -> Outcome {
        let Some(name) = ctx.graph_name.as_deref() else {
            return Outcome::failed(
                "orders: the graph has no name to look its order up by (read it from a file; \
                 in code, set `SolveContext::graph_name`)",
            );
        };
        let (ids, file) = match self.ids_for(name, ctx.seed) {
            Ok(found) => found,
            Err(reason) => return Outcome::failed(reason),
        };
        let order: Result<Vec<NodeIdx>, i64> =
            ids.iter().map(|&id| g.index_of(id).ok_or(id)).collect();
        match order {
            Ok(order) => Outcome::feasible(order).with_note(format!("read from {file}")),
            Err(id) => Outcome::failed(format!(
                "the order in {file} names id {id}, which is not a node of graph `{name}`"
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::corpus::gen::{generate, GenSpec};
    use crate::solvers::{run, Status};

    fn chain() -> Graph {
        generate(&GenSpec::parse("chain:length=2").unwrap(), 0).unwrap()
    }

    fn named(name: &str) -> SolveContext {
        SolveContext {
            graph_name: Some(name.into()),
            ..SolveContext::default()
        }
    }

    /// Spellings of one path name one solver.
    #[test]
    fn spellings_of_a_path_name_one_solver() {
        for (given, name) in [
            ("./odir/", "odir"),
            (" odir ", "odir"),
            ("././o/dir//", "o/dir"),
            ("/abs/dir/", "/abs/dir"),
            ("/", "/"),
            ("./r/orders.jsonl # kahn", "r/orders.jsonl#kahn"),
            // The solver as the registry names it.
            (
                "r/orders.jsonl#noisy: delta, id",
                "r/orders.jsonl#noisy:delta,id",
            ),
            (
                "r/orders.jsonl#anneal:length=2.0",
                "r/orders.jsonl#anneal:length=2",
            ),
            // An `orders:` solver is respelled, not built (not read).
            (
                "r/orders.jsonl#orders:./x.jsonl",
                "r/orders.jsonl#orders:x.jsonl",
            ),
            (
                "r/orders.jsonl#not a solver ",
                "r/orders.jsonl#not a solver",
            ),
        ] {
            assert_eq!(canonical_argument(given), name, "{given}");
        }
    }

    /// `FILE.jsonl#` with nothing after the `#` is refused (it was read as
    /// every line, without a word).
    #[test]
    fn an_empty_solver_after_the_hash_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("orders.jsonl");
        std::fs::write(&file, "").unwrap();
        let arg = format!("{}#", file.display());
        let err = ExternalOrders::new(&arg).expect_err("refused").to_string();
        assert!(err.contains("ends in `#` with no solver after it"), "{err}");
    }

    /// A directory's file is read and checked; a missing one, a wrong id
    /// and a graph without a name fail with reasons.
    #[test]
    fn a_directory_holds_one_order_per_graph() {
        let g = chain();
        let dir = tempfile::tempdir().unwrap();
        let program: Vec<String> = g.ids().iter().map(i64::to_string).collect();
        std::fs::write(
            dir.path().join("c.json"),
            format!("[{}]", program.join(",")),
        )
        .unwrap();
        std::fs::write(dir.path().join("bad.txt"), "0 1 99").unwrap();
        let solver = ExternalOrders::new(dir.path().to_str().unwrap()).unwrap();
        let r = run(&solver, &g, &named("c"));
        assert_eq!(r.status, Status::Feasible);
        assert_eq!(r.order.unwrap(), g.nodes().collect::<Vec<_>>());
        std::fs::write(dir.path().join("two.json"), "[0]").unwrap();
        std::fs::write(dir.path().join("two"), "0").unwrap();
        for (ctx, says) in [
            (named("other"), "no order for graph `other`"),
            (named("two"), "2 files hold an order for graph `two`"),
            (named("bad"), "names id 99"),
            (SolveContext::default(), "no name"),
        ] {
            let r = run(&solver, &g, &ctx);
            let reason = r.status.reason().unwrap_or_default().to_string();
            assert!(reason.contains(says), "{reason}");
        }
    }

    /// A generated graph's order is found under any spelling of its name
    /// (parameters in another order, a seed with leading zeros), in a
    /// directory's file names and in a `.jsonl` file's `graph` fields.
    #[test]
    fn a_generated_graphs_name_matches_in_any_spelling() {
        let spec = GenSpec::parse("random-layered:layers=3,width=2,allocs=floating").unwrap();
        let g = generate(&spec, 7).unwrap();
        let canonical = format!("{spec}#7");
        assert_eq!(
            canonical,
            "random-layered:allocs=floating,layers=3,width=2#7"
        );
        let ids: Vec<String> = g.ids().iter().map(i64::to_string).collect();
        let order = format!("[{}]", ids.join(","));
        let dir = tempfile::tempdir().unwrap();
        let spelled = "random-layered:width=2,layers=3,allocs=floating#07";
        std::fs::write(dir.path().join(format!("{spelled}.json")), &order).unwrap();
        let solver = ExternalOrders::new(dir.path().to_str().unwrap()).unwrap();
        let r = run(&solver, &g, &named(&canonical));
        assert_eq!(r.status, Status::Feasible, "{:?}", r.status);
        let lines = dir.path().join("o.jsonl");
        let line = format!("{{\"graph\": \"{spelled}\", \"order\": {order}}}\n");
        std::fs::write(&lines, line).unwrap();
        let solver = ExternalOrders::new(lines.to_str().unwrap()).unwrap();
        let r = run(&solver, &g, &named(&canonical));
        assert_eq!(r.status, Status::Feasible, "{:?}", r.status);
        // Another seed is another graph.
        let r = run(&solver, &g, &named(&canonical.replace("#7", "#8")));
        assert!(r
            .status
            .reason()
            .is_some_and(|why| why.contains("no line for graph")));
    }

    /// Order files are read as `check` reads them: a binary file is
    /// refused from its first bytes, naming the file, in a directory and
    /// as a `.jsonl` file.
    #[test]
    fn a_binary_file_is_not_an_order() {
        let g = chain();
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("c.json"), [0u8, 0, 0, 1]).unwrap();
        let solver = ExternalOrders::new(dir.path().to_str().unwrap()).unwrap();
        let reason = run(&solver, &g, &named("c")).status.to_string();
        assert!(
            reason.contains("c.json is not an order: it starts with byte 0x00"),
            "{reason}"
        );
        let lines = dir.path().join("o.jsonl");
        std::fs::write(&lines, b"{\"graph\": \"c\", \"order\": [0]}\n\x01").unwrap();
        let Err(e) = ExternalOrders::new(lines.to_str().unwrap()) else {
            panic!("a control byte was read as JSON Lines");
        };
        assert!(
            e.to_string()
                .contains("o.jsonl is not an order: it has byte 0x01"),
            "{e}"
        );
    }

    /// Lines are picked by graph, then solver, then seed; an order that
    /// breaks an edge is an invalid row, as any solver's would be.
    #[test]
    fn jsonl_lines_are_picked_by_graph_solver_and_seed() {
        let g = chain();
        let ids = g.ids();
        let fwd: Vec<i64> = ids.to_vec();
        let back: Vec<i64> = ids.iter().rev().copied().collect();
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("orders.jsonl");
        let line = |solver: &str, seed: u64, order: &[i64]| {
            serde_json::json!({"graph": "c", "solver": solver, "seed": seed, "order": order})
                .to_string()
        };
        let text = [
            line("kahn", 0, &fwd),
            line("random", 0, &fwd),
            line("random", 1, &back),
            line("rule: delta , id", 0, &fwd),
        ]
        .join("\n");
        std::fs::write(&path, text).unwrap();
        let p = path.to_str().unwrap();
        let kahn = ExternalOrders::new(&format!("{p}#kahn")).unwrap();
        assert_eq!(run(&kahn, &g, &named("c")).status, Status::Feasible);
        // A solver is found however the file or the name spells it.
        for spelled in ["rule:delta,id", "rule: delta , id", "rule:delta, id"] {
            let rule = ExternalOrders::new(&format!("{p}#{spelled}")).unwrap();
            assert_eq!(run(&rule, &g, &named("c")).status, Status::Feasible);
            assert!(rule.name().ends_with("#rule:delta,id"), "{}", rule.name());
        }
        let random = ExternalOrders::new(&format!("{p}#random")).unwrap();
        let seed1 = SolveContext {
            seed: 1,
            ..named("c")
        };
        assert!(matches!(
            run(&random, &g, &seed1).status,
            Status::Invalid(_)
        ));
        let seed5 = SolveContext {
            seed: 5,
            ..named("c")
        };
        let reason = run(&random, &g, &seed5).status.to_string();
        assert!(reason.contains("none for seed 5"), "{reason}");
        let all = ExternalOrders::new(p).unwrap();
        let reason = run(&all, &g, &named("c")).status.to_string();
        assert!(
            reason.contains("4 lines for graph `c`") && reason.contains("kahn, random"),
            "{reason}"
        );
        // Seeds tell `random`'s lines apart, so an experiment runs it per
        // seed; `kahn` has one line per graph; the whole file has three.
        assert!(random.abilities().seeded && !kahn.abilities().seeded);
        assert!(all.abilities().seeded);
        // A solver no line has is refused when built, naming those it has.
        let Err(e) = ExternalOrders::new(&format!("{p}#ranodm")) else {
            panic!("a misspelled solver was accepted");
        };
        assert!(
            e.to_string()
                .contains("solver `ranodm`; its solvers: kahn, random, rule: delta , id"),
            "{e}"
        );
        assert!(ExternalOrders::new("/no/such/dir").is_err());
        // A file whose lines name an `orders:` solver of itself: looked up
        // by name, not read again (it recursed until the stack ran out).
        let own = dir.path().join("own.jsonl");
        for named in [
            format!("orders:{}#y", own.display()),
            format!("anneal:orders:{}#y", own.display()),
        ] {
            let own_line = serde_json::json!({"graph": "c", "solver": named, "order": fwd});
            std::fs::write(&own, own_line.to_string()).unwrap();
            let Err(e) = ExternalOrders::new(&format!("{}#z", own.display())) else {
                panic!("no line is of solver z");
            };
            assert!(e.to_string().contains("no line of"), "{e}");
        }
        // A repeated (graph, solver, seed) and a file that is not .jsonl
        // are refused when the solver is built.
        let joined = dir.path().join("joined.jsonl");
        std::fs::write(
            &joined,
            [line("kahn", 0, &fwd), line("kahn", 0, &back)].join("\n"),
        )
        .unwrap();
        let err = ExternalOrders::new(joined.to_str().unwrap())
            .unwrap_err()
            .to_string();
        assert!(err.contains("line 2 repeats line 1"), "{err}");
        let one = dir.path().join("one.json");
        std::fs::write(&one, "[0, 1]").unwrap();
        let err = ExternalOrders::new(one.to_str().unwrap())
            .unwrap_err()
            .to_string();
        assert!(err.contains("not a .jsonl file"), "{err}");
        let err = ExternalOrders::new(&format!("{}#kahn", dir.path().display())).unwrap_err();
        assert!(
            err.to_string().contains("is a directory") || err.to_string().contains("neither"),
            "{err}"
        );
    }
}
