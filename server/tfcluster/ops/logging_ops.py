"""tf.Print, tf.print and tf.Assert, as TF 1.15 builds them.

tf.Print passes its input through and prints its data tensors (TF's old format) to the
stderr of the process that runs it; tf.print formats its arguments with a StringFormat op
(Python values and structures by pprint, tensors numpy-like) and prints the string with a
PrintV2 op, which a session must run (or a control dependency reach). tf.Assert fails the step
with InvalidArgumentError when its condition is false; with data other than int32/string
tensors it is guarded by a tf.cond, as TF does.
"""

from __future__ import annotations

import collections
import logging
import os
import pprint
import random
import sys
from collections.abc import Sequence
from typing import Any

from tfcluster.framework import dtypes, op_def_registry
from tfcluster.framework.graph import (
    Operation,
    Tensor,
    convert_to_tensor,
    get_default_graph,
    name_scope,
)
from tfcluster.framework.sparse_tensor import SparseTensor
from tfcluster.ops import control_flow_ops, string_ops
from tfcluster.ops.op_util import Outputs


def _print_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    return [(inputs[0].dtype.base_dtype, inputs[0].shape)]


def _assert_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    cond = inputs[0]
    if cond.dtype.base_dtype != dtypes.bool_:
        raise TypeError(
            f"Input 'condition' of 'Assert' Op has type {cond.dtype.base_dtype.name} that does "
            "not match expected type of bool."
        )
    return []


def _print_v2_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    if inputs[0].dtype.base_dtype != dtypes.string:
        raise TypeError("PrintV2 prints a string tensor")
    if inputs[0].shape.ndims not in (None, 0):
        raise ValueError(f"Shape must be rank 0 but is rank {inputs[0].shape.ndims} (input)")
    return []


op_def_registry.register("Print", _print_infer, stateful=True)
op_def_registry.register("PrintV2", _print_v2_infer, stateful=True)
op_def_registry.register("Assert", _assert_infer, stateful=True)
OP_TYPES = ("Print", "PrintV2", "Assert")


def Print(
    input_: Any,
    data: Sequence[Any],
    message: str | None = None,
    first_n: int | None = None,
    summarize: int | None = None,
    name: str | None = None,
) -> Tensor:
    """Prints `message` and the data tensors when evaluated; returns `input_` unchanged."""
    with name_scope(name, "Print", [input_, *data]) as scope:
        x = convert_to_tensor(input_, name="input")
        ts = [convert_to_tensor(d, name="data") for d in data]
        attrs = {
            "T": x.dtype.base_dtype,
            "U": [t.dtype.base_dtype for t in ts],
            "message": message or "",
            "first_n": -1 if first_n is None else int(first_n),
            "summarize": 3 if summarize is None else int(summarize),
        }
        op = get_default_graph().create_op("Print", [x, *ts], attrs, name=scope)
    return op.outputs[0]


def _stream_name(output_stream: Any) -> str:
    if isinstance(output_stream, str) and output_stream.startswith("file://"):
        return output_stream
    streams: list[tuple[Any, str]] = [
        (sys.stdout, "stdout"),
        (sys.stderr, "stderr"),
        (sys.__stdout__, "stdout"),
        (sys.__stderr__, "stderr"),
        (logging.INFO, "log(info)"),
        (logging.info, "log(info)"),
        (logging.WARNING, "log(warning)"),
        (logging.warning, "log(warning)"),
        (logging.warn, "log(warning)"),
        (logging.ERROR, "log(error)"),
        (logging.error, "log(error)"),
    ]
    for obj, name in streams:
        if output_stream is obj:
            return name
    # tf.logging's functions (the logging module of tf.compat.v1) by name.
    func = getattr(output_stream, "__name__", None)
    module = getattr(output_stream, "__module__", "") or ""
    if func in ("info", "warning", "warn", "error") and "logging" in module:
        return {"info": "log(info)", "error": "log(error)"}.get(func, "log(warning)")
    raise ValueError(
        "Unsupported output stream, logging level, or file."
        + str(output_stream)
        + ". Supported streams are sys.stdout, sys.stderr, tf.logging.info, "
        "tf.logging.warning, tf.logging.error. File needs to be in the form of "
        "'file://<filepath>'."
    )


def _placeholder_not_in(text: str, default: str = "{}") -> str:
    """A placeholder that does not occur in the template (TF's choice: the same digits)."""
    placeholder = default
    rng = random.Random(5)
    while placeholder in text:
        placeholder = placeholder + str(rng.randint(0, 9))
    return placeholder


def _is_tensor(x: Any) -> bool:
    return isinstance(x, Tensor)


def _leaves(x: Any) -> list[Any]:
    """nest.flatten's leaves (dicts by sorted key), a SparseTensor one leaf, as TF's print."""
    if isinstance(x, dict):
        return [leaf for k in sorted(x) for leaf in _leaves(x[k])]
    if isinstance(x, (list, tuple)):
        return [leaf for item in x for leaf in _leaves(item)]
    return [x]


def _rebuilt(x: Any, leaves: Any) -> Any:
    """x's structure with `leaves` (an iterator) in place of its own."""
    if isinstance(x, dict):
        values = {k: _rebuilt(x[k], leaves) for k in sorted(x)}
        return type(x)((k, values[k]) for k in x)
    if isinstance(x, (list, tuple)):
        items = [_rebuilt(item, leaves) for item in x]
        return type(x)(*items) if hasattr(x, "_fields") else type(x)(items)
    return next(leaves)


def _sorted_ordered_dicts(x: Any) -> Any:
    if isinstance(x, collections.OrderedDict):
        return collections.OrderedDict(sorted(x.items()))
    return x


def print_v2(*inputs: Any, **kwargs: Any) -> Operation:
    """tf.print: prints the inputs (tensors numpy-like, Python values as pprint does)."""
    output_stream = kwargs.pop("output_stream", sys.stderr)
    name = kwargs.pop("name", None)
    summarize = kwargs.pop("summarize", 3)
    sep = kwargs.pop("sep", " ")
    end = kwargs.pop("end", os.linesep)
    if kwargs:
        raise ValueError(f"Unrecognized keyword arguments for tf.print: {kwargs}")
    format_name = name + "_format" if name else None
    stream = _stream_name(output_stream)
    if (
        len(inputs) == 1
        and _is_tensor(inputs[0])
        and inputs[0].shape.ndims == 0
        and inputs[0].dtype.base_dtype == dtypes.string
    ):
        formatted = inputs[0]
    else:
        inputs = tuple(_sorted_ordered_dicts(x) for x in inputs)
        tensor_free = [
            _rebuilt(
                x,
                iter(
                    ["" if _is_tensor(v) or isinstance(v, SparseTensor) else v for v in _leaves(x)]
                ),
            )
            for x in inputs
        ]
        placeholder = _placeholder_not_in(" ".join(pprint.pformat(x) for x in tensor_free))
        tensors: list[Tensor] = []
        templates = []
        for x in inputs:
            parts: list[Any] = []
            for v in _leaves(x):
                if isinstance(v, SparseTensor):
                    tensors.extend([v.indices, v.values, v.dense_shape])
                    parts.append(
                        f"SparseTensor(indices={placeholder}, values={placeholder}, "
                        f"shape={placeholder})"
                    )
                elif _is_tensor(v):
                    tensors.append(v)
                    parts.append(placeholder)
                else:
                    parts.append(v)
            if isinstance(x, str):
                templates.append(x)
            else:
                templates.append(pprint.pformat(_rebuilt(x, iter(parts))))
        template = sep.join(templates).replace("'" + placeholder + "'", placeholder)
        formatted = string_ops.string_format(
            template, tensors, placeholder=placeholder, summarize=summarize, name=format_name
        )
    with name_scope(name, "PrintV2", [formatted]) as scope:
        attrs = {"output_stream": stream, "end": end}
        return get_default_graph().create_op("PrintV2", [formatted], attrs, name=scope)


def Assert(
    condition: Any, data: Sequence[Any], summarize: int | None = None, name: str | None = None
) -> Operation:
    """Fails the step (InvalidArgumentError listing `data`) when `condition` is false."""
    with name_scope(name, "Assert", [condition, *data]):
        xs = [convert_to_tensor(d) for d in data]
        count = 3 if summarize is None else int(summarize)
        if all(x.dtype.base_dtype in (dtypes.string, dtypes.int32) for x in xs):
            return _assert_op(condition, data, count)
        cond = convert_to_tensor(condition, name="Condition")

        def true_assert() -> Operation:
            return _assert_op(cond, data, count)

        guarded = control_flow_ops.cond(
            cond, control_flow_ops.no_op, true_assert, name="AssertGuard"
        )
        return guarded if isinstance(guarded, Operation) else guarded.op


def _assert_op(condition: Any, data: Sequence[Any], summarize: int) -> Operation:
    with name_scope("Assert") as scope:
        cond = convert_to_tensor(condition, name="condition")
        # As TF's op wrapper: values that are not tensors yet become data_<i> in the op's scope.
        xs = [convert_to_tensor(d, name=f"data_{i}") for i, d in enumerate(data)]
        attrs = {"T": [x.dtype.base_dtype for x in xs], "summarize": summarize}
        return get_default_graph().create_op("Assert", [cond, *xs], attrs, name=scope)


__all__ = ["Assert", "Print", "print_v2"]
