"""Helper threads of split kernels (a conv's batch blocks in _window.over_batch, a product's
pieces in _cpu_gemm) compute only on a core of the intra budget that no other kernel of the
step is using (thread_budget.take_spare_core): two kernels running at once on a 2-core budget
each stay on their own thread, and a helper joins the one still running when the other ends."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import pytest
from tfcluster.kernels import _cpu_gemm, _window
from tfcluster.runtime import thread_budget

# Long enough for a helper that may start to take a share on a loaded machine.
WAIT_S = 5.0
# How long a test gives a helper that must not start the chance to start all the same.
NO_HELPER_S = 0.3


@pytest.fixture(autouse=True)
def two_cores() -> Iterator[None]:
    thread_budget._reset_for_tests()
    thread_budget.configure(intra=2, inter=2)
    yield
    thread_budget._reset_for_tests()


class OtherKernel:
    """A kernel running on another thread (as the executor runs one on an inter-op thread),
    until end() is called."""

    def __init__(self) -> None:
        self._running = threading.Event()
        self._end = threading.Event()
        self._thread = threading.Thread(target=self._run)
        self._thread.start()
        assert self._running.wait(WAIT_S)

    def _run(self) -> None:
        with thread_budget.concurrent_kernel():
            self._running.set()
            self._end.wait(WAIT_S * 4)

    def end(self) -> None:
        self._end.set()
        self._thread.join()


def shares_by_thread(
    first_share: Callable[[], None],
    slices: int = 8,
    wait_s: float = WAIT_S,
    nbytes: int = 64 << 20,
    macs: int = 0,
) -> tuple[dict[int, str], bool]:
    """Runs an over_batch of `slices` blocks as a marked concurrent kernel; the calling thread
    runs first_share() inside its first block and then waits up to wait_s for a helper to take
    a block. Returns (block start -> thread name, whether a helper took one meanwhile)."""
    caller = threading.current_thread().name
    took: dict[int, str] = {}
    helped = threading.Event()

    def fn(rows: slice) -> None:
        name = threading.current_thread().name
        took[rows.start] = name
        if name != caller:
            helped.set()
        elif rows.start == 0:
            first_share()
            helped.wait(wait_s)

    with thread_budget.concurrent_kernel():
        _window.over_batch(np, slices, nbytes, fn, block=1, macs=macs)
    return took, helped.is_set()


def test_a_lone_kernel_shares_its_blocks_with_a_helper() -> None:
    took, helped = shares_by_thread(lambda: None)
    assert helped
    assert sorted(took) == list(range(8))


def test_products_of_many_multiply_adds_on_few_bytes_are_shared_with_a_helper() -> None:
    # A small batch's strided layer: 3 MB of patches, 1e8 multiply-adds (~1 ms of BLAS).
    took, helped = shares_by_thread(lambda: None, nbytes=3 << 20, macs=100_000_000)
    assert helped
    assert sorted(took) == list(range(8))


def test_work_of_few_bytes_and_few_multiply_adds_stays_on_the_callers_thread() -> None:
    took, helped = shares_by_thread(
        lambda: None, wait_s=NO_HELPER_S, nbytes=3 << 20, macs=_window.PARALLEL_MACS - 1
    )
    assert not helped
    assert set(took.values()) == {threading.current_thread().name}


def test_no_helper_computes_while_another_kernel_holds_the_second_core() -> None:
    other = OtherKernel()
    try:
        took, helped = shares_by_thread(lambda: None, wait_s=NO_HELPER_S)
    finally:
        other.end()
    caller = threading.current_thread().name
    assert not helped
    assert sorted(took) == list(range(8)) and set(took.values()) == {caller}


def test_a_helper_joins_when_the_other_kernel_ends() -> None:
    other = OtherKernel()
    took, helped = shares_by_thread(other.end)
    assert helped
    caller = threading.current_thread().name
    assert {name for name in took.values() if name != caller}


def test_a_helper_waiting_for_a_core_is_released_when_the_work_is_done() -> None:
    other = OtherKernel()
    try:
        for _ in range(20):  # each call would hang on a helper that is never released
            took, _ = shares_by_thread(lambda: None, slices=2, wait_s=0.0)
            assert sorted(took) == [0, 1]
    finally:
        other.end()
    with thread_budget._cores:
        assert thread_budget._helping == 0


def test_product_pieces_stay_on_the_callers_thread_while_another_kernel_runs(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    threads: list[str] = []
    into = _cpu_gemm._into

    def recorded(a: Any, b: Any, out: Any) -> None:
        threads.append(threading.current_thread().name)
        if len(threads) == 1:
            time.sleep(NO_HELPER_S)  # a helper that could start would take the other piece
        into(a, b, out)

    monkeypatch.setattr(_cpu_gemm, "_into", recorded)
    rng = np.random.default_rng(0)
    a = rng.standard_normal((256, 512)).astype(np.float32)
    b = rng.standard_normal((512, 1024)).astype(np.float32)
    other = OtherKernel()
    try:
        with thread_budget.concurrent_kernel():
            got = _cpu_gemm.matmul(a, b)
    finally:
        other.end()
    np.testing.assert_allclose(got, a @ b, rtol=1e-4, atol=1e-3)
    assert len(threads) == _cpu_gemm.PIECES
    assert set(threads) == {threading.current_thread().name}


def test_a_failing_kernel_leaves_no_helper_waiting_to_do_its_rest() -> None:
    other = OtherKernel()
    computed: list[int] = []

    def fn(rows: slice) -> None:
        computed.append(rows.start)
        if rows.start == 0:
            raise ValueError("bad block")

    started = time.monotonic()
    try:
        with thread_budget.concurrent_kernel(), pytest.raises(ValueError, match="bad block"):
            _window.over_batch(np, 8, 64 << 20, fn, block=1)
        elapsed = time.monotonic() - started
    finally:
        other.end()
    assert computed == [0]
    assert elapsed < WAIT_S
