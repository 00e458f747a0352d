"""tf.gradients: reverse-mode differentiation over the graph, from the gradient table.

Gradients are Tensors or IndexedSlices (a gather's gradient: only the gathered rows). As in
TF, several IndexedSlices for one tensor are concatenated (still sparse), any dense one among
them makes the sum dense, and an op whose gradient function cannot take IndexedSlices gets
them as a dense tensor.
"""

from __future__ import annotations

import collections
import threading
import weakref
from collections.abc import Sequence
from typing import Any

import numpy as np

from tfcluster.framework import dtypes
from tfcluster.framework.graph import (
    Operation,
    Tensor,
    colocate_with,
    convert_to_tensor,
    get_graph_from_inputs,
    name_scope,
)
from tfcluster.framework.indexed_slices import IndexedSlices
from tfcluster.gradients import registry, v1_control_flow_grad, v1_loop_count
from tfcluster.gradients.gradient_options import (
    AggregationMethod,
    UnconnectedGradients,
    check_aggregation_method,
    unconnected_gradients_value,
)
from tfcluster.ops import array_ops, control_flow_ops, indexed_slices_ops, math_ops


def _as_list(x: Any) -> list[Any]:
    return list(x) if isinstance(x, (list, tuple)) else [x]


def _to_tensor(x: Any, as_ref: bool) -> Tensor:
    if isinstance(x, Tensor):
        return x
    return convert_to_tensor(x, as_ref=as_ref)


def _reachable_from(xs_ops: set[Operation], graph_ops: list[Operation]) -> set[Operation]:
    """The ops a gradient can come back from, as TF's _MarkReachedOps: reached from xs only
    through tensors gradients flow in (an op after an integer or bool tensor, as Where after
    Greater, is not between xs and ys, so its gradient is never looked up)."""
    consumers: dict[Operation, list[Operation]] = {}
    for op in graph_ops:
        for t in op.inputs:
            if _backpropagatable(t):
                consumers.setdefault(t.op, []).append(op)
    seen = set(xs_ops)
    stack = list(xs_ops)
    while stack:
        op = stack.pop()
        for c in consumers.get(op, ()):
            if c not in seen:
                seen.add(c)
                stack.append(c)
    return seen


def gradients(
    ys: Any,
    xs: Any,
    grad_ys: Any = None,
    name: str = "gradients",
    colocate_gradients_with_ops: bool = False,
    gate_gradients: bool = False,
    aggregation_method: Any = None,
    stop_gradients: Any = None,
    unconnected_gradients: Any = UnconnectedGradients.NONE,
) -> list[Any]:
    """Symbolic d(sum(ys))/d(x) for each x in xs (a Tensor, or an IndexedSlices for a
    gathered x); None where x does not affect ys (zeros with unconnected_gradients="zero").
    aggregation_method picks how gradient terms are summed (same values either way).
    gate_gradients: each op's input gradients pass through a tuple (as TF: "<op>_grad/tuple/
    control_dependency", ...) so none is used before all of them are computed."""
    check_aggregation_method(aggregation_method)
    return gradients_of_graph(
        ys,
        xs,
        grad_ys,
        name,
        colocate_gradients_with_ops,
        stop_gradients,
        unconnected_gradients,
        aggregation_method=aggregation_method,
        gate_gradients=gate_gradients,
    )


def gradients_of_graph(
    ys: Any,
    xs: Any,
    grad_ys: Any = None,
    name: str = "gradients",
    colocate_gradients_with_ops: bool = False,
    stop_gradients: Any = None,
    unconnected_gradients: Any = "none",
    src_graph: Any = None,
    aggregation_method: Any = None,
    own_scope: bool = True,
    allowed_ops: set[Operation] | None = None,
    op_scopes: bool = True,
    gate_gradients: bool = False,
    v1_loop_body: bool = False,
) -> list[Any]:
    """tf.gradients, where ys and xs may live in `src_graph` (a forward loop body) while the
    gradient ops go to the default graph (the gradient loop's body, which reads the forward
    values it needs through its captures). `allowed_ops` limits the backward pass to those
    ops (a GradientTape's recorded ones); without `op_scopes` no "<op>_grad" scopes are made
    (TF's tape builds each gradient in the caller's scope). `v1_loop_body`: src_graph is the
    body of a tf.while_loop TF1 would build of Enter/Exit ops."""
    unconnected = unconnected_gradients_value(unconnected_gradients)
    ys_t = [_to_tensor(y, as_ref=False) for y in _as_list(ys)]
    xs_t = [_to_tensor(x, as_ref=True) for x in _as_list(xs)]
    grad_ys_l = _as_list(grad_ys) if grad_ys is not None else [None] * len(ys_t)
    if len(grad_ys_l) != len(ys_t):
        raise ValueError(f"Passed {len(grad_ys_l)} grad_ys for {len(ys_t)} ys")
    stop_ops = {_to_tensor(s, as_ref=True).op for s in _as_list(stop_gradients or [])}
    graph = get_graph_from_inputs(ys_t + xs_t)
    # In a tf.cond / tf.while_loop body, outer xs are differentiated through their captures.
    stand_in = getattr(graph, "captured_stand_in", None)
    if stand_in is not None and src_graph is None:
        xs_t = [stand_in(x) for x in xs_t]

    # A tape-style gradient (recompute_grad's) builds in the caller's scope, as TF's tape does.
    in_scope = src_graph is None and own_scope
    scope = name_scope(name, "gradients", ys_t + xs_t) if in_scope else _null()
    with graph.as_default(), scope:
        ops_list = (src_graph or graph).get_operations()
        from_xs = _reachable_from({x.op for x in xs_t}, ops_list)
        # Ops between xs and ys: reachable from xs and reaching ys.
        between: set[Operation] = set()
        stack = [y.op for y in ys_t]
        while stack:
            op = stack.pop()
            if op in between or op not in from_xs:
                continue
            if allowed_ops is not None and op not in allowed_ops:
                continue
            between.add(op)
            stack.extend(t.op for t in op.inputs)
        # Pending counts: how many gradient contributions each op waits for.
        pending: dict[Operation, int] = {}
        for op in between:
            for t in op.inputs:
                if t.op in between:
                    pending[t.op] = pending.get(t.op, 0) + 1
        grads: dict[Tensor, list[Any]] = {}
        for i, (y, gy) in enumerate(zip(ys_t, grad_ys_l)):
            if gy is None:
                if y.dtype.base_dtype.is_complex:
                    # d(complex)/dx has no one meaning: TF asks for the starting gradient.
                    raise TypeError(
                        f"Gradients of complex tensors must set grad_ys (y.dtype = {y.dtype!r})"
                    )
                with colocate_with(y.op) if colocate_gradients_with_ops else _null():
                    # As TF: "Shape", "grad_ys_<i>" (the one) and "Fill".
                    gy = array_ops.fill(
                        array_ops.shape(y),
                        convert_to_tensor(1, dtype=y.dtype.base_dtype, name=f"grad_ys_{i}"),
                    )
            elif isinstance(gy, IndexedSlices):
                pass
            else:
                gy = convert_to_tensor(gy, dtype=y.dtype.base_dtype)
                if in_scope:
                    # TF passes a given grad_y on as an Identity in the gradients scope.
                    gy = array_ops.identity(gy, name=f"grad_ys_{i}")
            grads.setdefault(y, []).append(gy)
        # TF 1.15 then makes a GradLoopState for each v1 loop Exit, which a loop imported
        # without its WhileContext cannot have.
        exits = [op for op in between if op.type in ("Exit", "RefExit")]
        if exits:
            raise AttributeError(v1_control_flow_grad.no_while_context_message(exits[0]))
        if src_graph is None:
            # TF1 makes the counters of each v1 loop to differentiate here (GradLoopState).
            for op in ops_list:
                if op in between and v1_loop_count.is_v1_while(op):
                    v1_loop_count.make_loop_counters(graph)

        # First in, first out, from the ys in order (TF's queue): gradients of a tensor are
        # summed, and IndexedSlices concatenated, in the order TF adds them.
        ready = collections.deque(
            op for op in dict.fromkeys(y.op for y in ys_t) if pending.get(op, 0) == 0
        )
        visited: set[Operation] = set()
        while ready:
            op = ready.popleft()
            if op in visited:
                continue
            visited.add(op)
            # As TF, the sums are colocated with the op when its gradients are.
            with colocate_with(op) if colocate_gradients_with_ops else _null():
                out_grads = [_aggregate(grads.get(t), aggregation_method, op) for t in op.outputs]
            # Summed once: the xs' own ops come here too, and their sums are the results.
            for t, g in zip(op.outputs, out_grads):
                if g is not None:
                    grads[t] = [g]
            flows_on = any(t.op in between for t in op.inputs)
            if flows_on and op not in stop_ops and any(g is not None for g in out_grads):
                grad_fn = _grad_fn(op)
                # A v1 cond's outputs are TF1's Merges, each differentiated on its own: its
                # gradient takes what reached them (control_flow_grad fills in the rest).
                if grad_fn is not None:
                    out_grads = [
                        g
                        if g is not None or not _has_zeros(t) or control_flow_ops.is_v1_cond(op)
                        else _filled_zeros(op, t, v1_loop_body)
                        for g, t in zip(out_grads, op.outputs)
                    ]
                    grad_scope = name_scope(op.name + "_grad") if op_scopes else _null()
                    ctx = colocate_with(op) if colocate_gradients_with_ops else _null()
                    with grad_scope, ctx:
                        if op.type not in _TAKES_INDEXED_SLICES:
                            out_grads = [_dense(g) for g in out_grads]
                        outer_between = getattr(_CURRENT, "between", None)
                        outer_gate = getattr(_CURRENT, "gate", False)
                        _CURRENT.between, _CURRENT.gate = between, gate_gradients
                        try:
                            in_grads = _as_list(grad_fn(op, *out_grads))
                        finally:
                            _CURRENT.between, _CURRENT.gate = outer_between, outer_gate
                        gated_grads = sum(g is not None for g in in_grads)
                        tf1_gates_inside = control_flow_ops.is_v1_cond(
                            op
                        ) or v1_loop_count.is_v1_while(op)
                        if gate_gradients and gated_grads > 1 and v1_loop_body:
                            # In a v1 loop's gradient body one op's gradients come out
                            # together anyway: TF1's tuple (a NoOp, an Identity per gradient)
                            # is counted, not run in every iteration.
                            if not tf1_gates_inside:
                                graph._match_tf1_op_count(1 + gated_grads)
                        elif (
                            gate_gradients and gated_grads > 1 and not v1_loop_count.is_v1_while(op)
                        ):
                            # (A v1 loop's gradients leave it as TF1's Exits, gated inside.)
                            # TF gates with no device and no colocation of its own.
                            start = graph._op_count()
                            ungated = in_grads
                            with graph.device(None), colocate_with(None, ignore_existing=True):
                                in_grads = control_flow_ops.tuple_(in_grads)
                            if tf1_gates_inside:
                                # TF1 gates the ops inside its cond's or loop's gradient
                                # instead (that gradient counted those): not this one op's.
                                graph._match_tf1_op_count(start - graph._op_count())
                                for before_gate, gated in zip(ungated, in_grads):
                                    _move_tf1_terms(before_gate, gated)
                    if len(in_grads) != len(op.inputs):
                        raise ValueError(
                            f"Num gradients {len(in_grads)} generated for op {op.name} do not "
                            f"match num inputs {len(op.inputs)}"
                        )
                    for i, (t, g) in enumerate(zip(op.inputs, in_grads)):
                        if isinstance(g, Tensor) and t.dtype.base_dtype != dtypes.resource:
                            _set_grad_shape(g, t, op, i)
                        if g is None or t.op not in between:
                            continue
                        if not _backpropagatable(t):
                            continue
                        grads.setdefault(t, []).append(g)
            for t in op.inputs:
                if t.op in between:
                    pending[t.op] -= 1
                    if pending[t.op] == 0:
                        ready.append(t.op)
        result = [_aggregate(grads.get(x)) for x in xs_t]
    # TF makes the zeros of unconnected xs outside its "gradients" scope.
    with graph.as_default():
        return [
            array_ops.zeros_like(x) if g is None and unconnected is UnconnectedGradients.ZERO else g
            for g, x in zip(result, xs_t)
        ]


def _set_grad_shape(g: Tensor, t: Tensor, op: Operation, index: int) -> None:
    """As TF: a gradient takes its input's static shape, and one that cannot (a gradient
    function that forgot to sum over broadcast dimensions) is a ValueError."""
    try:
        g.set_shape(t.shape)
    except ValueError:
        raise ValueError(
            "Incompatible shapes between op input and calculated input gradient.  "
            f"Forward operation: {op.name}.  Input index: {index}. "
            f"Original input shape: {t.shape}.  Calculated input gradient shape: {g.shape}"
        ) from None


# The zeros standing for an output of a v1 loop that no gradient reached (TF1 differentiates
# only the loop variables whose Exit, or another such variable, leads to the ys).
_NO_GRADIENT_REACHED: weakref.WeakSet[Tensor] = weakref.WeakSet()


def _filled_zeros(op: Operation, t: Tensor, in_v1_loop_body: bool) -> Tensor | None:
    zeros = _zeros_for(op, t, in_v1_loop_body)
    if isinstance(zeros, Tensor) and v1_loop_count.is_v1_while(op):
        _NO_GRADIENT_REACHED.add(zeros)
    return zeros


def reached_by_no_gradient(g: Any) -> bool:
    """Whether g is the zeros tf.gradients made for a v1 loop's output no gradient reached."""
    return isinstance(g, Tensor) and g in _NO_GRADIENT_REACHED


def _zeros_for(op: Operation, t: Tensor, in_v1_loop_body: bool = False) -> Tensor | None:
    """The gradient of an output no gradient reached: none for an output TF does not train
    (integers, strings); TF1's ZerosLikeForExit for a v1 loop (a "zeros" constant where the
    shape is known); TF1's GradLoopState.ZerosLike for an op in a v1 loop's body (one Const
    where the shape is known: no forward value kept for it); else TF's ZerosLikeOutsideLoop
    (a ZerosLike op, never a Const)."""
    if not _backpropagatable(t):
        return None
    if v1_loop_count.is_v1_while(op) and t.shape.is_fully_defined():
        return array_ops.zeros(t.shape, dtype=t.dtype.base_dtype)
    if in_v1_loop_body and t.shape.is_fully_defined() and t.dtype.base_dtype != dtypes.resource:
        return convert_to_tensor(np.zeros(t.shape.as_list(), t.dtype.base_dtype.as_numpy_dtype))
    return array_ops.zeros_like(t, optimize=False)


def _backpropagatable(t: Tensor) -> bool:
    """As TF's _IsBackpropagatable: floats, complex, resource handles (a variable's gradient
    reaches its handle through ReadVariableOp and ResourceGather) and variants (an optional's
    or a list's gradient is another optional or list)."""
    dtype = t.dtype.base_dtype
    return bool(dtype.is_floating or dtype.is_complex or dtype in (dtypes.resource, dtypes.variant))


def _has_zeros(t: Tensor) -> bool:
    """Whether a missing gradient of t can stand as zeros (not for handles, lists)."""
    return t.dtype.base_dtype not in (dtypes.resource, dtypes.variant)


def _grad_fn(op: Operation) -> Any:
    op_type = op.attrs.get("_gradient_op_type") or op.graph._gradient_override_map.get(
        op.type, op.type
    )
    try:
        return registry.lookup(op_type)
    except LookupError:
        if op.type in ("VariableV2", "Placeholder", "Const"):
            return None
        # Function calls are differentiated here, not through the table (as TF 1.15).
        from tfcluster.gradients import function_call_grad

        if op.type in function_call_grad.FUNCTION_CALL_OPS:
            return function_call_grad.call_grad
        raise


# Ops whose gradient functions take IndexedSlices as TF's do: Identity and Cast pass them on,
# the gather's and the reshapes' use them quietly; the others hand them to the ops they build,
# each of which makes them dense in its own name scope under its input's name (as TF's
# op_def_library: a gradient function using a gather's gradient twice converts it twice,
# e.g. Mul's "mul_grad/Mul/x" and "mul_grad/Mul_1/y"). The ops of the other gradient
# functions get their gradients dense once, first, in the gradient's name scope.
_TAKES_INDEXED_SLICES = frozenset(
    {
        *("Identity", "Cast", "GatherV2", "Reshape", "ExpandDims", "Squeeze", "StridedSlice"),
        *("Mul", "RealDiv", "AddV2", "Add", "Pow", "Abs", "Square", "Softplus", "MatMul"),
        *("Softmax", "LogSoftmax", "Pad", "Pack", "Select"),
        *("Tanh", "Sigmoid", "Sqrt", "Rsqrt", "Reciprocal", "Sub", "Exp", "Log", "Neg"),
        *("Transpose", "Maximum", "Minimum", "Tile", "ConcatV2"),
        *("Relu", "Relu6", "Elu", "Selu", "LeakyRelu", "BiasAdd"),
    }
)


def _dense(g: Any) -> Any:
    if isinstance(g, IndexedSlices):
        return indexed_slices_ops.indexed_slices_to_tensor(g)
    return g


# Gradients that stand for several of TF1's: a v1 cond's gradient of a value both branches
# use is one term here, two in TF1 (one per branch's Switch), which TF1 adds with an AddN.
_TF1_TERMS: weakref.WeakKeyDictionary[Tensor, int] = weakref.WeakKeyDictionary()


# The ops between xs and ys of the tf.gradients call whose gradient functions are running.
_CURRENT = threading.local()


def gating() -> bool:
    """Whether the gradient being built gates each op's input gradients (gate_gradients):
    a cond's gradient builds its branches' gradients the same way, as TF1's does."""
    return bool(getattr(_CURRENT, "gate", False))


def on_gradient_path(t: Tensor) -> bool:
    """Whether t lies between the xs and ys of the tf.gradients call being built (TF1
    differentiates only those ops: a v1 cond's Switch of any other value gets no gradient)."""
    between = getattr(_CURRENT, "between", None)
    return between is None or t.op in between


def count_as_tf1_terms(g: Tensor, terms: int) -> None:
    """Says that TF1 has `terms` gradients where tfcluster has g alone (op count parity)."""
    _TF1_TERMS[g] = terms


def _move_tf1_terms(old: Any, new: Any) -> None:
    """The TF1 term count of a gradient passes to its gated stand-in."""
    if isinstance(old, Tensor) and isinstance(new, Tensor) and old in _TF1_TERMS:
        _TF1_TERMS[new] = _TF1_TERMS.pop(old)


def _aggregate(parts: Sequence[Any] | None, method: Any = None, op: Operation | None = None) -> Any:
    """The sum of one tensor's gradients, as TF's _AggregatedGrads makes it: one AddN;
    pairwise AddNs in "<op>_gradient_sum" for EXPERIMENTAL_TREE; one AccumulateNV2 for
    EXPERIMENTAL_ACCUMULATE_N over more than two terms of one known shape (else pairwise)."""
    if not parts:
        return None
    if len(parts) == 1:
        if isinstance(parts[0], Tensor) and _TF1_TERMS.pop(parts[0], 1) > 1:
            parts[0].graph._match_tf1_op_count(1)  # TF1's AddN of the terms
        return parts[0]
    if all(isinstance(g, Tensor) for g in parts):
        tree = (AggregationMethod.EXPERIMENTAL_TREE, AggregationMethod.EXPERIMENTAL_ACCUMULATE_N)
        if method == AggregationMethod.EXPERIMENTAL_ACCUMULATE_N and len(parts) > 2:
            shape = parts[0].shape
            for g in parts[1:]:
                shape = shape.merge_with(g.shape)
            if shape.is_fully_defined():
                return math_ops.accumulate_n(list(parts))
        if method in tree and op is not None:
            with name_scope(op.name + "_gradient_sum"):
                running = parts[0]
                for g in parts[1:]:
                    running = math_ops.add_n([running, g])
            return running
        return _multi_device_add_n(parts)
    return aggregate_indexed_slices_gradients(list(parts))


def _multi_device_add_n(parts: Sequence[Tensor]) -> Tensor:
    """TF's _MultiDeviceAddN: one AddN per device (devices sorted by name), each colocated with
    its first term's op (its `_class` and device, the caller's colocation set aside), then the
    sum of those (the one AddN itself when all terms share a device)."""
    by_device: dict[str, list[Tensor]] = collections.defaultdict(list)
    for g in parts:
        by_device[g.device or ""].append(g)
    summands = []
    for device in sorted(by_device):
        terms = by_device[device]
        with terms[0].graph.colocate_with(terms[0].op, ignore_existing=True):
            summands.append(math_ops.add_n(terms))
    return math_ops.add_n(summands)


def aggregate_indexed_slices_gradients(grads: list[Any]) -> Any:
    """Gradients among which some are IndexedSlices: summed densely when any is a Tensor,
    else one IndexedSlices of all their rows (repeated rows add up when applied)."""
    if any(isinstance(g, Tensor) for g in grads):
        return math_ops.add_n(grads)
    slices = _as_indexed_slices_list(grads)
    return IndexedSlices(
        array_ops.concat([g.values for g in slices], 0),
        array_ops.concat([g.indices for g in slices], 0),
        slices[0].dense_shape,
    )


def _as_indexed_slices_list(grads: list[IndexedSlices]) -> list[IndexedSlices]:
    """The slices with one index dtype: int64 for all when int32 and int64 mix (as TF)."""
    int32 = [g for g in grads if g.indices.dtype.base_dtype == dtypes.int32]
    if not int32 or len(int32) == len(grads):
        return grads
    return [
        IndexedSlices(g.values, math_ops.cast(g.indices, dtypes.int64), g.dense_shape)
        if g.indices.dtype.base_dtype == dtypes.int32
        else g
        for g in grads
    ]


class _null:
    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: Any) -> None:
        return None
