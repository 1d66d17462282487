//! Compressed sparse row adjacency.

use super::NodeIdx;

/// Adjacency lists packed into two arrays.
///
/// Invariants: `offsets.len() == node_count + 1`, `offsets` is non-decreasing,
/// `offsets[0] == 0` and `offsets[node_count] == targets.len()`. The
/// neighbours of `v` are `targets[offsets[v]..offsets[v + 1]]`, in the order
/// their edges were given.
#[derive(Debug, Clone, Default)]
pub struct Csr {
    offsets: Vec<u32>,
    targets: Vec<NodeIdx>,
}

impl Csr {
    /// Builds rows from `(source, target)` pairs, keeping each row's pairs in
    /// input order (a stable counting sort).
    ///
    /// # Complexity
    /// O(n + m) time, n + 1 + m words.
    pub fn from_pairs(n: usize, pairs: impl Iterator<Item = (NodeIdx, NodeIdx)> + Clone) -> Self {
        let mut offsets = vec![0u32; n + 1];
        for (s, _) in pairs.clone() {
            offsets[s as usize + 1] += 1;
        }
        for i in 0..n {
            offsets[i + 1] += offsets[i];
        }
        let mut fill = offsets.clone();
        let mut targets = vec![0; offsets[n] as usize];
        for (s, t) in pairs {
            let slot = &mut fill[s as usize];
            targets[*slot as usize] = t;
            *slot += 1;
        }
        Csr { offsets, targets }
    }

    /// Rows given directly: row `v` is `targets[offsets[v]..offsets[v + 1]]`.
    ///
    /// # Panics
    /// If `offsets` breaks the invariants above (a caller bug).
    pub fn from_parts(offsets: Vec<u32>, targets: Vec<NodeIdx>) -> Self {
        assert!(
            offsets.first() == Some(&0)
                && offsets.last() == Some(&(targets.len() as u32))
                && offsets.windows(2).all(|w| w[0] <= w[1]),
            "CSR offsets must start at 0, grow, and end at the target count"
        );
        Csr { offsets, targets }
    }

    /// The same rows with repeated targets dropped (each row sorted).
    ///
    /// # Complexity
    /// O(m log d) for rows of at most d targets.
    pub fn deduped(&self) -> Csr {
        let mut offsets = Vec::with_capacity(self.offsets.len());
        let mut targets = Vec::with_capacity(self.targets.len());
        let mut row = Vec::new();
        offsets.push(0);
        for w in self.offsets.windows(2) {
            row.clear();
            row.extend_from_slice(&self.targets[w[0] as usize..w[1] as usize]);
            row.sort_unstable();
            row.dedup();
            targets.extend_from_slice(&row);
            offsets.push(targets.len() as u32);
        }
        Csr { offsets, targets }
    }

    /// The reverse adjacency over `rows` rows (every target must be below
    /// `rows`): row `t` lists the `v` with `t` in row `v`, by increasing `v`
    /// and, within `v`, in row order; as `from_pairs` over the swapped pairs.
    ///
    /// # Complexity
    /// O(rows + node_count + edge_count).
    pub fn transpose(&self, rows: usize) -> Csr {
        let mut offsets = vec![0u32; rows + 1];
        for &t in &self.targets {
            offsets[t as usize + 1] += 1;
        }
        for i in 0..rows {
            offsets[i + 1] += offsets[i];
        }
        let mut fill = offsets[..rows].to_vec();
        let mut targets = vec![0; self.targets.len()];
        for v in 0..self.node_count() as NodeIdx {
            for &t in self.neighbors(v) {
                let slot = &mut fill[t as usize];
                targets[*slot as usize] = v;
                *slot += 1;
            }
        }
        Csr { offsets, targets }
    }

    /// The neighbours of `v`.
    #[inline]
    pub fn neighbors(&self, v: NodeIdx) -> &[NodeIdx] {
        let v = v as usize;
        &self.targets[self.offsets[v] as usize..self.offsets[v + 1] as usize]
    }

    /// Prefetches where row `v` starts (a hint; reads nothing).
    #[inline]
    pub(crate) fn prefetch_offsets(&self, v: NodeIdx) {
        crate::prefetch::prefetch(&self.offsets, v as usize);
    }

    /// Prefetches the first entries of row `v` (reads where it starts).
    #[inline]
    pub(crate) fn prefetch_row(&self, v: NodeIdx) {
        crate::prefetch::prefetch(&self.targets, self.offsets[v as usize] as usize);
    }

    /// Every row's entries, row after row.
    #[inline]
    pub fn targets(&self) -> &[NodeIdx] {
        &self.targets
    }

    /// Number of neighbours of `v`.
    #[inline]
    pub fn degree(&self, v: NodeIdx) -> usize {
        let v = v as usize;
        (self.offsets[v + 1] - self.offsets[v]) as usize
    }

    /// Number of rows (nodes).
    #[inline]
    pub fn node_count(&self) -> usize {
        self.offsets.len().saturating_sub(1)
    }

    /// Total number of entries.
    pub fn edge_count(&self) -> usize {
        self.targets.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn transpose_matches_swapped_pairs() {
        let pairs = [(0, 2), (2, 0), (0, 1), (1, 2), (2, 2), (0, 2)];
        let csr = Csr::from_pairs(3, pairs.iter().copied());
        let t = csr.transpose(4);
        let rows: Vec<(u32, u32)> = (0..3)
            .flat_map(|v| csr.neighbors(v).iter().map(move |&w| (w, v)))
            .collect();
        let expected = Csr::from_pairs(4, rows.iter().copied());
        for r in 0..4 {
            assert_eq!(t.neighbors(r), expected.neighbors(r));
        }
        let same = Csr::from_parts(vec![0, 1, 1], vec![5]);
        assert_eq!(same.neighbors(0), &[5]);
    }

    #[test]
    fn deduped_drops_repeats_row_by_row() {
        let csr = Csr::from_parts(vec![0, 4, 4, 6], vec![3, 1, 3, 3, 2, 2]);
        let d = csr.deduped();
        assert_eq!(d.neighbors(0), &[1, 3]);
        assert!(d.neighbors(1).is_empty());
        assert_eq!(d.neighbors(2), &[2]);
        assert_eq!(d.edge_count(), 3);
    }
}
