"""The process's thread budget: the one owner of the BLAS thread pools and of the executor's
inter-op width.

TensorFlow sizes its own pools (`intra_op_parallelism_threads`: threads one kernel may use;
`inter_op_parallelism_threads`: kernels of a step that may run at once; 0 = the CPUs the
process may use). numpy's BLAS would size its pool to the machine's cores and spin its
threads between calls, so several tasks on one host (or a pod limited to 2 CPUs on a
64-core node) fight over the cores. Here the runtime sets the BLAS pools itself, through
threadpoolctl, from the budget:

- `configure()`: the process-wide budget, from a server's or a local session's ConfigProto
  (explicit values win) or the default (runtime/cpu_quota.available_cpus(), capped by the
  CPU budget the operator passes down, shared between the tasks of a cluster on this host);
- `blas_threads(n)`: a temporary limit for one kernel (a convolution that splits its batch
  across cores and wants single-threaded BLAS inside);
- `concurrent_kernel()`: the executor's inter-op threads: while k kernels run at once, each
  BLAS call gets intra // k threads, so together they use the budget, not k times it;
- `take_spare_core(wanted)`: a helper thread that would share a running kernel's work (a conv's
  batch blocks, a product's pieces) computes only on a core no kernel is using: while two
  kernels of a step run at once on a 2-core budget, each runs on its own thread, and the
  helper of the one still running starts when the other ends. Helpers that start anyway
  make more runnable threads than cores: the OS then preempts threads that hold the GIL,
  and the others wait for it, and each core's cache blocks are evicted.

OpenBLAS built with pthreads (numpy's wheels) has one thread count per process
(openblas_set_num_threads_local changes it for every thread), so every limit here is
process-wide; the module keeps them consistent under one lock.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from tfcluster.runtime import cpu_quota
from tfcluster.settings import environment

# The thread pools threadpoolctl knows: BLAS libraries and OpenMP runtimes.
_USER_APIS = ("blas", "openmp")


@dataclass(frozen=True)
class Budget:
    intra: int  # threads one kernel may use (the BLAS pools)
    inter: int  # kernels of one step that may run at once (the executor)
    source: str  # where the figures come from, for logs and tests


_lock = threading.Lock()
_budget: Budget | None = None
_overrides: list[int] = []  # blas_threads() limits in force, innermost last
_concurrent = 0  # kernels running at once under concurrent_kernel()
_applied: int | None = None  # the BLAS thread count last set
# How to set each loaded library's thread count (from threadpoolctl's controllers).
_pools: list[Callable[[int], Any]] | None = None
_helping = 0  # helper threads computing a share of a running kernel (take_spare_core)
_waiting = 0  # helper threads waiting for a spare core (take_spare_core)
# Signalled when a kernel or a helper ends (a core may be spare) or a kernel's work is all
# taken (its waiting helpers are not wanted any more).
_cores = threading.Condition(_lock)
# A waiting helper looks again this often even unsignalled (a safety net, not the mechanism).
_HELPER_RECHECK_S = 0.05


def default_cpus(share: int = 1) -> int:
    """The CPUs this process may use (affinity, cgroup quota, the operator's CPU budget),
    divided between `share` tasks of one host."""
    cpus = cpu_quota.available_cpus()
    millis = environment.cpu_budget_millicores()
    if millis is not None:
        cpus = min(cpus, max(1, math.ceil(millis / 1000)))
    return max(1, cpus // max(1, share))


def configure(intra: int = 0, inter: int = 0, share: int = 1, source: str = "config") -> Budget:
    """Sets the process's budget: `intra`/`inter` as ConfigProto's fields (0 or negative: the
    default, default_cpus(share)), and the BLAS pools to `intra` threads."""
    default = default_cpus(share) if intra <= 0 or inter <= 0 else 0
    budget = Budget(
        intra if intra > 0 else default,
        inter if inter > 0 else default,
        source if intra > 0 or inter > 0 else "default",
    )
    global _budget, _pools
    with _lock:
        _budget = budget
        _pools = None  # libraries loaded since the last look (scipy's own BLAS, ...) too
        _apply_locked()
    return budget


def current() -> Budget:
    """The budget in force; the default one, applied, when nothing configured it yet."""
    budget = _budget
    return budget if budget is not None else ensure_default()


def ensure_default(share: int = 1) -> Budget:
    """Applies the default budget unless one is set already (a session or server with no
    thread settings must not undo one that has them)."""
    budget = _budget
    if budget is not None:
        return budget
    return configure(share=share, source="default")


def push_blas_limit(n: int) -> None:
    """At most `n` BLAS threads until the matching pop_blas_limit (process-wide)."""
    with _lock:
        _overrides.append(max(1, n))
        _apply_locked()


def pop_blas_limit(n: int) -> None:
    with _lock:
        _overrides.remove(max(1, n))
        _apply_locked()


@contextmanager
def blas_threads(n: int) -> Iterator[None]:
    """At most `n` BLAS threads while the block runs (process-wide: see the module's doc)."""
    push_blas_limit(n)
    try:
        yield
    finally:
        pop_blas_limit(n)


class SingleThreadBlas:
    """blas_threads(1) as a reusable `with` object, for kernels that hold it on every call."""

    def __enter__(self) -> None:
        push_blas_limit(1)

    def __exit__(self, *exc: Any) -> None:
        pop_blas_limit(1)


@contextmanager
def concurrent_kernel() -> Iterator[None]:
    """Marks a kernel run by the executor beside others: the intra budget is shared."""
    kernel_begins()
    try:
        yield
    finally:
        kernel_ends()


def kernel_begins() -> None:
    """concurrent_kernel()'s start, for a thread that holds a core from before its kernel
    starts (an inter-op thread, from the moment a kernel is handed to it: a helper of the
    kernel running meanwhile must not take that core) until kernel_ends()."""
    global _concurrent
    with _lock:
        _concurrent += 1
        _apply_locked()


def kernel_ends() -> None:
    global _concurrent
    with _lock:
        _concurrent -= 1
        _apply_locked()
        _cores.notify_all()


def _spare_locked() -> int:
    budget = _budget
    intra = budget.intra if budget is not None else cpu_quota.available_cpus()
    # The thread stepping the graph computes too, when no kernel is marked concurrent.
    return intra - max(1, _concurrent) - _helping


def take_spare_core(wanted: Callable[[], bool]) -> bool:
    """For a helper thread about to share a running kernel's work: waits until a core of the
    intra budget is spare (True: it is held now, give it back with give_back_core), or until
    `wanted()` is False (the kernel's own thread took all the work: False, nothing held).
    `wanted` is called under the budget's lock: it must only read."""
    global _helping, _waiting
    with _cores:
        _waiting += 1
        try:
            while wanted():
                if _spare_locked() > 0:
                    _helping += 1
                    return True
                _cores.wait(_HELPER_RECHECK_S)
            return False
        finally:
            _waiting -= 1


def helpers_waiting() -> int:
    """Helper threads waiting for a spare core now: a running kernel that more cores would
    speed up (a thread about to start a kernel with slack leaves it the core)."""
    return _waiting


def give_back_core() -> None:
    global _helping
    with _cores:
        _helping -= 1
        _cores.notify_all()


def work_taken() -> None:
    """A kernel's thread took the last of its shares: its waiting helpers can stop waiting."""
    with _cores:
        _cores.notify_all()


def blas_pools_info() -> list[dict[str, Any]]:
    """threadpoolctl's view of the BLAS and OpenMP pools of this process (num_threads, ...)."""
    import threadpoolctl

    return [i for i in threadpoolctl.threadpool_info() if i.get("user_api") in _USER_APIS]


def _wanted_locked() -> int:
    budget = _budget
    intra = budget.intra if budget is not None else cpu_quota.available_cpus()
    if _overrides:
        intra = min(intra, _overrides[-1])
    return max(1, intra // max(1, _concurrent))


def _apply_locked() -> None:
    global _applied, _pools
    wanted = _wanted_locked()
    if wanted == _applied and _pools is not None:
        return
    if _pools is None:
        import threadpoolctl

        controller = threadpoolctl.ThreadpoolController()
        _pools = [_setter(lib) for lib in controller.lib_controllers if lib.user_api in _USER_APIS]
    for set_threads in _pools:
        set_threads(wanted)
    _applied = wanted


def _setter(lib: Any) -> Callable[[int], Any]:
    """A function that sets the pool's thread count. For OpenBLAS on pthreads, its own
    openblas_set_num_threads (the symbol threadpoolctl found, prefixes and all): a change
    costs a quarter of a microsecond instead of threadpoolctl's ~3 (taking control of the
    pool over again, below), and a mid-size product changes it twice (kernels/_cpu_gemm.py:
    ~5% of a small Keras MLP's training step)."""
    get_symbol = getattr(lib, "_get_symbol", None)
    if lib.internal_api == "openblas" and getattr(lib, "threading_layer", "") != "openmp":
        fn = get_symbol("openblas_set_num_threads") if get_symbol is not None else None
        if fn is not None:
            return fn  # type: ignore[no-any-return]

    def set_threads(n: int) -> None:
        # threadpoolctl lets only one thread (the first to set it) change a process-wide
        # pool (OpenBLAS on pthreads) and ignores the others silently: a limit set from an
        # executor or kernel thread would not hold, and BLAS's threads would wake (and spin)
        # inside kernels that split their work themselves. Every change here is made under
        # _lock, so the thread making it may take control.
        clear = getattr(lib, "clear_controlling_thread", None)
        if clear is not None:
            clear(force=True)
        lib.set_num_threads(n)

    return set_threads


def _reset_for_tests() -> None:
    """Forgets the budget (the next current() applies the default again)."""
    global _budget, _applied, _pools, _concurrent, _helping, _waiting
    with _lock:
        _budget = None
        _applied = None
        _pools = None
        _overrides.clear()
        _concurrent = 0
        _helping = 0
        _waiting = 0
