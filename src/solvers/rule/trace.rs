//! What a rule compared at each step of an order: the values of its key's
//! terms for the node that ran, in the state it ran in (for `memsched
//! schedule --trace`).
//!
//! The values are the ones the list scheduler ranks: `live_after` ranks
//! as `delta` (the memory before a step is the same for every ready node),
//! and `unlocks` and `frees_after` count the successors whose last
//! predecessor the node is at that step.

use std::collections::BTreeSet;

use super::features::{encode, float_term, int_term, stride, Adj, Dynamic, Statics, Unlocks};
use super::{Feature, Key, Term};
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
    /// The ready node the rule ranked next, if another was ready.
    pub runner_up: Option<RunnerUp>,
}

/// The ready node a rule ranked just after the one that ran, and what
/// told the two apart.
#[derive(Debug, Clone, PartialEq)]
pub struct RunnerUp {
    /// The node.
    pub node: NodeIdx,
    /// The first term (from 0) on which the two differ; `None` when every
    /// term tied and the lower id ran.
    pub decided_by: Option<usize>,
    /// The runner-up's value of that term (its id when the id decided),
    /// written as [`TraceStep::terms`] are.
    pub value: String,
}

/// The ready counts along `order`, a schedule of `g` (checked by the
/// caller), and, if `key` is given (`seed` is its rule's, for `random`),
/// the term values and the runner-up of each step: one step per node.
///
/// # Complexity
/// O((n + m) log n), plus the static tables `key` reads (`depth`,
/// `height`): each ready node's key is kept in an ordered set, re-keyed
/// when its `unlocks` or `frees_after` change (once per successor at
/// most), which are counted as the list scheduler counts them.
pub fn trace(g: &Graph, key: Option<&Key>, seed: u64, order: &[NodeIdx]) -> Vec<TraceStep> {
    let adj = Adj::new(g);
    let statics = key.map(|key| Statics::new(g, key, seed, None));
    let mut pending: Vec<usize> = g.nodes().map(|v| adj.preds(v).len()).collect();
    let mut ran = vec![false; g.node_count()];
    let mut ranking = key.zip(statics.as_ref()).map(|(key, statics)| Ranking {
        g,
        adj: &adj,
        key,
        statics,
        counts: Unlocks::new(g.node_count()),
        keys: vec![None; g.node_count()],
        ready: BTreeSet::new(),
    });
    if let Some(r) = &mut ranking {
        for w in g.nodes().filter(|&w| pending[w as usize] == 1) {
            r.credit(w, adj.preds(w)[0]);
        }
        for v in g.nodes().filter(|&v| pending[v as usize] == 0) {
            r.insert(v);
        }
    }
    let mut ready = pending.iter().filter(|&&p| p == 0).count();
    let mut steps = Vec::with_capacity(order.len());
    for &v in order {
        let (terms, runner_up) = match &mut ranking {
            Some(r) => (r.values(v), r.run(v)),
            None => (Vec::new(), None),
        };
        steps.push(TraceStep {
            node: v,
            ready,
            terms,
            runner_up,
        });
        ready -= 1;
        ran[v as usize] = true;
        for &w in adj.succs(v) {
            pending[w as usize] -= 1;
            let Some(r) = &mut ranking else {
                ready += (pending[w as usize] == 0) as usize;
                continue;
            };
            match pending[w as usize] {
                0 => {
                    ready += 1;
                    r.insert(w);
                }
                // `w`'s last unrun predecessor now unlocks it (found once
                // per node: O(m) in all).
                1 => {
                    let last = adj.preds(w).iter().find(|&&x| !ran[x as usize]);
                    r.credit(w, *last.expect("one predecessor is unrun"));
                }
                _ => {}
            }
        }
    }
    steps
}

/// The ready nodes in the order of a rule's key, as the list scheduler
/// ranks them.
struct Ranking<'a> {
    g: &'a Graph,
    adj: &'a Adj<'a>,
    key: &'a Key,
    statics: &'a Statics,
    /// Per node: `unlocks` and `frees_after` as of now.
    counts: Unlocks,
    /// The current key words of each ready node (`None`: not ready).
    keys: Vec<Option<Vec<u64>>>,
    /// The ready nodes' key words; the last word is the node.
    ready: BTreeSet<Vec<u64>>,
}

impl Ranking<'_> {
    /// Node `v`'s state-dependent values now.
    fn dynamic(&self, v: NodeIdx) -> Dynamic {
        Dynamic::counted(self.g, v, Some(&self.counts))
    }

    /// Node `v`'s key words.
    fn words(&self, v: NodeIdx) -> Vec<u64> {
        let mut out = vec![0; stride(self.key)];
        let d = self.dynamic(v);
        encode(self.g, self.adj, self.statics, self.key, v, &d, &mut out);
        out
    }

    /// Each term's value for `v`, most significant first.
    fn values(&self, v: NodeIdx) -> Vec<String> {
        let (g, adj, statics) = (self.g, self.adj, self.statics);
        let d = self.dynamic(v);
        (self.key.terms.iter())
            .map(|term| match term {
                Term::Int(sum) => int_term(g, adj, statics, sum, v, &d).to_string(),
                // `+ 0.0`: -0 ranks as 0, as the scheduler's key has it.
                Term::Float(sum) => (float_term(g, adj, statics, sum, v, &d) + 0.0).to_string(),
            })
            .collect()
    }

    /// `w` is down to one unrun predecessor, `x`: credit `x`, and re-key
    /// it if it is ready and the rule reads what changed.
    fn credit(&mut self, w: NodeIdx, x: NodeIdx) {
        self.counts.credit(self.g, w, x);
        // As the list scheduler: `x`'s key changes only if the rule reads
        // `unlocks`, or `w` is a FREE (its bytes go to `frees_after`).
        let changed = self.key.uses(Feature::Unlocks)
            || (self.g.delta(w) < 0 && self.key.uses(Feature::FreesAfter));
        if changed {
            if let Some(old) = self.keys[x as usize].take() {
                self.ready.remove(&old);
                self.insert(x);
            }
        }
    }

    /// `v` became ready.
    fn insert(&mut self, v: NodeIdx) {
        let words = self.words(v);
        self.ready.insert(words.clone());
        self.keys[v as usize] = Some(words);
    }

    /// `v` runs: it leaves the ready set; the node ranked first among the
    /// rest is the runner-up.
    fn run(&mut self, v: NodeIdx) -> Option<RunnerUp> {
        let ran = self.keys[v as usize]
            .take()
            .expect("a traced node is ready when it runs");
        self.ready.remove(&ran);
        let next = self.ready.first()?;
        let node = *next.last().expect("a key ends with its node") as NodeIdx;
        let terms = self.key.terms.len();
        let first_difference = (0..terms).find(|&t| ran[t] != next[t]);
        let value = match first_difference {
            Some(t) => self.values(node).swap_remove(t),
            None => self.g.id(node).to_string(),
        };
        Some(RunnerUp {
            node,
            decided_by: first_difference,
            value,
        })
    }
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
        assert!(steps.iter().all(|s| s.runner_up.is_some() == (s.ready > 1)));
        let bare = trace(&g, None, 0, &order);
        assert!(bare.iter().all(|s| s.runner_up.is_none()));
        assert!(bare.iter().all(|s| s.terms.is_empty()));
        let ready = |t: &[TraceStep]| t.iter().map(|s| s.ready).collect::<Vec<_>>();
        assert_eq!(ready(&bare), ready(&steps));
    }

    /// Each step's runner-up is the second of the ready nodes sorted by
    /// the rule's term values and id, recomputed from scratch at every
    /// step, and `decided_by` is the first term on which it differs from
    /// the node that ran (which is the first of them).
    #[test]
    fn the_runner_up_is_the_second_ready_node_in_key_order() {
        let rules = [
            "-unlocks,-frees_after,delta,id",
            "delta,type,id",
            "0.5*delta-unlocks,-id",
            "type",
            "random,delta",
        ];
        for (spec, g) in super::super::list::tests::small_graphs(6, 3) {
            let adj = Adj::new(&g);
            for rule in rules {
                let key = super::super::parse(rule).unwrap();
                let solver = super::super::Rule::new(key.clone());
                let ctx = SolveContext {
                    seed: 3,
                    ..SolveContext::default()
                };
                let order = run(&solver, &g, &ctx).order.unwrap();
                let statics = Statics::new(&g, &key, 3, None);
                let steps = trace(&g, Some(&key), 3, &order);
                let mut pending: Vec<usize> = g.nodes().map(|v| adj.preds(v).len()).collect();
                let mut ran = vec![false; g.node_count()];
                for step in &steps {
                    let value = |v: NodeIdx| -> Vec<f64> {
                        let d = Dynamic::of_node(&g, &adj, v, Some(&pending));
                        let mut x: Vec<f64> = (key.terms.iter())
                            .map(|term| match term {
                                Term::Int(sum) => int_term(&g, &adj, &statics, sum, v, &d) as f64,
                                Term::Float(sum) => float_term(&g, &adj, &statics, sum, v, &d),
                            })
                            .collect();
                        x.push(g.id(v) as f64);
                        x
                    };
                    let mut ready: Vec<(Vec<f64>, NodeIdx)> = g
                        .nodes()
                        .filter(|&v| pending[v as usize] == 0 && !ran[v as usize])
                        .map(|v| (value(v), v))
                        .collect();
                    ready.sort_by(|a, b| a.0.partial_cmp(&b.0).unwrap());
                    assert_eq!(ready.len(), step.ready, "{rule} on {spec}");
                    assert_eq!(ready[0].1, step.node, "{rule} on {spec}");
                    match (&step.runner_up, ready.get(1)) {
                        (None, None) => {}
                        (Some(r), Some((second, node))) => {
                            assert_eq!(r.node, *node, "{rule} on {spec}");
                            let t = (0..second.len()).find(|&t| second[t] != ready[0].0[t]);
                            let terms = key.terms.len();
                            assert_eq!(r.decided_by, t.filter(|&t| t < terms), "{rule} on {spec}");
                            let shown = r.value.parse::<f64>().unwrap();
                            assert_eq!(shown, second[t.unwrap()], "{rule} on {spec}");
                        }
                        (r, second) => panic!("{rule} on {spec}: {r:?} against {second:?}"),
                    }
                    let v = step.node;
                    ran[v as usize] = true;
                    for &w in adj.succs(v) {
                        pending[w as usize] -= 1;
                    }
                }
            }
        }
    }
}
