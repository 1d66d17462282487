//! The merge bound: the chains' remaining buffers as sequences of memory
//! levels, merged by Liu's rule ([`Merge`]), whose least peak no
//! completion can beat. It sharpens the hill bound ([`Bounds::hills`]),
//! which sees one hill per chain, where chains have several.
//!
//! Take a chain `c_0, c_1, ...` (see `bounds.rs`: the ALLOC of `c_{i+1}` is
//! an ancestor of the FREE of `c_i`, and the two overlap) and a downset `S`
//! with front `c_f` (the last buffer whose ALLOC is in `S`; none: `f = -1`).
//! Its *run* is `c_{f+1}..=c_l`, as far as each ALLOC is an ancestor of the
//! next (so in every completion they run in this order). In any completion:
//! - just after the ALLOC of `c_i` (its *event*), `c_{i-1}` (if `i > f + 1`
//!   or the front is kept, below) and `c_i` are live: `c_{i-1}`'s FREE
//!   descends from `c_i`'s ALLOC;
//! - between the events of `c_i` and `c_{i+1}`, `c_i` is live; after the
//!   last event, `c_l` is live as long as its FREE has not run, which is
//!   after every other run's events when it descends from their last ALLOCs
//!   (else the chain counts 0 there);
//! - before its first event the chain holds its front if it is *kept*, or
//!   0. A front whose FREE descends from the first ALLOC of another run (the
//!   input of a fork, read by every branch) is not kept but counted as a
//!   resident, below: that sees it at every branch's first event.
//! - a *resident* (a buffer live in `S`, not a kept front) is live at every
//!   event whose ALLOC is an ancestor of its FREE (or if it has none).
//!
//! So each chain's levels are a sequence: its front (or 0), then per event
//! the pair (plus the residents live at that event) and the level after
//! it. At any event, memory holds the event's level plus every other
//! chain's current level, all distinct buffers: a completion's peak is at
//! least that of the interleaving of the sequences its events follow, so at
//! least the least peak over all interleavings, which [`Merge`] computes.
//! (An event's level is at least its neighbours', so the moments between
//! events never raise that least peak.)
//!
//! Cutting a run short or dropping a resident only lowers levels, so
//! these are safe: runs stop after [`MAX_EVENTS`] events; a run's last
//! event is dropped while its ALLOC descends from every other run's last
//! (a join's output: it runs after them all anyway, but merged freely it
//! would let its chain drop its level early); residents are not counted
//! past [`MAX_RESIDENTS`] live buffers. The bound is skipped (it is a
//! lower bound, skipping is always safe) when every run has one event (the
//! hill bound sees about as much, and on graphs with floating ALLOCs, where
//! no run has two, it cost a quarter of the time), or when the sum of every
//! level at its largest cannot exceed the bound already known.

use super::bounds::{Bounds, Buffer, MAX_HILLS};
use super::moves::Reach;
use super::segments::Merge;
use super::state::{self, has};
use crate::graph::NodeIdx;

/// Most events per chain the bound looks at.
const MAX_EVENTS: usize = 16;
/// Residents are not counted when more buffers than this are live.
const MAX_RESIDENTS: usize = 64;

/// One chain's run from a state.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Run {
    chain: usize,
    /// The front, if kept as the chain's level before its first event.
    kept: Option<usize>,
    /// Positions of the first and last events.
    first: usize,
    last: usize,
}

/// Per chain, what [`Bounds::merged`] looks up: whether each buffer's
/// ALLOC is an ancestor of the next one's, and the largest event level
/// (pair of neighbours) from each position on, without residents.
pub(crate) struct MergeData {
    linked: Vec<Vec<bool>>,
    top: Vec<Vec<i64>>,
}

impl MergeData {
    /// # Complexity
    /// O(chain buffers) bit tests.
    pub(crate) fn new(reach: &Reach, buffers: &[Buffer], chains: &[Vec<u32>]) -> Self {
        let buf = |b: u32| &buffers[b as usize];
        let linked = chains
            .iter()
            .map(|c| {
                c.windows(2)
                    .map(|w| has(reach.anc(buf(w[1]).alloc), buf(w[0]).alloc))
                    .collect()
            })
            .collect();
        let top = chains
            .iter()
            .map(|c| {
                let mut top = vec![0; c.len()];
                let mut best = 0;
                for i in (0..c.len()).rev() {
                    let before = if i > 0 { buf(c[i - 1]).size } else { 0 };
                    best = best.max(before + buf(c[i]).size);
                    top[i] = best;
                }
                top
            })
            .collect();
        MergeData { linked, top }
    }
}

/// Scratch space for [`Bounds::merged`].
#[derive(Default)]
pub(crate) struct MergeScratch {
    runs: Vec<Run>,
    residents: Vec<Buffer>,
    /// The runs' first and last event ALLOCs, and the kept fronts' ALLOCs.
    firsts: Vec<u64>,
    lasts: Vec<u64>,
    kept: Vec<u64>,
    merge: Merge,
}

impl Bounds {
    /// The merge bound of downset `set` (see the module docs), given the
    /// chains' fronts `starts` and the buffers `live` in `set`; `i64::MIN`
    /// if no chain has a buffer left to allocate, if it cannot exceed
    /// `floor` (every level summed at its largest is not above it), or if
    /// the runs are not worth merging ([`worth_merging`]).
    ///
    /// # Complexity
    /// O(events * residents + chains * n / 64) bit operations.
    pub(crate) fn merged(
        &self,
        reach: &Reach,
        starts: &[Option<usize>],
        live: &[Buffer],
        floor: i64,
        scratch: &mut MergeScratch,
    ) -> i64 {
        let MergeScratch {
            runs,
            residents,
            firsts,
            lasts,
            kept,
            merge,
        } = scratch;
        if self.merge_ceiling(starts, live) <= floor {
            return i64::MIN;
        }
        self.find_runs(starts, runs);
        if !worth_merging(runs) {
            return i64::MIN;
        }
        self.drop_join_events(reach, runs, lasts);
        self.unkeep_shared_fronts(reach, runs, firsts);
        self.find_residents(reach, live, runs, kept, residents);
        merge.clear();
        for r in runs.iter() {
            self.push_levels(reach, r, residents, lasts, merge);
        }
        merge.least_peak()
    }

    /// Every level at its largest, summed: each chain's largest event level
    /// from its first event on, plus every live buffer. The merge bound
    /// cannot exceed it.
    fn merge_ceiling(&self, starts: &[Option<usize>], live: &[Buffer]) -> i64 {
        let data = self.merge_data();
        self.chains()
            .iter()
            .zip(starts)
            .enumerate()
            .filter_map(|(c, (chain, &front))| {
                let first = first_event(front);
                (first < chain.len()).then(|| data.top[c][first])
            })
            .chain(live.iter().map(|b| b.size))
            .sum()
    }

    /// Fills `runs` with every chain's run (front kept for now): from the
    /// buffer after the front, as far as each ALLOC is an ancestor of the
    /// next, at most [`MAX_EVENTS`] events.
    fn find_runs(&self, starts: &[Option<usize>], runs: &mut Vec<Run>) {
        let data = self.merge_data();
        runs.clear();
        for (c, (chain, &front)) in self.chains().iter().zip(starts).enumerate() {
            let first = first_event(front);
            if first >= chain.len() {
                continue;
            }
            let mut last = first;
            while last + 1 < chain.len() && last + 1 - first < MAX_EVENTS && data.linked[c][last] {
                last += 1;
            }
            runs.push(Run {
                chain: c,
                kept: front,
                first,
                last,
            });
        }
    }

    /// Drops each run's last events while their ALLOC descends from every
    /// other run's last: an event after every other run's last (a join's
    /// output) could only run last; merged, it would let its chain drop
    /// early. Leaves `lasts` marking the runs' (new) last ALLOCs.
    fn drop_join_events(&self, reach: &Reach, runs: &mut [Run], lasts: &mut Vec<u64>) {
        // Every test sees the last ALLOCs from before any drop.
        mark(
            lasts,
            reach.words,
            runs.iter().map(|r| self.alloc_at(r, r.last)),
        );
        for r in runs.iter_mut() {
            while r.last > r.first {
                let a = self.alloc_at(r, r.last);
                if !all_in(lasts, reach.anc(a), a) {
                    break;
                }
                r.last -= 1;
            }
        }
        mark(
            lasts,
            reach.words,
            runs.iter().map(|r| self.alloc_at(r, r.last)),
        );
    }

    /// Unkeeps every front read by another run's first event (its FREE
    /// descends from that ALLOC): it is counted as a resident instead.
    /// Leaves `firsts` marking the runs' first ALLOCs.
    fn unkeep_shared_fronts(&self, reach: &Reach, runs: &mut [Run], firsts: &mut Vec<u64>) {
        mark(
            firsts,
            reach.words,
            runs.iter().map(|r| self.alloc_at(r, r.first)),
        );
        for r in runs.iter_mut() {
            let Some(f) = r.kept else { continue };
            let own = self.alloc_at(r, r.first);
            let shared = self
                .chain_buffer(r.chain, f)
                .free
                .is_some_and(|x| any_in(firsts, reach.anc(x), own));
            if shared {
                r.kept = None;
            }
        }
    }

    /// Fills `residents` with the buffers of `live` other than the kept
    /// fronts (`kept` marks their ALLOCs), or none past [`MAX_RESIDENTS`]
    /// live buffers.
    fn find_residents(
        &self,
        reach: &Reach,
        live: &[Buffer],
        runs: &[Run],
        kept: &mut Vec<u64>,
        residents: &mut Vec<Buffer>,
    ) {
        residents.clear();
        if live.len() <= MAX_RESIDENTS {
            let fronts = runs
                .iter()
                .filter_map(|r| r.kept.map(|f| self.alloc_at(r, f)));
            mark(kept, reach.words, fronts);
            residents.extend(live.iter().filter(|b| !has(kept, b.alloc)));
        }
    }

    /// Appends run `r`'s sequence of levels to `merge`: its kept front (or
    /// 0), then per event the pair of neighbours plus the residents live
    /// there, and the level after it (`c_l` stays after the last event only
    /// if its FREE descends from every run's last ALLOC, `lasts`).
    fn push_levels(
        &self,
        reach: &Reach,
        r: &Run,
        residents: &[Buffer],
        lasts: &[u64],
        merge: &mut Merge,
    ) {
        let held = r.kept.map_or(0, |f| self.chain_buffer(r.chain, f).size);
        merge.begin(held);
        for e in r.first..=r.last {
            let b = self.chain_buffer(r.chain, e);
            let before = if e == r.first {
                held
            } else {
                self.chain_buffer(r.chain, e - 1).size
            };
            merge.push(before + b.size + resident_at(reach, residents, b.alloc));
            let stays = e < r.last || b.free.is_none_or(|x| all_in(lasts, reach.anc(x), b.alloc));
            merge.push(if stays { b.size } else { 0 });
        }
    }

    /// Buffer `i` of chain `c`.
    fn chain_buffer(&self, c: usize, i: usize) -> &Buffer {
        self.buffer(self.chains()[c][i])
    }

    /// The ALLOC of run `r`'s chain's buffer `i`.
    fn alloc_at(&self, r: &Run, i: usize) -> NodeIdx {
        self.chain_buffer(r.chain, i).alloc
    }
}

/// Position of a chain's first event: just after its front `front`, or 0.
fn first_event(front: Option<usize>) -> usize {
    front.map_or(0, |f| f + 1)
}

/// Whether the runs are worth merging: with one chain of several events at
/// most, the hill bound sees about as much; past [`MAX_HILLS`] runs the
/// bound is skipped.
fn worth_merging(runs: &[Run]) -> bool {
    let several = runs.iter().filter(|r| r.first < r.last).count();
    several >= 2 && runs.len() <= MAX_HILLS
}

/// Sets `bits` to the node set of `nodes`, over `words` words.
fn mark(bits: &mut Vec<u64>, words: usize, nodes: impl Iterator<Item = NodeIdx>) {
    bits.clear();
    bits.resize(words, 0);
    nodes.for_each(|v| state::add(bits, v));
}

/// `own`'s bit in word `k` of a node set (0 if it is in another word).
fn own_bit(own: NodeIdx, k: usize) -> u64 {
    if (own >> 6) as usize == k {
        1 << (own & 63)
    } else {
        0
    }
}

/// Whether every node of `bits` other than `own` is in `anc`.
fn all_in(bits: &[u64], anc: &[u64], own: NodeIdx) -> bool {
    (0..bits.len()).all(|k| bits[k] & !anc[k] & !own_bit(own, k) == 0)
}

/// Whether some node of `bits` other than `own` is in `anc`.
fn any_in(bits: &[u64], anc: &[u64], own: NodeIdx) -> bool {
    (0..bits.len()).any(|k| bits[k] & anc[k] & !own_bit(own, k) != 0)
}

/// The size of the residents live at `event`: those whose FREE descends
/// from it, or that have none.
fn resident_at(reach: &Reach, residents: &[Buffer], event: NodeIdx) -> i64 {
    residents
        .iter()
        .filter(|b| b.free.is_none_or(|x| has(reach.anc(x), event)))
        .map(|b| b.size)
        .sum()
}
