//! NAS networks with conv-net tensor sizes: `randwire`, `darts`, `nasnet`.
//!
//! # Shape model
//! A feature map is `channels x height x width` per image; its tensor holds
//! `batch x channels x height x width` fp32 values (4 bytes each), with no
//! allocator rounding. A stride-2 op (conv, pool, factorized reduction) maps
//! `h` to `ceil(h / 2)`. Ops are at the granularity a framework would
//! allocate at: a separable conv is a depthwise op and a pointwise op (each
//! with its own output; ReLU and batch norm are fused into them, as in
//! inference), an aggregation or cell-node sum is one op, a concatenation is
//! one op writing a fresh tensor. Weights are not modelled (they are live for
//! the whole run and add a constant). The classifier ends with a global pool
//! and a 1000-way linear layer.

use super::{finish, FamilyInfo, GenError, ParamInfo, Params, ALLOCS};
use crate::corpus::program::{TensorProgram, TensorRef};
use crate::graph::Graph;
use crate::rng::Rng;

const RESOLUTION: ParamInfo = ParamInfo {
    name: "resolution",
    default: "224",
    help: "input height and width, pixels",
};
const BATCH: ParamInfo = ParamInfo {
    name: "batch",
    default: "1",
    help: "images per batch",
};

/// A feature map's shape per image.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Shape {
    c: u64,
    h: u64,
    w: u64,
}

impl Shape {
    fn with_c(self, c: u64) -> Shape {
        Shape { c, ..self }
    }
    fn stride(self, s: u64) -> Shape {
        Shape {
            c: self.c,
            h: self.h.div_ceil(s),
            w: self.w.div_ceil(s),
        }
    }
}

/// A tensor with its shape.
#[derive(Debug, Clone, Copy)]
struct T {
    r: TensorRef,
    s: Shape,
}

/// A program under construction with the batch that sizes its tensors.
struct Net {
    prog: TensorProgram,
    batch: u64,
}

impl Net {
    fn new(batch: u64) -> Net {
        Net {
            prog: TensorProgram::new(),
            batch,
        }
    }
    fn op(&mut self, name: String, inputs: &[T], s: Shape) -> T {
        let refs: Vec<TensorRef> = inputs.iter().map(|t| t.r).collect();
        // Saturating: absurd shapes fail validation (sizes above i64) instead of wrapping.
        let bytes = [s.c, s.h, s.w, 4]
            .iter()
            .fold(self.batch, |b, &x| b.saturating_mul(x));
        T {
            r: self.prog.op1(name, &refs, bytes),
            s,
        }
    }
    /// The input image (an op with no inputs, so the graph has one source).
    fn input(&mut self, res: u64) -> T {
        self.op(
            "input".into(),
            &[],
            Shape {
                c: 3,
                h: res,
                w: res,
            },
        )
    }
    /// Depthwise k x k conv (stride s) then pointwise conv to `c` channels.
    fn sep(&mut self, name: &str, x: T, c: u64, stride: u64) -> T {
        let d = self.op(format!("{name}.dw"), &[x], x.s.stride(stride));
        self.op(format!("{name}.pw"), &[d], d.s.with_c(c))
    }
    /// Sum (or aggregation) of same-shape tensors; a single input passes through.
    fn sum(&mut self, name: String, xs: &[T]) -> T {
        if xs.len() == 1 {
            return xs[0];
        }
        self.op(name, xs, xs[0].s)
    }
    /// Global average pool then a 1000-way linear layer.
    fn classifier(&mut self, x: T) -> T {
        let p = self.op("gap".into(), &[x], x.s.stride(x.s.h.max(x.s.w)));
        self.op(
            "fc".into(),
            &[p],
            Shape {
                c: 1000,
                h: 1,
                w: 1,
            },
        )
    }
}

fn net_params(p: &Params) -> Result<(u64, u64), GenError> {
    Ok((p.int("resolution", 8, 8192)?, p.int("batch", 1, 65536)?))
}

pub(super) const RANDWIRE: FamilyInfo = FamilyInfo {
    name: "randwire",
    summary: "RandWire (Xie et al. 2019), small regime: 3 stages of Watts-Strogatz WS(n,k,p) graphs, nodes = aggregate + ReLU-sepconv-BN",
    params: &[
        ParamInfo { name: "nodes", default: "32", help: "nodes per stage graph (n)" },
        ParamInfo { name: "k", default: "4", help: "ring neighbours per node (even)" },
        ParamInfo { name: "p", default: "0.75", help: "rewiring probability" },
        ParamInfo { name: "channels", default: "78", help: "C: stage channels are C, 2C, 4C (78 is RandWire-WS small)" },
        RESOLUTION,
        BATCH,
        ALLOCS,
    ],
};

/// Watts-Strogatz graph as networkx builds it, oriented low -> high index.
///
/// Ring lattice: node u joined to its `k/2` neighbours on each side. Then for
/// j in 1..=k/2, for u in 0..n: with probability p the edge (u, u+j) is
/// replaced by (u, w), w uniform among nodes that are not u and not already
/// joined to u. Returns the predecessor lists of the DAG.
#[allow(clippy::needless_range_loop)] // index loops mirror networkx
fn watts_strogatz(n: usize, k: usize, p: f64, rng: &mut Rng) -> Vec<Vec<usize>> {
    let mut adj = vec![vec![false; n]; n];
    for u in 0..n {
        for j in 1..=k / 2 {
            let v = (u + j) % n;
            adj[u][v] = true;
            adj[v][u] = true;
        }
    }
    for j in 1..=k / 2 {
        for u in 0..n {
            let v = (u + j) % n;
            if !adj[u][v] || !rng.chance(p) {
                continue;
            }
            let choices: Vec<usize> = (0..n).filter(|&w| w != u && !adj[u][w]).collect();
            if choices.is_empty() {
                continue;
            }
            let w = choices[rng.below(choices.len() as u64) as usize];
            adj[u][v] = false;
            adj[v][u] = false;
            adj[u][w] = true;
            adj[w][u] = true;
        }
    }
    (0..n)
        .map(|v| (0..v).filter(|&u| adj[u][v]).collect())
        .collect()
}

/// `randwire`: conv1 (3x3 s2, C/2), conv2 (3x3 s2, C), then stages at C, 2C,
/// 4C channels, each a fresh WS graph: nodes without predecessors read the
/// stage input with a stride-2 sepconv, others aggregate their predecessors
/// (a weighted sum op when there are several) and apply a sepconv; the stage
/// output averages the nodes without successors. Then a 1x1 conv to 1280
/// channels and the classifier. At 224 x 224: stages at 28, 14 and 7 pixels.
#[allow(clippy::needless_range_loop)] // nodes are indices of the WS graph
pub(super) fn randwire(p: &Params, rng: &mut Rng) -> Result<Graph, GenError> {
    let n = p.int("nodes", 2, 2_000)? as usize;
    let k = p.int("k", 2, 1000)? as usize;
    if !k.is_multiple_of(2) || k >= n {
        return Err(p.bad("k", format!("must be even and below nodes ({n})")));
    }
    let prob = p.float("p", 0.0, 1.0)?;
    let c = p.int("channels", 2, 100_000)?;
    let (res, batch) = net_params(p)?;
    let mut net = Net::new(batch);
    let img = net.input(res);
    let conv1 = net.op("conv1".into(), &[img], img.s.stride(2).with_c(c / 2));
    let mut x = net.op("conv2".into(), &[conv1], conv1.s.stride(2).with_c(c));
    for (stage, ch) in [c, 2 * c, 4 * c].into_iter().enumerate() {
        let preds = watts_strogatz(n, k, prob, rng);
        let mut out: Vec<T> = Vec::with_capacity(n);
        let mut has_succ = vec![false; n];
        for v in 0..n {
            let name = format!("s{stage}.n{v}");
            let t = if preds[v].is_empty() {
                net.sep(&name, x, ch, 2)
            } else {
                let ins: Vec<T> = preds[v].iter().map(|&u| out[u]).collect();
                for &u in &preds[v] {
                    has_succ[u] = true;
                }
                let agg = net.sum(format!("{name}.agg"), &ins);
                net.sep(&name, agg, ch, 1)
            };
            out.push(t);
        }
        let sinks: Vec<T> = (0..n).filter(|&v| !has_succ[v]).map(|v| out[v]).collect();
        x = net.sum(format!("s{stage}.out"), &sinks);
    }
    let head = net.op("conv_head".into(), &[x], x.s.with_c(1280));
    net.classifier(head);
    finish(&net.prog, p, "randwire")
}

/// One op of a DARTS / NASNet cell, applied to a state with a stride.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum CellOp {
    /// Two stacked (ReLU, depthwise k x k, pointwise, BN): four tensors.
    Sep(u64),
    /// Dilated depthwise 3x3 then pointwise: two tensors.
    Dil,
    MaxPool,
    AvgPool,
    /// Identity; with stride 2 a factorized reduction (one op).
    Skip,
}

impl CellOp {
    fn apply(self, net: &mut Net, name: &str, x: T, stride: u64) -> T {
        match self {
            CellOp::Sep(k) => {
                let a = net.sep(&format!("{name}.sep{k}a"), x, x.s.c, stride);
                net.sep(&format!("{name}.sep{k}b"), a, x.s.c, 1)
            }
            CellOp::Dil => net.sep(&format!("{name}.dil"), x, x.s.c, stride),
            CellOp::MaxPool => net.op(format!("{name}.maxpool"), &[x], x.s.stride(stride)),
            CellOp::AvgPool => net.op(format!("{name}.avgpool"), &[x], x.s.stride(stride)),
            CellOp::Skip if stride == 1 => x,
            CellOp::Skip => net.op(format!("{name}.fr"), &[x], x.s.stride(stride)),
        }
    }
}

/// Brings a previous state to `c` channels at `target`'s resolution:
/// a factorized reduction when it is twice as large, a 1x1 conv otherwise.
fn preprocess(net: &mut Net, name: String, x: T, c: u64, target: Shape) -> T {
    if x.s.h > target.h {
        net.op(name, &[x], x.s.stride(2).with_c(c))
    } else {
        net.op(name, &[x], x.s.with_c(c))
    }
}

pub(super) const DARTS: FamilyInfo = FamilyInfo {
    name: "darts",
    summary: "DARTS V2 genotype (Liu et al. 2019), ImageNet network: stems, cells with reductions at 1/3 and 2/3, 4-node cells",
    params: &[
        ParamInfo { name: "cells", default: "14", help: "number of cells (reduction cells at cells/3 and 2*cells/3)" },
        ParamInfo { name: "channels", default: "48", help: "C of the first cells (48 for DARTS ImageNet)" },
        RESOLUTION,
        BATCH,
        ALLOCS,
    ],
};

/// DARTS V2: (op, input state) pairs for the 4 nodes of a normal cell.
const DARTS_NORMAL: [(CellOp, usize); 8] = [
    (CellOp::Sep(3), 0),
    (CellOp::Sep(3), 1),
    (CellOp::Sep(3), 0),
    (CellOp::Sep(3), 1),
    (CellOp::Sep(3), 1),
    (CellOp::Skip, 0),
    (CellOp::Skip, 0),
    (CellOp::Dil, 2),
];
/// DARTS V2 reduction cell.
const DARTS_REDUCE: [(CellOp, usize); 8] = [
    (CellOp::MaxPool, 0),
    (CellOp::MaxPool, 1),
    (CellOp::Skip, 2),
    (CellOp::MaxPool, 1),
    (CellOp::MaxPool, 0),
    (CellOp::Skip, 2),
    (CellOp::Skip, 2),
    (CellOp::MaxPool, 1),
];

/// `darts` (NetworkImageNet of the DARTS code): stem0 = conv 3x3 s2 (C/2) +
/// conv 3x3 s2 (C); stem1 = conv 3x3 s2 (C). Each cell preprocesses its two
/// inputs to C channels (factorized reduction if the older one is twice as
/// large), builds 4 nodes, each the sum of two ops on earlier states (stride
/// 2 on the cell inputs in a reduction cell), and concatenates them (4C).
/// Reduction cells double C. Deterministic: the seed is not used.
pub(super) fn darts(p: &Params, _rng: &mut Rng) -> Result<Graph, GenError> {
    let cells = p.int("cells", 1, 10_000)?;
    // The stem's first conv has C/2 channels: C = 1 would make it empty.
    let mut c = p.int("channels", 2, 100_000)?;
    let (res, batch) = net_params(p)?;
    let mut net = Net::new(batch);
    let img = net.input(res);
    let s0a = net.op("stem0.a".into(), &[img], img.s.stride(2).with_c(c / 2));
    let mut s0 = net.op("stem0.b".into(), &[s0a], s0a.s.stride(2).with_c(c));
    let mut s1 = net.op("stem1".into(), &[s0], s0.s.stride(2).with_c(c));
    for i in 0..cells {
        let reduce = i == cells / 3 || i == 2 * cells / 3;
        if reduce {
            c *= 2;
        }
        let name = format!("c{i}");
        let p0 = preprocess(&mut net, format!("{name}.pre0"), s0, c, s1.s);
        let p1 = preprocess(&mut net, format!("{name}.pre1"), s1, c, s1.s);
        let geno = if reduce { &DARTS_REDUCE } else { &DARTS_NORMAL };
        let mut states = vec![p0, p1];
        for node in 0..4 {
            let mut parts = Vec::with_capacity(2);
            for (op, idx) in &geno[2 * node..2 * node + 2] {
                let stride = if reduce && *idx < 2 { 2 } else { 1 };
                let nm = format!("{name}.n{node}.{idx}");
                parts.push(op.apply(&mut net, &nm, states[*idx], stride));
            }
            let t = net.op(format!("{name}.n{node}"), &parts, parts[0].s);
            states.push(t);
        }
        let cat = &states[2..];
        let out = net.op(format!("{name}.concat"), cat, cat[0].s.with_c(4 * c));
        s0 = s1;
        s1 = out;
    }
    net.classifier(s1);
    finish(&net.prog, p, "darts")
}

pub(super) const NASNET: FamilyInfo = FamilyInfo {
    name: "nasnet",
    summary: "NASNet-A (Zoph et al. 2018), mobile layout: ImageNet stem with two reduction cells, 3 stacks of normal cells, 5-combination cells",
    params: &[
        ParamInfo { name: "cells", default: "12", help: "normal cells in all (cells/3 per stack; 12 is NASNet-A Mobile 4@1056)" },
        ParamInfo { name: "filters", default: "44", help: "filters F of the first stack (then 2F, 4F)" },
        RESOLUTION,
        BATCH,
        ALLOCS,
    ],
};

/// NASNet-A normal cell (TF-slim `nasnet_utils`): op pairs and hidden-state indices.
const NASNET_NORMAL: [(CellOp, usize); 10] = [
    (CellOp::Sep(5), 0),
    (CellOp::Sep(3), 1),
    (CellOp::Sep(5), 1),
    (CellOp::Sep(3), 1),
    (CellOp::AvgPool, 0),
    (CellOp::Skip, 1),
    (CellOp::AvgPool, 1),
    (CellOp::AvgPool, 1),
    (CellOp::Sep(3), 0),
    (CellOp::Skip, 0),
];
/// NASNet-A reduction cell.
const NASNET_REDUCE: [(CellOp, usize); 10] = [
    (CellOp::Sep(5), 0),
    (CellOp::Sep(7), 1),
    (CellOp::MaxPool, 0),
    (CellOp::Sep(7), 1),
    (CellOp::AvgPool, 0),
    (CellOp::Sep(5), 1),
    (CellOp::Skip, 3),
    (CellOp::AvgPool, 2),
    (CellOp::Sep(3), 2),
    (CellOp::MaxPool, 0),
];

/// One NASNet-A cell: states 0 (older input) and 1 (newer input) brought to
/// `f` channels, five combinations (sum of two ops; stride 2 on states 0 and 1
/// in a reduction cell), then the concatenation of the states no combination
/// used (TF-slim's `used_hiddenstates`): normal cells concat state 1 and the five combinations (6F),
/// reduction cells the combinations 3..=6 (4F).
fn nasnet_cell(net: &mut Net, name: &str, prev2: T, prev: T, f: u64, reduce: bool) -> T {
    let h1 = net.op(format!("{name}.pre1"), &[prev], prev.s.with_c(f));
    let h0 = preprocess(net, format!("{name}.pre0"), prev2, f, prev.s);
    let cell = if reduce {
        &NASNET_REDUCE
    } else {
        &NASNET_NORMAL
    };
    let mut states = vec![h0, h1];
    for comb in 0..5 {
        let mut parts = Vec::with_capacity(2);
        for (op, idx) in &cell[2 * comb..2 * comb + 2] {
            let stride = if reduce && *idx < 2 { 2 } else { 1 };
            let nm = format!("{name}.b{comb}.{idx}");
            parts.push(op.apply(net, &nm, states[*idx], stride));
        }
        let t = net.op(format!("{name}.b{comb}"), &parts, parts[0].s);
        states.push(t);
    }
    // TF-slim's `used_hiddenstates`: [1,0,0,0,0,0,0] (normal), [1,1,1,0,0,0,0] (reduction).
    let first = if reduce { 3 } else { 1 };
    let cat: Vec<T> = states[first..].to_vec();
    let c = cat.len() as u64 * f;
    net.op(format!("{name}.concat"), &cat, states[6].s.with_c(c))
}

/// `nasnet`: stem conv 3x3 s2 (32 channels), two reduction stem cells with
/// F/4 and F/2 filters, then three stacks of `cells/3` normal cells with F,
/// 2F, 4F filters, a reduction cell before the second and third stacks, and
/// the classifier. At 224 x 224 the stacks run at 28, 14 and 7 pixels.
/// Deterministic: the seed is not used.
pub(super) fn nasnet(p: &Params, _rng: &mut Rng) -> Result<Graph, GenError> {
    let cells = p.int("cells", 3, 3_000)?;
    if cells % 3 != 0 {
        return Err(p.bad("cells", "must be a multiple of 3 (three stacks)".into()));
    }
    let f = p.int("filters", 4, 100_000)?;
    let (res, batch) = net_params(p)?;
    let mut net = Net::new(batch);
    let img = net.input(res);
    let stem = net.op("stem".into(), &[img], img.s.stride(2).with_c(32));
    let st0 = nasnet_cell(&mut net, "stem0", stem, stem, f / 4, true);
    let st1 = nasnet_cell(&mut net, "stem1", stem, st0, f / 2, true);
    let (mut prev2, mut prev) = (st0, st1);
    let mut filters = f;
    for stack in 0..3 {
        if stack > 0 {
            filters *= 2;
            let r = nasnet_cell(&mut net, &format!("r{stack}"), prev2, prev, filters, true);
            (prev2, prev) = (prev, r);
        }
        for i in 0..cells / 3 {
            let name = format!("k{stack}.{i}");
            let out = nasnet_cell(&mut net, &name, prev2, prev, filters, false);
            (prev2, prev) = (prev, out);
        }
    }
    net.classifier(prev);
    finish(&net.prog, p, "nasnet")
}

#[cfg(test)]
mod tests {
    use super::super::{generate, GenSpec};
    use super::*;

    /// DARTS' stem halves C: `channels=1` would write an empty tensor.
    #[test]
    fn darts_refuses_one_channel() {
        let spec = GenSpec::parse("darts:channels=1").unwrap();
        let err = generate(&spec, 0).unwrap_err().to_string();
        assert!(err.contains("channels"), "{err}");
        let g = generate(&GenSpec::parse("darts:channels=2,cells=1").unwrap(), 0).unwrap();
        assert!(g
            .nodes()
            .all(|v| g.kind(v) != crate::NodeKind::Alloc || g.size(v) > 0));
    }

    #[test]
    fn watts_strogatz_keeps_n_k_over_2_edges() {
        for seed in 0..5 {
            let mut rng = Rng::new(seed);
            let preds = watts_strogatz(32, 4, 0.75, &mut rng);
            assert_eq!(preds.iter().map(Vec::len).sum::<usize>(), 64);
            let mut r2 = Rng::new(seed);
            assert_eq!(preds, watts_strogatz(32, 4, 0.75, &mut r2));
        }
        // p = 0: the ring lattice itself.
        let preds = watts_strogatz(6, 2, 0.0, &mut Rng::new(0));
        assert_eq!(preds[1], vec![0]);
        assert_eq!(preds[5], vec![0, 4]);
    }

    fn sizes(spec: &str) -> Vec<i64> {
        let g = generate(&GenSpec::parse(spec).unwrap(), 0).unwrap();
        g.nodes()
            .filter(|&v| g.kind(v) == crate::NodeKind::Alloc)
            .map(|v| g.delta(v))
            .collect()
    }

    #[test]
    fn tensor_sizes_follow_the_shape_model() {
        // randwire: input 3x224x224 fp32, conv1 39x112x112, conv2 78x56x56.
        let s = sizes("randwire");
        assert_eq!(
            &s[..3],
            &[3 * 224 * 224 * 4, 39 * 112 * 112 * 4, 78 * 56 * 56 * 4]
        );
        // A batch of 4 multiplies every tensor by 4.
        let s4 = sizes("randwire:batch=4");
        assert!(s.iter().zip(&s4).all(|(a, b)| 4 * a == *b));
        // darts: stem0 24x112x112, 48x56x56; stem1 48x28x28.
        let d = sizes("darts");
        assert_eq!(
            &d[1..4],
            &[24 * 112 * 112 * 4, 48 * 56 * 56 * 4, 48 * 28 * 28 * 4]
        );
        // nasnet: the classifier writes 1000 floats; the stem 32x112x112.
        let n = sizes("nasnet");
        assert_eq!(n[1], 32 * 112 * 112 * 4);
        assert_eq!(*n.last().unwrap(), 1000 * 4);
    }
}
