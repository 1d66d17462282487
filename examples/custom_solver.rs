//! A solver of your own, written outside memsched's source: implement
//! [`Scheduler`], run it through [`solvers::run`] (which checks its order
//! with the independent checker, as for every built-in solver) and compare
//! it with the built-in ones; then [`solvers::register`] it and run an
//! experiment config that names it beside built-in solvers (rows, summary
//! and README in a temporary directory). `examples/custom_cli.rs` puts a
//! solver of your own on a `memsched` command line of your own;
//! `docs/extending.md` says how to put it in memsched's own registry.
//!
//! `cargo run --release --no-default-features --example custom_solver -- [GRAPH.json]`
//! (default: MobileNetV2 inference, the article's floating encoding).

use std::time::Duration;

use memsched::experiment::{self, Config, RunOptions};
use memsched::graph::{seed, Graph, NodeIdx};
use memsched::solvers::{self, DeadlineTicker, Outcome, Scheduler, SolveContext};

/// Two-step lookahead: among the ready nodes, run the one whose best
/// follow-up keeps the running peak lowest (ties: smaller delta, then
/// program order). A list scheduler no `rule:` key can express, since a
/// key sees one node at a time.
///
/// # Complexity
/// O(n · r²) for at most r ready nodes at a time.
struct Lookahead;

impl Scheduler for Lookahead {
    fn name(&self) -> String {
        "lookahead".into()
    }

    fn solve(&self, g: &Graph, ctx: &SolveContext) -> Outcome {
        let n = g.node_count();
        // Unrun predecessors of each node; the ready set in program order.
        let mut waiting: Vec<usize> = g.nodes().map(|v| g.preds(v).len()).collect();
        let mut ready: Vec<NodeIdx> = g.nodes().filter(|&v| waiting[v as usize] == 0).collect();
        let mut order = Vec::with_capacity(n);
        let mut ticker = DeadlineTicker::new(64);
        let mut mem = 0i64;
        while !ready.is_empty() {
            // Cooperative deadline: a solver must stop when asked.
            if ticker.expired(ctx) {
                return Outcome::timed_out();
            }
            let score = |v: NodeIdx| {
                let after = mem + g.delta(v);
                // The best next step among the other ready nodes and the
                // nodes `v` alone makes ready.
                let unlocked = g
                    .succs(v)
                    .iter()
                    .copied()
                    .filter(|&w| waiting[w as usize] == 1);
                let others = ready.iter().copied().filter(|&u| u != v);
                let next = others.chain(unlocked).map(|u| after + g.delta(u)).min();
                (after.max(next.unwrap_or(after)), g.delta(v), v)
            };
            let (at, _) = ready
                .iter()
                .enumerate()
                .min_by_key(|&(_, &v)| score(v))
                .expect("the ready set is not empty");
            let v = ready.remove(at);
            mem += g.delta(v);
            order.push(v);
            for &w in g.succs(v) {
                waiting[w as usize] -= 1;
                if waiting[w as usize] == 0 {
                    let at = ready.partition_point(|&u| u < w);
                    ready.insert(at, w);
                }
            }
        }
        // The order only: `solvers::run` computes and checks the peak.
        Outcome::feasible(order)
    }
}

fn main() {
    let path = std::env::args().nth(1).unwrap_or_else(|| {
        concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/datasets/models/mobilenet_v2_inference_b1_floating.json"
        )
        .to_string()
    });
    let graph = match seed::read_path(&path) {
        Ok(g) => g,
        Err(e) => {
            eprintln!("error: {path}: {e}");
            std::process::exit(2);
        }
    };
    let ctx = SolveContext::new(0, Some(Duration::from_secs(10)));
    let mut contenders: Vec<Box<dyn Scheduler>> = vec![Box::new(Lookahead)];
    for name in ["program", "seed-greedy", "moves-greedy", "best-heuristic"] {
        contenders.push(solvers::build(name).expect("a built-in solver"));
    }
    println!("{path}: {} nodes", graph.node_count());
    println!("| solver | status | peak (bytes) | time (ms) |");
    println!("|---|---|---:|---:|");
    for solver in &contenders {
        let r = solvers::run(solver.as_ref(), &graph, &ctx);
        let peak = r.peak.map_or("-".into(), |p| p.to_string());
        let ms = r.time.as_secs_f64() * 1e3;
        println!("| {} | {} | {peak} | {ms:.2} |", r.solver, r.status);
    }

    // Registered, it runs in experiments like a built-in solver.
    solvers::register("lookahead", "two-step lookahead", |arg| match arg {
        None => Ok(Box::new(Lookahead) as Box<dyn Scheduler>),
        Some(a) => Err(format!("takes no argument (got `{a}`)")),
    })
    .expect("a new name");
    let config = "solvers = [\"lookahead\", \"seed-greedy\", \"best-heuristic\"]\n\
                  plots = []\n[graphs]\n\
                  generate = [{ spec = \"tensor-program:ops=40\", seeds = \"0..5\" }]\n";
    let config = Config::parse(config, "custom_solver.rs", "custom").expect("a valid config");
    let out = std::env::temp_dir().join("memsched-custom-solver");
    let opts = RunOptions {
        out: out.clone(),
        fresh: true,
        quiet: true,
        ..RunOptions::default()
    };
    match experiment::run(&config, &opts) {
        Ok(_) => println!(
            "\nexperiment over 5 tensor programs: {}",
            out.join("README.md").display()
        ),
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(1);
        }
    }
}
