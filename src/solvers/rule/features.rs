//! Feature values of a ready node or a move, and the encoding of a key into
//! words that compare like the rule says.
//!
//! Static features (`type`, `id`, `size`, degrees, `depth`, `height`,
//! `latency`, `random`) never change during a run; the graph holds most of
//! them, and [`Statics`] computes `depth` and `height` once per solve if the
//! rule reads them. State-dependent ones (`delta` and `rise` of a move,
//! `unlocks`, `frees_after`, `live_after`) are computed by the scheduler
//! (list or moves) into a [`Dynamic`] when it (re)keys a node; the
//! scheduler's module documents when that happens.
//!
//! Exact definitions are in `docs/rules.md`; in short, for a ready node `v`
//! in node mode:
//! - `delta`: `+Size` / `-Size` / 0; `rise`: `max(delta, 0)`;
//! - `unlocks`: distinct successors whose only not-yet-run predecessor is `v`;
//! - `frees_after`: bytes released by the FREE nodes among those;
//! - `live_after`: memory after `v` runs. All ready nodes share the current
//!   memory, so ranking by `live_after` is ranking by `delta`; keys store it
//!   relative to the current memory, which keeps old heap entries exact.

use super::parse::{Feature, Key, Term};
use crate::graph::{analysis, Csr, Graph, NodeIdx};
use crate::rng::{gumbel_f64, unit_f64, Rng};
use rayon::prelude::*;
use std::sync::Arc;

/// Distinct successors and predecessors (duplicate edges merged once).
///
/// Borrows the graph's adjacency when it has no parallel edge (the usual
/// case, known from the graph), so building it is then free.
pub(super) struct Adj<'g> {
    g: &'g Graph,
    own: Option<(Csr, Csr)>,
}

impl<'g> Adj<'g> {
    /// # Complexity
    /// O(1) when the graph has no parallel edge, O(n + m) otherwise.
    pub fn new(g: &'g Graph) -> Self {
        if !g.has_parallel_edges() {
            return Adj { g, own: None };
        }
        let n = g.node_count();
        let mut seen = vec![u32::MAX; n];
        let mut pairs = Vec::with_capacity(g.edge_count());
        for u in g.nodes() {
            for &w in g.succs(u) {
                if seen[w as usize] != u {
                    seen[w as usize] = u;
                    pairs.push((u, w));
                }
            }
        }
        let succ = Csr::from_pairs(n, pairs.iter().copied());
        let pred = Csr::from_pairs(n, pairs.iter().map(|&(u, w)| (w, u)));
        Adj {
            g,
            own: Some((succ, pred)),
        }
    }

    /// Distinct successors of `v`.
    #[inline]
    pub fn succs(&self, v: NodeIdx) -> &[NodeIdx] {
        match &self.own {
            None => self.g.succs(v),
            Some((s, _)) => s.neighbors(v),
        }
    }

    /// The distinct successor rows.
    #[inline]
    pub fn succ_csr(&self) -> &Csr {
        match &self.own {
            None => self.g.succ_csr(),
            Some((s, _)) => s,
        }
    }

    /// Distinct predecessors of `v`.
    #[inline]
    pub fn preds(&self, v: NodeIdx) -> &[NodeIdx] {
        match &self.own {
            None => self.g.preds(v),
            Some((_, p)) => p.neighbors(v),
        }
    }
}

/// Seeded Gumbel noise added to a key's first term (`noisy:EXPR`).
#[derive(Debug, Clone, Copy)]
pub(super) struct Noise {
    pub seed: u64,
    pub scale: f64,
}

/// The per-graph tables a rule needs, and its seeds. The tables are
/// shared: [`Statics::reseeded`] gives another run (a restart of `noisy:`)
/// the same tables with its own seeds.
pub(super) struct Statics {
    depth: Arc<Column>,
    height: Arc<Column>,
    random_seed: u64,
    /// Each node's noise on the first term (`noisy:`): `scale` times a
    /// Gumbel sample, drawn once per run.
    noise: Option<Vec<f64>>,
}

/// A per-node table (`depth` or `height`) and its largest value, which the
/// key's bounds and the bucket queue read (empty when the key does not).
#[derive(Default)]
struct Column {
    values: Vec<u32>,
    max: u32,
}

impl Column {
    fn new(values: Vec<u32>) -> Self {
        let max = values.iter().copied().max().unwrap_or(0);
        Column { values, max }
    }
}

/// Salt so the `random` feature and the noise draw different streams.
const RANDOM_SALT: u64 = 0x7261_6e64_6f6d;

impl Statics {
    /// Precomputes the static tables `key` reads, and the noise.
    ///
    /// # Complexity
    /// O(n + m) for `depth` / `height`, O(n) for the noise; nothing otherwise.
    pub fn new(g: &Graph, key: &Key, seed: u64, noise: Option<Noise>) -> Self {
        Statics {
            depth: Arc::new(if key.uses(Feature::Depth) {
                Column::new(analysis::depths(g))
            } else {
                Column::default()
            }),
            height: Arc::new(if key.uses(Feature::Height) {
                Column::new(analysis::heights(g))
            } else {
                Column::default()
            }),
            random_seed: seed ^ RANDOM_SALT,
            noise: noise.map(|n| noise_column(g, n)),
        }
    }

    /// The same tables under another seed and noise, as `new` would build
    /// them with `seed` and `noise`.
    ///
    /// # Complexity
    /// O(1), and O(n) for the noise.
    pub fn reseeded(&self, g: &Graph, seed: u64, noise: Option<Noise>) -> Self {
        Statics {
            depth: Arc::clone(&self.depth),
            height: Arc::clone(&self.height),
            random_seed: seed ^ RANDOM_SALT,
            noise: noise.map(|n| noise_column(g, n)),
        }
    }

    /// Whether the first term carries noise (then it is a float word).
    pub fn noisy(&self) -> bool {
        self.noise.is_some()
    }

    /// Each node's noise on the first term, for a noisy rule.
    pub fn noise(&self) -> Option<&[f64]> {
        self.noise.as_deref()
    }

    /// The `depth` or `height` of every node and the largest of them, if
    /// the key reads it.
    pub fn column(&self, f: Feature) -> Option<(&[u32], u32)> {
        let column = match f {
            Feature::Depth => &self.depth,
            Feature::Height => &self.height,
            _ => return None,
        };
        (!column.values.is_empty()).then_some((column.values.as_slice(), column.max))
    }
}

/// Graphs from this many nodes draw their noise on rayon's threads.
const PARALLEL_NOISE_FROM: usize = 1 << 16;

/// Each node's noise under `n`: `scale` times a standard Gumbel sample drawn
/// from the seed and the node alone, so the values do not depend on the
/// order or the threads that draw them.
///
/// # Complexity
/// O(n), over rayon's threads on large graphs.
fn noise_column(g: &Graph, n: Noise) -> Vec<f64> {
    let draw = |v: usize| n.scale * gumbel_f64(Rng::derive_first(n.seed, v as u64));
    let count = g.node_count();
    if count < PARALLEL_NOISE_FROM {
        (0..count).map(draw).collect()
    } else {
        (0..count)
            .into_par_iter()
            .with_min_len(1 << 14)
            .map(draw)
            .collect()
    }
}

/// State-dependent feature values of one node or move, filled by the scheduler.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Dynamic {
    /// Net memory change (a node's delta, or a move's summed delta).
    pub delta: i64,
    /// Bytes allocated before the releasing node runs (`max(delta, 0)` for a node).
    pub rise: i64,
    pub unlocks: i64,
    pub frees_after: i64,
}

impl Dynamic {
    /// Node `v`'s values: its delta and rise, and its counters in `counts`
    /// (0 without).
    #[inline]
    pub(super) fn counted(g: &Graph, v: NodeIdx, counts: Option<&Unlocks>) -> Self {
        let delta = g.delta(v);
        let (unlocks, frees_after) = counts.map_or((0, 0), |c| {
            (c.unlocks[v as usize], c.frees_after[v as usize])
        });
        Dynamic {
            delta,
            rise: delta.max(0),
            unlocks,
            frees_after,
        }
    }

    /// Node `v`'s values: its delta and rise, and, given each node's count
    /// of predecessors not run yet (`pending`), the successors it would
    /// make ready and the bytes the FREEs among them release (else 0).
    pub(super) fn of_node(g: &Graph, adj: &Adj, v: NodeIdx, pending: Option<&[usize]>) -> Self {
        let delta = g.delta(v);
        let mut d = Dynamic {
            delta,
            rise: delta.max(0),
            ..Dynamic::default()
        };
        if let Some(pending) = pending {
            for &w in adj.succs(v) {
                if pending[w as usize] == 1 {
                    d.unlocks += 1;
                    if g.delta(w) < 0 {
                        d.frees_after += g.size(w) as i64;
                    }
                }
            }
        }
        d
    }
}

/// `unlocks` and `frees_after` of every node, kept current as nodes run
/// (by the list scheduler and the trace): a node is credited when it
/// becomes the only unrun predecessor of a successor.
pub(super) struct Unlocks {
    unlocks: Vec<i64>,
    frees_after: Vec<i64>,
}

impl Unlocks {
    /// All counters at 0, for `n` nodes.
    pub(super) fn new(n: usize) -> Self {
        Unlocks {
            unlocks: vec![0; n],
            frees_after: vec![0; n],
        }
    }

    /// `w` is down to one unrun predecessor, `x`: credit `x`.
    #[inline]
    pub(super) fn credit(&mut self, g: &Graph, w: NodeIdx, x: NodeIdx) {
        self.unlocks[x as usize] += 1;
        if g.delta(w) < 0 {
            self.frees_after[x as usize] += g.size(w) as i64;
        }
    }
}

enum Val {
    I(i64),
    F(f64),
}

impl Val {
    fn f(self) -> f64 {
        match self {
            Val::I(x) => x as f64,
            Val::F(x) => x,
        }
    }
}

#[inline]
fn value(g: &Graph, adj: &Adj, s: &Statics, f: Feature, v: NodeIdx, d: &Dynamic) -> Val {
    let i = v as usize;
    Val::I(match f {
        Feature::Delta | Feature::LiveAfter => d.delta,
        Feature::Rise => d.rise,
        Feature::Type => g.kind(v).type_code() as i64,
        Feature::Id => g.id(v),
        Feature::Size => g.size(v) as i64,
        Feature::InDegree => adj.preds(v).len() as i64,
        Feature::OutDegree => adj.succs(v).len() as i64,
        Feature::Depth => s.depth.values[i] as i64,
        Feature::Height => s.height.values[i] as i64,
        Feature::Unlocks => d.unlocks,
        Feature::FreesAfter => d.frees_after,
        Feature::Latency => return Val::F(g.latency(v)),
        Feature::Random => return Val::F(unit_f64(Rng::derive_first(s.random_seed, v as u64))),
    })
}

/// A feature's value as a float (what a float sum multiplies).
#[inline]
pub(super) fn float_value(
    g: &Graph,
    adj: &Adj,
    s: &Statics,
    f: Feature,
    v: NodeIdx,
    d: &Dynamic,
) -> f64 {
    value(g, adj, s, f, v, d).f()
}

/// An integer feature's value.
#[inline]
pub(super) fn int_value(
    g: &Graph,
    adj: &Adj,
    s: &Statics,
    f: Feature,
    v: NodeIdx,
    d: &Dynamic,
) -> i64 {
    match value(g, adj, s, f, v, d) {
        Val::I(x) => x,
        Val::F(_) => unreachable!("integer terms hold integer features"),
    }
}

pub(super) use crate::solvers::enc_int;

/// An f64 as a word that compares like the float (total order; -0 < +0).
#[inline]
pub(super) fn enc_float(x: f64) -> u64 {
    let b = x.to_bits();
    if b >> 63 == 1 {
        !b
    } else {
        b | (1 << 63)
    }
}

/// Number of words of an encoded key: one per term, then id, then index.
pub(super) fn stride(key: &Key) -> usize {
    key.terms.len() + 2
}

/// Writes the key of node (or move target) `v` into `out` (`stride` words):
/// the terms, then the id and the index, so ties are broken by id then index.
#[inline]
pub(super) fn encode(
    g: &Graph,
    adj: &Adj,
    s: &Statics,
    key: &Key,
    v: NodeIdx,
    d: &Dynamic,
    out: &mut [u64],
) {
    encode_terms(g, adj, s, key, v, d, out);
    let n = key.terms.len();
    out[n] = enc_int(g.id(v));
    out[n + 1] = v as u64;
}

/// Writes one word per term of the key of `v` into `out[..terms]`; each word
/// compares like the term's value.
#[inline]
pub(super) fn encode_terms(
    g: &Graph,
    adj: &Adj,
    s: &Statics,
    key: &Key,
    v: NodeIdx,
    d: &Dynamic,
    out: &mut [u64],
) {
    for (t, (term, slot)) in key.terms.iter().zip(out.iter_mut()).enumerate() {
        *slot = encode_term(g, adj, s, t, term, v, d);
    }
}

/// The word of term number `t` (`term`) of the key of `v`: it compares like
/// the term's value (plus the noise, on the first term of a noisy rule).
#[inline]
pub(super) fn encode_term(
    g: &Graph,
    adj: &Adj,
    s: &Statics,
    t: usize,
    term: &Term,
    v: NodeIdx,
    d: &Dynamic,
) -> u64 {
    let noise = match (t, &s.noise) {
        (0, Some(column)) => Some(column[v as usize]),
        _ => None,
    };
    match term {
        Term::Int(sum) => {
            let x = int_term(g, adj, s, sum, v, d);
            match noise {
                None => enc_int(x),
                Some(e) => enc_float(x as f64 + e),
            }
        }
        Term::Float(sum) => enc_float(float_term(g, adj, s, sum, v, d) + noise.unwrap_or(0.0)),
    }
}

/// The value of an integer term (`sum`) for `v`: exact, saturating at the
/// bounds of `i64`.
#[inline]
pub(super) fn int_term(
    g: &Graph,
    adj: &Adj,
    s: &Statics,
    sum: &[(i64, Feature)],
    v: NodeIdx,
    d: &Dynamic,
) -> i64 {
    match sum {
        // The common case: one feature, ascending.
        [(1, f)] => int_value(g, adj, s, *f, v, d),
        _ => sum.iter().fold(0i64, |acc, &(w, f)| {
            acc.saturating_add(w.saturating_mul(int_value(g, adj, s, f, v, d)))
        }),
    }
}

/// The value of a float term (`sum`) for `v`.
#[inline]
pub(super) fn float_term(
    g: &Graph,
    adj: &Adj,
    s: &Statics,
    sum: &[(f64, Feature)],
    v: NodeIdx,
    d: &Dynamic,
) -> f64 {
    sum.iter()
        .map(|&(w, f)| w * float_value(g, adj, s, f, v, d))
        .sum()
}

/// Mean absolute value of the first term over all nodes, with node-mode
/// values at the start state (`unlocks` and `frees_after` as if nothing had
/// run): the scale of `noisy:EXPR`'s Gumbel noise (1 if that mean is 0).
///
/// # Complexity
/// O(n + m).
pub(super) fn noise_scale(g: &Graph, adj: &Adj, key: &Key, s: &Statics) -> f64 {
    let dynamic = key.is_dynamic();
    let Some(first) = key.terms.first() else {
        return 1.0;
    };
    let n = g.node_count().max(1) as f64;
    // A first term of one integer feature with a column (none of them
    // reads the state): its values read straight from the column, the same
    // numbers in the same order as the general path below, so the same sum
    // bit for bit (a test checks).
    if let Term::Int(sum) = first {
        if let &[(w, f)] = sum.as_slice() {
            let w = w as f64;
            let weighted = |x: f64| w * x;
            match f {
                Feature::Delta | Feature::LiveAfter => {
                    return abs_mean(g.deltas().iter().map(|&d| weighted(d as f64)), n);
                }
                Feature::Id => {
                    return abs_mean(g.ids().iter().map(|&id| weighted(id as f64)), n);
                }
                Feature::Depth | Feature::Height => {
                    if let Some((column, _)) = s.column(f) {
                        let values = column.iter().map(|&c| weighted(c as i64 as f64));
                        return abs_mean(values, n);
                    }
                }
                _ => {}
            }
        }
    }
    general_noise_scale(g, adj, first, dynamic, s)
}

/// [`noise_scale`] of a first term `first` through [`value`], node by node
/// (`dynamic`: the key reads the state, so `unlocks` and `frees_after` are
/// filled in).
///
/// # Complexity
/// O(n + m).
fn general_noise_scale(g: &Graph, adj: &Adj, first: &Term, dynamic: bool, s: &Statics) -> f64 {
    let n = g.node_count().max(1) as f64;
    let pending: Vec<usize> = if dynamic {
        g.nodes().map(|v| adj.preds(v).len()).collect()
    } else {
        Vec::new()
    };
    let values = g.nodes().map(|v| {
        let d = Dynamic::of_node(g, adj, v, dynamic.then_some(pending.as_slice()));
        match first {
            Term::Int(sum) => sum
                .iter()
                .map(|&(w, f)| w as f64 * value(g, adj, s, f, v, &d).f())
                .sum::<f64>(),
            Term::Float(sum) => sum
                .iter()
                .map(|&(w, f)| w * value(g, adj, s, f, v, &d).f())
                .sum(),
        }
    });
    abs_mean(values, n)
}

/// The mean absolute value of `values` (`n` of them), as [`noise_scale`]
/// takes it: summed whole (as before, so scales do not move), and divided
/// first for when the whole sum overflows (every value is finite: the
/// parser checks; their sum need not be). 1 when the mean is 0 or not
/// finite.
fn abs_mean(values: impl Iterator<Item = f64>, n: f64) -> f64 {
    let (mut total, mut total_over_n) = (0.0, 0.0);
    for x in values {
        total += x.abs();
        total_over_n += x.abs() / n;
    }
    let mean = if total.is_finite() {
        total / n
    } else {
        total_over_n
    };
    if mean > 0.0 && mean.is_finite() {
        mean
    } else {
        1.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encodings_preserve_order() {
        let ints = [i64::MIN, -5, -1, 0, 1, 7, i64::MAX];
        for w in ints.windows(2) {
            assert!(enc_int(w[0]) < enc_int(w[1]));
        }
        let floats = [
            f64::NEG_INFINITY,
            -3.5,
            -1e-300,
            0.0,
            1e-300,
            2.0,
            f64::INFINITY,
        ];
        for w in floats.windows(2) {
            assert!(enc_float(w[0]) < enc_float(w[1]), "{} {}", w[0], w[1]);
        }
    }

    /// A first term whose mean is finite but whose sum over the nodes is
    /// not still scales the noise by its mean (it fell back to 1, and the
    /// noise vanished beside keys of 1e305).
    #[test]
    fn column_noise_scales_are_the_general_ones_bit_for_bit() {
        let spec = crate::corpus::gen::GenSpec::parse("random-layered:layers=12,width=4").unwrap();
        let g = crate::corpus::gen::generate(&spec, 5).unwrap();
        let adj = Adj::new(&g);
        let rules = [
            "delta,type,id",
            "-3*delta,id",
            "live_after",
            "id",
            "-7*id,delta",
            "depth,delta",
            "-2*height,id",
            "delta,-unlocks",
        ];
        for rule in rules {
            let key = super::super::parse::parse(rule).unwrap();
            let s = Statics::new(&g, &key, 1, None);
            let fast = noise_scale(&g, &adj, &key, &s);
            let general = general_noise_scale(&g, &adj, &key.terms[0], key.is_dynamic(), &s);
            assert_eq!(fast.to_bits(), general.to_bits(), "{rule}");
            assert!(fast > 1.0, "{rule}: a real scale, not the fallback");
        }
    }

    #[test]
    fn the_noise_scale_survives_an_overflowing_sum() {
        let nodes: Vec<String> = (0..1000)
            .map(|i| format!(r#"{{"Id": {}, "Op": "op"}}"#, (1i64 << 62) + i))
            .collect();
        let json = format!(r#"{{"Nodes": [{}], "Edges": []}}"#, nodes.join(","));
        let g = Graph::from_raw(crate::graph::seed::parse(json.as_bytes()).unwrap()).unwrap();
        let key = crate::solvers::rule::parse("1e287*id,id").unwrap();
        crate::solvers::rule::check_noise_room(&key).unwrap();
        let s = Statics::new(&g, &key, 0, None);
        let scale = noise_scale(&g, &Adj::new(&g), &key, &s);
        let expected = 1e287 * (1i64 << 62) as f64;
        assert!((scale / expected - 1.0).abs() < 1e-9, "{scale:e}");
    }
}
