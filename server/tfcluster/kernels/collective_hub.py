"""The CollectiveHub kernel (ops/collective_hub_ops.py): members of a group meet in this
process. The n-th run of a member joins the n-th round of its (group_key, instance_key), so
workers running the same graph step by step meet round by round; a member waiting gives up
when its step is cancelled or passes its deadline."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import numpy as np

from tfcluster.framework import errors
from tfcluster.kernels.registry import CPU_ONLY, kernel
from tfcluster.kernels.resource_waits import wait_until


class _Instance:
    def __init__(self) -> None:
        self.cond = threading.Condition()
        self.next_round: dict[int, int] = {}
        self.pending: dict[int, dict[int, np.ndarray]] = {}
        # round -> [result, members still to collect it]
        self.results: dict[int, list[Any]] = {}


_LOCK = threading.Lock()
_INSTANCES: dict[tuple[int, int], _Instance] = {}


def _instance(group_key: int, instance_key: int) -> _Instance:
    with _LOCK:
        found = _INSTANCES.get((group_key, instance_key))
        if found is None:
            found = _INSTANCES[(group_key, instance_key)] = _Instance()
        return found


def _merged(values: dict[int, np.ndarray], merge: str, group_size: int) -> np.ndarray:
    shapes = {tuple(np.shape(v)) for v in values.values()}
    if len(shapes) != 1:
        raise errors.InvalidArgumentError(
            None,
            None,
            f"Members of a collective brought values of different shapes: {sorted(shapes)}",
        )
    if merge == "First":
        return np.asarray(values[0])
    total = np.array(values[0], copy=True)
    for m in range(1, group_size):
        total = total + values[m]
    return total.astype(np.asarray(values[0]).dtype, copy=False)


@kernel("CollectiveHub", devices=CPU_ONLY, is_async=True)
def collective_hub(node: Any, xp: Any) -> Any:
    """Asynchronous: a member that has to wait does so in a thread of its own, so that the
    executor goes on with the step's other ops (another hub the other members wait in
    first, in whatever order their executors ran them)."""
    group_size = int(node.attrs["group_size"])
    group_key = int(node.attrs["group_key"])
    instance_key = int(node.attrs["instance_key"])
    member = int(node.attrs["member"])
    merge = node.attrs.get("merge", "Add")
    merge = merge.decode() if isinstance(merge, bytes) else str(merge)
    if group_size < 1 or not 0 <= member < group_size:
        raise errors.InvalidArgumentError(
            None, None, f"CollectiveHub member {member} is not in a group of {group_size}"
        )

    def collect(inst: _Instance, r: int) -> Any:
        entry = inst.results[r]
        entry[1] -= 1
        if entry[1] == 0:
            del inst.results[r]
        return entry[0]

    def wait_then_answer(ctx: Any, inst: _Instance, r: int, done: Callable[..., None]) -> None:
        try:
            with inst.cond:
                wait_until(inst.cond, lambda: r in inst.results, ctx)
                value = collect(inst, r)
        except BaseException as e:  # handed to the executor as the op's error
            done(None, e)
            return
        done((value,), None)

    def compute(ctx: Any, ins: list[Any], done: Callable[..., None]) -> None:
        inst = _instance(group_key, instance_key)
        try:
            with inst.cond:
                r = inst.next_round.get(member, 0)
                inst.next_round[member] = r + 1
                brought = inst.pending.setdefault(r, {})
                brought[member] = np.asarray(ins[0])
                if len(brought) == group_size:
                    del inst.pending[r]
                    inst.results[r] = [_merged(brought, merge, group_size), group_size]
                    inst.cond.notify_all()
                    value = collect(inst, r)
                else:
                    value = None
        except BaseException as e:
            done(None, e)
            return
        if value is not None:
            done((value,), None)
            return
        threading.Thread(
            target=wait_then_answer, args=(ctx, inst, r, done), daemon=True, name="collective-hub"
        ).start()

    return compute
