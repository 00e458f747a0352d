"""Ops that make a value from nothing but their attrs, kept as raw ops by TF 1.15: Fact (TF's
example op), FakeParam (a stand-in for a function's parameter never read) and ImmutableConst
(a tensor backed by a read-only memory-mapped file region)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tfcluster.framework import dtypes, op_def_registry
from tfcluster.framework.graph import Tensor
from tfcluster.framework.tensor_shape import TensorShape, as_shape
from tfcluster.ops.op_util import Outputs


def _fact_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    return [(dtypes.string, TensorShape(None))]


def _attr_shape_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    shape = attrs.get("shape")
    return [(attrs["dtype"], TensorShape(None) if shape is None else as_shape(shape))]


op_def_registry.register("Fact", _fact_infer)
op_def_registry.register("FakeParam", _attr_shape_infer)
op_def_registry.register("ImmutableConst", _attr_shape_infer)
