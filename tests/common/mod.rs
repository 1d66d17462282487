//! Random small graphs shared by the exact-solver tests.
#![allow(dead_code)]

use memsched::corpus::program::{AllocEncoding, TensorProgram, TensorRef};
use memsched::graph::GraphBuilder;
use memsched::rng::Rng;
use memsched::Graph;

/// A random tensor program of a few ops (anchored or floating ALLOCs),
/// lowered to at most `max_nodes` nodes; `None` if it came out larger.
pub fn random_program(rng: &mut Rng, max_nodes: usize) -> Option<Graph> {
    let ops = rng.range(1, 5) as usize;
    let mut p = TensorProgram::new();
    let mut outs: Vec<TensorRef> = Vec::new();
    for i in 0..ops {
        let mut inputs = Vec::new();
        for &t in &outs {
            if rng.chance(0.45) {
                inputs.push(t);
            }
        }
        let k = if rng.chance(0.2) { 2 } else { 1 };
        let sizes: Vec<u64> = (0..k).map(|_| rng.range(1, 9)).collect();
        let op = p.push(format!("op{i}"), inputs, sizes);
        for o in 0..k {
            outs.push(TensorRef { op, output: o });
        }
    }
    let enc = if rng.chance(0.5) {
        AllocEncoding::Anchored
    } else {
        AllocEncoding::Floating
    };
    let g = p.to_graph(enc).ok()?;
    (g.node_count() <= max_nodes).then_some(g)
}

/// An arbitrary random DAG of ALLOC / FREE / compute nodes built with
/// [`GraphBuilder`]: forward edges with probability `p`, every FREE after
/// its ALLOC, some buffers never freed.
pub fn random_dag(rng: &mut Rng, n: usize) -> Graph {
    let mut b = GraphBuilder::new();
    let mut open: Vec<(i64, i64)> = Vec::new(); // (alloc id, buffer)
    let mut next_buf = 0;
    let density = 0.1 + 0.4 * rng.f64();
    for i in 0..n {
        let roll = rng.below(3);
        let id = if roll == 0 && !open.is_empty() {
            let k = rng.below(open.len() as u64) as usize;
            let (a, buf) = open.swap_remove(k);
            let f = b.free(buf);
            b.edge(a, f);
            f
        } else if roll == 1 {
            let a = b.alloc(rng.range(1, 9), next_buf);
            open.push((a, next_buf));
            next_buf += 1;
            a
        } else {
            b.op("op")
        };
        for j in 0..i as i64 {
            if rng.chance(density) {
                b.edge(j, id);
            }
        }
    }
    b.build()
        .expect("forward edges make a DAG, each FREE follows its ALLOC")
}

/// The i-th graph of the agreement corpus (programs and arbitrary DAGs).
pub fn graph(seed: u64, i: u64) -> Graph {
    let mut rng = Rng::derive(seed, i);
    if i % 2 == 0 {
        loop {
            if let Some(g) = random_program(&mut rng, 12) {
                return g;
            }
        }
    }
    let n = rng.range(1, 12) as usize;
    random_dag(&mut rng, n)
}

/// Random DAG parts in series, each closed by a hub op that follows a random
/// selection of the part's nodes (so the hub is a cut only sometimes).
/// FREEs may free buffers of earlier parts (an edge from the ALLOC is
/// added); ALLOCs may float (no predecessor). `parts` parts of `per` nodes.
pub fn series_dag(rng: &mut Rng, parts: usize, per: usize) -> Graph {
    let mut b = GraphBuilder::new();
    let mut open: Vec<(i64, i64)> = Vec::new(); // (alloc id, buffer)
    let mut next_buf = 0;
    let mut hub: Option<i64> = None;
    for _ in 0..parts {
        let mut part: Vec<i64> = Vec::new();
        for _ in 0..per {
            let roll = rng.below(3);
            let id = if roll == 0 && !open.is_empty() {
                let k = rng.below(open.len() as u64) as usize;
                let (a, buf) = open.swap_remove(k);
                let f = b.free(buf);
                b.edge(a, f);
                f
            } else if roll == 1 {
                let a = b.alloc(rng.range(1, 9), next_buf);
                open.push((a, next_buf));
                next_buf += 1;
                a
            } else {
                b.op("op")
            };
            let floating = roll == 1 && rng.chance(0.5);
            if !floating {
                if let Some(h) = hub {
                    b.edge(h, id);
                }
                for &u in &part {
                    if rng.chance(0.3) {
                        b.edge(u, id);
                    }
                }
            }
            part.push(id);
        }
        let h = b.op("hub");
        for &u in &part {
            if rng.chance(0.6) {
                b.edge(u, h);
            }
        }
        if let Some(prev) = hub {
            b.edge(prev, h);
        }
        hub = Some(h);
    }
    b.build()
        .expect("forward edges make a DAG, each FREE follows its ALLOC")
}

/// A source op, `k` copies of one random DAG of `m` nodes (same sizes, same
/// edges, own buffers), and a join op after every copy's nodes that have no
/// successor in the copy and are not FREEs; each copy's sources follow the
/// source op, whose buffer is freed after every copy's nodes. The first
/// buffer the template leaves unfreed is freed after the join.
pub fn identical_branches(rng: &mut Rng, k: usize, m: usize) -> Graph {
    #[derive(Clone, Copy)]
    enum Kind {
        Alloc(u64),
        Free(usize), // index of the ALLOC in the template
        Op,
    }
    let mut kinds: Vec<Kind> = Vec::new();
    let mut open: Vec<usize> = Vec::new();
    let mut edges: Vec<(usize, usize)> = Vec::new();
    let density = 0.2 + 0.4 * rng.f64();
    for i in 0..m {
        let roll = rng.below(3);
        let kind = if roll == 0 && !open.is_empty() {
            let a = open.swap_remove(rng.below(open.len() as u64) as usize);
            edges.push((a, i));
            Kind::Free(a)
        } else if roll == 1 {
            open.push(i);
            Kind::Alloc(rng.range(1, 9))
        } else {
            Kind::Op
        };
        kinds.push(kind);
        for j in 0..i {
            if rng.chance(density) {
                edges.push((j, i));
            }
        }
    }
    let tail = open.first().copied();
    let mut b = GraphBuilder::new();
    let src_buf = b.alloc(rng.range(1, 9), 0);
    let src = b.op("src");
    b.edge(src_buf, src);
    let src_free = b.free(0);
    let join = b.op("join");
    let mut next_buf = 1;
    for _ in 0..k {
        let mut id = vec![0i64; m];
        let mut buf = vec![0i64; m];
        for i in 0..m {
            id[i] = match kinds[i] {
                Kind::Alloc(size) => {
                    buf[i] = next_buf;
                    next_buf += 1;
                    b.alloc(size, buf[i])
                }
                Kind::Free(a) => b.free(buf[a]),
                Kind::Op => b.op("op"),
            };
        }
        for &(u, v) in &edges {
            b.edge(id[u], id[v]);
        }
        for i in 0..m {
            if !edges.iter().any(|&(_, v)| v == i) {
                b.edge(src, id[i]);
            }
            let sink = !edges.iter().any(|&(u, _)| u == i);
            if sink && !matches!(kinds[i], Kind::Free(_)) {
                b.edge(id[i], join);
            }
            b.edge(id[i], src_free);
        }
        if let Some(t) = tail {
            let f = b.free(buf[t]);
            b.edge(id[t], f);
            b.edge(join, f);
        }
    }
    b.edge(src, join);
    b.edge(src, src_free);
    b.build()
        .expect("edges follow the template's forward order")
}
