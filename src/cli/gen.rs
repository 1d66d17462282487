//! `memsched gen`: write a generated graph (families listed by `--help`).

use std::process::ExitCode;

use anyhow::Context;

use crate::corpus::gen::{self, GenError, GenSpec};
use crate::corpus::program::AllocEncoding;
use crate::graph::seed;

use super::{seed_value, InvalidInput};

#[derive(Debug, clap::Args)]
#[command(after_long_help = families_help())]
pub struct Args {
    /// Family name, or a full spec `FAMILY:key=value,...` (see the list below).
    #[arg(value_name = "FAMILY")]
    family: Option<String>,
    /// A parameter `key=value` (repeatable, each key once; overrides the spec's).
    #[arg(long = "param", short = 'p', value_name = "KEY=VALUE")]
    params: Vec<String>,
    /// Seed of the generator (same seed, same graph, in every version; 0 to 18446744073709551615).
    #[arg(long, default_value_t = 0, allow_negative_numbers = true)]
    seed: i128,
    /// Output file (`-` or absent: standard output).
    #[arg(long, short)]
    out: Option<String>,
    /// ALLOC encoding (same as `--param allocs=...`).
    #[arg(long, value_enum)]
    allocs: Option<AllocEncoding>,
    /// List the families and their parameters, then exit (with FAMILY:
    /// that family's only).
    #[arg(long)]
    list: bool,
}

/// Every family with its parameters and defaults, for `--help` and `--list`.
pub fn families_help() -> String {
    let mut s = String::from("Families (parameters with defaults):\n");
    for f in gen::families() {
        s += &family_help(&f);
    }
    s += "\nExamples:\n  memsched gen randwire --seed 0 -o randwire.json\n  memsched gen fork-join -p branches=8 -p depth=3 --allocs floating\n  memsched gen 'adversarial:target=xla-list,scale=10' -o adv.json\n";
    s
}

/// One family's name, summary, and parameters with their defaults.
fn family_help(f: &gen::FamilyInfo) -> String {
    let mut s = format!("\n  {}\n      {}\n", f.name, f.summary);
    for p in f.params {
        let kv = format!("{}={}", p.name, p.default);
        s += &format!("      {kv:<22} {}\n", p.help);
    }
    s
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    if args.list {
        let spec = args.family.as_deref().map(GenSpec::parse);
        // Nothing is generated: options that shape a graph would be lost
        // without a word.
        let spec_params = matches!(&spec, Some(Ok(spec)) if !spec.params.is_empty());
        if spec_params || !args.params.is_empty() || args.out.is_some() || args.allocs.is_some() {
            note!(
                "warning: --list only lists; the spec's parameters, --param, --allocs and --out \
                 are ignored (no graph is generated)"
            );
        }
        let text = match spec {
            None => families_help(),
            // `--list FAMILY`: that family alone (a spec's parameters are
            // ignored; an unknown name gets the list of families).
            Some(spec) => {
                let info = gen::family(&spec.map_err(invalid)?.family).map_err(invalid)?;
                format!("Parameters with defaults:\n{}", family_help(&info))
            }
        };
        super::print_stdout(&text)?;
        return Ok(ExitCode::SUCCESS);
    }
    let Some(family) = args.family else {
        return Err(
            InvalidInput("missing FAMILY (see `memsched gen --list` or `--help`)".into()).into(),
        );
    };
    let mut spec = GenSpec::parse(&family).map_err(invalid)?;
    // Each option once: a repeat would silently take one of the values.
    let mut given: Vec<(String, String, String)> = Vec::new();
    for kv in &args.params {
        let (k, v) = kv
            .split_once('=')
            .filter(|(k, _)| !k.trim().is_empty())
            .ok_or_else(|| InvalidInput(format!("--param `{kv}` is not KEY=VALUE")))?;
        given.push((
            k.trim().into(),
            gen::canonical_value(v),
            format!("--param {kv}"),
        ));
    }
    if let Some(enc) = args.allocs {
        let name = match enc {
            AllocEncoding::Anchored => "anchored",
            AllocEncoding::Floating => "floating",
        };
        given.push(("allocs".into(), name.into(), format!("--allocs {name}")));
    }
    // Options override the spec's parameters (documented), not each other.
    let mut seen = std::collections::BTreeSet::new();
    for (k, v, how) in given {
        if !seen.insert(k.clone()) {
            return Err(InvalidInput(format!(
                "parameter `{k}` is given twice by the options (`{how}` repeats it): keep one"
            ))
            .into());
        }
        spec.params.insert(k, v);
    }
    let seed_number = seed_value(args.seed)?;
    if let Some(out) = args.out.as_deref().filter(|&o| o != "-") {
        super::check_out_file("--out", std::path::Path::new(out))?;
    }
    let graph = gen::generate(&spec, seed_number).map_err(invalid)?;
    warn_if_seed_ignored(&spec, seed_number, &graph);
    let out = args.out.as_deref().unwrap_or("-");
    seed::write_path(&graph, out)
        .with_context(|| format!("cannot write {}", super::output_name(out)))?;
    if out != "-" {
        note!(
            "{out}: {spec} seed {}: {}, {}",
            seed_number,
            super::count(graph.node_count(), "node"),
            super::count(graph.edge_count(), "edge")
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// Spec and parameter errors (and sizes too large for the model) are invalid
/// input (exit 2); a generator that builds an otherwise invalid graph is a bug (exit 1).
fn invalid(e: GenError) -> anyhow::Error {
    match e {
        // Sizes beyond i64 come from the parameters, not from a bug: the
        // error's text says to lower them.
        e @ GenError::Graph(crate::GraphError::TooLarge { .. }) => {
            InvalidInput(e.to_string()).into()
        }
        GenError::Graph(g) => anyhow::Error::new(g).context("generator bug"),
        other => InvalidInput(other.to_string()).into(),
    }
}

/// Warns when `graph`, generated from `spec` with `seed`, is seed 0's
/// graph: a family that ignores the seed (darts, fork-join without
/// jitter...) would make a corpus of "seeds" repeat one graph. Up to
/// 200,000 nodes: the check generates the graph a second time.
pub(super) fn warn_if_seed_ignored(spec: &gen::GenSpec, seed: u64, graph: &crate::Graph) {
    if seed == 0 || graph.node_count() > 200_000 {
        return;
    }
    use crate::experiment::fingerprint;
    let zero = gen::generate(spec, 0).ok();
    if zero.is_some_and(|zero| fingerprint::of(&zero) == fingerprint::of(graph)) {
        note!("warning: {spec} ignores the seed here: seed {seed} gives seed 0's graph");
    }
}
