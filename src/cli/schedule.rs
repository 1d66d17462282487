//! `memsched schedule`: one graph, one solver, a checked report.

use std::fmt::Write as _;
use std::process::ExitCode;
use std::time::Duration;

use clap::ValueEnum;
use serde_json::json;

use memsched::graph::seed;
use memsched::solvers::{self, ProgramOrder, Report, SolveContext};

use super::{emit, human_bytes, InvalidInput};

#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum Format {
    Text,
    Json,
}

#[derive(Debug, clap::Args)]
pub struct Args {
    /// Graph file in seed JSON format (`-` reads standard input).
    #[arg(value_name = "GRAPH")]
    graph: String,
    /// Solver name (see `memsched solvers`), e.g. `seed-greedy` or `kahn`.
    #[arg(long, short, default_value = "seed-greedy")]
    solver: String,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
    /// Write the report here instead of standard output.
    #[arg(long, short)]
    out: Option<String>,
    /// Wall-clock limit for the solver, in seconds (fractions allowed).
    #[arg(long, value_name = "SECONDS")]
    time_limit: Option<f64>,
    /// Seed for randomized solvers.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Runs of a randomized solver (`random`, `noisy:EXPR`), best kept; run in parallel.
    #[arg(long, default_value_t = 1, value_name = "K")]
    restarts: u32,
    /// What a `rule:EXPR` key ranks: single ready nodes, or moves (a delta <= 0
    /// node together with the ALLOCs it still needs). `moves` turns `rule:E` into `moves:E`.
    #[arg(long, value_enum, default_value_t = RuleMode::Nodes)]
    rule_mode: RuleMode,
}

#[derive(Debug, Clone, Copy, ValueEnum, PartialEq, Eq)]
pub enum RuleMode {
    Nodes,
    Moves,
}

/// Applies `--rule-mode moves` to a solver name.
fn with_rule_mode(name: &str, mode: RuleMode) -> String {
    match (mode, name.trim().strip_prefix("rule:")) {
        (RuleMode::Moves, Some(expr)) => format!("moves:{expr}"),
        _ => name.to_string(),
    }
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    // try_from: `from_secs_f64` panics on values beyond Duration's range (1e20).
    let time_limit = match args.time_limit {
        None => None,
        Some(t) => match Duration::try_from_secs_f64(t) {
            Ok(d) if t > 0.0 => Some(d),
            _ => {
                return Err(InvalidInput(format!(
                    "--time-limit must be a positive number of seconds, got {t}"
                ))
                .into())
            }
        },
    };
    let solver = solvers::build(&with_rule_mode(&args.solver, args.rule_mode))?;
    let graph = seed::read_path(&args.graph)?;
    let mut ctx = SolveContext::new(args.seed, time_limit);
    ctx.restarts = args.restarts;
    let report = solvers::run(solver.as_ref(), &graph, &ctx);
    let program = solvers::run(&ProgramOrder, &graph, &SolveContext::default());
    let text = match args.format {
        Format::Json => to_json(&graph, &report, program.peak) + "\n",
        Format::Text => to_text(&graph, &report, program.peak),
    };
    emit(args.out.as_deref(), &text)?;
    if !report.valid() {
        eprintln!(
            "error: solver {} returned no valid schedule: {}",
            report.solver, report.status
        );
        return Ok(ExitCode::from(1));
    }
    Ok(ExitCode::SUCCESS)
}

fn reduction_pct(peak: Option<u64>, base: Option<u64>) -> Option<f64> {
    match (peak, base) {
        (Some(p), Some(b)) if b > 0 => Some(100.0 * (b as f64 - p as f64) / b as f64),
        _ => None,
    }
}

fn to_json(g: &memsched::Graph, r: &Report, program_peak: Option<u64>) -> String {
    let counters: serde_json::Map<String, serde_json::Value> = r
        .counters
        .iter()
        .map(|(k, v)| (k.clone(), json!(v)))
        .collect();
    let value = json!({
        "solver": r.solver,
        "status": r.status.label(),
        "reason": r.status.reason(),
        "valid": r.valid(),
        "peak": r.peak,
        "program_peak": program_peak,
        "reduction_pct": reduction_pct(r.peak, program_peak),
        "lower_bound": r.lower_bound,
        "gap_pct": r.gap_pct(),
        "final_memory": r.final_memory,
        "nodes": g.node_count(),
        "edges": g.edge_count(),
        "time_ms": r.time.as_secs_f64() * 1e3,
        "counters": counters,
        "note": r.note,
        "order": r.order.as_ref().map(|o| g.to_ids(o)),
    });
    serde_json::to_string(&value).expect("a JSON value always serializes")
}

fn to_text(g: &memsched::Graph, r: &Report, program_peak: Option<u64>) -> String {
    let mut s = String::new();
    let opt = |x: Option<u64>| x.map(human_bytes).unwrap_or_else(|| "-".into());
    let _ = writeln!(s, "solver       {}", r.solver);
    let _ = writeln!(s, "status       {}", r.status);
    let _ = writeln!(
        s,
        "graph        {} nodes, {} edges",
        g.node_count(),
        g.edge_count()
    );
    let _ = writeln!(s, "peak         {}", opt(r.peak));
    let _ = writeln!(s, "program peak {}", opt(program_peak));
    if let Some(red) = reduction_pct(r.peak, program_peak) {
        let _ = writeln!(s, "reduction    {red:.2}% vs program order");
    }
    let _ = writeln!(s, "lower bound  {}", opt(r.lower_bound));
    if let Some(gap) = r.gap_pct() {
        let _ = writeln!(s, "gap          {gap:.2}%");
    }
    let _ = writeln!(s, "time         {:.3} ms", r.time.as_secs_f64() * 1e3);
    for (k, v) in &r.counters {
        let _ = writeln!(s, "{k:<12} {v}");
    }
    if let Some(note) = &r.note {
        let _ = writeln!(s, "note         {note}");
    }
    if let Some(order) = &r.order {
        let ids: Vec<String> = g.to_ids(order).iter().map(|i| i.to_string()).collect();
        let _ = writeln!(s, "order        {}", ids.join(" "));
    }
    s
}
