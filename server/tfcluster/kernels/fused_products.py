"""The kernel of a function body's products of one matrix by several others
(runtime/body_fusion.py's `_FusedMatMuls`): one product by the whole block where the others
are side by side column blocks of one matrix, the products one by one otherwise. Either way
each product goes through the MatMul kernel, so its checks and errors are MatMul's.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import Any

import numpy as np

from tfcluster.kernels import _cpu_gemm
from tfcluster.kernels.common import Compute
from tfcluster.kernels.registry import CPU_ONLY, kernel
from tfcluster.runtime import kernel_table
from tfcluster.runtime.body_fusion import FUSED_MATMULS
from tfcluster.runtime.graph_ir import Node

_FLOAT32 = np.dtype(np.float32)
# Only blocks of a multiple of this many columns are the same, bit for bit, in one product
# with the whole matrix as alone: OpenBLAS's float32 kernels take 16 columns at a time and
# sum a narrower edge in another order (blocks of 9, 10, 20, 24, 50 or 100 columns came out
# apart), and products of 8 columns or fewer take MKL-DNN's order in the MatMul kernel.
BLAS_COLUMN_BLOCK = 16


def _address(x: np.ndarray) -> int:
    return int(x.__array_interface__["data"][0])


def _plain_rows(a: Any) -> bool:
    """Whether a is a float32 matrix of more than one row (one row: TF's matrix-vector order,
    kernels/_eigen_gemv.py, which a wider product would not keep)."""
    return type(a) is np.ndarray and a.ndim == 2 and a.dtype == _FLOAT32 and a.shape[0] > 1


def column_block(parts: Sequence[Any]) -> np.ndarray | None:
    """The matrix whose consecutive column blocks `parts` are (float32 views of one C-ordered
    matrix, in order, with no gap, each a multiple of BLAS_COLUMN_BLOCK columns wide), or
    None."""
    first = parts[0]
    base = first.base if type(first) is np.ndarray else None
    if type(base) is not np.ndarray or base.ndim != 2 or not base.flags.c_contiguous:
        return None
    rows, width = base.shape
    item = base.itemsize
    start = end = (_address(first) - _address(base)) // item
    for p in parts:
        if (
            type(p) is not np.ndarray
            or p.base is not base
            or p.dtype != _FLOAT32
            or p.ndim != 2
            or p.shape[0] != rows
            or p.shape[1] % BLAS_COLUMN_BLOCK
            or p.strides != base.strides
            or _address(p) - _address(base) != end * item
        ):
            return None
        end += p.shape[1]
    if start < 0 or end > width:
        return None
    return base if start == 0 and end == width else base[:, start:end]


@kernel(FUSED_MATMULS, devices=CPU_ONLY)
def fused_matmuls(node: Any, xp: Any) -> Compute:
    """MatMul(a, b1), ..., MatMul(a, bn) as one node with n outputs."""
    matmul_node = Node(node.name, "MatMul", [("", 0)] * 2, [], "", {"T": node.attrs["T"]})
    product: Compute = kernel_table.lookup("MatMul", "CPU").factory(matmul_node)
    # The last call's parts (held, so that their ids stay theirs), their ids, their block
    # and its column ranges, as one tuple (steps on several threads each read a whole one):
    # a loop's parts are the same arrays in every iteration (loop_invariants.py computes
    # them once per run of the loop).
    last: list[tuple[Any, ...]] = [((), (), None, [])]

    def compute(ctx: Any, ins: list[Any]) -> Sequence[Any]:
        a, parts = ins[0], ins[1:]
        ids = tuple(map(id, parts))
        entry = last[0]
        if ids != entry[1]:
            found = column_block(parts)
            widths = [p.shape[1] for p in parts] if found is not None else []
            edges = itertools.accumulate(widths, initial=0)
            entry = last[0] = (parts, ids, found, list(itertools.pairwise(edges)))
        block, cuts = entry[2], entry[3]
        if block is None or not _plain_rows(a) or a.shape[1] != block.shape[0]:
            return tuple(product(ctx, [a, b])[0] for b in parts)
        # The MatMul kernel's own path for a float32 product of more than one row and
        # column, without its checks (they hold for the block).
        whole = _cpu_gemm.matmul(a, block)
        return [whole[:, i:j] for i, j in cuts]

    return compute


__all__ = ["column_block", "fused_matmuls"]
