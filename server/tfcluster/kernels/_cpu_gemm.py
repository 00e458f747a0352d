"""Matrix products of small and medium size on the CPU, shared between the calling thread and
one helper thread, each running BLAS on a single thread.

BLAS's own threads (OpenBLAS's) wait for each other by spinning at several barriers per
product: when the machine has more runnable threads than cores, a descheduled partner stalls
the other for a whole time slice, and an LSTM training step (a few hundred products of ~25M
multiply-adds) took 1.5-6 s instead of 0.1 s under a load of 3 per core, where TensorFlow's
work-stealing pool slowed 2x. Here a product is cut in pieces that the caller and the helper
take in turn: a helper that starts late or is descheduled leaves the rest to the caller, which
waits for one piece at most. Products large enough for BLAS's threading to pay (and every
non-float product) are left to BLAS as they are.
"""

from __future__ import annotations

import itertools
import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np

from tfcluster.runtime import thread_budget

# Multiply-adds (m * k * n) from which sharing pays for the hand-off to the helper (20 us on
# an idle machine, 100-300 us under load: a char-RNN of 128 units, batch 16, whose products
# are ~2M, ran 1.5x slower shared), and from which BLAS's own threads are left to do the work.
SPLIT_FROM = 1 << 23
# Below this OpenBLAS runs on one thread by itself (its SMP_THRESHOLD_MIN * 4), and the
# calls that hold BLAS at one thread (~5 us) are skipped.
BLAS_SINGLE_BELOW = 1 << 18
# From here BLAS's own threads take the product (a 1024^3 one, which numpy's threads do as
# well as any split). Below it, shared: the conv net's dense layer (128x3136x1024, 4e8
# multiply-adds) took 84 ms with BLAS's 2 threads under a load of 12 on 2 cores, 28 ms shared.
BLAS_THREADS_FROM = 1 << 30
# Pieces a product is cut into (4 measured slower than 2 on the LSTM step: BLAS is less
# efficient on narrower pieces).
PIECES = 2

BLAS_DTYPES = frozenset(np.dtype(t) for t in (np.float32, np.float64, np.complex64, np.complex128))


# BLAS held at one thread while a kernel splits its work over threads itself (conv, pooling,
# batch norm): through the runtime's one owner of the BLAS pools.
single_thread_blas = thread_budget.SingleThreadBlas()
_helper: ThreadPoolExecutor | None = None
_helper_lock = threading.Lock()


def _pool() -> ThreadPoolExecutor:
    global _helper
    if _helper is None:
        with _helper_lock:
            if _helper is None:
                _helper = ThreadPoolExecutor(1, thread_name_prefix="tfcluster-gemm")
    return _helper


def _into(a: np.ndarray, b: np.ndarray, out: np.ndarray) -> None:
    np.matmul(a, b, out=out)


def _pieces(a: np.ndarray, b: np.ndarray, out: np.ndarray, count: int) -> list[Any]:
    """(a, b, out) slices cutting the larger side of the output into `count` pieces."""
    m, n = out.shape
    size = max(m, n)
    # Integer cuts (np.linspace costs ~10 us, a hundred times per LSTM step).
    cuts = [size * p // count for p in range(count + 1)]
    if n >= m:
        return [(a, b[:, i:j], out[:, i:j]) for i, j in itertools.pairwise(cuts)]
    return [(a[i:j], b, out[i:j]) for i, j in itertools.pairwise(cuts)]


def _share(pieces: list[Any]) -> None:
    """Computes the pieces on this thread and the helper, each taking the next one not taken
    (next() of a count is atomic under the GIL): a helper that starts late or is descheduled
    leaves the rest to this thread, which then waits for one piece at most. The helper
    computes only on a core no other kernel of the step is using."""
    taken = itertools.count()
    handed = [0]  # pieces handed out so far (for the helper's wait: read without a lock)

    def work() -> None:
        for i in taken:
            if i >= len(pieces):
                return
            handed[0] = i + 1
            _into(*pieces[i])

    def help_work() -> None:
        # Only on a core no other kernel of the step is using (thread_budget.take_spare_core).
        if thread_budget.take_spare_core(lambda: handed[0] < len(pieces)):
            try:
                work()
            finally:
                thread_budget.give_back_core()

    helper = _pool().submit(help_work)
    try:
        work()
    finally:
        handed[0] = len(pieces)  # after a failure too: a waiting helper starts nothing
        thread_budget.work_taken()
    if not helper.cancel():
        helper.result()


def matmul(a: np.ndarray, b: np.ndarray, blas_threads_from: int = BLAS_THREADS_FROM) -> np.ndarray:
    """a @ b for two numpy matrices whose inner sizes agree. blas_threads_from: the work
    from which BLAS's own threads take the product (a caller that knows the machine may be
    busy, where they spin against each other, passes more)."""
    m, k = a.shape
    n = b.shape[1]
    work = m * k * n
    if (
        work < BLAS_SINGLE_BELOW
        or work >= blas_threads_from
        or a.dtype not in BLAS_DTYPES
        or b.dtype != a.dtype
    ):
        return np.matmul(a, b)
    # BLAS held at one thread (process-wide, through the runtime's one owner of the pools).
    with single_thread_blas:
        if work < SPLIT_FROM or thread_budget.current().intra < 2:
            return np.matmul(a, b)
        out = np.empty((m, n), a.dtype)
        count = int(min(PIECES, work // SPLIT_FROM * 2, max(m, n)))
        _share(_pieces(a, b, out, count))
        return out
