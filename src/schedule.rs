//! The independent checker: is an order a valid schedule, and what is its peak?
//!
//! [`check`] is the only code in memsched whose peak is ever recorded. It
//! shares nothing with the solvers: it re-derives validity from the edges and
//! recomputes the memory from the deltas, so a solver bug shows up as a
//! rejected order, never as a wrong figure.

use thiserror::Error;

use crate::graph::{Graph, NodeIdx, NodeKind};

/// The memory facts of a valid order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Evaluation {
    /// `max(0, max_k mem_k)`: the article starts its running maximum at 0.
    pub peak: u64,
    /// Memory after the last node (the graph outputs).
    pub final_memory: i64,
    /// First step at which the peak is reached, counted from 0 (an index
    /// into the order; the command line's reports add 1); `None` for an
    /// empty order or a peak of 0 never exceeded.
    pub peak_step: Option<usize>,
}

/// Why an order is not a schedule of the graph.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ScheduleError {
    /// The order does not list as many nodes as the graph has.
    #[error("the order has {got} entries but the graph has {expected} nodes")]
    WrongLength {
        /// Entries in the order.
        got: usize,
        /// Nodes in the graph.
        expected: usize,
    },
    /// An index-based order names an index `>= node_count()`.
    #[error("the order names node index {index}, which does not exist")]
    UnknownNode {
        /// The out-of-range node index.
        index: u64,
    },
    /// An id-based order ([`check_ids`]) names an id no node has.
    #[error("the order names id {id}, which is not a node of the graph")]
    UnknownId {
        /// The id as given.
        id: i64,
    },
    /// A node is listed twice (so, by the length check, another is missing).
    #[error("node {id} appears twice in the order")]
    Repeated {
        /// The node's original id.
        id: i64,
    },
    /// A node runs before one of its predecessors: the first such step of
    /// the order (steps count from 1).
    #[error(
        "edge [{from}, {to}] is violated: node {to} runs at step {to_step}, before node {from} \
         at step {from_step} (the order's first step that runs a node before a predecessor)"
    )]
    EdgeViolated {
        /// Original id of the edge's source, which the order runs too late.
        from: i64,
        /// Original id of the edge's target.
        to: i64,
        /// The step that runs `to`: the earliest that runs a node before
        /// one of its predecessors. Counted from 1, as the message and the
        /// command line's reports count (unlike [`Evaluation::peak_step`]).
        to_step: usize,
        /// The later step that runs `from`, counted from 1.
        from_step: usize,
    },
}

/// Checks that `order` is a permutation of the graph's nodes that respects
/// every edge, and computes its peak.
///
/// # Complexity
/// O(n + m) time, n words of scratch.
pub fn check(g: &Graph, order: &[NodeIdx]) -> Result<Evaluation, ScheduleError> {
    let n = g.node_count();
    if order.len() != n {
        return Err(ScheduleError::WrongLength {
            got: order.len(),
            expected: n,
        });
    }
    let mut pos = vec![u32::MAX; n];
    for (i, &v) in order.iter().enumerate() {
        let slot = pos
            .get_mut(v as usize)
            .ok_or(ScheduleError::UnknownNode { index: v as u64 })?;
        if *slot != u32::MAX {
            return Err(ScheduleError::Repeated { id: g.id(v) });
        }
        *slot = i as u32;
    }
    for u in g.nodes() {
        for &v in g.succs(u) {
            if pos[u as usize] >= pos[v as usize] {
                return Err(first_violation(g, order, &pos));
            }
        }
    }
    Ok(evaluate_unchecked(g, order))
}

/// The first step of a permutation `order` (positions `pos`) that runs a
/// node before one of its predecessors (the first such predecessor in
/// edge order), for an order known to have one.
fn first_violation(g: &Graph, order: &[NodeIdx], pos: &[u32]) -> ScheduleError {
    for (k, &v) in order.iter().enumerate() {
        if let Some(&u) = g.preds(v).iter().find(|&&u| pos[u as usize] as usize > k) {
            return ScheduleError::EdgeViolated {
                from: g.id(u),
                to: g.id(v),
                to_step: k + 1,
                from_step: pos[u as usize] as usize + 1,
            };
        }
    }
    unreachable!("the caller found a violated edge")
}

/// Checks an order given as original ids (the `Id`s of the graph's JSON):
/// the order as node indices, and its evaluation. An id the graph does not
/// have is [`ScheduleError::UnknownId`].
pub fn check_ids(g: &Graph, ids: &[i64]) -> Result<(Vec<NodeIdx>, Evaluation), ScheduleError> {
    let mut order = Vec::with_capacity(ids.len());
    for &id in ids {
        let v = g.index_of(id).ok_or(ScheduleError::UnknownId { id })?;
        order.push(v);
    }
    let eval = check(g, &order)?;
    Ok((order, eval))
}

/// Memory after each step of a valid order (`profile[k]` = after `k + 1` nodes).
pub fn profile(g: &Graph, order: &[NodeIdx]) -> Result<Vec<i64>, ScheduleError> {
    check(g, order)?;
    let mut mem = 0i64;
    Ok(order
        .iter()
        .map(|&v| {
            mem += g.delta(v);
            mem
        })
        .collect())
}

/// The ALLOC nodes whose buffers are live after step `step` of `order`
/// (counted from 0, as [`Evaluation::peak_step`]): allocated at or before
/// it and not yet freed; largest first, then in the order they ran. What
/// makes up the peak when `step` is the peak's.
///
/// `order` must be a schedule ([`check`] it first).
///
/// # Complexity
/// O(n) time and n bits of scratch, plus the sort of the live buffers.
pub fn live_after(g: &Graph, order: &[NodeIdx], step: usize) -> Vec<NodeIdx> {
    let mut live = vec![false; g.node_count()];
    let mut allocs = Vec::new();
    for &v in order.iter().take(step.saturating_add(1)) {
        match g.kind(v) {
            NodeKind::Alloc => {
                live[v as usize] = true;
                allocs.push(v);
            }
            NodeKind::Free => {
                if let Some(alloc) = g.partner(v) {
                    live[alloc as usize] = false;
                }
            }
            NodeKind::Compute => {}
        }
    }
    allocs.retain(|&a| live[a as usize]);
    // Stable: equal sizes stay in the order they ran.
    allocs.sort_by_key(|&a| std::cmp::Reverse(g.size(a)));
    allocs
}

/// Peak and final memory of an order already known to be a permutation.
/// Sums cannot overflow: validation bounds the total of all sizes by i64::MAX.
fn evaluate_unchecked(g: &Graph, order: &[NodeIdx]) -> Evaluation {
    let mut mem = 0i64;
    let mut peak = 0i64;
    let mut peak_step = None;
    for (k, &v) in order.iter().enumerate() {
        mem += g.delta(v);
        if mem > peak {
            peak = mem;
            peak_step = Some(k);
        }
    }
    Evaluation {
        peak: peak as u64,
        final_memory: mem,
        peak_step,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::corpus::gen::{generate, GenSpec};

    /// A broken order is reported at its first step that runs a node
    /// before a predecessor, whichever edge the scan of edges meets first.
    #[test]
    fn a_violation_is_reported_at_its_first_step() {
        let g = generate(&GenSpec::parse("chain:length=4").unwrap(), 0).unwrap();
        let valid: Vec<NodeIdx> = g.nodes().collect();
        assert!(check(&g, &valid).is_ok(), "program order is a schedule");
        // The last node first, and the first node last.
        let mut order = valid.clone();
        let last = order.len() - 1;
        order.swap(0, last);
        let err = check(&g, &order).unwrap_err();
        let ScheduleError::EdgeViolated {
            to,
            to_step,
            from_step,
            ..
        } = err
        else {
            panic!("{err}");
        };
        assert_eq!((to, to_step), (g.id(valid[last]), 1), "{err}");
        assert!(from_step > 1, "{err}");
        assert!(
            err.to_string().contains("runs at step 1, before node"),
            "{err}"
        );
    }

    /// The buffers live after a step are those allocated and not yet
    /// freed, largest first; their sizes add up to the memory there.
    #[test]
    fn live_buffers_make_up_the_memory_of_their_step() {
        let g = generate(&GenSpec::parse("tensor-program:ops=30").unwrap(), 4).unwrap();
        let order: Vec<NodeIdx> = g.nodes().collect();
        let profile = profile(&g, &order).unwrap();
        for (k, &mem) in profile.iter().enumerate() {
            let live = live_after(&g, &order, k);
            let sizes: Vec<u64> = live.iter().map(|&a| g.size(a)).collect();
            assert_eq!(sizes.iter().sum::<u64>() as i64, mem, "step {k}");
            assert!(sizes.windows(2).all(|w| w[0] >= w[1]), "step {k}");
            assert!(live.iter().all(|&a| g.kind(a) == NodeKind::Alloc));
        }
        let eval = check(&g, &order).unwrap();
        let at_peak = live_after(&g, &order, eval.peak_step.unwrap());
        let total: u64 = at_peak.iter().map(|&a| g.size(a)).sum();
        assert_eq!(total, eval.peak);
    }

    /// An id that names no node is reported as that id, negative ones too.
    #[test]
    fn unknown_ids_are_named_as_given() {
        let g = generate(&GenSpec::parse("chain:length=3").unwrap(), 0).unwrap();
        let mut ids = g.ids().to_vec();
        for bad in [-7, 1_000_000] {
            ids[1] = bad;
            let err = check_ids(&g, &ids).unwrap_err();
            assert_eq!(err, ScheduleError::UnknownId { id: bad });
            assert!(err.to_string().contains(&format!("id {bad},")), "{err}");
        }
    }
}
