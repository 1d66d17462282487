//! The published schedulers (`xla-*`, `inductor-*`) and `anneal` on random
//! corpora: every order passes the independent checker, the best-of members
//! order as documented, and annealing never loses its start.

mod common;

use std::time::Duration;

use common::generated;
use memsched::graph::{Graph, GraphBuilder, NodeIdx};
use memsched::rng::Rng;
use memsched::schedule;
use memsched::solvers::anneal::MoveState;
use memsched::solvers::published::{self, OpView};
use memsched::solvers::{build, run, Anneal, Report, Scheduler, SolveContext};
use proptest::prelude::*;

/// A random DAG off the lowering pattern: nodes of every kind with random
/// edges, ALLOCs feeding several nodes or none, FREEs with extra edges,
/// compute nodes without ALLOCs; nodes inserted in a shuffled order when
/// `shuffle` (so program order breaks edges).
fn random_dag(seed: u64, n: usize, shuffle: bool) -> Graph {
    let mut rng = Rng::new(seed);
    let mut slot: Vec<usize> = (0..n).collect();
    if shuffle {
        rng.shuffle(&mut slot);
    }
    // Kinds in topological position order; FREEs pair with an earlier open ALLOC.
    let mut kinds = Vec::with_capacity(n);
    let mut open: Vec<usize> = Vec::new();
    let mut pair = vec![usize::MAX; n];
    for (i, paired) in pair.iter_mut().enumerate() {
        let r = rng.below(10);
        if r < 3 {
            kinds.push(0u8); // ALLOC
            open.push(i);
        } else if r < 6 && !open.is_empty() {
            let k = rng.below(open.len() as u64) as usize;
            *paired = open.swap_remove(k);
            kinds.push(1); // FREE
        } else {
            kinds.push(2); // compute
        }
    }
    // Insert nodes in slot order; ids are insertion positions.
    let mut b = GraphBuilder::new();
    let mut id = vec![0i64; n];
    let mut by_slot: Vec<usize> = (0..n).collect();
    by_slot.sort_by_key(|&i| slot[i]);
    for &i in &by_slot {
        id[i] = match kinds[i] {
            0 => b.alloc(rng.range(1, 100), i as i64),
            1 => b.free(pair[i] as i64),
            _ => b.op("op"),
        };
    }
    for j in 0..n {
        if kinds[j] == 1 {
            b.edge(id[pair[j]], id[j]);
        }
        for i in 0..j {
            if rng.chance(2.5 / (j as f64 + 1.0)) {
                b.edge(id[i], id[j]);
            }
        }
    }
    b.build().expect("random DAG is valid")
}

fn corpus() -> Vec<(String, Graph)> {
    let mut out = Vec::new();
    for seed in 0..12u64 {
        for allocs in ["anchored", "floating"] {
            let spec = format!(
                "random-layered:layers={},width={},allocs={allocs}",
                2 + seed % 9,
                1 + seed % 4
            );
            let g = generated(&spec, seed);
            out.push((format!("{spec} seed {seed}"), g));
        }
        let spec = format!("chain:length={},allocs=floating", 1 + seed);
        out.push((spec.clone(), generated(&spec, seed)));
    }
    for seed in 0..60u64 {
        let shuffle = seed % 2 == 1;
        let n = 1 + (seed as usize * 7) % 45;
        out.push((
            format!("random dag n={n} seed {seed} shuffled={shuffle}"),
            random_dag(seed, n, shuffle),
        ));
    }
    out
}

fn solve(name: &str, g: &Graph) -> Report {
    run(build(name).unwrap().as_ref(), g, &SolveContext::default())
}

/// Every generator family in both encodings (small sizes), three seeds each.
fn family_graphs() -> Vec<(String, Graph)> {
    let mut out = Vec::new();
    for spec in common::family_specs() {
        for seed in 0..3 {
            let g = generated(&spec, seed);
            out.push((format!("{spec} seed {seed}"), g));
        }
    }
    out
}

/// A random valid op order: ready ops (all operands run) drawn at random.
fn random_op_order(view: &OpView, rng: &mut Rng) -> Vec<u32> {
    let operands = view.operands();
    let users = operands.transpose(view.op_count());
    let mut waiting: Vec<usize> = (0..view.op_count() as u32)
        .map(|o| operands.degree(o))
        .collect();
    let mut ready: Vec<u32> = (0..view.op_count() as u32)
        .filter(|&o| waiting[o as usize] == 0)
        .collect();
    let mut order = Vec::with_capacity(view.op_count());
    while !ready.is_empty() {
        let op = ready.swap_remove(rng.below(ready.len() as u64) as usize);
        order.push(op);
        for &u in users.neighbors(op) {
            waiting[u as usize] -= 1;
            if waiting[u as usize] == 0 {
                ready.push(u);
            }
        }
    }
    order
}

/// The op view's expansion (its fast path on regular graphs) gives the
/// general expander's node order, and `peak_of` the checker's peak of that
/// order, on lowered graphs and graphs off every pattern; an op order the
/// expander refuses is refused by the view too, or expanded to an order
/// the checker rejects (the fast path leaves operand edges to the checker).
#[test]
fn op_view_expansion_and_peak_match_the_expander() {
    let mut rng = Rng::new(5);
    let mut regular = 0;
    for (label, g) in family_graphs().into_iter().chain(corpus()) {
        let view = OpView::new(&g).expect("small view");
        regular += usize::from(view.is_regular());
        let program: Vec<u32> = (0..view.op_count() as u32).collect();
        let mut orders = vec![program.clone()];
        orders.extend((0..4).map(|_| random_op_order(&view, &mut rng)));
        let mut reversed = program.clone();
        reversed.reverse();
        orders.push(reversed); // mostly invalid
        orders.push(program[..program.len() / 2].to_vec()); // incomplete
        for ops in &orders {
            let nodes: Vec<NodeIdx> = ops.iter().map(|&o| view.ops()[o as usize]).collect();
            let got = view.expand(&g, ops);
            match published::expand(&g, &nodes) {
                Ok(expected) => {
                    assert_eq!(got.as_ref(), Ok(&expected), "{label}");
                    let peak = schedule::check(&g, &expected).unwrap().peak;
                    assert_eq!(view.peak_of(&g, ops), Ok(peak), "{label}");
                }
                Err(_) => assert!(
                    got.map_or(true, |o| schedule::check(&g, &o).is_err()),
                    "{label}: a refused op order expands to a schedule"
                ),
            }
        }
    }
    assert!(regular > 50, "only {regular} regular graphs");
}

#[test]
fn every_published_scheduler_passes_the_checker() {
    for (label, g) in corpus() {
        for name in published::NAMES {
            let r = solve(name, &g);
            assert!(r.valid(), "{name} on {label}: {}", r.status);
        }
    }
}

#[test]
fn defaults_are_no_worse_than_their_members() {
    for (label, g) in corpus() {
        let peak = |name: &str| solve(name, &g).peak;
        let xla = peak("xla-default").unwrap();
        for m in ["xla-list", "xla-dfs", "xla-postorder"] {
            assert!(xla <= peak(m).unwrap(), "xla-default > {m} on {label}");
        }
        let ind = peak("inductor-default").unwrap();
        for m in ["inductor-lpmf", "inductor-bfs", "inductor-dfs"] {
            assert!(ind <= peak(m).unwrap(), "inductor-default > {m} on {label}");
        }
        match peak("program") {
            Some(p) => assert!(ind <= p, "inductor-default > program on {label}"),
            None => assert!(!g.program_order_is_topological()),
        }
    }
}

#[test]
fn anneal_never_loses_its_start_and_is_deterministic() {
    let starts = [
        "program",
        "kahn",
        "seed-greedy",
        "xla-default",
        "inductor-default",
    ];
    for (label, g) in corpus().into_iter().step_by(3) {
        let anneal = Anneal::default().with_iterations(3000);
        let best_start = starts
            .iter()
            .filter_map(|s| solve(s, &g).peak)
            .min()
            .unwrap();
        let ctx = SolveContext::new(7, None);
        let a = run(&anneal, &g, &ctx);
        assert!(a.valid(), "anneal on {label}: {}", a.status);
        assert!(
            a.peak.unwrap() <= best_start,
            "anneal worse than its start on {label}"
        );
        let again = run(&anneal, &g, &ctx);
        assert_eq!(a.order, again.order, "anneal not deterministic on {label}");

        // From a warm start it never does worse than that start.
        let kahn = solve("kahn", &g);
        let warm = SolveContext {
            warm_start: kahn.order.clone(),
            ..SolveContext::new(3, None)
        };
        let w = run(&anneal, &g, &warm);
        assert!(
            w.valid() && w.peak <= kahn.peak,
            "anneal from kahn on {label}"
        );
    }
}

#[test]
fn anneal_improves_a_poor_start_on_a_fork_join() {
    // Kahn runs every ALLOC of a 6-way fork before any FREE; shifting them
    // next to their ops brings the peak down.
    let g = generated(
        "random-layered:layers=3,width=6,density=0,skip=0,allocs=floating",
        5,
    );
    let kahn = solve("kahn", &g);
    let warm = SolveContext {
        warm_start: kahn.order.clone(),
        ..SolveContext::new(1, None)
    };
    let a = run(&Anneal::default().with_iterations(20_000), &g, &warm);
    assert!(
        a.peak.unwrap() < kahn.peak.unwrap(),
        "{:?} vs {:?}",
        a.peak,
        kahn.peak
    );
}

#[test]
fn anneal_respects_a_time_limit() {
    let g = generated("random-layered:layers=200,width=4", 2);
    let ctx = SolveContext::new(1, Some(Duration::from_millis(300)));
    let r = run(&Anneal::default(), &g, &ctx);
    assert!(r.valid());
    assert!(r.time < Duration::from_millis(1500), "{:?}", r.time);
}

#[test]
fn anneal_under_a_generous_time_limit_depends_on_the_seed_only() {
    let g = generated("random-layered:layers=30,width=4", 5);
    let ctx = SolveContext::new(3, Some(Duration::from_secs(60)));
    let a = run(&Anneal::default(), &g, &ctx);
    let b = run(&Anneal::default(), &g, &ctx);
    assert!(a.valid());
    assert_eq!(a.order, b.order);
    assert!(a.time < Duration::from_secs(10), "{:?}", a.time);
    assert!(!a.note.unwrap().contains("ended it"));
}

/// A time limit that cuts the annealing short is named in the note, with
/// how many of its moves it made.
#[test]
fn anneal_says_when_the_time_limit_cut_it_short() {
    let g = generated("random-layered:layers=30,width=4", 5);
    let ctx = SolveContext::new(3, Some(Duration::from_nanos(1)));
    let r = run(
        &Anneal::with_start(Box::new(memsched::solvers::Kahn)),
        &g,
        &ctx,
    );
    assert!(r.valid(), "{}", r.status);
    let note = r.note.unwrap();
    assert!(
        note.starts_with("start: kahn; the time limit ended it after 0 of "),
        "{note}"
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// The move state's incremental peak equals the checker's after random moves.
    #[test]
    fn move_state_peak_matches_the_checker(seed in 0u64..1_000_000, n in 1usize..60, moves in 1usize..200) {
        let g = random_dag(seed, n, seed % 2 == 0);
        let mut state = MoveState::new(&g, g.topo_order().to_vec());
        let mut rng = Rng::new(seed ^ 0xABCD);
        for _ in 0..moves {
            let v = rng.below(n as u64) as NodeIdx;
            let (lo, hi) = state.window(v);
            let to = lo + rng.below((hi - lo + 1) as u64) as usize;
            let predicted = state.peak_after(v, to);
            state.apply(v, to);
            let eval = schedule::check(&g, state.order()).expect("moves keep the order valid");
            prop_assert_eq!(predicted, eval.peak);
            prop_assert_eq!(state.peak(), eval.peak);
        }
    }
}

#[test]
fn solvers_command_lists_the_new_solvers() {
    let names: Vec<String> = memsched::solvers::list()
        .into_iter()
        .map(|i| i.name)
        .collect();
    for name in published::NAMES.iter() {
        assert!(names.iter().any(|n| n == name), "{name} not listed");
        assert_eq!(build(name).unwrap().name(), *name);
    }
    assert!(
        names.iter().any(|n| n == "anneal[:START]"),
        "anneal not listed"
    );
    assert_eq!(build("anneal").unwrap().name(), "anneal");
    let _: &dyn Scheduler = &Anneal::default();
}

/// A buffer of `i64::MAX` bytes that its own op writes and no one reads:
/// the op both defines and uses it, so Inductor's size-with-reads counts it
/// twice. Every scheduler must still answer (no overflow panic in tests'
/// debug builds, no wrapped key in release).
#[test]
fn a_buffer_of_i64_max_bytes_is_scheduled() {
    let mut b = GraphBuilder::new();
    let a = b.alloc(i64::MAX as u64, 0);
    let op = b.op("op");
    let f = b.free(0);
    b.edge(a, op);
    b.edge(op, f);
    let g = b.build().unwrap();
    for name in published::NAMES {
        let r = solve(name, &g);
        assert_eq!(r.peak, Some(i64::MAX as u64), "{name}: {r:?}");
    }
}
