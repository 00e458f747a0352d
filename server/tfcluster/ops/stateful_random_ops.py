"""The ops of tf.random.experimental.Generator (TF 1.15's stateful_random_ops): each draws from
a counter-based generator whose state (int64 [counter low, counter high, key] for Philox) is a
variable, and advances that state as it draws. TF passes the state as a resource handle; here
the state variable is passed by reference, as TF1's Assign ops take their variables."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tfcluster.framework import dtypes, op_def_registry
from tfcluster.framework.graph import Tensor, convert_to_tensor
from tfcluster.framework.tensor_shape import TensorShape
from tfcluster.ops.array_ops import _partial_values
from tfcluster.ops.op_util import Outputs, make_op
from tfcluster.ops.state_ops import _ref_of

RNG_ALG_PHILOX = 1
RNG_ALG_THREEFRY = 2


def _sample_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    shape_t = inputs[2]
    if shape_t.shape.ndims not in (None, 1):
        raise ValueError(f"Shape must be rank 1 but is rank {shape_t.shape.ndims}")
    dims = _partial_values(shape_t)
    return [(attrs["dtype"], TensorShape(None) if dims is None else TensorShape(dims))]


# (state, algorithm, shape) -> samples; StatefulUniformInt also takes minval, maxval.
for _op in (
    "StatefulStandardNormalV2",
    "StatefulUniform",
    "StatefulTruncatedNormal",
    "StatefulUniformFullInt",
    "StatefulUniformInt",
):
    op_def_registry.register(_op, _sample_infer, ref_inputs=[0], stateful=True)
op_def_registry.register("RngSkip", lambda inputs, attrs: [], ref_inputs=[0], stateful=True)
op_def_registry.register(
    "NonDeterministicInts",
    lambda inputs, attrs: [(attrs["dtype"], TensorShape(_partial_values(inputs[0]) or None))],
    stateful=True,
)


def stateful_sample(
    op_type: str,
    state: Any,
    algorithm: Any,
    shape: Tensor,
    dtype: Any,
    bounds: Sequence[Tensor] = (),
    name: str | None = None,
) -> Tensor:
    """A draw of `op_type` from the generator whose state variable is `state`."""
    alg = convert_to_tensor(algorithm, dtype=dtypes.int64, name="algorithm")
    attrs = {
        "dtype": dtypes.as_dtype(dtype).base_dtype,
        "shape_dtype": shape.dtype.base_dtype,
    }
    return make_op(
        op_type, [_ref_of(state), alg, shape, *bounds], attrs, name=name or op_type
    ).outputs[0]


def rng_skip(state: Any, algorithm: Any, delta: Any, name: str | None = None) -> Any:
    alg = convert_to_tensor(algorithm, dtype=dtypes.int64, name="algorithm")
    delta_t = convert_to_tensor(delta, dtype=dtypes.int64, name="delta")
    return make_op("RngSkip", [_ref_of(state), alg, delta_t], {}, name=name or "RngSkip")


def non_deterministic_ints(
    shape: Tensor, dtype: Any = dtypes.int64, name: str | None = None
) -> Tensor:
    attrs = {"dtype": dtypes.as_dtype(dtype).base_dtype, "shape_dtype": shape.dtype.base_dtype}
    return make_op(
        "NonDeterministicInts", [shape], attrs, name=name or "NonDeterministicInts"
    ).outputs[0]
