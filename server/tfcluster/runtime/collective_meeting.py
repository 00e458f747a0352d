"""Where the members of a collective op's group meet: the group leader's table (TF's
CollectiveParamResolver and the reduction itself, in one place, free of any transport).

Every member of a group (group_key, group_size) runs the op with the same instance_key; the
n-th run of a member's op meets the n-th run of every other member's (a round), as TF pairs
them by step. A round is answered when all `group_size` members came; a member whose step
ends first (deadline, cancellation) takes its part back, so that the round stays open for
its next run and the others' parts are not combined with a stale value.
"""

from __future__ import annotations

import functools
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from tfcluster.framework import errors

KINDS = ("reduce", "gather", "bcast_send", "bcast_recv")
MERGE_OPS: dict[str, Callable[[Any, Any], Any]] = {
    "Add": np.add,
    "Mul": np.multiply,
    "Min": np.minimum,
    "Max": np.maximum,
}
FINAL_OPS = ("Id", "Div")
# How often a waiting member looks whether its step ended without a notify.
_POLL_SECS = 0.05

# Raises when the wait must end (deadline passed, step cancelled); returns otherwise.
CheckFn = Callable[[], None]


@dataclass(frozen=True)
class Part:
    """One member's part in one run of a collective op."""

    kind: str
    group_key: int
    group_size: int
    instance_key: int
    device: str
    value: np.ndarray | None = None
    merge_op: str = ""
    final_op: str = ""
    # bcast_recv: the shape it expects; gather/bcast_send: the shape attr (may be partial).
    shape: tuple[int | None, ...] | None = None
    dtype: Any = None
    # Orders one member's runs (later runs have larger values: time.time_ns() of the run).
    attempt: int = 0

    def describe(self) -> str:
        return (
            f"Collective {self.kind} (group_key {self.group_key}, instance_key "
            f"{self.instance_key}) on {self.device}"
        )


def deadline_check(deadline: float | None, cancelled: Callable[[], bool]) -> CheckFn:
    """A CheckFn for a wait bounded by a monotonic deadline and a cancellation test."""

    def check() -> None:
        if cancelled():
            raise errors.CancelledError(None, None, "Collective op was cancelled")
        if deadline is not None and time.monotonic() >= deadline:
            raise errors.DeadlineExceededError(
                None, None, "Timed out waiting for the other members of a collective op"
            )

    return check


class _Round:
    __slots__ = ("error", "parts", "result")

    def __init__(self) -> None:
        self.parts: dict[str, Part] = {}
        self.result: np.ndarray | None = None
        self.error: BaseException | None = None


class _Instance:
    def __init__(self) -> None:
        self.cond = threading.Condition()
        self.rounds: list[_Round] = []
        # device -> the attempt of its latest part
        self.latest: dict[str, int] = {}


class MeetingTable:
    """The rounds of every collective instance that meets on this task."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._instances: dict[tuple[int, int], _Instance] = {}
        # group_key -> (group_size, the devices of the group once it is complete)
        self._groups: dict[int, tuple[int, frozenset[str]]] = {}
        self._members: dict[int, set[str]] = {}
        # group_key -> group_size, while the group is still forming
        self._sizes: dict[int, int] = {}

    def join(self, part: Part, check: CheckFn) -> np.ndarray:
        """The collective's result for `part`'s round, once every member brought its part;
        `check` raises to give up waiting (the part is then taken back)."""
        self._check_group(part)
        inst = self._instance(part.group_key, part.instance_key)
        with inst.cond:
            # A member's runs come in order of their `attempt`: an older one arriving late
            # (its step already gave up) is refused, and a newer one takes the place of an
            # older one still waiting (whose step gave up while its cancel was on its way).
            latest = inst.latest.get(part.device)
            if latest is not None and part.attempt < latest:
                raise errors.CancelledError(
                    None, None, f"{part.describe()}: a later run of this member came first"
                )
            inst.latest[part.device] = part.attempt
            for r in list(inst.rounds):
                if part.device in r.parts:
                    del r.parts[part.device]
                    if not r.parts:
                        inst.rounds.remove(r)
                    inst.cond.notify_all()
            rnd = next((r for r in inst.rounds if part.device not in r.parts), None)
            if rnd is None:
                rnd = _Round()
                inst.rounds.append(rnd)
            rnd.parts[part.device] = part
            if len(rnd.parts) == part.group_size:
                try:
                    rnd.result = _combine(list(rnd.parts.values()))
                except errors.OpError as e:
                    rnd.error = e
                inst.rounds.remove(rnd)
                inst.cond.notify_all()
            while rnd.result is None and rnd.error is None:
                if rnd.parts.get(part.device) is not part:
                    raise errors.CancelledError(
                        None, None, f"{part.describe()}: a later run of this member came"
                    )
                try:
                    check()
                except BaseException:
                    if rnd in inst.rounds and rnd.parts.get(part.device) is part:
                        del rnd.parts[part.device]
                        if not rnd.parts:
                            inst.rounds.remove(rnd)
                        inst.cond.notify_all()
                    raise
                inst.cond.wait(_POLL_SECS)
        if rnd.error is not None:
            raise rnd.error
        result = rnd.result
        assert result is not None
        if part.kind == "bcast_recv" and part.shape is not None:
            _check_shape(part, result.shape)
        return result

    def _check_group(self, part: Part) -> None:
        if part.kind not in KINDS:
            raise errors.InvalidArgumentError(None, None, f"Unknown collective kind {part.kind}")
        if part.group_size < 1:
            raise errors.InvalidArgumentError(
                None, None, f"{part.describe()}: group_size must be positive, got {part.group_size}"
            )
        with self._lock:
            # A group is of devices; several members (nodes) may share one ("device#node").
            device = part.device.split("#", 1)[0]
            known = self._groups.get(part.group_key)
            if known is None:
                members = self._members.setdefault(part.group_key, set())
                size = part.group_size
                if members and self._sizes.get(part.group_key, size) != size:
                    raise _size_mismatch(part, self._sizes[part.group_key])
                self._sizes[part.group_key] = size
                members.add(device)
                if len(members) > size:
                    members.discard(device)
                    raise _too_many(part, size)
                if len(members) == size:
                    self._groups[part.group_key] = (size, frozenset(members))
                    del self._members[part.group_key]
                    del self._sizes[part.group_key]
                return
            size, devices = known
            if part.group_size != size:
                raise _size_mismatch(part, size)
            if device not in devices:
                raise _too_many(part, size)

    def _instance(self, group_key: int, instance_key: int) -> _Instance:
        with self._lock:
            found = self._instances.get((group_key, instance_key))
            if found is None:
                found = self._instances[(group_key, instance_key)] = _Instance()
            return found


def _size_mismatch(part: Part, size: int) -> errors.OpError:
    # TF 1.15 says this with InternalError (and then hangs; here the step fails cleanly).
    return errors.InternalError(
        None,
        None,
        f"{part.describe()} has group_size {part.group_size} and group_key "
        f"{part.group_key} but that group has size {size}",
    )


def _too_many(part: Part, size: int) -> errors.OpError:
    return errors.InternalError(
        None,
        None,
        f"{part.describe()}: group {part.group_key} already has its {size} devices",
    )


def _check_shape(part: Part, got: tuple[int, ...]) -> None:
    want = part.shape
    assert want is not None
    if len(want) != len(got) or any(w is not None and w != g for w, g in zip(want, got)):
        raise errors.InternalError(
            None,
            None,
            f"{part.describe()}: the broadcast value has shape {list(got)}, this member "
            f"expects {[-1 if w is None else w for w in want]}",
        )


def _ranked(parts: list[Part]) -> list[Part]:
    # TF ranks a group's devices by name.
    return sorted(parts, key=lambda p: p.device)


def _same(parts: list[Part], what: str, get: Callable[[Part], Any]) -> Any:
    seen = {get(p) for p in parts}
    if len(seen) != 1:
        raise errors.InternalError(
            None,
            None,
            f"{parts[0].describe()}: the members disagree on {what}: {sorted(map(str, seen))}",
        )
    return seen.pop()


def _same_shape(parts: list[Part]) -> None:
    first = np.shape(np.asarray(parts[0].value))
    for p in parts[1:]:
        other = np.shape(np.asarray(p.value))
        if other != first:
            raise errors.InvalidArgumentError(
                None,
                None,
                f"Shape mismatch in the collective instance {p.instance_key}. Op at device "
                f"{parts[0].device} expected shape {list(first)} but another member in the "
                f"group expected shape {list(other)}. This is likely due to "
                "different input shapes at different members of the collective op.",
            )


def _combine(parts: list[Part]) -> np.ndarray:
    kind = _same(parts, "the collective's kind", lambda p: p.kind.replace("_recv", "_send"))
    ranked = _ranked(parts)
    if kind == "bcast_send":
        sources = [p for p in ranked if p.kind == "bcast_send"]
        if len(sources) != 1:
            raise errors.InternalError(
                None,
                None,
                f"{parts[0].describe()}: a broadcast needs exactly one source "
                f"(CollectiveBcastSend), got {len(sources)}",
            )
        _same(parts, "the dtype", lambda p: np.dtype(p.dtype).name)
        value = sources[0].value
        assert value is not None
        return value
    values = [np.asarray(p.value) for p in ranked]
    _same(parts, "the dtype", lambda p: np.asarray(p.value).dtype.name)
    if kind == "gather":
        _same_shape(parts)
        if np.ndim(values[0]) == 0:
            raise errors.InternalError(None, None, f"{parts[0].describe()}: cannot gather scalars")
        return np.concatenate(values, axis=0)
    merge_op = _same(parts, "merge_op", lambda p: p.merge_op)
    final_op = _same(parts, "final_op", lambda p: p.final_op)
    _same_shape(parts)
    if merge_op not in MERGE_OPS or final_op not in FINAL_OPS:
        raise errors.InvalidArgumentError(
            None, None, f"{parts[0].describe()}: unknown merge_op {merge_op} / final_op {final_op}"
        )
    dtype = np.asarray(values[0]).dtype
    merged = np.asarray(functools.reduce(MERGE_OPS[merge_op], values)).astype(dtype, copy=False)
    if final_op == "Div":
        n = len(values)
        if np.issubdtype(dtype, np.integer):
            # TF's Div of integers truncates toward zero.
            merged = (np.sign(merged) * (np.abs(merged) // n)).astype(dtype)
        else:
            merged = (merged / dtype.type(n)).astype(dtype, copy=False)
    return merged
