//! The work of an experiment: graphs x solvers x seeds, in a fixed order.
//!
//! [`Plan::new`] resolves a [`Config`] into named graphs ([`GraphEntry`]),
//! solvers ([`SolverEntry`], with whether they are seeded) and work items
//! ([`Item`]). Items are numbered graph-major (graph, then solver in config
//! order with baselines first, then seed), so the same config gives the same
//! ids on every machine; [`Shard`] keeps every N-th item for cluster arrays.
//! Randomized solvers (`abilities().seeded`) run once per seed in `seeds`;
//! deterministic ones run with seed 0 only.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::path::{Path, PathBuf};
use std::str::FromStr;

use super::config::{expand_glob, Config};
use super::rows::Key;
use crate::corpus::gen::GenSpec;
use crate::rng::Rng;
use crate::solvers;

/// The family of a graph file: the name of its directory, however the
/// path spells it (`../g.json`, `./g.json` and `g.json` name the directory
/// too); `file` when it has none (`/g.json`).
fn family_of(path: &Path) -> String {
    let dir = match path.parent() {
        Some(d) if d.as_os_str().is_empty() => Path::new("."),
        Some(d) => d,
        None => return "file".into(),
    };
    dir.file_name()
        .map(|s| s.to_os_string())
        .or_else(|| {
            std::fs::canonicalize(dir)
                .ok()?
                .file_name()
                .map(|s| s.to_os_string())
        })
        .map_or_else(|| "file".into(), |s| s.to_string_lossy().into_owned())
}

/// Most solves one experiment may plan: each costs about 400 bytes of
/// memory through a run (its item, its row, the resume's key), so 10
/// million took 3.7 GB in a review and 99 million exhausted the machine.
const MAX_ITEMS: u128 = 5_000_000;
/// Where a graph comes from.
#[derive(Debug, Clone, PartialEq)]
pub enum GraphSource {
    /// A seed JSON file.
    File(PathBuf),
    /// A generator spec and seed.
    Generated {
        /// The generator spec, parsed from the config's `generate` entry.
        spec: GenSpec,
        /// The generator seed: one of the entry's `seeds`.
        seed: u64,
    },
}

/// A named graph of the experiment.
#[derive(Debug, Clone, PartialEq)]
pub struct GraphEntry {
    /// `resnet50_inference_b1` (file stem) or `random-layered:layers=20#3` (spec#seed).
    pub name: String,
    /// Generator family (or the entry's `family`), or the directory name
    /// for files (`models`).
    pub family: String,
    /// Where to load or generate it from (nothing is loaded when the plan
    /// is made).
    pub source: GraphSource,
}

/// A solver of the experiment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SolverEntry {
    /// The registry name as the solver spells it (the config's
    /// `rule: delta, id` is `rule:delta,id`), as in `runs.csv`'s `solver`
    /// column.
    pub name: String,
    /// Runs once per seed (otherwise once, with seed 0).
    pub seeded: bool,
    /// Can prove optimality.
    pub exact: bool,
}

/// One solve: indices into [`Plan::graphs`] and [`Plan::solvers`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Item {
    /// Position in the full plan (stable across shards and resumes).
    pub id: usize,
    /// Index into [`Plan::graphs`].
    pub graph: usize,
    /// Index into [`Plan::solvers`].
    pub solver: usize,
    /// The solver's seed: one of the config's `seeds` for a seeded
    /// solver, 0 for a deterministic one.
    pub seed: u64,
}

/// `--shard K/N`: the K-th of N parts of the items (K counts from 0, as
/// Slurm's `SLURM_ARRAY_TASK_ID` and Kubernetes' `JOB_COMPLETION_INDEX`
/// do); see [`Plan::shard_items`] for which items.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shard {
    /// K: which part, in `0..count`.
    pub index: usize,
    /// N: how many parts, at least 1.
    pub count: usize,
}

impl FromStr for Shard {
    type Err = String;
    fn from_str(s: &str) -> Result<Shard, String> {
        let (k, n) = s
            .split_once('/')
            .ok_or_else(|| format!("shard `{s}` is not K/N"))?;
        // Digits past usize's range are a number, just too large.
        let number = |part: &str| {
            let t = part.trim();
            t.parse::<usize>().map_err(|_| {
                match !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit()) {
                    true => format!(
                        "shard `{s}`: `{part}` is too large (at most {})",
                        usize::MAX
                    ),
                    false => format!("shard `{s}`: `{part}` is not a whole number (0 or more)"),
                }
            })
        };
        let (k, n) = (number(k)?, number(n)?);
        if n == 0 {
            return Err(format!(
                "shard `{s}`: need 0 <= K < N, and N = 0 has no shard"
            ));
        }
        if k >= n {
            return Err(format!(
                "shard `{s}`: need 0 <= K < N (shards are counted from 0: the {n} of N = {n} \
                 are 0/{n} to {}/{n})",
                n - 1
            ));
        }
        Ok(Shard { index: k, count: n })
    }
}

impl fmt::Display for Shard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

/// Salt of the hashes that place items in shards: fixed, so that every
/// shard of a run, and every later resume of it, agrees.
const SHARD_SALT: u64 = 0x5348_4152_4453; // "SHARDS"

/// A hash of an item's key (graph name, solver name, seed) that is the same
/// on every build and platform: FNV-1a over the names, then mixed with the
/// seed by [`Rng::derive_first`].
fn key_hash(graph: &str, solver: &str, seed: u64) -> u64 {
    // 0xff never occurs in UTF-8, so ("ab", "c") and ("a", "bc") differ.
    let bytes = graph.bytes().chain([0xff]).chain(solver.bytes());
    let fnv = bytes.fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
        (h ^ b as u64).wrapping_mul(0x0100_0000_01b3)
    });
    Rng::derive_first(fnv ^ SHARD_SALT, seed)
}

/// Graphs, solvers and items of one config.
#[derive(Debug, Clone)]
pub struct Plan {
    /// Files, then globs' matches, then generated graphs, in config order.
    pub graphs: Vec<GraphEntry>,
    /// Baselines, then solvers, each once ([`Config::all_solvers`]).
    pub solvers: Vec<SolverEntry>,
    /// Every solve, graph-major, `items[i].id == i`.
    pub items: Vec<Item>,
}

/// The config's graph files, each with where it was listed (`files`
/// entry or glob), so a file listed twice is named with both places.
fn listed_files(config: &Config) -> Result<Vec<(PathBuf, String)>, String> {
    let mut files: Vec<(PathBuf, String)> = Vec::new();
    for f in &config.graphs.files {
        let p = PathBuf::from(f);
        if p.is_dir() {
            return Err(format!(
                "graph file `{f}` is a directory: list its graphs with a glob \
                 (`globs = [\"{}/*.json\"]`)",
                f.trim_end_matches('/')
            ));
        }
        if !p.exists() {
            return Err(match generate_entry(f) {
                Some(entry) => format!(
                    "graph file `{f}` does not exist; a generated graph is listed under \
                     `[graphs] generate`: `{entry}`"
                ),
                None => format!("graph file `{f}` does not exist{}", relative_to_cwd(&p)),
            });
        }
        if !p.is_file() {
            return Err(format!(
                "graph file `{f}` is not a regular file (a device or a pipe?)"
            ));
        }
        files.push((p, format!("`files` entry `{f}`")));
    }
    for pattern in &config.graphs.globs {
        let found = expand_glob(pattern)
            .map_err(|e| format!("{e}{}", relative_to_cwd(Path::new(pattern))))?;
        if found.is_empty() {
            return Err(format!(
                "glob `{pattern}` matches no file{}",
                relative_to_cwd(Path::new(pattern))
            ));
        }
        files.extend(found.into_iter().map(|p| (p, format!("glob `{pattern}`"))));
    }
    Ok(files)
}

/// Every graph of the config: its files (each once), then its generated
/// graphs; names must be unique, and there must be one.
fn graph_entries(config: &Config) -> Result<Vec<GraphEntry>, String> {
    let mut graphs = Vec::new();
    let mut names = BTreeSet::new();
    let mut push = |g: GraphEntry| -> Result<(), String> {
        if !names.insert(g.name.clone()) {
            return Err(format!(
                "two graphs are named `{}` in `[graphs]`; graph names (a file's stem, \
                 SPEC#SEED for a generated graph) must be unique",
                g.name
            ));
        }
        graphs.push(g);
        Ok(())
    };
    let files = listed_files(config)?;
    let mut seen: BTreeMap<PathBuf, String> = BTreeMap::new();
    for (p, origin) in files {
        let key = p.canonicalize().unwrap_or_else(|_| p.clone());
        if let Some(first) = seen.get(&key) {
            return Err(format!(
                "graph file `{}` is listed twice in `[graphs]` ({first} and {origin}); \
                 two graphs may not share a name",
                p.display()
            ));
        }
        seen.insert(key, origin);
        let name = p
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        let family = family_of(&p);
        push(GraphEntry {
            name,
            family,
            source: GraphSource::File(p),
        })?;
    }
    for (k, g) in config.graphs.generate.iter().enumerate() {
        let spec = GenSpec::parse(&g.spec).map_err(|e| e.to_string())?;
        for seed in g.seed_list(k)? {
            push(GraphEntry {
                name: format!("{spec}#{seed}"),
                family: g.family.clone().unwrap_or_else(|| spec.family.clone()),
                source: GraphSource::Generated {
                    spec: spec.clone(),
                    seed,
                },
            })?;
        }
    }
    if graphs.is_empty() {
        return Err(
            "the config has no graphs: add `[graphs]` with `files`, `globs` or `generate`".into(),
        );
    }
    Ok(graphs)
}

/// `tetris_graph` and every `[[claims]]` graph must name a graph.
fn check_references(config: &Config, graphs: &[GraphEntry]) -> Result<(), String> {
    if let Some(name) = &config.tetris_graph {
        if find_graph(graphs, name).is_none() {
            return Err(unknown_graph("tetris_graph", name, graphs));
        }
    }
    for claim in &config.claims {
        if find_graph(graphs, &claim.graph).is_none() {
            return Err(unknown_graph("[[claims]] graph", &claim.graph, graphs));
        }
    }
    Ok(())
}

/// Every solver of the config (baselines included), with what the plan
/// needs to know of it.
fn solver_entries(config: &Config) -> Result<Vec<SolverEntry>, String> {
    config
        .all_solvers()
        .into_iter()
        .map(|name| {
            let s = solvers::build(&name).map_err(|e| e.to_string())?;
            let a = s.abilities();
            Ok(SolverEntry {
                name,
                seeded: a.seeded,
                exact: a.exact,
            })
        })
        .collect()
}

impl Plan {
    /// Resolves files, globs and generator specs and numbers the items.
    ///
    /// A config built or changed in code is first checked as a parsed one
    /// is ([`Config::validate`]: every setting, not only the graphs) and
    /// its solver names read as parsed (`rule: delta , id` as
    /// `rule:delta,id`, the keys of the rows `run` writes). Errors (those
    /// checks', a missing file, an empty glob, two graphs with one name, a
    /// file listed twice, a `tetris_graph` that is none of the graphs) name
    /// the offending entry. No graph is loaded or generated here.
    ///
    /// # Complexity
    /// O(G * S * K) items for G graphs, S solvers and K seeds, plus one
    /// directory listing per glob.
    pub fn new(config: &Config) -> Result<Plan, String> {
        // A config built in code: checked, its names read as parsed (the
        // keys of the rows `run` writes).
        Self::of_checked(&config.checked_as_parsed()?)
    }

    /// [`Plan::new`] of a config already checked and read as parsed
    /// ([`Config::checked_as_parsed`]): `run`'s, which need not be
    /// checked again.
    pub(crate) fn of_checked(config: &Config) -> Result<Plan, String> {
        let graphs = graph_entries(config)?;
        check_references(config, &graphs)?;
        let solvers = solver_entries(config)?;
        let seeds = config.seed_list()?;
        let per_graph: u128 = solvers
            .iter()
            .map(|e| if e.seeded { seeds.len() as u128 } else { 1 })
            .sum();
        let total = per_graph * graphs.len() as u128;
        if total > MAX_ITEMS {
            return Err(format!(
                "the config makes {total} solves (graphs x solvers x seeds); at most \
                 {MAX_ITEMS} are allowed (each holds memory through the run): split it \
                 into several experiments"
            ));
        }
        let mut items = Vec::new();
        for g in 0..graphs.len() {
            for (s, entry) in solvers.iter().enumerate() {
                let list: &[u64] = if entry.seeded { &seeds } else { &[0] };
                for &seed in list {
                    items.push(Item {
                        id: items.len(),
                        graph: g,
                        solver: s,
                        seed,
                    });
                }
            }
        }
        Ok(Plan {
            graphs,
            solvers,
            items,
        })
    }

    /// The items of one shard (all items without a shard).
    ///
    /// An item's shard is a hash of its graph's name, its solver's name and
    /// its seed ([`Plan::shard_of`]), and of nothing else in the config:
    /// after adding or removing graphs, solvers or seeds, every item left
    /// stays in its shard, so rerunning the shards into their directories
    /// solves only the new items. Each shard gets each item with
    /// probability 1/N, independently, so shares are even on average, not
    /// exactly. (Earlier versions placed items by their position in the
    /// plan: a sharded run begun with one of them is finished with it, or
    /// rerun.)
    pub fn shard_items(&self, shard: Option<Shard>) -> Vec<Item> {
        let Some(s) = shard else {
            return self.items.clone();
        };
        self.items
            .iter()
            .filter(|it| self.shard_of(it, s.count) == s.index)
            .copied()
            .collect()
    }

    /// The shard (of `count`) of `item` (see [`Plan::shard_items`]).
    pub fn shard_of(&self, item: &Item, count: usize) -> usize {
        let (graph, solver) = (
            &self.graphs[item.graph].name,
            &self.solvers[item.solver].name,
        );
        (key_hash(graph, solver, item.seed) % count as u64) as usize
    }

    /// The (graph, solver, seed) key of an item, as in [`super::rows::Row::key`].
    pub fn key(&self, item: &Item) -> Key {
        (
            self.graphs[item.graph].name.clone(),
            self.solvers[item.solver].name.clone(),
            item.seed,
        )
    }

    /// The items whose key is not in `present` (the keys of some rows).
    pub fn items_without<'a>(
        &'a self,
        present: &'a BTreeSet<Key>,
    ) -> impl Iterator<Item = &'a Item> + 'a {
        self.items
            .iter()
            .filter(move |it| !present.contains(&self.key(it)))
    }

    /// The index of the graph called `name`; a generated graph may also be
    /// named with its spec's parameters in another order, as written in the
    /// config (`tensor-program:ops=40,allocs=floating#0` for
    /// `tensor-program:allocs=floating,ops=40#0`).
    pub fn graph_index(&self, name: &str) -> Option<usize> {
        find_graph(&self.graphs, name)
    }
}

/// See [`Plan::graph_index`].
fn find_graph(graphs: &[GraphEntry], name: &str) -> Option<usize> {
    graphs
        .iter()
        .position(|g| g.name == name)
        .or_else(|| graphs.iter().position(|g| g.name == canonical_name(name)))
}

/// The name the plan gives the graph a config calls `name`: a generated
/// graph's `SPEC#SEED` with the spec's parameters in their canonical order
/// (`tensor-program:allocs=floating,ops=40#0` for
/// `tensor-program:ops=40,allocs=floating#0`); any other name as it is.
pub fn canonical_name(name: &str) -> String {
    name.rsplit_once('#')
        .and_then(|(spec, seed)| Some(format!("{}#{}", GenSpec::parse(spec).ok()?, seed.trim())))
        .unwrap_or_else(|| name.to_string())
}

/// The error for a graph name (`key`: `tetris_graph`, a claim's graph) that
/// is not a graph of the plan: lists the valid names (the first few of a
/// long list).
fn unknown_graph(key: &str, name: &str, graphs: &[GraphEntry]) -> String {
    const SHOWN: usize = 12;
    let known = crate::text::first_few(
        graphs.iter(),
        SHOWN,
        |g| format!("`{}`", g.name),
        |more| format!("... ({more} more)"),
    );
    format!(
        "`{key}` = `{name}` is not a graph of the experiment; its graphs: {}",
        known.join(", ")
    )
}

/// The `[graphs] generate` entry for `name` when it is a generated
/// graph's name, `SPEC#SEED` of a known family and parameters (`chain#0`),
/// as a `files` entry may be written by someone who has used it on the
/// command line. A seed past TOML's integers is written as a range.
fn generate_entry(name: &str) -> Option<String> {
    let (spec, seed) = crate::corpus::gen::parse_graph_name(name)?.ok()?;
    spec.check_names().ok()?;
    let seeds = match i64::try_from(seed) {
        Ok(_) => format!("[{seed}]"),
        Err(_) => format!("\"{seed}..{}\"", u128::from(seed) + 1),
    };
    let (spec, _) = name.rsplit_once('#')?;
    Some(format!(
        "generate = [{{ spec = \"{spec}\", seeds = {seeds} }}]"
    ))
}

/// For a relative path in a config, where it was looked for: paths in a
/// config are relative to the current directory, not to the config's.
fn relative_to_cwd(p: &Path) -> String {
    if p.is_absolute() {
        return String::new();
    }
    match std::env::current_dir() {
        Ok(cwd) => format!(
            " (paths in a config are relative to the current directory, here {})",
            cwd.display()
        ),
        Err(_) => " (paths in a config are relative to the current directory)".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A file's family is its directory's name however the path spells
    /// it: `../g.json` gave `file`, `/abs/dir/g.json` the directory.
    #[test]
    fn a_files_family_is_its_directorys_name() {
        let dir = tempfile::tempdir().unwrap();
        let inner = dir.path().join("models");
        std::fs::create_dir_all(inner.join("sub")).unwrap();
        let name = |p: &Path| family_of(p);
        assert_eq!(name(&inner.join("g.json")), "models");
        assert_eq!(name(&inner.join("sub/../g.json")), "models");
        assert_eq!(name(&inner.join("./g.json")), "models");
        assert_eq!(name(Path::new("/g.json")), "file");
        let here = std::env::current_dir().unwrap();
        let here = here.file_name().unwrap().to_string_lossy();
        assert_eq!(name(Path::new("g.json")), here);
        assert_eq!(name(Path::new("./g.json")), here);
    }
    use crate::experiment::config::Seeds;
    use std::fs;

    fn plan(text: &str) -> Plan {
        Plan::new(&Config::parse(text, "t.toml", "t").unwrap()).unwrap()
    }

    /// A generated graph's name listed as a file is pointed to `generate`;
    /// another missing file is not.
    #[test]
    fn a_generated_name_among_the_files_points_to_generate() {
        let planned = |file: &str| {
            let text = format!("solvers = [\"kahn\"]\n[graphs]\nfiles = [\"{file}\"]\n");
            Plan::new(&Config::parse(&text, "t.toml", "t").unwrap())
                .err()
                .unwrap()
                .to_string()
        };
        let err = planned("chain:length=4#2");
        assert!(
            err.contains(
                "`chain:length=4#2` does not exist; a generated graph is listed under \
                 `[graphs] generate`: `generate = [{ spec = \"chain:length=4\", seeds = [2] }]`"
            ),
            "{err}"
        );
        let err = planned("chain#18446744073709551615");
        assert!(
            err.contains("seeds = \"18446744073709551615..18446744073709551616\""),
            "{err}"
        );
        for other in ["chian#2", "chain:lenght=4#2", "missing.json"] {
            let err = planned(other);
            assert!(!err.contains("generate"), "{err}");
        }
    }

    #[test]
    fn items_are_graph_major_and_deterministic_solvers_get_seed_zero() {
        let p = plan(
            "solvers = [\"kahn\", \"seed-greedy\"]\nseeds = \"0..3\"\n[graphs]\ngenerate = [{ spec = \"chain:length=4\", seeds = \"0..2\" }]\n",
        );
        assert_eq!(p.graphs.len(), 2);
        assert_eq!(p.graphs[1].name, "chain:length=4#1");
        assert_eq!(p.graphs[1].family, "chain");
        // program, kahn, seed-greedy: all deterministic, one seed each.
        assert_eq!(p.items.len(), 6);
        assert!(p.items.iter().all(|i| i.seed == 0));
        assert_eq!(p.items[3].graph, 1);
        assert!(p.items.iter().enumerate().all(|(k, i)| i.id == k));
    }

    /// A config changed in code after `Config::parse`: the plan's checks
    /// name the repeated seed and the generator entry, not the whole list.
    /// A config built in code is planned as the same config parsed: names
    /// read as parsed, settings checked.
    #[test]
    fn a_config_built_in_code_is_planned_as_parsed() {
        let mut built = Config::new("t", ["kahn", "rule: delta , type, id "]);
        built
            .graphs
            .generate
            .push(crate::experiment::config::GenerateEntry {
                spec: "chain".into(),
                seeds: Seeds::One(0),
                family: None,
            });
        let plan = Plan::new(&built).unwrap();
        let names: Vec<&str> = plan.solvers.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["program", "kahn", "rule:delta,type,id"]);
        built.time_limit = -1.0;
        let err = Plan::new(&built).unwrap_err();
        assert!(
            err.contains("`time_limit` must be a positive number"),
            "{err}"
        );
    }

    #[test]
    fn a_repeated_generator_seed_names_the_entry() {
        let mut config = Config::parse(
            "solvers = [\"kahn\"]\n[graphs]\ngenerate = [{ spec = \"chain\" }, { spec = \"chain:length=3\" }]\n",
            "t.toml",
            "t",
        )
        .unwrap();
        let mut list: Vec<u64> = (0..10_000).collect();
        list.push(42);
        config.graphs.generate[1].seeds = Seeds::List(list);
        let err = Plan::new(&config).unwrap_err();
        assert_eq!(
            err,
            "in `graphs.generate` entry #1 (`chain:length=3`), `seeds`: \
             seed 42 is listed twice (entries #42 and #10000 of 10001)"
        );
        config.graphs.generate[1].seeds = Seeds::One(0);
        config.seeds = Seeds::List(vec![9, 8, 9]);
        let err = Plan::new(&config).unwrap_err();
        assert_eq!(
            err,
            "in `seeds`: seed 9 is listed twice (entries #0 and #2 of 3)"
        );
    }

    #[test]
    fn shards_partition_the_items() {
        let p = plan(
            "solvers = [\"kahn\"]\n[graphs]\ngenerate = [{ spec = \"chain\", seeds = \"0..5\" }]\n",
        );
        let a = p.shard_items(Some("0/2".parse().unwrap()));
        let b = p.shard_items(Some("1/2".parse().unwrap()));
        assert_eq!(a.len() + b.len(), p.items.len());
        assert!(a.iter().all(|i| !b.contains(i)));
        assert_eq!(p.shard_items(None), p.items);
        let err = "2/2".parse::<Shard>().unwrap_err();
        assert!(err.contains("the 2 of N = 2 are 0/2 to 1/2"), "{err}");
        assert!("x".parse::<Shard>().is_err());
        let err = "1/18446744073709551616".parse::<Shard>().unwrap_err();
        assert!(err.contains("`18446744073709551616` is too large"), "{err}");
        let err = "1/-2".parse::<Shard>().unwrap_err();
        assert!(
            err.contains("`-2` is not a whole number (0 or more)"),
            "{err}"
        );
    }

    #[test]
    fn a_file_listed_twice_is_an_error_naming_it() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("g.json");
        fs::write(&f, "{}").unwrap();
        let f = f.display().to_string();
        let parse = |graphs: &str| {
            let text = format!("solvers = [\"kahn\"]\n[graphs]\n{graphs}\n");
            Plan::new(&Config::parse(&text, "t.toml", "t").unwrap())
        };
        let err = parse(&format!("files = [\"{f}\", \"{f}\"]")).unwrap_err();
        assert!(err.contains("g.json") && err.contains("twice"), "{err}");
        // The same file by a `files` entry and a glob.
        let glob = dir.path().join("*.json").display().to_string();
        let err = parse(&format!("files = [\"{f}\"]\nglobs = [\"{glob}\"]")).unwrap_err();
        assert!(err.contains("g.json") && err.contains(&glob), "{err}");
        // Once is fine.
        assert_eq!(
            parse(&format!("files = [\"{f}\"]")).unwrap().graphs.len(),
            1
        );
        // Two generated graphs with one name too.
        let err = parse("generate = [{ spec = \"chain\" }, { spec = \"chain\" }]").unwrap_err();
        assert!(err.contains("`chain#0`"), "{err}");
        // A missing relative path says where it was looked for; an
        // absolute one needs no such note.
        let err = parse("files = [\"no/such.json\"]").unwrap_err();
        let cwd = std::env::current_dir().unwrap();
        assert!(
            err.contains("relative to the current directory")
                && err.contains(&cwd.display().to_string()),
            "{err}"
        );
        let err = parse("globs = [\"no/such/*.json\"]").unwrap_err();
        assert!(err.contains("relative to the current directory"), "{err}");
        let absent = dir.path().join("absent.json").display().to_string();
        let err = parse(&format!("files = [\"{absent}\"]")).unwrap_err();
        assert!(!err.contains("relative"), "{err}");
    }

    /// A glob matching a file whose name is not UTF-8 says so (the name
    /// turned to text would name no file).
    #[cfg(unix)]
    #[test]
    fn a_glob_matching_a_name_that_is_not_utf8_says_so() {
        use std::os::unix::ffi::OsStrExt as _;
        let dir = tempfile::tempdir().unwrap();
        let name = std::ffi::OsStr::from_bytes(b"bad\xff.json");
        std::fs::write(dir.path().join(name), "{}").unwrap();
        let glob = dir.path().join("*.json").display().to_string();
        let err = crate::experiment::config::expand_glob(&glob).unwrap_err();
        assert!(err.contains("whose name is not UTF-8"), "{err}");
    }

    #[test]
    fn an_unknown_tetris_graph_is_an_error_listing_the_graphs() {
        let c = Config::parse(
            "solvers = [\"kahn\"]\ntetris_graph = \"nope\"\n[graphs]\ngenerate = [{ spec = \"chain\", seeds = \"0..2\" }]\n",
            "t.toml",
            "t",
        )
        .unwrap();
        let err = Plan::new(&c).unwrap_err();
        assert!(
            err.contains("`nope`") && err.contains("`chain#0`, `chain#1`"),
            "{err}"
        );
        let c = Config {
            tetris_graph: Some("chain#1".into()),
            ..c
        };
        assert_eq!(Plan::new(&c).unwrap().graph_index("chain#1"), Some(1));
        // A generated graph's parameters in the order the config wrote them.
        let c = Config::parse(
            "solvers = [\"kahn\"]\ntetris_graph = \"tensor-program:ops=40,allocs=floating#0\"\n[graphs]\ngenerate = [{ spec = \"tensor-program:ops=40,allocs=floating\" }]\n",
            "t.toml",
            "t",
        )
        .unwrap();
        let p = Plan::new(&c).unwrap();
        assert_eq!(p.graphs[0].name, "tensor-program:allocs=floating,ops=40#0");
        assert_eq!(
            p.graph_index("tensor-program:ops=40,allocs=floating#0"),
            Some(0)
        );
    }

    #[test]
    fn no_graphs_and_unknown_claim_graphs_are_errors() {
        let c = Config::parse("solvers = [\"kahn\"]\n", "t.toml", "t").unwrap();
        assert!(Plan::new(&c).unwrap_err().contains("no graphs"));
        let c = Config::parse(
            "solvers = [\"kahn\"]\n[graphs]\ngenerate = [{ spec = \"chain\" }]\n\
             [[claims]]\ngraph = \"nope\"\nreduction_pct = 5\n",
            "t.toml",
            "t",
        )
        .unwrap();
        let err = Plan::new(&c).unwrap_err();
        assert!(
            err.contains("`[[claims]] graph` = `nope`") && err.contains("`chain#0`"),
            "{err}"
        );
    }

    #[test]
    fn missing_file_is_named() {
        let c = Config::parse(
            "solvers = [\"kahn\"]\n[graphs]\nfiles = [\"/no/such.json\"]\n",
            "t.toml",
            "t",
        )
        .unwrap();
        assert!(Plan::new(&c).unwrap_err().contains("/no/such.json"));
    }

    /// The shard of each item's key (graph, solver, seed) under `count`.
    fn shard_keys(p: &Plan, count: usize) -> BTreeMap<(String, String, u64), usize> {
        (0..count)
            .flat_map(|index| p.shard_items(Some(Shard { index, count })))
            .map(|it| (p.key(&it), p.shard_of(&it, count)))
            .collect()
    }

    /// 40 graphs x (the `program` baseline, `kahn`, `dp`, `random` x 2
    /// seeds) = 200 items, 5 per graph: with `id % 5` all 40 `dp` runs fell
    /// in one shard. Now the shards partition the items, and every shard
    /// gets some of them and some of each solver's and seed's runs, at most
    /// twice its fair share.
    #[test]
    fn shards_share_out_every_solver() {
        let p = plan(
            "solvers = [\"kahn\", \"dp\", \"random\"]\nseeds = \"0..2\"\n[graphs]\n\
             generate = [{ spec = \"chain\", seeds = \"0..40\" }]\n",
        );
        assert_eq!(p.items.len(), 200);
        for count in [2, 4, 5] {
            let mut ids = BTreeSet::new();
            for index in 0..count {
                let items = p.shard_items(Some(Shard { index, count }));
                let fair = |n: usize| 1..=2 * n / count;
                assert!(fair(200).contains(&items.len()), "{index}/{count}");
                for (solver, seed) in [("dp", 0), ("random", 0), ("random", 1)] {
                    let s = p.solvers.iter().position(|e| e.name == solver).unwrap();
                    let runs = items
                        .iter()
                        .filter(|i| i.solver == s && i.seed == seed)
                        .count();
                    assert!(
                        fair(40).contains(&runs),
                        "{index}/{count}: {runs} runs of {solver} seed {seed}"
                    );
                }
                ids.extend(items.iter().map(|i| i.id));
            }
            assert_eq!(ids.len(), 200, "shards of {count} overlap or miss items");
        }
    }

    /// Adding graphs, solvers and seeds to a config moves no item of the
    /// old config to another shard: rerun shards solve only the new items.
    #[test]
    fn shards_stay_put_when_the_config_grows() {
        let small = plan(
            "solvers = [\"kahn\", \"random\"]\nseeds = \"0..2\"\n[graphs]\n\
             generate = [{ spec = \"chain\", seeds = \"0..30\" }]\n",
        );
        let grown = plan(
            "solvers = [\"dp\", \"kahn\", \"random\"]\nseeds = \"0..3\"\n[graphs]\n\
             generate = [{ spec = \"chain:length=5\", seeds = \"0..4\" },\
             { spec = \"chain\", seeds = \"0..31\" }]\n",
        );
        for count in [3, 16] {
            let (before, after) = (shard_keys(&small, count), shard_keys(&grown, count));
            assert_eq!(before.len(), small.items.len());
            for (key, shard) in &before {
                assert_eq!(
                    after.get(key),
                    Some(shard),
                    "{key:?} moved ({count} shards)"
                );
            }
        }
    }
}
