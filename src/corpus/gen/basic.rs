//! Structured families: `chain`, `fork-join`, `series-parallel`, `tree`.
//!
//! Each builds a [`TensorProgram`] in program order and lowers it with
//! [`finish`]. Sizes are bytes; a size range `min..=max` is drawn uniformly
//! per tensor from the seeded [`Rng`].

use super::{finish, size, FamilyInfo, GenError, ParamInfo, Params, ALLOCS};
use crate::corpus::program::{TensorProgram, TensorRef};
use crate::graph::Graph;
use crate::rng::Rng;

const MIN: ParamInfo = ParamInfo {
    name: "min",
    default: "1024",
    help: "smallest tensor, bytes",
};
const MAX: ParamInfo = ParamInfo {
    name: "max",
    default: "65536",
    help: "largest tensor, bytes",
};

pub(super) const CHAIN: FamilyInfo = FamilyInfo {
    name: "chain",
    summary: "a chain of ops, each reading the previous output; sizes random in [min,max]",
    params: &[
        ParamInfo {
            name: "length",
            default: "10",
            help: "number of ops",
        },
        MIN,
        MAX,
        ALLOCS,
    ],
};

/// `chain`: op i reads op i-1's output. The only order is program order.
pub(super) fn chain(p: &Params, rng: &mut Rng) -> Result<Graph, GenError> {
    let n = p.int("length", 1, super::MAX_OPS)?;
    let (lo, hi) = p.size_range()?;
    let mut prog = TensorProgram::new();
    let mut prev: Option<TensorRef> = None;
    for i in 0..n {
        let inputs: Vec<TensorRef> = prev.into_iter().collect();
        prev = Some(prog.op1(format!("op{i}"), &inputs, size(rng, lo, hi)));
    }
    finish(&prog, p, "chain")
}

pub(super) const FORK_JOIN: FamilyInfo = FamilyInfo {
    name: "fork-join",
    summary: "a source op read by k parallel branches (chains), joined by one op; program order runs branch after branch",
    params: &[
        ParamInfo { name: "branches", default: "4", help: "number of branches k" },
        ParamInfo { name: "depth", default: "2", help: "ops per branch" },
        ParamInfo { name: "size", default: "65536", help: "bytes of every branch tensor" },
        ParamInfo { name: "input", default: "65536", help: "bytes of the source tensor" },
        ParamInfo { name: "output", default: "65536", help: "bytes of the join's output" },
        ParamInfo { name: "jitter", default: "0", help: "each branch tensor is size x (1 + u), u uniform in [-jitter, jitter]" },
        ALLOCS,
    ],
};

/// `fork-join`: `src`, then branches `b{i}.{j}` (each reading the previous op
/// of its branch, the first reading `src`), then `join` reading every
/// branch's last tensor.
///
/// Closed form (jitter 0, depth 2, size s, input x, output y): program order
/// peaks at `max(x + k s, (k+1) s, k s + y)`, which is optimal: when the last
/// branch head runs, `x` and one tensor of every other branch are live; when
/// the last tail is allocated, k-1 other tails and this branch's head and tail
/// are; the join needs all k tails and its output.
pub(super) fn fork_join(p: &Params, rng: &mut Rng) -> Result<Graph, GenError> {
    let k = p.int("branches", 1, 1_000_000)?;
    let depth = p.int("depth", 1, 1_000_000)?;
    let s = p.int("size", 0, 1 << 40)?;
    let input = p.int("input", 0, 1 << 40)?;
    let output = p.int("output", 0, 1 << 40)?;
    let jitter = p.float("jitter", 0.0, 1.0)?;
    let ops = k as f64 * depth as f64 + 2.0;
    p.within_limits("branches", "branches x depth", ops, ops + k as f64)?;
    let mut prog = TensorProgram::new();
    let src = prog.op1("src", &[], input);
    let mut tails = Vec::with_capacity(k as usize);
    for i in 0..k {
        let mut prev = src;
        for j in 0..depth {
            let bytes = if jitter > 0.0 {
                let u = (rng.f64() * 2.0 - 1.0) * jitter;
                (s as f64 * (1.0 + u)).round() as u64
            } else {
                s
            };
            prev = prog.op1(format!("b{i}.{j}"), &[prev], bytes);
        }
        tails.push(prev);
    }
    prog.op1("join", &tails, output);
    finish(&prog, p, "fork-join")
}

pub(super) const SERIES_PARALLEL: FamilyInfo = FamilyInfo {
    name: "series-parallel",
    summary: "a random series-parallel graph: recursive series or parallel composition (two sides joined by an op) of ops",
    params: &[
        ParamInfo { name: "ops", default: "30", help: "number of ops (besides the source)" },
        ParamInfo { name: "parallel", default: "0.5", help: "probability that a part of 3 or more ops is a parallel composition" },
        MIN,
        MAX,
        ALLOCS,
    ],
};

/// `series-parallel`: `sp(x, n)` spends n ops on a part reading tensor x.
/// One op: reads x. Series: `sp(sp(x, n1), n - n1)`. Parallel (n >= 3, with
/// probability `parallel`): `join(sp(x, n1), sp(x, n - 1 - n1))`. Split points
/// are uniform.
pub(super) fn series_parallel(p: &Params, rng: &mut Rng) -> Result<Graph, GenError> {
    let n = p.int("ops", 1, 100_000)?;
    let par = p.float("parallel", 0.0, 1.0)?;
    let (lo, hi) = p.size_range()?;
    let mut prog = TensorProgram::new();
    let src = prog.op1("src", &[], size(rng, lo, hi));
    // Recursion depth is the composition depth: O(log n) expected for uniform splits.
    sp(&mut prog, rng, src, n, par, (lo, hi));
    finish(&prog, p, "series-parallel")
}

fn sp(
    prog: &mut TensorProgram,
    rng: &mut Rng,
    x: TensorRef,
    n: u64,
    par: f64,
    (lo, hi): (u64, u64),
) -> TensorRef {
    let i = prog.ops.len();
    if n == 1 {
        return prog.op1(format!("op{i}"), &[x], size(rng, lo, hi));
    }
    if n >= 3 && rng.chance(par) {
        let n1 = rng.range(1, n - 2);
        let a = sp(prog, rng, x, n1, par, (lo, hi));
        let b = sp(prog, rng, x, n - 1 - n1, par, (lo, hi));
        let j = prog.ops.len();
        return prog.op1(format!("join{j}"), &[a, b], size(rng, lo, hi));
    }
    let n1 = rng.range(1, n - 1);
    let a = sp(prog, rng, x, n1, par, (lo, hi));
    sp(prog, rng, a, n - n1, par, (lo, hi))
}

pub(super) const TREE: FamilyInfo = FamilyInfo {
    name: "tree",
    summary: "a random tree of ops: in-tree (leaves reduced to one root, Liu's case) or out-tree (one root broadcast to leaves)",
    params: &[
        ParamInfo { name: "kind", default: "in", help: "in (children feed their parent) or out (a parent feeds its children)" },
        ParamInfo { name: "depth", default: "4", help: "levels below the root" },
        ParamInfo { name: "arity", default: "3", help: "most children per node (each node draws 1..=arity; the root has arity)" },
        MIN,
        MAX,
        ALLOCS,
    ],
};

/// `tree`: the shape is drawn first (children counts level by level), then
/// lowered: an in-tree emits each subtree in post-order (children before
/// parent), an out-tree in pre-order (parent before children). Out-tree
/// leaves are graph outputs (never freed).
pub(super) fn tree(p: &Params, rng: &mut Rng) -> Result<Graph, GenError> {
    let kind = p.choice("kind", &["in", "out"])?;
    let depth = p.int("depth", 0, 30)?;
    let arity = p.int("arity", 1, 1000)?;
    let (lo, hi) = p.size_range()?;
    // children[v] for the shape, node 0 the root, breadth-first.
    let mut children: Vec<Vec<usize>> = vec![Vec::new()];
    let mut frontier = vec![0usize];
    for level in 0..depth {
        let mut next = Vec::new();
        for &v in &frontier {
            let c = if level == 0 {
                arity
            } else {
                rng.range(1, arity)
            };
            if children.len() as u64 + c > 2_000_000 {
                return Err(p.bad("depth", "the tree would exceed 2,000,000 ops".into()));
            }
            for _ in 0..c {
                children.push(Vec::new());
                let id = children.len() - 1;
                children[v].push(id);
                next.push(id);
            }
        }
        frontier = next;
    }
    let sizes: Vec<u64> = (0..children.len()).map(|_| size(rng, lo, hi)).collect();
    let mut prog = TensorProgram::new();
    if kind == "in" {
        // Iterative post-order.
        let mut out: Vec<Option<TensorRef>> = vec![None; children.len()];
        let mut stack = vec![(0usize, false)];
        while let Some((v, expanded)) = stack.pop() {
            if expanded {
                let inputs: Vec<TensorRef> = children[v].iter().map(|&c| out[c].unwrap()).collect();
                out[v] = Some(prog.op1(format!("t{v}"), &inputs, sizes[v]));
            } else {
                stack.push((v, true));
                for &c in children[v].iter().rev() {
                    stack.push((c, false));
                }
            }
        }
    } else {
        let mut stack = vec![(0usize, None::<TensorRef>)];
        while let Some((v, parent)) = stack.pop() {
            let inputs: Vec<TensorRef> = parent.into_iter().collect();
            let t = prog.op1(format!("t{v}"), &inputs, sizes[v]);
            for &c in children[v].iter().rev() {
                stack.push((c, Some(t)));
            }
        }
    }
    finish(&prog, p, "tree")
}

#[cfg(test)]
mod tests {
    use super::super::{generate, GenSpec};
    use crate::solvers::{self, SolveContext};

    fn peak(g: &crate::Graph, solver: &str) -> u64 {
        let s = solvers::build(solver).unwrap();
        solvers::run(s.as_ref(), g, &SolveContext::default())
            .peak
            .unwrap()
    }

    #[test]
    fn fork_join_program_peak_has_its_closed_form_and_kahn_holds_every_branch() {
        for (k, x, s, y) in [(2u64, 1u64, 1u64, 1u64), (5, 3, 2, 7), (8, 10, 4, 1)] {
            let spec = format!("fork-join:branches={k},depth=2,size={s},input={x},output={y}");
            let g = generate(&GenSpec::parse(&spec).unwrap(), 0).unwrap();
            let closed = (x + k * s).max((k + 1) * s).max(k * s + y);
            assert_eq!(peak(&g, "program"), closed, "{spec}");
            // FIFO runs every head, then every tail: 2k tensors live.
            assert!(peak(&g, "kahn") >= 2 * k * s, "{spec}");
        }
    }

    #[test]
    fn fork_join_optimum_matches_brute_force_on_a_tiny_case() {
        // k = 2, depth 1: 2 + 2x3 + 2 + 1 FREE of src = 11 nodes.
        let g = generate(
            &GenSpec::parse("fork-join:branches=2,depth=1,size=3,input=2,output=5").unwrap(),
            0,
        )
        .unwrap();
        assert!(g.node_count() <= crate::solvers::BRUTE_MAX_NODES);
        assert_eq!(peak(&g, "brute"), peak(&g, "program"));
        // max(x + k s, k s + y) with x = 2, s = 3, y = 5: the join dominates.
        assert_eq!(peak(&g, "program"), 2 * 3 + 5);
    }

    #[test]
    fn trees_have_the_requested_shape() {
        let g = generate(&GenSpec::parse("tree:depth=3,arity=1").unwrap(), 0).unwrap();
        // A path of 4 ops: 4 ALLOCs, 4 ops, 3 FREEs (the root is the output).
        assert_eq!(g.node_count(), 11);
        let out = generate(
            &GenSpec::parse("tree:kind=out,depth=2,arity=2,min=1,max=1").unwrap(),
            0,
        )
        .unwrap();
        // Out-tree leaves are outputs: final memory counts them (2..=4 leaves).
        assert!(
            (2..=4).contains(&out.final_memory()),
            "{}",
            out.final_memory()
        );
    }

    #[test]
    fn series_parallel_spends_exactly_its_ops() {
        for seed in 0..5 {
            let g = generate(&GenSpec::parse("series-parallel:ops=25").unwrap(), seed).unwrap();
            let ops = g
                .nodes()
                .filter(|&v| g.kind(v) == crate::NodeKind::Compute)
                .count();
            assert_eq!(ops, 26, "seed {seed}"); // + the source
        }
    }
}
