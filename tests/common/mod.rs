//! Graphs shared by the integration tests (and the exact-solver bench):
//! random small graphs, and the generator families at small sizes.
#![allow(dead_code)]

use memsched::corpus::gen::{families, generate, GenSpec};
use memsched::corpus::program::{AllocEncoding, TensorProgram, TensorRef};
use memsched::graph::GraphBuilder;
use memsched::rng::Rng;
use memsched::Graph;
use serde_json::json;

/// The graph the generator spec `spec` makes from `seed`.
pub fn generated(spec: &str, seed: u64) -> Graph {
    let parsed = GenSpec::parse(spec).unwrap_or_else(|e| panic!("{spec}: {e}"));
    generate(&parsed, seed).unwrap_or_else(|e| panic!("{spec}: {e}"))
}

/// Every generator family's spec at a small size, in both ALLOC encodings
/// (`anchored`, then `floating`).
pub fn family_specs() -> Vec<String> {
    let mut specs = Vec::new();
    for info in families() {
        let base = match info.name {
            "randwire" => "randwire:nodes=12,resolution=64".to_string(),
            "darts" => "darts:cells=3,resolution=64".to_string(),
            "nasnet" => "nasnet:cells=3,resolution=64".to_string(),
            "adversarial" => "adversarial:scale=3".to_string(),
            f => f.to_string(),
        };
        let sep = if base.contains(':') { ',' } else { ':' };
        for enc in ["anchored", "floating"] {
            specs.push(format!("{base}{sep}allocs={enc}"));
        }
    }
    specs
}

/// A random DAG of `n` ALLOC / FREE / compute nodes, ALLOCs with and
/// without predecessors, `Latency` fields on some nodes: each node after
/// the first, with chance `linked`, gets edges from fewer than `links`
/// random earlier nodes (sometimes the same edge twice). Left unbuilt, for
/// callers that relabel the nodes first.
pub fn latency_dag(rng: &mut Rng, n: usize, linked: f64, links: u64) -> GraphBuilder {
    let mut b = GraphBuilder::new();
    let mut ids: Vec<i64> = Vec::new();
    let mut open: Vec<(i64, i64)> = Vec::new(); // (alloc id, buffer)
    let mut next_buf = 0;
    while ids.len() < n {
        let roll = rng.below(10);
        let v = if roll < 3 {
            let a = b.alloc(rng.range(1, 100), next_buf);
            open.push((a, next_buf));
            next_buf += 1;
            a
        } else if roll < 6 && !open.is_empty() {
            let (a, buf) = open.swap_remove(rng.below(open.len() as u64) as usize);
            let f = b.free(buf);
            b.edge(a, f);
            f
        } else {
            b.op("op")
        };
        if !ids.is_empty() && rng.chance(linked) {
            for _ in 0..rng.below(links) {
                let u = ids[rng.below(ids.len() as u64) as usize];
                b.edge(u, v);
                if rng.chance(0.1) {
                    b.edge(u, v);
                }
            }
        }
        if rng.chance(0.3) {
            b.set_extra(v, "Latency", json!(rng.below(50) as f64 / 7.0));
        }
        ids.push(v);
    }
    b
}

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
        let (id, _) = random_node(&mut b, rng, &mut open, &mut next_buf);
        for j in 0..i as i64 {
            if rng.chance(density) {
                b.edge(j, id);
            }
        }
    }
    b.build()
        .expect("forward edges make a DAG, each FREE follows its ALLOC")
}

/// One random node for [`random_dag`] and [`series_dag`]: a FREE of an open
/// buffer (with the edge from its ALLOC), a new ALLOC of 1-8 bytes, or an
/// op. Returns its id and the roll (0 FREE, 1 ALLOC, 2 op; 0 falls through
/// to an op when no buffer is open).
fn random_node(
    b: &mut GraphBuilder,
    rng: &mut Rng,
    open: &mut Vec<(i64, i64)>,
    next_buf: &mut i64,
) -> (i64, u64) {
    let roll = rng.below(3);
    let id = if roll == 0 && !open.is_empty() {
        let k = rng.below(open.len() as u64) as usize;
        let (a, buf) = open.swap_remove(k);
        let f = b.free(buf);
        b.edge(a, f);
        f
    } else if roll == 1 {
        let a = b.alloc(rng.range(1, 9), *next_buf);
        open.push((a, *next_buf));
        *next_buf += 1;
        a
    } else {
        b.op("op")
    };
    (id, roll)
}

/// The i-th graph of the agreement corpus (programs and arbitrary DAGs).
pub fn graph(seed: u64, i: u64) -> Graph {
    let mut rng = Rng::derive(seed, i);
    if i.is_multiple_of(2) {
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
            let (id, roll) = random_node(&mut b, rng, &mut open, &mut next_buf);
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

/// A source (size `s`), `k` identical branches reading it, each a chain
/// `a -> b` of sizes (`a`, `b`), joined by one op producing 1 byte.
pub fn fork_join(k: usize, s: u64, a: u64, b: u64, enc: AllocEncoding) -> Graph {
    let mut p = TensorProgram::new();
    let src = p.op1("src", &[], s);
    let mut outs = Vec::new();
    for i in 0..k {
        let x = p.op1(format!("a{i}"), &[src], a);
        outs.push(p.op1(format!("b{i}"), &[x], b));
    }
    p.op1("join", &outs, 1);
    p.to_graph(enc).unwrap()
}

/// The optimal peak of [`fork_join`] in closed form. A schedule finishes
/// `m` branches one by one (the source live throughout), then runs the `r =
/// k - m >= 1` remaining `a` ops (the last frees the source), then their `b`
/// ops; holding two branches' temporaries while the source is live only adds
/// memory, so the optimum is the best `m`:
/// max(s + (m-1) b + a + b [m >= 1], s + m b + r a,
///     max_j (m + j + 1) b + (r - j) a [j < r], k b + 1).
pub fn fork_join_peak(k: u64, s: u64, a: u64, b: u64) -> u64 {
    (0..k)
        .map(|m| {
            let r = k - m;
            let seq = if m >= 1 { s + (m - 1) * b + a + b } else { 0 };
            let a_phase = s + m * b + r * a;
            let b_phase = (0..r).map(|j| (m + j + 1) * b + (r - j) * a).max().unwrap();
            seq.max(a_phase).max(b_phase).max(k * b + 1)
        })
        .min()
        .unwrap()
}

/// A source op, `k` chains of `depth` ops each with random output sizes
/// (1-8 bytes, different in every branch), and a join op reading every
/// chain's last output: the shape of the bench's `fork-join` rows.
pub fn random_fork_join(rng: &mut Rng, k: usize, depth: usize, enc: AllocEncoding) -> Graph {
    let mut p = TensorProgram::new();
    let src = p.op1("src", &[], rng.range(1, 9));
    let mut ends = Vec::new();
    for i in 0..k {
        let mut t = src;
        for d in 0..depth {
            t = p.op1(format!("b{i}.{d}"), &[t], rng.range(1, 9));
        }
        ends.push(t);
    }
    p.op1("join", &ends, rng.range(1, 9));
    p.to_graph(enc).unwrap()
}

/// A random DAG of `m` nodes with a chain of `len` ops hanging off it: each
/// op allocates a 1-8 byte output (its ALLOC after the previous op, or
/// floating), reads the previous op's output, which is freed right after
/// it, and may read a random node of the DAG; the first op follows a
/// random DAG node. The last output stays live.
pub fn chain_off_dag(rng: &mut Rng, m: usize, len: usize) -> Graph {
    let mut b = GraphBuilder::new();
    let mut open: Vec<(i64, i64)> = Vec::new();
    let mut next_buf = 0;
    let density = 0.1 + 0.4 * rng.f64();
    for i in 0..m {
        let (id, _) = random_node(&mut b, rng, &mut open, &mut next_buf);
        for j in 0..i as i64 {
            if rng.chance(density) {
                b.edge(j, id);
            }
        }
    }
    let mut prev: Option<(i64, i64)> = None; // (op, buffer of its output)
    for _ in 0..len {
        let buf = next_buf;
        next_buf += 1;
        let a = b.alloc(rng.range(1, 9), buf);
        let op = b.op("op");
        b.edge(a, op);
        match prev {
            Some((p, _)) => {
                if rng.chance(0.7) {
                    b.edge(p, a);
                }
                b.edge(p, op);
            }
            None if m > 0 => b.edge(rng.below(m as u64) as i64, op),
            None => {}
        }
        if m > 0 && rng.chance(0.3) {
            b.edge(rng.below(m as u64) as i64, op);
        }
        if let Some((_, pbuf)) = prev {
            let f = b.free(pbuf);
            b.edge(op, f);
        }
        prev = Some((op, buf));
    }
    b.build()
        .expect("forward edges make a DAG, each FREE follows its ALLOC")
}

/// A source op and branches of the given depths with random output sizes
/// (1-16 bytes), joined by one op: like [`random_fork_join`], but branches
/// of different lengths, an op now and then also reading an output of
/// another branch (`cross` is the chance), and a branch end now and then
/// left unread (a graph output, never freed).
pub fn random_branches(rng: &mut Rng, depths: &[usize], cross: f64, enc: AllocEncoding) -> Graph {
    let mut p = TensorProgram::new();
    let src = p.op1("src", &[], rng.range(1, 17));
    let mut made: Vec<TensorRef> = Vec::new();
    let mut ends = Vec::new();
    for (i, &depth) in depths.iter().enumerate() {
        let mut t = src;
        let earlier = made.len();
        for d in 0..depth {
            let mut inputs = vec![t];
            if earlier > 0 && rng.chance(cross) {
                inputs.push(made[rng.below(earlier as u64) as usize]);
            }
            t = p.op1(format!("b{i}.{d}"), &inputs, rng.range(1, 17));
            made.push(t);
        }
        if rng.chance(0.85) {
            ends.push(t);
        }
    }
    p.op1("join", &ends, rng.range(1, 17));
    p.to_graph(enc).unwrap()
}

/// A random tensor program: each op reads 1-3 outputs among the last
/// `window` ops, sizes 1 KiB-1 MiB, anchored ALLOCs: the `tensor-program`
/// rows of `benches/exact.rs`, which includes this module.
pub fn windowed_program(ops: usize, window: usize, seed: u64) -> Graph {
    let mut rng = Rng::new(seed);
    let mut p = TensorProgram::new();
    let mut outs: Vec<TensorRef> = Vec::new();
    for i in 0..ops {
        let mut inputs = Vec::new();
        if !outs.is_empty() {
            let reads = rng.range(1, 3) as usize;
            for _ in 0..reads {
                let lo = outs.len().saturating_sub(window);
                let t = outs[rng.range(lo as u64, outs.len() as u64 - 1) as usize];
                if !inputs.contains(&t) {
                    inputs.push(t);
                }
            }
        }
        outs.push(p.op1(format!("op{i}"), &inputs, rng.range(1 << 10, 1 << 20)));
    }
    p.to_graph(AllocEncoding::Anchored).unwrap()
}
