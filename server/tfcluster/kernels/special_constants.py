"""Kernels of Fact, FakeParam and ImmutableConst (see ops/special_constant_ops.py)."""

from __future__ import annotations

import os
from typing import Any

import numpy as np

from tfcluster.framework import dtypes, errors
from tfcluster.kernels.common import Compute, invalid
from tfcluster.kernels.registry import CPU_ONLY, kernel


@kernel("Fact", devices=CPU_ONLY)
def fact(node: Any, xp: Any) -> Compute:
    value = np.array(b"0! == 1", dtype=object)  # what TF's example kernel outputs

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        return (value,)

    return compute


def _dims(node: Any) -> tuple[int, ...]:
    """The shape attr with unknown dimensions as 0 and an unknown rank as a scalar, as TF's
    FakeParam kernel allocates it."""
    shape = node.attrs.get("shape")
    if shape is None or getattr(shape, "ndims", None) is None:
        return ()
    return tuple(0 if d is None else int(d) for d in shape.as_list())


@kernel("FakeParam")
def fake_param(node: Any, xp: Any) -> Compute:
    dtype = node.attrs["dtype"]
    dims = _dims(node)

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        # TF returns one uninitialised buffer, never meant to be read: here zeros.
        if dtype == dtypes.string:
            out = np.empty(dims, dtype=object)
            out.fill(b"")
            return (out,)
        return (xp.zeros(dims, dtype=dtype.as_numpy_dtype),)

    return compute


@kernel("ImmutableConst", devices=CPU_ONLY)
def immutable_const(node: Any, xp: Any) -> Compute:
    dtype = node.attrs["dtype"]
    if dtype == dtypes.string:
        raise invalid(
            "ImmutableConst does not support string tensors: their bytes cannot be mapped"
        )
    np_dtype = np.dtype(dtype.as_numpy_dtype)
    dims = _dims(node)
    path = node.attrs["memory_region_name"]
    path = path.decode() if isinstance(path, bytes) else str(path)
    wanted = int(np.prod(dims, dtype=np.int64)) * np_dtype.itemsize

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        try:
            length = os.path.getsize(path)
        except OSError as e:
            raise errors.NotFoundError(None, None, f"{path}; {e.strerror}") from None
        if wanted > length:
            raise errors.InternalError(
                None,
                None,
                f"Readonly memory region has wrong length ({length}) when allocating {wanted}",
            )
        if wanted == 0:
            return (np.zeros(dims, dtype=np_dtype),)
        # Mapped read-only, as TF's MemmappedTensorAllocator: the file's pages are the tensor.
        return (np.asarray(np.memmap(path, dtype=np_dtype, mode="r", shape=dims)),)

    return compute
