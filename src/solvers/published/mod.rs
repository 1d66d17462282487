//! The compilers' published memory schedulers, mapped onto our graphs.
//!
//! XLA ([`xla`]) and PyTorch Inductor ([`inductor`]) schedule *ops* whose
//! outputs are buffers: an op **defines** its output buffers, and a buffer is
//! freed after its last **user**. Our graphs spell the same thing with nodes:
//! an op's output buffer is an ALLOC feeding it (`ALLOC -> op`), and the
//! buffer's FREE comes after its readers (`reader -> FREE`). Every published
//! scheduler shares two pieces, each in a module of its own (with the DFS
//! post-order the DFS schedulers share in a third):
//!
//! - [`OpView`] (`view.rs`): the op-level graph. Ops are the compute nodes. `u` is an
//!   operand of `v` when a path `u -> .. -> v` runs through ALLOC/FREE nodes
//!   only (so every ordering constraint between ops is kept). Op `v` defines
//!   the ALLOCs it pulls in (ALLOC-only paths backwards from `v`); when several
//!   ops could pull one ALLOC, the first in program order owns it. A buffer
//!   (a FREE node) is used by the ops that reach its FREE through ALLOC/FREE
//!   nodes only, normally its direct readers.
//! - [`Expander`] (`expand.rs`): turns op decisions into a full node order. An ALLOC runs
//!   just before the first node that needs it (fact F2), a FREE runs as soon
//!   as it is ready (fact F1), and ALLOCs nobody needs run at the very end
//!   (F2 again).
//!
//! # Graphs off the pattern
//! The output is always a topological order of *all* nodes:
//! - an ALLOC feeding several nodes is pulled in by whichever runs first; the
//!   heuristics charge it to its owner (first in program order), so when
//!   another op runs first its priority did not count those bytes;
//! - an ALLOC with no successor (a graph output nobody reads) runs last;
//! - a compute node with no ALLOC defines 0 bytes;
//! - a FREE with extra edges: edges into it delay it (it still runs the
//!   moment it is ready); edges out of it become operand edges between the ops
//!   on either side; a FREE that needs an ALLOC not yet run (an ALLOC -> FREE
//!   edge for a buffer nobody reads) pulls that ALLOC in just before itself;
//! - a graph with no compute node at all: FREEs and their ALLOCs as soon as
//!   possible, the remaining ALLOCs last.

mod bfs_queue;
mod expand;
pub mod inductor;
mod lpmf_tree;
mod post_order;
mod view;
pub mod xla;

pub use expand::{expand, Expander};
pub use inductor::{InductorBfs, InductorDfs, InductorLpmf};
pub use view::OpView;
pub use xla::{XlaDfs, XlaList, XlaPostOrder};

pub(crate) use post_order::{post_order, post_order_by};
pub(crate) use view::Readiness;

use super::{BestOf, Outcome, ProgramOrder, SolveContext};

use crate::graph::{Graph, NodeIdx};

/// The registry names of the eight published schedulers, XLA's then
/// Inductor's, each family's best-of last.
pub const NAMES: [&str; 8] = [
    "xla-list",
    "xla-dfs",
    "xla-postorder",
    "xla-default",
    "inductor-lpmf",
    "inductor-bfs",
    "inductor-dfs",
    "inductor-default",
];

/// `xla-default`: XLA's `DefaultMemoryScheduler`, the lowest peak of list,
/// DFS and post-order (ties in that order, as XLA breaks them).
pub fn xla_default() -> BestOf {
    BestOf::new(
        "xla-default",
        vec![Box::new(XlaList), Box::new(XlaDfs), Box::new(XlaPostOrder)],
    )
}

/// `inductor-default`: Inductor's `reorder_for_peak_memory`, the lowest peak
/// of the original order (when it is a schedule), LPMF, BFS and DFS (ties in
/// that order, as Inductor's `min` keeps the first).
pub fn inductor_default() -> BestOf {
    BestOf::new(
        "inductor-default",
        vec![
            Box::new(ProgramOrder),
            Box::new(InductorLpmf),
            Box::new(InductorBfs),
            Box::new(InductorDfs),
        ],
    )
}

/// A published scheduler that decides an op order on an [`OpView`]. Its
/// [`Scheduler`](super::Scheduler) impl builds the view, calls
/// [`decide`](OpScheduler::decide) and expands the decision; a best-of of
/// several builds the view once, shares it, and expands only the winner.
pub trait OpScheduler: Send + Sync {
    /// Decides a schedule of `g` whose op view is `view`.
    fn decide(&self, g: &Graph, view: &OpView, ctx: &SolveContext) -> Decision;
}

/// What an [`OpScheduler`] decided.
#[derive(Debug)]
pub enum Decision {
    /// A complete op order (op numbers), still to expand.
    Ops(Vec<u32>),
    /// A node order the scheduler expanded as it went: what
    /// [`OpView::expand`] would make of its op order (the crate's own
    /// schedulers write it step by step as they decide).
    Nodes(Vec<NodeIdx>),
    /// No order: timed out or failed.
    Stopped(Outcome),
}

impl Decision {
    /// An op order, unless the deadline passed while it was built (the DFS
    /// schedulers check the clock here, their work before is near-linear).
    pub(crate) fn ops_in_time(op_order: Vec<u32>, ctx: &SolveContext) -> Decision {
        if ctx.expired() {
            Decision::Stopped(Outcome::timed_out())
        } else {
            Decision::Ops(op_order)
        }
    }

    /// The outcome: an op order expanded by `view`, or the node order a
    /// scheduler wrote itself.
    pub fn into_outcome(self, g: &Graph, view: &OpView) -> Outcome {
        match self {
            Decision::Ops(ops) => match view.expand(g, &ops) {
                Ok(order) => Outcome::feasible(order),
                Err(e) => Outcome::failed(e),
            },
            Decision::Nodes(order) => Outcome::feasible(order),
            Decision::Stopped(out) => out,
        }
    }
}

/// Implements [`Scheduler`](super::Scheduler) for op schedulers: the view is
/// built per solve, or shared through [`op_scheduler`](super::Scheduler::op_scheduler).
macro_rules! op_scheduler {
    ($ty:ty, $name:literal) => {
        impl $crate::solvers::Scheduler for $ty {
            fn name(&self) -> String {
                $name.into()
            }

            fn solve(&self, g: &Graph, ctx: &SolveContext) -> Outcome {
                match $crate::solvers::published::OpView::new(g) {
                    Ok(view) => {
                        $crate::solvers::published::OpScheduler::decide(self, g, &view, ctx)
                            .into_outcome(g, &view)
                    }
                    Err(e) => $crate::solvers::Outcome::failed(e),
                }
            }

            fn op_scheduler(&self) -> Option<&dyn $crate::solvers::published::OpScheduler> {
                Some(self)
            }
        }
    };
}
pub(crate) use op_scheduler;

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::corpus::program::{AllocEncoding, TensorProgram, TensorRef};
    use crate::graph::{GraphBuilder, NodeKind};
    use crate::schedule;
    use crate::solvers::{build, run, Scheduler, SolveContext};

    /// One op of a test program: inputs as (op, output) pairs, output sizes.
    pub(crate) type TestOp<'a> = (&'a [(usize, usize)], &'a [u64]);

    /// A lowered (anchored) tensor program.
    pub(crate) fn lowered(ops: &[TestOp]) -> Graph {
        let mut p = TensorProgram::new();
        for (i, (inputs, outputs)) in ops.iter().enumerate() {
            let inputs = inputs
                .iter()
                .map(|&(op, output)| TensorRef { op, output })
                .collect();
            p.push(format!("op{i}"), inputs, outputs.to_vec());
        }
        p.to_graph(AllocEncoding::Anchored).unwrap()
    }

    /// The op numbers of `solver`'s schedule of `g`, in order.
    pub(crate) fn op_order(solver: &dyn Scheduler, g: &Graph) -> Vec<u32> {
        let order = run(solver, g, &SolveContext::default()).order.unwrap();
        let view = OpView::new(g).unwrap();
        order
            .into_iter()
            .filter(|&v| g.kind(v) == NodeKind::Compute)
            .map(|v| view.op_of(v))
            .collect()
    }

    /// `a[10] -> X -> free a` (a buffer nobody reads), `Y -> y[10]`,
    /// `F(y)` after X: ops X, Y, F.
    pub(crate) fn unread_buffer() -> Graph {
        let mut b = GraphBuilder::new();
        let a = b.alloc(10, 1);
        let x = b.op("X");
        let fa = b.free(1);
        let y_out = b.alloc(10, 2);
        let y = b.op("Y");
        let f = b.op("F");
        let fy = b.free(2);
        for (u, v) in [(a, x), (x, fa), (y_out, y), (y, f), (x, f), (f, fy)] {
            b.edge(u, v);
        }
        b.build().unwrap()
    }

    /// `solver` peaks at `peak` on `g` where brute proves `optimum`.
    pub(crate) fn assert_wrong(solver: &dyn Scheduler, g: &Graph, peak: u64, optimum: u64) {
        let ctx = SolveContext::default();
        let brute = run(build("brute").unwrap().as_ref(), g, &ctx);
        assert_eq!(brute.status, crate::solvers::Status::Optimal);
        assert_eq!(brute.peak, Some(optimum));
        let r = run(solver, g, &ctx);
        assert_eq!(r.peak, Some(peak), "{}: {}", solver.name(), r.status);
    }

    /// The order of the file's `Edges` changes no published scheduler's op
    /// order or peak: users rows follow program order (as XLA's `users()`
    /// follow creation order). A review found `xla-list`'s ties decided
    /// by edge order: on the graph below (docs/published.md's `xla-list`
    /// example with a root `R` feeding `A` and `B`), listing `R -> B`
    /// before `R -> A` ran A first, peak 14, and the other way B first,
    /// peak 24 (as in program order, B inserted last).
    #[test]
    fn the_order_of_the_edges_changes_no_op_order() {
        let mut b = GraphBuilder::new();
        let r = b.op("R");
        let (a_out, a) = (b.alloc(10, 1), b.op("A"));
        let (b_out, b_op) = (b.alloc(10, 2), b.op("B"));
        let (c_out, c) = (b.alloc(4, 3), b.op("C"));
        let fa = b.free(1);
        let d = b.op("D");
        let (fb, fc) = (b.free(2), b.free(3));
        for (u, v) in [
            (r, a),
            (r, b_op),
            (a_out, a),
            (b_out, b_op),
            (c_out, c),
            (a, c),
            (c, d),
            (b_op, d),
            (c, fa),
            (d, fb),
            (d, fc),
        ] {
            b.edge(u, v);
        }
        // The same with `A -> C` twice: parallel edges, so the view
        // searches its rows (the sort must cover that path too).
        let mut repeated = b.clone();
        repeated.edge(a, c);
        let (example, repeated) = (b.build().unwrap(), repeated.build().unwrap());
        assert!(OpView::new(&example).unwrap().direct);
        assert!(!OpView::new(&repeated).unwrap().direct);
        let mut graphs = in_both_encodings(&SMALL_FAMILIES, 2);
        graphs.push(("xla-list example with a root".into(), example));
        graphs.push(("the same with a repeated edge".into(), repeated));
        let mut rng = crate::rng::Rng::new(7);
        // Op ids in schedule order, and the peak.
        let ops_and_peak = |g: &Graph, name: &str| {
            let out = run(&*build(name).unwrap(), g, &SolveContext::default());
            let order = out.order.expect("an order");
            let ops: Vec<i64> = (order.iter())
                .filter(|&&v| g.kind(v) == NodeKind::Compute)
                .map(|&v| g.id(v))
                .collect();
            (ops, schedule::check(g, &order).unwrap())
        };
        for (graph, g) in &graphs {
            let raw = g.to_raw();
            let mut reversed = raw.clone();
            reversed.edges.reverse();
            let mut shuffled = raw.clone();
            rng.shuffle(&mut shuffled.edges);
            for other in [reversed, shuffled] {
                let h = Graph::from_raw(other).unwrap();
                for name in NAMES {
                    assert_eq!(
                        ops_and_peak(g, name),
                        ops_and_peak(&h, name),
                        "{name} on {graph}"
                    );
                }
            }
        }
    }

    /// Small graphs of six generator families (regular, every one).
    pub(crate) const SMALL_FAMILIES: [&str; 6] = [
        "random-layered:layers=6,width=4",
        "tensor-program:ops=14",
        "randwire:nodes=8,resolution=64",
        "darts:cells=3,resolution=64",
        "nasnet:cells=3,resolution=64",
        "adversarial:scale=3",
    ];

    /// Seeds `0..seeds` of each generator spec in `families`, with ALLOCs
    /// anchored and floating, named by spec and seed.
    pub(crate) fn in_both_encodings(families: &[&str], seeds: u64) -> Vec<(String, Graph)> {
        use crate::corpus::gen::{generate, GenSpec};
        let mut graphs = Vec::new();
        for family in families {
            for enc in ["anchored", "floating"] {
                let spec = format!("{family},allocs={enc}");
                for seed in 0..seeds {
                    let g = generate(&GenSpec::parse(&spec).unwrap(), seed).unwrap();
                    graphs.push((format!("{spec} seed {seed}"), g));
                }
            }
        }
        graphs
    }

    /// Checks a scheduler that writes its node order as it decides
    /// ([`OpView::step_writer`]). Where op steps are fixed by op data
    /// (regular graphs without parallel edges: every generated graph, one
    /// whose view searches its rows, and buffers their definers use), the
    /// order `decide` writes must be the one the node-level expander
    /// ([`expand`], no `StepWriter`) makes of its ops. Where they are not
    /// (an ALLOC feeding its FREE; parallel edges), it must return the op
    /// order.
    pub(crate) fn assert_writes_its_expansion(decide: impl Fn(&Graph, &OpView) -> Decision) {
        let mut graphs = in_both_encodings(&SMALL_FAMILIES, 3);
        // x -> a -> y -> free a: regular, but its rows are searched.
        let mut b = GraphBuilder::new();
        let (x, a, y, f) = (b.op("x"), b.alloc(5, 1), b.op("y"), b.free(1));
        b.edge(x, a);
        b.edge(a, y);
        b.edge(y, f);
        graphs.push(("searched rows".into(), b.build().unwrap()));
        // A buffer nobody reads: its definer is its one use.
        graphs.push(("unread buffer".into(), unread_buffer()));
        // a[5] -> X, and X and Y both before a's FREE, with no path
        // between them: X uses its own buffer, and Y may run first. Y
        // defines y[1] or y[100], which changes who runs first.
        for y_bytes in [1, 100] {
            let mut b = GraphBuilder::new();
            let (a, x, fa) = (b.alloc(5, 1), b.op("X"), b.free(1));
            let (y_out, y, fy) = (b.alloc(y_bytes, 2), b.op("Y"), b.free(2));
            for (u, v) in [(a, x), (x, fa), (y, fa), (y_out, y), (y, fy)] {
                b.edge(u, v);
            }
            graphs.push((format!("own buffer, y[{y_bytes}]"), b.build().unwrap()));
        }
        for (name, g) in &graphs {
            let view = OpView::new(g).unwrap();
            let Decision::Nodes(order) = decide(g, &view) else {
                panic!("{name}: no node order");
            };
            let ops: Vec<NodeIdx> = order
                .iter()
                .copied()
                .filter(|&v| g.kind(v) == NodeKind::Compute)
                .collect();
            assert_eq!(expand(g, &ops).unwrap(), order, "{name}");
        }
        // An ALLOC with an edge to its FREE: not regular.
        let mut b = GraphBuilder::new();
        let (a, x, f) = (b.alloc(5, 1), b.op("x"), b.free(1));
        b.edge(a, x);
        b.edge(x, f);
        b.edge(a, f);
        // Two edges x -> y: regular, with parallel edges.
        let mut p = GraphBuilder::new();
        let (x2, y2) = (p.op("x"), p.op("y"));
        p.edge(x2, y2);
        p.edge(x2, y2);
        for g in [b.build().unwrap(), p.build().unwrap()] {
            let view = OpView::new(&g).unwrap();
            let decision = decide(&g, &view);
            assert!(matches!(decision, Decision::Ops(_)), "{:?}", g.to_raw());
        }
    }

    /// On a regular graph an op order that runs an op before its operand
    /// expands without complaint, to an order the checker rejects; an op
    /// run twice is an error, as is an order too short.
    #[test]
    fn the_checker_rejects_a_bad_op_order_the_short_path_expands() {
        let g = lowered(&[(&[], &[10]), (&[(0, 0)], &[4]), (&[(1, 0)], &[])]);
        let view = OpView::new(&g).unwrap();
        assert!(view.short_path(&g).is_some());
        let good = view.expand(&g, &[0, 1, 2]).unwrap();
        assert_eq!(schedule::check(&g, &good).unwrap().peak, 14);
        let swapped = view.expand(&g, &[1, 0, 2]).unwrap();
        assert!(schedule::check(&g, &swapped).is_err());
        assert!(view.peak_of(&g, &[1, 0, 2]).is_ok());
        let twice = view.expand(&g, &[0, 1, 1]).unwrap_err();
        assert!(twice.contains("runs twice"), "{twice}");
        assert!(view.expand(&g, &[0, 1]).is_err());
    }

    /// Graphs off the lowering pattern still expand to valid orders.
    #[test]
    fn odd_graphs_expand_to_valid_orders() {
        let mut b = GraphBuilder::new();
        let a = b.alloc(5, 1); // feeds two ops
        let x = b.op("x");
        let y = b.op("y");
        let z = b.op("z"); // no ALLOC
        let dangling = b.alloc(7, 2); // no successor
        let lone = b.alloc(3, 3); // ALLOC -> FREE only
        let lone_free = b.free(3);
        let fa = b.free(1);
        let w = b.op("w"); // after a FREE
        b.edge(a, x);
        b.edge(a, y);
        b.edge(x, fa);
        b.edge(y, fa);
        b.edge(fa, w);
        b.edge(z, w);
        b.edge(lone, lone_free);
        let g = b.build().unwrap();
        let view = OpView::new(&g).unwrap();
        assert_eq!(view.op_count(), 4);
        // x owns `a` (first in program order); w's operands are x, y (via the FREE) and z.
        assert_eq!(view.defined(), vec![5, 0, 0, 0]);
        let w_op = view.op_of(w as NodeIdx);
        let mut ops: Vec<u32> = view.operands().neighbors(w_op).to_vec();
        ops.sort_unstable();
        assert_eq!(ops, vec![0, 1, 2]);
        for op_order in [vec![x, y, z, w], vec![z, y, x, w]] {
            let op_order: Vec<u32> = op_order.into_iter().map(|v| v as u32).collect();
            let order = expand(&g, &op_order).unwrap();
            schedule::check(&g, &order).unwrap();
            assert_eq!(*order.last().unwrap(), dangling as u32);
        }
        assert!(expand(&g, &[w as u32]).is_err());
    }
}
