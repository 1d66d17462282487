//! Benchmark `heuristics`: time of every list-scheduling heuristic on a
//! ~1,000,000-node `random-layered` graph, in both ALLOC encodings.
//!
//! Run: `cargo bench --no-default-features --bench heuristics`
//! (`-- --quick` for a 100,000-node graph, `-- --only NAME` for one solver,
//! `-- --graph SPEC` for another generator spec, e.g. the `core` bench's
//! `random-layered:layers=74074,width=8,density=0.3,skip=0.05`; the
//! encoding is appended). Prints one table per encoding:
//! solver, best solve time of five after one warm-up run, ratio to `kahn`,
//! and checked peak. Names the registry does not know (schedulers other
//! branches add) are skipped.
//!
//! The warm-up matters: a solver's first runs in a process pay for fresh
//! pages and for the allocator growing its heap (kahn's first three runs on
//! the floating graph took 216, 50 and 29 ms, its later ones 17 ms), which
//! flattered every ratio when the table took the best of three cold runs.

use std::time::Duration;

use memsched::corpus::gen::{generate, GenSpec};
use memsched::graph::Graph;
use memsched::solvers::{self, SolveContext, SolverError};

/// Solvers to time, in table order; unknown names are skipped.
const SOLVERS: &[&str] = &[
    "kahn",
    "program",
    "seed-greedy",
    // A control: the rule machinery with a key that follows node order, so
    // its schedule walks memory as kahn's does (see the README's Notes).
    "rule:id",
    "rule:delta,type,id",
    "rule:-height,delta,id",
    "rule:0.7*delta+0.3*latency,id",
    "rule:-unlocks,-frees_after,delta,id",
    "rule:live_after,random",
    "moves-greedy",
    "moves:-unlocks,delta,id",
    "moves:rise,-frees_after,id",
    "random",
    "random-moves",
    "noisy:delta,type,id",
    "noisy-moves:delta,type,id",
    // Published list schedulers and their best-ofs.
    "xla-list",
    "xla-dfs",
    "xla-postorder",
    "xla-default",
    "inductor-lpmf",
    "inductor-bfs",
    "inductor-dfs",
    "inductor-default",
];

/// Untimed runs before the timed ones.
const WARM_UP: usize = 1;
/// Timed runs; the table shows the fastest.
const REPS: usize = 5;

fn time_solver(name: &str, g: &Graph) -> Option<(Duration, Option<u64>, String)> {
    let solver = match solvers::build(name) {
        Ok(s) => s,
        Err(SolverError::Unknown { .. }) => return None,
        Err(e) => panic!("{name}: {e}"),
    };
    let ctx = SolveContext::new(1, None);
    let mut best = Duration::MAX;
    let mut last = None;
    for rep in 0..WARM_UP + REPS {
        let report = solvers::run(solver.as_ref(), g, &ctx);
        if rep >= WARM_UP {
            best = best.min(report.time);
        }
        last = Some(report);
    }
    let report = last.expect("at least one rep");
    Some((best, report.peak, report.status.label().to_string()))
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let quick = args.iter().any(|a| a == "--quick");
    // `--only NAME` (repeatable) times just those solvers (and kahn).
    let only: Vec<&str> = args
        .windows(2)
        .filter(|w| w[0] == "--only")
        .map(|w| w[1].as_str())
        .collect();
    let layers = if quick { 13_333 } else { 133_333 };
    let base = args
        .windows(2)
        .find(|w| w[0] == "--graph")
        .map(|w| w[1].clone())
        .unwrap_or(format!("random-layered:layers={layers},width=4"));
    for enc in ["anchored", "floating"] {
        let spec = format!("{base},allocs={enc}");
        let g = generate(&GenSpec::parse(&spec).expect("valid spec"), 1).expect("generates");
        println!(
            "\n## {spec} (seed 1): {} nodes, {} edges\n",
            g.node_count(),
            g.edge_count()
        );
        println!(
            "| {:<38} | {:>10} | {:>8} | {:>14} | {:<8} |",
            "solver", "time (ms)", "x kahn", "peak (bytes)", "status"
        );
        println!(
            "|{:-<40}|{:->12}|{:->10}|{:->16}|{:-<10}|",
            "", "", "", "", ""
        );
        let mut kahn = None;
        for name in SOLVERS {
            if !only.is_empty() && *name != "kahn" && !only.contains(name) {
                continue;
            }
            let Some((t, peak, status)) = time_solver(name, &g) else {
                continue;
            };
            let base = *kahn.get_or_insert(t);
            let ms = t.as_secs_f64() * 1e3;
            let ratio = t.as_secs_f64() / base.as_secs_f64();
            let peak = peak.map_or("-".to_string(), |p| p.to_string());
            println!("| {name:<38} | {ms:>10.1} | {ratio:>8.2} | {peak:>14} | {status:<8} |");
        }
    }
}
