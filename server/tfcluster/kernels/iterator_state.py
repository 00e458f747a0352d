"""An iterator's state in a checkpoint (SerializeIterator / DeserializeIterator and the string
form a Saver writes), anonymous iterators (AnonymousIterator(V2), DeleteIterator) and the V1
spellings of the iterator ops.

The state of an iterator is how many reads it has answered since it was initialised.
Restoring reads on from the iterator's position (re-initialising it with its dataset first
if it is already past the saved one) until it has answered that many, so the next read gives
the element that followed the saved position: the same element as TF's restore wherever the
pipeline is deterministic (every source and transformation but an unseeded shuffle or a
sloppy interleave). TF restores buffers instead; here the pipeline runs again up to that
point, so restoring far into an epoch costs that many reads."""

from __future__ import annotations

import itertools
import json
import weakref
from typing import Any

import numpy as np

from tfcluster.framework import errors
from tfcluster.kernels import dataset as iterators
from tfcluster.kernels import dataset_base as base
from tfcluster.kernels.registry import CPU_ONLY, kernel

_FORMAT = "tfcluster-iterator-state/1"
_anonymous_ids = itertools.count(1)


class IteratorState:
    """The value of SerializeIterator's variant: the serialized state."""

    __slots__ = ("data",)

    def __init__(self, data: bytes) -> None:
        self.data = data


def serialize(it: iterators.IteratorResource) -> bytes:
    with it._lock:
        if it.dataset is None:
            raise errors.FailedPreconditionError(
                None,
                None,
                "Save() failed because the iterator has not been initialized. Ensure that you "
                "have run the initializer operation for this iterator before saving it.",
            )
        state = {
            "format": _FORMAT,
            "produced": it.produced,
            "types": [s.dtype.name for s in it.specs],
        }
    return json.dumps(state).encode()


def _parse(data: bytes, it: iterators.IteratorResource) -> int:
    try:
        state = json.loads(data.decode())
        if state.get("format") != _FORMAT:
            raise ValueError(state.get("format"))
        produced = int(state["produced"])
        types = list(state["types"])
    except (ValueError, KeyError, TypeError, AttributeError, UnicodeDecodeError):
        raise errors.InvalidArgumentError(
            None, None, "Could not parse the iterator state: it was not saved by tfcluster"
        ) from None
    if produced < 0:
        raise errors.InvalidArgumentError(None, None, f"Bad iterator state: {produced} reads")
    ours = [s.dtype.name for s in it.specs]
    if types != ours:
        raise errors.InvalidArgumentError(
            None,
            None,
            f"The iterator state is of an iterator with component types {types}, not {ours}",
        )
    return produced


def restore(it: iterators.IteratorResource, data: bytes, ctx: Any) -> None:
    produced = _parse(data, it)
    dataset = it.dataset
    if dataset is None:
        raise errors.FailedPreconditionError(
            None,
            None,
            "Restore() failed because the iterator has not been initialized. Ensure that you "
            "have run the initializer operation for this iterator before restoring it.",
        )
    # Where the iterator is at or before the saved position (a restore right after the
    # initializer, as Savers and CheckpointInputPipelineHook do it), it reads on from there:
    # a reshuffling dataset keeps the order of this initialisation. Past it, it starts over
    # (a reshuffling dataset then shuffles as for its next initialisation).
    it._acquire(ctx)
    try:
        fresh = it.produced > produced or it._current.iterator is None
    finally:
        it._lock.release()
    if fresh:
        it.initialize(dataset)
    it._acquire(ctx)
    try:
        iterator = it._current.iterator
        done = it.produced
        with base.StepScope(ctx):
            while done < produced and iterator is not None:
                done += 1
                try:
                    if iterator.next() is None:
                        done -= 1
                        break
                except errors.OpError:
                    continue  # a read that failed before the save fails again: it counts
        it.produced = done
    finally:
        it._lock.release()


def _state_bytes(value: Any) -> bytes:
    if isinstance(value, np.ndarray) and value.shape == ():
        value = value[()]
    if isinstance(value, IteratorState):
        return value.data
    if isinstance(value, bytes):
        return value
    raise errors.InvalidArgumentError(
        None, None, f"Expected an iterator state, got {type(value).__name__}"
    )


def _scalar(value: Any) -> np.ndarray:
    out = np.empty((), dtype=object)
    out[()] = value
    return out


@kernel("SerializeIterator", devices=CPU_ONLY)
def serialize_iterator(node: Any, xp: Any) -> Any:
    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        return (_scalar(IteratorState(serialize(iterators._iterator(ins[0], node.name)))),)

    return compute


@kernel("_IteratorStateToString", devices=CPU_ONLY)
def iterator_state_to_string(node: Any, xp: Any) -> Any:
    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        return (_scalar(serialize(iterators._iterator(ins[0], node.name))),)

    return compute


def deserialize_iterator(node: Any, xp: Any) -> Any:
    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        restore(iterators._iterator(ins[0], node.name), _state_bytes(ins[1]), ctx)
        return ()

    return compute


kernel("DeserializeIterator", devices=CPU_ONLY)(deserialize_iterator)
kernel("_IteratorStateFromString", devices=CPU_ONLY)(deserialize_iterator)

# V1 spellings.
kernel("Iterator", devices=CPU_ONLY)(iterators.iterator_v2)
kernel("IteratorFromStringHandle", devices=CPU_ONLY)(iterators.iterator_from_string_handle)
kernel("IteratorGetNextSync", devices=CPU_ONLY)(iterators.iterator_get_next)


# ---- anonymous iterators -------------------------------------------------------------------
class _Deleter:
    """AnonymousIteratorV2's deleter: DeleteIterator takes it with the handle; when it goes
    away (with the step's values) the iterator leaves the task's resources too."""

    __slots__ = ("__weakref__", "container", "name")

    def __init__(self, it: iterators.IteratorResource) -> None:
        self.container, self.name = it.container, it.name
        weakref.finalize(self, it.resources.remove, it.container, it.name, it)


def _anonymous(node: Any, ctx: Any) -> iterators.IteratorResource:
    specs = base.leaf_specs(node.attrs)
    name = f"_AnonymousIterator{next(_anonymous_ids)}"
    return iterators.IteratorResource("", name, specs, ctx.resources, node.device)


@kernel("AnonymousIterator", devices=CPU_ONLY)
def anonymous_iterator(node: Any, xp: Any) -> Any:
    """A new iterator each run, alive as long as its handle value: it is not kept in the
    task's resources (no string handle finds it), so nothing outlives the handle."""

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        return (_anonymous(node, ctx),)

    return compute


@kernel("AnonymousIteratorV2", devices=CPU_ONLY)
def anonymous_iterator_v2(node: Any, xp: Any) -> Any:
    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        it = _anonymous(node, ctx)
        ctx.resources.lookup_or_create(it.container, it.name, lambda: it)
        return (it, _scalar(_Deleter(it)))

    return compute


@kernel("DeleteIterator", devices=CPU_ONLY)
def delete_iterator(node: Any, xp: Any) -> Any:
    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        it = iterators._iterator(ins[0], node.name)
        it.close()
        ctx.resources.remove(it.container, it.name, it)
        return ()

    return compute


def iterator_get_device(node: Any, xp: Any) -> Any:
    """The device the iterator's pipeline runs on (where its op was placed)."""

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        it = iterators._iterator(ins[0], node.name)
        return (_scalar(it.device.encode()),)

    return compute


kernel("IteratorGetDevice", devices=CPU_ONLY)(iterator_get_device)
kernel("ExperimentalIteratorGetDevice", devices=CPU_ONLY)(iterator_get_device)
