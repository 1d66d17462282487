//! What a rule compared at each step of an order: the values of its key's
//! terms for the node that ran, in the state it ran in (for `memsched
//! schedule --trace`).
//!
//! The values are the ones the list scheduler ranks: `live_after` ranks
//! as `delta` (the memory before a step is the same for every ready node),
//! and `unlocks` and `frees_after` count the successors whose last
//! predecessor the node is at that step.

use super::features::{float_term, int_term, Adj, Dynamic, Statics};
use super::{Key, Term};
use crate::graph::{Graph, NodeIdx};

/// One step of a traced order.
#[derive(Debug, Clone, PartialEq)]
pub struct TraceStep {
    /// The node that ran.
    pub node: NodeIdx,
    /// How many nodes were ready at that step (it among them).
    pub ready: usize,
    /// Each term's value for it, most significant first (integers exact).
    pub terms: Vec<String>,
}

/// The ready counts along `order`, a schedule of `g` (checked by the
/// caller), and the term values of `key` if given (`seed` is its rule's,
/// for `random`): one step per node.
///
/// # Complexity
/// O(n + m), plus the static tables `key` reads (`depth`, `height`).
pub fn trace(g: &Graph, key: Option<&Key>, seed: u64, order: &[NodeIdx]) -> Vec<TraceStep> {
    let adj = Adj::new(g);
    let statics = key.map(|key| Statics::new(g, key, seed, None));
    let mut pending: Vec<usize> = g.nodes().map(|v| adj.preds(v).len()).collect();
    let mut ready = pending.iter().filter(|&&p| p == 0).count();
    let mut steps = Vec::with_capacity(order.len());
    for &v in order {
        let d = Dynamic::of_node(g, &adj, v, Some(&pending));
        let terms = match (key, &statics) {
            (Some(key), Some(statics)) => (key.terms.iter())
                .map(|term| match term {
                    Term::Int(sum) => int_term(g, &adj, statics, sum, v, &d).to_string(),
                    // `+ 0.0`: -0 ranks as 0, as the scheduler's key has it.
                    Term::Float(sum) => {
                        (float_term(g, &adj, statics, sum, v, &d) + 0.0).to_string()
                    }
                })
                .collect(),
            _ => Vec::new(),
        };
        steps.push(TraceStep {
            node: v,
            ready,
            terms,
        });
        ready -= 1;
        for &w in adj.succs(v) {
            pending[w as usize] -= 1;
            if pending[w as usize] == 0 {
                ready += 1;
            }
        }
    }
    steps
}

/// The text of each term of `key`, most significant first (the headers of
/// a trace).
pub fn term_texts(key: &Key) -> Vec<String> {
    key.text().split(',').map(str::to_string).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::solvers::{run, SolveContext};

    /// Along the article's rule's own order the trace gives each node's
    /// delta, type and id, and a ready count of at least one; at the last
    /// step nothing is left to unlock and one node is ready.
    #[test]
    fn the_trace_shows_the_values_the_rule_chose_by() {
        let spec = crate::corpus::gen::GenSpec::parse("tensor-program:ops=12").unwrap();
        let g = crate::corpus::gen::generate(&spec, 4).unwrap();
        let key = super::super::parse("delta,type,id").unwrap();
        let solver = super::super::Rule::new(key.clone());
        let order = run(&solver, &g, &SolveContext::default()).order.unwrap();
        let steps = trace(&g, Some(&key), 0, &order);
        assert_eq!(steps.len(), g.node_count());
        for (step, &v) in steps.iter().zip(&order) {
            assert_eq!(step.node, v);
            assert_eq!(step.terms[0], g.delta(v).to_string());
            assert_eq!(step.terms[1], g.kind(v).type_code().to_string());
            assert_eq!(step.terms[2], g.id(v).to_string());
            assert!(step.ready >= 1);
        }
        assert_eq!(term_texts(&key), ["delta", "type", "id"]);
        // The last node has nothing left to unlock.
        let key = super::super::parse("-unlocks,0.5*delta").unwrap();
        let steps = trace(&g, Some(&key), 0, &order);
        assert_eq!(steps.last().unwrap().terms[0], "0");
        assert_eq!(steps.last().unwrap().ready, 1);
        let bare = trace(&g, None, 0, &order);
        assert!(bare.iter().all(|s| s.terms.is_empty()));
        let ready = |t: &[TraceStep]| t.iter().map(|s| s.ready).collect::<Vec<_>>();
        assert_eq!(ready(&bare), ready(&steps));
    }
}
