//! Where a published scheduler's time goes on the heuristics bench's
//! 976,357-node graph: building the op view, deciding the op order, and
//! expanding it into a node order, per scheduler and ALLOC encoding (best
//! of six rounds, each round running every scheduler once), beside `kahn`'s
//! whole solve.
//!
//! `cargo run --release --no-default-features --example published_phases
//! [-- NAME...]` (names as in `memsched solvers`; default: the six single
//! published schedulers).

use std::time::{Duration, Instant};

use memsched::corpus::gen::{generate, GenSpec};
use memsched::solvers::published::{
    InductorBfs, InductorDfs, InductorLpmf, OpScheduler, OpView, XlaDfs, XlaList, XlaPostOrder,
};
use memsched::solvers::{self, Kahn, SolveContext};

/// The heuristics bench's graph, without its encoding.
const GRAPH: &str = "random-layered:layers=74074,width=8,density=0.3,skip=0.05";
/// Rounds timed; each phase keeps its fastest.
const ROUNDS: usize = 6;

fn main() {
    let all: Vec<(&str, Box<dyn OpScheduler>)> = vec![
        ("xla-list", Box::new(XlaList)),
        ("xla-dfs", Box::new(XlaDfs)),
        ("xla-postorder", Box::new(XlaPostOrder)),
        ("inductor-lpmf", Box::new(InductorLpmf)),
        ("inductor-bfs", Box::new(InductorBfs)),
        ("inductor-dfs", Box::new(InductorDfs)),
    ];
    let wanted: Vec<String> = std::env::args().skip(1).collect();
    let schedulers: Vec<_> = all
        .into_iter()
        .filter(|(name, _)| wanted.is_empty() || wanted.iter().any(|w| w == name))
        .collect();
    let ctx = SolveContext::new(1, None);
    for encoding in ["anchored", "floating"] {
        let spec = GenSpec::parse(&format!("{GRAPH},allocs={encoding}")).expect("valid spec");
        let g = generate(&spec, 1).expect("generates");
        let mut kahn = Duration::MAX;
        // (view, decide, expand) per scheduler.
        let mut best = vec![[Duration::MAX; 3]; schedulers.len()];
        for _ in 0..ROUNDS {
            kahn = kahn.min(solvers::run(&Kahn, &g, &ctx).time);
            for ((_, s), best) in schedulers.iter().zip(&mut best) {
                let start = Instant::now();
                let view = OpView::new(&g).expect("an op view");
                let viewed = Instant::now();
                let decision = s.decide(&g, &view, &ctx);
                let decided = Instant::now();
                let outcome = decision.into_outcome(&g, &view);
                let expanded = Instant::now();
                assert!(outcome.order.is_some(), "a schedule");
                let phases = [viewed - start, decided - viewed, expanded - decided];
                for (b, t) in best.iter_mut().zip(phases) {
                    *b = (*b).min(t);
                }
            }
        }
        let ms = |d: Duration| d.as_secs_f64() * 1e3;
        println!(
            "\n## {encoding}: {} nodes, kahn {:.1} ms\n",
            g.node_count(),
            ms(kahn)
        );
        println!("| scheduler | view ms | decide ms | expand ms | decide x kahn |");
        println!("|---|---|---|---|---|");
        for ((name, _), [view, decide, expand]) in schedulers.iter().zip(&best) {
            println!(
                "| {name} | {:.1} | {:.1} | {:.1} | {:.2} |",
                ms(*view),
                ms(*decide),
                ms(*expand),
                decide.as_secs_f64() / kahn.as_secs_f64()
            );
        }
    }
}
