//! Experiment configs (`experiments/NAME.toml`): what to run, read and validated.
//!
//! [`Config::load`] parses the TOML with unknown keys rejected (the error names
//! the key and the file), checks every solver name against the registry and
//! every generator spec against [`crate::corpus::gen`], so a typo fails before
//! any work starts. The keys are documented in `docs/experiments.md`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::corpus::gen::GenSpec;
use crate::solvers::{self, Budget};

pub use super::seeds::Seeds;
use super::wildcard;

/// Most bytes a config file may hold: 64 MiB, far above any list of graphs
/// written by hand, and `/dev/zero` is refused before it fills memory.
const MAX_CONFIG_BYTES: u64 = 64 << 20;

/// Why a config was rejected.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum ConfigError {
    /// The file could not be read, or is not TOML text (binary, not UTF-8,
    /// over 64 MiB).
    #[error("cannot read config {path}: {source}")]
    Read {
        /// The config's path, as displayed.
        path: String,
        /// Why reading failed.
        source: crate::input::ReadError,
    },
    /// The text is not a valid config: bad TOML, an unknown key, an
    /// unknown solver or generator, a malformed seed list, ...
    #[error("invalid config {path}: {message}")]
    Invalid {
        /// The `origin` given to [`Config::parse`]: the file's path for
        /// [`Config::load`].
        path: String,
        /// What is wrong, naming the key or entry.
        message: String,
    },
}

/// The plots an experiment can draw (`plots = [...]`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum PlotKind {
    /// Per graph, peak by solver normalised to the baseline (bars).
    Reduction,
    /// Distribution (CDF) of the gap to the best known peak, by solver.
    Gap,
    /// Solve time against graph size, log-log, by solver.
    Time,
    /// Memory over the steps of one graph (the article's "Tetris" picture).
    Tetris,
}

impl PlotKind {
    /// Every plot, in drawing order.
    pub const ALL: [PlotKind; 4] = [
        PlotKind::Reduction,
        PlotKind::Gap,
        PlotKind::Time,
        PlotKind::Tetris,
    ];
    /// File stem of the plot (`reduction` -> `reduction.png`, `reduction.svg`).
    pub fn stem(self) -> &'static str {
        match self {
            PlotKind::Reduction => "reduction",
            PlotKind::Gap => "gap",
            PlotKind::Time => "time",
            PlotKind::Tetris => "tetris",
        }
    }
    /// What the plot is drawn from, for a warning when no row has it.
    pub fn needs(self) -> &'static str {
        match self {
            PlotKind::Reduction => "a valid row on a graph whose baseline peaks above 0 B",
            PlotKind::Gap => "a row of one of the config's solvers",
            PlotKind::Time => "a valid row on a graph of at least one node",
            PlotKind::Tetris => "a recorded memory profile of the Tetris graph",
        }
    }
    /// Removes the plot's files from `dir`, if any (an earlier pass's plot
    /// would outlive the rows it was drawn from).
    pub fn remove_files(self, dir: &std::path::Path) {
        for ext in IMAGE_EXTENSIONS {
            let _ = std::fs::remove_file(dir.join(format!("{}.{ext}", self.stem())));
        }
    }
}

/// The image formats of a plot, by file extension: each is written as
/// `STEM.png` and `STEM.svg`.
pub const IMAGE_EXTENSIONS: [&str; 2] = ["png", "svg"];

/// `generate = [{ spec = "random-layered:layers=20", seeds = "0..50" }]`;
/// a bare spec string (`"chain:length=3"`) is the entry with seed 0.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct GenerateEntry {
    /// A generator spec, `FAMILY[:key=value,...]`.
    pub spec: String,
    /// Seeds: `"A..B"` (B excluded), a single number, or a list.
    pub seeds: Seeds,
    /// The family its graphs are counted in (the `family` column, the
    /// README's per-family lines and plots); default: the generator's.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub family: Option<String>,
}

/// The table form of a [`GenerateEntry`].
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct GenerateTable {
    spec: String,
    #[serde(default = "Seeds::zero")]
    seeds: Seeds,
    #[serde(default)]
    family: Option<String>,
}

impl<'de> Deserialize<'de> for GenerateEntry {
    /// A string or a table; the table's own errors (an unknown key, bad
    /// `seeds`) come through as they are, which an untagged enum would
    /// replace by one vague line.
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Entry;
        impl<'de> serde::de::Visitor<'de> for Entry {
            type Value = GenerateEntry;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str(
                    "a generator spec string (`\"chain:length=3\"`) or a table \
                     (`{ spec = \"chain:length=3\", seeds = \"0..5\" }`)",
                )
            }
            fn visit_str<E: serde::de::Error>(self, spec: &str) -> Result<GenerateEntry, E> {
                Ok(GenerateEntry {
                    spec: spec.to_string(),
                    seeds: Seeds::zero(),
                    family: None,
                })
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                map: A,
            ) -> Result<GenerateEntry, A::Error> {
                let t =
                    GenerateTable::deserialize(serde::de::value::MapAccessDeserializer::new(map))?;
                Ok(GenerateEntry {
                    spec: t.spec,
                    seeds: t.seeds,
                    family: t.family,
                })
            }
        }
        d.deserialize_any(Entry)
    }
}

/// A `family` label goes into CSV cells, Markdown tables and plot legends:
/// some text on one line, without the Markdown table's `|`.
fn check_family_label(family: &str) -> Result<(), String> {
    if family.trim().is_empty() {
        return Err("`family` is empty: leave it out for the generator's name".into());
    }
    if family.trim() != family || family.contains(['|', '\n', '\r']) {
        return Err(format!(
            "`family` {family:?} has a `|`, a line break or spaces at an end: it names \
             a line of Markdown tables"
        ));
    }
    Ok(())
}

impl GenerateEntry {
    /// This entry's seeds, expanded ([`Seeds::expand`]); an error says
    /// where the entry is: `graphs.generate` entry #`index` and its spec.
    pub fn seed_list(&self, index: usize) -> Result<Vec<u64>, String> {
        self.seeds.expand().map_err(|e| {
            format!(
                "in `graphs.generate` entry #{index} (`{}`), `seeds`: {e}",
                self.spec
            )
        })
    }
}

/// `[graphs]`: files, globs and generated graphs, in that order.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GraphsSection {
    /// Graph files (seed JSON), relative to the current directory.
    #[serde(default)]
    pub files: Vec<String>,
    /// `dir/pattern` where the last component may hold `*` and `?`.
    #[serde(default)]
    pub globs: Vec<String>,
    /// Generated graphs.
    #[serde(default)]
    pub generate: Vec<GenerateEntry>,
}

/// `[budget]`: work limits of searches.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BudgetSection {
    /// `max_states`: most states a search may store; default 50,000,000
    /// (see [`Budget::max_states`]).
    #[serde(default = "default_states")]
    pub max_states: u64,
    /// `max_memory_bytes`: most bytes a search's tables may hold; default
    /// 4 GiB (see [`Budget::max_memory_bytes`]).
    #[serde(default = "default_memory")]
    pub max_memory_bytes: u64,
}

fn default_states() -> u64 {
    Budget::default().max_states
}
fn default_memory() -> u64 {
    Budget::default().max_memory_bytes
}

impl Default for BudgetSection {
    fn default() -> Self {
        let b = Budget::default();
        BudgetSection {
            max_states: b.max_states,
            max_memory_bytes: b.max_memory_bytes,
        }
    }
}

/// `[[claims]]`: a published reduction to show beside ours.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Claim {
    /// Graph name (as in the `graph` column).
    pub graph: String,
    /// Claimed peak reduction in percent against the same baseline.
    pub reduction_pct: f64,
    /// Where the claim comes from.
    #[serde(default)]
    pub source: String,
}

/// An experiment config, as written.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Config {
    /// Experiment name; default: the file stem. Results go to `results/NAME/`.
    #[serde(default)]
    pub name: String,
    /// One line shown at the top of the generated README.
    #[serde(default)]
    pub description: String,
    /// `[graphs]`: the experiment's graphs, each solved by every solver.
    #[serde(default)]
    pub graphs: GraphsSection,
    /// Solver names (see `memsched solvers`).
    pub solvers: Vec<String>,
    /// Seeds for randomized solvers; deterministic ones run with seed 0 only.
    #[serde(default = "Seeds::zero")]
    pub seeds: Seeds,
    /// Wall-clock limit per solve, in seconds (`30`, `2.5`, or `"30s"` as
    /// `schedule --time-limit` takes it).
    #[serde(default = "default_time_limit", deserialize_with = "seconds")]
    pub time_limit: f64,
    /// Runs a best-of-K solver (`random`, `noisy:EXPR`...) makes per seed,
    /// keeping the lowest peak (`memsched schedule --restarts K`).
    #[serde(default = "default_restarts")]
    pub restarts: u32,
    /// `[budget]`: work limits of searches, passed to every solve.
    #[serde(default)]
    pub budget: BudgetSection,
    /// Baselines in order of preference: the first valid one on a graph is
    /// that graph's baseline.
    #[serde(default = "default_baselines")]
    pub baselines: Vec<String>,
    /// Plots to draw (default: all).
    #[serde(default = "default_plots")]
    pub plots: Vec<PlotKind>,
    /// The graph of the "Tetris" plot (default: the first graph).
    #[serde(default)]
    pub tetris_graph: Option<String>,
    /// Solvers the Tetris plot draws besides its usual lines (each one of
    /// `solvers` or `baselines`): a rule being tried, say.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tetris_solvers: Vec<String>,
    /// Keep every solve's order in `orders.jsonl` (off by default: on
    /// large graphs the file is big).
    #[serde(default)]
    pub save_orders: bool,
    /// Published reductions shown in a column of the README table.
    #[serde(default)]
    pub claims: Vec<Claim>,
}

/// Whether any of the solvers `names` has the ability `has` (names this
/// build cannot make do not).
pub(super) fn any_has<'a>(
    mut names: impl Iterator<Item = &'a String>,
    has: impl Fn(&solvers::Abilities) -> bool,
) -> bool {
    names.any(|n| solvers::build(n).is_ok_and(|s| has(&s.abilities())))
}

/// A number of seconds as written, with or without an `s` (`30`, `2.5`,
/// `30s`, `0.5 s`): how a config's `time_limit` string and `schedule
/// --time-limit` read one. `None` for another unit (`2m`) or no number.
pub(crate) fn read_seconds(text: &str) -> Option<f64> {
    let number = text.trim();
    let number = number.strip_suffix('s').unwrap_or(number);
    number.trim().parse().ok()
}

/// Reads `time_limit`: a number of seconds, or a string of one with an
/// `s` (`"30s"`, [`read_seconds`]); another unit (`"2m"`) is named in the
/// error.
pub(super) fn seconds<'de, D: serde::Deserializer<'de>>(d: D) -> Result<f64, D::Error> {
    struct Seconds;
    impl serde::de::Visitor<'_> for Seconds {
        type Value = f64;
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("a number of seconds (`30`, `2.5`) or a string such as `\"30s\"`")
        }
        fn visit_f64<E: serde::de::Error>(self, x: f64) -> Result<f64, E> {
            Ok(x)
        }
        fn visit_i64<E: serde::de::Error>(self, x: i64) -> Result<f64, E> {
            Ok(x as f64)
        }
        fn visit_u64<E: serde::de::Error>(self, x: u64) -> Result<f64, E> {
            Ok(x as f64)
        }
        fn visit_str<E: serde::de::Error>(self, text: &str) -> Result<f64, E> {
            read_seconds(text).ok_or_else(|| {
                E::custom(format!(
                    "`{text}` is not a number of seconds: write `30` or `\"30s\"` (`120` for two \
                     minutes)"
                ))
            })
        }
    }
    d.deserialize_any(Seconds)
}

pub(super) fn default_time_limit() -> f64 {
    60.0
}
pub(super) fn default_restarts() -> u32 {
    1
}
fn default_baselines() -> Vec<String> {
    vec!["program".into()]
}
fn default_plots() -> Vec<PlotKind> {
    PlotKind::ALL.to_vec()
}

impl Config {
    /// A config named `name` that runs `solvers`, every other setting at
    /// the default a TOML file gets by leaving it out (seed 0, 60 s per
    /// solve, one restart, the default `[budget]`, `program` as the
    /// baseline, every plot, no saved orders) and no graphs yet: add files,
    /// globs or generated graphs to [`graphs`](Self::graphs).
    /// [`validate`](Self::validate) checks it; [`run`](super::run) checks
    /// it too and reads its solver names as a parsed file's (`rule: delta,
    /// id` as `rule:delta,id`), so it runs as the same config written as
    /// a file would:
    ///
    /// ```
    /// use memsched::experiment::{config::GenerateEntry, Config, Seeds};
    /// let mut config = Config::new("mine", ["kahn", "rule:-unlocks,delta,id"]);
    /// config.time_limit = 10.0;
    /// config.graphs.generate.push(GenerateEntry {
    ///     spec: "tensor-program:ops=40".into(),
    ///     seeds: Seeds::Range("0..5".into()),
    ///     family: None,
    /// });
    /// config.validate().unwrap();
    /// let text = "name = \"mine\"\nsolvers = [\"kahn\", \"rule:-unlocks,delta,id\"]\n\
    ///             time_limit = 10.0\n[graphs]\n\
    ///             generate = [{ spec = \"tensor-program:ops=40\", seeds = \"0..5\" }]\n";
    /// assert_eq!(config, Config::parse(text, "mine.toml", "mine").unwrap());
    /// ```
    pub fn new<S: Into<String>>(name: &str, solvers: impl IntoIterator<Item = S>) -> Config {
        Config {
            name: name.to_string(),
            description: String::new(),
            graphs: GraphsSection::default(),
            solvers: solvers.into_iter().map(Into::into).collect(),
            seeds: Seeds::zero(),
            time_limit: default_time_limit(),
            restarts: default_restarts(),
            budget: BudgetSection::default(),
            baselines: default_baselines(),
            plots: default_plots(),
            tetris_graph: None,
            tetris_solvers: Vec::new(),
            save_orders: false,
            claims: Vec::new(),
        }
    }

    /// The top-level `seeds`, expanded ([`Seeds::expand`]); an error says
    /// it is about them.
    pub fn seed_list(&self) -> Result<Vec<u64>, String> {
        self.seeds.expand().map_err(|e| format!("in `seeds`: {e}"))
    }

    /// Reads and validates a config file.
    pub fn load(path: &Path) -> Result<Config, ConfigError> {
        let text = crate::input::read_text(path, MAX_CONFIG_BYTES, crate::input::Start::CONFIG)
            .map_err(|source| ConfigError::Read {
                path: path.display().to_string(),
                source,
            })?;
        let stem = path
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        Config::parse(&text, &path.display().to_string(), &stem)
    }

    /// Parses and validates config text; `origin` names the file in errors.
    pub fn parse(text: &str, origin: &str, default_name: &str) -> Result<Config, ConfigError> {
        let invalid = |message: String| ConfigError::Invalid {
            path: origin.to_string(),
            message,
        };
        let mut config: Config = toml::from_str(text).map_err(|e| {
            let start = text.trim_start_matches(|c: char| c == '\u{feff}' || c.is_whitespace());
            // TOML cannot start with `{`; a graph file does.
            match start.starts_with('{') {
                true => invalid(
                    "it starts with `{`, as a JSON graph does, not a TOML config: `memsched run` \
                 takes an experiment config (docs/experiments.md; `experiments/*.toml` are \
                 examples), and `memsched schedule GRAPH` schedules one graph"
                        .to_string(),
                ),
                false => invalid(e.to_string()),
            }
        })?;
        if config.name.is_empty() {
            // Absent, the name is the file's; given empty, it is a slip.
            let given = toml::from_str::<toml::Table>(text).is_ok_and(|t| t.contains_key("name"));
            if given {
                return Err(invalid(format!(
                    "`name` is empty: give letters, digits, `_` or `-`, or leave it out for \
                     the file's name (`{default_name}`)"
                )));
            }
            config.name = default_name.to_string();
            // The name came from the file's: an error about it says so.
            if let Err(e) = config.check_name() {
                return Err(invalid(format!(
                    "{e}: without a `name` key the experiment is named after the file \
                     (`{default_name}`); add `name = \"...\"` or rename the file"
                )));
            }
        }
        config.trim_names();
        config.validate().map_err(invalid)?;
        config.canonical_names();
        Ok(config)
    }

    /// This config with its solver names as [`parse`](Self::parse) leaves
    /// them, once it has passed [`validate`](Self::validate) (which sees
    /// them as given but trimmed, to refuse two spellings of one solver).
    pub(crate) fn checked_as_parsed(&self) -> Result<Config, String> {
        let mut config = self.clone();
        config.trim_names();
        config.validate()?;
        config.canonical_names();
        Ok(config)
    }

    /// Every solver name the config gives: `solvers`, `baselines` and
    /// `tetris_solvers`.
    fn solver_names_mut(&mut self) -> impl Iterator<Item = &mut String> {
        (self.solvers.iter_mut())
            .chain(&mut self.baselines)
            .chain(&mut self.tetris_solvers)
    }

    /// Rows, baselines and the report compare names as written: no blanks
    /// at either end.
    fn trim_names(&mut self) {
        for name in self.solver_names_mut() {
            *name = name.trim().to_string();
        }
    }

    /// One solver, one name: `rule: delta, id` and `rule:delta,id` key the
    /// same rows (after [`validate`](Self::validate), which refuses two
    /// spellings in `solvers`).
    fn canonical_names(&mut self) {
        for name in self.solver_names_mut() {
            if let Ok(built) = solvers::build(name) {
                *name = built.name();
            }
        }
    }

    /// The checks [`Config::parse`] makes, for a config built or changed
    /// in code ([`run`](super::run) makes them too): every name, list,
    /// limit and claim; an error says which.
    pub fn validate(&self) -> Result<(), String> {
        self.check_name()?;
        self.check_solvers()?;
        self.check_settings()?;
        self.check_claims()?;
        self.check_generators()
    }

    /// `name`: it names the results directory.
    fn check_name(&self) -> Result<(), String> {
        if self.name.is_empty()
            || !self
                .name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
        {
            return Err(format!(
                "`name` must be letters, digits, `_` or `-` (got `{}`)",
                self.name
            ));
        }
        // It names the results directory: file systems refuse names past
        // 255 bytes (a name is ASCII: a byte a character).
        const MAX_NAME: usize = 255;
        if self.name.len() > MAX_NAME {
            return Err(format!(
                "`name` is {} characters long; at most {MAX_NAME} (it names the results \
                 directory)",
                self.name.len()
            ));
        }
        Ok(())
    }

    /// `solvers` and `baselines`: each builds, none listed twice (by any
    /// spelling).
    fn check_solvers(&self) -> Result<(), String> {
        if self.solvers.is_empty() {
            return Err("`solvers` is empty".into());
        }
        if self.baselines.is_empty() {
            return Err("`baselines` is empty".into());
        }
        // Each name built once, to its canonical name. Every name that does
        // not build is named at once: a config with several slips is fixed
        // in one round.
        let built: Vec<Result<String, String>> = (self.solvers.iter())
            .map(|name| {
                solvers::build(name)
                    .map(|b| b.name())
                    .map_err(|e| e.to_string())
            })
            .collect();
        let unbuilt: Vec<&String> = built.iter().filter_map(|b| b.as_ref().err()).collect();
        match unbuilt.as_slice() {
            [] => {}
            [one] => return Err(format!("in `solvers`: {one}")),
            all => {
                return Err(format!(
                    "in `solvers`, {} names do not build:\n  - {}",
                    all.len(),
                    all.iter()
                        .map(|e| e.as_str())
                        .collect::<Vec<_>>()
                        .join("\n  - ")
                ))
            }
        }
        let mut canonical: Vec<(String, &String)> = Vec::new();
        // Every name built (the failures returned above), so the two align.
        for (name, built) in self.solvers.iter().zip(built.into_iter().flatten()) {
            if let Some((_, first)) = canonical.iter().find(|(c, _)| *c == built) {
                return Err(format!(
                    "`solvers` lists `{first}` and `{name}`, which are the same solver `{built}`"
                ));
            }
            canonical.push((built, name));
        }
        // The solvers were built above.
        let mut baselines: Vec<String> = Vec::new();
        for name in &self.baselines {
            let built =
                solvers::build(name).map_err(|e| format!("in `solvers`/`baselines`: {e}"))?;
            if baselines.contains(&built.name()) {
                return Err(format!(
                    "`baselines` lists `{}` twice (a graph's baseline is the first valid one, \
                     so a second is never used)",
                    built.name()
                ));
            }
            baselines.push(built.name());
        }
        // The Tetris plot's extra lines: solvers the config runs.
        let listed =
            |name: &String| canonical.iter().any(|(c, _)| c == name) || baselines.contains(name);
        let mut drawn: Vec<String> = Vec::new();
        for name in &self.tetris_solvers {
            let built = solvers::build(name).map_err(|e| format!("in `tetris_solvers`: {e}"))?;
            if drawn.contains(&built.name()) {
                return Err(format!(
                    "`tetris_solvers` lists `{}` twice (by any spelling; each is drawn once)",
                    built.name()
                ));
            }
            drawn.push(built.name());
            if !listed(&built.name()) {
                return Err(format!(
                    "`tetris_solvers` lists `{name}`, which is not among `solvers` or \
                     `baselines`: the plot draws the profiles of the solves the run makes"
                ));
            }
        }
        Ok(())
    }

    /// `plots`, `seeds`, `time_limit`, `restarts` and `[budget]`.
    fn check_settings(&self) -> Result<(), String> {
        if let Some(twice) = self
            .plots
            .iter()
            .find(|p| self.plots.iter().filter(|q| q == p).count() > 1)
        {
            return Err(format!("`plots` lists `{}` twice", twice.stem()));
        }
        if self.seed_list()?.is_empty() {
            return Err("`seeds` is empty".into());
        }
        // try_from: `from_secs_f64` panics beyond Duration's range (about 1.8e19 s).
        // Durations count whole nanoseconds (and round to them).
        if !(self.time_limit >= 1e-9 && Duration::try_from_secs_f64(self.time_limit).is_ok()) {
            let t = self.time_limit;
            let shown = if t.abs() >= 1e15 || (t != 0.0 && t.abs() < 1e-6) {
                format!("{t:e}")
            } else {
                t.to_string()
            };
            return Err(format!(
                "`time_limit` must be a positive number of seconds, from 1e-9 (a nanosecond, \
                 the clock's unit) to below 1.8e19 (got {shown})"
            ));
        }
        if self.restarts == 0 {
            return Err("`restarts` must be at least 1 (got 0)".into());
        }
        if self.budget.max_states == 0 {
            return Err("`[budget] max_states` must be at least 1 (got 0)".into());
        }
        if self.budget.max_memory_bytes == 0 {
            return Err("`[budget] max_memory_bytes` must be at least 1 (got 0)".into());
        }
        Ok(())
    }

    /// `[[claims]]`: finite percentages up to 100, one per graph.
    fn check_claims(&self) -> Result<(), String> {
        if let Some(c) = self.claims.iter().find(|c| !c.reduction_pct.is_finite()) {
            return Err(format!(
                "`[[claims]]` for `{}`: `reduction_pct` must be a finite number (got {})",
                c.graph, c.reduction_pct
            ));
        }
        if let Some(c) = self.claims.iter().find(|c| c.reduction_pct > 100.0) {
            return Err(format!(
                "`[[claims]]` for `{}`: `reduction_pct` is a percentage of the baseline peak, \
                 at most 100 (got {})",
                c.graph,
                // 1e300 in full would be 301 digits.
                match c.reduction_pct < 1e6 {
                    true => c.reduction_pct.to_string(),
                    false => format!("{:e}", c.reduction_pct),
                }
            ));
        }
        if let Some(c) = self.claims.iter().find(|c| c.source.contains(['\n', '\r'])) {
            return Err(format!(
                "`[[claims]]` for `{}`: `source` {:?} has a line break: it is written on one \
                 line of the README's claims list",
                c.graph, c.source
            ));
        }
        let mut claimed: BTreeMap<String, &Claim> = BTreeMap::new();
        for c in &self.claims {
            let name = super::plan::canonical_name(&c.graph);
            if let Some(first) = claimed.insert(name, c) {
                return Err(format!(
                    "`[[claims]]`: two claims for graph `{}` ({}% and {}%); the tables show \
                     one claim per graph: keep one",
                    c.graph, first.reduction_pct, c.reduction_pct
                ));
            }
        }
        Ok(())
    }

    /// `[graphs] generate`: every spec parses and has seeds.
    fn check_generators(&self) -> Result<(), String> {
        for (k, g) in self.graphs.generate.iter().enumerate() {
            let spec = GenSpec::parse(&g.spec).map_err(|e| format!("in `graphs.generate`: {e}"))?;
            spec.check_names()
                .map_err(|e| format!("in `graphs.generate`: {e}"))?;
            if g.seed_list(k)?.is_empty() {
                return Err(format!("generator `{}` has no seeds", g.spec));
            }
            if let Some(family) = &g.family {
                check_family_label(family)
                    .map_err(|e| format!("in `graphs.generate` entry #{k} (`{}`): {e}", g.spec))?;
            }
        }
        Ok(())
    }

    /// The time limit as a duration ([`Duration::MAX`] for a value beyond its
    /// range, which [`Config::parse`] rejects: no panic on a config built in code).
    pub fn time_limit(&self) -> Duration {
        Duration::try_from_secs_f64(self.time_limit).unwrap_or(Duration::MAX)
    }

    /// Whether some solver or baseline keeps the best of `restarts` runs
    /// (when none does, `restarts` changes nothing).
    pub fn restarts_apply(&self) -> bool {
        any_has(self.baselines.iter().chain(&self.solvers), |a| a.restarts)
    }

    /// Whether some solver or baseline is randomized, so runs once per seed
    /// (when none is, every solve runs with seed 0 and `seeds` changes
    /// nothing).
    pub fn seeds_apply(&self) -> bool {
        any_has(self.baselines.iter().chain(&self.solvers), |a| a.seeded)
    }

    /// Whether some solver or baseline reads the `[budget]` (when none does,
    /// it changes nothing).
    pub fn budget_applies(&self) -> bool {
        any_has(self.baselines.iter().chain(&self.solvers), |a| a.budgeted)
    }

    /// The budget for searches.
    pub fn budget(&self) -> Budget {
        Budget {
            max_states: self.budget.max_states,
            max_memory_bytes: self.budget.max_memory_bytes,
        }
    }

    /// Baselines, then solvers, each once, in config order.
    pub fn all_solvers(&self) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for s in self.baselines.iter().chain(&self.solvers) {
            let s = s.trim().to_string();
            if !out.contains(&s) {
                out.push(s);
            }
        }
        out
    }

    /// Claims by graph name, as the plan names the graph (a generated
    /// graph's spec parameters in canonical order).
    pub fn claims_by_graph(&self) -> BTreeMap<String, f64> {
        self.claims
            .iter()
            .map(|c| (super::plan::canonical_name(&c.graph), c.reduction_pct))
            .collect()
    }

    /// The config as TOML (saved beside the results so `merge` can redo the final pass).
    pub fn to_toml(&self) -> String {
        toml::to_string(self).expect("a config always serializes")
    }
}

/// Expands `dir/pattern` (wildcards `*` and `?` in the last component only),
/// sorted by path so the order is the same on every machine.
pub fn expand_glob(pattern: &str) -> Result<Vec<PathBuf>, String> {
    let path = Path::new(pattern);
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let name = path
        .file_name()
        .map(|s| s.to_string_lossy().into_owned())
        .ok_or_else(|| format!("glob `{pattern}` has no file-name pattern"))?;
    if dir.to_string_lossy().contains(['*', '?']) {
        return Err(format!(
            "glob `{pattern}`: wildcards are allowed in the last component only"
        ));
    }
    let entries = std::fs::read_dir(dir)
        .map_err(|e| format!("glob `{pattern}`: cannot read {}: {e}", dir.display()))?;
    let mut out: Vec<PathBuf> = entries
        .filter_map(|e| e.ok())
        .filter(|e| e.file_type().map(|t| t.is_file()).unwrap_or(false))
        .filter(|e| wildcard::matches(&name, &e.file_name().to_string_lossy()))
        .map(|e| e.path())
        .collect();
    // Graphs are named, listed and found again by their path as text.
    if let Some(bad) = out.iter().find(|p| p.to_str().is_none()) {
        return Err(format!(
            "glob `{pattern}` matches {}, whose name is not UTF-8: rename the file",
            bad.display()
        ));
    }
    out.sort();
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    const MINIMAL: &str = "solvers = [\"kahn\"]\n";

    #[test]
    fn defaults_fill_in() {
        let c = Config::parse(MINIMAL, "x.toml", "x").unwrap();
        assert_eq!(c.name, "x");
        assert_eq!(c.baselines, vec!["program"]);
        assert_eq!(c.plots.len(), 4);
        assert_eq!(c.all_solvers(), vec!["program", "kahn"]);
    }

    /// A graph given for the config is named as such, not as TOML's
    /// `invalid key` at its `{`.
    #[test]
    fn a_json_graph_given_as_the_config_is_named() {
        let err = Config::parse("\u{feff}\n {\"Nodes\": []}", "g.json", "g")
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("g.json: it starts with `{`, as a JSON graph does")
                && err.contains("`memsched schedule GRAPH`"),
            "{err}"
        );
    }

    #[test]
    fn one_solver_spelled_twice_is_an_error() {
        let text = "solvers = [\"kahn\", \"rule:delta,id\", \"rule: delta , id\"]\n";
        let err = Config::parse(text, "exp.toml", "e")
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("`rule:delta,id` and `rule: delta , id`") && err.contains("exp.toml"),
            "{err}"
        );
        let text = "solvers = [\"moves-greedy\", \"moves:delta,type,id\"]\n";
        assert!(Config::parse(text, "exp.toml", "e").is_ok());
    }

    #[test]
    fn every_solver_name_that_does_not_build_is_named() {
        let text = "solvers = [\"kahn\", \"rule:delta,delta\", \"rule:bogus\", \"kahnn\"]\n";
        let err = Config::parse(text, "exp.toml", "e")
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("in `solvers`, 3 names do not build:\n  - "),
            "{err}"
        );
        for part in ["never decides", "`bogus`", "kahnn"] {
            assert!(err.contains(part), "{part}: {err}");
        }
    }

    #[test]
    fn tetris_solvers_are_solvers_of_the_config_in_any_spelling() {
        let text = "solvers = [\"kahn\", \"rule:delta,id\"]\ntetris_solvers = [\"rule: delta, id\", \"program\"]\n";
        let c = Config::parse(text, "exp.toml", "e").unwrap();
        assert_eq!(c.tetris_solvers, ["rule:delta,id", "program"]);
        let text = "solvers = [\"kahn\"]\ntetris_solvers = [\"xla-list\"]\n";
        let err = Config::parse(text, "exp.toml", "e")
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("`tetris_solvers` lists `xla-list`, which is not among"),
            "{err}"
        );
        let text = "solvers = [\"rule:delta,id\"]\ntetris_solvers = [\"rule:delta,id\", \"rule: delta, id\"]\n";
        let err = Config::parse(text, "exp.toml", "e")
            .unwrap_err()
            .to_string();
        assert!(err.contains("lists `rule:delta,id` twice"), "{err}");
        let text = "solvers = [\"kahn\"]\ntetris_solvers = [\"kahnn\"]\n";
        let err = Config::parse(text, "exp.toml", "e")
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("in `tetris_solvers`") && err.contains("kahn"),
            "{err}"
        );
        // Absent, it is not written out (recorded configs stay as they were).
        let c = Config::parse(MINIMAL, "x.toml", "x").unwrap();
        assert!(!c.to_toml().contains("tetris_solvers"));
    }

    #[test]
    fn a_baseline_or_plot_listed_twice_is_an_error() {
        for (text, wanted) in [
            (
                "baselines = [\"program\", \" program\"]\n",
                "`baselines` lists `program` twice",
            ),
            (
                "plots = [\"time\", \"time\"]\n",
                "`plots` lists `time` twice",
            ),
        ] {
            let text = format!("solvers = [\"kahn\"]\n{text}");
            let err = Config::parse(&text, "exp.toml", "e")
                .unwrap_err()
                .to_string();
            assert!(err.contains(wanted), "{err}");
        }
    }

    /// Names are trimmed and spelled as the solver names itself when read:
    /// rows, baselines and the report compare them as written (a baseline
    /// `" program"` matched no row, and a rule respelled became a new
    /// solver on resume).
    #[test]
    fn solver_and_baseline_names_are_trimmed_and_canonical() {
        let text = "solvers = [\" kahn\", \"rule: delta, type,id\"]\nbaselines = [\"program \"]\n";
        let c = Config::parse(text, "exp.toml", "e").unwrap();
        assert_eq!(
            (c.solvers, c.baselines),
            (
                vec!["kahn".into(), "rule:delta,type,id".into()],
                vec!["program".into()]
            )
        );
    }

    #[test]
    fn a_claim_must_be_a_finite_number() {
        for bad in ["nan", "inf"] {
            let text =
                format!("solvers = [\"kahn\"]\n[[claims]]\ngraph = \"g\"\nreduction_pct = {bad}\n");
            let err = Config::parse(&text, "exp.toml", "e")
                .unwrap_err()
                .to_string();
            assert!(
                err.contains("`reduction_pct` must be a finite number"),
                "{err}"
            );
        }
        let text = "solvers = [\"kahn\"]\n[[claims]]\ngraph = \"g\"\nreduction_pct = 150\n";
        let err = Config::parse(text, "exp.toml", "e")
            .unwrap_err()
            .to_string();
        assert!(err.contains("at most 100 (got 150)"), "{err}");
        let text = "solvers = [\"kahn\"]\n[[claims]]\ngraph = \"g\"\nreduction_pct = 10\n\
                    source = \"a | b\\nc\"\n";
        let err = Config::parse(text, "exp.toml", "e")
            .unwrap_err()
            .to_string();
        assert!(
            err.contains(r#"`source` "a | b\nc" has a line break"#),
            "{err}"
        );
    }

    #[test]
    fn two_claims_for_one_graph_are_an_error() {
        let claim = |graph: &str, pct: u32| {
            format!("[[claims]]\ngraph = \"{graph}\"\nreduction_pct = {pct}\n")
        };
        let text = format!(
            "solvers = [\"kahn\"]\n{}{}",
            claim("tensor-program:ops=40,allocs=floating#0", 5),
            claim("tensor-program:allocs=floating,ops=40#0", 7)
        );
        let err = Config::parse(&text, "exp.toml", "e")
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("two claims for graph") && err.contains("(5% and 7%)"),
            "{err}"
        );
        let text = format!("solvers = [\"kahn\"]\n{}{}", claim("a", 5), claim("b", 7));
        assert!(Config::parse(&text, "exp.toml", "e").is_ok());
    }

    #[test]
    fn restarts_default_to_one_and_zero_is_an_error() {
        let c = Config::parse("solvers = [\"kahn\"]\n", "exp.toml", "e").unwrap();
        assert_eq!(c.restarts, 1);
        let c = Config::parse("solvers = [\"random\"]\nrestarts = 8\n", "exp.toml", "e").unwrap();
        assert_eq!(c.restarts, 8);
        let c = Config::parse("solvers = [\"kahn\"]\nrestarts = 8\n", "exp.toml", "e").unwrap();
        assert!(!c.restarts_apply());
        for bad in ["0", "-2"] {
            let text = format!("solvers = [\"random\"]\nrestarts = {bad}\n");
            let err = Config::parse(&text, "exp.toml", "e")
                .unwrap_err()
                .to_string();
            assert!(
                err.contains("restarts") && err.contains("exp.toml"),
                "{bad}: {err}"
            );
        }
    }

    /// A bare spec is the entry with seed 0; a table keeps its own errors.
    #[test]
    fn a_generate_entry_is_a_spec_or_a_table() {
        let text = "solvers = [\"kahn\"]\n[graphs]\ngenerate = [\"chain:length=3\", \
                    { spec = \"chain:length=4\", seeds = \"0..2\" }]\n";
        let c = Config::parse(text, "exp.toml", "e").unwrap();
        let entries: Vec<(&str, Vec<u64>)> = c
            .graphs
            .generate
            .iter()
            .enumerate()
            .map(|(i, e)| (e.spec.as_str(), e.seed_list(i).unwrap()))
            .collect();
        assert_eq!(
            entries,
            [("chain:length=3", vec![0]), ("chain:length=4", vec![0, 1])]
        );
        // `family` labels an entry's graphs, and is written back only when
        // given.
        let labelled = text.replace("seeds = \"0..2\"", "seeds = \"0..2\", family = \"long\"");
        let c = Config::parse(&labelled, "exp.toml", "e").unwrap();
        let families: Vec<Option<&str>> = (c.graphs.generate.iter())
            .map(|e| e.family.as_deref())
            .collect();
        assert_eq!(families, [None, Some("long")]);
        let written = toml::to_string(&c).unwrap();
        assert_eq!(written.matches("family").count(), 1, "{written}");
        for (entry, says) in [
            ("{ spec = \"chain\", seed = 1 }", "unknown field `seed`"),
            ("3", "expected a generator spec string"),
            ("{ spec = \"chain\", family = \" \" }", "`family` is empty"),
            ("{ spec = \"chain\", family = \"a|b\" }", "has a `|`"),
            ("{ spec = \"chain\", family = \"a \" }", "spaces at an end"),
        ] {
            let text = format!("solvers = [\"kahn\"]\n[graphs]\ngenerate = [{entry}]\n");
            let err = Config::parse(&text, "exp.toml", "e")
                .unwrap_err()
                .to_string();
            assert!(err.contains(says), "{err}");
        }
    }

    #[test]
    fn an_empty_name_is_refused_and_an_absent_one_is_the_files() {
        let graphs = "[graphs]\ngenerate = [\"chain\"]\n";
        let text = format!("name = \"\"\nsolvers = [\"kahn\"]\n{graphs}");
        let err = Config::parse(&text, "e.toml", "e").unwrap_err().to_string();
        assert!(
            err.contains("`name` is empty") && err.contains("`e`"),
            "{err}"
        );
        let text = format!("solvers = [\"kahn\"]\n{graphs}");
        assert_eq!(Config::parse(&text, "e.toml", "e").unwrap().name, "e");
        // A file's name that cannot name an experiment is blamed on the file.
        let err = Config::parse(&text, "my exp.toml", "my exp")
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("(got `my exp`): without a `name` key the experiment is named after"),
            "{err}"
        );
        // A name that no directory can have is refused up front.
        let text = format!(
            "name = \"{}\"\nsolvers = [\"kahn\"]\n{graphs}",
            "n".repeat(256)
        );
        let err = Config::parse(&text, "e.toml", "e").unwrap_err().to_string();
        assert!(err.contains("256 characters long; at most 255"), "{err}");
        let text = format!(
            "name = \"{}\"\nsolvers = [\"kahn\"]\n{graphs}",
            "n".repeat(255)
        );
        assert!(Config::parse(&text, "e.toml", "e").is_ok());
    }

    #[test]
    fn unknown_key_is_named_with_the_file() {
        let err = Config::parse("solvers = [\"kahn\"]\ntime_limt = 3\n", "exp.toml", "e")
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("time_limt") && err.contains("exp.toml"),
            "{err}"
        );
        let err = Config::parse(
            "solvers = [\"kahn\"]\n[graphs]\nfile = []\n",
            "exp.toml",
            "e",
        )
        .unwrap_err()
        .to_string();
        assert!(err.contains("`file`"), "{err}");
    }

    #[test]
    fn unknown_solver_and_family_are_named() {
        let err = Config::parse("solvers = [\"kahnn\"]\n", "e.toml", "e")
            .unwrap_err()
            .to_string();
        assert!(err.contains("kahnn"), "{err}");
        let err = Config::parse(
            "solvers = [\"kahn\"]\n[graphs]\ngenerate = [{ spec = \"nosuch:a=1\" }]\n",
            "e.toml",
            "e",
        )
        .unwrap_err()
        .to_string();
        assert!(err.contains("nosuch"), "{err}");
    }

    #[test]
    fn a_time_limit_is_read_in_seconds_with_or_without_an_s() {
        let limit = |value: &str| {
            let text = format!("solvers = [\"kahn\"]\ntime_limit = {value}\n");
            Config::parse(&text, "exp.toml", "e").map(|c| c.time_limit)
        };
        for (value, seconds) in [
            ("30", 30.0),
            ("2.5", 2.5),
            ("\"30s\"", 30.0),
            ("\"0.5 s\"", 0.5),
        ] {
            assert_eq!(limit(value).unwrap(), seconds, "{value}");
        }
        let err = limit("\"2m\"").unwrap_err().to_string();
        assert!(
            err.contains("`2m` is not a number of seconds: write `30` or `\"30s\"`"),
            "{err}"
        );
        let err = limit("true").unwrap_err().to_string();
        assert!(err.contains("a number of seconds"), "{err}");
        assert!(limit("\"-1s\"").is_err(), "still checked as a limit");
    }

    #[test]
    fn time_limits_beyond_duration_are_errors_not_panics() {
        for bad in ["1e30", "1.9e19", "inf", "nan", "0", "-1", "1e-10", "9e-10"] {
            let text = format!("solvers = [\"kahn\"]\ntime_limit = {bad}\n");
            let err = Config::parse(&text, "exp.toml", "e")
                .unwrap_err()
                .to_string();
            assert!(
                err.contains("`time_limit`") && err.contains("exp.toml"),
                "{bad}: {err}"
            );
        }
        // Within Duration's range: accepted, and the clock copes (no deadline).
        let c = Config::parse("solvers = [\"kahn\"]\ntime_limit = 1e19\n", "e.toml", "e").unwrap();
        assert_eq!(c.time_limit().as_secs(), 10_000_000_000_000_000_000);
    }

    /// The error says which `seeds` it is about: the top-level key or a
    /// generator entry, by number and spec.
    #[test]
    fn repeated_seed_errors_name_the_entry() {
        let text = "solvers = [\"kahn\"]\nseeds = [3, 3]\n";
        let err = Config::parse(text, "c.toml", "c").unwrap_err().to_string();
        assert!(
            err.contains("in `seeds`: seed 3 is listed twice (entries #0 and #1 of 2)"),
            "{err}"
        );
        let text = "solvers = [\"kahn\"]\n[graphs]\ngenerate = [{ spec = \"chain\" }, \
                    { spec = \"chain:length=4\", seeds = [1, 2, 1] }]\n";
        let err = Config::parse(text, "c.toml", "c").unwrap_err().to_string();
        assert!(
            err.contains(
                "in `graphs.generate` entry #1 (`chain:length=4`), `seeds`: \
                 seed 1 is listed twice (entries #0 and #2 of 3)"
            ),
            "{err}"
        );
    }
}
