"""Random ops TF 1.15 has only as raw ops: ParameterizedTruncatedNormal (normals with a mean,
stddev and bounds per batch row). TF registers it as not differentiable."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tfcluster.framework import op_def_registry
from tfcluster.framework.graph import Tensor
from tfcluster.ops.op_util import Outputs
from tfcluster.ops.random_ops import _random_infer


def _parameterized_truncated_normal_infer(
    inputs: Sequence[Tensor], attrs: dict[str, Any]
) -> Outputs:
    for t, what in zip(inputs[1:], ("means", "stdevs", "minvals", "maxvals")):
        rank = t.shape.ndims
        if rank is not None and rank > 1:
            raise ValueError(f"Shape must be at most rank 1 but is rank {rank} for {what}")
    return _random_infer(inputs, attrs)


op_def_registry.register(
    "ParameterizedTruncatedNormal", _parameterized_truncated_normal_infer, stateful=True
)
