#!/usr/bin/env python3
"""Export PyTorch models as memsched seed-format graphs (ALLOC / op / FREE DAGs).

Traces a model (inference, or forward + backward for training) with
torch.fx.experimental.proxy_tensor.make_fx in fake-tensor mode (no real
compute, no weights downloaded), then turns the aten-level fx graph into the
seed JSON format read by memsched:

  {"Nodes": [{"Id": 0, "Op": "ALLOC", "Size": 1024, "BufId": 0},
             {"Id": 1, "Op": "aten.mm", "Name": "mm", "Target": "aten.mm.default", "Inputs": []},
             {"Id": 2, "Op": "FREE", "BufId": 0}],
   "Edges": [[0, 1], [1, 2]]}

Memory model of the export (see scripts/README-export.md for the full list):
- one buffer per tensor an op produces (Size = numel * element size); views,
  aliases and in-place results share the buffer of their source;
- ALLOC right before its op, FREE right after the last op that reads the
  buffer (through any alias) -- that is the program order written to the file;
- graph outputs are never freed; graph inputs, parameters and buffers are not
  counted unless --include-params.

Run `python scripts/export_torch.py --help`, or `--all` to regenerate every
committed file in datasets/models/ (and datasets/models/manifest.csv).
"""

from __future__ import annotations

import argparse
import csv
import json
import operator
import os
import shlex
import sys
import time
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

# torch (and torchvision / transformers, imported in build_model) are only
# needed to export: --help and --check run with a plain python3, so these
# names are bound by load_torch() on the export paths, not here.
torch = None
make_fx = None
functional_call = None
pytree = None


def load_torch():
    """Import torch for an export, or exit with what to install."""
    global torch, make_fx, functional_call, pytree
    if torch is not None:
        return
    try:
        import torch as _torch
        from torch.fx.experimental.proxy_tensor import make_fx as _make_fx
        from torch.func import functional_call as _functional_call
        from torch.utils import _pytree as _pytree
    except ImportError as e:
        raise SystemExit(f"export_torch.py: exporting needs torch ({e}); install it with "
                         "`pip install -r scripts/requirements-torch.txt` (--check does not)")
    torch, make_fx, functional_call, pytree = _torch, _make_fx, _functional_call, _pytree

REPO = Path(__file__).resolve().parent.parent
MODELS_DIR = REPO / "datasets" / "models"
MANIFEST = MODELS_DIR / "manifest.csv"
MANIFEST_COLUMNS = ["file", "model", "mode", "batch", "input_shape", "dtype",
                    "torch_version", "allocs", "command"]

MODELS = ["resnet50", "mobilenet_v2", "efficientnet_b0", "bert_base"]
MODES = ["inference", "training"]
BERT_SEQ_LEN = 128

# Ops whose result is a view of (shares storage with) their first tensor
# argument. Most are also recognised from the schema's alias annotation; the
# list is a fallback and covers _unsafe_view, whose schema has no annotation
# but which returns a view of its input.
VIEW_OPS = {
    "view", "reshape", "expand", "expand_as", "t", "transpose", "permute",
    "unsqueeze", "squeeze", "slice", "select", "alias", "_unsafe_view",
    "detach", "as_strided", "narrow", "diagonal", "unfold", "view_as",
    "_reshape_alias", "unbind", "split", "split_with_sizes", "chunk",
    "numpy_T", "mT", "movedim", "lift_fresh",
}


# ---------------------------------------------------------------- models ---

def build_model(name: str) -> torch.nn.Module:
    """Build a model with random initialisation (nothing is downloaded)."""
    load_torch()
    torch.manual_seed(0)
    if name in ("resnet50", "mobilenet_v2", "efficientnet_b0"):
        import torchvision
        return getattr(torchvision.models, name)(weights=None)
    if name == "bert_base":
        from transformers import BertConfig, BertModel
        # eager attention: the math is written out in aten ops (bmm, softmax,
        # dropout); sdpa would give a backend-specific fused kernel instead.
        return BertModel(BertConfig(attn_implementation="eager"))
    raise SystemExit(f"unknown model {name!r}; choose from {', '.join(MODELS)}")


def example_input(name: str, batch: int) -> torch.Tensor:
    if name == "bert_base":
        return torch.randint(0, 30522, (batch, BERT_SEQ_LEN), dtype=torch.int64)
    return torch.randn(batch, 3, 224, 224)


def input_shape_str(name: str, batch: int) -> str:
    if name == "bert_base":
        return f"{batch}x{BERT_SEQ_LEN} int64"
    return f"{batch}x3x224x224 float32"


@dataclass
class Trace:
    gm: torch.fx.GraphModule
    n_params: int  # the first n_params placeholders are parameters and buffers
    seconds: float


def trace(model_name: str, mode: str, batch: int, model: torch.nn.Module | None = None) -> Trace:
    """Trace model_name with make_fx in fake mode; every tensor is a graph input."""
    load_torch()
    model = model if model is not None else build_model(model_name)
    params = dict(model.named_parameters())
    pb = dict(params)
    pb.update(dict(model.named_buffers()))
    names = list(pb)
    pnames = list(params)
    x = example_input(model_name, batch)
    n = len(names)

    if mode == "inference":
        model.eval()

        def fn(*args):
            d = dict(zip(names, args[:n]))
            with torch.no_grad():
                out = functional_call(model, d, (args[n],))
            if model_name == "bert_base":
                return (out.last_hidden_state, out.pooler_output)
            return (out,)

        args = [pb[k] for k in names] + [x]
    elif mode == "training":
        model.train()

        def fn(*args):
            d = dict(zip(names, args[:n]))
            out = functional_call(model, d, (args[n],))
            if model_name == "bert_base":
                # pooler_output depends on every parameter, so all get a gradient
                loss = out.pooler_output.sum()
            else:
                loss = torch.nn.functional.cross_entropy(out, args[n + 1])
            grads = torch.autograd.grad(loss, [d[k] for k in pnames])
            return (loss, *grads)

        args = [pb[k] for k in names] + [x]
        if model_name != "bert_base":
            args.append(torch.zeros(batch, dtype=torch.int64))  # fixed label 0
    else:
        raise SystemExit(f"unknown mode {mode!r}")

    t0 = time.time()
    gm = make_fx(fn, tracing_mode="fake")(*args)
    return Trace(gm, n, time.time() - t0)


# ------------------------------------------------------- fx -> seed graph ---

@dataclass(eq=False)
class Buf:
    """One storage: the output of an op, or a graph input / parameter."""
    size: int
    kind: str  # "act" (op output), "param" (parameter/buffer), "input"
    producer: int | None = None  # index of the producing op record (act)
    readers: list = field(default_factory=list)  # op record indices, in order
    is_output: bool = False
    alloc_id: int | None = None  # seed node id of its ALLOC, once emitted
    bid: int | None = None
    last_write: int | None = None  # hazard tracking (in-place writes)
    readers_since_write: list = field(default_factory=list)


@dataclass
class Val:
    """A tensor value seen by the fx graph: which storage, which op made it."""
    buf: Buf
    producer: int | None  # op record index (None for placeholders)


@dataclass
class OpRec:
    name: str
    target: str
    op: str
    inputs: list  # Val, one per tensor argument (in argument order)
    fresh: list  # Buf, new storages produced by this op
    writes: list  # Buf, storages mutated in place
    node_id: int | None = None


def tensor_nbytes(t) -> int:
    return int(t.numel()) * int(t.element_size())


def op_names(target) -> tuple[str, str]:
    """(Op, Target) strings, e.g. ("aten.mm", "aten.mm.default")."""
    if isinstance(target, torch._ops.OpOverload):
        return str(target.overloadpacket), str(target)
    name = getattr(target, "__name__", str(target))
    mod = getattr(target, "__module__", None) or ""
    full = f"{mod}.{name}" if mod else name
    return full, full


def base_name(target) -> str:
    if isinstance(target, torch._ops.OpOverload):
        return target._schema.name.split("::")[-1]
    return getattr(target, "__name__", str(target))


def arg_by_schema(node: torch.fx.Node, schema) -> list:
    """The fx-level value passed for each schema argument (None if absent)."""
    out = []
    pos = 0
    for a in schema.arguments:
        if not a.kwarg_only and pos < len(node.args):
            out.append(node.args[pos])
            pos += 1
        else:
            out.append(node.kwargs.get(a.name))
    return out


def fx_nodes_in(x) -> list:
    return [v for v in pytree.tree_leaves(x) if isinstance(v, torch.fx.Node)]


class Converter:
    def __init__(self, gm: torch.fx.GraphModule, n_params: int, include_params: bool):
        self.gm = gm
        self.n_params = n_params
        self.include_params = include_params
        self.vals: dict = {}  # fx node -> Val | list[Val | None] | None
        self.ops: list[OpRec] = []
        self.placeholder_bufs: list[Buf] = []
        self.fx_nodes = len(gm.graph.nodes)
        self.view_targets: set = set()
        self.inplace_targets: set = set()
        self._storage_buf: dict = {}  # fake storage id -> Buf (cross-check)
        self._buf_storage: dict = {}  # id(Buf) -> fake storage id

    # -- value resolution
    def resolve(self, x) -> list:
        res = []
        for n in fx_nodes_in(x):
            v = self.vals.get(n)
            if isinstance(v, Val):
                res.append(v)
            elif isinstance(v, list):
                res.extend(e for e in v if isinstance(e, Val))
        return res

    def run(self):
        for node in self.gm.graph.nodes:
            if node.op == "placeholder":
                self.placeholder(node)
            elif node.op == "call_function" and node.target is operator.getitem:
                src, idx = node.args
                v = self.vals.get(src)
                self.vals[node] = v[idx] if isinstance(v, list) else None
            elif node.op == "call_function":
                self.call(node)
            elif node.op == "output":
                for v in self.resolve(node.args):
                    v.buf.is_output = True
            elif node.op == "get_attr":
                raise SystemExit(f"unexpected get_attr {node.name}: all tensors should be inputs")
            else:
                raise SystemExit(f"unsupported fx node {node.op} {node.name}")
            self.verify_aliasing(node)
        return self

    def verify_aliasing(self, node):
        """Cross-check the schema/name-based aliasing against the fake tensors'
        own storages: two values share a storage iff they share a buffer here."""
        val = node.meta.get("val")
        v = self.vals.get(node)
        outs = list(val) if isinstance(val, (tuple, list)) else [val]
        ours = v if isinstance(v, list) else [v]
        for o, mine in zip(outs, ours):
            if not isinstance(o, torch.Tensor) or not isinstance(mine, Val):
                continue
            try:
                key = o.untyped_storage()._cdata
            except Exception:  # noqa: BLE001 - no storage to compare with
                continue
            known = self._storage_buf.setdefault(key, mine.buf)
            if known is not mine.buf or self._buf_storage.setdefault(id(mine.buf), key) != key:
                raise SystemExit(f"aliasing mismatch at fx node {node.name} ({node.target}): "
                                 "the export's view/in-place rules disagree with tensor storage")

    def placeholder(self, node):
        idx = len(self.placeholder_bufs)
        val = node.meta.get("val")
        kind = "param" if idx < self.n_params else "input"
        size = tensor_nbytes(val) if isinstance(val, torch.Tensor) else 0
        b = Buf(size=size, kind=kind)
        self.placeholder_bufs.append(b)
        self.vals[node] = Val(b, None) if isinstance(val, torch.Tensor) else None

    def call(self, node):
        target = node.target
        op, tgt = op_names(target)
        base = base_name(target)
        schema = target._schema if isinstance(target, torch._ops.OpOverload) else None
        inputs = self.resolve((node.args, node.kwargs))
        rec_idx = len(self.ops)

        # Which argument does each output alias, and which arguments are written?
        alias_src: dict = {}  # alias set name -> list[Val]
        writes: list[Buf] = []
        list_alias: list | None = None
        if schema is not None:
            for a, x in zip(schema.arguments, arg_by_schema(node, schema)):
                ai = a.alias_info
                if ai is None:
                    continue
                vs = self.resolve(x)
                for s in ai.before_set:
                    alias_src.setdefault(s, vs)
                if "*" in ai.after_set and list_alias is None:
                    list_alias = vs
                if ai.is_write:
                    writes.extend(v.buf for v in vs)
        first_tensor = inputs[:1]
        if base.endswith("_") and not base.endswith("__") and not writes and first_tensor:
            writes.append(first_tensor[0].buf)  # in-place by naming convention

        val = node.meta.get("val")
        multi = isinstance(val, (tuple, list))
        outs = list(val) if multi else [val]
        returns = list(schema.returns) if schema is not None else []
        fresh: list[Buf] = []
        out_vals: list = []
        for j, o in enumerate(outs):
            if not isinstance(o, torch.Tensor):
                out_vals.append(None)
                continue
            src = None
            r = returns[j] if j < len(returns) else (returns[0] if len(returns) == 1 else None)
            if r is not None and r.alias_info is not None:
                for s in r.alias_info.before_set:
                    if alias_src.get(s):
                        src = alias_src[s][0]
                        break
            if src is None and r is not None and "List" in str(r.type) and list_alias:
                src = list_alias[0]
            if src is None and (base in VIEW_OPS or (base.endswith("_") and not base.endswith("__"))) and first_tensor:
                src = first_tensor[0]
            if src is not None:
                (self.inplace_targets if writes else self.view_targets).add(tgt)
                out_vals.append(Val(src.buf, rec_idx))
            else:
                b = Buf(size=tensor_nbytes(o), kind="act", producer=rec_idx)
                fresh.append(b)
                out_vals.append(Val(b, rec_idx))

        rec = OpRec(name=node.name, target=tgt, op=op, inputs=inputs, fresh=fresh, writes=writes)
        self.ops.append(rec)
        for v in inputs:
            if rec_idx not in v.buf.readers[-1:]:
                v.buf.readers.append(rec_idx)
        self.vals[node] = out_vals if multi else out_vals[0]

    # -- emission
    def emit(self, allocs: str) -> dict:
        nodes: list[dict] = []
        edges: set = set()
        next_bid = [0]

        def has_buffer(b: Buf) -> bool:
            if b.size <= 0:
                return False  # zero-byte tensors (e.g. empty([0])) carry no memory
            return b.kind == "act" or self.include_params

        def new_node(d: dict) -> int:
            d = {"Id": len(nodes), **d}
            nodes.append(d)
            return d["Id"]

        def alloc(b: Buf):
            b.bid = next_bid[0]
            next_bid[0] += 1
            b.alloc_id = new_node({"Op": "ALLOC", "Size": b.size, "BufId": b.bid})

        def freed(b: Buf) -> bool:
            if not has_buffer(b) or b.is_output:
                return False
            return b.kind != "param"  # parameters/buffers persist: never freed

        # last op record that touches each buffer (readers include writers and
        # view ops, since those take the buffer as an argument)
        frees_after: dict[int, list[Buf]] = {}
        frees_at_start: list[Buf] = []
        for b in self._all_bufs():
            if not freed(b):
                continue
            last = b.readers[-1] if b.readers else b.producer
            if last is None:
                frees_at_start.append(b)
            else:
                frees_after.setdefault(last, []).append(b)

        def free(b: Buf):
            fid = new_node({"Op": "FREE", "BufId": b.bid})
            preds = [self.ops[r].node_id for r in b.readers]
            if not preds:
                preds = [self.ops[b.producer].node_id] if b.producer is not None else [b.alloc_id]
            for p in preds:
                edges.add((p, fid))

        if self.include_params:
            for b in self.placeholder_bufs:
                if has_buffer(b):
                    alloc(b)
            for b in frees_at_start:
                free(b)

        def producer_id(v: Val) -> int | None:
            if v.producer is not None:
                return self.ops[v.producer].node_id
            return v.buf.alloc_id  # placeholder: its ALLOC if included, else None

        for i, rec in enumerate(self.ops):
            preds = []
            for v in rec.inputs:
                p = producer_id(v)
                if p is not None and p not in preds:
                    preds.append(p)
            alloc_ids = []
            for b in rec.fresh:
                if has_buffer(b):
                    alloc(b)
                    alloc_ids.append(b.alloc_id)
            rec.node_id = new_node({"Op": rec.op, "Name": rec.name, "Target": rec.target,
                                    "Inputs": [p for p in preds if nodes[p]["Op"] != "ALLOC"]})
            for p in preds:
                edges.add((p, rec.node_id))
            for a in alloc_ids:
                edges.add((a, rec.node_id))
                if allocs == "anchored":
                    for p in preds:
                        edges.add((p, a))
            # ordering hazards of in-place writes (read-after-write,
            # write-after-read, write-after-write) on the same storage
            seen = set()
            for v in rec.inputs:
                b = v.buf
                if id(b) in seen:
                    continue
                seen.add(id(b))
                if b.last_write is not None and b.last_write != i:
                    edges.add((self.ops[b.last_write].node_id, rec.node_id))
                b.readers_since_write.append(i)
            for b in rec.writes:
                if b.last_write is not None and b.last_write != i:
                    edges.add((self.ops[b.last_write].node_id, rec.node_id))
                for r in b.readers_since_write:
                    if r != i:
                        edges.add((self.ops[r].node_id, rec.node_id))
                b.last_write = i
                b.readers_since_write = []
            for b in sorted(frees_after.get(i, []), key=lambda b: b.bid):
                free(b)

        return {"Nodes": nodes, "Edges": sorted(edges)}

    def _all_bufs(self):
        seen = set()
        for b in self.placeholder_bufs:
            if id(b) not in seen:
                seen.add(id(b))
                yield b
        for rec in self.ops:
            for b in rec.fresh:
                if id(b) not in seen:
                    seen.add(id(b))
                    yield b


def convert(tr: Trace, allocs: str, include_params: bool) -> tuple[dict, Converter]:
    conv = Converter(tr.gm, tr.n_params, include_params).run()
    return conv.emit(allocs), conv


# ----------------------------------------------------------- checks, io ---

class GraphCheckError(Exception):
    """A graph memsched would refuse; the message says why, naming the ids."""


class _JsonObject(dict):
    """A JSON object that remembers the keys written twice in it (the last
    value is kept, as json does): memsched refuses some of them."""
    duplicated: tuple = ()


def _json_object(pairs) -> _JsonObject:
    obj = _JsonObject()
    twice = []
    for k, v in pairs:
        if k in obj:
            twice.append(k)
        obj[k] = v
    if twice:
        obj.duplicated = tuple(twice)
    return obj


def load_graph_text(text: str):
    """Parse a graph's JSON, remembering duplicated keys for check_graph."""
    return json.loads(text, object_pairs_hook=_json_object)


I64_MIN, I64_MAX = -(2**63), 2**63 - 1


def _is_int(x) -> bool:
    # JSON integers only: memsched refuses 2.0, "2" and true where an
    # integer goes, and json reads true as a bool (an int in Python).
    return isinstance(x, int) and not isinstance(x, bool)


def check_graph(g) -> dict:
    """Validate a seed graph; return its counts and program-order peak.

    Explicit checks that raise GraphCheckError (not asserts, which
    `python -O` drops), of the rules of memsched's reader
    (src/graph/build.rs) that an export could break: distinct integer ids,
    edges [u, v] between existing ids, no cycle, ALLOC with an integer
    Size >= 0 and a BufId, FREE with a BufId, one ALLOC and at most one
    FREE per buffer, no FREE without ALLOC, every FREE reachable from its
    ALLOC. Like memsched, it does not require ids to be 0..n-1 or in the
    order of the Nodes array, nor edges to follow that order: only the
    program-order peak needs the order, and is None when an edge breaks it
    (memsched's `program` baseline then fails too). Other rules (field
    case, Latency, ...) are left to `memsched validate`.
    """
    if not isinstance(g, dict) or not isinstance(g.get("Nodes"), list):
        raise GraphCheckError('not a graph: expected a JSON object with a "Nodes" array')
    # As memsched: "Nodes" and "Edges" once, and every field of a node once
    # (read with load_graph_text; other keys of the top level are ignored).
    for key in getattr(g, "duplicated", ()):
        if key in ("Nodes", "Edges"):
            raise GraphCheckError(f'the key "{key}" is written twice')
    nodes = g["Nodes"]
    edges = g.get("Edges", [])  # optional for memsched too: no edges
    if not isinstance(edges, list):
        raise GraphCheckError('"Edges" is not an array of [u, v] pairs')
    n = len(nodes)
    pos: dict = {}  # node id -> its position in the Nodes array
    ids: list = []
    for i, nd in enumerate(nodes):
        if not isinstance(nd, dict):
            raise GraphCheckError(f"node #{i} of the Nodes array is not an object")
        twice = getattr(nd, "duplicated", ())
        if twice:
            raise GraphCheckError(f"node #{i} of the Nodes array has the field "
                                  f"{twice[0]!r} twice")
        nid = nd.get("Id")
        if not _is_int(nid):
            raise GraphCheckError(f"node #{i} of the Nodes array has no integer Id (Id {nid!r})")
        if not I64_MIN <= nid <= I64_MAX:
            raise GraphCheckError(f"node #{i} of the Nodes array: Id {nid} is out of range "
                                  "(from -2^63 to 2^63 - 1)")
        if nid in pos:
            raise GraphCheckError(f"duplicate node id {nid} (nodes #{pos[nid]} and #{i} "
                                  "of the Nodes array)")
        op = nd.get("Op")
        if not isinstance(op, str):
            raise GraphCheckError(f"node {nid} has no string Op (Op {op!r})")
        t = op.strip()
        if op not in ("ALLOC", "FREE") and t.isascii() and t.upper() in ("ALLOC", "FREE"):
            raise GraphCheckError(f"node {nid} has Op {op!r}: write exactly {t.upper()!r} "
                                  "(Op is case-sensitive)")
        pos[nid] = i
        ids.append(nid)

    # Adjacency by position in the Nodes array.
    succ: list = [[] for _ in range(n)]
    pred: list = [[] for _ in range(n)]
    breaks_order = None  # the first edge whose source comes later in Nodes
    for k, e in enumerate(edges):
        # a list from JSON; a tuple from convert()
        if not (isinstance(e, (list, tuple)) and len(e) == 2 and all(_is_int(x) for x in e)):
            raise GraphCheckError(f"edge #{k} of the Edges array is not [u, v], "
                                  f"two integer node ids: {e!r}")
        u, v = e
        for x in (u, v):
            if x not in pos:
                raise GraphCheckError(f"edge #{k} [{u}, {v}] refers to missing node {x}")
        a, b = pos[u], pos[v]
        succ[a].append(b)
        pred[b].append(a)
        if a >= b and breaks_order is None:
            breaks_order = (u, v)

    # Kahn's algorithm, seeded in program order as memsched's is; topo[i]
    # is node i's place in that topological order.
    indeg = [len(p) for p in pred]
    topo = [-1] * n
    dq = deque(i for i in range(n) if indeg[i] == 0)
    done = 0
    while dq:
        u = dq.popleft()
        topo[u] = done
        done += 1
        for w in succ[u]:
            indeg[w] -= 1
            if indeg[w] == 0:
                dq.append(w)
    if done < n:
        # Every node left has a predecessor left: walk back until a node
        # repeats, and report that loop forwards.
        v = next(i for i in range(n) if topo[i] < 0)
        seen_at: dict = {}
        walk: list = []
        while v not in seen_at:
            seen_at[v] = len(walk)
            walk.append(v)
            v = next(p for p in pred[v] if topo[p] < 0)
        cycle = walk[seen_at[v]:][::-1]
        raise GraphCheckError("the edges contain a cycle: "
                              + " -> ".join(str(ids[c]) for c in cycle + cycle[:1]))

    alloc_of: dict = {}  # BufId -> position of its ALLOC
    free_of: dict = {}  # BufId -> position of its FREE
    size_of: dict = {}
    total = 0
    for i, nd in enumerate(nodes):
        op, nid = nd["Op"], ids[i]
        if op not in ("ALLOC", "FREE"):
            continue
        b = nd.get("BufId")
        if not _is_int(b):
            raise GraphCheckError(f"{op} node {nid} has no integer BufId (BufId {b!r})")
        if not I64_MIN <= b <= I64_MAX:
            raise GraphCheckError(f"{op} node {nid}: BufId {b} is out of range "
                                  "(from -2^63 to 2^63 - 1)")
        table = alloc_of if op == "ALLOC" else free_of
        if b in table:
            twice = "allocated" if op == "ALLOC" else "freed"
            raise GraphCheckError(f"buffer {b} is {twice} twice, by {op} nodes "
                                  f"{ids[table[b]]} and {nid}")
        table[b] = i
        if op == "ALLOC":
            size = nd.get("Size")
            if not _is_int(size):
                raise GraphCheckError(f"ALLOC node {nid} has no integer Size (Size {size!r})")
            if size < 0:
                raise GraphCheckError(f"ALLOC node {nid} has a negative Size ({size})")
            total += size
            if total > 2**63 - 1:
                raise GraphCheckError("the ALLOC sizes add up to more than "
                                      "9223372036854775807 bytes (2^63 - 1)")
            size_of[b] = size
    for b, f in free_of.items():
        if b not in alloc_of:
            raise GraphCheckError(f"FREE node {ids[f]} releases buffer {b}, "
                                  "which no ALLOC node allocates")
    # Each FREE reachable from its ALLOC: a search forward from the ALLOC,
    # bounded by the FREE's place in the topological order (no path to it
    # passes a node placed after it).
    for b, goal in sorted(free_of.items(), key=lambda kv: kv[1]):
        start = alloc_of[b]
        limit = topo[goal]
        seen = {start}
        dq = deque([start])
        found = False
        while dq and not found:
            u = dq.popleft()
            for w in succ[u]:
                if w == goal:
                    found = True
                    break
                if topo[w] < limit and w not in seen:
                    seen.add(w)
                    dq.append(w)
        if not found:
            raise GraphCheckError(f"FREE node {ids[goal]} of buffer {b} is not reachable from "
                                  f"its ALLOC node {ids[start]}: some order would free the "
                                  "buffer before allocating it")

    # Program order (the Nodes array) is a schedule only if every edge
    # follows it; its peak is max(0, max prefix sum), as memsched counts.
    peak = None
    if breaks_order is None:
        mem = peak = 0
        for nd in nodes:
            if nd["Op"] == "ALLOC":
                mem += nd["Size"]
            elif nd["Op"] == "FREE":
                mem -= size_of[nd["BufId"]]
            peak = max(peak, mem)
    final = sum(size_of.values()) - sum(size_of[b] for b in free_of)
    return {"nodes": n, "edges": len(edges), "allocs": len(alloc_of), "frees": len(free_of),
            "peak": peak, "final": final, "breaks_order": breaks_order,
            "compute": sum(1 for nd in nodes if nd["Op"] not in ("ALLOC", "FREE"))}


def write_json(g: dict, path: Path):
    """Compact JSON, one node per line, edges grouped one line per source node."""
    path.parent.mkdir(parents=True, exist_ok=True)
    dump = lambda x: json.dumps(x, separators=(",", ":"))  # noqa: E731
    lines = ['{"Nodes": [']
    lines.append(",\n".join(dump(nd) for nd in g["Nodes"]))
    lines.append('], "Edges": [')
    groups: list = []
    cur: list = []
    for e in g["Edges"]:
        if cur and cur[0][0] != e[0]:
            groups.append(cur)
            cur = []
        cur.append(list(e))
    if cur:
        groups.append(cur)
    lines.append(",\n".join(",".join(dump(e) for e in grp) for grp in groups))
    lines.append("]}")
    path.write_text("\n".join(lines) + "\n")


def file_name(model: str, mode: str, batch: int, allocs: str, include_params: bool) -> str:
    s = f"{model}_{mode}_b{batch}"
    if allocs == "floating":
        s += "_floating"
    if include_params:
        s += "_params"
    return s + ".json"


def rel(p: Path) -> str:
    try:
        return str(p.resolve().relative_to(REPO))
    except ValueError:
        return str(p)


def command_for(model, mode, batch, allocs, include_params, out: Path) -> str:
    parts = ["python", "scripts/export_torch.py", "--model", model, "--mode", mode,
             "--batch", str(batch)]
    if allocs != "anchored":
        parts += ["--allocs", allocs]
    if include_params:
        parts.append("--include-params")
    parts += ["-o", rel(out)]
    return " ".join(shlex.quote(p) for p in parts)


def update_manifest(rows: list[dict]):
    """Add or replace rows (keyed by file) in datasets/models/manifest.csv."""
    existing: dict = {}
    if MANIFEST.exists():
        with MANIFEST.open(newline="") as f:
            for r in csv.DictReader(f):
                existing[r["file"]] = r
    for r in rows:
        existing[r["file"]] = r
    MANIFEST.parent.mkdir(parents=True, exist_ok=True)
    with MANIFEST.open("w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=MANIFEST_COLUMNS, lineterminator="\n")
        w.writeheader()
        for k in sorted(existing):
            w.writerow({c: existing[k].get(c, "") for c in MANIFEST_COLUMNS})


def export_one(tr: Trace, model, mode, batch, allocs, include_params, out: Path) -> dict:
    g, conv = convert(tr, allocs, include_params)
    # The export writes nodes in program order and every edge forward, so
    # a graph failing the check, or without a program-order peak, is a bug
    # of the conversion: nothing is written.
    try:
        stats = check_graph(g)
    except GraphCheckError as e:
        raise SystemExit(f"export_torch.py: the graph for {rel(out)} is not valid: {e}")
    if stats["peak"] is None:
        raise SystemExit(f"export_torch.py: the graph for {rel(out)} has edge "
                         f"{list(stats['breaks_order'])} against its program order")
    write_json(g, out)
    mb = out.stat().st_size / 1e6
    print(f"{rel(out)}: fx_nodes={conv.fx_nodes} nodes={stats['nodes']} edges={stats['edges']} "
          f"buffers={stats['allocs']} peak={stats['peak']} B ({stats['peak'] / 2**20:.2f} MiB) "
          f"final={stats['final']} B size={mb:.2f} MB trace={tr.seconds:.1f}s", flush=True)
    if mb > 15:
        print(f"WARNING: {rel(out)} is {mb:.1f} MB (> 15 MB)", file=sys.stderr)
    return {
        "file": out.name if out.parent.resolve() == MODELS_DIR.resolve() else rel(out),
        "model": model, "mode": mode, "batch": str(batch),
        "input_shape": input_shape_str(model, batch), "dtype": "float32",
        "torch_version": torch.__version__, "allocs": allocs,
        "command": command_for(model, mode, batch, allocs, include_params, out),
    }


# The committed set: every model x mode x batch in the anchored encoding,
# plus the floating encoding for batch 1.
ALL_BATCHES = [1, 32]
FLOATING_BATCHES = [1]


def export_all(manifest: bool = True):
    t0 = time.time()
    rows = []
    for model_name in MODELS:
        model = build_model(model_name)
        for mode in MODES:
            for batch in ALL_BATCHES:
                tr = trace(model_name, mode, batch, model)
                variants = ["anchored"] + (["floating"] if batch in FLOATING_BATCHES else [])
                for allocs in variants:
                    out = MODELS_DIR / file_name(model_name, mode, batch, allocs, False)
                    rows.append(export_one(tr, model_name, mode, batch, allocs, False, out))
    if manifest:
        update_manifest(rows)
        print(f"wrote {len(rows)} files and {rel(MANIFEST)} in {time.time() - t0:.1f}s")
    else:
        print(f"wrote {len(rows)} files ({rel(MANIFEST)} left as it was) in {time.time() - t0:.1f}s")


def check_files(paths: list[str]) -> int:
    """Check each file, report each; 0 if all pass, else 1 (after them all)."""
    failed = 0
    for p in paths:
        try:
            # utf-8-sig: memsched skips a leading byte-order mark too
            g = load_graph_text(Path(p).read_text(encoding="utf-8-sig"))
            s = check_graph(g)
        except OSError as e:
            why = f"cannot read it: {e.strerror or e}"
        except UnicodeDecodeError as e:
            why = f"not UTF-8 text: {e}"
        except json.JSONDecodeError as e:
            why = f"malformed JSON at line {e.lineno}, column {e.colno}: {e.msg}"
        except GraphCheckError as e:
            why = str(e)
        else:
            if s["peak"] is None:
                u, v = s["breaks_order"]
                peak = f"none (edge [{u}, {v}] runs against the Nodes order)"
            else:
                peak = str(s["peak"])
            print(f"{p}: OK nodes={s['nodes']} edges={s['edges']} buffers={s['allocs']} "
                  f"compute={s['compute']} peak={peak} final={s['final']}")
            continue
        failed += 1
        print(f"{p}: error: {why}", file=sys.stderr)
    if failed and len(paths) > 1:
        print(f"{failed} of {len(paths)} files failed the check", file=sys.stderr)
    return 1 if failed else 0


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    # --mode, --batch and --allocs default to None so that giving one with
    # --all or --check (which ignore them) is seen and refused; their
    # defaults are filled in below.
    ap.add_argument("--model", choices=MODELS)
    ap.add_argument("--mode", choices=MODES, help="default: inference")
    ap.add_argument("--batch", type=int, help="default: 1")
    ap.add_argument("--allocs", choices=["anchored", "floating"],
                    help="anchored (default): edges from the producers of an op's inputs to "
                         "the op's ALLOCs; floating: ALLOCs have no predecessors (the article's encoding)")
    ap.add_argument("--include-params", action="store_true",
                    help="count parameters/buffers (ALLOC at the start, never freed) and graph "
                         "inputs (ALLOC at the start, FREE after their last reader)")
    ap.add_argument("-o", "--output", type=Path, help="output JSON file")
    ap.add_argument("--all", action="store_true",
                    help="write the whole committed set into datasets/models/ and its manifest "
                         "(takes only --no-manifest)")
    ap.add_argument("--check", nargs="+", metavar="FILE",
                    help="only validate existing seed JSON files and print their peaks "
                         "(needs no torch; exit 1 if a file fails)")
    ap.add_argument("--no-manifest", action="store_true", help="do not touch manifest.csv")
    a = ap.parse_args(argv)

    one_file = [name for name, given in [
        ("--model", a.model is not None), ("--mode", a.mode is not None),
        ("--batch", a.batch is not None), ("--allocs", a.allocs is not None),
        ("--include-params", a.include_params), ("-o/--output", a.output is not None),
    ] if given]
    if a.check:
        others = (["--all"] if a.all else []) + one_file + (["--no-manifest"] if a.no_manifest else [])
        if others:
            ap.error(f"--check only reads files; it does not combine with {', '.join(others)}")
        return check_files(a.check)
    if a.all:
        # The committed set is fixed (every model, mode and batch, in the
        # file names of datasets/models/): the options of one export would
        # be ignored, so they are refused.
        if one_file:
            ap.error(f"--all writes the fixed committed set; it does not take {', '.join(one_file)} "
                     "(export one file with --model instead)")
        load_torch()
        return export_all(manifest=not a.no_manifest)
    if not a.model:
        ap.error("--model is required (or --all / --check)")
    mode = a.mode or "inference"
    batch = 1 if a.batch is None else a.batch
    allocs = a.allocs or "anchored"
    if batch < 1:
        ap.error("--batch must be >= 1")
    load_torch()
    out = a.output or MODELS_DIR / file_name(a.model, mode, batch, allocs, a.include_params)
    tr = trace(a.model, mode, batch)
    row = export_one(tr, a.model, mode, batch, allocs, a.include_params, out)
    in_models_dir = out.resolve().parent == MODELS_DIR.resolve()
    if in_models_dir and not a.no_manifest:
        update_manifest([row])


if __name__ == "__main__":
    sys.exit(main())
