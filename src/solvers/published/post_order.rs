//! Iterative depth-first post-orders over ops, shared by the DFS schedulers.

use crate::graph::Csr;

/// Depth-first post-order over ops: from each root in turn, visit the
/// children of an op in the given order, skipping ops already visited, and
/// emit an op after its children (the order of a recursive DFS).
///
/// # Complexity
/// O(ops + operand edges), iterative.
pub(crate) fn post_order(
    op_count: usize,
    roots: impl IntoIterator<Item = u32>,
    children: &Csr,
) -> Vec<u32> {
    let mut out = Vec::with_capacity(op_count);
    post_order_by(op_count, roots, children, |_| {}, |op| out.push(op));
    out
}

/// [`post_order`] with each op's children visited in the order `arrange`
/// puts them, and each op handed to `emit` as it is finished (after every
/// op it reaches).
///
/// A row is arranged when the DFS first reaches its op, on a copy without
/// the children visited by then (they would be skipped anyway): sorting
/// each row of a copied table first, then walking it, reads every row
/// twice and the second time from farther away.
///
/// # Complexity
/// O(ops + operand edges) plus the arranging, iterative.
pub(crate) fn post_order_by(
    op_count: usize,
    roots: impl IntoIterator<Item = u32>,
    children: &Csr,
    mut arrange: impl FnMut(&mut [u32]),
    mut emit: impl FnMut(u32),
) {
    let mut visited = vec![false; op_count];
    // The rows of the ops on the stack, end to end: an op's row runs from
    // its `start` to the next op's, or to the end for the top one.
    let mut rows: Vec<u32> = Vec::new();
    // (op, start of its row in `rows`, next child to look at).
    let mut stack: Vec<(u32, u32, u32)> = Vec::new();
    let mut enter = |op: u32, visited: &mut [bool], rows: &mut Vec<u32>| {
        visited[op as usize] = true;
        let start = rows.len();
        rows.extend(
            children
                .neighbors(op)
                .iter()
                .filter(|&&c| !visited[c as usize]),
        );
        arrange(&mut rows[start..]);
        (op, start as u32, start as u32)
    };
    for r in roots {
        if visited[r as usize] {
            continue;
        }
        stack.push(enter(r, &mut visited, &mut rows));
        while let Some(top) = stack.last_mut() {
            if let Some(&c) = rows.get(top.2 as usize) {
                top.2 += 1;
                if !visited[c as usize] {
                    stack.push(enter(c, &mut visited, &mut rows));
                }
                continue;
            }
            let (op, start, _) = *top;
            stack.pop();
            rows.truncate(start as usize);
            emit(op);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The recursive DFS `post_order_by` stands for: visit `x`'s children
    /// as listed or, given `key`, in the order it sorts them (ties by op),
    /// skipping visited ones, then emit `x`.
    fn recursive_post_order(
        x: u32,
        children: &Csr,
        key: Option<&[u64]>,
        visited: &mut [bool],
        out: &mut Vec<u32>,
    ) {
        visited[x as usize] = true;
        let mut row = children.neighbors(x).to_vec();
        if let Some(key) = key {
            row.sort_by_key(|&c| (key[c as usize], c));
        }
        for c in row {
            if !visited[c as usize] {
                recursive_post_order(c, children, key, visited, out);
            }
        }
        out.push(x);
    }

    /// Random DAGs with repeated edges and shared children, visited from
    /// roots in a shuffled order, children by a random key or as listed:
    /// `post_order_by` and `post_order` emit what the recursive DFS does.
    #[test]
    fn post_order_by_is_the_recursive_dfs() {
        use crate::rng::Rng;
        let mut rng = Rng::new(11);
        for case in 0..300 {
            let n = 1 + rng.below(if case % 3 == 0 { 200 } else { 20 }) as usize;
            let mut pairs = Vec::new();
            for u in 1..n as u32 {
                for _ in 0..rng.below(5) {
                    let c = rng.below(u as u64) as u32;
                    for _ in 0..1 + rng.below(2) {
                        pairs.push((u, c));
                    }
                }
            }
            let children = Csr::from_pairs(n, pairs.iter().copied());
            let keys: Vec<u64> = (0..n).map(|_| rng.below(4)).collect();
            let mut roots: Vec<u32> = (0..n as u32).collect();
            for i in (1..n).rev() {
                roots.swap(i, rng.below(i as u64 + 1) as usize);
            }
            roots.truncate(1 + n / 2);
            for key in [Some(&keys[..]), None] {
                let mut visited = vec![false; n];
                let mut want = Vec::new();
                for &r in &roots {
                    if !visited[r as usize] {
                        recursive_post_order(r, &children, key, &mut visited, &mut want);
                    }
                }
                let mut got = Vec::new();
                let arrange = |row: &mut [u32]| {
                    if let Some(key) = key {
                        row.sort_by_key(|&c| (key[c as usize], c))
                    }
                };
                post_order_by(n, roots.iter().copied(), &children, arrange, |op| {
                    got.push(op)
                });
                assert_eq!(got, want, "case {case}, key {key:?}");
                if key.is_none() {
                    assert_eq!(post_order(n, roots.iter().copied(), &children), want);
                }
            }
        }
    }
}
