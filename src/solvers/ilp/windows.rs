//! Step windows: when each cluster can have run, from its ancestors and
//! descendants among the main clusters.
//!
//! With exactly one main cluster per step, main cluster `c` cannot run before
//! all its main ancestors (`lo = 1 + |anc|`) nor after the steps its main
//! descendants need (`hi = T - |desc|`); counting all ancestors, not the
//! longest path, is what makes the windows narrow. An absorbed cluster is
//! done exactly when all its main ancestors are: not before step `|anc|`,
//! surely by the latest `hi` among them.

use super::reduce::{Reduced, Role};

/// `y(c, t)` is free for `lo[c] <= t < hi[c]`, 0 before, 1 from `hi[c]` on.
#[derive(Debug, Clone)]
pub(crate) struct Windows {
    pub lo: Vec<usize>,
    pub hi: Vec<usize>,
}

impl Windows {
    /// Number of free `y` variables of main clusters (the model's binaries).
    pub fn binaries(&self, red: &Reduced) -> usize {
        red.main.iter().map(|&c| self.hi[c] - self.lo[c]).sum()
    }
}

/// Computes the windows of every non-tail cluster (tail clusters get
/// `lo = hi = T + 1`).
///
/// # Complexity
/// O(k · T / 64 + (k + e) · T / 64) for k clusters, e cluster edges and T
/// main clusters (one bit set per cluster).
pub(crate) fn windows(red: &Reduced) -> Windows {
    let k = red.clusters.len();
    let t = red.steps();
    let words = t.div_ceil(64).max(1);
    let count = |bits: &[u64]| bits.iter().map(|w| w.count_ones() as usize).sum::<usize>();
    let mut anc = vec![0u64; k * words];
    for c in 0..k {
        for &p in &red.preds[c] {
            let (head, tail) = anc.split_at_mut(c * words);
            let row = &mut tail[..words];
            let from = &head[p * words..(p + 1) * words];
            for (a, b) in row.iter_mut().zip(from) {
                *a |= *b;
            }
            let mp = red.main_pos[p];
            if mp != usize::MAX {
                row[mp / 64] |= 1 << (mp % 64);
            }
        }
    }
    let mut desc = vec![0u64; k * words];
    for c in (0..k).rev() {
        for &s in &red.succs[c] {
            let (head, tail) = desc.split_at_mut(s * words);
            let from = &tail[..words];
            let row = &mut head[c * words..(c + 1) * words];
            for (a, b) in row.iter_mut().zip(from) {
                *a |= *b;
            }
            let ms = red.main_pos[s];
            if ms != usize::MAX {
                row[ms / 64] |= 1 << (ms % 64);
            }
        }
    }
    let mut lo = vec![t + 1; k];
    let mut hi = vec![t + 1; k];
    for &c in &red.main {
        lo[c] = 1 + count(&anc[c * words..(c + 1) * words]);
        hi[c] = t - count(&desc[c * words..(c + 1) * words]);
    }
    for c in 0..k {
        if red.clusters[c].role != Role::Absorbed {
            continue;
        }
        let row = &anc[c * words..(c + 1) * words];
        lo[c] = count(row);
        hi[c] = red
            .main
            .iter()
            .filter(|&&m| row[red.main_pos[m] / 64] >> (red.main_pos[m] % 64) & 1 == 1)
            .map(|&m| hi[m])
            .max()
            .unwrap_or(0);
    }
    Windows { lo, hi }
}
