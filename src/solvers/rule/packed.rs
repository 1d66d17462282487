//! Keys packed into one integer (`u64` or `u128`, see [`KeyInt`]), for rules
//! whose terms have known ranges.
//!
//! A key's words (see [`super::features::encode_terms`]) compare like its terms. When every
//! term's word lies in a known range `base..base + 2^width`, the key is the
//! concatenation of `word - base` over the terms, most significant first,
//! followed by the rank of the node's id. Integer comparison of packed keys
//! is then exactly the comparison of the word keys with ties broken by id
//! (ids are unique, so the node index never decides), and the node is read
//! back from the rank. Most rules fit: a feature's range comes from the
//! graph (deltas, degrees, depths...), float terms take 64 bits. In move
//! mode a move's `delta` and `rise` range up to the sum of all positive
//! deltas (everything a move could pull).

#[cfg(test)]
use super::features::encode_terms;
use super::features::{
    enc_float, enc_int, encode_term, float_value, int_value, Adj, Dynamic, Statics,
};
use super::parse::{Feature, Key, Term};
use super::queue::KeyCtx;
use crate::graph::{Graph, NodeIdx};

/// Most terms a packed key holds (longer rules use the word arena).
const MAX_TERMS: usize = 8;

/// What a key ranks: ready nodes (`rule:`) or moves (`moves:`), where
/// `delta`, `live_after` and `rise` are those of the move.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Mode {
    Nodes,
    Moves,
}

/// How keys of one rule on one graph are packed.
pub(super) struct Packed {
    /// Per term, most significant first: the smallest word and the bit width.
    fields: Vec<(u64, u32)>,
    /// The terms whose value depends on the state in this mode.
    dynamic: Vec<DynamicTerm>,
    /// Re-keying can only lower a key ([`rekeying_only_lowers`]).
    falling: bool,
    rank_bits: u32,
    /// Bits of a whole key (every field and the rank).
    total_bits: u32,
    /// Node -> rank of its id; `None` when ids are `0..n` in program order.
    rank: Option<Vec<u32>>,
    /// Rank -> node; `None` as for `rank`.
    by_rank: Option<Vec<NodeIdx>>,
}

/// A term whose value depends on the state: filled in at each push.
struct DynamicTerm {
    /// Its index among the key's terms.
    t: usize,
    /// The shift of its field in the key.
    shift: u32,
    /// `w * feature` for a term of one integer feature `Dynamic` holds
    /// (no noise): computed directly rather than by [`encode_term`].
    single: Option<(i64, Feature)>,
}

impl DynamicTerm {
    /// The term's word in the state `d`, as [`encode_term`] gives it.
    #[inline]
    fn word(&self, r: &KeyCtx, v: NodeIdx, d: &Dynamic) -> u64 {
        let Some((w, f)) = self.single else {
            return encode_term(r.g, r.adj, r.statics, self.t, &r.key.terms[self.t], v, d);
        };
        let x = match f {
            Feature::Delta | Feature::LiveAfter => d.delta,
            Feature::Rise => d.rise,
            Feature::Unlocks => d.unlocks,
            Feature::FreesAfter => d.frees_after,
            // `layout` keeps no other feature here; were it to, the
            // general path is still right.
            _ => return encode_term(r.g, r.adj, r.statics, self.t, &r.key.terms[self.t], v, d),
        };
        enc_int(w.saturating_mul(x))
    }
}

/// The integer a packed key is held in: `u64` when the key's fields and the
/// id rank fit in 63 bits (half the memory of a `u128`, cheaper to compare
/// and sort), else `u128`. The type's largest value is never a key: queues
/// use it as a marker.
pub(super) trait KeyInt: Copy + Ord + Send + Sync + std::fmt::Debug + 'static {
    /// The largest value (never a key).
    const MAX: Self;
    /// The low bits of `k` (the caller knows the key fits).
    fn from_u128(k: u128) -> Self;
    /// The key widened to a `u128`.
    fn to_u128(self) -> u128;
}

impl KeyInt for u64 {
    const MAX: u64 = u64::MAX;
    #[inline(always)]
    fn from_u128(k: u128) -> u64 {
        k as u64
    }
    #[inline(always)]
    fn to_u128(self) -> u128 {
        self as u128
    }
}

impl KeyInt for u128 {
    const MAX: u128 = u128::MAX;
    #[inline(always)]
    fn from_u128(k: u128) -> u128 {
        k
    }
    #[inline(always)]
    fn to_u128(self) -> u128 {
        self
    }
}

/// Bits needed to hold `0..=range`.
fn bits(range: u128) -> u32 {
    128 - range.leading_zeros()
}

/// Whether feature `f` depends on the state (what has run) in `mode`.
fn state_dependent(f: Feature, mode: Mode) -> bool {
    f.is_dynamic()
        || (mode == Mode::Moves && matches!(f, Feature::Delta | Feature::LiveAfter | Feature::Rise))
}

/// Whether re-keying can only lower a key of `key` in `mode`: each term
/// reads what changes while a node or move waits only in the direction
/// that lowers it. `unlocks` and `frees_after` only grow (weights of at
/// most 0); in move mode a move's closure only shrinks, so its `delta`,
/// `rise` and `live_after` only fall (weights of at least 0). A saturated
/// or rounded sum of such parts is monotone too, and so is the
/// lexicographic key.
pub(super) fn rekeying_only_lowers(key: &Key, mode: Mode) -> bool {
    let lowers = |w: f64, f: Feature| match (state_dependent(f, mode), f.is_dynamic()) {
        (false, _) => true,
        (true, true) => w <= 0.0,
        (true, false) => w >= 0.0,
    };
    key.terms.iter().all(|t| match t {
        Term::Int(sum) => sum.iter().all(|&(w, f)| lowers(w as f64, f)),
        Term::Float(sum) => sum.iter().all(|&(w, f)| lowers(w, f)),
    })
}

/// Node-mode features of `v` that do not depend on the state.
fn static_dynamic(g: &Graph, v: NodeIdx) -> Dynamic {
    let delta = g.delta(v);
    Dynamic {
        delta,
        rise: delta.max(0),
        ..Dynamic::default()
    }
}

/// Smallest and largest value `f` takes on any node (or move) at any point
/// of a run; `pulled` is the sum of all positive deltas.
///
/// # Complexity
/// O(n + m).
fn feature_bounds(
    g: &Graph,
    adj: &Adj,
    s: &Statics,
    f: Feature,
    mode: Mode,
    pulled: i64,
) -> (i64, i64) {
    let span = |values: &mut dyn Iterator<Item = i64>| {
        values.fold((i64::MAX, i64::MIN), |(lo, hi), x| (lo.min(x), hi.max(x)))
    };
    match f {
        // A move's own delta (<= 0) plus what it pulls (>= 0).
        Feature::Delta | Feature::LiveAfter if mode == Mode::Moves => {
            (span(&mut g.deltas().iter().copied()).0.min(0), pulled)
        }
        Feature::Rise if mode == Mode::Moves => (0, pulled),
        Feature::Unlocks => {
            let most = g.nodes().map(|v| adj.succs(v).len()).max().unwrap_or(0);
            (0, most as i64)
        }
        // At most every byte any FREE releases.
        Feature::FreesAfter => (
            0,
            g.deltas()
                .iter()
                .filter(|&&d| d < 0)
                .fold(0i64, |acc, &d| acc.saturating_add(d.saturating_neg())),
        ),
        Feature::Delta | Feature::LiveAfter => span(&mut g.deltas().iter().copied()),
        // FREE 0, compute 1, ALLOC 2: a bound rather than the span, which
        // would cost a pass through `int_value` per node (2-3 ms on 1M nodes).
        Feature::Type => (0, 2),
        Feature::Rise => span(&mut g.deltas().iter().map(|&d| d.max(0))),
        Feature::Id => span(&mut g.ids().iter().copied()),
        // Read the column directly (a DAG has a source and a sink: both
        // start at 0).
        Feature::Depth | Feature::Height if s.column(f).is_some() => {
            (0, s.column(f).map_or(0, |(_, max)| max as i64))
        }
        _ => span(
            &mut g
                .nodes()
                .map(|v| int_value(g, adj, s, f, v, &static_dynamic(g, v))),
        ),
    }
}

/// Range of a weighted integer sum, evaluated as `encode_terms` does
/// (saturating multiply and add are monotone, so the ends bound it).
fn sum_bounds(
    g: &Graph,
    adj: &Adj,
    s: &Statics,
    sum: &[(i64, Feature)],
    mode: Mode,
    pulled: i64,
) -> (i64, i64) {
    sum.iter().fold((0i64, 0i64), |(lo, hi), &(w, f)| {
        let (a, b) = feature_bounds(g, adj, s, f, mode, pulled);
        let (x, y) = (w.saturating_mul(a), w.saturating_mul(b));
        (lo.saturating_add(x.min(y)), hi.saturating_add(x.max(y)))
    })
}

/// The most bytes a move can pull in `mode`: the sum of all positive
/// deltas in move mode (what bounds a move's `delta` and `rise`), 0 in
/// node mode, which does not read it; `None` past an `i64`.
fn pulled_bytes(g: &Graph, mode: Mode) -> Option<i64> {
    match mode {
        Mode::Nodes => Some(0),
        Mode::Moves => g
            .deltas()
            .iter()
            .filter(|&&d| d > 0)
            .try_fold(0i64, |acc, &d| acc.checked_add(d)),
    }
}

/// Says which integer terms of `key` pass the range of an `i64` on `g` in
/// `mode` (a weight times a feature's largest value, or a partial sum):
/// their values saturate there and tie, so the ranking is not the weighted
/// sum's (docs/rules.md). `None` when none does.
///
/// # Complexity
/// O(n + m) per weighted or summed integer term (the features' bounds);
/// nothing for terms of one feature at weight 1, or -1 but on `id`.
pub(super) fn saturation_note(
    g: &Graph,
    adj: &Adj,
    s: &Statics,
    key: &Key,
    mode: Mode,
) -> Option<String> {
    // Past an `i64` every weighted term passes it anyway.
    let pulled = pulled_bytes(g, mode).unwrap_or(i64::MAX);
    let fits = |sum: &[(i64, Feature)]| {
        sum.iter().try_fold((0i64, 0i64), |(lo, hi), &(w, f)| {
            let (a, b) = feature_bounds(g, adj, s, f, mode, pulled);
            let (x, y) = (w.checked_mul(a)?, w.checked_mul(b)?);
            Some((lo.checked_add(x.min(y))?, hi.checked_add(x.max(y))?))
        })
    };
    // One feature at weight 1 cannot pass it (a feature's values are
    // `i64`s), nor at -1 but `id` (the one feature that can be -2^63): only
    // weighted or summed terms and `-id` are scanned, so the common rules
    // pay nothing.
    let may_pass = |sum: &[(i64, Feature)]| match sum {
        [(1, _)] => false,
        [(-1, f)] => *f == Feature::Id,
        _ => true,
    };
    let texts = key.term_texts();
    let saturated: Vec<String> = key
        .terms
        .iter()
        .enumerate()
        .filter(|(_, term)| matches!(term, Term::Int(sum) if may_pass(sum) && fits(sum).is_none()))
        .map(|(t, _)| format!("`{}`", texts.get(t).copied().unwrap_or("?")))
        .collect();
    (!saturated.is_empty()).then(|| {
        format!(
            "term(s) {} pass the range of a 64-bit integer on this graph: their values \
             saturate there and tie (docs/rules.md)",
            saturated.join(", ")
        )
    })
}

/// The word of a static float sum for every node, equal to what
/// [`encode_term`] gives: each node's terms are added in order, then `0.0`
/// as the absent noise is. (`Iterator::sum` starts from `-0.0`, this from
/// `0.0`: the two differ only on a sum of `-0.0`s, which that last `+ 0.0`
/// turns into `0.0` either way.)
///
/// # Complexity
/// O(n · terms), one sequential pass per term.
fn float_sum_words(g: &Graph, adj: &Adj, s: &Statics, sum: &[(f64, Feature)]) -> Vec<u64> {
    let mut acc = vec![0.0f64; g.node_count()];
    for &(w, f) in sum {
        match f {
            Feature::Latency => {
                for (v, a) in (0..).zip(acc.iter_mut()) {
                    *a += w * g.latency(v);
                }
            }
            Feature::Delta | Feature::LiveAfter => {
                for (a, &d) in acc.iter_mut().zip(g.deltas()) {
                    *a += w * d as f64;
                }
            }
            _ => {
                for (v, a) in (0..).zip(acc.iter_mut()) {
                    *a += w * float_value(g, adj, s, f, v, &static_dynamic(g, v));
                }
            }
        }
    }
    acc.into_iter().map(|x| enc_float(x + 0.0)).collect()
}

/// The words of term `t` for every node when it is the noisy first term
/// of a `noisy:` rule and reads one static integer feature with a column
/// (`delta`, `type`, `id`, `depth`, `height`), equal to what
/// [`encode_term`] gives; `None` otherwise.
///
/// # Complexity
/// O(n), one sequential pass.
fn noisy_int_words(g: &Graph, s: &Statics, t: usize, term: &Term) -> Option<Vec<u64>> {
    let noise = s.noise().filter(|_| t == 0)?;
    let Term::Int(sum) = term else {
        return None;
    };
    let &[(w, f)] = sum.as_slice() else {
        return None;
    };
    // `encode_term`: the weighted value, saturated, as a float, plus the noise.
    let word = |x: i64, e: f64| enc_float(w.saturating_mul(x) as f64 + e);
    let words = match f {
        Feature::Delta | Feature::LiveAfter => g
            .deltas()
            .iter()
            .zip(noise)
            .map(|(&d, &e)| word(d, e))
            .collect(),
        Feature::Id => g
            .ids()
            .iter()
            .zip(noise)
            .map(|(&id, &e)| word(id, e))
            .collect(),
        Feature::Type => (0..)
            .zip(noise)
            .map(|(v, &e)| word(g.kind(v).type_code() as i64, e))
            .collect(),
        Feature::Depth | Feature::Height => {
            let (column, _) = s.column(f)?;
            column
                .iter()
                .zip(noise)
                .map(|(&c, &e)| word(c as i64, e))
                .collect()
        }
        _ => return None,
    };
    Some(words)
}

impl Packed {
    /// The packing of `key` in `mode` on `g`, or `None` if its terms and
    /// the id rank need more than 127 bits (`u128::MAX` stays free as a
    /// marker), or if the positive deltas overflow an i64 in move mode.
    ///
    /// # Complexity
    /// O((n + m) · features read).
    pub fn layout(g: &Graph, adj: &Adj, s: &Statics, key: &Key, mode: Mode) -> Option<Packed> {
        if key.terms.len() > MAX_TERMS || g.node_count() == 0 {
            return None;
        }
        let pulled = pulled_bytes(g, mode)?;
        let mut fields = Vec::with_capacity(key.terms.len());
        for (t, term) in key.terms.iter().enumerate() {
            fields.push(match term {
                Term::Int(sum) if !(t == 0 && s.noisy()) => {
                    let (lo, hi) = sum_bounds(g, adj, s, sum, mode, pulled);
                    let base = super::features::enc_int(lo);
                    (base, bits((hi as i128 - lo as i128) as u128))
                }
                _ => (0, 64),
            });
        }
        // A last term `id` orders nodes exactly as the id rank that ends
        // every key does (ids are unique), so it takes no bits.
        if let Some(last) = key.terms.len().checked_sub(1) {
            if key.terms[last] == Term::Int(vec![(1, Feature::Id)]) && !(last == 0 && s.noisy()) {
                fields[last] = (0, 0);
            }
        }
        let rank_bits = bits(g.node_count() as u128 - 1);
        let total: u32 = fields.iter().map(|&(_, w)| w).sum::<u32>() + rank_bits;
        if total > 127 {
            return None;
        }
        let by_rank = g.indices_by_id();
        let rank = by_rank.as_ref().map(|by_rank| {
            let mut rank = vec![0u32; by_rank.len()];
            for (r, &v) in by_rank.iter().enumerate() {
                rank[v as usize] = r as u32;
            }
            rank
        });
        let mut shift = rank_bits;
        let mut dynamic = Vec::new();
        for (t, term) in key.terms.iter().enumerate().rev() {
            if term.features().any(|f| state_dependent(f, mode)) {
                let single = match term {
                    Term::Int(sum) if !(t == 0 && s.noisy()) => match sum.as_slice() {
                        &[(w, f)] if state_dependent(f, mode) => Some((w, f)),
                        _ => None,
                    },
                    _ => None,
                };
                dynamic.push(DynamicTerm { t, shift, single });
            }
            shift += fields[t].1;
        }
        Some(Packed {
            fields,
            dynamic,
            falling: rekeying_only_lowers(key, mode),
            rank_bits,
            total_bits: total,
            rank,
            by_rank,
        })
    }

    /// The packed key of `v` with feature values `d`, from scratch.
    #[cfg(test)]
    pub fn pack(
        &self,
        g: &Graph,
        adj: &Adj,
        s: &Statics,
        key: &Key,
        v: NodeIdx,
        d: &Dynamic,
    ) -> u128 {
        let mut words = [0u64; MAX_TERMS];
        encode_terms(g, adj, s, key, v, d, &mut words);
        let mut k: u128 = 0;
        for (&word, &(base, width)) in words.iter().zip(&self.fields) {
            if width == 0 {
                continue; // a constant term, or a last `id` (the rank orders it)
            }
            let field = word.wrapping_sub(base) as u128;
            debug_assert!(bits(field) <= width, "term word outside its range");
            k = (k << width) | field;
        }
        (k << self.rank_bits) | self.rank_of(v) as u128
    }

    /// Whether some term depends on the state (then keys change as nodes
    /// run and each key is completed by [`Packed::with_state`]).
    pub fn has_dynamic_terms(&self) -> bool {
        !self.dynamic.is_empty()
    }

    /// Whether re-keying can only lower a key ([`rekeying_only_lowers`]).
    pub fn rekeying_only_lowers(&self) -> bool {
        self.falling
    }

    /// Every node's key with the state-dependent terms left at zero: the
    /// whole key when there are none. Built one term at a time, so each
    /// pass over the nodes reads one feature.
    ///
    /// # Complexity
    /// O(n · terms).
    pub fn static_keys<K: KeyInt>(&self, g: &Graph, adj: &Adj, s: &Statics, key: &Key) -> Vec<K> {
        debug_assert!(self.total_bits < K::MAX.to_u128().count_ones());
        let mut keys = vec![K::from_u128(0); g.node_count()];
        for (t, (term, &(base, width))) in key.terms.iter().zip(&self.fields).enumerate() {
            if width == 0 {
                continue; // a constant term, or a last `id` (the rank orders it)
            }
            let shift = |k: &mut K, word: u64| {
                *k = K::from_u128((k.to_u128() << width) | word.wrapping_sub(base) as u128)
            };
            if self.dynamic.iter().any(|d| d.t == t) {
                keys.iter_mut()
                    .for_each(|k| *k = K::from_u128(k.to_u128() << width));
                continue;
            }
            // One feature without noise: read its column directly.
            let single = match term {
                Term::Int(sum) if !(t == 0 && s.noisy()) => match sum.as_slice() {
                    [(w, f)] => Some((*w, *f)),
                    _ => None,
                },
                _ => None,
            };
            // The noisy first term of one integer feature: its column plus
            // the noise, as `encode_term` adds them.
            if let Some(words) = noisy_int_words(g, s, t, term) {
                for (k, word) in keys.iter_mut().zip(words) {
                    shift(k, word);
                }
                continue;
            }
            // A float sum without noise: one pass per feature into a column
            // of partial sums, added in the order `encode_term` adds them.
            if let Term::Float(sum) = term {
                if !(t == 0 && s.noisy()) {
                    let words = float_sum_words(g, adj, s, sum);
                    for (k, word) in keys.iter_mut().zip(words) {
                        shift(k, word);
                    }
                    continue;
                }
            }
            // `depth` or `height`, under any weight.
            if let Some((w, (column, _))) = single.and_then(|(w, f)| Some((w, s.column(f)?))) {
                for (k, &c) in keys.iter_mut().zip(column) {
                    shift(k, enc_int(w.saturating_mul(c as i64)));
                }
                continue;
            }
            match single.filter(|&(w, _)| w == 1).map(|(_, f)| f) {
                Some(Feature::Delta | Feature::LiveAfter) => {
                    for (k, &d) in keys.iter_mut().zip(g.deltas()) {
                        shift(k, enc_int(d));
                    }
                }
                Some(Feature::Id) => {
                    for (k, &id) in keys.iter_mut().zip(g.ids()) {
                        shift(k, enc_int(id));
                    }
                }
                Some(Feature::Type) => {
                    for (v, k) in (0..).zip(keys.iter_mut()) {
                        shift(k, enc_int(g.kind(v).type_code() as i64));
                    }
                }
                _ => {
                    for (v, k) in (0..).zip(keys.iter_mut()) {
                        shift(k, encode_term(g, adj, s, t, term, v, &static_dynamic(g, v)));
                    }
                }
            }
        }
        for (v, k) in (0..).zip(keys.iter_mut()) {
            *k = K::from_u128((k.to_u128() << self.rank_bits) | self.rank_of(v) as u128);
        }
        keys
    }

    /// Whether whole keys fit in a `u64` (63 bits: the largest value stays a
    /// marker).
    pub fn fits_u64(&self) -> bool {
        self.total_bits < u64::BITS
    }

    /// The key of `v` in the state `d` describes, from its static part
    /// (`static_key`, from [`Packed::static_keys`]).
    #[inline]
    pub fn with_state<K: KeyInt>(&self, static_key: K, r: &KeyCtx, v: NodeIdx, d: &Dynamic) -> K {
        let mut k = static_key.to_u128();
        for term in &self.dynamic {
            let word = term.word(r, v, d);
            let (base, width) = self.fields[term.t];
            let field = word.wrapping_sub(base) as u128;
            debug_assert!(bits(field) <= width, "term word outside its range");
            k |= field << term.shift;
        }
        K::from_u128(k)
    }

    /// Bits below the first term's field: the other terms and the id rank.
    pub fn bits_after_first(&self) -> u32 {
        let rest: u32 = self.fields.iter().skip(1).map(|&(_, w)| w).sum();
        rest + self.rank_bits
    }

    /// The rank of `v`'s id among all ids (the key's last field).
    #[inline]
    fn rank_of(&self, v: NodeIdx) -> u32 {
        self.rank.as_ref().map_or(v, |r| r[v as usize])
    }

    /// The node whose packed key is `k`.
    #[inline]
    pub fn node<K: KeyInt>(&self, k: K) -> NodeIdx {
        let k = k.to_u128();
        let rank = (k & ((1u128 << self.rank_bits) - 1)) as u32;
        self.by_rank.as_ref().map_or(rank, |t| t[rank as usize])
    }
}

#[cfg(test)]
mod tests {
    use super::super::features::{encode, stride};
    use super::super::parse::parse;
    use super::*;
    use crate::corpus::gen::{generate, GenSpec};

    /// A graph whose ids are neither dense nor in program order, with
    /// latencies of both signs (and none) on its nodes.
    fn scrambled(spec: &str) -> Graph {
        let g = generate(&GenSpec::parse(spec).unwrap(), 4).unwrap();
        let mut raw = g.to_raw();
        raw.nodes.reverse();
        let n = raw.nodes.len() as i64;
        let new_id = |id: i64| (id * 7919) % (n + 13) * 3 - 50;
        for node in &mut raw.nodes {
            node.id = new_id(node.id);
            if node.id % 4 != 0 {
                let latency = serde_json::json!((node.id % 9) as f64 * 0.37 - 1.0);
                node.extra
                    .get_or_insert_with(Default::default)
                    .insert("Latency".into(), latency);
            }
        }
        for e in &mut raw.edges {
            *e = (new_id(e.0), new_id(e.1));
        }
        Graph::from_raw(raw).unwrap()
    }

    /// Packed keys sort nodes exactly as the word keys do, and name the node.
    #[test]
    fn packed_order_is_word_order() {
        let graphs = [
            generate(
                &GenSpec::parse("random-layered:layers=30,width=4,allocs=floating").unwrap(),
                2,
            )
            .unwrap(),
            scrambled("random-layered:layers=20,width=3"),
        ];
        let rules = [
            "delta,type,id",
            "-height,delta,id",
            "0.7*delta+0.3*latency,id",
            "-unlocks,-frees_after,delta,id",
            "live_after,random",
            "2*depth-3*size+out_degree,-id,rise",
            "-0.5*latency+0.25*random-1.5*depth,id",
            "0*delta-0.3*latency,type,id",
        ];
        for g in &graphs {
            let adj = Adj::new(g);
            for rule in rules {
                let key = parse(rule).unwrap();
                let s = Statics::new(g, &key, 5, None);
                let packed = Packed::layout(g, &adj, &s, &key, Mode::Nodes).expect("rule fits");
                let d = |v: NodeIdx| Dynamic {
                    unlocks: (v % 3) as i64,
                    frees_after: (v % 5) as i64 * 1000,
                    ..static_dynamic(g, v)
                };
                let mut by_words: Vec<(Vec<u64>, NodeIdx)> = g
                    .nodes()
                    .map(|v| {
                        let mut w = vec![0; stride(&key)];
                        encode(g, &adj, &s, &key, v, &d(v), &mut w);
                        (w, v)
                    })
                    .collect();
                by_words.sort();
                let statics = packed.static_keys::<u128>(g, &adj, &s, &key);
                let ctx = KeyCtx {
                    g,
                    adj: &adj,
                    statics: &s,
                    key: &key,
                };
                let mut by_packed: Vec<u128> = g
                    .nodes()
                    .map(|v| {
                        let k = packed.pack(g, &adj, &s, &key, v, &d(v));
                        let base = statics[v as usize];
                        let split = packed.with_state(base, &ctx, v, &d(v));
                        assert_eq!(split, k, "{rule}: static part + state = whole key");
                        k
                    })
                    .collect();
                by_packed.sort_unstable();
                let a: Vec<NodeIdx> = by_words.iter().map(|&(_, v)| v).collect();
                let b: Vec<NodeIdx> = by_packed.iter().map(|&k| packed.node(k)).collect();
                assert_eq!(a, b, "{rule}");
            }
        }
    }

    /// With noise on the first term, the static keys (the column passes of
    /// `noisy_int_words`, or the general path) are the whole keys `pack`
    /// builds from `encode_term`.
    #[test]
    fn noisy_static_keys_are_whole_keys() {
        let g = scrambled("random-layered:layers=20,width=3,allocs=floating");
        let adj = Adj::new(&g);
        let rules = [
            "delta,type,id",
            "-3*depth,id",
            "type,-delta",
            "-id",
            "2*height,delta",
            "size,id",
            "0.5*delta,id",
        ];
        for rule in rules {
            let key = parse(rule).unwrap();
            let noise = super::super::features::Noise {
                seed: 9,
                scale: 1000.0,
            };
            let s = Statics::new(&g, &key, 9, Some(noise));
            let packed = Packed::layout(&g, &adj, &s, &key, Mode::Nodes).expect("rule fits");
            let statics = packed.static_keys::<u128>(&g, &adj, &s, &key);
            for v in g.nodes() {
                let whole = packed.pack(&g, &adj, &s, &key, v, &static_dynamic(&g, v));
                assert_eq!(statics[v as usize], whole, "{rule}, node {v}");
            }
        }
    }

    /// Move-mode values up to everything a move could pull (a move's delta
    /// and rise) pack in word order too.
    #[test]
    fn move_keys_pack_in_word_order() {
        let g = generate(
            &GenSpec::parse("random-layered:layers=20,width=3,allocs=floating").unwrap(),
            3,
        )
        .unwrap();
        let adj = Adj::new(&g);
        let pulled: i64 = g.deltas().iter().filter(|&&d| d > 0).sum();
        for rule in [
            "delta,type,id",
            "rise,-frees_after,id",
            "-unlocks,live_after",
        ] {
            let key = parse(rule).unwrap();
            let s = Statics::new(&g, &key, 1, None);
            let packed = Packed::layout(&g, &adj, &s, &key, Mode::Moves).expect("rule fits");
            let d = |v: NodeIdx| {
                let rise = [0, pulled / 2, pulled][v as usize % 3];
                Dynamic {
                    delta: rise + g.delta(v).min(0),
                    rise,
                    unlocks: (v % 4) as i64,
                    frees_after: 0,
                }
            };
            let mut by_words: Vec<(Vec<u64>, NodeIdx)> = g
                .nodes()
                .map(|v| {
                    let mut w = vec![0; stride(&key)];
                    encode(&g, &adj, &s, &key, v, &d(v), &mut w);
                    (w, v)
                })
                .collect();
            by_words.sort();
            let statics = packed.static_keys::<u128>(&g, &adj, &s, &key);
            let ctx = KeyCtx {
                g: &g,
                adj: &adj,
                statics: &s,
                key: &key,
            };
            let mut by_packed: Vec<u128> = g
                .nodes()
                .map(|v| {
                    let k = packed.pack(&g, &adj, &s, &key, v, &d(v));
                    let base = statics[v as usize];
                    let split = packed.with_state(base, &ctx, v, &d(v));
                    assert_eq!(split, k, "{rule}: static part + state = whole key");
                    k
                })
                .collect();
            by_packed.sort_unstable();
            let a: Vec<NodeIdx> = by_words.iter().map(|&(_, v)| v).collect();
            let b: Vec<NodeIdx> = by_packed.iter().map(|&k| packed.node(k)).collect();
            assert_eq!(a, b, "{rule}");
        }
    }

    /// Three float terms and an id need more than 127 bits: the arena is used.
    #[test]
    fn long_rules_do_not_pack() {
        let g = generate(&GenSpec::parse("chain:length=5").unwrap(), 1).unwrap();
        let key = parse("latency,random,0.5*delta,id").unwrap();
        let s = Statics::new(&g, &key, 1, None);
        assert!(Packed::layout(&g, &Adj::new(&g), &s, &key, Mode::Nodes).is_none());
    }
}
