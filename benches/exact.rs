//! Benchmark: `dp` vs `exact` (vs `ilp`, when the registry has it) on a
//! fixed set of graphs, with a time limit per solve.
//!
//! Run: `cargo bench --no-default-features --bench exact` (add `ilp` by
//! building with default features). Options (environment variables):
//! `EXACT_BENCH_LIMIT` seconds per solve (default 10), `EXACT_BENCH_SOLVERS`
//! a comma-separated list (default `dp,exact,ilp`; missing ones are skipped;
//! `exact-plain` is `exact` without cut points and symmetry),
//! `EXACT_BENCH_FILTER` a substring the graph names must contain.
//! Prints one row per graph: nodes, each solver's time, status and peak, and
//! the time ratios against `exact`. A solve that takes under
//! [`REPEAT_BELOW`] is repeated (up to [`MAX_REPEATS`] times or
//! [`REPEAT_BUDGET`] in all) and its fastest time shown, so that
//! sub-millisecond times are not one noisy sample.

#[path = "../tests/common/mod.rs"]
mod common;

use std::time::Duration;

use memsched::corpus::gen::{generate, GenSpec};
use memsched::corpus::program::{AllocEncoding, TensorProgram, TensorRef};
use memsched::rng::Rng;
use memsched::solvers::exact::Options;
use memsched::solvers::{self, run, Exact, Report, Scheduler, SolveContext};
use memsched::{Graph, Status};

/// A source, `k` branches of `depth` ops each with random sizes, one join.
fn fork_join(k: usize, depth: usize, seed: u64) -> Graph {
    let mut rng = Rng::new(seed);
    let mut p = TensorProgram::new();
    let src = p.op1("src", &[], rng.range(1 << 10, 1 << 20));
    let mut ends = Vec::new();
    for b in 0..k {
        let mut t = src;
        for d in 0..depth {
            t = p.op1(format!("b{b}.{d}"), &[t], rng.range(1 << 10, 1 << 20));
        }
        ends.push(t);
    }
    p.op1("join", &ends, 1024);
    p.to_graph(AllocEncoding::Anchored).unwrap()
}

/// Like [`fork_join`], but every branch has the same sizes (random per
/// depth): the branches are identical, so `exact` stores one state per orbit.
fn identical_fork_join(k: usize, depth: usize, seed: u64) -> Graph {
    let mut rng = Rng::new(seed);
    let mut p = TensorProgram::new();
    let src = p.op1("src", &[], rng.range(1 << 10, 1 << 20));
    let sizes: Vec<u64> = (0..depth).map(|_| rng.range(1 << 10, 1 << 20)).collect();
    let mut ends = Vec::new();
    for b in 0..k {
        let mut t = src;
        for (d, &bytes) in sizes.iter().enumerate() {
            t = p.op1(format!("b{b}.{d}"), &[t], bytes);
        }
        ends.push(t);
    }
    p.op1("join", &ends, 1024);
    p.to_graph(AllocEncoding::Anchored).unwrap()
}

/// `parts` random tensor programs in series: each part's first op reads the
/// previous part's last output, so every part boundary is a cut point.
fn series_of_programs(parts: usize, ops: usize, window: usize, seed: u64) -> Graph {
    let mut rng = Rng::new(seed);
    let mut p = TensorProgram::new();
    let mut outs: Vec<TensorRef> = Vec::new();
    for part in 0..parts {
        let start = outs.len();
        let mut read = vec![false; ops];
        for i in 0..ops {
            let mut inputs = Vec::new();
            if i == 0 {
                inputs.extend(outs.last().copied());
            } else {
                let reads = rng.range(1, 3) as usize;
                for _ in 0..reads {
                    let lo = outs.len().saturating_sub(window).max(start);
                    let t = outs[rng.range(lo as u64, outs.len() as u64 - 1) as usize];
                    if !inputs.contains(&t) {
                        read[outs.iter().position(|o| *o == t).unwrap() - start] = true;
                        inputs.push(t);
                    }
                }
            }
            outs.push(p.op1(
                format!("p{part}.op{i}"),
                &inputs,
                rng.range(1 << 10, 1 << 20),
            ));
        }
        // One op closes the part, reading every output of it nobody read.
        let ends: Vec<TensorRef> = (0..ops)
            .filter(|&i| !read[i])
            .map(|i| outs[start + i])
            .collect();
        outs.push(p.op1(format!("p{part}.end"), &ends, rng.range(1 << 10, 1 << 20)));
    }
    p.to_graph(AllocEncoding::Anchored).unwrap()
}

fn graphs() -> Vec<(String, Graph)> {
    let mut out = Vec::new();
    for (spec, seed) in [
        ("random-layered:layers=6,width=3", 1),
        ("random-layered:layers=8,width=3", 2),
        ("random-layered:layers=10,width=4", 3),
        ("random-layered:layers=20,width=4", 4),
        ("random-layered:layers=30,width=4", 5),
        ("random-layered:layers=40,width=4", 6),
        ("random-layered:layers=20,width=6", 7),
        ("random-layered:layers=30,width=6,allocs=floating", 8),
    ] {
        let g = generate(&GenSpec::parse(spec).unwrap(), seed).unwrap();
        out.push((format!("{spec} #{seed}"), g));
    }
    for (ops, window, seed) in [(20, 4, 1), (40, 6, 2), (80, 6, 3), (100, 8, 4)] {
        out.push((
            format!("tensor-program ops={ops} window={window} #{seed}"),
            common::windowed_program(ops, window, seed),
        ));
    }
    for (k, depth, seed) in [(8, 2, 1), (8, 4, 2), (12, 3, 3), (16, 2, 4), (16, 4, 5)] {
        out.push((
            format!("fork-join k={k} depth={depth} #{seed}"),
            fork_join(k, depth, seed),
        ));
    }
    for (k, depth, seed) in [(12, 3, 3), (16, 2, 4), (16, 4, 5)] {
        out.push((
            format!("identical fork-join k={k} depth={depth} #{seed}"),
            identical_fork_join(k, depth, seed),
        ));
    }
    for (parts, ops, window, seed) in [(4, 40, 8, 1), (4, 60, 8, 2), (3, 100, 8, 4)] {
        out.push((
            format!("series parts={parts} ops={ops} window={window} #{seed}"),
            series_of_programs(parts, ops, window, seed),
        ));
    }
    let filter = std::env::var("EXACT_BENCH_FILTER").unwrap_or_default();
    out.retain(|(name, _)| name.contains(&filter));
    out
}

/// A solver by registry name, or `exact-plain`.
fn solver(name: &str) -> Option<Box<dyn Scheduler>> {
    if name == "exact-plain" {
        let options = Options {
            split: false,
            symmetry: false,
            ..Options::default()
        };
        return Some(Box::new(Exact::with_options(
            Exact::default_upper(),
            options,
        )));
    }
    solvers::build(name).ok()
}

/// Solves shorter than this are repeated.
const REPEAT_BELOW: Duration = Duration::from_millis(100);
/// At most this many runs of one solve...
const MAX_REPEATS: usize = 20;
/// ...and no new run once the runs so far took this long.
const REPEAT_BUDGET: Duration = Duration::from_millis(500);

/// `s` on `g`, with the fastest time of up to [`MAX_REPEATS`] runs when a
/// run is short.
fn timed(s: &dyn Scheduler, g: &Graph, ctx: &SolveContext) -> Report {
    let mut best = run(s, g, ctx);
    let (mut runs, mut spent) = (1, best.time);
    while best.time < REPEAT_BELOW && runs < MAX_REPEATS && spent < REPEAT_BUDGET {
        let again = run(s, g, ctx);
        spent += again.time;
        runs += 1;
        if again.time < best.time {
            best = again;
        }
    }
    best
}

fn cell(r: &Report) -> String {
    let status = match r.status {
        Status::Optimal => "opt",
        Status::Feasible => "feas",
        Status::TimedOut => "t/o",
        Status::Failed(_) => "fail",
        Status::Invalid(_) => "INVALID",
        _ => "other",
    };
    let gap = match (&r.status, r.gap_pct()) {
        (Status::Feasible, Some(g)) => format!(" gap {g:.1}%"),
        _ => String::new(),
    };
    format!(
        "{:>7.3}s {:<4} {:>9}{gap:<10}",
        r.time.as_secs_f64(),
        status,
        r.peak.map_or("-".into(), |p| p.to_string())
    )
}

fn main() {
    let limit: f64 = std::env::var("EXACT_BENCH_LIMIT")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(10.0);
    let names = std::env::var("EXACT_BENCH_SOLVERS").unwrap_or_else(|_| "dp,exact,ilp".into());
    let solvers: Vec<(&str, Box<dyn Scheduler>)> = names
        .split(',')
        .filter_map(|n| match solver(n) {
            Some(s) => Some((n, s)),
            None => {
                eprintln!("skipping `{n}`: not in this build's registry");
                None
            }
        })
        .collect();
    let ctx = SolveContext::new(0, Some(Duration::from_secs_f64(limit)));
    print!("{:<52} {:>5}", "graph", "nodes");
    for (n, _) in &solvers {
        print!(" | {:<34}", format!("{n} time status peak"));
    }
    println!(" | ratios vs exact (time)");
    for (name, g) in graphs() {
        print!("{name:<52} {:>5}", g.node_count());
        let reports: Vec<(&str, Report)> = solvers
            .iter()
            .map(|(n, s)| (*n, timed(s.as_ref(), &g, &ctx)))
            .collect();
        for (_, r) in &reports {
            print!(" | {}", cell(r));
        }
        let exact = reports.iter().find(|(n, _)| *n == "exact");
        let mut ratios = Vec::new();
        if let Some((_, e)) = exact {
            for (n, r) in reports.iter().filter(|(n, _)| *n != "exact") {
                let x = r.time.as_secs_f64() / e.time.as_secs_f64().max(1e-6);
                let done = r.status == Status::Optimal;
                let exact_done = e.status == Status::Optimal;
                // A ratio is a bound when one of the two did not finish.
                let bound = match (done, exact_done) {
                    (true, false) => "<=",
                    (false, _) => ">=",
                    (true, true) => "",
                };
                // Two decimals below 1x, so that a solver faster than `exact` does not show as 0x.
                let x = match x {
                    x if x < 0.995 => format!("{x:.2}"),
                    x if x < 9.95 => format!("{x:.1}"),
                    x => format!("{x:.0}"),
                };
                ratios.push(format!("{n} {bound}{x}x"));
            }
        }
        println!(" | {}", ratios.join(", "));
    }
    println!("time limit {limit} s per solve; solves under 0.1 s: fastest of up to 20 runs; `>=`: the other solver did not finish (ratio is a lower bound); `<=`: `exact` did not finish (an upper bound); gap: (peak - proven lower bound) / bound");
}
