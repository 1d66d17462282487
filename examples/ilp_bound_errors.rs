//! How far HiGHS's dual bound strays above the proven optimum: the sweep
//! behind `ilp`'s relative bound allowance (`BOUND_ALLOWANCE`, 1e-5).
//!
//! `cargo run --release --example ilp_bound_errors -- [COUNT] [SECONDS] [MAX_SIZE]`
//! (defaults 2000, 10 and 4000000): COUNT small graphs with tensor sizes
//! up to MAX_SIZE bytes (random-layered graphs, tensor programs and
//! series-parallel graphs, both ALLOC encodings, and random DAGs of ALLOC,
//! FREE and compute nodes), each solved by `exact`
//! (the optimum, proven) and `ilp`. HiGHS's own bound is read from `ilp`'s
//! note; the bound `ilp` reports (after the allowance) must never exceed
//! the optimum, and the example exits 1 if one does.

#[cfg(feature = "ilp")]
mod sweep {
    use std::time::Duration;

    use rayon::prelude::*;

    use memsched::corpus::gen::{generate, GenSpec};
    use memsched::graph::{Graph, GraphBuilder};
    use memsched::rng::Rng;
    use memsched::solvers::{self, Ilp, Report, Scheduler, SolveContext, Status};

    /// Graph `i` and its name: a generated family and size by turns, or a
    /// random DAG. Sizes run from one byte to millions: rows mixing such
    /// coefficients are where HiGHS's tolerances showed (`tests/ilp.rs`).
    fn graph(i: u64, max_size: u64) -> (String, Graph) {
        let allocs = ["anchored", "floating"][(i / 4 % 2) as usize];
        let sizes = format!("min=1,max={max_size}");
        let spec = match i % 4 {
            0 => format!(
                "random-layered:layers={},width=3,{sizes},allocs={allocs}",
                3 + i / 8 % 4
            ),
            1 => format!(
                "tensor-program:ops={},window=4,{sizes},allocs={allocs}",
                6 + i / 8 % 8
            ),
            2 => format!(
                "series-parallel:ops={},{sizes},allocs={allocs}",
                6 + i / 8 % 8
            ),
            _ => {
                let mut rng = Rng::derive(0x1b, i);
                let n = rng.range(8, 20) as usize;
                return (format!("random DAG {i}"), random_dag(&mut rng, n, max_size));
            }
        };
        let parsed = GenSpec::parse(&spec).expect("valid spec");
        let g = generate(&parsed, i).expect("generators make valid graphs");
        (format!("{spec} #{i}"), g)
    }

    /// A random DAG of ALLOC / FREE / compute nodes (edges only go forward,
    /// each FREE has an edge from its ALLOC), sizes log-uniform in
    /// 1..max_size.
    fn random_dag(rng: &mut Rng, n: usize, max_size: u64) -> Graph {
        let mut b = GraphBuilder::new();
        let mut open: Vec<(i64, i64)> = Vec::new();
        for i in 0..n as i64 {
            let v = if !open.is_empty() && rng.chance(0.35) {
                let (a, buf) = open.swap_remove(rng.below(open.len() as u64) as usize);
                let f = b.free(buf);
                b.edge(a, f);
                f
            } else if rng.chance(0.5) {
                let size = (max_size as f64).powf(rng.f64()) as u64;
                let a = b.alloc(size, i);
                open.push((a, i));
                a
            } else {
                b.op("op")
            };
            for u in 0..v {
                if rng.chance(0.25) {
                    b.edge(u, v);
                }
            }
        }
        b.build().expect("forward edges make a valid DAG")
    }

    /// HiGHS's dual bound in bytes, as `ilp`'s note gives it
    /// (`bound Some(x)`, the Debug form of the bound), if it gave one. The
    /// note is text for people: if its wording changes, this finds no
    /// bound, and the count of graphs "with a HiGHS bound" drops to 0.
    fn highs_bound(r: &Report) -> Option<f64> {
        let note = r.note.as_deref()?;
        let rest = &note[note.find("bound Some(")? + "bound Some(".len()..];
        rest[..rest.find(')')?].parse().ok()
    }

    /// One graph's outcome: the optimum, `ilp`'s reported bound and
    /// status, and HiGHS's own bound.
    struct Seen {
        spec: String,
        optimum: u64,
        /// The sizes' common divisor: `ilp`'s model counts in these units.
        unit: u64,
        reported: Option<u64>,
        ilp_optimal: bool,
        highs: Option<f64>,
    }

    fn gcd(a: u64, b: u64) -> u64 {
        match b {
            0 => a,
            _ => gcd(b, a % b),
        }
    }

    pub fn main() {
        let mut args = std::env::args().skip(1);
        let count: u64 = args.next().and_then(|s| s.parse().ok()).unwrap_or(2000);
        let secs: u64 = args.next().and_then(|s| s.parse().ok()).unwrap_or(10);
        let max_size: u64 = args
            .next()
            .and_then(|s| s.parse().ok())
            .unwrap_or(4_000_000);
        let ctx = SolveContext::new(0, Some(Duration::from_secs(secs)));
        let exact = solvers::build("exact").expect("exact is registered");
        let seen: Vec<Option<Seen>> = (0..count)
            .into_par_iter()
            .map(|i| {
                let (name, g) = graph(i, max_size);
                let best = solvers::run(exact.as_ref(), &g, &ctx);
                if best.status != Status::Optimal {
                    return None;
                }
                let r = solvers::run(&Ilp::default() as &dyn Scheduler, &g, &ctx);
                let unit = g
                    .nodes()
                    .map(|v| g.size(v))
                    .filter(|&s| s > 0)
                    .fold(0, gcd)
                    .max(1);
                Some(Seen {
                    spec: name,
                    unit,
                    optimum: best.peak.expect("an optimal report has a peak"),
                    reported: r.lower_bound,
                    ilp_optimal: r.status == Status::Optimal,
                    highs: highs_bound(&r),
                })
            })
            .collect();
        let proven: Vec<&Seen> = seen.iter().flatten().collect();
        let with_bound: Vec<(&Seen, f64)> = proven
            .iter()
            .filter_map(|s| s.highs.map(|b| (*s, b)))
            .collect();
        // HiGHS's bound as it means it: whole units after its 1e-6
        // tolerance (as `ilp` reads it before its allowance).
        let above: Vec<(&Seen, f64)> = with_bound
            .iter()
            .map(|&(s, b)| {
                let unit = s.unit as f64;
                let units = (b / unit - 1e-6).ceil();
                (s, (units * unit - s.optimum as f64) / s.optimum as f64)
            })
            .filter(|&(_, err)| err > 0.0)
            .collect();
        let worst = above.iter().map(|&(_, e)| e).fold(0.0, f64::max);
        let wrong: Vec<&&Seen> = proven
            .iter()
            .filter(|s| s.reported.is_some_and(|b| b > s.optimum))
            .collect();
        println!("{count} graphs, sizes up to {max_size} B, {secs} s per solve");
        println!("proven optimal by exact: {}", proven.len());
        println!("with a HiGHS bound: {}", with_bound.len());
        println!(
            "HiGHS bound above the optimum: {} (largest relative error {worst:.2e}; the allowance is {:e})",
            above.len(),
            memsched::solvers::ILP_BOUND_ALLOWANCE
        );
        for (s, err) in &above {
            println!("  {}: optimum {}, error {err:.2e}", s.spec, s.optimum);
        }
        println!(
            "ilp proven optimal: {}",
            proven.iter().filter(|s| s.ilp_optimal).count()
        );
        println!(
            "ilp bounds above the optimum (wrong proofs): {}",
            wrong.len()
        );
        for s in &wrong {
            println!(
                "  {}: optimum {}, ilp bound {:?}",
                s.spec, s.optimum, s.reported
            );
        }
        if !wrong.is_empty() {
            std::process::exit(1);
        }
    }
}

#[cfg(feature = "ilp")]
fn main() {
    sweep::main();
}

#[cfg(not(feature = "ilp"))]
fn main() {
    eprintln!("ilp_bound_errors needs the `ilp` feature (the default)");
    std::process::exit(1);
}
