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
