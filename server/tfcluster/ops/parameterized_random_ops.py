"""Random ops with a mean/stddev/bounds or count/probability per batch row:
ParameterizedTruncatedNormal (a raw op only in TF 1.15, not differentiable) and
StatefulRandomBinomial (tf.random.experimental.Generator.binomial)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tfcluster.framework import dtypes, op_def_registry
from tfcluster.framework.graph import Tensor, convert_to_tensor
from tfcluster.ops import stateful_random_ops
from tfcluster.ops.op_util import Outputs, make_op
from tfcluster.ops.random_ops import _random_infer
from tfcluster.ops.state_ops import _ref_of


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


# StatefulRandomBinomial: (state, algorithm, shape, counts, probs) -> samples; the state
# variable is taken by reference, as the other Generator ops take it.
op_def_registry.register(
    "StatefulRandomBinomial", stateful_random_ops._sample_infer, ref_inputs=[0], stateful=True
)


def stateful_random_binomial(
    state: Any,
    algorithm: Any,
    shape: Tensor,
    counts: Tensor,
    probs: Tensor,
    dtype: Any = dtypes.int64,
    name: str | None = None,
) -> Tensor:
    alg = convert_to_tensor(algorithm, dtype=dtypes.int64, name="algorithm")
    attrs = {
        "S": shape.dtype.base_dtype,
        "T": counts.dtype.base_dtype,
        "dtype": dtypes.as_dtype(dtype).base_dtype,
    }
    inputs = [_ref_of(state), alg, shape, counts, probs]
    op = make_op("StatefulRandomBinomial", inputs, attrs, name=name or "StatefulRandomBinomial")
    return op.outputs[0]
