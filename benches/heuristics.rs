//! Benchmark `heuristics`: time of every list-scheduling heuristic on the
//! ~1,000,000-node graph of the `core` bench (976,357 nodes,
//! `random-layered:layers=74074,width=8,density=0.3,skip=0.05`), in both
//! ALLOC encodings.
//!
//! Run: `cargo bench --no-default-features --bench heuristics`
//! (`-- --quick` for a ~100,000-node graph, `-- --only NAME` for one solver,
//! `-- --graph SPEC` for another generator spec, e.g. the 957,285-node
//! `random-layered:layers=133333,width=4` that earlier tables used; the
//! encoding is appended). Prints one table per encoding:
//! solver, best solve time of five timed rounds after one warm-up round,
//! ratio to `kahn`, and checked peak. Names the registry does not know
//! (schedulers other branches add) are skipped.
//!
//! The warm-up matters: a solver's first runs in a process pay for fresh
//! pages and for the allocator growing its heap (kahn's first three runs on
//! the floating graph took 216, 50 and 29 ms, its later ones 17 ms), which
//! flattered every ratio when the table took the best of three cold runs.
//! So do the rounds: timed five times in a row, `kahn` on the anchored
//! graph took 21-22 ms; timed between the other solvers, 13-16 ms (the
//! allocator then serves its vectors from memory the process already has,
//! not from fresh pages), which flattered the anchored ratios.

use std::time::Duration;

use memsched::corpus::gen::{generate, GenSpec};
use memsched::graph::Graph;
use memsched::solvers::{self, Report, Scheduler, SolveContext, SolverError};

/// Solvers to time, in table order; unknown names are skipped.
const SOLVERS: &[&str] = &[
    "kahn",
    "program",
    "seed-greedy",
    // A control: the rule machinery with a key that follows node order, so
    // its schedule walks memory as kahn's does (see docs/notes.md).
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

/// One solver's timings over the rounds.
struct Timed {
    name: &'static str,
    solver: Box<dyn Scheduler>,
    best: Duration,
    last: Option<Report>,
}

/// Times every solver in rounds (each round runs each solver once, in table
/// order), so that a drift of the machine's speed, or of the allocator's
/// state, touches every solver alike: the first `WARM_UP` rounds are not
/// timed, then each solver keeps its fastest of `REPS` rounds.
fn time_in_rounds(solvers: &mut [Timed], g: &Graph) {
    let ctx = SolveContext::new(1, None);
    for round in 0..WARM_UP + REPS {
        eprint!("\rround {}/{}", round + 1, WARM_UP + REPS);
        for t in solvers.iter_mut() {
            let report = solvers::run(t.solver.as_ref(), g, &ctx);
            if round >= WARM_UP {
                t.best = t.best.min(report.time);
            }
            t.last = Some(report);
        }
    }
    eprint!("\r");
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
    let layers = if quick { 7_407 } else { 74_074 };
    let base = args
        .windows(2)
        .find(|w| w[0] == "--graph")
        .map(|w| w[1].clone())
        .unwrap_or(format!(
            "random-layered:layers={layers},width=8,density=0.3,skip=0.05"
        ));
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
        let mut timed: Vec<Timed> = SOLVERS
            .iter()
            .filter(|name| only.is_empty() || **name == "kahn" || only.contains(*name))
            .filter_map(|&name| match solvers::build(name) {
                Ok(solver) => Some(Timed {
                    name,
                    solver,
                    best: Duration::MAX,
                    last: None,
                }),
                Err(SolverError::Unknown { .. } | SolverError::NotBuilt { .. }) => None,
                Err(e) => panic!("{name}: {e}"),
            })
            .collect();
        time_in_rounds(&mut timed, &g);
        let kahn = timed[0].best;
        for t in &timed {
            let report = t.last.as_ref().expect("at least one round");
            let ms = t.best.as_secs_f64() * 1e3;
            let ratio = t.best.as_secs_f64() / kahn.as_secs_f64();
            let peak = report.peak.map_or("-".to_string(), |p| p.to_string());
            let (name, status) = (t.name, report.status.label());
            println!("| {name:<38} | {ms:>10.1} | {ratio:>8.2} | {peak:>14} | {status:<8} |");
        }
    }
}
