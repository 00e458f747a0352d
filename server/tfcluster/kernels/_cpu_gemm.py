"""Matrix products of small and medium size on the CPU, shared between the calling thread and
one helper thread, each running BLAS on a single thread.

BLAS's own threads (OpenBLAS's) wait for each other by spinning at several barriers per
product: when the machine has more runnable threads than cores, a descheduled partner stalls
the other for a whole time slice, and an LSTM training step (a few hundred products of ~25M
multiply-adds) took 1.5-6 s instead of 0.1 s under a load of 3 per core, where TensorFlow's
work-stealing pool slowed 2x. Here a product is cut in pieces that the caller and the helper
take in turn: a helper that starts late or is descheduled leaves the rest to the caller, which
waits for one piece at most. Products large enough for BLAS's threading to pay (and every
non-float product) are left to BLAS as they are. A kernel making many products in a row (a
while loop) holds BLAS at one thread once for all of them (products_in_a_row).
"""

from __future__ import annotations

import itertools
import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np

from tfcluster.runtime import float_errors, thread_budget

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
# Of two pieces, the caller's share: the helper starts ~10 us after the caller (its wake-up),
# and a caller that ends first waits ~20 us more (its own wake-up) than one that ends last.
# The LSTM's 64x384x1024 product (~215 us a half on one core): 255 -> 241 us with 0.53.
CALLER_SHARE = 0.53
# Cuts at multiples of this many rows or columns (whole SIMD blocks of BLAS's kernels).
ALIGN = 16

BLAS_DTYPES = frozenset(np.dtype(t) for t in (np.float32, np.float64, np.complex64, np.complex128))
# Rows (of a few, against many columns) up to which a product whose second operand is a
# transposed matrix (x @ w.T: a dense layer's input gradient, w a variable updated every
# step) goes as (w @ x.T).T: OpenBLAS took half the time for that form on one thread
# (32x512 @ (3136x512).T: 1.19 -> 0.60 ms; 8 rows 0.69 -> 0.33; 64x1024 @ (1024x1024).T
# 1.04 -> 0.69), the transposed result copied back to rows (~1% of the product's time).
SWAP_ROWS_UPTO = 64
# TF 1.15 sums a float32 product of up to this many terms (the contracted dimension) as one
# running fused multiply-add per output (_mkldnn_sgemm). OpenBLAS does too when both operands
# lie in rows and the output has 9 columns or more (recorded:
# tests/tf_reference/record_float32_products.py), but not for a transposed right operand
# (x @ w.T, a dense layer's input gradient: its small-matrix "NT" kernels sum in another
# order, most outputs 1 ulp off TF's, and training drifts from TF's within an epoch; swapped,
# (w @ x.T).T, it sums in TF's order only for some shapes). So w.T is copied to rows where it
# holds at most ROWS_COPY_UPTO values (a copy of up to ~25 us: 128x256); larger ones keep
# BLAS's order.
EXACT_DEPTH_UPTO = 384
ROWS_COPY_UPTO = 1 << 15


# BLAS held at one thread while a kernel splits its work over threads itself (conv, pooling,
# batch norm): through the runtime's one owner of the BLAS pools.
single_thread_blas = thread_budget.SingleThreadBlas()


def _into(a: np.ndarray, b: np.ndarray, out: np.ndarray) -> None:
    np.matmul(a, b, out=out)


def _pieces(a: np.ndarray, b: np.ndarray, out: np.ndarray, count: int) -> list[Any]:
    """(a, b, out) slices cutting the larger side of the output into `count` pieces; of
    two, the first (the caller's) is CALLER_SHARE of it."""
    m, n = out.shape
    size = max(m, n)
    if count == 2:
        cut = round(size * CALLER_SHARE / ALIGN) * ALIGN
        if not size / 2 <= cut < size:  # too small a side to align
            cut = min(size - 1, max(1, round(size * CALLER_SHARE)))
        if n >= m:
            return [(a, b[:, :cut], out[:, :cut]), (a, b[:, cut:], out[:, cut:])]
        return [(a[:cut], b, out[:cut]), (a[cut:], b, out[cut:])]
    # Integer cuts (np.linspace costs ~10 us, a hundred times per LSTM step).
    cuts = [size * p // count for p in range(count + 1)]
    if n >= m:
        return [(a, b[:, i:j], out[:, i:j]) for i, j in itertools.pairwise(cuts)]
    return [(a[i:j], b, out[i:j]) for i, j in itertools.pairwise(cuts)]


class _Helper:
    """One thread that computes pieces of the products of whichever thread hands it some.

    Hand-offs go through two plain locks (one C-level wake each way) instead of a thread
    pool's queue, future and condition, whose Python-level hand-off made the LSTM's
    64x384x1024 product (~0.2 ms a piece) ~13 us longer. One caller uses the helper at a
    time (`_claim`); another computes its pieces alone meanwhile. A caller whose helper has
    not woken yet when all pieces are taken takes the hand-off back instead of waiting."""

    def __init__(self) -> None:
        self._claim = threading.Lock()  # held by the caller whose pieces the helper may take
        self._go = threading.Lock()  # released (a token) when the helper has work
        self._go.acquire()
        self._done = threading.Lock()  # released by the helper when it is through
        self._done.acquire()
        self._work: Any = None
        threading.Thread(target=self._run, name="tfcluster-gemm", daemon=True).start()

    def _run(self) -> None:
        float_errors.silence_thread()
        while True:
            self._go.acquire()
            work, self._work = self._work, None
            try:
                work()
            finally:
                # Dropped before the caller goes on, not kept while this thread waits for the
                # next product: the pieces are views of the operands, and a variable's array
                # that a view still holds is one an update must wait for, then copy
                # (kernels/in_place.py: 7 ms of the conv net's step for its dense kernel).
                del work
                self._done.release()

    def share(self, pieces: list[Any]) -> None:
        """Computes the pieces on this thread and the helper, each taking the next one not
        taken (next() of a count is atomic under the GIL): a helper that starts late or is
        descheduled leaves the rest to this thread, which then waits for one piece at most.
        The helper computes only on a core no other kernel of the step is using."""
        if not self._claim.acquire(blocking=False):  # helping another thread's product
            for piece in pieces:
                _into(*piece)
            return
        try:
            self._share(pieces)
        finally:
            self._claim.release()

    def _share(self, pieces: list[Any]) -> None:
        taken = itertools.count()
        handed = [0]  # pieces handed out so far (for the helper's wait: read without a lock)
        failed: list[BaseException] = []

        def work() -> None:
            for i in taken:
                if i >= len(pieces):
                    return
                handed[0] = i + 1
                _into(*pieces[i])

        def help_work() -> None:
            # Only on a core no other kernel of the step is using (take_spare_core).
            try:
                if thread_budget.take_spare_core(lambda: handed[0] < len(pieces)):
                    try:
                        work()
                    finally:
                        thread_budget.give_back_core()
            except BaseException as e:  # raised by the caller
                failed.append(e)

        self._work = help_work
        self._go.release()
        try:
            work()
        finally:
            handed[0] = len(pieces)  # after a failure too: a waiting helper starts nothing
            thread_budget.work_taken()
            # The helper has not woken for this product yet: take the hand-off back rather
            # than wait for it to wake and find nothing left (tens of microseconds).
            if self._go.acquire(blocking=False):
                self._work = None
            else:
                self._done.acquire()
        if failed:
            raise failed[0]


_helper: _Helper | None = None
_helper_lock = threading.Lock()


def _forget_helper() -> None:
    """In a forked child: the parent's helper thread does not exist there (nor does a thread
    that may have held the lock)."""
    global _helper, _helper_lock
    _helper = None
    _helper_lock = threading.Lock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_helper)


def _share(pieces: list[Any]) -> None:
    global _helper
    helper = _helper
    if helper is None:
        with _helper_lock:
            if _helper is None:
                _helper = _Helper()
            helper = _helper
    helper.share(pieces)


def matmul(a: np.ndarray, b: np.ndarray, blas_threads_from: int = BLAS_THREADS_FROM) -> np.ndarray:
    """a @ b for two numpy matrices whose inner sizes agree. blas_threads_from: the work
    from which BLAS's own threads take the product (a caller that knows the machine may be
    busy, where they spin against each other, passes more)."""
    m, k = a.shape
    n = b.shape[1]
    if k == 1 and a.dtype == b.dtype:
        # An outer product (a weight's gradient at batch 1): one rounded product per entry,
        # BLAS's own values, without its slow path for a depth of one (3.5x the time).
        out = np.multiply(a, b)
        out += 0  # each product added to a zeroed accumulator, as BLAS's: no -0
        return out
    work = m * k * n
    exact_order = a.dtype == np.float32 and k <= EXACT_DEPTH_UPTO
    if exact_order and b.size <= ROWS_COPY_UPTO and _transposed(b):
        b = np.ascontiguousarray(b)
    if work < BLAS_SINGLE_BELOW or a.dtype not in BLAS_DTYPES or b.dtype != a.dtype:
        return np.matmul(a, b)
    if _swaps(a, b):
        return np.ascontiguousarray(matmul(b.T, a.T, blas_threads_from).T)
    held = getattr(_held, "one", False)
    if work >= blas_threads_from:
        if held:  # BLAS held at one thread by products_in_a_row: its threads for this one
            with thread_budget.blas_threads(thread_budget.current().intra):
                return np.matmul(a, b)
        return np.matmul(a, b)
    if held:
        return _single_threaded(a, b, work)
    # BLAS held at one thread (process-wide, through the runtime's one owner of the pools).
    with single_thread_blas:
        return _single_threaded(a, b, work)


def _transposed(b: np.ndarray) -> bool:
    """Whether b is a transposed view of a matrix in rows (columns contiguous)."""
    return b.ndim == 2 and b.flags.f_contiguous and not b.flags.c_contiguous


def _swaps(a: np.ndarray, b: np.ndarray) -> bool:
    """Whether a @ b goes as (b.T @ a.T).T: a few rows of a (rows) against many columns of
    b, which is a transposed view of a row-major matrix (SWAP_ROWS_UPTO). The swapped
    product has more rows than columns, so it is never swapped back."""
    m, n = a.shape[0], b.shape[1]
    return (
        m <= SWAP_ROWS_UPTO
        and m < n
        and a.flags.c_contiguous
        and b.flags.f_contiguous
        and not b.flags.c_contiguous
    )


def _single_threaded(a: np.ndarray, b: np.ndarray, work: int) -> np.ndarray:
    """The product with BLAS at one thread: shared with the helper from SPLIT_FROM."""
    if work < SPLIT_FROM or thread_budget.current().intra < 2:
        return np.matmul(a, b)
    out = np.empty((a.shape[0], b.shape[1]), a.dtype)
    count = int(min(PIECES, work // SPLIT_FROM * 2, max(out.shape)))
    _share(_pieces(a, b, out, count))
    return out


# This thread's products_in_a_row scope: BLAS is held at one thread already.
_held = threading.local()


@contextmanager
def products_in_a_row() -> Iterator[None]:
    """For a kernel that makes many products one after the other (a while loop's
    iterations): BLAS held at one thread once for all of them, instead of twice for every
    product (~7 us each through threadpoolctl: a hundred products per LSTM training step,
    four per iteration of a small Keras LSTM, whose products take less). A product big
    enough for BLAS's own threads still gets them."""
    if getattr(_held, "one", False):
        yield
        return
    with single_thread_blas:
        _held.one = True
        try:
            yield
        finally:
            _held.one = False
