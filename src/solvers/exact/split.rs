//! One piece of a graph split at cut points, as a graph of its own.
//!
//! Piece `i` holds a set of nodes that (see [`super::cuts`]) some optimal
//! schedule runs after the earlier pieces and before the later ones. When it
//! starts, the buffers allocated earlier and not yet freed are live. Those
//! it frees are *carried*: the piece's graph gets one ALLOC per carried
//! buffer, all before a synthetic op `carried` that precedes the piece's own
//! sources, so its FREEs have their ALLOCs and its bounds see them as live.
//! The others stay live through the whole piece: a constant `offset`.
//!
//! So the memory after a prefix of the piece, in the whole graph, is
//! `offset` + the memory in the piece's graph, and the whole peak is the
//! largest `offset + peak` over the pieces.

use crate::graph::{Graph, GraphBuilder, GraphError, NodeIdx, NodeKind, NONE};

/// A piece's graph and how it maps back to the whole.
pub(crate) struct Piece {
    pub(crate) graph: Graph,
    /// The whole graph's node for each local node (`NONE` for synthetic ones).
    pub(crate) origin: Vec<NodeIdx>,
    /// Memory live throughout the piece that its graph does not hold.
    pub(crate) offset: i64,
}

impl Piece {
    /// The piece made of `nodes`, given which nodes of `g` earlier pieces ran
    /// (`done`, indexed by node).
    ///
    /// # Complexity
    /// O(n + edges of the piece).
    pub(crate) fn new(g: &Graph, nodes: &[NodeIdx], done: &[bool]) -> Result<Piece, GraphError> {
        let mut local = vec![NONE; g.node_count()];
        let carried: Vec<NodeIdx> = nodes
            .iter()
            .filter(|&&v| g.kind(v) == NodeKind::Free)
            .filter_map(|&v| g.partner(v))
            .filter(|&a| done[a as usize])
            .collect();
        let live_before: i64 = g
            .nodes()
            .filter(|&v| done[v as usize])
            .map(|v| g.delta(v))
            .sum();
        let carried_bytes: i64 = carried.iter().map(|&a| g.delta(a)).sum();
        let mut b = GraphBuilder::new();
        let mut origin = Vec::new();
        let allocs: Vec<i64> = carried
            .iter()
            .map(|&a| {
                origin.push(NONE);
                b.alloc(g.size(a), g.buf_id(a).expect("an ALLOC has a buffer"))
            })
            .collect();
        let root = (!allocs.is_empty()).then(|| {
            origin.push(NONE);
            b.op("carried")
        });
        for &a in &allocs {
            b.edge(a, root.expect("there are carried buffers"));
        }
        for &v in nodes {
            local[v as usize] = b.len() as NodeIdx;
            origin.push(v);
            let buf = || g.buf_id(v).expect("ALLOC and FREE nodes have a buffer");
            let id = match g.kind(v) {
                NodeKind::Alloc => b.alloc(g.size(v), buf()),
                NodeKind::Free => b.free(buf()),
                NodeKind::Compute => b.op(g.op(v)),
            };
            debug_assert_eq!(id as NodeIdx, local[v as usize]);
        }
        for &v in nodes {
            let inside: Vec<NodeIdx> = g
                .preds(v)
                .iter()
                .copied()
                .filter(|&p| local[p as usize] != NONE)
                .collect();
            if inside.is_empty() {
                if let Some(r) = root {
                    b.edge(r, local[v as usize] as i64);
                }
            }
            for p in inside {
                b.edge(local[p as usize] as i64, local[v as usize] as i64);
            }
        }
        Ok(Piece {
            graph: b.build()?,
            origin,
            offset: live_before - carried_bytes,
        })
    }

    /// Projects an order of the whole graph onto this piece (synthetic nodes
    /// first): a valid order of the piece if `order` is one of the whole.
    pub(crate) fn project(&self, order: &[NodeIdx]) -> Vec<NodeIdx> {
        let mut local = std::collections::HashMap::new();
        for (i, &v) in self.origin.iter().enumerate() {
            if v != NONE {
                local.insert(v, i as NodeIdx);
            }
        }
        let synthetic =
            (0..self.origin.len() as NodeIdx).filter(|&i| self.origin[i as usize] == NONE);
        synthetic
            .chain(order.iter().filter_map(|v| local.get(v).copied()))
            .collect()
    }

    /// The whole graph's nodes of a piece order, synthetic nodes dropped.
    pub(crate) fn lift<'a>(&'a self, order: &'a [NodeIdx]) -> impl Iterator<Item = NodeIdx> + 'a {
        order
            .iter()
            .map(|&v| self.origin[v as usize])
            .filter(|&v| v != NONE)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::corpus::program::{AllocEncoding, TensorProgram};
    use crate::schedule;

    #[test]
    fn a_piece_carries_the_buffers_it_frees_and_offsets_the_rest() {
        // x(2) is never read; a(3) -> b(4) -> c(5). Program order:
        // ALLOC x, x, ALLOC a, a, ALLOC b, b, FREE a | ALLOC c, c, FREE b.
        let mut p = TensorProgram::new();
        p.op1("x", &[], 2);
        let a = p.op1("a", &[], 3);
        let b = p.op1("b", &[a], 4);
        p.op1("c", &[b], 5);
        let g = p.to_graph(AllocEncoding::Anchored).unwrap();
        let order: Vec<NodeIdx> = g.nodes().collect();
        let done: Vec<bool> = g.nodes().map(|v| v < 7).collect();
        let piece = Piece::new(&g, &order[7..], &done).unwrap();
        // b's buffer (4) is carried (the piece frees it); x's (2) is the offset.
        assert_eq!(piece.offset, 2);
        assert_eq!(piece.graph.node_count(), 3 + 2);
        let local = piece.project(&order);
        assert_eq!(schedule::check(&piece.graph, &local).unwrap().peak, 4 + 5);
        // The whole peak is the larger of the first part's (2 + 3 + 4) and offset + 9.
        assert_eq!(schedule::check(&g, &order).unwrap().peak, 2 + 9);
        let lifted: Vec<NodeIdx> = piece.lift(&local).collect();
        assert_eq!(lifted, order[7..].to_vec());
    }
}
