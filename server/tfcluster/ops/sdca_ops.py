"""tf.train.sdca_optimizer, sdca_fprint and sdca_shrink_l1 (TF 1.15's gen_sdca_ops): the ops
of the stochastic dual coordinate ascent solver LinearSDCA trains linear models with."""

from __future__ import annotations

import collections
from collections.abc import Sequence
from typing import Any

from tfcluster.framework import dtypes, op_def_registry
from tfcluster.framework.graph import Operation, Tensor, convert_to_tensor, name_scope
from tfcluster.framework.tensor_shape import TensorShape
from tfcluster.ops.op_util import Outputs, make_op

_LOSSES = ("logistic_loss", "squared_loss", "hinge_loss", "smooth_hinge_loss", "poisson_loss")

# TF's tuple names (what repr shows).
SdcaOptimizerOutput = collections.namedtuple(  # type: ignore[name-match]
    "SdcaOptimizer",
    ["out_example_state_data", "out_delta_sparse_weights", "out_delta_dense_weights"],
)
SdcaOptimizerV2Output = collections.namedtuple(  # type: ignore[name-match]
    "SdcaOptimizerV2",
    ["out_example_state_data", "out_delta_sparse_weights", "out_delta_dense_weights"],
)


def _optimizer_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    s = int(attrs["num_sparse_features"])
    d = int(attrs["num_dense_features"])
    base = 2 * s + int(attrs["num_sparse_features_with_values"]) + d + 2
    sparse_w = inputs[base + s : base + 2 * s]
    dense_w = inputs[base + 2 * s : base + 2 * s + d]
    state = inputs[base + 2 * s + d]
    # TF 1.15's shape function leaves the number of examples unknown.
    del state
    out = [(dtypes.float32, TensorShape([None, 4]))]
    out += [(dtypes.float32, w.shape) for w in sparse_w]
    out += [(dtypes.float32, w.shape) for w in dense_w]
    return out


def _fprint_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    shape = inputs[0].shape
    if shape.ndims not in (None, 1):
        raise ValueError(f"Shape must be rank 1 but is rank {shape.ndims} for 'SdcaFprint'")
    rows = None if shape.ndims is None else shape.as_list()[0]
    return [(dtypes.int64, TensorShape([rows, 2]))]


for _op in ("SdcaOptimizer", "SdcaOptimizerV2"):
    op_def_registry.register(_op, _optimizer_infer, stateful=True)
op_def_registry.register("SdcaFprint", _fprint_infer)
op_def_registry.register(
    "SdcaShrinkL1", op_def_registry.no_outputs, ref_inputs=range(1 << 16), stateful=True
)


def _as_list(value: Any, arg: str, op: str) -> list[Any]:
    if not isinstance(value, (list, tuple)):
        raise TypeError(f"Expected list for '{arg}' argument to '{op}' Op, not {value!r}.")
    return list(value)


def _same_length(value: list[Any], arg: str, op: str, like: str, n: int) -> None:
    if len(value) != n:
        raise ValueError(
            f"List argument '{arg}' to '{op}' Op with length {len(value)} must match length "
            f"{n} of argument '{like}'."
        )


def _optimizer(
    op_type: str,
    func: str,
    adaptive_attr: str,
    args: dict[str, Any],
    loss_type: Any,
    l1: Any,
    l2: Any,
    num_loss_partitions: Any,
    num_inner_iterations: Any,
    adaptive: Any,
    name: str | None,
) -> tuple[Tensor, list[Tensor], list[Tensor]]:
    lists = {
        k: _as_list(args[k], k, func)
        for k in (
            "sparse_example_indices",
            "sparse_feature_indices",
            "sparse_indices",
            "sparse_weights",
            "sparse_feature_values",
            "dense_features",
            "dense_weights",
        )
    }
    s = len(lists["sparse_example_indices"])
    for k in ("sparse_feature_indices", "sparse_indices", "sparse_weights"):
        _same_length(lists[k], k, func, "sparse_example_indices", s)
    d = len(lists["dense_features"])
    _same_length(lists["dense_weights"], "dense_weights", func, "dense_features", d)
    loss = loss_type.decode() if isinstance(loss_type, bytes) else str(loss_type)
    if loss not in _LOSSES:
        raise ValueError(
            f"Attr 'loss_type' of '{op_type}' Op passed string '{loss}' not in: "
            + ", ".join(f'"{x}"' for x in _LOSSES)
            + "."
        )
    if int(num_loss_partitions) < 1 or int(num_inner_iterations) < 1:
        raise ValueError(
            f"Attr 'num_loss_partitions' and 'num_inner_iterations' of '{op_type}' Op must be "
            "at least 1"
        )
    with name_scope(name, op_type, []) as scope:

        def conv(values: list[Any], dtype: Any, arg: str) -> list[Tensor]:
            return [convert_to_tensor(v, dtype=dtype, name=arg) for v in values]

        inputs = (
            conv(lists["sparse_example_indices"], dtypes.int64, "sparse_example_indices")
            + conv(lists["sparse_feature_indices"], dtypes.int64, "sparse_feature_indices")
            + conv(lists["sparse_feature_values"], dtypes.float32, "sparse_feature_values")
            + conv(lists["dense_features"], dtypes.float32, "dense_features")
            + [convert_to_tensor(args["example_weights"], dtypes.float32, "example_weights")]
            + [convert_to_tensor(args["example_labels"], dtypes.float32, "example_labels")]
            + conv(lists["sparse_indices"], dtypes.int64, "sparse_indices")
            + conv(lists["sparse_weights"], dtypes.float32, "sparse_weights")
            + conv(lists["dense_weights"], dtypes.float32, "dense_weights")
            + [convert_to_tensor(args["example_state_data"], dtypes.float32, "example_state_data")]
        )
        attrs = {
            "loss_type": loss,
            adaptive_attr: True if adaptive is None else bool(adaptive),
            "num_sparse_features": s,
            "num_sparse_features_with_values": len(lists["sparse_feature_values"]),
            "num_dense_features": d,
            "l1": float(l1),
            "l2": float(l2),
            "num_loss_partitions": int(num_loss_partitions),
            "num_inner_iterations": int(num_inner_iterations),
        }
        op = make_op(op_type, inputs, attrs, name=scope)
    outs = list(op.outputs)
    return outs[0], outs[1 : 1 + s], outs[1 + s :]


def sdca_optimizer(
    sparse_example_indices: Any,
    sparse_feature_indices: Any,
    sparse_feature_values: Any,
    dense_features: Any,
    example_weights: Any,
    example_labels: Any,
    sparse_indices: Any,
    sparse_weights: Any,
    dense_weights: Any,
    example_state_data: Any,
    loss_type: Any,
    l1: Any,
    l2: Any,
    num_loss_partitions: Any,
    num_inner_iterations: Any,
    adaptative: Any = True,
    name: str | None = None,
) -> SdcaOptimizerOutput:
    """One SDCA pass over a mini-batch: (new example state, delta of each sparse weight
    vector, delta of each dense weight vector)."""
    args = dict(locals())
    out = _optimizer(
        "SdcaOptimizer",
        "sdca_optimizer",
        "adaptative",
        args,
        loss_type,
        l1,
        l2,
        num_loss_partitions,
        num_inner_iterations,
        adaptative,
        name,
    )
    return SdcaOptimizerOutput(*out)


def sdca_optimizer_v2(
    sparse_example_indices: Any,
    sparse_feature_indices: Any,
    sparse_feature_values: Any,
    dense_features: Any,
    example_weights: Any,
    example_labels: Any,
    sparse_indices: Any,
    sparse_weights: Any,
    dense_weights: Any,
    example_state_data: Any,
    loss_type: Any,
    l1: Any,
    l2: Any,
    num_loss_partitions: Any,
    num_inner_iterations: Any,
    adaptive: Any = True,
    name: str | None = None,
) -> SdcaOptimizerV2Output:
    args = dict(locals())
    out = _optimizer(
        "SdcaOptimizerV2",
        "sdca_optimizer_v2",
        "adaptive",
        args,
        loss_type,
        l1,
        l2,
        num_loss_partitions,
        num_inner_iterations,
        adaptive,
        name,
    )
    return SdcaOptimizerV2Output(*out)


def sdca_fprint(input: Any, name: str | None = None) -> Tensor:
    """int64 [N, 2]: the 128-bit fingerprint of each example id (low, high halves)."""
    with name_scope(name, "SdcaFprint", [input]) as scope:
        t = convert_to_tensor(input, dtype=dtypes.string, name="input")
        return make_op("SdcaFprint", [t], {}, name=scope).outputs[0]


def sdca_shrink_l1(weights: Any, l1: Any, l2: Any, name: str | None = None) -> Operation:
    """Applies the L1 proximal step sign(w) * max(|w| - l1/l2, 0) to each weight variable."""
    from tfcluster.ops.state_ops import _ref_of

    ws = _as_list(weights, "weights", "sdca_shrink_l1")
    refs = [_ref_of(w) for w in ws]
    attrs = {"num_features": len(refs), "l1": float(l1), "l2": float(l2)}
    return make_op("SdcaShrinkL1", refs, attrs, name=name or "SdcaShrinkL1")


__all__: list[str] = []
