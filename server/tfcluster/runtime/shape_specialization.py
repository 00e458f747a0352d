"""A function body run again with the shapes of its arguments' last call (a loop's body, once
per iteration), without the shape arithmetic those shapes settle.

A loop's gradient body takes the shapes of the forward values it reads apart again in every
iteration: Shape, BroadcastGradientArgs, a Sum over the axes broadcasting added and a Reshape
back (the gradient of every elementwise op), a Fill of a Shape (clip_by_value's zeros). Where
the graph leaves the batch size unknown (Keras's None), constant folding cannot take them out:
a Keras LSTM's gradient body spends two thirds of its ops on them. Once a call has run, the
tensors whose shape follows from the arguments' shapes alone (through ops whose outputs'
shapes follow from their inputs' shapes and from the values of constant operands, SHAPE_RULES)
have the same shapes in every call whose arguments have the same shapes, and so have the
values computed from those shapes only. For such calls the body is specialized:

- a node whose outputs are such values (Shape of such a tensor, BroadcastGradientArgs and
  arithmetic on shapes, Fill of such a shape with a constant) becomes a Const holding what the
  observed call computed;
- a Sum over no axes, and a Reshape of such a tensor to its own shape, hand their input on:
  their consumers read it (one that the body's results name becomes an Identity, which
  costs a third of a Reshape: a Keras LSTM's gradient body returns three such Reshapes).

Values are the very ones the body computes; a call whose arguments have other shapes runs the
body as it is (observed, so that a few shape sets get their own specialization). Only plain
bodies are specialized (no TF1 control flow, whose dead branches a Const would not carry) and
only nodes without control edges.
"""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from tfcluster.framework import dtypes, op_def_registry
from tfcluster.runtime.constant_folding import FOLDABLE_OPS, MAX_FOLDED_BYTES, inputs_first
from tfcluster.runtime.graph_ir import Node, split_tensor_name

# Argument shape sets a body is specialized for; calls with still others run it as it is.
MAX_SPECIALIZATIONS = 4

# Elementwise ops: of one input, then broadcasting ones and the activations' gradients.
_ELEMENTWISE = (  # noqa: SIM905 (a list of names)
    "Abs Acos Acosh Asin Asinh Atan Atanh Cast Ceil Cos Cosh Digamma Elu Erf Erfc Exp "
    "Expm1 Floor Identity Inv IsFinite IsInf IsNan LeakyRelu Lgamma Log Log1p LogicalNot "
    "Neg OnesLike PreventGradient Reciprocal Relu Relu6 Rint Round Rsqrt Selu Sigmoid "
    "Sign Sin Sinh Snapshot Softplus Softsign Sqrt Square StopGradient Tan Tanh "
    "ZerosLike Softmax LogSoftmax "
    "Add AddV2 AddN Atan2 BiasAdd BiasAddGrad BiasAddV1 Div DivNoNan Equal EluGrad "
    "FloorDiv FloorMod Greater GreaterEqual InvGrad LeakyReluGrad Less LessEqual "
    "LogicalAnd LogicalOr MatMul BatchMatMul BatchMatMulV2 Maximum Minimum Mul NotEqual "
    "Pow RealDiv ReciprocalGrad Relu6Grad ReluGrad RsqrtGrad Select SelectV2 SeluGrad "
    "SigmoidGrad SoftplusGrad SoftsignGrad SqrtGrad SquaredDifference Sub TanhGrad "
    "TruncateDiv TruncateMod ClipByValue"
).split()

# Op type -> the inputs whose values (not only shapes) decide its outputs' shapes (negative:
# counted from the last). The outputs' shapes of these ops follow from their inputs' shapes,
# those values and the node's attrs.
SHAPE_RULES: dict[str, tuple[int, ...]] = {
    **dict.fromkeys(_ELEMENTWISE, ()),
    **dict.fromkeys(("Shape", "ShapeN", "Size", "Rank", "Pack", "Unpack", "Squeeze"), ()),
    **dict.fromkeys(("Sum", "Mean", "Prod", "Max", "Min", "All", "Any"), (1,)),
    **dict.fromkeys(("ArgMax", "ArgMin", "Reshape", "Tile", "Transpose", "ExpandDims"), (1,)),
    **dict.fromkeys(("Pad", "PadV2", "MirrorPad", "BroadcastTo", "OneHot"), (1,)),
    "Fill": (0,),
    "StridedSlice": (1, 2, 3),
    "StridedSliceGrad": (0, 1, 2, 3),
    "Slice": (1, 2),
    "ConcatV2": (-1,),
    "Concat": (0,),
    "Split": (0,),
    "SplitV": (1, 2),
    "GatherV2": (2,),
    "Range": (0, 1, 2),
    "BroadcastGradientArgs": (0, 1),
    "BroadcastArgs": (0, 1),
}
# Op type -> inputs that the kernel checks to have one shape, the output's (it raises
# otherwise): the output's shape follows from any one of them.
SAME_SHAPE_INPUTS: dict[str, tuple[int, ...] | None] = {"AddN": None, "Select": (1, 2)}
# Ops whose output values are a pure function of their inputs' values.
_VALUE_OPS = FOLDABLE_OPS | {"BroadcastGradientArgs", "ShapeN"}
# Ops whose output values are their input's shape, size or rank.
_SHAPE_OPS = frozenset({"Shape", "ShapeN", "Size", "Rank"})

_Support = frozenset[int]  # the argument positions a tensor's shape (or value) follows from


@dataclasses.dataclass
class _Settled:
    """What the argument shapes settle: per node, the arguments its outputs' shapes and values
    follow from (absent: they do not)."""

    shapes: dict[str, _Support]
    values: dict[str, _Support]


def _settle(nodes: Sequence[Node], feeds: Sequence[str], shaped: Sequence[bool]) -> _Settled:
    """shaped[j]: feed j is an array (its shape is part of the specialization)."""
    feed_at = {t: j for j, t in enumerate(feeds)}
    by_name = {n.name: n for n in nodes}
    shapes: dict[str, _Support] = {}
    values: dict[str, _Support] = {}

    def shape_of(src: str, idx: int) -> _Support | None:
        j = feed_at.get(f"{src}:{idx}")
        if j is not None:
            return frozenset((j,)) if shaped[j] else None
        return shapes.get(src)

    def value_of(src: str, idx: int) -> _Support | None:
        return None if f"{src}:{idx}" in feed_at else values.get(src)

    # (an edge from a fed argument's node orders nothing wrong: a body has no cycles)
    for name in inputs_first(by_name, list(by_name)):
        n = by_name[name]
        op_def = op_def_registry.lookup(n.op)
        if op_def is None or op_def.stateful or op_def.ref_outputs:
            continue
        if n.op == "Const":
            shapes[name] = values[name] = frozenset()
            continue
        rule = SHAPE_RULES.get(n.op)
        if rule is None:
            continue
        ins = [shape_of(s, i) for s, i in n.inputs]
        if n.op in _SHAPE_OPS:
            if all(s is not None for s in ins):
                shapes[name] = values[name] = frozenset().union(*ins)  # type: ignore[arg-type]
            continue
        vals = [value_of(s, i) for s, i in n.inputs]
        if n.op in _VALUE_OPS and n.inputs and all(v is not None for v in vals):
            shapes[name] = values[name] = frozenset().union(*vals)  # type: ignore[arg-type]
            continue
        count = len(n.inputs)
        needed = [vals[k] for k in rule if -count <= k < count]
        if len(needed) == len(rule) and all(s is not None for s in [*ins, *needed]):
            shapes[name] = frozenset().union(*ins, *needed)  # type: ignore[arg-type]
        elif n.op in SAME_SHAPE_INPUTS:
            positions = SAME_SHAPE_INPUTS[n.op] or range(count)
            known = [ins[k] for k in positions if k < count and ins[k] is not None]
            if known:
                shapes[name] = frozenset().union(*known)  # type: ignore[arg-type]
    return _Settled(shapes, values)


@dataclasses.dataclass
class _Plan:
    """The rewrite one specialization makes: nodes to become Consts, nodes to hand their
    input on, and the arguments whose shapes these follow from."""

    constants: list[str]
    passes: list[str]
    support: _Support
    # passes that a fetch (or target) names: they become Identities
    named: frozenset[str] = frozenset()


def _plan(
    nodes: Sequence[Node],
    feeds: Sequence[str],
    fetches: Sequence[str],
    targets: Sequence[str],
    shaped: Sequence[bool],
) -> _Plan:
    settled = _settle(nodes, feeds, shaped)
    by_name = {n.name: n for n in nodes}
    fed = set(feeds)
    fetched = {split_tensor_name(t)[0] for t in fetches} | set(targets)
    ordering = {c for n in nodes for c in n.control_inputs}
    readers: dict[str, set[int]] = {}  # node -> the output indices something reads
    for t in [*(f"{s}:{i}" for n in nodes for s, i in n.inputs), *fetches]:
        src, idx = split_tensor_name(t)
        readers.setdefault(src, set()).add(idx)
    constants: list[str] = []
    passes: list[str] = []
    named: set[str] = set()
    support: set[int] = set()
    for n in nodes:
        if n.control_inputs or n.op == "Const" or n.name not in readers:
            continue
        if n.name in settled.values:
            # A fetched output other than the first keeps its node (the Const takes output 0).
            if n.name in fetched and readers[n.name] - {0}:
                continue
            constants.append(n.name)
            support |= settled.values[n.name]
            continue
        if n.name in ordering or len(n.inputs) != 2:
            continue
        if f"{n.inputs[0][0]}:{n.inputs[0][1]}" not in fed and _hands_out_refs(
            by_name.get(n.inputs[0][0])
        ):
            continue
        axes, axes_index = n.inputs[1]
        if n.op == "Sum" and f"{axes}:{axes_index}" not in fed and axes in settled.values:
            passes.append(n.name)
            support |= settled.values[axes]
        elif n.op == "Reshape" and n.name in settled.shapes:
            passes.append(n.name)
            support |= settled.shapes[n.name]
        else:
            continue
        if n.name in fetched:
            named.add(n.name)
    return _Plan(constants, passes, frozenset(support), frozenset(named))


def _hands_out_refs(node: Node | None) -> bool:
    op_def = None if node is None else op_def_registry.lookup(node.op)
    return bool(op_def is not None and op_def.ref_outputs)


def _const(name: str, value: Any) -> Node | None:
    if not isinstance(value, (np.ndarray, np.generic)) or value.dtype.kind not in "biufc":
        return None
    if value.nbytes > MAX_FOLDED_BYTES:
        return None
    arr = np.array(value)  # a copy, read-only as every Const's value is
    arr.flags.writeable = False
    return Node(name, "Const", [], [], "", {"value": arr, "dtype": dtypes.as_dtype(arr.dtype)})


def specialized_nodes(
    nodes: Sequence[Node],
    plan: _Plan,
    values: dict[str, Sequence[Any]],
    shapes: dict[str, tuple[int, ...]],
) -> list[Node] | None:
    """The body's nodes with the plan's rewrite made, from an observed call (None: nothing
    to rewrite): values[node] its outputs (constants and the Sums' axes), shapes['op:idx']
    the shapes of the tensors the Reshapes read and make."""
    by_name = {n.name: n for n in nodes}
    swap: dict[tuple[str, int], tuple[str, int]] = {}
    added: list[Node] = []
    gone: set[str] = set()
    identities: list[Node] = []  # passes a result names
    for name in plan.constants:
        outs = values.get(name)
        if outs is None:
            continue
        made = [
            _const(name if k == 0 else f"{name}/specialized_{k}", v) for k, v in enumerate(outs)
        ]
        if any(c is None for c in made):
            continue
        gone.add(name)
        for k, c in enumerate(made):
            assert c is not None
            added.append(c)
            swap[(name, k)] = (c.name, 0)
    for name in plan.passes:
        n = by_name[name]
        src, idx = n.inputs[0]
        if n.op == "Sum":
            axes = _value_of(n.inputs[1], by_name, values)
            if axes is None or np.size(axes) != 0:
                continue
        else:
            before, after = shapes.get(f"{src}:{idx}"), shapes.get(f"{name}:0")
            if before is None or before != after:
                continue
        gone.add(name)
        swap[(name, 0)] = (src, idx)
        if name in plan.named:
            identities.append(n)

    def resolve(t: tuple[str, int]) -> tuple[str, int]:
        while t in swap and swap[t] != t:
            t = swap[t]
        return t

    if not gone:
        return None
    out = list(added)
    for n in identities:
        attrs = {"T": n.attrs["T"]} if "T" in n.attrs else {}
        out.append(Node(n.name, "Identity", [resolve(n.inputs[0])], [], n.device, attrs))
    for n in nodes:
        if n.name in gone:
            continue
        inputs = [resolve(t) for t in n.inputs]
        out.append(n if inputs == n.inputs else dataclasses.replace(n, inputs=inputs))
    return out


def _value_of(
    t: tuple[str, int], by_name: dict[str, Node], values: dict[str, Sequence[Any]]
) -> Any:
    src, idx = t
    node = by_name.get(src)
    if node is not None and node.op == "Const":
        return node.attrs.get("value")
    outs = values.get(src)
    return None if outs is None or idx >= len(outs) else outs[idx]


class ShapeSpecializer:
    """Runs a function body: as specialized to its arguments' shapes where it has been called
    with those shapes before, else observed by the body's own executor and then specialized.

    `generic`: the body's executor (its run_nested and run_observed); `build(nodes)`: an
    executor for a specialized body, with the generic one's feeds, fetches and targets."""

    def __init__(
        self,
        nodes: Sequence[Node],
        feeds: Sequence[str],
        fetches: Sequence[str],
        targets: Sequence[str],
        generic: Any,
        build: Callable[[list[Node]], Any],
    ) -> None:
        self._nodes = list(nodes)
        self._by_name = {n.name: n for n in self._nodes}
        self._feeds = list(feeds)
        self._fetches = list(fetches)
        self._targets = list(targets)
        self._generic = generic
        self._build = build
        # Every argument taken as an array: what any specialization can depend on.
        most = _plan(nodes, feeds, fetches, targets, [True] * len(feeds))
        self.useful = bool(most.constants or most.passes)
        self._support = tuple(sorted(most.support))
        self._by_shapes: dict[tuple[Any, ...], Any] = {}
        self._lock = threading.Lock()

    def run(self, ctx: Any, feed_values: Sequence[Any]) -> list[Any]:
        key = tuple([getattr(feed_values[j], "shape", None) for j in self._support])
        executor = self._by_shapes.get(key)
        if executor is not None:
            return executor.run_nested(ctx, feed_values)  # type: ignore[no-any-return]
        if None in key or len(self._by_shapes) >= MAX_SPECIALIZATIONS:
            return self._generic.run_nested(ctx, feed_values)  # type: ignore[no-any-return]
        return self._observe(ctx, feed_values, key)

    def _observe(self, ctx: Any, feed_values: Sequence[Any], key: tuple[Any, ...]) -> list[Any]:
        """Runs the generic body, keeping what the specialization for these shapes needs."""
        shaped = [isinstance(v, (np.ndarray, np.generic)) for v in feed_values]
        plan = _plan(self._nodes, self._feeds, self._fetches, self._targets, shaped)
        wanted_values = {*plan.constants}
        wanted_shapes: set[str] = set()
        for name in plan.passes:
            (src, idx), (axes, _) = self._by_name[name].inputs
            wanted_values.add(axes)
            wanted_shapes |= {f"{src}:{idx}", f"{name}:0"}
        values: dict[str, Sequence[Any]] = {}
        shapes: dict[str, tuple[int, ...]] = {}
        for t, v, is_array in zip(self._feeds, feed_values, shaped):
            if t in wanted_shapes and is_array:
                shapes[t] = tuple(v.shape)

        def observe(name: str, outs: Sequence[Any]) -> None:
            if name in wanted_values:
                values[name] = tuple(outs)
            for k, v in enumerate(outs):
                t = f"{name}:{k}"
                if t in wanted_shapes and isinstance(v, (np.ndarray, np.generic)):
                    shapes[t] = tuple(v.shape)

        result = self._generic.run_observed(ctx, feed_values, observe)
        # Only arguments whose shapes the key holds may decide the rewrite.
        fits = plan.support <= frozenset(self._support)
        nodes = specialized_nodes(self._nodes, plan, values, shapes) if fits else None
        executor = self._generic if nodes is None else self._build(nodes)
        with self._lock:
            if len(self._by_shapes) < MAX_SPECIALIZATIONS:
                self._by_shapes.setdefault(key, executor)
        return result  # type: ignore[no-any-return]


__all__ = ["MAX_SPECIALIZATIONS", "SHAPE_RULES", "ShapeSpecializer", "specialized_nodes"]
