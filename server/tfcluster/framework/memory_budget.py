"""A task's memory budget: a tensor whose size a request decides (a constant's declared
shape, Fill's dims, Tile's multiples, a message's announced payload) is refused with
ResourceExhaustedError, naming what asked and how much, before any memory is taken, when it
does not fit in what is left of the budget. The task then keeps serving everyone else.

The budget is the process's cgroup memory limit (a container's), else the machine's RAM; a
server may set its own (ServerOptions.memory_budget_bytes, `--memory_budget_bytes`).
Requests smaller than CHECK_FROM are not measured: they cannot hurt, and checking costs a
read of /proc.
"""

from __future__ import annotations

import math
import os
from collections.abc import Sequence
from typing import Any

from tfcluster.framework import errors

CHECK_FROM = 16 << 20
_CGROUP_LIMITS = (
    "/sys/fs/cgroup/memory.max",  # cgroup v2
    "/sys/fs/cgroup/memory/memory.limit_in_bytes",  # cgroup v1
)
_configured: int | None = None


def machine_memory() -> int:
    """The memory this process may use: its cgroup's limit when it has one, else the RAM."""
    try:
        ram = int(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES"))
    except (ValueError, OSError, AttributeError):
        ram = 1 << 40
    for path in _CGROUP_LIMITS:
        try:
            with open(path) as f:
                text = f.read().strip()
        except OSError:
            continue
        if text.isdigit():
            return min(ram, int(text))  # v1 says "no limit" with a huge number
    return ram


def set_budget(nbytes: int | None) -> None:
    """This process's budget in bytes (None: the machine's memory)."""
    global _configured
    if nbytes is not None and nbytes <= 0:
        raise ValueError(f"a memory budget must be positive, got {nbytes}")
    _configured = nbytes


def budget() -> int:
    return _configured if _configured is not None else machine_memory()


def resident_bytes() -> int:
    try:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return 0


def check(nbytes: int, what: str) -> None:
    """Raises ResourceExhaustedError if `nbytes` for `what` (e.g. "Fill's output of shape
    [100000,100000] and type float") does not fit in what is left of the budget."""
    if nbytes < CHECK_FROM:
        return
    limit = budget()
    left = max(0, limit - resident_bytes())
    if nbytes > left:
        raise errors.ResourceExhaustedError(
            None,
            None,
            f"OOM when allocating {what}: {nbytes} bytes, more than the {left} bytes left "
            f"of this task's memory budget of {limit} bytes",
        )


def check_shape(shape: Sequence[int], dtype: Any, what: str) -> None:
    """check() for an array of `shape` and numpy `dtype` (objects count as 8 bytes each)."""
    elements = math.prod(int(d) for d in shape)
    itemsize = getattr(dtype, "itemsize", 8) or 8
    if elements * itemsize >= CHECK_FROM:
        dims = ",".join(str(int(d)) for d in shape)
        check(
            elements * itemsize,
            f"{what} of shape [{dims}] and type {getattr(dtype, 'name', dtype)}",
        )
