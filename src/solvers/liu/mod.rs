//! `liu`: the optimal schedule of an in-tree of ops, by Liu's (1987)
//! algorithm ("An application of generalized tree pebbling to sparse
//! matrix factorization", SIAM J. Algebraic Discrete Methods 8(3)).
//!
//! [`forest`] cuts the graph into tasks (an op with its ALLOCs and the
//! FREEs it ends) and checks that they form an in-forest; some optimal
//! schedule then runs each task contiguously, after its subtree. A
//! subtree's schedule is a sequence of memory levels starting at its
//! minimum (0: it frees only what it allocated), cut into Liu's
//! hill-valley segments (see `exact::segments`). Liu's theorem: the
//! children's optimal sequences, merged segment by segment in
//! non-increasing order of `hill - valley` and followed by the task, give
//! an optimal sequence of the parent's subtree; the roots of a forest are
//! merged the same way. So the result is optimal, and `liu` says so.
//! Brute-force and `dp` tests on random trees check it, interleavings
//! included (trees where no post-order is optimal).
//!
//! Graphs that are not in-forests of ops fail with the first node that
//! breaks the shape; `exact` tries `liu` first and searches only then.

mod forest;

use super::{DeadlineTicker, Outcome, Scheduler, SolveContext};
use crate::graph::{Graph, NodeIdx, NodeKind};
use forest::Forest;

/// Liu's optimal traversal of an in-forest of ops (see the module docs).
///
/// # Complexity
/// O(n * b) time for b the most branching ops on a root path (each
/// merge copies the subtree's order), O(n) space for the orders alive at
/// once.
#[derive(Debug, Default, Clone, Copy)]
pub struct Liu;

impl Scheduler for Liu {
    fn name(&self) -> String {
        "liu".into()
    }

    fn solve(&self, g: &Graph, ctx: &SolveContext) -> Outcome {
        match solve_forest(g, ctx) {
            Ok(out) => out,
            Err(reason) => Outcome::failed(format!("not an in-tree of ops: {reason}")),
        }
    }
}

/// Liu's schedule of `g` if it is an in-forest of ops (`Err` says why
/// not): `optimal`, or `timed_out` past the deadline.
pub(crate) fn solve_forest(g: &Graph, ctx: &SolveContext) -> Result<Outcome, String> {
    let forest = Forest::of(g)?;
    let members = Members::of(g, &forest);
    let mut done: Vec<Option<Sequence>> = Vec::new();
    done.resize_with(g.node_count(), || None);
    let mut ticker = DeadlineTicker::new(64);
    for &h in &forest.post_order {
        if ticker.expired(ctx) {
            return Ok(Outcome::timed_out());
        }
        let kids: Vec<Sequence> = forest.children[h as usize]
            .iter()
            .map(|&c| done[c as usize].take().expect("children come first"))
            .collect();
        let mut seq = Sequence::merge(kids);
        for &v in members.task(h) {
            seq.push(v, g.delta(v));
        }
        done[h as usize] = Some(seq);
    }
    let roots: Vec<Sequence> = forest
        .roots
        .iter()
        .map(|&r| done[r as usize].take().expect("every root is scheduled"))
        .collect();
    let seq = Sequence::merge(roots);
    let peak = seq.levels.iter().copied().max().unwrap_or(0).max(0) as u64;
    let ops = (forest.post_order.iter())
        .filter(|&&h| g.kind(h) == NodeKind::Compute)
        .count();
    let unread = forest.post_order.len() - ops;
    let also = match unread {
        0 => String::new(),
        k => format!(" and {} no op reads", crate::text::count(k, "buffer")),
    };
    Ok(Outcome::optimal(seq.nodes, peak)
        .with_counter("ops", ops as u64)
        .with_note(format!(
            "in-forest of {}{also}: Liu (1987)",
            crate::text::count(ops, "op")
        )))
}

/// Each task's nodes in the order it runs them: ALLOCs, head, FREEs.
struct Members {
    /// Per head (indexed by node): where its nodes start in `nodes`.
    start: Vec<usize>,
    nodes: Vec<NodeIdx>,
}

impl Members {
    fn of(g: &Graph, forest: &Forest) -> Members {
        let n = g.node_count();
        let rank = |v: NodeIdx| match g.kind(v) {
            NodeKind::Alloc => 0,
            NodeKind::Compute => 1,
            NodeKind::Free => 2,
        };
        let mut nodes: Vec<NodeIdx> = g.nodes().collect();
        nodes.sort_by_key(|&v| (forest.task[v as usize], rank(v), v));
        let mut start = vec![0; n + 1];
        for &v in &nodes {
            start[forest.task[v as usize] as usize + 1] += 1;
        }
        for i in 0..n {
            start[i + 1] += start[i];
        }
        Members { start, nodes }
    }

    /// The nodes of `h`'s task.
    fn task(&self, h: NodeIdx) -> &[NodeIdx] {
        &self.nodes[self.start[h as usize]..self.start[h as usize + 1]]
    }
}

/// A subtree's schedule: its nodes and the memory after each, relative to
/// before it (`levels[0] = 0`, `levels[k]` after `k` nodes).
#[derive(Debug)]
struct Sequence {
    nodes: Vec<NodeIdx>,
    levels: Vec<i64>,
}

/// One of Liu's segments: the nodes `start..end` of a sequence, whose
/// levels climb to `hill` and end at `valley`.
#[derive(Debug, Clone, Copy)]
struct Segment {
    start: usize,
    end: usize,
    hill: i64,
    valley: i64,
}

impl Sequence {
    fn empty() -> Sequence {
        Sequence {
            nodes: Vec::new(),
            levels: vec![0],
        }
    }

    fn push(&mut self, v: NodeIdx, delta: i64) {
        let last = *self.levels.last().expect("levels start with 0");
        self.nodes.push(v);
        self.levels.push(last + delta);
    }

    /// Liu's segments: the first ends at the last minimum at or after the
    /// last maximum; the next are cut the same way from there on.
    ///
    /// # Complexity
    /// O(len).
    fn segments(&self) -> Vec<Segment> {
        let l = &self.levels;
        let m = l.len();
        // Per index i: the last maximum and the last minimum of l[i..].
        let (mut top, mut low) = (vec![m - 1; m], vec![m - 1; m]);
        for i in (0..m - 1).rev() {
            top[i] = if l[i] > l[top[i + 1]] { i } else { top[i + 1] };
            low[i] = if l[i] < l[low[i + 1]] { i } else { low[i + 1] };
        }
        let mut cuts = Vec::new();
        let mut i = 0;
        while i < m {
            let h = top[i];
            let v = low[h];
            // Level index k is reached by node k - 1.
            cuts.push(Segment {
                start: i.saturating_sub(1),
                end: v,
                hill: l[h],
                valley: l[v],
            });
            i = v + 1;
        }
        cuts
    }

    /// Interleaves independent sequences (each starting at its minimum)
    /// by whole segments in non-increasing order of `hill - valley`, ties
    /// by sequence then position: the least peak over their
    /// interleavings (Liu).
    fn merge(mut parts: Vec<Sequence>) -> Sequence {
        match parts.len() {
            0 => return Sequence::empty(),
            1 => return parts.pop().expect("one part"),
            _ => {}
        }
        let mut order: Vec<(i64, usize, usize, Segment)> = Vec::new();
        for (p, part) in parts.iter().enumerate() {
            for (k, s) in part.segments().into_iter().enumerate() {
                order.push((s.valley - s.hill, p, k, s));
            }
        }
        order.sort_unstable_by_key(|&(key, p, k, _)| (key, p, k));
        let len: usize = parts.iter().map(|p| p.nodes.len()).sum();
        let mut out = Sequence {
            nodes: Vec::with_capacity(len),
            levels: Vec::with_capacity(len + 1),
        };
        out.levels.push(0);
        let mut held: Vec<i64> = vec![0; parts.len()];
        let mut total = 0;
        for &(_, p, _, s) in &order {
            let part = &parts[p];
            for k in s.start..s.end {
                out.nodes.push(part.nodes[k]);
                out.levels.push(total - held[p] + part.levels[k + 1]);
            }
            total += part.levels[s.end] - held[p];
            held[p] = part.levels[s.end];
        }
        out
    }
}

#[cfg(test)]
mod tests;
