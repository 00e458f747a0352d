"""tf.train.do_quantize_training_on_graphdef: TF 1.15's quantized-training GraphDef rewriter
(tensorflow/core/graph/quantize_training.cc), node for node.

Every input of a MatMul / Conv2D outside `gradients/` goes through a QuantizeAndDequantizeV2
named `<input>/QuantizeAndDequantizeV2`. Its range is a constant pair for inputs whose range is
known (Relu6 [0, 6], Sigmoid [0, 1], Tanh [-1, 1], found through Identity / pools / Reshape /
ConcatV2), else two scalar variables `<input>/Min/Variable` and `<input>/Max/Variable` holding
an exponential moving average (decay 0.999) of the input's min and max, initialised on first
use through Switch / Merge. A Saver's SaveV2 then saves those variables too, and its
restore_all restores them. The result lists the input's nodes in their order, then the new ones
as TF's Graph numbers them; control inputs are sorted by name as TF's ToGraphDef writes them."""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from tfcluster.framework import dtypes, errors
from tfcluster.framework.tensor_util import as_proto_tensor_content, make_ndarray, make_tensor_proto
from tfcluster.protos import attr_value_pb2, graph_pb2, node_def_pb2, tensor_shape_pb2

_log = logging.getLogger(__name__)

_REWRITTEN = ("MatMul", "Conv2D")
_ALLOWED_UNKNOWN_INPUTS = 2
_EMA_DECAY = np.float32(0.999)
_QUANT_OP = "QuantizeAndDequantizeV2"
_FLOAT = dtypes.float32.as_datatype_enum


@dataclass
class _Node:
    node: node_def_pb2.NodeDef
    data: list[tuple[str, int]] = field(default_factory=list)  # (source node, output)
    control: list[str] = field(default_factory=list)


@dataclass
class _Edge:
    dst: _Node
    index: int  # which data input of dst
    signed: bool
    range_given: bool
    lo: float
    hi: float


def _parse(name: str) -> tuple[str, int]:
    node, _, port = name.partition(":")
    return node, int(port) if port else 0


class _Graph:
    """A GraphDef as TF's Graph holds it: nodes numbered in order, data edges by input slot."""

    def __init__(self, graph_def: graph_pb2.GraphDef) -> None:
        self.nodes: list[_Node] = []
        self.by_name: dict[str, _Node] = {}
        self.counter = 0  # Graph::NewName's
        for src in graph_def.node:
            node = node_def_pb2.NodeDef()
            node.CopyFrom(src)
            entry = _Node(node)
            for name in node.input:
                if name.startswith("^"):
                    entry.control.append(name[1:])
                else:
                    entry.data.append(_parse(name))
            del node.input[:]
            self.nodes.append(entry)
            self.by_name[node.name] = entry

    def add(self, name: str, op: str, inputs: list[tuple[str, int]], **attrs: Any) -> _Node:
        node = node_def_pb2.NodeDef(name=name, op=op)
        for key, value in attrs.items():
            node.attr[key].CopyFrom(value)
        entry = _Node(node, list(inputs))
        self.nodes.append(entry)
        self.by_name[name] = entry
        return entry

    def new_name(self, prefix: str) -> str:
        name = f"{prefix}/_{self.counter}"
        self.counter += 1
        return name

    def to_graph_def(self, like: graph_pb2.GraphDef) -> graph_pb2.GraphDef:
        out = graph_pb2.GraphDef()
        out.versions.CopyFrom(like.versions)
        out.library.CopyFrom(like.library)
        for entry in self.nodes:
            node = out.node.add()
            node.CopyFrom(entry.node)
            for src, port in entry.data:
                node.input.append(src if port == 0 else f"{src}:{port}")
            node.input.extend(f"^{c}" for c in sorted(entry.control))
        return out


# ---- attr values ----------------------------------------------------------------------------
def _attr(**kind: Any) -> Any:
    value = attr_value_pb2.AttrValue()
    for key, v in kind.items():
        if key == "tensor":
            value.tensor.CopyFrom(v)
        elif key == "shape":
            value.shape.CopyFrom(v)
        elif key == "types":
            value.list.type.extend(v)
        else:
            setattr(value, key, v)
    return value


def _float_type() -> Any:
    return _attr(type=_FLOAT)


def _scalar_tensor(value: Any, dtype: dtypes.DType) -> Any:
    """A one-element tensor as TF's AsProtoField writes it (typed value fields)."""
    proto = as_proto_tensor_content(np.asarray(value, dtype.as_numpy_dtype))
    proto.ClearField("tensor_content")
    if dtype == dtypes.float32:
        proto.float_val.append(float(value))
    elif dtype == dtypes.int32:
        proto.int_val.append(int(value))
    return proto


def _varint(n: int) -> bytes:
    out = bytearray()
    while True:
        byte, n = n & 0x7F, n >> 7
        out.append(byte | (0x80 if n else 0))
        if not n:
            return bytes(out)


def _string_list_tensor(values: list[bytes]) -> Any:
    """A string vector as TF's SetAttrValue writes one: typed values for one element, else
    tensor_content (the varint lengths, then the bytes)."""
    proto = make_tensor_proto(np.asarray(values, dtype=object), dtype=dtypes.string)
    if len(values) > 1:
        proto.ClearField("string_val")
        proto.tensor_content = b"".join(_varint(len(v)) for v in values) + b"".join(values)
    return proto


def _const(graph: _Graph, name: str, value: Any, dtype: dtypes.DType) -> _Node:
    return graph.add(
        name,
        "Const",
        [],
        dtype=_attr(type=dtype.as_datatype_enum),
        value=_attr(tensor=_scalar_tensor(value, dtype)),
    )


def _assign(graph: _Graph, name: str, var: str, value: tuple[str, int]) -> _Node:
    return graph.add(
        name,
        "Assign",
        [(var, 0), value],
        T=_float_type(),
        use_locking=_attr(b=True),
        validate_shape=_attr(b=True),
    )


# ---- the rewrite ----------------------------------------------------------------------------
def _find_type(graph: _Graph, name: str) -> tuple[bool, bool, bool, float, float]:
    """(known, signed, range_given, min, max) of a quantized input, as TF's FindType."""
    entry = graph.by_name.get(name)
    op = entry.node.op if entry is not None else ""
    if op in ("Const", "Variable", "VariableV2"):
        return True, True, False, 0.0, 0.0
    if op == "Relu":
        return True, False, False, 0.0, 0.0
    if op == "Relu6":
        return True, False, True, 0.0, 6.0
    if op == "Sigmoid":
        return True, False, True, 0.0, 1.0
    if op == "Tanh":
        return True, True, True, -1.0, 1.0
    if entry is not None and op in (
        "Reshape",
        "ConcatV2",
        "Identity",
        "MaxPool",
        "AvgPool",
        "MaxPool3D",
        "AvgPool3D",
    ):
        # The answer comes from the op's (first) data input; the op itself counts as known.
        sources = entry.data[:1] if op in ("Reshape", "ConcatV2") else entry.data
        found = (True, True, False, 0.0, 0.0)
        for src, _ in sources:
            found = _find_type(graph, src)
        return (True, *found[1:])
    return False, True, False, 0.0, 0.0


def _reduction_axes(graph: _Graph, prefix: str, src: str) -> _Node:
    prefix = f"{prefix}/ReductionAxes"
    start = _const(graph, f"{prefix}/RangeStart", 0, dtypes.int32)
    delta = _const(graph, f"{prefix}/RangeDelta", 1, dtypes.int32)
    rank = graph.add(f"{prefix}/InputRank", "Rank", [(src, 0)], T=_float_type())
    int32 = _attr(type=dtypes.int32.as_datatype_enum)
    return graph.add(
        f"{prefix}/ReductionAxes",
        "Range",
        [(start.node.name, 0), (rank.node.name, 0), (delta.node.name, 0)],
        Tidx=int32,
    )


def _ema_variable(graph: _Graph, name: str, decay: str, init: str, added: list[str]) -> _Node:
    """TF's MakeInitializedEMAVariable: the Assign node that feeds the range input."""
    var = graph.add(
        f"{name}/Variable",
        "VariableV2",
        [],
        container=_attr(s=b""),
        dtype=_float_type(),
        shape=_attr(shape=_scalar_shape()),
        shared_name=_attr(s=b""),
    )
    var_name = var.node.name
    added.append(var_name)
    ready = graph.add(
        f"{name}/IsInitialized", "IsVariableInitialized", [(var_name, 0)], dtype=_float_type()
    )
    switch = graph.add(
        f"{name}/Switch", "Switch", [(init, 0), (ready.node.name, 0)], T=_float_type()
    )
    ema = f"{name}/EMA"
    one = _const(graph, f"{ema}/OneConst", 1.0, dtypes.float32)
    complement = graph.add(
        f"{ema}/DecayComplement", "Sub", [(one.node.name, 0), (decay, 0)], T=_float_type()
    )
    diff = graph.add(
        f"{ema}/ValueDiff", "Sub", [(var_name, 0), (switch.node.name, 1)], T=_float_type()
    )
    update = graph.add(
        f"{ema}/UpdateValue",
        "Mul",
        [(diff.node.name, 0), (complement.node.name, 0)],
        T=_float_type(),
    )
    value = graph.add(
        f"{ema}/EMAValue", "Sub", [(var_name, 0), (update.node.name, 0)], T=_float_type()
    )
    merged = graph.add(
        f"{name}/Merge",
        "Merge",
        [(switch.node.name, 0), (value.node.name, 0)],
        N=_attr(i=2),
        T=_float_type(),
    )
    return _assign(graph, f"{name}/AssignValue", var_name, (merged.node.name, 0))


def _scalar_shape() -> Any:
    return tensor_shape_pb2.TensorShapeProto()


def _quantize_op(graph: _Graph, src: str, edge: _Edge, num_bits: int, added: list[str]) -> _Node:
    if edge.range_given:
        lo = _const(graph, f"{src}/InputMin", edge.lo, dtypes.float32).node.name
        hi = _const(graph, f"{src}/InputMax", edge.hi, dtypes.float32).node.name
    else:
        decay = _const(graph, f"{src}/Decay", _EMA_DECAY, dtypes.float32).node.name
        axes = _reduction_axes(graph, src, src).node.name
        keep = _attr(b=False)
        int32 = _attr(type=dtypes.int32.as_datatype_enum)
        low = graph.add(
            f"{src}/Min", "Min", [(src, 0), (axes, 0)], T=_float_type(), Tidx=int32, keep_dims=keep
        )
        high = graph.add(
            f"{src}/Max", "Max", [(src, 0), (axes, 0)], T=_float_type(), Tidx=int32, keep_dims=keep
        )
        lo = _ema_variable(graph, low.node.name, decay, low.node.name, added).node.name
        hi = _ema_variable(graph, high.node.name, decay, high.node.name, added).node.name
    return graph.add(
        f"{src}/{_QUANT_OP}",
        _QUANT_OP,
        [(src, 0), (lo, 0), (hi, 0)],
        T=_float_type(),
        narrow_range=_attr(b=False),
        num_bits=_attr(i=num_bits),
        range_given=_attr(b=True),
        round_mode=_attr(s=b"HALF_TO_EVEN"),
        signed_input=_attr(b=edge.signed),
    )


def _save_and_restore(graph: _Graph, added: list[str]) -> None:
    saves = [e for e in graph.nodes if e.node.op == "SaveV2"]
    if len(saves) > 1:
        raise errors.InvalidArgumentError(None, None, "Input graph has multiple SaveV2 ops.")
    if not saves:
        return
    save = saves[0]
    prefix = save.node.name.rpartition("/")[0]
    restore_all = graph.by_name.get(f"{prefix}/restore_all")
    if restore_all is None:
        raise errors.InvalidArgumentError(None, None, "graph has SaveOp, but no restore_all NoOp")
    file_prefix = save.data[0][0]
    for var in added:
        restore_name = graph.new_name(f"{prefix}/RestoreV2") + "_qt"
        assign_name = graph.new_name(f"{prefix}/Assign") + "_qt"
        string = _attr(type=dtypes.string.as_datatype_enum)
        names = graph.add(
            f"{restore_name}/tensor_names",
            "Const",
            [],
            dtype=string,
            value=_attr(tensor=_string_list_tensor([var.encode()])),
        )
        slices = graph.add(
            f"{restore_name}/shape_and_slices",
            "Const",
            [],
            dtype=string,
            value=_attr(tensor=_string_list_tensor([b""])),
        )
        restore = graph.add(
            restore_name,
            "RestoreV2",
            [(file_prefix, 0), (names.node.name, 0), (slices.node.name, 0)],
            dtypes=_attr(types=[_FLOAT]),
        )
        assign = _assign(graph, assign_name, var, (restore.node.name, 0))
        restore_all.control.append(assign.node.name)
    # The SaveV2 is rebuilt with the variables appended (TF writes it as a new node).
    names_node = graph.by_name[save.data[1][0]].node
    slices_node = graph.by_name[save.data[2][0]].node
    saved = [bytes(v) for v in make_ndarray(names_node.attr["value"].tensor).reshape(-1)]
    specs = [bytes(v) for v in make_ndarray(slices_node.attr["value"].tensor).reshape(-1)]
    names_node.attr["value"].tensor.CopyFrom(
        _string_list_tensor(saved + [v.encode() for v in added])
    )
    slices_node.attr["value"].tensor.CopyFrom(_string_list_tensor(specs + [b""] * len(added)))
    old_types = list(save.node.attr["dtypes"].list.type)
    inputs = [(src, 0) for src, _ in save.data] + [(v, 0) for v in added]
    graph.nodes.remove(save)
    graph.add(
        save.node.name, "SaveV2", inputs, dtypes=_attr(types=old_types + [_FLOAT] * len(added))
    )


def quantize_training(graph_def: graph_pb2.GraphDef, num_bits: int) -> graph_pb2.GraphDef:
    """TF's DoQuantizeTrainingOnGraphDef with QuantizeAndDequantizeV2."""
    if num_bits < 1 or num_bits > 63:
        raise errors.OutOfRangeError(
            None, None, f"num_bits should be in range [1, 63] but is: {num_bits}"
        )
    graph = _Graph(graph_def)
    unknown = 0
    targets: list[tuple[str, _Edge]] = []
    for entry in list(graph.nodes):
        if entry.node.op not in _REWRITTEN or entry.node.name.startswith("gradients"):
            continue
        for index, (src, _) in enumerate(entry.data):
            known, signed, given, lo, hi = _find_type(graph, src)
            if not known:
                unknown += 1
                if unknown > _ALLOWED_UNKNOWN_INPUTS:
                    op = graph.by_name[src].node.op if src in graph.by_name else "?"
                    raise errors.UnimplementedError(
                        None,
                        None,
                        f"Found an unknown op: {src} with type: {op}; Unknown ops are "
                        f"considered as model input for now and only {_ALLOWED_UNKNOWN_INPUTS} "
                        "inputs are supported currently.",
                    )
            targets.append((src, _Edge(entry, index, signed, given, lo, hi)))
    made: dict[str, str] = {}
    added: list[str] = []
    for src, edge in targets:
        if src not in made:
            made[src] = _quantize_op(graph, src, edge, int(num_bits), added).node.name
        edge.dst.data[edge.index] = (made[src], 0)
    _save_and_restore(graph, added)
    return graph.to_graph_def(graph_def)


def do_quantize_training_on_graphdef(input_graph: Any, num_bits: int) -> graph_pb2.GraphDef:
    """A copy of `input_graph` (a GraphDef) with quantize-and-dequantize ops before every
    MatMul / Conv2D input, for training with quantization in the loop (deprecated in TF)."""
    _log.warning(
        "From do_quantize_training_on_graphdef: GraphDef quantized training rewriter is "
        "deprecated in the long term"
    )
    graph_def = graph_pb2.GraphDef()
    graph_def.ParseFromString(input_graph.SerializeToString())
    return quantize_training(graph_def, int(num_bits))
