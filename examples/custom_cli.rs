//! A `memsched` command line of your own, with a solver of your own in it:
//! register the solver, then hand over to [`memsched::cli::main`]. Every
//! subcommand then knows it: `schedule -s`, `run` (an experiment config
//! naming it), `solvers`, `table`.
//!
//! `cargo run --release --example custom_cli -- schedule GRAPH.json -s kahn-lifo -s kahn`
//! (any `memsched` arguments; needs the default `cli` feature).

use std::process::ExitCode;

use memsched::graph::{Graph, NodeIdx};
use memsched::solvers::{self, DeadlineTicker, Outcome, Scheduler, SolveContext};

/// Kahn's algorithm with a stack for its ready list: the node made ready
/// last runs first, so each chain is followed to its end before another
/// starts (depth-first), where `kahn`'s queue goes breadth-first.
///
/// # Complexity
/// O(n + m).
struct KahnLifo;

impl Scheduler for KahnLifo {
    fn name(&self) -> String {
        "kahn-lifo".into()
    }

    fn solve(&self, g: &Graph, ctx: &SolveContext) -> Outcome {
        let mut waiting: Vec<usize> = g.nodes().map(|v| g.preds(v).len()).collect();
        // Reversed, so that the first ready node in program order pops first.
        let mut ready: Vec<NodeIdx> = g
            .nodes()
            .rev()
            .filter(|&v| waiting[v as usize] == 0)
            .collect();
        let mut order = Vec::with_capacity(g.node_count());
        let mut ticker = DeadlineTicker::new(1 << 12);
        while let Some(v) = ready.pop() {
            if ticker.expired(ctx) {
                return Outcome::timed_out();
            }
            order.push(v);
            for &w in g.succs(v).iter().rev() {
                waiting[w as usize] -= 1;
                if waiting[w as usize] == 0 {
                    ready.push(w);
                }
            }
        }
        // The checker measures the peak (and rejects an order that is not
        // a schedule); the solver only returns its order.
        Outcome::feasible(order)
    }
}

fn main() -> ExitCode {
    let make = |arg: Option<&str>| match arg {
        None => Ok(Box::new(KahnLifo) as Box<dyn Scheduler>),
        Some(a) => Err(format!("takes no argument (got `{a}`)")),
    };
    let summary =
        "Kahn's algorithm with a stack: depth-first (registered by examples/custom_cli.rs)";
    if let Err(e) = solvers::register("kahn-lifo", summary, make) {
        eprintln!("error: {e}");
        return ExitCode::FAILURE;
    }
    memsched::cli::main()
}
