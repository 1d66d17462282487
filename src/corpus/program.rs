//! Tensor programs: ops that read and produce tensors, lowered to the seed
//! format's ALLOC / op / FREE nodes.
//!
//! Lowering, in program order, for each op: one ALLOC per output tensor, the
//! op itself (edges ALLOC -> op, producer -> op), then a FREE for every tensor
//! whose last reader this op is (edges reader -> FREE). A tensor nobody reads
//! is a graph output and is never freed. This is the convention the PyTorch
//! exporter (`scripts/export_torch.py`) follows too.

use serde_json::json;

use crate::graph::{Graph, GraphBuilder, GraphError, NodeIdx, NodeKind};

/// Where an ALLOC sits in the graph (`--allocs` of `gen` and `transform`
/// with the `cli` feature).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
#[serde(rename_all = "lowercase")]
pub enum AllocEncoding {
    /// Each ALLOC depends on the producers of its op's inputs: it cannot run
    /// before the op could.
    #[default]
    Anchored,
    /// The article's encoding: an ALLOC has no predecessor at all.
    Floating,
}

/// A tensor: output `output` of op `op`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TensorRef {
    /// Index of the producing op in [`TensorProgram::ops`].
    pub op: usize,
    /// Index into that op's [`OpSpec::outputs`].
    pub output: usize,
}

/// One op: its name, the tensors it reads, the byte sizes of its outputs.
#[derive(Debug, Clone, PartialEq)]
pub struct OpSpec {
    /// The op type, written as the op node's `Op` field (e.g. `Conv`).
    pub name: String,
    /// Tensors read, each an output of an earlier op; the graph gets one
    /// edge per distinct producer op.
    pub inputs: Vec<TensorRef>,
    /// Size in bytes of each output tensor, one ALLOC and buffer each.
    pub outputs: Vec<u64>,
}

/// A straight-line program of ops; ops may only read earlier ops' outputs.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TensorProgram {
    /// The ops in program order; a [`TensorRef`] names one by index.
    pub ops: Vec<OpSpec>,
}

impl TensorProgram {
    /// An empty program.
    pub fn new() -> Self {
        Self::default()
    }

    /// Appends an op; returns its index. Inputs must refer to earlier ops.
    pub fn push(
        &mut self,
        name: impl Into<String>,
        inputs: Vec<TensorRef>,
        outputs: Vec<u64>,
    ) -> usize {
        let i = self.ops.len();
        debug_assert!(inputs
            .iter()
            .all(|t| t.op < i && t.output < self.ops[t.op].outputs.len()));
        self.ops.push(OpSpec {
            name: name.into(),
            inputs,
            outputs,
        });
        i
    }

    /// Appends a one-output op; returns a reference to its output.
    pub fn op1(&mut self, name: impl Into<String>, inputs: &[TensorRef], bytes: u64) -> TensorRef {
        let op = self.push(name, inputs.to_vec(), vec![bytes]);
        TensorRef { op, output: 0 }
    }

    /// Checks that every input names an output of an earlier op (the
    /// fields are public, so [`TensorProgram::push`]'s promise is not
    /// enforced); [`TensorProgram::to_graph`] calls it.
    pub fn check(&self) -> Result<(), GraphError> {
        for (i, op) in self.ops.iter().enumerate() {
            for t in &op.inputs {
                let why = if t.op >= i {
                    Some("which is not an earlier op (ops read only earlier ops' outputs)".into())
                } else {
                    let outputs = self.ops[t.op].outputs.len();
                    (t.output >= outputs).then(|| format!("which has {outputs} output(s)"))
                };
                if let Some(why) = why {
                    return Err(GraphError::BadTensorRef {
                        op: i,
                        name: op.name.clone(),
                        producer: t.op,
                        output: t.output,
                        why,
                    });
                }
            }
        }
        Ok(())
    }

    /// Lowers to a graph builder (ids in program order).
    ///
    /// # Panics
    /// If an input names a missing output; one naming a later op gives a
    /// graph that does not mean the program. [`TensorProgram::check`]
    /// refuses both.
    ///
    /// # Complexity
    /// O(total inputs + total outputs).
    pub fn lower(&self, encoding: AllocEncoding) -> GraphBuilder {
        // Last reader of each tensor, to place its FREE.
        let mut last_reader: Vec<Vec<Option<usize>>> = self
            .ops
            .iter()
            .map(|op| vec![None; op.outputs.len()])
            .collect();
        for (i, op) in self.ops.iter().enumerate() {
            for t in &op.inputs {
                last_reader[t.op][t.output] = Some(i);
            }
        }
        let mut frees_after: Vec<Vec<TensorRef>> = vec![Vec::new(); self.ops.len()];
        for (p, outs) in last_reader.iter().enumerate() {
            for (o, r) in outs.iter().enumerate() {
                if let Some(r) = r {
                    frees_after[*r].push(TensorRef { op: p, output: o });
                }
            }
        }
        let buf = |t: TensorRef, base: &[i64]| base[t.op] + t.output as i64;
        let mut buf_base = Vec::with_capacity(self.ops.len());
        let mut next_buf = 0i64;
        for op in &self.ops {
            buf_base.push(next_buf);
            next_buf += op.outputs.len() as i64;
        }
        let mut b = GraphBuilder::new();
        let mut op_node = vec![0i64; self.ops.len()];
        let mut readers: Vec<Vec<Vec<i64>>> = self
            .ops
            .iter()
            .map(|op| vec![Vec::new(); op.outputs.len()])
            .collect();
        for (i, op) in self.ops.iter().enumerate() {
            let mut producers: Vec<i64> = op.inputs.iter().map(|t| op_node[t.op]).collect();
            producers.sort_unstable();
            producers.dedup();
            let allocs: Vec<i64> = op
                .outputs
                .iter()
                .enumerate()
                .map(|(o, &bytes)| {
                    let a = b.alloc(bytes, buf(TensorRef { op: i, output: o }, &buf_base));
                    if encoding == AllocEncoding::Anchored {
                        for &p in &producers {
                            b.edge(p, a);
                        }
                    }
                    a
                })
                .collect();
            let v = b.op(&op.name);
            op_node[i] = v;
            let input_ids: Vec<i64> = op.inputs.iter().map(|t| op_node[t.op]).collect();
            b.set_extra(v, "Inputs", json!(input_ids));
            for &a in &allocs {
                b.edge(a, v);
            }
            for &p in &producers {
                b.edge(p, v);
            }
            for t in &op.inputs {
                readers[t.op][t.output].push(v);
            }
            for &t in &frees_after[i] {
                let f = b.free(buf(t, &buf_base));
                let rs = &mut readers[t.op][t.output];
                rs.sort_unstable();
                rs.dedup();
                for &r in rs.iter() {
                    b.edge(r, f);
                }
            }
        }
        b
    }

    /// Checks ([`TensorProgram::check`]), lowers and validates.
    pub fn to_graph(&self, encoding: AllocEncoding) -> Result<Graph, GraphError> {
        self.check()?;
        self.lower(encoding).build()
    }
}

/// Expands an order of compute nodes into a full schedule of `g`: before
/// each compute node, its ALLOC predecessors not yet run (edge order); after
/// it, every FREE successor whose predecessors have all run (edge order).
/// Nodes still missing at the end (ALLOCs feeding no compute node) are
/// appended in index order. The result is not checked here: pass it to
/// [`crate::schedule::check`]. Handy to write a witness schedule as an op order.
///
/// # Complexity
/// O(n + m).
pub fn expand_op_order(g: &Graph, ops: &[NodeIdx]) -> Vec<NodeIdx> {
    let n = g.node_count();
    let mut done = vec![false; n];
    let mut order = Vec::with_capacity(n);
    for &c in ops {
        if done[c as usize] {
            continue;
        }
        for &p in g.preds(c) {
            if g.kind(p) == NodeKind::Alloc && !done[p as usize] {
                done[p as usize] = true;
                order.push(p);
            }
        }
        done[c as usize] = true;
        order.push(c);
        for &s in g.succs(c) {
            if g.kind(s) == NodeKind::Free
                && !done[s as usize]
                && g.preds(s).iter().all(|&q| done[q as usize])
            {
                done[s as usize] = true;
                order.push(s);
            }
        }
    }
    order.extend(g.nodes().filter(|&v| !done[v as usize]));
    order
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A program built field by field that reads a missing output or a
    /// later op is an error naming both, not a panic or a wrong graph.
    #[test]
    fn bad_tensor_refs_are_errors() {
        let op = |name: &str, inputs: Vec<TensorRef>| OpSpec {
            name: name.into(),
            inputs,
            outputs: vec![10],
        };
        let missing = TensorProgram {
            ops: vec![
                op("A", vec![]),
                op("B", vec![TensorRef { op: 0, output: 3 }]),
            ],
        };
        let err = missing.to_graph(AllocEncoding::Anchored).unwrap_err();
        assert_eq!(
            err.to_string(),
            "op #1 (`B`) reads output 3 of op #0, which has 1 output(s)"
        );
        let later = TensorProgram {
            ops: vec![
                op("A", vec![TensorRef { op: 1, output: 0 }]),
                op("B", vec![]),
            ],
        };
        let err = later.to_graph(AllocEncoding::Floating).unwrap_err();
        assert!(
            err.to_string().contains("which is not an earlier op"),
            "{err}"
        );
        let fine = TensorProgram {
            ops: vec![
                op("A", vec![]),
                op("B", vec![TensorRef { op: 0, output: 0 }]),
            ],
        };
        assert!(fine.to_graph(AllocEncoding::Anchored).is_ok());
    }
}
