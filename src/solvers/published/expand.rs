//! Op decisions expanded into a full node order ([`Expander`]).

use super::OpView;
use crate::graph::{Graph, NodeIdx, NodeKind};

/// Builds the full node order from op decisions (F1 for FREEs, F2 for ALLOCs).
///
/// A node is *settled* once it has run or, for an ALLOC, once everything
/// before it has settled (it could run at any moment, so it waits). An op is
/// ready when all its predecessors are settled; running it first runs the
/// ALLOCs it still needs (in post-order of their own ALLOC predecessors), then
/// every FREE that becomes ready, in the order they become ready.
///
/// # Complexity
/// O(n + m) over a whole run.
#[derive(Debug)]
pub struct Expander<'g> {
    g: &'g Graph,
    /// Predecessors not yet settled.
    unsettled: Vec<u32>,
    ran: Vec<bool>,
    order: Vec<NodeIdx>,
    free_queue: std::collections::VecDeque<NodeIdx>,
    settle_stack: Vec<NodeIdx>,
    pull_stack: Vec<(NodeIdx, u32)>,
    /// On a regular graph, its successor-less ALLOCs: each op's step then
    /// takes the short path ([`run_regular`](Expander::run_regular)).
    regular_tail: Option<&'g [NodeIdx]>,
}

impl<'g> Expander<'g> {
    /// A fresh expansion; FREEs ready at the start have already run.
    pub fn new(g: &'g Graph) -> Self {
        let n = g.node_count();
        let mut e = Expander {
            g,
            unsettled: g.nodes().map(|v| g.preds(v).len() as u32).collect(),
            ran: vec![false; n],
            order: Vec::with_capacity(n),
            free_queue: Default::default(),
            settle_stack: Vec::new(),
            pull_stack: Vec::new(),
            regular_tail: None,
        };
        let sources: Vec<NodeIdx> = g.nodes().filter(|&v| g.preds(v).is_empty()).collect();
        for v in sources {
            e.became_ready(v);
        }
        e.drain_frees();
        e
    }

    /// A fresh expansion of `g` whose op view is `view`; on a regular graph
    /// (see [`OpView::is_regular`]) each op step takes the short path.
    pub fn for_view(g: &'g Graph, view: &'g OpView) -> Self {
        Expander {
            regular_tail: view.tail_allocs.as_deref(),
            ..Expander::new(g)
        }
    }

    /// Whether compute node `v` can run now.
    pub fn is_ready(&self, v: NodeIdx) -> bool {
        !self.ran[v as usize] && self.unsettled[v as usize] == 0
    }

    /// Runs op `v` (with the ALLOCs it needs, then the FREEs it releases).
    /// Returns false, doing nothing, if `v` is not ready.
    pub fn run_op(&mut self, v: NodeIdx) -> bool {
        if !self.is_ready(v) {
            return false;
        }
        if self.regular_tail.is_some() {
            self.run_regular(v);
        } else {
            self.run_with_allocs(v);
            self.drain_frees();
        }
        true
    }

    /// An op step on a regular graph, as the general one goes there: `v`'s
    /// ALLOC predecessors (each has `v` as its only successor, so nobody ran
    /// it), `v`, each FREE successor it was the last to settle (a FREE has
    /// compute predecessors only and no successor); then the ALLOCs it
    /// settled settle their successors.
    fn run_regular(&mut self, v: NodeIdx) {
        let g = self.g;
        let allocs = g.preds(v).iter().filter(|&&a| g.kind(a) == NodeKind::Alloc);
        self.order.extend(allocs);
        self.ran[v as usize] = true;
        self.order.push(v);
        for &s in g.succs(v) {
            let c = &mut self.unsettled[s as usize];
            *c -= 1;
            if *c == 0 {
                match g.kind(s) {
                    NodeKind::Compute => {}
                    NodeKind::Free => self.order.push(s),
                    NodeKind::Alloc => self.settle_stack.push(s),
                }
            }
        }
        self.settle_from_stack();
    }

    /// The node order, once every op has run: any ALLOC still waiting (no
    /// successor) runs last, in program order. `None` if some op never ran.
    pub fn finish(mut self) -> Option<Vec<NodeIdx>> {
        if let Some(tail) = self.regular_tail {
            let complete = self.order.len() + tail.len() == self.g.node_count();
            self.order.extend_from_slice(tail);
            return complete.then_some(self.order);
        }
        for v in self.g.nodes() {
            if !self.ran[v as usize] {
                if self.g.kind(v) != NodeKind::Alloc || self.unsettled[v as usize] != 0 {
                    return None;
                }
                // Already settled: run it after the ALLOCs before it, no re-settling.
                self.pull(v);
            }
        }
        Some(self.order)
    }

    fn became_ready(&mut self, v: NodeIdx) {
        match self.g.kind(v) {
            NodeKind::Compute => {}
            NodeKind::Free => self.free_queue.push_back(v),
            NodeKind::Alloc => {
                self.settle_stack.push(v);
                self.settle_from_stack();
            }
        }
    }

    /// Settles the nodes on the settle stack and everything that follows.
    fn settle_from_stack(&mut self) {
        while let Some(x) = self.settle_stack.pop() {
            for &s in self.g.succs(x) {
                let c = &mut self.unsettled[s as usize];
                *c -= 1;
                if *c == 0 {
                    match self.g.kind(s) {
                        NodeKind::Compute => {}
                        NodeKind::Free => self.free_queue.push_back(s),
                        NodeKind::Alloc => self.settle_stack.push(s),
                    }
                }
            }
        }
    }

    /// Runs the ALLOCs `v` still needs (post-order), then `v`, then settles
    /// its successors.
    fn run_with_allocs(&mut self, v: NodeIdx) {
        self.pull(v);
        self.settle_stack.push(v);
        self.settle_from_stack();
    }

    /// Runs the ALLOCs `v` still needs (post-order of their own ALLOC
    /// predecessors), then `v`.
    fn pull(&mut self, v: NodeIdx) {
        self.pull_stack.push((v, 0));
        while let Some(&(x, next)) = self.pull_stack.last() {
            let preds = self.g.preds(x);
            let unclaimed = preds[next as usize..]
                .iter()
                .position(|&p| !self.ran[p as usize] && self.g.kind(p) == NodeKind::Alloc);
            match unclaimed {
                Some(k) => {
                    let p = preds[next as usize + k];
                    if let Some(top) = self.pull_stack.last_mut() {
                        top.1 = next + k as u32 + 1;
                    }
                    self.ran[p as usize] = true; // claimed; pushed to order below
                    self.pull_stack.push((p, 0));
                }
                None => {
                    self.pull_stack.pop();
                    self.ran[x as usize] = true;
                    self.order.push(x);
                }
            }
        }
    }

    fn drain_frees(&mut self) {
        while let Some(f) = self.free_queue.pop_front() {
            self.run_with_allocs(f);
        }
    }
}

/// Expands a complete op order (ops given as compute nodes) into a node order.
///
/// Fails if the op order breaks an operand edge (a bug in the caller).
pub fn expand(g: &Graph, op_order: &[NodeIdx]) -> Result<Vec<NodeIdx>, String> {
    expand_with(Expander::new(g), g, op_order.iter().copied())
}

/// Runs `op_order` (compute nodes) through `e` and finishes it.
pub(super) fn expand_with(
    mut e: Expander,
    g: &Graph,
    op_order: impl Iterator<Item = NodeIdx>,
) -> Result<Vec<NodeIdx>, String> {
    for v in op_order {
        if !e.run_op(v) {
            return Err(format!("op {} is not ready when its turn comes", g.id(v)));
        }
    }
    e.finish()
        .ok_or_else(|| "the op order leaves some node unscheduled".to_string())
}
