//! `exact`, `dp`, `brute` (and `ilp`, once it is in the registry) agree on
//! the optimal peak of thousands of random small graphs; closed-form
//! families give their known peaks; a tiny budget never yields a false
//! `optimal`.

mod common;

use std::time::Duration;

use memsched::corpus::gen::{generate, GenSpec};
use memsched::corpus::program::{AllocEncoding, TensorProgram};
use memsched::solvers::{self, run, Report, Scheduler, SolveContext};
use memsched::{Graph, Status};

fn solvers_under_test() -> Vec<Box<dyn Scheduler>> {
    let mut s = vec![
        solvers::build("exact").unwrap(),
        solvers::build("dp").unwrap(),
    ];
    if let Ok(ilp) = solvers::build("ilp") {
        s.push(ilp);
    }
    s
}

fn optimal(solver: &dyn Scheduler, g: &Graph) -> Report {
    let r = run(solver, g, &SolveContext::default());
    assert_eq!(r.status, Status::Optimal, "{}: {:?}", r.solver, r.status);
    r
}

fn agree(count: u64, seed: u64) {
    let brute = solvers::build("brute").unwrap();
    let others = solvers_under_test();
    for i in 0..count {
        let g = common::graph(seed, i);
        let want = optimal(brute.as_ref(), &g).peak.unwrap();
        for s in &others {
            let r = optimal(s.as_ref(), &g);
            assert_eq!(
                r.peak,
                Some(want),
                "graph {i} (seed {seed}): {} peak {:?}, brute {want}\n{:?}",
                r.solver,
                r.peak,
                g.to_raw()
            );
        }
    }
}

#[test]
fn exact_dp_ilp_and_brute_agree_on_2000_small_graphs() {
    agree(2000, 1);
}

/// The long run: `cargo test --release --no-default-features --test exact_agreement -- --ignored`.
#[test]
#[ignore]
fn exact_dp_ilp_and_brute_agree_on_20000_small_graphs() {
    agree(20_000, 2);
}

fn peak_of(name: &str, g: &Graph) -> u64 {
    optimal(solvers::build(name).unwrap().as_ref(), g)
        .peak
        .unwrap()
}

#[test]
fn chain_peaks_at_its_largest_adjacent_pair() {
    // In a chain op_i reads op_{i-1}'s output: when op_i runs, its input and
    // output are both live, and nothing else is. Peak = max of s_{i-1} + s_i
    // (and s_0), the last output staying live to the end.
    for seed in 0..20 {
        let spec = GenSpec::parse("chain:length=30,min=1,max=1000").unwrap();
        let g = generate(&spec, seed).unwrap();
        let sizes: Vec<u64> = g
            .nodes()
            .filter(|&v| g.delta(v) > 0)
            .map(|v| g.size(v))
            .collect();
        let want = sizes
            .windows(2)
            .map(|w| w[0] + w[1])
            .chain([sizes[0]])
            .max()
            .unwrap();
        assert_eq!(peak_of("exact", &g), want, "seed {seed}");
    }
}

#[test]
fn fork_join_of_identical_branches_has_its_closed_form_peak() {
    for &(k, s, a, b) in &[
        (3, 5, 4, 2),
        (5, 1, 10, 3),
        (8, 7, 2, 9),
        (6, 3, 3, 3),
        (7, 50, 1, 2),
        (6, 1, 20, 1),
    ] {
        for enc in [AllocEncoding::Anchored, AllocEncoding::Floating] {
            let g = common::fork_join(k, s, a, b, enc);
            let want = common::fork_join_peak(k as u64, s, a, b);
            assert_eq!(
                peak_of("exact", &g),
                want,
                "k={k} s={s} a={a} b={b} {enc:?}"
            );
        }
    }
}

/// Liu (1987): on an in-tree where each node's output must stay live until
/// its parent runs, an optimal order runs the children's subtrees one after
/// another in decreasing order of (subtree peak - output size).
fn liu_peak(children: &[Vec<usize>], size: &[u64], v: usize) -> u64 {
    let mut subs: Vec<(u64, u64)> = children[v]
        .iter()
        .map(|&c| (liu_peak(children, size, c), size[c]))
        .collect();
    subs.sort_by_key(|&(p, s)| std::cmp::Reverse(p - s));
    let mut held = 0;
    let mut peak = 0;
    for (p, s) in subs {
        peak = peak.max(held + p);
        held += s;
    }
    peak.max(held + size[v])
}

#[test]
fn trees_match_liu_1987() {
    let mut rng = memsched::rng::Rng::new(7);
    for round in 0..60 {
        let n = rng.range(2, 16) as usize;
        let mut children = vec![Vec::new(); n];
        // Node 0 is the root; parent of i is some earlier node.
        for i in 1..n {
            children[rng.below(i as u64) as usize].push(i);
        }
        let size: Vec<u64> = (0..n).map(|_| rng.range(1, 20)).collect();
        // Program: leaves first (reverse index order is a post-order-compatible topo order).
        let mut p = TensorProgram::new();
        let mut tensor = vec![None; n];
        for v in (0..n).rev() {
            let inputs: Vec<_> = children[v].iter().map(|&c| tensor[c].unwrap()).collect();
            tensor[v] = Some(p.op1(format!("n{v}"), &inputs, size[v]));
        }
        let g = p.to_graph(AllocEncoding::Anchored).unwrap();
        assert_eq!(
            peak_of("exact", &g),
            liu_peak(&children, &size, 0),
            "round {round}"
        );
    }
}

#[test]
fn tiny_budget_on_a_hard_graph_is_feasible_with_a_proven_bound() {
    let spec = GenSpec::parse("random-layered:layers=30,width=8,density=0.2").unwrap();
    let g = generate(&spec, 3).unwrap();
    let exact = solvers::build("exact").unwrap();
    for (states, limit) in [(2, None), (u64::MAX, Some(Duration::ZERO))] {
        let mut ctx = SolveContext::new(0, limit);
        ctx.budget.max_states = states;
        let r = run(exact.as_ref(), &g, &ctx);
        assert_eq!(r.status, Status::Feasible, "{:?} {:?}", r.status, r.note);
        let (lb, peak) = (r.lower_bound.unwrap(), r.peak.unwrap());
        assert!(lb < peak, "a closed gap would have been optimal");
    }
}

/// Stopped while preparing its search, `exact` is still `optimal` when its
/// upper bound meets the lower bound it took before the stop, and its note
/// says that bound proved it (it read as "stopped" beside "optimal").
#[test]
fn a_stop_while_preparing_that_meets_the_bound_says_what_proved_it() {
    // Program order peaks at the largest buffer (1.5 MiB) here.
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/datasets/models/bert_base_inference_b1_floating.json"
    );
    let text = std::fs::read(path).unwrap();
    let g = Graph::from_raw(memsched::graph::seed::parse(&text).unwrap()).unwrap();
    let exact = solvers::build("exact").unwrap();
    let r = run(
        exact.as_ref(),
        &g,
        &SolveContext::new(0, Some(Duration::ZERO)),
    );
    assert_eq!(r.status, Status::Optimal, "{:?}", r.note);
    let note = r.note.unwrap_or_default();
    assert!(
        note.starts_with("stopped by the time limit while preparing"),
        "{note}"
    );
    assert!(
        note.ends_with("meets the lower bound 3538944 found without the search, which proves it"),
        "{note}"
    );
}
