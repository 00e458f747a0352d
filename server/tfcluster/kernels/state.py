"""Variable kernels over xp: a VariableV2 yields its VariableRef; Assign swaps in a new array,
AssignAdd/AssignSub write the variable's array in place (kernels/in_place.py).

A variable's value lives where its last assignment ran (a numpy array, frozen, or a cupy
array); every kernel reads it with xp.asarray, which moves a value assigned on the CPU by
another plan onto this kernel's GPU and costs nothing otherwise.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from typing import Any

import numpy as np

from tfcluster.framework import errors
from tfcluster.kernels import in_place
from tfcluster.kernels.common import Compute, frozen, shape_of
from tfcluster.kernels.registry import kernel
from tfcluster.runtime.resources import VariableRef


def locked(refs: Sequence[VariableRef]) -> AbstractContextManager[Any]:
    """Holds the locks of refs for one read-modify-write, in one order for every kernel on
    every device, so two updates of the same variables or slots never deadlock.

    Held whatever use_locking says. TF's unlocked updates race per element in one shared
    buffer; here an update writes in place only while no reader holds the array and else
    writes a private copy (in_place.writable_value), so two unlocked updates at once would
    lose one of them whole. The lock is held for the update only: readers never wait."""
    return _HeldLocks(refs)


class _HeldLocks:
    """The locks of some references, taken in order of the references' ids and released in
    reverse (a plain object: an optimizer step takes these once per variable)."""

    __slots__ = ("_locks",)

    def __init__(self, refs: Sequence[VariableRef]) -> None:
        if len(refs) == 1:
            self._locks: tuple[Any, ...] = (refs[0].lock,)
        else:
            ordered = sorted({id(r): r for r in refs}.values(), key=id)
            self._locks = tuple(r.lock for r in ordered)

    def __enter__(self) -> None:
        taken: list[Any] = []
        try:
            for lock in self._locks:
                lock.acquire()
                taken.append(lock)
        except BaseException:
            for lock in reversed(taken):
                lock.release()
            raise

    def __exit__(self, *exc: object) -> None:
        for lock in reversed(self._locks):
            lock.release()


# VariableV2, IsVariableInitialized and _InitializedValue only pass references or values on.
@kernel("VariableV2", keep_inputs=True)
def variable(node: Any, xp: Any) -> Compute:
    a = node.attrs
    container = a.get("container", "")
    name = a.get("shared_name") or node.name
    dtype = a["dtype"]
    shape = a["shape"]

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        ref = ctx.resources.variable(container, name, dtype, shape)
        if ref.dtype != dtype:
            raise errors.InvalidArgumentError(
                None,
                None,
                f"Trying to share variable {name}, but specified dtype {dtype.name} and found "
                f"dtype {ref.dtype.name}",
            )
        return (ref,)

    return compute


@kernel("IsVariableInitialized", keep_inputs=True)
def is_initialized(node: Any, xp: Any) -> Compute:
    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        return (np.bool_(ins[0].initialized),)

    return compute


@kernel("_InitializedValue", keep_inputs=True)
def initialized_value(node: Any, xp: Any) -> Compute:
    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        ref, initial = ins
        v = ref.value
        return (initial if v is None else v,)

    return compute


def _check_shape(ref: VariableRef, value: Any) -> None:
    shape = ref.shape
    if shape.ndims is None:
        return
    want = shape.as_list()
    got = list(shape_of(value))
    if len(want) != len(got) or any(w is not None and w != g for w, g in zip(want, got)):
        raise errors.InvalidArgumentError(
            None,
            None,
            f"Assign requires shapes of both tensors to match. lhs shape= {want} rhs shape= {got}",
        )


@kernel("Assign")
def assign(node: Any, xp: Any) -> Compute:
    validate = node.attrs.get("validate_shape", True)
    dtype = node.attrs["T"].as_numpy_dtype

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        ref, value = ins
        if validate:
            _check_shape(ref, value)
        # A private copy: neither the source (a feed, a constant, another variable) nor a
        # client that fetched the value may change the variable behind its back.
        ref.value = frozen(xp.array(value, dtype=dtype))
        ref.generation += 1
        return (ref,)

    return compute


def _update_factory(fn: Callable[..., Any]) -> Callable[[Any, Any], Compute]:
    """AssignAdd/AssignSub: fn(old, delta) written into the variable's array."""

    def factory(node: Any, xp: Any) -> Compute:
        name = node.name

        def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
            ref, delta = ins
            delta = xp.asarray(delta)
            with locked([ref]):
                shape = tuple(shape_of(ref.read(name)))
                wide = np.broadcast_shapes(shape, tuple(delta.shape))
                if wide != shape:
                    raise errors.InvalidArgumentError(
                        None,
                        None,
                        f"Update changes the variable's shape from {shape} to {wide}",
                    )
                target = in_place.writable_value(xp, ref, name)
                try:
                    fn(xp, target, delta.astype(target.dtype, copy=False), out=target)
                finally:
                    in_place.done(ref, target)
                    del target
            return (ref,)

        return compute

    return factory


kernel("AssignAdd")(_update_factory(lambda xp, old, delta, out: xp.add(old, delta, out=out)))
kernel("AssignSub")(_update_factory(lambda xp, old, delta, out: xp.subtract(old, delta, out=out)))
