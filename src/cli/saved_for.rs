//! The graph an order was saved for, against the graph file `check` is given.
//!
//! A line of an experiment's `orders.jsonl` names its graph in its `graph`
//! field as the experiment names graphs: a file's stem (`resnet50_...` for
//! `datasets/models/resnet50_....json`), or `SPEC#SEED` for a generated graph
//! (`tree#1`, `random-layered:layers=4#3`). A generated graph's file can be
//! named anything, but records its family, every parameter and its seed
//! in its top-level `Generator` field, which is what [`mismatch`] compares
//! (a file written before the seed was recorded has none: its seed is not
//! compared).

use std::path::Path;

use serde_json::Value;

use crate::corpus::gen::{parse_graph_name, GenSpec};
use crate::text::printable;
use crate::Graph;

/// How the graph file `path` is named in messages (`-`: standard input).
pub fn shown(path: &str) -> &str {
    if path == "-" {
        "standard input"
    } else {
        path
    }
}

/// The name an experiment gives the graph file `path`: its stem (`None`
/// for standard input); for a generated graph's name that is no file
/// (`SPEC#SEED`, see [`generated_name`]), that name as `runs.csv` spells
/// it.
pub fn name_of(path: &str) -> Option<String> {
    if let Some(Ok((spec, seed))) = generated_name(path) {
        return Some(format!("{spec}#{seed}"));
    }
    (path != "-")
        .then(|| Path::new(path).file_stem())
        .flatten()
        .map(|s| s.to_string_lossy().into_owned())
}

/// Whether `path`, which no file has, is a generated graph's name as
/// `runs.csv` gives it (`SPEC#SEED`, the seed in decimal digits): `None`
/// for a file, standard input or a name of another shape; else its spec
/// and seed, or why they are not a graph's.
pub fn generated_name(path: &str) -> Option<Result<(GenSpec, u64), String>> {
    if path == "-" || Path::new(path).exists() {
        return None;
    }
    parse_graph_name(path).or_else(|| {
        // A spec before `#` and something else after it: a seed mistyped.
        let (spec, seed) = path.rsplit_once('#')?;
        let family = GenSpec::parse(spec).ok()?.family;
        crate::corpus::gen::families()
            .iter()
            .find(|f| f.name == family)?;
        Some(Err(format!(
            "the seed after `#` is a whole number from 0 to {}, not `{seed}`",
            u64::MAX
        )))
    })
}

/// Whether the order saved for graph `saved` clearly was not saved for
/// `graph`, read from `path`: `Some(clause)` saying how they differ, to end
/// "ORDER was saved for graph `saved`...", or `None` when they agree or
/// cannot be told apart.
///
/// - A file stem (no `#SEED`): they differ when `path`'s stem is another
///   name (standard input has no name to compare).
/// - A path (a report of `schedule` names its graph file as typed): they
///   differ when that file is here and is not `path`'s, or is not here
///   and has another stem than `path`.
/// - `SPEC#SEED`: they differ when `graph` records a `Generator` whose
///   family, a parameter (as SPEC gives it, or its default), or its seed
///   is another (a graph with no record may be a generated graph saved or
///   edited elsewhere: not told apart).
pub fn mismatch(saved: &str, path: &str, graph: &Graph) -> Option<String> {
    let stem = name_of(path);
    if stem.as_deref() == Some(saved) || saved == path {
        return None;
    }
    // A report of `schedule` names a graph file by its path as typed
    // (`dir/g.json`): where that file is here, it must be the file given;
    // elsewhere (another directory or machine), its stem must be the
    // given file's.
    let saved_path = Path::new(saved);
    let json = saved_path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("json"));
    let is_path =
        (json || saved.contains(std::path::is_separator)) && parse_graph_name(saved).is_none();
    if is_path && path != "-" {
        let same = match saved_path.is_file() {
            true => super::same_file(saved_path, Path::new(path)),
            false => {
                saved_path.file_stem().map(|s| s.to_string_lossy())
                    == stem.as_deref().map(Into::into)
            }
        };
        return (!same).then(|| {
            format!(
                "graph `{}`, and the graph given is {}",
                printable(saved),
                shown(path)
            )
        });
    }
    let file = shown(path);
    // The names come from files: escaped, so they cannot forge output.
    let saved_shown = printable(saved);
    // A generated graph's name given for the graph: its spec and seed are
    // known, so another generated name is another graph.
    if let (Some(Ok((given_spec, given_seed))), Some(given)) = (generated_name(path), &stem) {
        if let Some(Ok((spec, seed))) = parse_graph_name(saved) {
            let same = seed == given_seed && spec.same_graphs_as(&given_spec);
            return (!same).then(|| {
                format!(
                    "graph `{saved_shown}`, and the graph given is `{}`",
                    printable(given)
                )
            });
        }
    }
    let Some((spec, seed)) = generated_spec(saved) else {
        // Standard input has no name to compare.
        return stem.map(|_| format!("graph `{saved_shown}`, and the graph given is {file}"));
    };
    let record = graph.graph_extra().get("Generator")?;
    let family = record.get("family").and_then(Value::as_str)?;
    if family != spec.family {
        return Some(format!(
            "graph `{saved_shown}`, a `{}` graph, and {file} was generated by `{}`",
            spec.family,
            printable(family)
        ));
    }
    // Every parameter of the family: one the name leaves out is at its
    // default (`chain#1` is `chain:allocs=anchored,length=10#1`).
    let families = crate::corpus::gen::families();
    let info = families.iter().find(|f| f.name == spec.family)?;
    let recorded_seed = record.get("seed").and_then(seed_of);
    let other_seed = recorded_seed
        .filter(|&r| Some(r) != seed)
        .map(|r| format!("graph `{saved_shown}`, and {file} was generated with seed {r}"));
    let other_param = info.params.iter().find_map(|p| {
        let (value, default) = match spec.params.get(p.name) {
            Some(v) => (v.as_str(), ""),
            None => (p.default, " (the default)"),
        };
        let recorded = record.get("params")?.get(p.name)?.as_str()?;
        (!same_value(value, recorded)).then(|| {
            format!(
                "graph `{saved_shown}`, with {key}={}{default}, and {file} was generated with \
                 {key}={}",
                printable(value),
                printable(recorded),
                key = p.name
            )
        })
    });
    other_param.or(other_seed)
}

/// The spec and seed of an experiment's name for a generated graph
/// (`SPEC#SEED`; the seed `None` past a `u64`), or `None` if `name` is
/// not one.
fn generated_spec(name: &str) -> Option<(GenSpec, Option<u64>)> {
    let (spec, seed) = name.rsplit_once('#')?;
    if seed.is_empty() || !seed.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    Some((GenSpec::parse(spec).ok()?, seed.parse().ok()))
}

/// A recorded seed as a number: an integer, or one spelt as a whole float
/// (`2.0`, exact below 2^53) or as text (`"2"`), as a hand-edited record
/// may have it; `None` for anything else (not compared).
fn seed_of(v: &Value) -> Option<u64> {
    let whole =
        |f: f64| (f.fract() == 0.0 && (0.0..9007199254740992.0).contains(&f)).then_some(f as u64);
    match v {
        Value::Number(n) => n.as_u64().or_else(|| n.as_f64().and_then(whole)),
        Value::String(t) => t
            .trim()
            .parse()
            .ok()
            .or_else(|| t.trim().parse().ok().and_then(whole)),
        _ => None,
    }
}

/// Whether two spellings of a parameter value are one value (`4` and
/// `4.0` are; generators read numbers as numbers).
fn same_value(a: &str, b: &str) -> bool {
    a == b
        || matches!(
            (a.parse::<f64>(), b.parse::<f64>()),
            (Ok(x), Ok(y)) if x == y
        )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::corpus::gen::generate;

    fn tree(params: &str) -> Graph {
        generate(&GenSpec::parse(&format!("tree{params}")).unwrap(), 1).unwrap()
    }

    /// A generated name's seed mistyped is said so; a name with `#` but
    /// no spec before it is a file name like any other.
    #[test]
    fn a_mistyped_seed_is_named() {
        for name in ["chain#abc", "chain:length=3#-1", "chain#"] {
            let err = generated_name(name).unwrap().unwrap_err();
            assert!(
                err.contains("the seed after `#` is a whole number"),
                "{name}: {err}"
            );
        }
        assert!(generated_name("no such family#abc").is_none());
        assert!(generated_name("chain#3").unwrap().is_ok());
    }

    /// A file stem is compared with the file's stem; a generated name with
    /// the graph's `Generator` record (family, then every parameter, as the
    /// name gives it or by default); what cannot be compared is not a
    /// mismatch.
    #[test]
    fn names_differ_only_when_they_clearly_do() {
        let g = crate::graph::GraphBuilder::new().build().unwrap();
        assert_eq!(mismatch("chain", "dir/chain.json", &g), None);
        let m = mismatch("resnet", "dir/chain.json", &g).unwrap();
        assert_eq!(m, "graph `resnet`, and the graph given is dir/chain.json");
        assert_eq!(mismatch("resnet", "-", &g), None);
        // No Generator record: a generated name is not compared.
        assert_eq!(mismatch("tree#1", "dir/chain.json", &g), None);

        let t = tree("");
        assert_eq!(mismatch("tree#1", "any.json", &t), None);
        let m = mismatch("tree#7", "-", &t).unwrap();
        assert!(m.ends_with("was generated with seed 1"), "{m}");
        // A record without a seed (a file from before it was recorded) is
        // not compared by seed.
        let mut old = t.clone();
        old.graph_extra
            .get_mut("Generator")
            .and_then(|r| r.as_object_mut())
            .unwrap()
            .remove("seed");
        assert_eq!(mismatch("tree#7", "-", &old), None);
        // A seed spelt otherwise by hand is still compared.
        for spelt in [
            serde_json::json!(2.0),
            serde_json::json!("2"),
            serde_json::json!(2),
        ] {
            let mut edited = t.clone();
            edited
                .graph_extra
                .get_mut("Generator")
                .and_then(|r| r.as_object_mut())
                .unwrap()
                .insert("seed".into(), spelt.clone());
            assert_eq!(mismatch("tree#2", "-", &edited), None, "{spelt}");
            let m = mismatch("tree#1", "-", &edited).unwrap();
            assert!(m.ends_with("was generated with seed 2"), "{spelt}: {m}");
        }
        let m = mismatch("chain#1", "any.json", &t).unwrap();
        assert!(
            m.contains("a `chain` graph") && m.contains("by `tree`"),
            "{m}"
        );
        let m = mismatch("tree:depth=2#1", "any.json", &tree(":depth=3")).unwrap();
        assert!(
            m.contains("with depth=2") && m.contains("with depth=3"),
            "{m}"
        );
        assert_eq!(
            mismatch("tree:depth=3.0#1", "any.json", &tree(":depth=3")),
            None
        );
        // A file stem that looks generated is still a stem first.
        assert_eq!(mismatch("chain#1", "x/chain#1.json", &t), None);
        // `schedule`'s report names the file by its path as typed: the
        // same file where it is here, else the same stem.
        assert_eq!(mismatch("dir/chain.json", "dir/chain.json", &g), None);
        assert_eq!(mismatch("../elsewhere/chain.json", "chain.json", &g), None);
        assert!(mismatch("dir/resnet.json", "dir/chain.json", &g).is_some());
        let here = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/seed_example.json");
        assert!(mismatch(here, "other/seed_example.json", &g).is_some());
        assert_eq!(mismatch(here, here, &g), None);
        assert_eq!(
            mismatch(
                "fork-join:jitter=0.5#1",
                "x/fork-join:jitter=0.5#1.json",
                &g
            ),
            None
        );
        // Generated names: parameters given or default alike.
        let spec = crate::corpus::gen::GenSpec::parse("chain").unwrap();
        let c = crate::corpus::gen::generate(&spec, 1).unwrap();
        assert_eq!(mismatch("chain#1", "chain:length=10#1", &c), None);
        assert!(mismatch("chain#1", "chain:length=11#1", &c).is_some());
        assert!(mismatch("chain#2", "chain:length=10#1", &c).is_some());
        // A parameter the saved name leaves at its default is compared too.
        let spec = crate::corpus::gen::GenSpec::parse("chain:allocs=floating").unwrap();
        let floating = crate::corpus::gen::generate(&spec, 1).unwrap();
        let m = mismatch("chain#1", "cf.json", &floating).unwrap();
        assert!(
            m.contains("with allocs=anchored (the default), and cf.json was generated with allocs=floating"),
            "{m}"
        );
        assert_eq!(
            mismatch("chain:allocs=floating#1", "cf.json", &floating),
            None
        );
    }
}
