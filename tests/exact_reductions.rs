//! `exact`'s reductions never change the optimum: splitting at cut points,
//! storing one state per orbit of identical branches and taking descending
//! moves at once agree with `brute` and `dp` on random graphs built to have
//! cuts, identical branches, and chains (fork-joins of chains with
//! different sizes, chains hanging off random DAGs), and fork-joins of
//! 12-16 identical branches are proven optimal with their closed-form peak.

mod common;

use std::time::Duration;

use memsched::corpus::program::AllocEncoding;
use memsched::rng::Rng;
use memsched::solvers::exact::Options;
use memsched::solvers::{self, run, Exact, Report, Scheduler, SolveContext};
use memsched::{Graph, Status};

/// `exact` with the given reductions; pieces of any size. The upper bound
/// comes from `kahn` alone (no move beam), so that the search (and the
/// reductions in it) runs more often than with the default upper bound.
fn exact(split: bool, symmetry: bool, descents: bool) -> Exact {
    let options = Options {
        liu: false,
        split,
        min_piece: 1,
        symmetry,
        descents,
        beam: false,
        polish: false,
    };
    Exact::with_options(solvers::build("kahn").unwrap(), options)
}

fn optimal(solver: &dyn Scheduler, g: &Graph) -> Report {
    let ctx = SolveContext::new(0, Some(Duration::from_secs(20)));
    let r = run(solver, g, &ctx);
    assert_eq!(
        r.status,
        Status::Optimal,
        "{}: {:?} {:?}",
        r.solver,
        r.status,
        r.note
    );
    r
}

/// How often the reductions actually applied.
#[derive(Default, Debug)]
struct Seen {
    split: u32,
    symmetric: u32,
    /// Graphs on which exact with descents stored fewer states than without.
    descended: u32,
}

/// Every variant of `exact` finds `reference`'s peak on `g`.
fn agree(g: &Graph, reference: &dyn Scheduler, what: &str, seen: &mut Seen) {
    let want = optimal(reference, g).peak;
    let mut states = Vec::new();
    for (split, symmetry, descents) in [
        (true, true, true),
        (true, false, true),
        (false, true, true),
        (true, true, false),
    ] {
        let r = optimal(&exact(split, symmetry, descents), g);
        assert_eq!(
            r.peak,
            want,
            "{what}: exact(split {split}, symmetry {symmetry}, descents {descents}) {:?} vs {} {want:?}\n{:?}",
            r.note,
            reference.name(),
            g.to_raw()
        );
        seen.split += u32::from(r.counter("pieces").is_some_and(|p| p > 1));
        seen.symmetric += u32::from(r.counter("symmetric_branches").is_some());
        states.push(r.counter("states").unwrap_or(0));
    }
    seen.descended += u32::from(states[0] < states[3]);
}

/// `count` small graphs of each kind against `brute`; returns what applied.
fn agree_small(count: u64, seed: u64) -> Seen {
    let brute = solvers::build("brute").unwrap();
    let mut seen = Seen::default();
    for i in 0..count {
        let g = common::graph(seed, i);
        agree(&g, brute.as_ref(), &format!("graph {i}"), &mut seen);
        let mut rng = Rng::derive(seed + 1, i);
        let parts = rng.range(2, 3) as usize;
        let g = common::series_dag(&mut rng, parts, 10 / parts);
        agree(&g, brute.as_ref(), &format!("series {i}"), &mut seen);
        let (k, depth) = if rng.chance(0.5) { (2, 1) } else { (1, 2) };
        let enc = encoding(&mut rng);
        let g = common::random_fork_join(&mut rng, k, depth, enc);
        agree(&g, brute.as_ref(), &format!("fork-join {i}"), &mut seen);
        let (m, len) = (rng.range(1, 3) as usize, rng.range(2, 3) as usize);
        let g = common::chain_off_dag(&mut rng, m, len);
        agree(
            &g,
            brute.as_ref(),
            &format!("chain off a DAG {i}"),
            &mut seen,
        );
    }
    seen
}

fn encoding(rng: &mut Rng) -> AllocEncoding {
    if rng.chance(0.5) {
        AllocEncoding::Anchored
    } else {
        AllocEncoding::Floating
    }
}

/// `count` larger graphs of each kind against `dp`; returns what applied.
fn agree_larger(count: u64, seed: u64) -> Seen {
    let dp = solvers::build("dp").unwrap();
    let mut seen = Seen::default();
    for i in 0..count {
        let mut rng = Rng::derive(seed, i);
        let k = rng.range(2, 4) as usize;
        let m = rng.range(1, 5) as usize;
        let g = common::identical_branches(&mut rng, k, m);
        agree(&g, dp.as_ref(), &format!("branches {i}"), &mut seen);
        let g = common::series_dag(&mut rng, 3, 6);
        agree(&g, dp.as_ref(), &format!("series {i}"), &mut seen);
        let (k, depth) = (rng.range(2, 4) as usize, rng.range(2, 3) as usize);
        let enc = encoding(&mut rng);
        let g = common::random_fork_join(&mut rng, k, depth, enc);
        agree(&g, dp.as_ref(), &format!("fork-join {i}"), &mut seen);
        let (m, len) = (rng.range(3, 10) as usize, rng.range(3, 8) as usize);
        let g = common::chain_off_dag(&mut rng, m, len);
        agree(&g, dp.as_ref(), &format!("chain off a DAG {i}"), &mut seen);
    }
    seen
}

#[test]
fn split_and_symmetry_agree_with_brute_on_random_small_graphs() {
    let seen = agree_small(600, 11);
    assert!(seen.split > 300, "the split applied too rarely: {seen:?}");
    assert!(seen.descended > 60, "descents applied too rarely: {seen:?}");
}

#[test]
fn split_and_symmetry_agree_with_dp_on_graphs_with_cuts_and_identical_branches() {
    let seen = agree_larger(150, 13);
    assert!(
        seen.symmetric > 200,
        "symmetry applied too rarely: {seen:?}"
    );
    assert!(seen.split > 150, "the split applied too rarely: {seen:?}");
    assert!(seen.descended > 30, "descents applied too rarely: {seen:?}");
}

/// The long run: `cargo test --release --no-default-features --test exact_reductions -- --ignored`.
#[test]
#[ignore]
fn split_and_symmetry_agree_on_24000_more_graphs() {
    let small = agree_small(5000, 21);
    let larger = agree_larger(1000, 23);
    assert!(small.split > 0 && larger.symmetric > 0 && larger.split > 0);
    assert!(small.descended > 0 && larger.descended > 0);
}

#[test]
fn fork_joins_of_12_to_16_identical_branches_are_proven_optimal() {
    let full = Exact::default();
    for &(k, s, a, b) in &[
        (12, 1, 10, 3),
        (14, 7, 2, 9),
        (16, 50, 1, 2),
        (16, 1, 20, 1),
    ] {
        for enc in [AllocEncoding::Anchored, AllocEncoding::Floating] {
            let g = common::fork_join(k, s, a, b, enc);
            let r = optimal(&full, &g);
            let want = common::fork_join_peak(k as u64, s, a, b);
            assert_eq!(r.peak, Some(want), "k={k} s={s} a={a} b={b} {enc:?}");
        }
    }
}
