//! Random families: `random-layered` (after Gagrani et al.) and
//! `tensor-program` (ops reading recent buffers).

use super::{finish, size, FamilyInfo, GenError, ParamInfo, Params, ALLOCS};
use crate::corpus::program::{TensorProgram, TensorRef};
use crate::graph::Graph;
use crate::rng::Rng;

pub(super) const RANDOM_LAYERED: FamilyInfo = FamilyInfo {
    name: "random-layered",
    summary: "layers of ops reading the previous layer and, with skip density, earlier ones (after Gagrani et al., NeurIPS 2022, app. A)",
    params: &[
        ParamInfo { name: "layers", default: "10", help: "number of layers" },
        ParamInfo { name: "width", default: "4", help: "ops per layer (each layer draws 1..=width)" },
        ParamInfo { name: "density", default: "0.3", help: "probability of each extra edge from the previous layer" },
        ParamInfo { name: "skip", default: "0.05", help: "probability of an edge from an op two or more layers back (within 4 layers)" },
        ParamInfo { name: "min", default: "1024", help: "smallest tensor, bytes" },
        ParamInfo { name: "max", default: "1048576", help: "largest tensor, bytes" },
        ALLOCS,
    ],
};

/// `random-layered`: each layer draws `1..=width` ops; each op reads one
/// random op of the previous layer, each other op of that layer with
/// probability `density`, and each op 2 to 4 layers back with probability
/// `skip`.
pub(super) fn random_layered(p: &Params, rng: &mut Rng) -> Result<Graph, GenError> {
    let layers = p.int("layers", 1, super::MAX_OPS)? as usize;
    let width = p.int("width", 1, 100_000)?;
    let density = p.float("density", 0.0, 1.0)?;
    let skip = p.float("skip", 0.0, 1.0)?;
    // Expected sizes: a layer draws (width + 1) / 2 ops on average, each
    // reading one op, a density share of the layer before and a skip
    // share of the three before that.
    let mean_width = (width as f64 + 1.0) / 2.0;
    let ops = layers as f64 * mean_width;
    let reads = ops * (1.0 + mean_width * (density + 3.0 * skip));
    p.within_limits("layers", "layers x width", ops, reads)?;
    let (lo, hi) = p.size_range()?;
    let mut prog = TensorProgram::new();
    let mut layer_ops: Vec<Vec<TensorRef>> = Vec::with_capacity(layers);
    for l in 0..layers {
        let count = rng.range(1, width) as usize;
        let mut this = Vec::with_capacity(count);
        for k in 0..count {
            let mut inputs = Vec::new();
            if l > 0 {
                let prev = &layer_ops[l - 1];
                // One guaranteed input keeps the graph connected layer to layer.
                inputs.push(prev[rng.below(prev.len() as u64) as usize]);
                for &t in prev {
                    if rng.chance(density) && !inputs.contains(&t) {
                        inputs.push(t);
                    }
                }
                for back in 2..=4.min(l) {
                    for &t in &layer_ops[l - back] {
                        if rng.chance(skip) && !inputs.contains(&t) {
                            inputs.push(t);
                        }
                    }
                }
            }
            this.push(prog.op1(format!("L{l}.{k}"), &inputs, size(rng, lo, hi)));
        }
        layer_ops.push(this);
    }
    finish(&prog, p, "random-layered")
}

pub(super) const TENSOR_PROGRAM: FamilyInfo = FamilyInfo {
    name: "tensor-program",
    summary: "a random straight-line program: each op reads 1..=inputs of the `window` most recent tensors and writes one or two",
    params: &[
        ParamInfo { name: "ops", default: "50", help: "number of ops" },
        ParamInfo { name: "window", default: "8", help: "an op reads among the most recent `window` tensors" },
        ParamInfo { name: "inputs", default: "3", help: "most tensors an op reads (it draws 1..=inputs, distinct)" },
        ParamInfo { name: "two", default: "0.2", help: "probability that an op writes two tensors" },
        ParamInfo { name: "min", default: "1024", help: "smallest tensor, bytes" },
        ParamInfo { name: "max", default: "1048576", help: "largest tensor, bytes" },
        ALLOCS,
    ],
};

/// `tensor-program`: op 0 reads nothing; op i draws how many tensors it reads
/// (`1..=inputs`, capped by what exists) and picks them without repetition
/// among the `window` most recently written tensors. A tensor nobody reads is
/// a graph output.
pub(super) fn tensor_program(p: &Params, rng: &mut Rng) -> Result<Graph, GenError> {
    let n = p.int("ops", 1, super::MAX_OPS)?;
    let window = p.int("window", 1, 1_000_000)? as usize;
    let max_in = p.int("inputs", 1, 1_000)? as usize;
    let two = p.float("two", 0.0, 1.0)?;
    // Each op reads (1 + inputs) / 2 tensors on average, at most `window`.
    let mean_reads = ((1 + max_in) as f64 / 2.0).min(window as f64);
    p.within_limits(
        "ops",
        "ops x (1 + inputs) / 2",
        n as f64,
        n as f64 * mean_reads,
    )?;
    let (lo, hi) = p.size_range()?;
    let mut prog = TensorProgram::new();
    let mut written: Vec<TensorRef> = Vec::new();
    for i in 0..n {
        let recent = &written[written.len().saturating_sub(window)..];
        let mut pool: Vec<TensorRef> = recent.to_vec();
        let want = if pool.is_empty() {
            0
        } else {
            rng.range(1, max_in.min(pool.len()) as u64) as usize
        };
        let mut inputs = Vec::with_capacity(want);
        for _ in 0..want {
            let k = rng.below(pool.len() as u64) as usize;
            inputs.push(pool.swap_remove(k));
        }
        let outputs: Vec<u64> = if rng.chance(two) {
            vec![size(rng, lo, hi), size(rng, lo, hi)]
        } else {
            vec![size(rng, lo, hi)]
        };
        let count = outputs.len();
        let op = prog.push(format!("op{i}"), inputs, outputs);
        written.extend((0..count).map(|output| TensorRef { op, output }));
    }
    finish(&prog, p, "tensor-program")
}
