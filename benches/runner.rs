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

/// CPU seconds (user + system) this process has used, from /proc (Linux);
/// `None` elsewhere. CPU / wall shows how many cores a run kept busy, which
/// stays meaningful when other work shares the machine.
fn cpu_seconds() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // Fields after the command name (which ends with ')'): utime is the 12th, stime the 13th.
    let rest = &stat[stat.rfind(')')? + 2..];
    let f: Vec<&str> = rest.split_whitespace().collect();
    let ticks: f64 = f.get(11)?.parse::<f64>().ok()? + f.get(12)?.parse::<f64>().ok()?;
    Some(ticks / 100.0)
}

fn main() {
    let repeats: usize = std::env::args()
        .skip(1)
        .find_map(|a| a.parse().ok())
        .unwrap_or(3);
    let config = Config::parse(CONFIG, "benches/runner.rs", "bench").expect("valid config");
    let items = experiment::Plan::new(&config).expect("plan").items.len();
    println!("runner benchmark: {items} solves (kahn, seed-greedy, program on 60 graphs), best of {repeats}");
    println!(
        "{:>8} {:>12} {:>10} {:>14}",
        "threads", "time (s)", "speed-up", "cores busy"
    );
    let mut base = None;
    for threads in [1usize, 2] {
        let mut best = f64::INFINITY;
        let mut busy = f64::NAN;
        for _ in 0..repeats {
            let dir = tempfile::tempdir().expect("temp dir");
            let opts = RunOptions {
                out: dir.path().to_path_buf(),
                threads: Some(threads),
                quiet: true,
                shard: None,
                fresh: true,
                ..RunOptions::default()
            };
            let (start, cpu0) = (Instant::now(), cpu_seconds());
            let summary = experiment::run(&config, &opts).expect("run");
            let wall = start.elapsed().as_secs_f64();
            if wall < best {
                best = wall;
                busy = match (cpu0, cpu_seconds()) {
                    (Some(a), Some(b)) => (b - a) / wall,
                    _ => f64::NAN,
                };
            }
            assert_eq!(summary.ran, items);
        }
        let base = *base.get_or_insert(best);
        println!(
            "{threads:>8} {best:>12.3} {:>9.2}x {busy:>14.2}",
            base / best
        );
    }
}
