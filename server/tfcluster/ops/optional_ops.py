"""Graph ops of tf.data.experimental.Optional: a scalar variant holding an element or
nothing (OptionalFromValue, OptionalNone), read by OptionalHasValue / OptionalGetValue, and
IteratorGetNextAsOptional (an iterator's next element, or nothing at its end)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tfcluster.framework import dtypes, op_def_registry
from tfcluster.framework.graph import Tensor
from tfcluster.framework.tensor_shape import TensorShape
from tfcluster.ops.dataset_ops import element_outputs
from tfcluster.ops.op_util import Outputs, make_op

_VARIANT = [(dtypes.variant, TensorShape([]))]


def _variant_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    return list(_VARIANT)


def _element_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    return element_outputs(attrs)


op_def_registry.register("OptionalFromValue", _variant_infer)
op_def_registry.register("OptionalNone", _variant_infer)
op_def_registry.register("OptionalHasValue", op_def_registry.fixed((dtypes.bool_, [])))
op_def_registry.register("OptionalGetValue", _element_infer)
op_def_registry.register("IteratorGetNextAsOptional", _variant_infer, ref_inputs=[0], stateful=True)

OP_TYPES = (
    "OptionalFromValue",
    "OptionalNone",
    "OptionalHasValue",
    "OptionalGetValue",
    "IteratorGetNextAsOptional",
)


def optional_from_value(components: Sequence[Tensor], name: str | None = None) -> Tensor:
    attrs = {"Toutput_types": [t.dtype.base_dtype for t in components]}
    return make_op("OptionalFromValue", list(components), attrs, name=name).outputs[0]


def optional_none(name: str | None = None) -> Tensor:
    return make_op("OptionalNone", [], {}, name=name).outputs[0]


def optional_has_value(optional: Tensor, name: str | None = None) -> Tensor:
    return make_op("OptionalHasValue", [optional], {}, name=name).outputs[0]


def optional_get_value(
    optional: Tensor, element_attrs: dict[str, Any], name: str | None = None
) -> list[Tensor]:
    return list(make_op("OptionalGetValue", [optional], dict(element_attrs), name=name).outputs)


def iterator_get_next_as_optional(
    iterator: Tensor, element_attrs: dict[str, Any], name: str | None = None
) -> Tensor:
    op = make_op("IteratorGetNextAsOptional", [iterator], dict(element_attrs), name=name)
    return op.outputs[0]


__all__: list[str] = []
