"""NoOp, group, tuple, with_dependencies; functional tf.cond, tf.case and tf.while_loop."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

import numpy as np

from tfcluster.framework import dtypes, indexed_slices, op_def_registry
from tfcluster.framework.func_graph import (
    ACCUMULATE_ATTR,
    ARG_OPS,
    FUNCTIONAL_OPS,
    FuncGraph,
    builds_v2_control_flow,
    flatten,
    pack_as,
    same_structure,
)
from tfcluster.framework.graph import (
    Graph,
    Operation,
    Tensor,
    colocate_with,
    control_dependencies,
    convert_to_tensor,
    get_graph_from_inputs,
    name_scope,
)
from tfcluster.framework.tensor_shape import TensorShape, as_shape
from tfcluster.ops import array_ops, constant_op, nest, tensor_array_ops
from tfcluster.ops.op_util import Outputs, make_op

op_def_registry.register("NoOp", op_def_registry.no_outputs)


def no_op(name: str | None = None) -> Operation:
    return make_op("NoOp", [], {}, name=name or "NoOp")


def group(*inputs: Any, name: str | None = None) -> Operation:
    """An op that runs all `inputs` (ops or tensors); its device is that of the inputs' ops."""
    ops: list[Operation] = []
    for x in inputs:
        if isinstance(x, (list, tuple)):
            ops.extend(_as_op(y) for y in x)
        elif x is not None:
            ops.append(_as_op(x))
    graph = get_graph_from_inputs(ops)
    with graph.as_default(), name_scope(name, "group_deps", ops) as scope:
        by_device: dict[str, list[Operation]] = {}
        for op in ops:
            by_device.setdefault(op.device, []).append(op)
        if len(by_device) <= 1:
            # On its inputs' device, as TF's _GroupControlDeps: a NoOp left without one is
            # placed apart from them, and a gradient gate (tf.tuple) then crosses tasks.
            (device,) = by_device or [""]
            placed = graph.device(device) if device else contextlib.nullcontext()
            with placed, control_dependencies(ops):
                return no_op(name=scope)
        # One NoOp per device, as TF does, so a group spanning tasks fans out cheaply.
        deps = []
        for device in sorted(by_device):
            with graph.device(device or None), control_dependencies(by_device[device]):
                deps.append(no_op(name="NoOp"))
        with control_dependencies(deps):
            return no_op(name=scope)


def _as_op(x: Any) -> Operation:
    if getattr(x, "_is_resource_variable", False) and isinstance(getattr(x, "op", None), Operation):
        return x.op  # TF's: the handle, or the update a variable comes from, not a read
    if hasattr(x, "_as_graph_element") and not isinstance(x, (Tensor, Operation)):
        x = x._as_graph_element()
    if isinstance(x, Tensor):
        return x.op
    if isinstance(x, Operation):
        return x
    if isinstance(x, indexed_slices.IndexedSlices):
        return x.op
    raise TypeError(f"Expected an Operation or Tensor, got {x!r}")


def tuple_(
    tensors: Sequence[Any], name: str | None = None, control_inputs: Any = None
) -> list[Any]:
    """Tensors that are only available after all of `tensors` (and control_inputs) are computed."""
    with name_scope(name, "tuple", tensors):
        gating_ops = [_as_op(t) for t in tensors if t is not None]
        gating_ops += [_as_op(c) for c in control_inputs or []]
        # As TF: each op once, in creation order (the NoOp's control inputs keep that order).
        gating = group(*sorted(set(gating_ops), key=lambda op: op._id))
        out: list[Any] = []
        for t in tensors:
            if t is None:
                out.append(None)
            elif isinstance(t, Operation):
                with control_dependencies([gating]):
                    out.append(group(t))
            else:
                # "<scope>/control_dependency", _1, ... colocated with t, as TF makes them.
                out.append(with_dependencies([gating], t))
        return out


def _gated(t: Any, name: str) -> Any:
    """t through an Identity (the values of an IndexedSlices, as TF gates them)."""
    if isinstance(t, indexed_slices.IndexedSlices):
        return indexed_slices.IndexedSlices(
            array_ops.identity(t.values, name=name), t.indices, t.dense_shape
        )
    return array_ops.identity(t, name=name)


def with_dependencies(
    dependencies: Sequence[Any], output_tensor: Any, name: str | None = None
) -> Any:
    with (
        name_scope(name, "control_dependency", [*dependencies, output_tensor]) as scope,
        colocate_with(output_tensor),
        control_dependencies(dependencies),
    ):
        if isinstance(output_tensor, Operation):
            with control_dependencies([output_tensor]):
                return no_op(name=scope)
        return _gated(output_tensor, scope)


# ---- functional control flow: tf.cond, tf.case, tf.while_loop ------------------------------
# Bodies are FuncGraphs stored in the op's func attrs; the ops run them as sub-executors
# (kernels/functional.py). There is no Switch/Merge and no dead-tensor propagation.


def _functional_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    shapes = attrs.get("output_shapes") or [TensorShape(None)] * len(attrs["Tout"])
    return [(dt, TensorShape(s)) for dt, s in zip(attrs["Tout"], shapes)]


def _while_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    shapes = attrs.get("output_shapes") or [TensorShape(None)] * len(attrs["T"])
    loop_vars = [(dt, TensorShape(s)) for dt, s in zip(attrs["T"], shapes)]
    # + the trip count, + per accumulated body tensor the list of its values, one per
    # iteration (what the loop's gradient reads instead of recomputing; see
    # gradients/control_flow_grad.py).
    accumulators = [(dtypes.variant, TensorShape([]))] * len(attrs.get(ACCUMULATE_ATTR) or ())
    return [*loop_vars, (dtypes.int32, TensorShape([])), *accumulators]


op_def_registry.register("If", _functional_infer, stateful=True)
op_def_registry.register("StatelessIf", _functional_infer)
op_def_registry.register("While", _while_infer, stateful=True)
op_def_registry.register("StatelessWhile", _while_infer)


# Values that exist only in one task during one step: their consumers run where they are made.
_PER_STEP_DTYPES = (dtypes.variant, dtypes.resource)


def _relaxed_shape(a: TensorShape, b: TensorShape) -> TensorShape:
    """The most specific shape both fit (TF's Merge): differing dims become unknown."""
    if a.ndims is None or b.ndims is None or a.ndims != b.ndims:
        return TensorShape(None)
    return TensorShape([x if x == y else None for x, y in zip(a.as_list(), b.as_list())])


def _shape_at_most(shape: TensorShape, invariant: TensorShape) -> bool:
    """True when `shape` is at least as specific as `invariant` (TF1's _ShapeLessThanOrEqual)."""
    if invariant.ndims is None:
        return True
    if shape.ndims != invariant.ndims:
        return False
    return all(d2 is None or d1 == d2 for d1, d2 in zip(shape.as_list(), invariant.as_list()))


def _check_scalar_bool(t: Tensor, what: str) -> None:
    if t.dtype.base_dtype != dtypes.bool_:
        raise TypeError(
            f"{what} must be a bool tensor, got dtype {t.dtype.base_dtype.name} ({t.name})"
        )
    if t.shape.ndims not in (None, 0):
        raise ValueError(f"{what} must be a scalar, but has shape {t.shape} ({t.name})")


def _differentiable(dtype: dtypes.DType) -> bool:
    return not dtype.is_ref_dtype and (dtype.is_floating or dtype.is_complex)


def _exported_tensors(fg: FuncGraph) -> list[Tensor]:
    """Outputs of the body's stateful or variable-reading ops.

    The forward op returns them too, so a gradient that recomputes the body reuses these
    values instead of running the op again (a second random draw, a second assign_add).
    """
    out: list[Tensor] = []
    for op in fg.get_operations():
        if op.type in ARG_OPS or op.type in FUNCTIONAL_OPS or op.type in ("_Retval", "_RefHandle"):
            continue
        op_def = op_def_registry.lookup(op.type)
        stateful = op_def is not None and op_def.stateful
        if stateful or any(t.dtype.is_ref_dtype for t in op.inputs):
            out.extend(t for t in op.outputs if t.dtype.base_dtype != dtypes.resource)
    return out


def _placeholder_value(fg: FuncGraph, dtype: dtypes.DType) -> Tensor:
    """A scalar stand-in for a result the other branch exports."""
    base = dtype.base_dtype
    value: Any = b"" if base == dtypes.string else np.zeros((), dtype=base.as_numpy_dtype)
    with fg.as_default():
        return constant_op.constant(value, dtype=base, name="unused_export")


def _functional_inputs(
    graph: Graph, explicit: Sequence[Tensor], graphs: Sequence[FuncGraph]
) -> tuple[list[Tensor], list[Tensor], list[list[Tensor]], list[Operation]]:
    """Unifies the bodies' captures: (op inputs, refs captured, per body its args, control deps).

    Every body gets an argument for every capture (unused ones included), in one order, after
    its explicit arguments; a captured variable reference enters through a _RefHandle.
    """
    outer: list[Tensor] = []
    for fg in graphs:
        for t, _ in fg.captures:
            if t not in outer:
                outer.append(t)
    args = []
    for fg in graphs:
        captured = [fg.capture(t) for t in outer]
        args.append([*fg.inputs, *captured])
    inputs = list(explicit)
    refs = []
    for t in outer:
        if t.dtype.is_ref_dtype:
            refs.append(t)
            with graph.colocate_with(t.op):
                attrs = {"T": t.dtype.base_dtype}
                handle = graph.create_op("_RefHandle", [t], attrs, name="RefHandle")
            inputs.append(handle.outputs[0])
        else:
            inputs.append(t)
    controls: list[Operation] = []
    for fg in graphs:
        for c in fg.control_captures:
            if c not in controls:
                controls.append(c)
    return inputs, refs, args, controls


def _create_functional_op(
    graph: Graph,
    op_type: str,
    inputs: list[Tensor],
    attrs: dict[str, Any],
    name: str,
    refs: Sequence[Tensor],
    controls: Sequence[Operation],
) -> Operation:
    """Creates the op colocated with every variable it updates and with the producers of the
    per-step values it takes (TensorArray handles, a loop's accumulators): it must run where
    they live."""
    with contextlib.ExitStack() as stack:
        for r in refs:
            stack.enter_context(graph.colocate_with(r.op))
        op = graph.create_op(op_type, inputs, attrs, name=name, control_inputs=controls)
    # Joins their colocation groups without giving up its own device scope.
    groups = list(op.attrs.get("_class", []))
    for t in inputs:
        if t.dtype.base_dtype in _PER_STEP_DTYPES and t.op.type != "_RefHandle":
            groups.extend(g for g in t.op.colocation_groups() if g not in groups)
    if groups:
        op._set_attr("_class", groups)
    return op


def _build_branch(
    graph: Graph,
    name: str,
    fn: Callable[[], Any],
    strict: bool,
    what: str,
    v2_pred: Tensor | None = None,
) -> tuple[FuncGraph, Any, list[Any]]:
    """Calls `fn` inside a new body; returns it, its result structure and flat results. A
    TF1 branch counts its ops in `graph`; a cond_v2 branch (v2_pred given) in its own
    function, where an op it returns becomes the predicate's value, read after the op (TF's
    op_return_value), so that the cond returns a tensor for it."""
    v2 = v2_pred is not None
    fg = FuncGraph(name, graph)
    # Its ops are named in the cond's scope, as TF1 names the ops of a branch.
    counting = contextlib.nullcontext() if v2 else fg.ops_counted_in(graph)
    with fg.as_default(), fg.name_scope(name.rsplit("/", 1)[0] + "/"), counting:
        result = fn()
        if result is None:
            raise ValueError(f"{what} must have a return value.")
        if not strict and isinstance(result, (list, tuple)) and len(result) == 1:
            result = result[0]  # TF1 unpacks singletons unless strict=True
        result = _slices_as_parts(result)
        flat: list[Any] = []
        for leaf in flatten(result):
            if isinstance(leaf, Operation):
                if leaf.graph is not fg:
                    fg.capture_control(leaf)
                if v2_pred is not None:
                    inner = [leaf] if leaf.graph is fg else []
                    with fg.control_dependencies(inner):
                        flat.append(array_ops.identity(fg.capture(v2_pred)))
                    continue
                graph._match_tf1_op_count(1)  # TF1's Identity of the pivot after the op
                flat.append(leaf)
            elif leaf is None:
                # TF1 converts each result with convert_to_tensor, which refuses None.
                raise ValueError("None values not supported.")
            else:
                flat.append(fg.capture(convert_to_tensor(_flow_of(leaf))))
    return fg, result, flat


# Marks the If ops tf.cond made (kept when a gradient recomputes a branch holding one): TF1
# builds these from Switch/Merge, and so does its gradient, whose op count (hence later op
# seeds) the If's gradient matches (gradients/control_flow_grad.py).
V1_COND_ATTR = "_tf1_cond"


def is_v1_cond(op: Operation) -> bool:
    return bool(op.attrs.get(V1_COND_ATTR, False))


# TF1's tf.cond makes Switch(pred, pred), switch_t, switch_f and pred_id before its branches.
_COND_V1_OPS_BEFORE_BRANCHES = 4


def cond(
    pred: Any,
    true_fn: Callable[[], Any] | None = None,
    false_fn: Callable[[], Any] | None = None,
    strict: bool = False,
    name: str | None = None,
    fn1: Callable[[], Any] | None = None,
    fn2: Callable[[], Any] | None = None,
) -> Any:
    """tf.cond: `true_fn()` if `pred` else `false_fn()`, as one functional If op.

    Both functions must return the same structure of tensors (and/or ops) with the same
    dtypes. Ops created in a branch run only when that branch is taken; every stateful op
    created in the taken branch runs (an unused assign_add included).
    """
    true_fn = true_fn if true_fn is not None else fn1
    false_fn = false_fn if false_fn is not None else fn2
    if not callable(true_fn):
        raise TypeError("true_fn must be callable.")
    if not callable(false_fn):
        raise TypeError("false_fn must be callable.")
    if isinstance(pred, (bool, np.bool_)):
        raise TypeError("pred must not be a Python bool")
    graph = get_graph_from_inputs([pred])
    with graph.as_default(), name_scope(name, "cond", [pred]) as scope:
        pred_t = convert_to_tensor(pred)
        _check_scalar_bool(pred_t, "The predicate of tf.cond")
        if isinstance(graph, FuncGraph) and pred_t.graph is not graph:
            # TF1 switches (or, in a loop, enters) an outer predicate into the enclosing
            # branch before its own Switch: the capture counts as that op, in that order.
            pred_t = graph.capture(pred_t)
        op_name = scope[:-1]
        # In a function TF 1.15 builds cond_v2: an If and an Identity per output, the
        # branches counting their ops on their own; elsewhere TF1's Switch / Merge cond.
        v2 = builds_v2_control_flow(graph)
        if not v2:
            graph._match_tf1_op_count(_COND_V1_OPS_BEFORE_BRANCHES)
        v2_pred = pred_t if v2 else None
        then_fg, then_res, then_flat = _build_branch(
            graph, f"{op_name}/true_fn", true_fn, strict, "true_fn", v2_pred
        )
        else_fg, else_res, else_flat = _build_branch(
            graph, f"{op_name}/false_fn", false_fn, strict, "false_fn", v2_pred
        )
        if not same_structure(then_res, else_res):
            raise ValueError(
                "true_fn and false_fn must return the same nested structure, got "
                f"{_describe(then_res)} and {_describe(else_res)}"
            )
        _cast_slice_indices(then_res, (then_fg, then_flat), (else_fg, else_flat))
        then_outs: list[Tensor] = []
        else_outs: list[Tensor] = []
        for i, (t, e) in enumerate(zip(then_flat, else_flat)):
            if isinstance(t, Operation) != isinstance(e, Operation):
                raise ValueError(
                    f"Output {i} of tf.cond is an op in one branch, a tensor in the other"
                )
            if isinstance(t, Operation):
                continue
            if t.dtype.base_dtype != e.dtype.base_dtype:
                raise ValueError(
                    "Outputs of true_fn and false_fn must have the same type: "
                    f"{t.dtype.base_dtype.name}, {e.dtype.base_dtype.name} (output {i})"
                )
            then_outs.append(t)
            else_outs.append(e)
        then_exp, else_exp = _exported_tensors(then_fg), _exported_tensors(else_fg)
        merges_end = graph._op_count() + len(then_flat)
        then_all = then_outs + then_exp + [_placeholder_value(then_fg, t.dtype) for t in else_exp]
        else_all = else_outs + [_placeholder_value(else_fg, t.dtype) for t in then_exp] + else_exp
        op = _make_if(
            graph,
            op_name + "/",
            pred_t,
            [],
            then_fg,
            then_all,
            else_fg,
            else_all,
            then_exp,
            else_exp,
        )
        positions = [k for k, leaf in enumerate(then_flat) if not isinstance(leaf, Operation)]
        if v2:
            outputs = iter(_named_as_v1(op.outputs[: len(then_outs)], "Identity", 0))
            flat_result = [op if isinstance(x, Operation) else next(outputs) for x in then_flat]
            return _parts_as_slices(pack_as(then_res, _with_arrays(flatten(then_res), flat_result)))
        # TF1 ends a cond with a Merge per output: they, not the If op (and the _RefHandles of
        # captured variables), are in its op count; those of tensors are made below.
        graph._match_tf1_op_count(merges_end - graph._op_count() - len(then_outs))
        op._set_attr(V1_COND_ATTR, True)
        outputs = iter(_named_as_v1(op.outputs[: len(then_outs)], "Merge", 0, positions))
        flat_result = [op if isinstance(leaf, Operation) else next(outputs) for leaf in then_flat]
        return _parts_as_slices(pack_as(then_res, _with_arrays(flatten(then_res), flat_result)))


class _SliceParts(NamedTuple):
    """An IndexedSlices a branch returns, as the tensors TF1's cond merges one by one."""

    values: Any
    indices: Any
    dense_shape: Any


class _SliceValues(NamedTuple):
    """An IndexedSlices without a dense shape, as TF1's cond merges it."""

    values: Any
    indices: Any


def _index_positions(structure: Any) -> list[int]:
    """Where the indices of the branches' IndexedSlices are in flatten(structure)."""
    marks: list[bool] = []

    def mark(s: Any) -> None:
        if isinstance(s, (_SliceParts, _SliceValues)):
            marks.extend(k == 1 for k in range(len(s)))
        elif isinstance(s, dict):
            for k in sorted(s):
                mark(s[k])
        elif isinstance(s, (list, tuple)):
            for x in s:
                mark(x)
        else:
            marks.extend(False for _ in flatten(s))

    mark(structure)
    return [k for k, is_index in enumerate(marks) if is_index]


def _cast_slice_indices(
    structure: Any,
    then_branch: tuple[FuncGraph, list[Any]],
    else_branch: tuple[FuncGraph, list[Any]],
) -> None:
    """As TF1's cond: where one branch's slices have int32 indices and the other's int64,
    the int32 ones are cast to int64 (in their branch)."""
    from tfcluster.ops import math_ops  # math_ops builds on control flow: imported late

    for k in _index_positions(structure):
        kinds = {then_branch[1][k].dtype.base_dtype, else_branch[1][k].dtype.base_dtype}
        if kinds != {dtypes.int32, dtypes.int64}:
            continue
        for fg, flat in (then_branch, else_branch):
            if flat[k].dtype.base_dtype == dtypes.int32:
                with fg.as_default():
                    flat[k] = math_ops.cast(flat[k], dtypes.int64)


def _slices_as_parts(structure: Any) -> Any:
    if isinstance(structure, indexed_slices.IndexedSlices):
        if structure.dense_shape is None:
            return _SliceValues(structure.values, structure.indices)
        return _SliceParts(structure.values, structure.indices, structure.dense_shape)
    if isinstance(structure, dict):
        return type(structure)((k, _slices_as_parts(v)) for k, v in structure.items())
    if isinstance(structure, (list, tuple)):
        items = [_slices_as_parts(x) for x in structure]
        if hasattr(structure, "_fields"):  # a namedtuple
            return type(structure)(*items)
        return type(structure)(items)
    return structure


def _parts_as_slices(structure: Any) -> Any:
    if isinstance(structure, (_SliceParts, _SliceValues)):
        return indexed_slices.IndexedSlices(*structure)
    if isinstance(structure, dict):
        return type(structure)((k, _parts_as_slices(v)) for k, v in structure.items())
    if isinstance(structure, (list, tuple)):
        items = [_parts_as_slices(x) for x in structure]
        if hasattr(structure, "_fields"):  # a namedtuple
            return type(structure)(*items)
        return type(structure)(items)
    return structure


def _named_as_v1(
    outputs: Sequence[Tensor], kind: str, first: int, positions: Sequence[int] | None = None
) -> list[Tensor]:
    """A functional op's results under the names TF1's control flow gives them (a cond's
    `cond/Merge`, `cond/Merge_1`, a loop's `while/Exit`, ...: printed tensors, and names
    programs fetch): an Identity of each in the op's name scope, the k-th named `<kind>_<k>`
    (no suffix for 0), k counted from `first` or taken from `positions`."""
    named = []
    for i, t in enumerate(outputs):
        k = first + i if positions is None else positions[i]
        named.append(array_ops.identity(t, name=kind + (f"_{k}" if k else "")))
    return named


def _make_if(
    graph: Graph,
    name: str,
    pred: Tensor,
    explicit: Sequence[Tensor],
    then_fg: FuncGraph,
    then_outs: Sequence[Tensor],
    else_fg: FuncGraph,
    else_outs: Sequence[Tensor],
    then_exports: Sequence[Tensor] = (),
    else_exports: Sequence[Tensor] = (),
) -> Operation:
    inputs, refs, (then_args, else_args), controls = _functional_inputs(
        graph, explicit, [then_fg, else_fg]
    )
    then_func = then_fg.to_function(then_args, then_outs, [t.name for t in then_exports])
    else_func = else_fg.to_function(else_args, else_outs, [t.name for t in else_exports])
    stateful = then_fg.is_stateful() or else_fg.is_stateful()
    shapes = [_relaxed_shape(t.shape, e.shape) for t, e in zip(then_outs, else_outs)]
    # An exported value keeps its branch's shape (the other branch's stand-in is never read):
    # the gradient recomputing that branch sees the shapes TF1's gradient sees.
    first_export = len(then_outs) - len(then_exports) - len(else_exports)
    for k, t in enumerate([*then_exports, *else_exports]):
        shapes[first_export + k] = t.shape
    attrs = {
        "Tcond": dtypes.bool_,
        "Tin": [t.dtype.base_dtype for t in inputs],
        "Tout": [t.dtype.base_dtype for t in then_outs],
        "output_shapes": shapes,
        "then_branch": then_func,
        "else_branch": else_func,
    }
    op_type = "If" if stateful else "StatelessIf"
    return _create_functional_op(graph, op_type, [pred, *inputs], attrs, name, refs, controls)


def _make_case(
    graph: Graph,
    name: str,
    index: Tensor,
    explicit: Sequence[Tensor],
    branch_fgs: Sequence[FuncGraph],
    branch_outs: Sequence[Sequence[Tensor]],
) -> Operation:
    """A Case op (TF 1.15's indexed case) running branch `index` (the last one when out of
    range) on the explicit inputs and every branch's captures."""
    inputs, refs, args, controls = _functional_inputs(graph, explicit, branch_fgs)
    funcs = [fg.to_function(a, outs, []) for fg, a, outs in zip(branch_fgs, args, branch_outs)]
    shapes = [t.shape for t in branch_outs[0]]
    for outs in branch_outs[1:]:
        shapes = [_relaxed_shape(s, t.shape) for s, t in zip(shapes, outs)]
    attrs = {
        "Tin": [t.dtype.base_dtype for t in inputs],
        "Tout": [t.dtype.base_dtype for t in branch_outs[0]],
        "output_shapes": shapes,
        "branches": funcs,
    }
    return _create_functional_op(graph, "Case", [index, *inputs], attrs, name, refs, controls)


def _describe(structure: Any) -> str:
    if isinstance(structure, dict):
        return "{" + ", ".join(f"{k!r}: {_describe(v)}" for k, v in sorted(structure.items())) + "}"
    if isinstance(structure, (list, tuple)):
        return "[" + ", ".join(_describe(x) for x in structure) + "]"
    return "Operation" if isinstance(structure, Operation) else "Tensor"


def case(
    pred_fn_pairs: Any,
    default: Callable[[], Any] | None = None,
    exclusive: bool = False,
    strict: bool = False,
    name: str = "case",
) -> Any:
    """tf.case as TF 1.15 builds it: nested conds (`cond`, `cond/cond`, ...) testing the
    predicates in order. Without a default the last pair is the default, guarded by Asserts
    that its predicate holds and no other does; `exclusive` adds an Assert that at most one
    predicate holds (`preds_c`, `num_true_conds`), which the conds wait for."""
    import functools

    if not isinstance(pred_fn_pairs, (list, tuple, dict)):
        raise TypeError("fns must be a list, tuple, or dict")
    if isinstance(pred_fn_pairs, dict):
        pairs = sorted(pred_fn_pairs.items(), key=lambda item: item[0].name)
    else:
        pairs = list(pred_fn_pairs)
    for p in pairs:
        if not isinstance(p, tuple) or len(p) != 2:
            raise TypeError("Each entry in pred_fn_pairs must be a 2-tuple")
        pred, action = p
        if isinstance(pred, Tensor):
            if pred.dtype.base_dtype != dtypes.bool_:
                raise TypeError(f"pred must be Tensor of type bool: {pred.name}")
        else:
            raise TypeError(f"pred must be a Tensor, got: {pred}")
        if not callable(action):
            raise TypeError(f"fn for pred {pred.name} must be callable.")
    if default is not None and not callable(default):
        raise TypeError("default must be callable.")
    if not pairs:
        raise ValueError("tf.case needs at least one (pred, fn) pair")
    predicates = [p for p, _ in pairs]
    actions = [f for _, f in pairs]
    with name_scope(name, "case", predicates):
        if default is None:
            default, predicates, actions = _case_create_default_action(predicates, actions)
        fn: Any = default
        for predicate, branch in reversed(list(zip(predicates, actions))):
            fn = functools.partial(cond, predicate, true_fn=branch, false_fn=fn, strict=strict)
        if exclusive:
            check = _assert_at_most_n_true(predicates, 1, "Input error: exclusive=True")
            with control_dependencies([check]):
                return fn()
        return fn()


def _assert_at_most_n_true(predicates: Sequence[Any], n: int, msg: str) -> Any:
    from tfcluster.ops import logging_ops, math_ops

    preds_c = array_ops.stack(list(predicates), name="preds_c")
    num_true = math_ops.reduce_sum(math_ops.cast(preds_c, dtypes.int32), name="num_true_conds")
    condition = math_ops.less_equal(num_true, constant_op.constant(n, name="n_true_conds"))
    names = ", ".join(getattr(p, "name", "?") for p in predicates)
    error_msg = [f"{msg}: more than {n} conditions ({names}) evaluated as True:", preds_c]
    return logging_ops.Assert(condition, data=error_msg, summarize=len(predicates))


def _case_create_default_action(
    predicates: Sequence[Any], actions: Sequence[Any]
) -> tuple[Callable[[], Any], list[Any], list[Any]]:
    """The last pair as the default, asserting its predicate holds and no other does."""
    from tfcluster.ops import logging_ops

    k = len(predicates) - 1
    predicate, action = predicates[k], actions[k]
    other_predicates, other_actions = list(predicates[:k]), list(actions[:k])

    def default_action() -> Any:
        others_msg = (
            f"Implementation error: selected default action #{k} was called, but some of "
            "other predicates are True: "
        )
        default_msg = (
            "Input error: None of conditions evaluated as True:",
            array_ops.stack(list(predicates), name="preds_c"),
        )
        with control_dependencies(
            [
                _assert_at_most_n_true(other_predicates, 0, others_msg),
                logging_ops.Assert(predicate, data=default_msg),
            ]
        ):
            return action()

    return default_action, other_predicates, other_actions


def while_loop(
    cond: Callable[..., Any],
    body: Callable[..., Any],
    loop_vars: Any,
    shape_invariants: Any = None,
    parallel_iterations: int = 10,
    back_prop: bool = True,
    swap_memory: bool = False,
    name: str | None = None,
    maximum_iterations: Any = None,
    return_same_structure: bool = False,
) -> Any:
    """tf.while_loop: repeats `body` while `cond` holds, as one functional While op.

    `loop_vars` may be a nested structure; `body` returns the same structure. Static shapes
    of the results are the loop variables' shapes, or `shape_invariants` where given.
    `swap_memory` is ignored; `parallel_iterations` is recorded (iterations run in order).
    """
    if not callable(cond):
        raise TypeError("cond must be callable.")
    if not callable(body):
        raise TypeError("body must be callable.")
    if parallel_iterations < 1:
        raise TypeError("parallel_iterations must be a positive integer.")
    is_seq = isinstance(loop_vars, (list, tuple, dict))
    structure = loop_vars if is_seq else [loop_vars]
    # TensorArrays travel as their flow; the body and the results see TensorArrays again.
    templates = flatten(structure)
    flat_in = [_flow_of(v) for v in templates]
    if not flat_in:
        raise ValueError("No loop variables provided")
    graph = get_graph_from_inputs(flat_in)
    with (
        graph.as_default(),
        name_scope(name, "while", [v for v in flat_in if isinstance(v, Tensor)]) as scope,
    ):
        op_name = scope[:-1]
        init = [convert_to_tensor(v) for v in flat_in]
        init = [t if not t.dtype.is_ref_dtype else _value_of(t) for t in init]
        invariants = _loop_invariants(structure, init, shape_invariants, is_seq, templates)
        max_iter = _max_iterations(maximum_iterations)
        cond_fg = FuncGraph(f"{op_name}/cond", graph)
        body_fg = FuncGraph(f"{op_name}/body", graph)
        # TF1 counts the iterations in a first loop variable when there is a maximum.
        first = 0 if max_iter is None else 1
        # In a function's graph TF 1.15 builds while_v2 instead: its cond and body count
        # their own ops, and the While op is counted as _while_v2_ops says.
        v2 = builds_v2_control_flow(graph)
        start = graph._op_count()
        # TF1's op count (op seeds): its iteration_counter, then an Enter and a Merge per loop
        # variable before the cond; LoopCond, a Switch and an Identity per loop variable
        # before the body; a NextIteration and an Exit per loop variable after it.
        num_loop_vars = len(init) + first
        if not v2:
            graph._match_tf1_op_count(first + 2 * num_loop_vars)
        cond_out = _build_cond(
            cond_fg, cond, structure, init, invariants, is_seq, templates, first, v2
        )
        # TF1 gives the loop one Enter per outer tensor: the cond's use of maximum_iterations
        # shares the Enter counted with the counter's test above.
        maximum_in_cond = _captures_tensor(cond_fg, max_iter)
        if not v2:
            graph._match_tf1_op_count(1 + 2 * num_loop_vars - maximum_in_cond)
            # TF1 builds the cond, then the body, in one graph: the body's op names count the
            # cond's.
            body_fg._names_in_use.update(cond_fg._names_in_use)
        body_outs, body_structure = _build_body(
            body_fg, body, structure, init, invariants, is_seq, templates, first, v2
        )
        if not v2:
            # A tensor both cond and body capture has one Enter in TF1, an _Arg in each body.
            captured_twice = {t for t, _ in cond_fg.captures} & {t for t, _ in body_fg.captures}
            # So does the body's (once only, where the cond uses it too: in captured_twice).
            maximum_in_body_only = _captures_tensor(body_fg, max_iter) * (1 - maximum_in_cond)
            # The Exits of the loop variables are made below (as Identities).
            graph._match_tf1_op_count(
                2 * num_loop_vars - len(captured_twice) - len(init) - maximum_in_body_only
            )
        count = graph._op_count()
        op = make_while(
            graph,
            op_name,
            init,
            invariants,
            cond_fg,
            cond_out,
            body_fg,
            body_outs,
            parallel_iterations=parallel_iterations,
            back_prop=back_prop,
            max_iter=max_iter,
        )
        num_vars = len(init)
        if v2:
            # while_v2's results: the Identities of its outputs 2, 3, ... (after the counter
            # and the maximum).
            outputs = _named_as_v1(op.outputs[:num_vars], "Identity", 2)
            tf_ops = _while_v2_ops(cond_fg, body_fg, max_iter, num_vars, maximum_iterations)
            graph._match_tf1_op_count(tf_ops - (graph._op_count() - start))
        else:
            graph._match_tf1_op_count(count - graph._op_count())  # the While op is not in TF1's
            outputs = _named_as_v1(op.outputs[:num_vars], "Exit", first)
        results = _with_arrays(templates, outputs)
        if not is_seq or (len(results) == 1 and not return_same_structure):
            return results[0]
        # TF 1.15 packs the exits as the body's result (a tuple from `return a, b` for list
        # loop_vars); with maximum_iterations, as loop_vars.
        return pack_as(structure if max_iter is not None else body_structure, results)


def _while_v2_ops(
    cond_fg: FuncGraph,
    body_fg: FuncGraph,
    max_iter: Tensor | None,
    num_vars: int,
    maximum_iterations: Any,
) -> int:
    """The ops TF 1.15's while_v2 makes in the outer graph once the loop variables (and a
    maximum given) are tensors: a constant maximum when none is given, the iteration
    counter's constant, the While op, and an Identity per output (counter, maximum, loop
    variables, captured tensors)."""
    # TF's captures: a TensorArray there is one TensorList (its flow), without a handle.
    captured = {
        id(t)
        for fg in (cond_fg, body_fg)
        for t, _ in fg.captures
        if t is not max_iter and not (t.op.type == "TensorArrayV3" and t.value_index == 0)
    }
    return int(maximum_iterations is None) + 2 + (2 + num_vars + len(captured))


def make_while(
    graph: Graph,
    op_name: str,
    init: Sequence[Tensor],
    invariants: Sequence[TensorShape],
    cond_fg: FuncGraph,
    cond_out: Tensor,
    body_fg: FuncGraph,
    body_outs: Sequence[Tensor],
    parallel_iterations: int = 10,
    back_prop: bool = True,
    max_iter: Tensor | None = None,
) -> Operation:
    """The While op of built cond and body graphs: their explicit arguments are the loop
    variables (`init`), their captures become the op's further inputs."""
    inputs, refs, (cond_args, body_args), controls = _functional_inputs(
        graph, init, [cond_fg, body_fg]
    )
    num_vars = len(init)
    attrs = {
        "T": [t.dtype.base_dtype for t in init],
        "Tcaptures": [t.dtype.base_dtype for t in inputs[num_vars:]],
        "output_shapes": list(invariants),
        "cond": cond_fg.to_function(cond_args, [cond_out]),
        "body": body_fg.to_function(body_args, body_outs),
        "parallel_iterations": int(parallel_iterations),
        "back_prop": bool(back_prop),
        "has_maximum_iterations": max_iter is not None,
    }
    if max_iter is not None:
        inputs.append(max_iter)
    op_type = "While" if cond_fg.is_stateful() or body_fg.is_stateful() else "StatelessWhile"
    return _create_functional_op(graph, op_type, inputs, attrs, op_name + "/", refs, controls)


def _flow_of(value: Any) -> Any:
    return value.flow if isinstance(value, tensor_array_ops.TensorArray) else value


def _with_arrays(templates: Sequence[Any], values: Sequence[Any]) -> list[Any]:
    """Loop values with a TensorArray again wherever the loop variable was one."""
    return [
        tensor_array_ops.build_ta_with_new_flow(t, v)
        if isinstance(t, tensor_array_ops.TensorArray)
        else v
        for t, v in zip(templates, values)
    ]


def _value_of(ref: Tensor) -> Tensor:
    return array_ops.identity(ref)


def _loop_invariants(
    structure: Any,
    init: Sequence[Tensor],
    shape_invariants: Any,
    is_seq: bool,
    templates: Sequence[Any],
) -> list[TensorShape]:
    if shape_invariants is None:
        return [t.shape for t in init]
    inv_structure = shape_invariants if is_seq else [shape_invariants]
    if not _same_invariant_structure(structure, inv_structure):
        raise ValueError("shape_invariants must have the same structure as loop_vars")
    invariants = [as_shape(s) for s in _flatten_shapes(inv_structure)]
    for i, (t, inv) in enumerate(zip(init, invariants)):
        if isinstance(templates[i], tensor_array_ops.TensorArray):
            invariants[i] = t.shape  # a TensorArray's invariant says nothing of its flow
            continue
        if not _shape_at_most(t.shape, inv):
            raise ValueError(
                f"The shape invariant specified for {t.name} is not compatible with the initial "
                f"shape of the loop variable. It enters the loop with shape {t.shape}, but the "
                f"specified shape invariant is {inv}."
            )
    return invariants


def _flatten_shapes(structure: Any) -> list[Any]:
    """Like flatten, but a TensorShape or a list of dims/None is one leaf."""
    if isinstance(structure, dict):
        return [x for k in sorted(structure) for x in _flatten_shapes(structure[k])]
    if isinstance(structure, (list, tuple)) and not _is_shape_like(structure):
        return [x for item in structure for x in _flatten_shapes(item)]
    return [structure]


def _is_shape_like(x: Any) -> bool:
    return isinstance(x, (list, tuple)) and all(
        d is None or isinstance(d, (int, np.integer)) for d in x
    )


def _same_invariant_structure(structure: Any, invariants: Any) -> bool:
    return len(flatten(structure)) == len(_flatten_shapes(invariants))


def _is_sequence(value: Any) -> bool:
    return isinstance(value, (list, tuple))


def _sequence_types_differ(a: Any, b: Any) -> bool:
    """Whether a and b nest lists and tuples (namedtuples) alike but not of the same types."""
    if not (_is_sequence(a) and _is_sequence(b)) or len(a) != len(b):
        return False
    return type(a) is not type(b) or any(_sequence_types_differ(x, y) for x, y in zip(a, b))


def _check_sequence_types(structure: Any, result: Any, first: int) -> None:
    """TF1's check of the body's result against loop_vars: below the outermost sequence, a
    list and a tuple differ (TypeError). With maximum_iterations TF1 loops over (counter,
    loop_vars), a lone loop variable packed bare, so the outermost sequence counts too."""
    if not _is_sequence(structure):
        return
    if first and len(structure) == 1:
        if _is_sequence(result) and not _is_sequence(structure[0]):
            nest.assert_same_structure(structure[0], result)  # ValueError
        mine, theirs = structure[0], result
    elif first:
        mine, theirs = structure, result
    elif _is_sequence(result):
        mine, theirs = list(structure), list(result)
    else:
        return
    if _sequence_types_differ(mine, theirs):
        nest.assert_same_structure(mine, theirs)  # TypeError


def _captures_tensor(fg: FuncGraph, tensor: Tensor | None) -> int:
    """1 where the body captured `tensor` (an outer tensor), else 0."""
    return int(tensor is not None and any(t is tensor for t, _ in fg.captures))


def _max_iterations(maximum_iterations: Any) -> Tensor | None:
    if maximum_iterations is None:
        return None
    t = convert_to_tensor(maximum_iterations, name="maximum_iterations")
    if t.dtype.base_dtype not in (dtypes.int32, dtypes.int64):
        raise TypeError(
            f"maximum_iterations must be an integer tensor, got {t.dtype.base_dtype.name}"
        )
    if t.shape.ndims not in (None, 0):
        raise ValueError(f"maximum_iterations must be a scalar, saw shape: {t.shape}")
    return t


def _loop_args(
    fg: FuncGraph,
    structure: Any,
    init: Sequence[Tensor],
    invariants: Sequence[TensorShape],
    templates: Sequence[Any],
    stem: str,
    first: int,
) -> Any:
    """The loop variables as the body (or cond) sees them, named as TF1 names the tensors
    there: <while scope>/Identity_<i> in the body, <while scope>/Merge_<i> in the cond (i counts
    from 1 when maximum_iterations adds TF1's iteration counter as the first loop variable)."""
    scope = fg.get_name_scope()
    args = []
    for i, (t, inv) in enumerate(zip(init, invariants), start=first):
        name = f"{scope}/{stem}" + (f"_{i}" if i else "")
        args.append(fg.add_arg(t.dtype.base_dtype, inv, name))
    return pack_as(structure, _with_arrays(templates, args))


def _call(fn: Callable[..., Any], packed: Any, is_seq: bool) -> Any:
    if not is_seq:
        return fn(packed[0])
    if isinstance(packed, dict):
        return fn(**packed)
    return fn(*packed)


def _build_cond(
    fg: FuncGraph,
    fn: Callable[..., Any],
    structure: Any,
    init: Sequence[Tensor],
    invariants: Sequence[TensorShape],
    is_seq: bool,
    templates: Sequence[Any],
    first: int,
    v2: bool = False,
) -> Tensor:
    with fg.as_default(), fg.name_scope(fg.name.rsplit("/", 1)[0] + "/"):
        packed = _loop_args(fg, structure, init, invariants, templates, "Merge", first)
        if v2:
            # while_v2's cond counts its own ops: its arguments are the counter, the maximum
            # and the loop variables.
            fg._match_tf1_op_count(2 + len(init) - fg._op_count())
            out = fg.capture(convert_to_tensor(_call(fn, packed, is_seq)))
            _check_scalar_bool(out, "The result of the while_loop cond")
            return out
        if first:
            fg.unique_name("Less")  # TF1's `counter < maximum_iterations` comes first
        with fg.ops_counted_in(fg.outer_graph):
            fg._match_tf1_op_count(2 * first)  # TF1's Less and the Enter of the maximum
            out = fg.capture(convert_to_tensor(_call(fn, packed, is_seq)))
            fg._match_tf1_op_count(first)  # TF1's LogicalAnd with the counter's test
    _check_scalar_bool(out, "The result of the while_loop cond")
    return out


def _build_body(
    fg: FuncGraph,
    fn: Callable[..., Any],
    structure: Any,
    init: Sequence[Tensor],
    invariants: Sequence[TensorShape],
    is_seq: bool,
    templates: Sequence[Any],
    first: int,
    v2: bool = False,
) -> tuple[list[Tensor], Any]:
    """The body's outputs, and the structure of its result (a lone tensor in a list). A
    while_v2 body (v2) counts its own ops, from its arguments: the counter, the maximum and
    the loop variables."""
    with fg.as_default(), fg.name_scope(fg.name.rsplit("/", 1)[0] + "/"):
        packed = _loop_args(fg, structure, init, invariants, templates, "Identity", first)
        if first and not v2:
            fg.unique_name("add")  # TF1's `counter + 1` comes first
        if v2:
            fg._match_tf1_op_count(2 + len(init) - fg._op_count())
        with contextlib.nullcontext() if v2 else fg.ops_counted_in(fg.outer_graph):
            if not v2:
                fg._match_tf1_op_count(2 * first)  # TF1's `counter + 1`: a Const and an Add
            result = _call(fn, packed, is_seq)
            outs = _body_outputs(fg, structure, result, init, invariants, is_seq, templates, first)
    if not isinstance(result, (list, tuple, dict)) and not hasattr(result, "_fields"):
        result = [result]
    return outs, result


def _body_outputs(
    fg: FuncGraph,
    structure: Any,
    result: Any,
    init: Sequence[Tensor],
    invariants: Sequence[TensorShape],
    is_seq: bool,
    templates: Sequence[Any],
    first: int,
) -> list[Tensor]:
    """The body's results as tensors of `fg`, checked against the loop variables."""
    if is_seq:
        _check_sequence_types(structure, result, first)
    if not is_seq or (len(init) == 1 and not isinstance(result, (list, tuple, dict))):
        result = (
            [result] if isinstance(structure, list) or not is_seq else type(structure)([result])
        )
    if not same_structure(structure, result):
        raise ValueError(
            "The body of tf.while_loop must return the same structure as loop_vars: "
            f"{_describe(structure)} vs {_describe(result)}"
        )
    leaves = []
    for i, (leaf, t, template) in enumerate(zip(flatten(result), init, templates)):
        if isinstance(leaf, tensor_array_ops.TensorArray) != isinstance(
            template, tensor_array_ops.TensorArray
        ):
            raise TypeError(
                f"Loop var {i} is a TensorArray in one of loop_vars and the body's result but "
                "not in the other"
            )
        leaf = _flow_of(leaf)
        if isinstance(leaf, Tensor) and leaf.dtype.base_dtype != t.dtype.base_dtype:
            raise TypeError(
                f"Loop var {t.name} enters the loop with type {t.dtype.base_dtype.name}, but "
                f"has type {leaf.dtype.base_dtype.name} after 1 iteration (loop var {i})."
            )
        leaves.append(leaf)
    # TF1 converts every result before it adds the back edges (a NextIteration each, then the
    # shape check), so a failing check leaves its Consts and the NextIterations made so far.
    outs = [
        fg.capture(convert_to_tensor(leaf, dtype=t.dtype.base_dtype))
        for leaf, t in zip(leaves, init)
    ]
    for i, (out, t, inv) in enumerate(zip(outs, init, invariants)):
        if not _shape_at_most(out.shape, inv):
            fg._match_tf1_op_count(first + i + 1)
            raise ValueError(
                f"Input tensor '{t.name}' enters the loop with shape {inv}, but has shape "
                f"{out.shape} after one iteration. To allow the shape to vary across "
                "iterations, use the `shape_invariants` argument of tf.while_loop to "
                "specify a less-specific shape."
            )
    return outs
