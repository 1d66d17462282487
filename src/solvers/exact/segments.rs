//! Liu's hill-valley merge: the least peak over the interleavings of
//! independent sequences of memory levels.
//!
//! Each sequence `a_0, a_1, ..., a_t` is what one part holds, step by step;
//! an interleaving advances one sequence by one step at a time, and the
//! memory is the sum of the current levels. Liu (1987, "An application of
//! generalized tree pebbling to sparse matrix factorization") cuts a
//! sequence that starts at its minimum into *segments*: the first ends at
//! `v_1`, the last index of the least level at or after `h_1`, the last
//! index of the largest level; the next ones are cut the same way from
//! `v_1 + 1` on. Hills then strictly decrease and valleys strictly
//! increase along the sequence, and running whole segments in
//! non-increasing order of `hill - valley` gives the least peak.
//!
//! A sequence may start above its minimum (a part that already holds
//! memory). It is cut at the last index of its minimum: the part after it
//! starts at its minimum and is cut as above (*rising* segments, each ends
//! at or above where it starts); the part before it, read backwards, also
//! starts at its minimum, and its segments read forwards again are
//! *falling* (each ends below where it starts). Exchanging two neighbouring
//! segments of different sequences shows that some best interleaving runs
//! all falling segments first, in non-decreasing order of `hill - start`
//! (Liu's rule backwards in time), then the rising ones in non-increasing
//! order of `hill - valley`; each sequence's own segments keep their order
//! under both rules. [`Merge::least_peak`] returns the peak of that
//! interleaving; a brute-force test below checks it against every
//! interleaving of small sequences.

/// Scratch space and the sequences to merge.
#[derive(Default)]
pub(crate) struct Merge {
    /// The levels of every sequence, one after another.
    levels: Vec<i64>,
    /// Where each sequence starts in `levels`.
    starts: Vec<usize>,
    /// Per segment: (falling first, sort key, sequence, hill, end level).
    segments: Vec<(bool, i64, usize, i64, i64)>,
    /// Per sequence: its current level while merging.
    current: Vec<i64>,
    /// A falling part read backwards, and Liu's cuts of one part.
    reversed: Vec<i64>,
    cuts: Vec<(i64, i64)>,
}

impl Merge {
    /// Forgets every sequence.
    pub(crate) fn clear(&mut self) {
        self.levels.clear();
        self.starts.clear();
    }

    /// Starts a new sequence at `level`; [`Merge::push`] appends to it.
    pub(crate) fn begin(&mut self, level: i64) {
        self.starts.push(self.levels.len());
        self.levels.push(level);
    }

    /// Appends `level` to the last sequence begun.
    pub(crate) fn push(&mut self, level: i64) {
        debug_assert!(!self.starts.is_empty(), "push before begin");
        self.levels.push(level);
    }

    /// The least peak over all interleavings of the sequences (0 if there
    /// are none), counting the sum of the first levels too.
    ///
    /// # Complexity
    /// O(L log L) for L levels in all.
    pub(crate) fn least_peak(&mut self) -> i64 {
        let Merge {
            levels,
            starts,
            segments,
            current,
            reversed,
            cuts,
        } = self;
        segments.clear();
        current.clear();
        for s in 0..starts.len() {
            let end = starts.get(s + 1).copied().unwrap_or(levels.len());
            let seq = &levels[starts[s]..end];
            current.push(seq[0]);
            let low = last_extreme(seq, |a, b| a <= b);
            // Falling segments: Liu's cuts of the part up to the minimum,
            // read backwards; forwards each runs from its cut's valley over
            // its hill to the level the cut started from.
            if low > 0 {
                reversed.clear();
                reversed.extend(seq[..=low].iter().rev());
                liu_cuts(reversed, cuts);
                for k in (0..cuts.len()).rev() {
                    let (hill, from) = cuts[k];
                    let to = if k == 0 { reversed[0] } else { cuts[k - 1].1 };
                    segments.push((false, hill - from, s, hill, to));
                }
            }
            liu_cuts(&seq[low..], cuts);
            for &(hill, valley) in cuts.iter() {
                segments.push((true, valley - hill, s, hill, valley));
            }
        }
        // Stable: a sequence's own segments of one kind are strictly
        // ordered by the key, so ties never reorder them.
        segments.sort_by_key(|&(rising, key, ..)| (rising, key));
        let mut total: i64 = current.iter().sum();
        let mut peak = total;
        for &(_, _, s, hill, to) in segments.iter() {
            peak = peak.max(total - current[s] + hill);
            total += to - current[s];
            current[s] = to;
        }
        peak
    }
}

/// Liu's segments of `seq` (non-empty, starting at its minimum): per
/// segment, its hill and its valley, in order.
fn liu_cuts(seq: &[i64], cuts: &mut Vec<(i64, i64)>) {
    cuts.clear();
    let mut i = 0;
    while i < seq.len() {
        let h = i + last_extreme(&seq[i..], |a, b| a >= b);
        let v = h + last_extreme(&seq[h..], |a, b| a <= b);
        cuts.push((seq[h], seq[v]));
        i = v + 1;
    }
}

/// The index of the last element of `seq` (non-empty) that `better` ranks
/// at least as well as every other (`>=`: the last maximum).
fn last_extreme(seq: &[i64], better: impl Fn(i64, i64) -> bool) -> usize {
    let mut best = 0;
    for (i, &x) in seq.iter().enumerate().skip(1) {
        if better(x, seq[best]) {
            best = i;
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Rng;
    use std::collections::HashMap;

    /// The least peak over every interleaving, memoised on the positions.
    fn brute(seqs: &[Vec<i64>]) -> i64 {
        fn go(seqs: &[Vec<i64>], pos: &mut Vec<usize>, memo: &mut HashMap<Vec<usize>, i64>) -> i64 {
            if let Some(&b) = memo.get(pos) {
                return b;
            }
            let now: i64 = seqs.iter().zip(pos.iter()).map(|(s, &p)| s[p]).sum();
            let mut rest = i64::MAX;
            for c in 0..seqs.len() {
                if pos[c] + 1 < seqs[c].len() {
                    pos[c] += 1;
                    rest = rest.min(go(seqs, pos, memo));
                    pos[c] -= 1;
                }
            }
            let best = if rest == i64::MAX { now } else { now.max(rest) };
            memo.insert(pos.clone(), best);
            best
        }
        go(seqs, &mut vec![0; seqs.len()], &mut HashMap::new())
    }

    fn merged(seqs: &[Vec<i64>]) -> i64 {
        let mut m = Merge::default();
        for s in seqs {
            m.begin(s[0]);
            for &x in &s[1..] {
                m.push(x);
            }
        }
        m.least_peak()
    }

    #[test]
    fn the_merge_of_segments_is_the_least_peak_of_all_interleavings() {
        let mut rng = Rng::new(7);
        for case in 0..20000 {
            let k = rng.range(1, 4) as usize;
            let seqs: Vec<Vec<i64>> = (0..k)
                .map(|_| {
                    let len = rng.range(1, 7) as usize;
                    // Few distinct values, so that ties are common.
                    let top = if case % 2 == 0 { 4 } else { 40 };
                    (0..len).map(|_| rng.range(0, top) as i64).collect()
                })
                .collect();
            assert_eq!(merged(&seqs), brute(&seqs), "sequences {seqs:?}");
        }
    }

    #[test]
    fn two_chains_run_the_steeper_segment_first() {
        // A: 0 -> 10 -> 1; B: 0 -> 6 -> 5. A first: max(10, 1 + 6) = 10;
        // B first: 5 + 10 = 15.
        assert_eq!(merged(&[vec![0, 10, 1], vec![0, 6, 5]]), 10);
    }

    #[test]
    fn no_sequence_merges_to_zero() {
        assert_eq!(Merge::default().least_peak(), 0);
    }
}
