//! Is a graph an in-forest of ops, and which nodes belong to which op?
//!
//! A *task* is one compute node (its head) with the ALLOCs whose only
//! successor it is and the FREEs it is the last to need. By F2 an ALLOC
//! can wait until just before its only successor, and by F1 a FREE can run
//! as soon as its last predecessor has; both moves only lower the memory
//! in between. So some optimal schedule runs every task contiguously:
//! ALLOCs, head, FREEs. The graph is an *in-forest of ops* when, moreover,
//! every head's non-FREE successors lie in one other task (its parent) and
//! every predecessor of a FREE lies in its task's subtree: then a task can
//! run once its subtree has, and the tasks form Liu's (1987) tree.
//!
//! Accepted: every ALLOC has exactly one successor, a compute node, or is
//! a buffer no op reads (no successor, or only its FREE): a task of its
//! own, headed by the ALLOC, always a root (an op before it becomes its
//! child, and may then feed nothing else); every FREE has no successor,
//! and its predecessors are its task's head and nodes of tasks strictly
//! below it. Refused, with the first node that
//! breaks it: an op whose output feeds ops of two tasks (a skip
//! connection, an out-tree's broadcast, an op followed by another op
//! and by an unread buffer's ALLOC), an ALLOC feeding a FREE that also
//! follows other nodes, an ALLOC feeding two nodes, a FREE with
//! successors, a FREE needed by ops of two branches.

use crate::graph::{Graph, NodeIdx, NodeKind};

/// No task / no parent.
const NONE: NodeIdx = NodeIdx::MAX;

/// The tasks of an in-forest of ops.
#[derive(Debug)]
pub(crate) struct Forest {
    /// Per node: the head of its task.
    pub task: Vec<NodeIdx>,
    /// Heads in post-order (every head after its subtree): ops, and the
    /// ALLOCs of buffers no op reads.
    pub post_order: Vec<NodeIdx>,
    /// Per head (indexed by node): its children heads, in node order.
    pub children: Vec<Vec<NodeIdx>>,
    /// Heads without a parent, in node order.
    pub roots: Vec<NodeIdx>,
}

impl Forest {
    /// The forest of `g`'s ops, or why `g` is not one (naming a node).
    ///
    /// # Complexity
    /// O(n + m).
    pub fn of(g: &Graph) -> Result<Forest, String> {
        let n = g.node_count();
        let mut task = op_and_alloc_tasks(g)?;
        let parent = parents(g, &task)?;
        let (children, roots) = children_and_roots(&task, &parent);
        let (post_order, span) = euler_tour(&roots, &children, n);
        // First every FREE's successors, so that below every predecessor
        // of a FREE (an op or an ALLOC) has a task.
        frees_end_their_branches(g)?;
        for f in g.nodes().filter(|&v| g.kind(v) == NodeKind::Free) {
            task[f as usize] = free_task(g, f, &task, &span)?;
        }
        Ok(Forest {
            task,
            post_order,
            children,
            roots,
        })
    }
}

/// Per node, the head of its task, FREEs aside (left [`NONE`]): an op
/// heads its own, an ALLOC joins its op's, or heads its own if no op
/// reads it.
fn op_and_alloc_tasks(g: &Graph) -> Result<Vec<NodeIdx>, String> {
    let mut task = vec![NONE; g.node_count()];
    for v in g.nodes() {
        if g.kind(v) == NodeKind::Compute {
            task[v as usize] = v;
        }
    }
    for v in g.nodes().filter(|&v| g.kind(v) == NodeKind::Alloc) {
        task[v as usize] = alloc_task(g, v)?;
    }
    Ok(task)
}

/// The head of ALLOC `v`'s task: its only successor, an op, or `v` itself
/// for a buffer no op reads; or why it is neither.
fn alloc_task(g: &Graph, v: NodeIdx) -> Result<NodeIdx, String> {
    // Parallel edges to one node count once.
    let mut succs = g.succs(v).to_vec();
    succs.sort_unstable();
    succs.dedup();
    match succs[..] {
        [h] if g.kind(h) == NodeKind::Compute => Ok(h),
        // A buffer no op reads: a task of its own, headed by its
        // ALLOC (a root, with the FREE if it has one).
        [] => Ok(v),
        [f] if g.kind(f) == NodeKind::Free && g.preds(f).iter().all(|&p| p == v) => Ok(v),
        [w] => Err(format!(
            "ALLOC {} feeds {} {}, not an op",
            g.id(v),
            g.kind(w).label(),
            g.id(w)
        )),
        _ => Err(format!(
            "ALLOC {} has {} successors, not one op",
            g.id(v),
            succs.len()
        )),
    }
}

/// Per op, the head of the one task its non-FREE successors lie in (its
/// parent; [`NONE`] for a root), or the first op that feeds two tasks.
fn parents(g: &Graph, task: &[NodeIdx]) -> Result<Vec<NodeIdx>, String> {
    let mut parent = vec![NONE; g.node_count()];
    for h in g.nodes().filter(|&v| g.kind(v) == NodeKind::Compute) {
        for &w in g.succs(h) {
            if g.kind(w) == NodeKind::Free {
                continue;
            }
            let t = task[w as usize];
            match parent[h as usize] {
                p if p == NONE => parent[h as usize] = t,
                p if p == t => {}
                p => {
                    // A head is an op, or the ALLOC of an unread buffer.
                    let head = |v: NodeIdx| format!("{} {}", g.kind(v).label(), g.id(v));
                    return Err(format!(
                        "op {} feeds two ops' tasks, {} and {}",
                        g.id(h),
                        head(p),
                        head(t)
                    ));
                }
            }
        }
    }
    Ok(parent)
}

/// Per head, its children heads, and the heads without a parent, both in
/// node order.
fn children_and_roots(task: &[NodeIdx], parent: &[NodeIdx]) -> (Vec<Vec<NodeIdx>>, Vec<NodeIdx>) {
    let n = task.len();
    let mut children = vec![Vec::new(); n];
    let mut roots = Vec::new();
    for h in (0..n as NodeIdx).filter(|&v| task[v as usize] == v) {
        match parent[h as usize] {
            p if p == NONE => roots.push(h),
            p => children[p as usize].push(h),
        }
    }
    (children, roots)
}

/// Checks that no FREE has a successor, naming the first that has one.
fn frees_end_their_branches(g: &Graph) -> Result<(), String> {
    for f in g.nodes().filter(|&v| g.kind(v) == NodeKind::Free) {
        if let Some(&w) = g.succs(f).first() {
            return Err(format!(
                "FREE {} has a successor ({}): a FREE must end its branch",
                g.id(f),
                g.id(w)
            ));
        }
    }
    Ok(())
}

/// The task of FREE `f`: the one whose subtree holds all its
/// predecessors, given each head's tour `span`; or why there is none.
fn free_task(
    g: &Graph,
    f: NodeIdx,
    task: &[NodeIdx],
    span: &[(u32, u32)],
) -> Result<NodeIdx, String> {
    let below = |t: NodeIdx, u: NodeIdx| {
        let (a, b) = (span[t as usize], span[u as usize]);
        a.0 >= b.0 && a.1 <= b.1
    };
    // The task whose subtree holds every predecessor: the one
    // entered first in the tour among theirs.
    let top = g
        .preds(f)
        .iter()
        .map(|&p| task[p as usize])
        .min_by_key(|&t| span[t as usize].0)
        .expect("a FREE has a predecessor: its ALLOC reaches it");
    for &p in g.preds(f) {
        let t = task[p as usize];
        if t == top && p != top {
            return Err(format!(
                "FREE {} follows {} {} of op {} but not the op itself",
                g.id(f),
                g.kind(p).label(),
                g.id(p),
                g.id(top)
            ));
        }
        if !below(t, top) {
            return Err(format!(
                "FREE {} follows ops {} and {} of two branches",
                g.id(f),
                g.id(t),
                g.id(top)
            ));
        }
    }
    Ok(top)
}

/// Heads in post-order and, per head, its (entry, exit) times in a
/// depth-first tour: `u` is in `t`'s subtree iff `u`'s span lies in `t`'s.
fn euler_tour(
    roots: &[NodeIdx],
    children: &[Vec<NodeIdx>],
    n: usize,
) -> (Vec<NodeIdx>, Vec<(u32, u32)>) {
    let mut span = vec![(0u32, 0u32); n];
    let mut post = Vec::new();
    let mut clock = 0u32;
    let mut stack: Vec<(NodeIdx, usize)> = Vec::new();
    for &r in roots {
        span[r as usize].0 = clock;
        clock += 1;
        stack.push((r, 0));
        while let Some(top) = stack.last_mut() {
            let (h, next) = *top;
            if let Some(&c) = children[h as usize].get(next) {
                top.1 += 1;
                span[c as usize].0 = clock;
                clock += 1;
                stack.push((c, 0));
            } else {
                span[h as usize].1 = clock;
                clock += 1;
                post.push(h);
                stack.pop();
            }
        }
    }
    (post, span)
}
