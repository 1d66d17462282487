//! Which sizes `ilp` proves optimal within a time limit: random-layered
//! graphs of about 20, 30, 50 and 80 ops, reduced model (and the plain model
//! of the issue on the smallest), one table row per graph.
//!
//! `cargo run --example ilp_sizes -- [SECONDS] [SEEDS] [OPS,OPS,...]`
//! (defaults 60, 2 and 20,30,50,80).

#[cfg(feature = "ilp")]
mod sizes {
    use std::time::Duration;

    use memsched::corpus::gen::{generate, GenSpec};
    use memsched::solvers::{self, Ilp, Scheduler, SolveContext};
    use memsched::NodeKind;

    pub fn main() {
        let mut args = std::env::args().skip(1);
        let secs: u64 = args.next().and_then(|s| s.parse().ok()).unwrap_or(60);
        let seeds: u64 = args.next().and_then(|s| s.parse().ok()).unwrap_or(2);
        let sizes: Vec<usize> = args
            .next()
            .map(|s| s.split(',').filter_map(|x| x.trim().parse().ok()).collect())
            .unwrap_or_else(|| vec![20, 30, 50, 80]);
        let ctx = SolveContext::new(0, Some(Duration::from_secs(secs)));
        println!("time limit {secs} s per solve");
        println!(
            "| ops | nodes | model | steps | binaries | status | peak | bound | gap % | time s |"
        );
        println!("|---|---|---|---|---|---|---|---|---|---|");
        for &ops in &sizes {
            for seed in 1..=seeds {
                // width 4 draws 1..=4 ops per layer: 2.5 on average.
                let layers = (ops * 2).div_ceil(5);
                let spec = GenSpec::parse(&format!("random-layered:layers={layers},width=4"))
                    .expect("valid spec");
                let g = generate(&spec, seed).expect("generator makes valid graphs");
                let n_ops = g
                    .nodes()
                    .filter(|&v| g.kind(v) == NodeKind::Compute)
                    .count();
                let mut models: Vec<(&str, Ilp)> = vec![("reduced", Ilp::default())];
                if ops <= 20 {
                    models.push(("plain", Ilp::plain()));
                }
                for (name, s) in models {
                    let r = solvers::run(&s as &dyn Scheduler, &g, &ctx);
                    let show = |x: Option<u64>| x.map_or("-".to_string(), |p| p.to_string());
                    println!(
                        "| {n_ops} | {} | {name} | {} | {} | {} | {} | {} | {} | {:.1} |",
                        g.node_count(),
                        show(r.counter("steps")),
                        show(r.counter("binaries")),
                        r.status.label(),
                        show(r.peak),
                        show(r.lower_bound),
                        r.gap_pct().map_or("-".into(), |p| format!("{p:.2}")),
                        r.time.as_secs_f64()
                    );
                }
            }
        }
    }
}

#[cfg(feature = "ilp")]
fn main() {
    sizes::main();
}

#[cfg(not(feature = "ilp"))]
fn main() {
    eprintln!("ilp_sizes needs the `ilp` feature (the default)");
    std::process::exit(1);
}
