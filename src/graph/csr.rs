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

    /// The neighbours of `v`.
    pub fn neighbors(&self, v: NodeIdx) -> &[NodeIdx] {
        let v = v as usize;
        &self.targets[self.offsets[v] as usize..self.offsets[v + 1] as usize]
    }

    /// Number of neighbours of `v`.
    pub fn degree(&self, v: NodeIdx) -> usize {
        let v = v as usize;
        (self.offsets[v + 1] - self.offsets[v]) as usize
    }

    /// Number of rows (nodes).
    pub fn node_count(&self) -> usize {
        self.offsets.len().saturating_sub(1)
    }

    /// Total number of entries.
    pub fn edge_count(&self) -> usize {
        self.targets.len()
    }
}
