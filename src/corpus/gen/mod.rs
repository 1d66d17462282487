//! Seeded graph generators, found by family name.
//!
//! A [`GenSpec`] is written `FAMILY` or `FAMILY:key=value,key=value`
//! (e.g. `random-layered:layers=40,width=8`). [`generate`] builds the graph
//! for a spec and a seed; the same spec and seed give the same graph in every
//! version (the generators use [`crate::rng::Rng`]). [`families`] documents
//! every family and its parameters for `memsched gen --help`.
//!
//! Families live in one file per group, each building a
//! [`TensorProgram`] and lowering it with [`finish`] (so every family takes
//! `allocs=anchored|floating`):
//! - [`basic`]: `chain`, `fork-join`, `series-parallel`, `tree`;
//! - [`random`]: `random-layered`, `tensor-program`;
//! - [`nas`]: `randwire`, `darts`, `nasnet` (conv-net tensor sizes);
//! - [`adversarial`]: graphs on which a named heuristic is far from optimal.

use std::collections::BTreeMap;
use std::fmt;

use serde_json::json;
use thiserror::Error;

use super::program::{AllocEncoding, TensorProgram};
use crate::graph::{Graph, GraphError};
use crate::rng::Rng;

pub mod adversarial;
mod basic;
mod nas;
mod random;

/// Why a generator spec was rejected.
#[derive(Debug, Error, Clone, PartialEq)]
#[non_exhaustive]
pub enum GenError {
    /// The spec names no known family.
    #[error("unknown generator family `{family}`{}; known families: {}", guess(.family, .known), .known.join(", "))]
    UnknownFamily {
        /// The family name as given in the spec.
        family: String,
        /// Every family name, in `--help` order.
        known: Vec<String>,
    },
    /// The spec gives a parameter its family does not declare.
    #[error("generator `{family}` has no parameter `{param}`{}; its parameters: {}", guess(.param, .known), .known.join(", "))]
    UnknownParam {
        /// The family the spec names.
        family: String,
        /// The undeclared parameter name as given.
        param: String,
        /// The family's declared parameter names.
        known: Vec<String>,
    },
    /// A parameter value does not parse, is out of range, or makes a graph
    /// too large to build.
    #[error("generator `{family}`: parameter `{param}` = `{value}`: {message}")]
    BadValue {
        /// The family the spec names.
        family: String,
        /// The parameter the error is about.
        param: String,
        /// Its value: as given in the spec, or the default when not given.
        value: String,
        /// What is wrong with it, e.g. `must be in 1..=4000000`.
        message: String,
    },
    /// The spec text is not `FAMILY[:key=value,...]`.
    #[error("malformed generator spec `{spec}`: {message}")]
    Syntax {
        /// The spec as given (trimmed).
        spec: String,
        /// What is malformed, e.g. an empty parameter or a `#seed` suffix.
        message: String,
    },
    /// The generated graph fails validation: a generator bug, except
    /// [`GraphError::TooLarge`], which huge size parameters can cause.
    #[error("{}", invalid_graph_text(.0))]
    Graph(#[from] GraphError),
}

/// [`GenError::Graph`]'s message: a size overflow is the parameters'
/// doing (the user can lower them), any other invalid graph a bug.
fn invalid_graph_text(e: &GraphError) -> String {
    match e {
        GraphError::TooLarge { .. } => {
            format!("generated graph is too large (lower its size parameters): {e}")
        }
        _ => format!("generated graph is invalid (a generator bug): {e}"),
    }
}

/// A family and its parameter values, e.g. `chain:length=10`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GenSpec {
    /// The family name before the `:`, e.g. `chain`; see [`families`].
    pub family: String,
    /// The given `key=value` pairs (trimmed, unparsed); parameters not
    /// given take their family's default when the graph is generated.
    pub params: BTreeMap<String, String>,
}

impl GenSpec {
    /// Whether `self` and `other` make the same graphs: one family and,
    /// for each of its parameters, one value, given or default, as
    /// [`canonical_value`] spells it (`chain` is `chain:length=10`, whose
    /// default length is 10). Specs of a family this build does not know,
    /// or with a parameter their family does not have, are the same only
    /// as written.
    pub fn same_graphs_as(&self, other: &GenSpec) -> bool {
        if self == other {
            return true;
        }
        if self.family != other.family {
            return false;
        }
        let Ok(info) = family(&self.family) else {
            return self.params == other.params;
        };
        let value = |spec: &GenSpec, p: &ParamInfo| {
            let given = spec.params.get(p.name).map(String::as_str);
            canonical_value(given.unwrap_or(p.default))
        };
        let known = |spec: &GenSpec| {
            spec.params
                .keys()
                .all(|k| info.params.iter().any(|p| p.name == k))
        };
        known(self)
            && known(other)
            && info
                .params
                .iter()
                .all(|p| value(self, p) == value(other, p))
    }

    /// Parses `FAMILY[:key=value,...]`: its syntax only. The family and
    /// parameter names are checked by [`GenSpec::check_names`], the values
    /// by [`generate`].
    pub fn parse(spec: &str) -> Result<GenSpec, GenError> {
        let spec = spec.trim();
        let (family, rest) = spec.split_once(':').unwrap_or((spec, ""));
        if family.is_empty() {
            return Err(GenError::Syntax {
                spec: spec.into(),
                message: "missing family name".into(),
            });
        }
        if let Some((_, after)) = spec.rsplit_once('#') {
            let digits = !after.is_empty() && after.bytes().all(|b| b.is_ascii_digit());
            if !digits {
                return Err(GenError::Syntax {
                    spec: spec.into(),
                    message: "`#` has no place in a spec".into(),
                });
            }
            let seed = after;
            return Err(GenError::Syntax {
                spec: spec.into(),
                message: format!(
                    "`#{seed}` is the seed of a graph name (as in runs.csv), not part of \
                     the spec: give it apart (`memsched gen --seed {seed}`; in a config, \
                     the entry's `seeds`)"
                ),
            });
        }
        let mut params = BTreeMap::new();
        let rest = rest.trim();
        for part in rest.split(',').map(str::trim).filter(|_| !rest.is_empty()) {
            if part.is_empty() {
                return Err(GenError::Syntax {
                    spec: spec.into(),
                    message: "an empty parameter (two commas in a row, or a comma at an end)"
                        .into(),
                });
            }
            let (k, v) = part.split_once('=').ok_or_else(|| GenError::Syntax {
                spec: spec.into(),
                message: format!("`{part}` is not key=value"),
            })?;
            if k.trim().is_empty() {
                return Err(GenError::Syntax {
                    spec: spec.into(),
                    message: format!("`{part}` has no parameter name before `=`"),
                });
            }
            if params
                .insert(k.trim().to_string(), canonical_value(v))
                .is_some()
            {
                return Err(GenError::Syntax {
                    spec: spec.into(),
                    message: format!("parameter `{}` is given twice", k.trim()),
                });
            }
        }
        Ok(GenSpec {
            family: family.to_string(),
            params,
        })
    }
}

/// A parameter value as a graph's name spells it, so that one graph has
/// one name: a number loses a `+` and leading zeros (`+05` is `5`), and a
/// number written with a point or an exponent is printed back the shortest
/// way (`0.50` and `5e-1` are `0.5`, `2.0` and `2e0` are `2`). Anything
/// else is kept as given (trimmed), for the generator to accept or refuse.
pub fn canonical_value(value: &str) -> String {
    let value = value.trim();
    let digits = value.strip_prefix('+').unwrap_or(value);
    if !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) {
        let kept = digits.trim_start_matches('0');
        return match kept.is_empty() {
            true => "0".into(),
            false => kept.into(),
        };
    }
    let numeric = value.bytes().any(|b| b.is_ascii_digit())
        && value
            .bytes()
            .all(|b| b.is_ascii_digit() || b"+-.eE".contains(&b));
    match value.parse::<f64>() {
        Ok(x) if numeric && x.is_finite() => {
            // Integral values below 2^53 print without a point (exact).
            if x.fract() == 0.0 && x.abs() < 9_007_199_254_740_992.0 {
                format!("{}", x as i64)
            } else {
                format!("{x:?}")
            }
        }
        _ => value.into(),
    }
}

impl fmt::Display for GenSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.family)?;
        for (i, (k, v)) in self.params.iter().enumerate() {
            write!(f, "{}{k}={v}", if i == 0 { ':' } else { ',' })?;
        }
        Ok(())
    }
}

/// One documented parameter of a family.
#[derive(Debug, Clone, Copy)]
pub struct ParamInfo {
    /// The key written in a spec, e.g. `length` in `chain:length=10`.
    pub name: &'static str,
    /// The value used when a spec does not give the parameter, as text.
    pub default: &'static str,
    /// One line for `memsched gen --help`: meaning, unit or options.
    pub help: &'static str,
}

/// A generator family as documented to users.
#[derive(Debug, Clone, Copy)]
pub struct FamilyInfo {
    /// The family name written first in a spec, e.g. `random-layered`.
    pub name: &'static str,
    /// What graphs the family makes, for `memsched gen --help`.
    pub summary: &'static str,
    /// Every parameter the family accepts (always `allocs` among them).
    pub params: &'static [ParamInfo],
}

/// Parameter values of one spec, with defaults and typed access.
pub(crate) struct Params<'a> {
    info: &'a FamilyInfo,
    given: &'a BTreeMap<String, String>,
}

impl Params<'_> {
    pub(crate) fn raw(&self, name: &str) -> &str {
        self.given.get(name).map(String::as_str).unwrap_or_else(|| {
            self.info
                .params
                .iter()
                .find(|p| p.name == name)
                .map(|p| p.default)
                .unwrap_or_else(|| {
                    panic!(
                        "family {} reads undeclared parameter {name}",
                        self.info.name
                    )
                })
        })
    }
    pub(crate) fn bad(&self, name: &str, message: String) -> GenError {
        GenError::BadValue {
            family: self.info.name.into(),
            param: name.into(),
            value: self.raw(name).into(),
            message,
        }
    }
    /// An integer parameter within `lo..=hi`.
    pub fn int(&self, name: &str, lo: u64, hi: u64) -> Result<u64, GenError> {
        let raw = self.raw(name);
        let v: u64 = raw.parse().map_err(|_| {
            let digits = !raw.is_empty() && raw.bytes().all(|b| b.is_ascii_digit());
            let message = if digits {
                format!("must be in {lo}..={hi}")
            } else {
                "not a non-negative integer".into()
            };
            self.bad(name, message)
        })?;
        if v < lo || v > hi {
            return Err(self.bad(name, format!("must be in {lo}..={hi}")));
        }
        Ok(v)
    }
    /// Refuses parameters whose graph would pass [`MAX_OPS`] ops or
    /// [`MAX_READS`] operand reads (`ops` and `reads` are what the family
    /// computes from them, upper bounds or expectations), naming `param`
    /// and how the figure was reached (`what`, such as `layers x width`).
    pub fn within_limits(
        &self,
        param: &str,
        what: &str,
        ops: f64,
        reads: f64,
    ) -> Result<(), GenError> {
        let (figure, noun, max) = if ops > MAX_OPS as f64 {
            (ops, "ops", MAX_OPS)
        } else if reads > MAX_READS as f64 {
            (reads, "operand reads (op-to-op edges)", MAX_READS)
        } else {
            return Ok(());
        };
        Err(self.bad(
            param,
            format!(
                "{what} gives about {} {noun}, above the {} a generated graph may have \
                 (about 3 nodes per op; a graph this size would need gigabytes)",
                thousands(figure as u128),
                thousands(max as u128)
            ),
        ))
    }
    /// A number parameter within `lo..=hi`.
    pub fn float(&self, name: &str, lo: f64, hi: f64) -> Result<f64, GenError> {
        let v: f64 = self
            .raw(name)
            .parse()
            .map_err(|_| self.bad(name, "not a number".into()))?;
        if !(lo..=hi).contains(&v) {
            return Err(self.bad(name, format!("must be in {lo}..={hi}")));
        }
        Ok(v)
    }
    /// The tensor size range of the parameters `min` and `max` (bytes, each
    /// in `0..=2^40`); `min` above `max` is an error naming both.
    pub fn size_range(&self) -> Result<(u64, u64), GenError> {
        let lo = self.int("min", 0, 1 << 40)?;
        let hi = self.int("max", 0, 1 << 40)?;
        if lo > hi {
            return Err(self.bad("min", format!("must be at most `max` = `{hi}`")));
        }
        Ok((lo, hi))
    }
    /// A parameter that must be one of `options`.
    pub fn choice(&self, name: &str, options: &[&'static str]) -> Result<&'static str, GenError> {
        let v = self.raw(name);
        options.iter().find(|o| **o == v).copied().ok_or_else(|| {
            let guess = crate::spelling::did_you_mean(&crate::spelling::near_or_begun(
                v,
                options.iter().copied(),
            ));
            self.bad(
                name,
                format!("must be one of {}{guess}", options.join(", ")),
            )
        })
    }
    /// The ALLOC encoding parameter `allocs` (anchored|floating).
    pub fn encoding(&self) -> Result<AllocEncoding, GenError> {
        match self.raw("allocs") {
            "anchored" => Ok(AllocEncoding::Anchored),
            "floating" => Ok(AllocEncoding::Floating),
            _ => Err(self.bad("allocs", "must be `anchored` or `floating`".into())),
        }
    }
}

pub(crate) type Generate = fn(&Params, &mut Rng) -> Result<Graph, GenError>;

pub(crate) const ALLOCS: ParamInfo = ParamInfo {
    name: "allocs",
    default: "anchored",
    help: "ALLOC encoding: anchored (after the op's inputs) or floating (no predecessors, as in the article)",
};

/// Every family: its documentation and its generator, in `--help` order.
const FAMILIES: &[(&FamilyInfo, Generate)] = &[
    (&basic::CHAIN, basic::chain),
    (&basic::FORK_JOIN, basic::fork_join),
    (&basic::SERIES_PARALLEL, basic::series_parallel),
    (&basic::TREE, basic::tree),
    (&random::RANDOM_LAYERED, random::random_layered),
    (&random::TENSOR_PROGRAM, random::tensor_program),
    (&nas::RANDWIRE, nas::randwire),
    (&nas::DARTS, nas::darts),
    (&nas::NASNET, nas::nasnet),
    (&adversarial::ADVERSARIAL, adversarial::adversarial),
];

impl GenSpec {
    /// Checks the family and parameter names without generating a graph
    /// (values are checked when the graph is generated).
    pub fn check_names(&self) -> Result<(), String> {
        let (info, _) = family_entry(&self.family).map_err(|e| e.to_string())?;
        check_params(info, self).map_err(|e| e.to_string())
    }
}

/// A generated graph's name as an experiment gives it, `SPEC#SEED` with
/// the seed in decimal digits: `None` for a name of another shape; else
/// its spec and seed, or why they are not a graph's (a spec that does not
/// parse, a seed past `u64`). Its canonical spelling is `{spec}#{seed}`.
pub fn parse_graph_name(name: &str) -> Option<Result<(GenSpec, u64), String>> {
    let (spec, seed) = name.rsplit_once('#')?;
    if seed.is_empty() || !seed.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    Some(match (GenSpec::parse(spec), seed.parse::<u64>()) {
        (Ok(spec), Ok(seed)) => Ok((spec, seed)),
        (Err(e), _) => Err(e.to_string()),
        (_, Err(_)) => Err(format!("the seed {seed} is past {}", u64::MAX)),
    })
}

/// Every generator family, documented.
pub fn families() -> Vec<FamilyInfo> {
    FAMILIES.iter().map(|(info, _)| **info).collect()
}

/// ` (did you mean `x`?)` when `name` is a near miss of one of `known`.
fn guess(name: &str, known: &[String]) -> String {
    crate::spelling::did_you_mean(&crate::spelling::near_or_begun(
        name,
        known.iter().map(String::as_str),
    ))
}

/// The family called `name`, or [`GenError::UnknownFamily`] listing them.
pub fn family(name: &str) -> Result<FamilyInfo, GenError> {
    family_entry(name).map(|(info, _)| **info)
}

/// The [`FAMILIES`] entry of the family called `name`.
fn family_entry(name: &str) -> Result<&'static (&'static FamilyInfo, Generate), GenError> {
    FAMILIES
        .iter()
        .find(|(info, _)| info.name == name)
        .ok_or_else(|| GenError::UnknownFamily {
            family: name.to_string(),
            known: FAMILIES.iter().map(|(i, _)| i.name.to_string()).collect(),
        })
}

/// [`GenError::UnknownParam`] for the first parameter of `spec` that the
/// family `info` does not declare.
fn check_params(info: &FamilyInfo, spec: &GenSpec) -> Result<(), GenError> {
    match spec
        .params
        .keys()
        .find(|k| !info.params.iter().any(|p| p.name == k.as_str()))
    {
        Some(k) => Err(GenError::UnknownParam {
            family: info.name.into(),
            param: k.clone(),
            known: info.params.iter().map(|p| p.name.to_string()).collect(),
        }),
        None => Ok(()),
    }
}

/// Generates the graph of `spec` for `seed`.
pub fn generate(spec: &GenSpec, seed: u64) -> Result<Graph, GenError> {
    let (info, make) = family_entry(&spec.family)?;
    check_params(info, spec)?;
    let params = Params {
        info,
        given: &spec.params,
    };
    let mut rng = Rng::new(seed);
    let mut g = make(&params, &mut rng)?;
    // The record names the graph whole, seed included (`check` compares a
    // saved order's graph name with it).
    if let Some(record) = g
        .graph_extra
        .get_mut("Generator")
        .and_then(|r| r.as_object_mut())
    {
        record.insert("seed".into(), json!(seed));
    }
    Ok(g)
}

/// The most ops a generated graph may have (`tree` and the chain's
/// `length` stop at 2,000,000 and 4,000,000 by their own bounds).
pub const MAX_OPS: u64 = 4_000_000;

/// The most operand reads (op-to-op edges) a generated graph may have.
pub const MAX_READS: u64 = 10_000_000;

/// `n` with thousands separators: `4,000,000`.
fn thousands(n: u128) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// Finishes a generated program: records its spec (family and parameters;
/// [`generate`] adds the seed) in the graph's `Generator` field.
pub(crate) fn finish(
    program: &TensorProgram,
    params: &Params,
    family: &str,
) -> Result<Graph, GenError> {
    let mut b = program.lower(params.encoding()?);
    let given: BTreeMap<&str, &str> = params
        .info
        .params
        .iter()
        .map(|p| (p.name, params.raw(p.name)))
        .collect();
    b.set_graph_extra("Generator", json!({ "family": family, "params": given }));
    Ok(b.build()?)
}

/// A size drawn uniformly from `lo..=hi` (`lo <= hi`, see [`Params::size_range`]).
pub(crate) fn size(rng: &mut Rng, lo: u64, hi: u64) -> u64 {
    debug_assert!(lo <= hi, "size range {lo}..={hi}");
    rng.range(lo, hi)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Numbers are spelled one way, so one graph has one name; other
    /// text is kept for the generator to judge.
    #[test]
    fn parameter_values_are_spelled_one_way() {
        for (given, canonical) in [
            ("+05", "5"),
            ("000", "0"),
            ("5", "5"),
            ("2.0", "2"),
            ("2e0", "2"),
            ("-0.0", "0"),
            ("0.50", "0.5"),
            (".5", "0.5"),
            ("5e-1", "0.5"),
            ("1e-7", "1e-7"),
            ("1e30", "1e30"),
            (" 0.3 ", "0.3"),
            ("-1", "-1"),
            ("floating", "floating"),
            ("inf", "inf"),
            ("1e999", "1e999"),
            ("0x10", "0x10"),
        ] {
            assert_eq!(canonical_value(given), canonical, "{given}");
        }
        let spec = |s: &str| GenSpec::parse(s).unwrap().to_string();
        assert_eq!(spec("chain:length=+05,min=1e3"), "chain:length=5,min=1000");
        assert_eq!(spec("chain:length=5,min=1000"), "chain:length=5,min=1000");
    }

    /// A size overflow is blamed on the parameters, anything else on the
    /// generator: an experiment's row reason is this text.
    #[test]
    fn only_an_invalid_graph_other_than_too_large_is_a_generator_bug() {
        let big = GenError::Graph(GraphError::TooLarge {
            max: i64::MAX,
            id: 7,
            size: 5,
        })
        .to_string();
        assert!(big.contains("lower its size parameters"), "{big}");
        assert!(!big.contains("generator bug"), "{big}");
        let bug = GenError::Graph(GraphError::MissingSize { id: 3 }).to_string();
        assert!(bug.contains("(a generator bug)"), "{bug}");
    }

    #[test]
    fn spec_round_trips_and_same_seed_same_graph() {
        let spec = GenSpec::parse("random-layered:layers=6,width=3").unwrap();
        assert_eq!(spec.to_string(), "random-layered:layers=6,width=3");
        let a = generate(&spec, 5).unwrap();
        let b = generate(&spec, 5).unwrap();
        assert_eq!(a.deltas(), b.deltas());
        assert_eq!(a.to_raw(), b.to_raw());
    }

    /// Small parameters per family so that the generic tests stay fast.
    fn small(family: &str) -> String {
        match family {
            "randwire" => "randwire:nodes=8,resolution=64".into(),
            "darts" => "darts:cells=3,resolution=64".into(),
            "nasnet" => "nasnet:cells=3,resolution=64".into(),
            "adversarial" => "adversarial:scale=3".into(),
            f => f.into(),
        }
    }

    #[test]
    fn every_family_is_deterministic_and_valid_in_both_encodings() {
        for info in families() {
            for enc in ["anchored", "floating"] {
                let mut spec = GenSpec::parse(&small(info.name)).unwrap();
                spec.params.insert("allocs".into(), enc.into());
                let a = generate(&spec, 3).unwrap_or_else(|e| panic!("{spec}: {e}"));
                let b = generate(&spec, 3).unwrap();
                assert_eq!(a.to_raw(), b.to_raw(), "{spec} not deterministic");
                assert!(a.node_count() > 0, "{spec}");
                assert!(a.program_order_is_topological(), "{spec}");
                let extra = a.graph_extra().get("Generator").unwrap();
                assert_eq!(extra["family"], info.name, "{spec}");
                let allocs = a.nodes().filter(|&v| a.kind(v) == crate::NodeKind::Alloc);
                if enc == "floating" {
                    assert!(allocs.clone().all(|v| a.preds(v).is_empty()), "{spec}");
                }
            }
        }
    }

    #[test]
    fn seeds_matter_for_random_families() {
        for f in [
            "chain",
            "fork-join:jitter=0.5",
            "series-parallel",
            "tree",
            "random-layered",
            "tensor-program",
            "randwire:nodes=8,resolution=64",
        ] {
            let spec = GenSpec::parse(f).unwrap();
            let a = generate(&spec, 1).unwrap();
            let b = generate(&spec, 2).unwrap();
            // The graphs, not their records (which name the seed).
            let graph = |g: &Graph| crate::graph::fingerprint::of(g);
            assert_ne!(graph(&a), graph(&b), "{f} ignores its seed");
        }
    }

    #[test]
    fn bad_values_name_the_parameter() {
        for info in families() {
            for p in info.params {
                let spec = GenSpec::parse(&format!("{}:{}=oops", info.name, p.name)).unwrap();
                let err = generate(&spec, 0).unwrap_err();
                assert!(
                    matches!(&err, GenError::BadValue { param, .. } if param == p.name),
                    "{}: {err}",
                    info.name
                );
                assert!(err.to_string().contains(p.name), "{err}");
            }
        }
    }

    /// Parameters each in range but whose product would not fit in memory
    /// are refused before anything is built, naming the product.
    #[test]
    fn graphs_too_large_to_build_are_refused() {
        for (spec, says) in [
            (
                "fork-join:branches=1000000,depth=1000000",
                "branches x depth gives about 1,000,000,000,002 ops",
            ),
            (
                "random-layered:layers=100000,width=100",
                "layers x width gives about 5,050,000 ops",
            ),
            ("random-layered:layers=10000,width=100", "operand reads"),
            (
                "tensor-program:ops=4000000,inputs=9",
                "ops x (1 + inputs) / 2 gives about 20,000,000 operand reads",
            ),
            ("chain:length=10000000", "must be in 1..=4000000"),
        ] {
            let err = generate(&GenSpec::parse(spec).unwrap(), 0)
                .unwrap_err()
                .to_string();
            assert!(err.contains(says), "{spec}: {err}");
        }
        // The heuristics bench's 1M-node graph stays within the limits.
        let big = "random-layered:layers=74074,width=8,density=0.3,skip=0.05";
        let spec = GenSpec::parse(big).unwrap();
        let info = families()
            .into_iter()
            .find(|i| i.name == spec.family)
            .unwrap();
        let params = Params {
            info: &info,
            given: &spec.params,
        };
        let (ops, reads) = (74074.0 * 4.5, 74074.0 * 4.5 * (1.0 + 4.5 * 0.45));
        assert!(params
            .within_limits("layers", "layers x width", ops, reads)
            .is_ok());
    }

    #[test]
    fn every_default_is_accepted_and_documented() {
        for info in families() {
            assert!(!info.summary.is_empty());
            assert!(
                info.params.iter().any(|p| p.name == "allocs"),
                "{}",
                info.name
            );
            for p in info.params {
                assert!(
                    !p.help.is_empty() && !p.default.is_empty(),
                    "{}.{}",
                    info.name,
                    p.name
                );
            }
        }
        // Defaults generate (the big NAS nets too: they are a few thousand nodes).
        for info in families() {
            generate(&GenSpec::parse(info.name).unwrap(), 0).unwrap();
        }
    }

    #[test]
    fn unknown_family_lists_the_known_ones() {
        let err = generate(&GenSpec::parse("nope").unwrap(), 0)
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("randwire") && err.contains("adversarial"),
            "{err}"
        );
    }

    #[test]
    fn known_outputs_are_pinned_across_versions() {
        // Figures of the first release; a change here breaks every stored corpus.
        let figures = |spec: &str| {
            let g = generate(&GenSpec::parse(spec).unwrap(), 0).unwrap();
            let order: Vec<_> = g.nodes().collect();
            let peak = crate::schedule::check(&g, &order).unwrap().peak;
            (g.node_count(), g.edge_count(), g.total_allocated(), peak)
        };
        assert_eq!(figures("chain"), (29, 37, 418837, 116517));
        assert_eq!(figures("random-layered"), (86, 204, 17341651, 5226916));
        assert_eq!(figures("tensor-program"), (158, 356, 34538046, 9331632));
    }

    #[test]
    fn min_above_max_is_rejected_naming_both() {
        for family in [
            "chain",
            "series-parallel",
            "tree",
            "random-layered",
            "tensor-program",
        ] {
            let spec = GenSpec::parse(&format!("{family}:min=100,max=10")).unwrap();
            let err = generate(&spec, 0).unwrap_err();
            assert!(
                matches!(&err, GenError::BadValue { param, .. } if param == "min"),
                "{family}: {err}"
            );
            let text = err.to_string();
            assert!(
                text.contains("100") && text.contains("`max` = `10`"),
                "{text}"
            );
            // min = max is a fixed size.
            let spec = GenSpec::parse(&format!("{family}:min=64,max=64")).unwrap();
            let g = generate(&spec, 0).unwrap();
            let allocs = g.nodes().filter(|&v| g.kind(v) == crate::NodeKind::Alloc);
            assert!(allocs.map(|v| g.delta(v)).all(|d| d == 64), "{family}");
        }
    }

    #[test]
    fn unknown_param_is_named() {
        let spec = GenSpec::parse("chain:lenght=3").unwrap();
        let err = generate(&spec, 0).unwrap_err().to_string();
        assert!(err.contains("lenght") && err.contains("length"), "{err}");
    }

    #[test]
    fn malformed_specs_say_what_is_wrong() {
        let err = |spec: &str| GenSpec::parse(spec).unwrap_err().to_string();
        for spec in [
            "chain:length=5,,min=3",
            "chain:length=5,",
            "chain:,length=5",
        ] {
            assert!(
                err(spec).contains("empty parameter"),
                "{spec}: {}",
                err(spec)
            );
        }
        let e = err("random-layered:layers=3#7");
        assert!(e.contains("--seed 7"), "{e}");
        assert!(err("chain:length").contains("not key=value"));
        assert!(err("chain:=5").contains("no parameter name"));
        assert!(err("chain#3:length=5").contains("no place"));
        let huge = GenSpec::parse("chain:length=99999999999999999999").unwrap();
        let e = generate(&huge, 0).unwrap_err().to_string();
        assert!(e.contains("must be in"), "{e}");
        assert_eq!(
            GenSpec::parse("chain:").unwrap(),
            GenSpec::parse("chain").unwrap()
        );
        assert_eq!(
            GenSpec::parse("chain: length=5 ").unwrap().params["length"],
            "5"
        );
    }
}
