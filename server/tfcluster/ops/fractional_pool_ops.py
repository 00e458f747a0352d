"""tf.nn.fractional_max_pool / fractional_avg_pool (TF1's signatures): pooling over windows
of pseudo-random or random sizes; each returns (output, row_pooling_sequence,
col_pooling_sequence). With deterministic=True and seeds, the sequences are TF's."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from tfcluster.framework import dtypes, op_def_registry
from tfcluster.framework.graph import Tensor, convert_to_tensor, name_scope
from tfcluster.framework.tensor_shape import TensorShape
from tfcluster.ops.infer_util import shape_list, with_rank
from tfcluster.ops.op_util import Outputs, check_dtype, make_op

_TYPES = (dtypes.float32, dtypes.float64, dtypes.int32, dtypes.int64)


def _ratios(attrs: dict[str, Any], op: str) -> list[float]:
    ratio = [float(r) for r in attrs["pooling_ratio"]]
    if len(ratio) != 4:
        raise ValueError(f"{op} requires pooling_ratio to have 4 elements, got {len(ratio)}")
    if ratio[0] != 1.0 or ratio[3] != 1.0:
        raise ValueError(
            f"{op} is not yet supported on the batch nor channel dimension. The first and last "
            "elements of pooling ratio must be 1.0."
        )
    for r in ratio:
        if r < 1.0:
            raise ValueError(f"pooling_ratio cannot be smaller than 1, got: {r}")
    return ratio


def _pool_infer(op: str) -> Any:
    def infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
        dims = shape_list(with_rank(inputs[0].shape, 4, f"{op}/value"))
        assert dims is not None
        ratio = _ratios(attrs, op)
        out = [None if d is None else math.floor(d / r) for d, r in zip(dims, ratio)]
        seq = [None if d is None else d + 1 for d in out[1:3]]
        return [
            (inputs[0].dtype.base_dtype, TensorShape(out)),
            (dtypes.int64, TensorShape([seq[0]])),
            (dtypes.int64, TensorShape([seq[1]])),
        ]

    return infer


def _max_grad_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    return [(inputs[0].dtype.base_dtype, inputs[0].shape)]


def _avg_grad_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    from tfcluster.framework import tensor_util

    shape = tensor_util.constant_value_as_shape(inputs[0])
    return [(inputs[1].dtype.base_dtype, shape)]


op_def_registry.register("FractionalMaxPool", _pool_infer("FractionalMaxPool"))
op_def_registry.register("FractionalAvgPool", _pool_infer("FractionalAvgPool"))
op_def_registry.register("FractionalMaxPoolGrad", _max_grad_infer)
op_def_registry.register("FractionalAvgPoolGrad", _avg_grad_infer)


def _pool(
    op_type: str,
    value: Any,
    pooling_ratio: Any,
    pseudo_random: bool,
    overlapping: bool,
    deterministic: bool,
    seed: int,
    seed2: int,
    name: str | None,
) -> tuple[Tensor, Tensor, Tensor]:
    with name_scope(name, op_type, [value]) as scope:
        t = convert_to_tensor(value, name="value")
        check_dtype(t, _TYPES, op_type, "value")
        attrs = {
            "T": t.dtype.base_dtype,
            "pooling_ratio": [float(r) for r in pooling_ratio],
            "pseudo_random": bool(pseudo_random),
            "overlapping": bool(overlapping),
            "deterministic": bool(deterministic),
            "seed": int(seed),
            "seed2": int(seed2),
        }
        op = make_op(op_type, [t], attrs, name=scope)
    return op.outputs[0], op.outputs[1], op.outputs[2]


def fractional_max_pool(
    value: Any,
    pooling_ratio: Any,
    pseudo_random: bool = False,
    overlapping: bool = False,
    deterministic: bool = False,
    seed: int = 0,
    seed2: int = 0,
    name: str | None = None,
) -> tuple[Tensor, Tensor, Tensor]:
    """(max over each window, row pooling sequence, column pooling sequence)."""
    return _pool(
        "FractionalMaxPool",
        value,
        pooling_ratio,
        pseudo_random,
        overlapping,
        deterministic,
        seed,
        seed2,
        name,
    )


def fractional_avg_pool(
    value: Any,
    pooling_ratio: Any,
    pseudo_random: bool = False,
    overlapping: bool = False,
    deterministic: bool = False,
    seed: int = 0,
    seed2: int = 0,
    name: str | None = None,
) -> tuple[Tensor, Tensor, Tensor]:
    """(mean over each window, row pooling sequence, column pooling sequence)."""
    return _pool(
        "FractionalAvgPool",
        value,
        pooling_ratio,
        pseudo_random,
        overlapping,
        deterministic,
        seed,
        seed2,
        name,
    )


def fractional_max_pool_grad(
    orig_input: Tensor,
    orig_output: Tensor,
    out_backprop: Tensor,
    row_seq: Tensor,
    col_seq: Tensor,
    overlapping: bool,
    name: str | None = None,
) -> Tensor:
    attrs = {"T": orig_input.dtype.base_dtype, "overlapping": bool(overlapping)}
    inputs = [orig_input, orig_output, out_backprop, row_seq, col_seq]
    return make_op("FractionalMaxPoolGrad", inputs, attrs, name=name).outputs[0]


def fractional_avg_pool_grad(
    orig_input_shape: Any,
    out_backprop: Tensor,
    row_seq: Tensor,
    col_seq: Tensor,
    overlapping: bool,
    name: str | None = None,
) -> Tensor:
    with name_scope(name, "FractionalAvgPoolGrad", [out_backprop]) as scope:
        shape = convert_to_tensor(
            orig_input_shape, dtype=dtypes.int64, name="orig_input_tensor_shape"
        )
        attrs = {"T": out_backprop.dtype.base_dtype, "overlapping": bool(overlapping)}
        inputs = [shape, out_backprop, row_seq, col_seq]
        return make_op("FractionalAvgPoolGrad", inputs, attrs, name=scope).outputs[0]


__all__: list[str] = []
