use super::*;
use crate::corpus::gen::{generate, GenSpec};
use crate::graph::GraphBuilder;
use crate::rng::Rng;
use crate::solvers::{build, run, Exact, SolveContext, Status};

/// A random in-tree of `ops` ops (node 0 the root), lowered node by node:
/// each op allocates one to three outputs (its parent reads all of them;
/// a root's stay live) and sometimes a scratch buffer it frees itself;
/// its children's outputs are freed after it. Anchored ALLOCs also wait
/// for the children. Sizes span two orders of magnitude so that the
/// optimum often interleaves subtrees.
fn random_tree(rng: &mut Rng, ops: usize, anchored: bool) -> Graph {
    tree_builder(rng, ops, anchored).0.build().unwrap()
}

/// [`random_tree`]'s builder, and the next free buffer number.
fn tree_builder(rng: &mut Rng, ops: usize, anchored: bool) -> (GraphBuilder, i64, Vec<i64>) {
    let parent: Vec<usize> = (0..ops)
        .map(|i| {
            if i == 0 {
                0
            } else {
                rng.below(i as u64) as usize
            }
        })
        .collect();
    let mut b = GraphBuilder::new();
    let mut head = vec![0i64; ops];
    let mut outputs: Vec<Vec<i64>> = vec![Vec::new(); ops];
    let mut next_buf = 0;
    // Children have larger indices: build from the last op back to the root.
    for v in (0..ops).rev() {
        let kids: Vec<usize> = (v + 1..ops).filter(|&c| parent[c] == v).collect();
        let mut allocs = Vec::new();
        for _ in 0..rng.range(1, 3) {
            let size = if rng.chance(0.2) {
                rng.range(20, 60)
            } else {
                rng.range(1, 10)
            };
            allocs.push((b.alloc(size, next_buf), next_buf));
            next_buf += 1;
        }
        let scratch = rng.chance(0.5).then(|| {
            next_buf += 1;
            (b.alloc(rng.range(1, 100), next_buf - 1), next_buf - 1)
        });
        let h = b.op(&format!("t{v}"));
        for &(a, _) in allocs.iter().chain(&scratch) {
            b.edge(a, h);
            if anchored {
                for &c in &kids {
                    b.edge(head[c], a);
                }
            }
        }
        for &c in &kids {
            b.edge(head[c], h);
            for &buf in &outputs[c] {
                let f = b.free(buf);
                b.edge(h, f);
            }
        }
        if let Some((_, buf)) = scratch {
            let f = b.free(buf);
            b.edge(h, f);
        }
        head[v] = h;
        outputs[v] = allocs.iter().map(|&(_, buf)| buf).collect();
    }
    (b, next_buf, head)
}

/// The least peak over post-orders (every subtree contiguous), by Liu's
/// 1986 rule: children in non-increasing order of peak minus residual.
fn best_post_order_peak(g: &Graph) -> i64 {
    let forest = Forest::of(g).unwrap();
    let members = Members::of(g, &forest);
    // Per head: (peak, residual) of its subtree.
    let mut sub = vec![(0i64, 0i64); g.node_count()];
    let combine = |mut parts: Vec<(i64, i64)>| {
        parts.sort_by_key(|&(p, r)| std::cmp::Reverse(p - r));
        let (mut held, mut peak) = (0, 0);
        for (p, r) in parts {
            peak = peak.max(held + p);
            held += r;
        }
        (peak, held)
    };
    for &h in &forest.post_order {
        let kids = forest.children[h as usize].iter().map(|&c| sub[c as usize]);
        let (mut peak, mut level) = combine(kids.collect());
        for &v in members.task(h) {
            level += g.delta(v);
            peak = peak.max(level);
        }
        sub[h as usize] = (peak, level);
    }
    combine(forest.roots.iter().map(|&r| sub[r as usize]).collect()).0
}

/// On random trees `liu` is optimal (checked against `dp`'s and the plain
/// search's proven optima), and the optimum often beats every post-order:
/// the interleaving is exercised, not just Liu's 1986 rule.
#[test]
fn liu_finds_the_proven_optimum_of_random_trees() {
    let mut rng = Rng::new(11);
    let ctx = SolveContext::default();
    let dp = build("dp").unwrap();
    let search = build("exact:no-liu").unwrap();
    let mut below_post_order = 0;
    for round in 0..1500 {
        let ops = rng.range(1, 12) as usize;
        let g = random_tree(&mut rng, ops, round % 2 == 0);
        let liu = run(&Liu, &g, &ctx);
        assert_eq!(
            liu.status,
            Status::Optimal,
            "round {round}: {:?}",
            liu.status
        );
        let reference = if g.node_count() <= 26 { &dp } else { &search };
        let want = run(reference.as_ref(), &g, &ctx);
        assert_eq!(want.status, Status::Optimal, "round {round}");
        assert_eq!(
            liu.peak,
            want.peak,
            "round {round}, {} nodes",
            g.node_count()
        );
        let post = best_post_order_peak(&g) as u64;
        assert!(liu.peak.unwrap() <= post, "round {round}");
        below_post_order += usize::from(liu.peak.unwrap() < post);
    }
    // The count depends only on the trees drawn (the optimum and the best
    // post-order are fixed by the graph); docs/exact.md quotes it.
    assert_eq!(
        below_post_order, 32,
        "trees whose optimum needs an interleaving"
    );
}

/// Buffers no op reads (an ALLOC with its FREE only, or alone, maybe after
/// an op) head root tasks of their own: `liu` stays optimal on trees with
/// them where it accepts them, and names them.
#[test]
fn buffers_no_op_reads_are_tasks_of_their_own() {
    let mut rng = Rng::new(12);
    let ctx = SolveContext::default();
    let dp = build("dp").unwrap();
    let search = build("exact:no-liu").unwrap();
    let (mut accepted_after_an_op, mut refused) = (0, 0);
    for round in 0..300 {
        let ops = rng.range(0, 6) as usize;
        let (mut b, mut buf, heads) = tree_builder(&mut rng, ops, round % 2 == 0);
        let mut after_an_op = false;
        for _ in 0..rng.range(1, 3) {
            let a = b.alloc(rng.range(1, 60), buf);
            // Sometimes after an op (a buffer defined late, read by none):
            // the op becomes the buffer's task's child, and is refused
            // when it also feeds another op.
            if !heads.is_empty() && rng.chance(0.4) {
                b.edge(heads[rng.below(heads.len() as u64) as usize], a);
                after_an_op = true;
            }
            if rng.chance(0.8) {
                let f = b.free(buf);
                b.edge(a, f);
            }
            buf += 1;
        }
        let g = b.build().unwrap();
        let liu = run(&Liu, &g, &ctx);
        if let Status::Failed(why) = &liu.status {
            assert!(after_an_op && why.contains("feeds two ops' tasks"), "{why}");
            refused += 1;
            continue;
        }
        accepted_after_an_op += usize::from(after_an_op);
        assert_eq!(liu.status, Status::Optimal, "round {round}");
        assert!(
            liu.note
                .as_deref()
                .unwrap_or_default()
                .contains("no op reads"),
            "{:?}",
            liu.note
        );
        let reference = if g.node_count() <= 20 { &dp } else { &search };
        let want = run(reference.as_ref(), &g, &ctx);
        assert_eq!(want.status, Status::Optimal, "round {round}");
        assert_eq!(liu.peak, want.peak, "round {round}");
    }
    assert!(
        accepted_after_an_op > 20 && refused > 20,
        "{accepted_after_an_op} accepted after an op, {refused} refused"
    );
}

/// The generator's in-trees, both encodings, are forests of ops; `liu`'s
/// peak is at or above the F4 bound and at or below `best-heuristic`'s.
#[test]
fn generated_in_trees_are_solved() {
    let ctx = SolveContext::default();
    for seed in 0..6 {
        for allocs in ["anchored", "floating"] {
            let spec = format!("tree:depth=4,arity=3,allocs={allocs}");
            let g = generate(&GenSpec::parse(&spec).unwrap(), seed).unwrap();
            let liu = run(&Liu, &g, &ctx);
            assert_eq!(liu.status, Status::Optimal, "{spec} seed {seed}");
            let f4 = crate::solvers::exact::f4_global_bound(&g, usize::MAX, u64::MAX).unwrap();
            let heuristic = run(build("best-heuristic").unwrap().as_ref(), &g, &ctx);
            let peak = liu.peak.unwrap();
            assert!(
                f4 <= peak && peak <= heuristic.peak.unwrap(),
                "{spec} seed {seed}"
            );
        }
    }
}

/// Shapes that are not in-trees fail with a reason naming a node.
#[test]
fn other_shapes_are_refused_with_a_reason() {
    let ctx = SolveContext::default();
    for (spec, says) in [
        ("tree:kind=out,depth=2", "feeds two ops' tasks, op "),
        ("random-layered:layers=4,width=3", "not an in-tree of ops: "),
        ("fork-join:branches=3,depth=2", "feeds two ops' tasks"),
    ] {
        let g = generate(&GenSpec::parse(spec).unwrap(), 1).unwrap();
        let out = Liu.solve(&g, &ctx);
        let reason = out.status.reason().unwrap_or_default().to_string();
        assert!(
            matches!(out.status, Status::Failed(_)) && reason.contains(says),
            "{spec}: {reason}"
        );
    }
}

/// A chain is the thinnest tree; the forest reads every parent off it.
#[test]
fn chains_are_trees() {
    let g = generate(&GenSpec::parse("chain:length=6").unwrap(), 0).unwrap();
    let forest = Forest::of(&g).unwrap();
    assert_eq!(forest.roots.len(), 1);
    let ops = forest.post_order.len();
    let with_parent: usize = forest.children.iter().map(Vec::len).sum();
    assert_eq!(with_parent, ops - 1);
    let out = run(&Liu, &g, &SolveContext::default());
    assert_eq!(out.status, Status::Optimal);
}

/// `exact` takes `liu`'s answer on trees and searches without it only
/// when told to; both prove the same peak on small trees.
#[test]
fn exact_proves_trees_through_liu() {
    let mut rng = Rng::new(5);
    let ctx = SolveContext::default();
    let g = random_tree(&mut rng, 7, false);
    let exact = run(&Exact::default(), &g, &ctx);
    assert_eq!(exact.status, Status::Optimal);
    assert!(
        exact.note.as_deref().unwrap_or_default().contains("Liu"),
        "{:?}",
        exact.note
    );
    let plain = run(build("exact:no-liu").unwrap().as_ref(), &g, &ctx);
    assert_eq!(plain.peak, exact.peak);
    assert!(!plain.note.as_deref().unwrap_or_default().contains("Liu"));
}

/// A FREE before another in node order, waiting for it: refused (a FREE
/// with a successor), not a panic on the later FREE's missing task (found
/// by `tests/properties.rs`).
#[test]
fn a_free_waiting_for_a_later_free_is_refused() {
    let mut b = GraphBuilder::new();
    let a0 = b.alloc(1, 0);
    let a1 = b.alloc(1, 1);
    let x = b.op("x");
    let f1 = b.free(1);
    let f0 = b.free(0);
    for (u, v) in [(a0, x), (a1, x), (x, f0), (f0, f1)] {
        b.edge(u, v);
    }
    let g = b.build().unwrap();
    let out = Liu.solve(&g, &SolveContext::default());
    let reason = out.status.reason().unwrap_or_default().to_string();
    assert!(reason.contains("has a successor"), "{reason}");
}

/// Parallel edges from an ALLOC to its op count once.
#[test]
fn a_doubled_alloc_edge_is_one_successor() {
    let mut b = GraphBuilder::new();
    let a = b.alloc(4, 0);
    let x = b.op("x");
    b.edge(a, x);
    b.edge(a, x);
    let g = b.build().unwrap();
    assert_eq!(
        run(&Liu, &g, &SolveContext::default()).status,
        Status::Optimal
    );
}

/// A caterpillar (each op reads the last one and a leaf op of its own):
/// Liu's merges copy the spine each layer, quadratic. Under a limit too
/// short for that, `exact` still returns the search's order.
#[test]
fn exact_falls_back_to_the_search_when_liu_runs_out_of_time() {
    let mut b = GraphBuilder::new();
    let mut prev: Option<(i64, i64)> = None;
    for i in 0..6000i64 {
        let la = b.alloc(3, 2 * i);
        let leaf = b.op("w");
        b.edge(la, leaf);
        let ca = b.alloc(5, 2 * i + 1);
        let c = b.op("c");
        b.edge(ca, c);
        b.edge(leaf, c);
        let f = b.free(2 * i);
        b.edge(c, f);
        if let Some((p, buf)) = prev {
            b.edge(p, c);
            let f = b.free(buf);
            b.edge(c, f);
        }
        prev = Some((c, 2 * i + 1));
    }
    let g = b.build().unwrap();
    let ctx = SolveContext::new(0, Some(std::time::Duration::from_millis(20)));
    assert_eq!(
        run(&Liu, &g, &ctx).status,
        Status::TimedOut,
        "too fast to test"
    );
    let r = run(&Exact::default(), &g, &ctx);
    assert!(r.valid(), "{:?}", r.status);
    assert!(r.peak.is_some());
}
