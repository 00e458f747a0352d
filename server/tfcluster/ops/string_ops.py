"""String ops (tf.strings and their top-level names), as TF 1.15 builds them."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tfcluster.framework import dtypes, op_def_registry
from tfcluster.framework.graph import Tensor, convert_to_tensor, get_default_graph, name_scope
from tfcluster.framework.tensor_shape import TensorShape
from tfcluster.ops.op_util import Outputs

_STRING_SCALAR = [(dtypes.string, TensorShape([]))]


def _string_format_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    return list(_STRING_SCALAR)


op_def_registry.register("StringFormat", _string_format_infer)


def string_format(
    template: str,
    inputs: Any,
    placeholder: str = "{}",
    summarize: int = 3,
    name: str | None = None,
) -> Tensor:
    """A scalar string: `template` with each placeholder replaced by one input tensor,
    formatted as tf.print formats it."""
    if isinstance(inputs, Tensor):
        inputs = [inputs]
    inputs = list(inputs)
    if template.count(placeholder) != len(inputs):
        raise ValueError(
            f"{template.count(placeholder)} placeholder(s) in template does not match "
            f"{len(inputs)} tensor(s) provided as input"
        )
    with name_scope(name, "StringFormat", inputs) as scope:
        ts = [convert_to_tensor(x, name="inputs") for x in inputs]
        attrs = {
            "T": [t.dtype.base_dtype for t in ts],
            "template": template,
            "placeholder": placeholder,
            "summarize": int(summarize),
        }
        return get_default_graph().create_op("StringFormat", ts, attrs, name=scope).outputs[0]


__all__: list[str] = []
