//! Structural analyses of a [`Graph`]: longest-path depths and heights.
//!
//! Each is a free function over a validated graph; results are per-node
//! vectors indexed by [`NodeIdx`].

use super::{Graph, NodeIdx};

/// Longest path (in edges) from any source to each node; sources have depth 0.
///
/// # Complexity
/// O(n + m), one pass over the stored topological order.
pub fn depths(g: &Graph) -> Vec<u32> {
    let mut depth = vec![0u32; g.node_count()];
    for &u in g.topo_order() {
        let du = depth[u as usize] + 1;
        for &v in g.succs(u) {
            depth[v as usize] = depth[v as usize].max(du);
        }
    }
    depth
}

/// Longest path (in edges) from each node to any sink; sinks have height 0.
///
/// # Complexity
/// O(n + m), one reverse pass over the stored topological order.
pub fn heights(g: &Graph) -> Vec<u32> {
    let mut height = vec![0u32; g.node_count()];
    for &u in g.topo_order().iter().rev() {
        let h = g
            .succs(u)
            .iter()
            .map(|&v| height[v as usize] + 1)
            .max()
            .unwrap_or(0);
        height[u as usize] = h;
    }
    height
}

/// Position of each node in `order` (`pos[order[i]] == i`).
pub fn positions(order: &[NodeIdx], n: usize) -> Vec<u32> {
    let mut pos = vec![u32::MAX; n];
    for (i, &v) in order.iter().enumerate() {
        pos[v as usize] = i as u32;
    }
    pos
}
