//! What a resume compares with what is already in an output directory:
//! the settings the rows were solved under, the graphs they were solved on
//! (by fingerprint), the config text to keep, and the rows `--redo` drops.

use std::fs;
use std::io;
use std::path::Path;

use super::config::{self, BudgetSection, Config};
use super::fingerprint::{Fingerprint, Fingerprints};
use super::plan::Plan;
use super::results_dir::{CONFIG, FINGERPRINTS};
use super::rows::Row;
use super::{one_line, ExperimentError};
use crate::graph::Graph;
use crate::solvers::{self, ProgramOrder, SolveContext};

/// The settings of a results directory's `config.toml` that change what a
/// row means, read leniently (other keys ignored, defaults as in
/// [`Config`]), so that a config an older or other build wrote is still
/// compared.
#[derive(serde::Deserialize)]
struct Settings {
    /// Required, though only the check that the directory holds this
    /// experiment reads it: a file without it (emptied, cut short) is not
    /// taken for one of the defaults.
    #[serde(rename = "name")]
    _name: String,
    #[serde(
        default = "config::default_time_limit",
        deserialize_with = "config::seconds"
    )]
    time_limit: f64,
    #[serde(default = "config::default_restarts")]
    restarts: u32,
    #[serde(default)]
    budget: BudgetSection,
}

impl Settings {
    /// The settings of `self` (before) that differ in `now`, as
    /// "`time_limit` (5 s, now 1 s)": `time_limit` always, `restarts` and
    /// `[budget]` only when one of the `solved` solvers reads them.
    fn differences<'a>(
        &self,
        now: &Settings,
        solved: impl Iterator<Item = &'a String>,
    ) -> Vec<String> {
        let mut differ = Vec::new();
        if self.time_limit != now.time_limit {
            differ.push(format!(
                "`time_limit` ({} s, now {} s)",
                self.time_limit, now.time_limit
            ));
        }
        let solved: std::collections::BTreeSet<&String> = solved.collect();
        let solved_any =
            |has: fn(&solvers::Abilities) -> bool| config::any_has(solved.iter().copied(), has);
        if self.restarts != now.restarts && solved_any(|a| a.restarts) {
            differ.push(format!(
                "`restarts` ({}, now {})",
                self.restarts, now.restarts
            ));
        }
        if self.budget != now.budget && solved_any(|a| a.budgeted) {
            let show = |b: &BudgetSection| {
                format!(
                    "max_states = {}, max_memory_bytes = {}",
                    b.max_states, b.max_memory_bytes
                )
            };
            differ.push(format!(
                "`[budget]` ({}, now {})",
                show(&self.budget),
                show(&now.budget)
            ));
        }
        differ
    }
}

/// The settings two results directories' rows were solved under that
/// differ (see [`check_same_settings`]), from the `config.toml` beside each
/// runs.csv, for the `solved` solvers; empty when either file is missing or
/// unreadable (nothing is then known to differ).
pub fn settings_differences<'a>(
    old_config: &Path,
    new_config: &Path,
    solved: impl Iterator<Item = &'a String>,
) -> Vec<String> {
    let read =
        |path: &Path| -> Option<Settings> { toml::from_str(&fs::read_to_string(path).ok()?).ok() };
    match (read(old_config), read(new_config)) {
        (Some(old), Some(new)) => old.differences(&new, solved),
        _ => Vec::new(),
    }
}

/// Refuses to resume into a directory whose rows were solved under another
/// `time_limit`, `restarts` (when its rows include a solver that restarts,
/// listed in the new config or not) or `[budget]` (when its rows include a
/// solver that reads it): its rows would mix two settings under one config. Other
/// keys only add or drop items: a new solver or graph is solved, the rows
/// of a dropped one are kept. A `config.toml` that cannot be read is an
/// error too: the rows' settings are then unknown.
pub(super) fn check_same_settings(
    out: &Path,
    config: &Config,
    existing: &[Row],
) -> Result<(), ExperimentError> {
    let path = out.join(CONFIG);
    let text = match fs::read_to_string(&path) {
        Ok(text) => text,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(ExperimentError::io("read", &path, e)),
    };
    let old: Settings = toml::from_str(&text).map_err(|e| {
        ExperimentError::Directory(format!(
            "cannot read the settings its rows were solved with from {}: {}; pass --fresh \
             to discard its results, or write to another directory (--out)",
            path.display(),
            one_line(&e.to_string())
        ))
    })?;
    let now = Settings {
        _name: String::new(),
        time_limit: config.time_limit,
        restarts: config.restarts,
        budget: config.budget,
    };
    // Rows of a restarting solver were solved under the old `restarts`,
    // whether or not the new config still lists that solver.
    let differ = old.differences(&now, existing.iter().map(|r| &r.solver));
    if differ.is_empty() {
        return Ok(());
    }
    Err(ExperimentError::Directory(format!(
        "{} holds rows solved with another {}; resuming would mix the two settings: \
         pass --fresh to discard its results, or write to another directory (--out)",
        out.display(),
        differ.join(" and ")
    )))
}

/// What the rows already in `runs.csv` say of each graph: its size and,
/// from a valid `program` row, its program-order peak; and its content
/// fingerprint from [`FINGERPRINTS`] (absent in directories of older
/// versions). A graph that differs now (its file was edited) would mix rows
/// of two graphs under one name.
#[derive(Default)]
pub(super) struct Recorded {
    graphs: std::collections::HashMap<String, RecordedGraph>,
    /// The fingerprints [`FINGERPRINTS`] held.
    pub(super) fingerprints: Fingerprints,
}

/// One graph as its rows in `runs.csv` describe it.
#[derive(Clone, Copy)]
struct RecordedGraph {
    nodes: usize,
    edges: usize,
    /// The peak of a valid `program` row, if there is one.
    program_peak: Option<u64>,
}

impl Recorded {
    /// What `rows` and the recorded `fingerprints` say of each graph.
    pub(super) fn from_rows(rows: &[Row], fingerprints: Fingerprints) -> Self {
        let mut graphs = std::collections::HashMap::new();
        // A graph that could not be loaded mid-run has rows of 0 nodes.
        for r in rows.iter().filter(|r| r.nodes > 0) {
            let entry = graphs.entry(r.graph.clone()).or_insert(RecordedGraph {
                nodes: r.nodes,
                edges: r.edges,
                program_peak: None,
            });
            if r.solver == "program" && r.valid {
                entry.program_peak = entry.program_peak.or(r.peak_bytes);
            }
        }
        Recorded {
            graphs,
            fingerprints,
        }
    }

    /// Why `graph`, loaded now as `g` with fingerprint `now`, is not the
    /// graph its rows were solved on, if it is not. A graph without rows
    /// has nothing to differ from. A recorded fingerprint decides; without
    /// one, the counts and the program-order peak do (an edit that keeps
    /// all three is then not seen).
    pub(super) fn changed(&self, graph: &str, g: &Graph, now: Fingerprint) -> Option<String> {
        let RecordedGraph {
            nodes,
            edges,
            program_peak,
        } = *self.graphs.get(graph)?;
        if (nodes, edges) != (g.node_count(), g.edge_count()) {
            return Some(format!(
                "{} nodes and {} edges now, {nodes} and {edges} in runs.csv",
                g.node_count(),
                g.edge_count()
            ));
        }
        if let Some(&old) = self.fingerprints.get(graph) {
            return (old != now).then(|| {
                format!(
                    "its content differs (fingerprint {now} now, {old} in {FINGERPRINTS}): a \
                     node's id, kind, buffer, size or latency, the nodes' order or an edge \
                     was changed"
                )
            });
        }
        let peak = program_peak?;
        // As the `program` row was made: the solver's checked peak.
        let now = solvers::run(&ProgramOrder, g, &SolveContext::default()).peak;
        (now != Some(peak)).then(|| {
            let now = now.map_or("none (not a schedule)".into(), |p| p.to_string());
            format!("program-order peak {now} now, {peak} in runs.csv")
        })
    }
}

/// The text to record in `DIR/config.toml`: the config written out whole,
/// unless the file there is this same config (run from
/// `results/NAME/config.toml`, say), whose text and comments are the
/// user's. Its settings that later runs or merges compare (`name`,
/// `time_limit`, `restarts`, `seeds`, `baselines`, `[budget]`) are then
/// spelled out where it left them to their defaults, which another version
/// may change (a `[budget]` naming only some of its keys: the config is
/// written out whole).
pub(super) fn recorded_config_text(path: &Path, config: &Config) -> String {
    let whole = config.to_toml();
    let Ok(text) = fs::read_to_string(path) else {
        return whole;
    };
    let stem = path
        .file_stem()
        .map_or(String::new(), |s| s.to_string_lossy().into_owned());
    let (Ok(there), Ok(table), Ok(full)) = (
        Config::parse(&text, "", &stem),
        text.parse::<toml::Table>(),
        whole.parse::<toml::Table>(),
    ) else {
        return whole;
    };
    if there != *config {
        return whole;
    }
    let mut head = String::new();
    for key in ["name", "time_limit", "restarts", "seeds", "baselines"] {
        if let (None, Some(v)) = (table.get(key), full.get(key)) {
            head.push_str(&format!("{key} = {v}\n"));
        }
    }
    let mut tail = String::new();
    match (table.get("budget"), full.get("budget")) {
        (None, Some(toml::Value::Table(b))) => tail = format!("\n[budget]\n{b}"),
        // A `[budget]` naming some of its keys: written out whole instead.
        (Some(toml::Value::Table(some)), Some(toml::Value::Table(b)))
            if b.keys().any(|k| !some.contains_key(k)) =>
        {
            return whole
        }
        _ => {}
    }
    let kept = format!("{head}{text}{tail}");
    match Config::parse(&kept, "", &stem) {
        Ok(c) if c == *config => kept,
        _ => whole,
    }
}

/// The graphs `--redo-graph` names (as the plan names them; a generated
/// graph's spec in any order of its parameters), each checked to be one
/// of the plan's.
pub(super) fn redo_graphs(
    plan: &Plan,
    names: &[String],
) -> Result<std::collections::BTreeSet<String>, ExperimentError> {
    names
        .iter()
        .map(|name| {
            let found = plan
                .graph_index(name)
                .or_else(|| plan.graph_index(name.trim()));
            if let Some(i) = found {
                return Ok(plan.graphs[i].name.clone());
            }
            let all = plan.graphs.iter().map(|g| g.name.as_str());
            let mut guesses = with_the_parameters_given(name.trim(), all.clone());
            if guesses.is_empty() {
                guesses = crate::spelling::near(name.trim(), all);
            }
            let hint = crate::spelling::did_you_mean(&guesses);
            Err(ExperimentError::Options(format!(
                "--redo-graph `{name}`: not a graph of this experiment{hint} (its graphs: {}; \
                 names as in runs.csv's `graph` column)",
                crate::text::first_few(
                    plan.graphs.iter(),
                    5,
                    |g| format!("`{}`", g.name),
                    |k| format!("{k} more")
                )
                .join(", ")
            )))
        })
        .collect()
}

/// For a generated graph's name (`SPEC#SEED`) that is none of `names`:
/// those of `names` of its family and seed whose specs give every
/// parameter it gives, with the same value (`chain:length=10#0` finds
/// `chain:length=10,min=1024#0`); empty for any other name.
fn with_the_parameters_given<'a>(name: &str, names: impl Iterator<Item = &'a str>) -> Vec<&'a str> {
    let parse = |n: &str| crate::corpus::gen::parse_graph_name(n)?.ok();
    let Some((wanted, seed)) = parse(name) else {
        return Vec::new();
    };
    names
        .filter(|candidate| {
            parse(candidate).is_some_and(|(spec, s)| {
                s == seed
                    && spec.family == wanted.family
                    && (wanted.params.iter()).all(|(k, v)| spec.params.get(k) == Some(v))
            })
        })
        .collect()
}

/// The solvers `--redo` names (in any spelling of them), each checked to
/// be one of the config's, by their names in the config.
pub(super) fn redo_solvers(
    plan: &Plan,
    redo: &[String],
) -> Result<std::collections::BTreeSet<String>, ExperimentError> {
    redo.iter()
        .map(|name| {
            let canonical = crate::solvers::build(name.trim()).map_or(name.clone(), |b| b.name());
            match plan.solvers.iter().find(|s| s.name == canonical) {
                Some(s) => Ok(s.name.clone()),
                None => {
                    let names: Vec<_> = plan.solvers.iter().map(|s| s.name.as_str()).collect();
                    let hint = crate::spelling::did_you_mean(&crate::spelling::near(
                        name.trim(),
                        names.iter().copied(),
                    ));
                    Err(ExperimentError::Options(format!(
                        "--redo {name}: not a solver of this experiment{hint} (its solvers: {})",
                        names.join(", ")
                    )))
                }
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A generated graph named with some of its parameters finds the
    /// graphs of its family and seed that give them; other names find none.
    #[test]
    fn a_partial_spec_finds_the_graphs_that_give_its_parameters() {
        let names = [
            "chain:length=5#0",
            "chain:length=10,min=1024#0",
            "chain:length=10,min=1024#1",
            "tree:length=10#0",
            "g",
        ];
        let found = |name: &str| with_the_parameters_given(name, names.into_iter());
        assert_eq!(found("chain:length=10#0"), ["chain:length=10,min=1024#0"]);
        assert_eq!(found("chain:min=1024#1"), ["chain:length=10,min=1024#1"]);
        assert!(found("chain:length=6#0").is_empty());
        assert!(found("resnet").is_empty());
    }
}
