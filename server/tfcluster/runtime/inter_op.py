"""Inter-op parallelism: which graphs gain from running independent kernels at once, and the
threads that run them.

numpy releases the GIL inside BLAS and its big loops, so two independent matmuls of one step
can run on two cores, as TensorFlow's executor runs ready ops on its inter-op pool. Handing a
kernel to another thread costs tens of microseconds, so only kernels that do real work go
there (linear algebra, convolutions, image codecs: HEAVY_OPS), and only in graphs where two of
them are independent (neither feeds the other); an executor also measures its first steps and
stays sequential when those kernels are too small to pay for the hand-over.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor

from tfcluster.runtime import float_errors

# Op types whose kernels can take milliseconds and release the GIL while they work.
HEAVY_OPS = frozenset(
    {
        "MatMul",
        "_FusedMatMul",
        "BatchMatMul",
        "BatchMatMulV2",
        "BatchMatMulV3",
        "SparseMatMul",
        "Einsum",
        "Conv2D",
        "_FusedConv2D",
        "Conv2DBackpropInput",
        "Conv2DBackpropFilter",
        "_FusedConv2DBackprop",
        "Conv3D",
        "Conv3DBackpropInputV2",
        "Conv3DBackpropFilterV2",
        "DepthwiseConv2dNative",
        "DepthwiseConv2dNativeBackpropInput",
        "DepthwiseConv2dNativeBackpropFilter",
        "MatrixInverse",
        "MatrixSolve",
        "MatrixTriangularSolve",
        "Cholesky",
        "Qr",
        "Svd",
        "SelfAdjointEigV2",
        "DecodeJpeg",
        "DecodePng",
        "DecodeImage",
        "EncodeJpeg",
        "EncodePng",
    }
)

# Probing: the first steps run sequentially with their heavy kernels timed; parallel runs
# pay off once those kernels take this long per step (a hand-over is ~20-50 us).
PROBE_STEPS = 3
MIN_HEAVY_SECONDS = 0.001


def independent_heavy_ops(heavy: Sequence[bool], deps: Sequence[Sequence[int]]) -> bool:
    """Whether two heavy nodes are independent. `deps[i]`: the nodes node i waits for, all
    earlier in the (topological) order. The heavy nodes form a chain exactly when each one
    has every earlier heavy node among its ancestors."""
    ancestors: list[int] = []  # bit j: node j is an ancestor (heavy ones only)
    earlier_heavy = 0
    for i, waits_for in enumerate(deps):
        mask = 0
        for d in waits_for:
            mask |= ancestors[d] | ((1 << d) if heavy[d] else 0)
        ancestors.append(mask)
        if heavy[i]:
            if mask & earlier_heavy != earlier_heavy:
                return True
            earlier_heavy |= 1 << i
    return False


class HeavyProbe:
    """Sums the time of heavy kernels over the sequential steps that measure a graph (it
    stands where the tracing statistics would: the executor calls start_step(), add() per
    kernel and end_step() for each step), and keeps each kernel's least time in one of
    those steps (by its step's `index`), for the order of ready kernels
    (runtime/critical_path.py). The least, not the mean: a graph's first step pays once for
    what later steps reuse (its first update of a 12.8 MB variable took 31 ms, later ones
    3-4 ms), and a mean would rank that update above the convolution gradients the step
    waits for."""

    __slots__ = ("_step", "per_node", "seconds")

    def __init__(self) -> None:
        self.seconds = 0.0
        self.per_node: dict[int, float] = {}
        self._step: dict[int, float] = {}  # the step being probed: time per kernel

    def add(self, step: object, t0: float, t1: float, outputs: object = None) -> None:
        if getattr(step, "heavy", False):
            self.seconds += t1 - t0
        index = getattr(step, "index", None)
        if index is not None:
            self._step[index] = self._step.get(index, 0.0) + (t1 - t0)

    def start_step(self) -> None:
        self._step.clear()

    def end_step(self) -> None:
        per_node = self.per_node
        for index, seconds in self._step.items():
            known = per_node.get(index)
            per_node[index] = seconds if known is None else min(known, seconds)
        self._step.clear()


_pool_lock = threading.Lock()
_pool: ThreadPoolExecutor | None = None
_pool_width = 0
_THREAD_PREFIX = "inter-op"


def on_pool_thread() -> bool:
    """Whether this thread is one of the inter-op threads. A step nested in a kernel running
    here (a loop's or a function's body) runs its kernels on this thread alone: handed to the
    pool, they could wait behind this very thread (a pool of one) and never start."""
    return threading.current_thread().name.startswith(_THREAD_PREFIX)


def pool(width: int) -> ThreadPoolExecutor:
    """The process's inter-op threads, at least `width` of them (the stepping thread runs
    kernels too, so a budget of n needs n - 1 here)."""
    global _pool, _pool_width
    current = _pool
    if current is not None and _pool_width >= width:
        return current
    with _pool_lock:
        if _pool is None or _pool_width < width:
            old = _pool
            _pool = ThreadPoolExecutor(
                max_workers=width,
                thread_name_prefix=_THREAD_PREFIX,
                initializer=float_errors.silence_thread,
            )
            _pool_width = width
            if old is not None:
                old.shutdown(wait=False)
        return _pool
