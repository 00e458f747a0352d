"""tf.timestamp, tf.fingerprint and tf.sparse_matmul: the wall clock as an op, TF's farmhash
Fingerprint64 of each row of a tensor, and a float32 matmul told which operand is mostly zero."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tfcluster.framework import dtypes, op_def_registry, tensor_util
from tfcluster.framework.graph import Tensor, convert_to_tensor, name_scope
from tfcluster.framework.tensor_shape import TensorShape
from tfcluster.ops.infer_util import check_dtype
from tfcluster.ops.math_ops import _matmul_infer
from tfcluster.ops.op_util import Outputs, make_op

# Bytes of one fingerprint (a little-endian uint64).
FINGERPRINT_SIZE = 8


def _fingerprint_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    data, method = inputs
    if data.shape.ndims == 0:
        raise ValueError("Shape must be at least rank 1 but is rank 0 for 'Fingerprint'")
    if method.shape.ndims not in (None, 0):
        raise ValueError(f"Shape must be rank 0 but is rank {method.shape.ndims}")
    name = tensor_util.constant_value(method)
    if name is not None and name.item() != b"farmhash64":
        raise ValueError(f"Unsupported fingerprint method: {name.item()!r}")
    rows = None if data.shape.ndims is None else data.shape.as_list()[0]
    return [(dtypes.uint8, TensorShape([rows, FINGERPRINT_SIZE]))]


def _sparse_matmul_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    ((_, shape),) = _matmul_infer(inputs, attrs)
    return [(dtypes.float32, shape)]


op_def_registry.register(
    "Timestamp", lambda inputs, attrs: [(dtypes.float64, TensorShape([]))], stateful=True
)
op_def_registry.register("Fingerprint", _fingerprint_infer)
op_def_registry.register("SparseMatMul", _sparse_matmul_infer)

_SPARSE_MATMUL_TYPES = (dtypes.float32, dtypes.bfloat16)


def timestamp(name: str | None = None) -> Tensor:
    """Seconds since the epoch (float64) when the op runs."""
    return make_op("Timestamp", [], {}, name=name or "Timestamp").outputs[0]


def fingerprint(data: Any, method: Any = "farmhash64", name: str | None = None) -> Tensor:
    """uint8 [rows, 8]: the farmhash Fingerprint64 of each row of data (of each string's
    fingerprints for string rows), little-endian, as TF's Fingerprint op computes them."""
    with name_scope(name, "Fingerprint", [data, method]) as scope:
        d = convert_to_tensor(data, name="data")
        m = convert_to_tensor(method, name="method", dtype=dtypes.string)
        attrs = {"T": d.dtype.base_dtype}
        return make_op("Fingerprint", [d, m], attrs, name=scope).outputs[0]


def sparse_matmul(
    a: Any,
    b: Any,
    transpose_a: bool = False,
    transpose_b: bool = False,
    a_is_sparse: bool = False,
    b_is_sparse: bool = False,
    name: str | None = None,
) -> Tensor:
    """a @ b for float32 matrices (SparseMatMul): the sparsity hints only choose TF's kernel."""
    with name_scope(name, "SparseMatMul", [a, b]) as scope:
        x = convert_to_tensor(a, name="a", preferred_dtype=dtypes.float32)
        y = convert_to_tensor(b, name="b", preferred_dtype=dtypes.float32)
        check_dtype(x, _SPARSE_MATMUL_TYPES, "SparseMatMul", "Ta")
        check_dtype(y, _SPARSE_MATMUL_TYPES, "SparseMatMul", "Tb")
        attrs = {
            "transpose_a": bool(transpose_a),
            "transpose_b": bool(transpose_b),
            "a_is_sparse": bool(a_is_sparse),
            "b_is_sparse": bool(b_is_sparse),
            "Ta": x.dtype.base_dtype,
            "Tb": y.dtype.base_dtype,
        }
        return make_op("SparseMatMul", [x, y], attrs, name=scope).outputs[0]


__all__ = ["fingerprint", "sparse_matmul", "timestamp"]
