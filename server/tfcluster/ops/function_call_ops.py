"""The call ops of tf.function: PartitionedCall and StatefulPartitionedCall.

The called function is a FuncGraph serialised into the `f` func attr (as the bodies of the
functional If/While ops are; kernels/function_calls.py runs them with the If/While
machinery); the op's inputs are the function's arguments then its captures, its outputs the
function's results then the values of its stateful ops that a gradient reuses (`exports`).
`_output_shapes` carries the traced results' static shapes.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from tfcluster.framework import errors, function_call_options, op_def_registry
from tfcluster.framework.func_graph import (
    EXPORTS_ATTR,
    FUNCTIONAL_OPS,
    GRAPH_DEF_ATTR,
    RETVAL_OP,
    FuncGraph,
    copy_function_body,
    parse_function,
)
from tfcluster.framework.graph import Graph, Operation, Tensor, get_default_graph
from tfcluster.framework.tensor_shape import TensorShape
from tfcluster.ops import control_flow_ops
from tfcluster.ops.op_util import Outputs
from tfcluster.protos import attr_value_pb2, graph_pb2

CALL_OPS = ("PartitionedCall", "StatefulPartitionedCall")


def _call_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    shapes = attrs.get("_output_shapes") or [TensorShape(None)] * len(attrs["Tout"])
    return [(dt, TensorShape(s)) for dt, s in zip(attrs["Tout"], shapes)]


op_def_registry.register("PartitionedCall", _call_infer)
op_def_registry.register("StatefulPartitionedCall", _call_infer, stateful=True)


def _case_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    shapes = attrs.get("output_shapes") or attrs.get("_output_shapes")
    shapes = shapes or [TensorShape(None)] * len(attrs["Tout"])
    return [(dt, TensorShape(s)) for dt, s in zip(attrs["Tout"], shapes)]


# TF 1.15's Case (tf.switch_case under control flow v2): the branch picked by an int32 index
# (the last one for an index out of range) runs on the other inputs.
op_def_registry.register("Case", _case_infer, stateful=True)


def exported_tensors(fg: FuncGraph) -> list[Tensor]:
    """Values of the body's stateful ops, returned too so a gradient reuses them."""
    return control_flow_ops._exported_tensors(fg)


@dataclass
class BuiltFunction:
    """A traced body, finished: what each call of it needs."""

    captured: list[Tensor]  # outer tensors, passed after the explicit arguments
    func: attr_value_pb2.NameAttrList
    stateful: bool
    result_dtypes: list[Any]
    result_shapes: list[TensorShape]
    arg_shapes: list[TensorShape]


def build_function(
    fg: FuncGraph, outputs: Sequence[Tensor], exported: Sequence[Tensor]
) -> BuiltFunction:
    """Numbers the body's arguments (explicit ones, then captures), adds its _Retvals."""
    outer = [t for t, _ in fg.captures]
    args = [*fg.inputs, *(inner for _, inner in fg.captures)]
    results = [*outputs, *exported]
    func = fg.to_function(args, results, [t.name for t in exported])
    return BuiltFunction(
        outer,
        func,
        _stateful(fg, outer),
        [t.dtype.base_dtype for t in results],
        [t.shape for t in results],
        [t.shape for t in fg.inputs],
    )


def _stateful(fg: FuncGraph, captured: Sequence[Tensor]) -> bool:
    """Whether TF 1.15 would call the body with StatefulPartitionedCall: it has stateful ops,
    functional control flow (TF 1.15's cond_v2/while_v2 make the stateful If/While) or reads
    variables (ReadVariableOp is stateful)."""
    if fg.is_stateful():
        return True
    if any(op.type in FUNCTIONAL_OPS or op.type in CALL_OPS for op in fg.get_operations()):
        return True
    for t in captured:
        if t.dtype.is_ref_dtype:
            return True
        if t.op.type == "Identity" and t.op.inputs and t.op.inputs[0].dtype.is_ref_dtype:
            return True
    return False


def _refined_shapes(fn: BuiltFunction, input_shapes: Sequence[TensorShape]) -> list[TensorShape]:
    """The results' static shapes for inputs more specific than the traced arguments (TF's
    call op infers them through the body): the body re-made in a scratch graph."""
    body = parse_function(fn.func)
    args = [
        (name, dtype, shape.merge_with(given) if shape.is_compatible_with(given) else shape, ref)
        for (name, dtype, shape, ref), given in zip(body.args, input_shapes)
    ]
    scratch = FuncGraph(f"{body.name}_shapes", Graph())
    try:
        _, results = copy_function_body(dataclasses.replace(body, args=args), scratch)
    except (ValueError, TypeError):
        return list(fn.result_shapes)
    return [r.shape for r in results]


def captured_inputs(graph: Graph, fn: BuiltFunction) -> tuple[list[Tensor], list[Tensor]]:
    """The tensors a call passes for the body's captures (a variable reference through a
    _RefHandle), and the variable references among them."""
    out = []
    refs = []
    for t in fn.captured:
        if t.dtype.is_ref_dtype:
            refs.append(t)
            with graph.colocate_with(t.op):
                handle = graph.create_op(
                    "_RefHandle", [t], {"T": t.dtype.base_dtype}, name="RefHandle"
                )
            out.append(handle.outputs[0])
        else:
            out.append(t)
    return out, refs


def call(
    graph: Graph,
    inputs: Sequence[Tensor],
    fn: BuiltFunction,
    control_captures: Sequence[Operation] = (),
    name: str | None = None,
) -> Operation:
    """Adds one call of `fn` to `graph` (a captured variable passes through a _RefHandle)."""
    captured, refs = captured_inputs(graph, fn)
    all_inputs = [*inputs, *captured]
    op_type = "StatefulPartitionedCall" if fn.stateful else "PartitionedCall"
    shapes = list(fn.result_shapes)
    if any(
        not a.shape.is_compatible_with(s) or a.shape != s for a, s in zip(inputs, fn.arg_shapes)
    ):
        shapes = _refined_shapes(fn, [t.shape for t in all_inputs])
    attrs = {
        "Tin": [t.dtype.base_dtype for t in all_inputs],
        "Tout": list(fn.result_dtypes),
        "f": fn.func,
        "config": "",
        "config_proto": "",
        "executor_type": function_call_options.executor_type(),
        "_output_shapes": shapes,
    }
    return control_flow_ops._create_functional_op(
        graph, op_type, all_inputs, attrs, name or op_type, refs, list(control_captures)
    )


def func_attr_value(value: Any, key: str) -> attr_value_pb2.NameAttrList:
    """What a raw op's func attr takes, as TF 1.15's op builder does: an object with
    `add_to_graph` (a ConcreteFunction: added to the default graph, then named), the name
    of a function added to the graph, or a NameAttrList (naming one, or carrying its body)."""
    graph = get_default_graph()
    if hasattr(value, "add_to_graph") and hasattr(value, "name"):
        value.add_to_graph(graph)
        name = str(value.name)
    elif isinstance(value, attr_value_pb2.NameAttrList):
        if GRAPH_DEF_ATTR in value.attr:
            return value
        name = value.name
    elif isinstance(value, (str, bytes)):
        name = value.decode() if isinstance(value, bytes) else value
    else:
        raise TypeError(f"Don't know how to convert {value!r} to a func for argument {key}")
    body = graph._function_body(name)
    if body is None:  # TF 1.15: InvalidArgumentError when the graph gets the node
        raise errors.InvalidArgumentError(
            None,
            None,
            f"Function '{name}' (attr {key}) is not defined in this graph: pass a concrete "
            "function (tf.function(...).get_concrete_function(...)) or add one first with "
            "its add_to_graph()",
        )
    return body


def without_exports(func: attr_value_pb2.NameAttrList, num_results: int) -> Any:
    """The body returning only its first `num_results` results (a traced function's body
    also returns values its gradient reuses, which a raw op's caller does not expect)."""
    if EXPORTS_ATTR not in func.attr:
        return func
    gd = graph_pb2.GraphDef.FromString(func.attr[GRAPH_DEF_ATTR].s)
    keep = [
        nd for nd in gd.node if not (nd.op == RETVAL_OP and int(nd.attr["index"].i) >= num_results)
    ]
    del gd.node[:]
    gd.node.extend(keep)
    out = attr_value_pb2.NameAttrList()
    out.CopyFrom(func)
    del out.attr[EXPORTS_ATTR]
    out.attr[GRAPH_DEF_ATTR].s = gd.SerializeToString()
    return out


__all__ = [
    "CALL_OPS",
    "func_attr_value",
    "without_exports",
    "BuiltFunction",
    "build_function",
    "call",
    "captured_inputs",
    "exported_tensors",
]
