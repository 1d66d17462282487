//! Benchmark `runner`: a fixed corpus run with 1 and 2 worker threads.
//!
//! Runs `memsched::experiment::run` on a built-in config (generated graphs,
//! core solvers, no plots) into a temporary directory, fresh each time, and
//! prints the wall-clock time per thread count and the speed-up (target:
//! at least 1.8x from 1 to 2 threads on an otherwise idle 2-core machine).
//!
//! `cargo bench --no-default-features --bench runner [-- REPEATS]`

use std::time::Instant;

use memsched::experiment::{self, Config, RunOptions};

const CONFIG: &str = r#"
name = "bench"
solvers = ["kahn", "seed-greedy"]
time_limit = 60
plots = []
[graphs]
generate = [
  { spec = "random-layered:layers=2000,width=6", seeds = "0..40" },
  { spec = "chain:length=20000", seeds = "0..20" },
]
"#;

fn main() {
    let repeats: usize = std::env::args()
        .skip(1)
        .find_map(|a| a.parse().ok())
        .unwrap_or(3);
    let config = Config::parse(CONFIG, "benches/runner.rs", "bench").expect("valid config");
    let items = experiment::Plan::new(&config).expect("plan").items.len();
    println!("runner benchmark: {items} solves (kahn, seed-greedy, program on 60 graphs), best of {repeats}");
    println!("{:>8} {:>12} {:>10}", "threads", "time (s)", "speed-up");
    let mut base = None;
    for threads in [1usize, 2] {
        let mut best = f64::INFINITY;
        for _ in 0..repeats {
            let dir = tempfile::tempdir().expect("temp dir");
            let opts = RunOptions {
                out: dir.path().to_path_buf(),
                threads: Some(threads),
                quiet: true,
                shard: None,
                fresh: true,
            };
            let start = Instant::now();
            let summary = experiment::run(&config, &opts).expect("run");
            best = best.min(start.elapsed().as_secs_f64());
            assert_eq!(summary.ran, items);
        }
        let base = *base.get_or_insert(best);
        println!("{threads:>8} {best:>12.3} {:>9.2}x", base / best);
    }
}
