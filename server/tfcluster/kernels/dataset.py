"""Kernels of the iterator ops: IteratorV2, OneShotIterator, MakeIterator, IteratorGetNext,
IteratorToStringHandle, IteratorFromStringHandleV2; and the iterator resource they share.

An iterator is a resource of its task, kept in the task's ResourceMgr like a queue: with a
`shared_name` every session on the task sees the same one; without one it is private to the
kernel that made it (one per session) and goes away with it. Its pipeline runs in the task
that holds it (in the threads of the steps that call get_next, and in the background threads
of prefetch, parallel map and interleave); the elements leave the task as ordinary tensors.
"""

from __future__ import annotations

import itertools
import threading
import weakref
from collections.abc import Sequence
from typing import Any

import numpy as np

from tfcluster.framework import errors
from tfcluster.kernels import dataset_base as base
from tfcluster.kernels.registry import CPU_ONLY, kernel
from tfcluster.runtime.resources import ResourceMgr

_private_ids = itertools.count(1)
# How often a get_next waiting for another one to finish looks at its own step's deadline.
_LOCK_POLL_SECS = 0.05
_HANDLE_PREFIX = b"tfcluster-iterator:"
# A token per resource manager: a string handle names the task whose iterator it is.
_task_tokens: weakref.WeakKeyDictionary[ResourceMgr, str] = weakref.WeakKeyDictionary()
_token_lock = threading.Lock()


def _task_token(resources: ResourceMgr) -> str:
    with _token_lock:
        token = _task_tokens.get(resources)
        if token is None:
            token = _task_tokens[resources] = f"{next(_private_ids):x}.{id(resources):x}"
        return token


class _Current:
    """The pipeline an iterator reads now; what its finalizer closes (never the resource)."""

    __slots__ = ("iterator", "pipeline")

    def __init__(self) -> None:
        self.pipeline: base.Pipeline | None = None
        self.iterator: base.ElementIterator | None = None

    def close(self) -> None:
        pipeline, iterator = self.pipeline, self.iterator
        self.pipeline = self.iterator = None
        if pipeline is not None:
            pipeline.close()
        if iterator is not None:
            iterator.close()


class IteratorResource:
    """An iterator over a dataset, (re)initialised by MakeIterator, read by IteratorGetNext."""

    def __init__(
        self,
        container: str,
        name: str,
        specs: Sequence[base.LeafSpec],
        resources: ResourceMgr,
        device: str,
    ) -> None:
        self.container = container
        self.name = name
        self.specs = list(specs)
        self.resources = resources
        self.device = device
        self._lock = threading.Lock()
        self._current = _Current()
        # What it was last initialised with, and how many reads it has answered since (with
        # an element or an error): its state in a checkpoint (kernels/iterator_state.py).
        self.dataset: base.Dataset | None = None
        self.produced = 0
        # Threads of the pipeline stop when the resource goes away without being closed.
        weakref.finalize(self, self._current.close)

    def check_dataset(self, dataset: base.Dataset) -> None:
        """InvalidArgument unless the dataset's elements fit this iterator's structure."""
        ours, theirs = self.specs, dataset.specs
        if len(ours) != len(theirs):
            raise errors.InvalidArgumentError(
                None,
                None,
                f"Number of components does not match: iterator has {len(ours)} components, "
                f"the dataset {len(theirs)}.",
            )
        for i, (a, b) in enumerate(zip(ours, theirs)):
            if a.dtype != b.dtype or a.kind != b.kind:
                raise errors.InvalidArgumentError(
                    None,
                    None,
                    f"Data type mismatch at component {i}: expected {a.dtype.name} but got "
                    f"{b.dtype.name}.",
                )
            if not a.shape.is_compatible_with(b.shape):
                raise errors.InvalidArgumentError(
                    None,
                    None,
                    f"Incompatible shapes at component {i}: expected {a.shape} but got {b.shape}.",
                )

    def initialize(self, dataset: base.Dataset) -> None:
        self.check_dataset(dataset)
        # The old pipeline closes first, so a get_next blocked in it lets go of the lock.
        self._current.close()
        pipeline = base.Pipeline(self.resources, self.device)
        pipeline.root = dataset
        with self._lock:
            self._current.close()
            self._current.pipeline = pipeline
            self.dataset, self.produced = None, 0
            try:
                self._current.iterator = dataset.iterate(pipeline)
            except BaseException:
                pipeline.close()
                self._current.pipeline = None
                raise
            self.dataset = dataset

    def _acquire(self, ctx: Any) -> None:
        """The iterator's lock (one get_next at a time), waited for no longer than the
        step may wait."""
        while not self._lock.acquire(timeout=_LOCK_POLL_SECS):
            ctx.time_left()  # raises once the step is cancelled or past its deadline

    def get_next(self, ctx: Any, specs: Sequence[base.LeafSpec]) -> list[Any]:
        self._acquire(ctx)
        try:
            iterator = self._current.iterator
            if iterator is None:
                raise errors.FailedPreconditionError(
                    None,
                    None,
                    "GetNext() failed because the iterator has not been initialized. Ensure "
                    "that you have run the initializer operation for this iterator before "
                    "getting the next element.",
                )
            self.produced += 1
            with base.StepScope(ctx):
                element = iterator.next()
            if element is None:
                self.produced -= 1
        finally:
            self._lock.release()
        if element is None:
            raise errors.OutOfRangeError(None, None, "End of sequence")
        base.check_element(element, specs, "GetNext")
        return base.element_tensors(element, specs)

    def close(self, cancel_pending_enqueues: bool = True) -> None:
        self._current.close()


def _iterator(value: Any, node_name: str) -> IteratorResource:
    if not isinstance(value, IteratorResource):
        raise errors.InvalidArgumentError(
            None, None, f"{node_name}: input 0 is not an iterator handle ({type(value).__name__})"
        )
    return value


def _make_resource(
    node: Any, ctx: Any, container: str, name: str, specs: list[base.LeafSpec]
) -> IteratorResource:
    def make() -> IteratorResource:
        return IteratorResource(container, name, specs, ctx.resources, node.device)

    it = ctx.resources.lookup_or_create(container, name, make)
    if not isinstance(it, IteratorResource):
        raise errors.InvalidArgumentError(
            None, None, f"Resource {container}/{name} exists and is not an iterator"
        )
    if [(s.dtype, s.kind) for s in it.specs] != [(s.dtype, s.kind) for s in specs]:
        raise errors.InvalidArgumentError(
            None,
            None,
            f"Shared iterator '{name}' has component types "
            f"{[s.dtype.name for s in it.specs]} but requested component types were "
            f"{[s.dtype.name for s in specs]}",
        )
    return it


class _PrivateName:
    """A name for an unshared iterator, dropped from the task's resources (and its pipeline
    stopped) when the kernel that owns it goes away with its session."""

    def __init__(self, node_name: str) -> None:
        self.name = f"_{next(_private_ids)}_{node_name}"
        self.created: tuple[ResourceMgr, str, Any] | None = None

    def remember(self, resources: ResourceMgr, container: str, resource: Any) -> None:
        if self.created is None:
            self.created = (resources, container, resource)
            weakref.finalize(self, resources.remove, container, self.name, resource)


def _resource_names(node: Any) -> tuple[str, str, _PrivateName | None]:
    container = node.attrs.get("container") or ""
    shared = node.attrs.get("shared_name") or ""
    if shared:
        return container, shared, None
    private = _PrivateName(node.name)
    return container, private.name, private


@kernel("IteratorV2", devices=CPU_ONLY)
def iterator_v2(node: Any, xp: Any) -> Any:
    specs = base.leaf_specs(node.attrs)
    container, name, private = _resource_names(node)

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        it = _make_resource(node, ctx, container, name, specs)
        if private is not None:
            private.remember(ctx.resources, container, it)
        return (it,)

    return compute


@kernel("OneShotIterator", devices=CPU_ONLY)
def one_shot_iterator(node: Any, xp: Any) -> Any:
    specs = base.leaf_specs(node.attrs)
    container, name, private = _resource_names(node)
    factory = base.DatasetFunction(
        node.attrs["dataset_factory"], f"{node.name} dataset_factory", node.device
    )
    # Per resource manager (and its generation: Session.reset drops the iterator), made and
    # initialised once.
    made: dict[tuple[int, int], IteratorResource] = {}
    lock = threading.Lock()

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        key = (id(ctx.resources), ctx.resources.generation)
        it = made.get(key)
        if it is not None:
            return (it,)
        with lock:
            it = made.get(key)
            if it is None:
                it = _make_resource(node, ctx, container, name, specs)
                pipeline = base.Pipeline(ctx.resources, node.device)
                try:
                    (dataset,) = factory.call_tensors(pipeline, [])
                finally:
                    pipeline.close()
                if not isinstance(dataset, base.Dataset):
                    raise errors.InvalidArgumentError(
                        None, None, f"{node.name}: dataset_factory did not return a dataset"
                    )
                it.initialize(dataset)
                if private is not None:
                    private.remember(ctx.resources, container, it)
                made[key] = it
        return (it,)

    return compute


@kernel("MakeIterator", devices=CPU_ONLY)
def make_iterator(node: Any, xp: Any) -> Any:
    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        dataset = ins[0]
        if not isinstance(dataset, base.Dataset):
            raise errors.InvalidArgumentError(
                None, None, f"{node.name}: input 0 is not a dataset ({type(dataset).__name__})"
            )
        _iterator(ins[1], node.name).initialize(dataset)
        return ()

    return compute


@kernel("IteratorGetNext", devices=CPU_ONLY)
def iterator_get_next(node: Any, xp: Any) -> Any:
    specs = base.leaf_specs(node.attrs)

    def compute(ctx: Any, ins: list[Any]) -> list[Any]:
        return _iterator(ins[0], node.name).get_next(ctx, specs)

    return compute


@kernel("IteratorToStringHandle", devices=CPU_ONLY)
def iterator_to_string_handle(node: Any, xp: Any) -> Any:
    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        it = _iterator(ins[0], node.name)
        text = "|".join((_task_token(it.resources), it.device, it.container, it.name))
        out = np.empty((), dtype=object)
        out[()] = _HANDLE_PREFIX + text.encode()
        return (out,)

    return compute


@kernel("IteratorFromStringHandleV2", devices=CPU_ONLY)
def iterator_from_string_handle(node: Any, xp: Any) -> Any:
    specs = base.leaf_specs(node.attrs)

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        raw = np.asarray(ins[0], dtype=object)
        if raw.shape != ():
            raise errors.InvalidArgumentError(
                None, None, f"string_handle must be a scalar, got shape {list(raw.shape)}"
            )
        handle = raw[()]
        if isinstance(handle, str):
            handle = handle.encode()
        if not isinstance(handle, bytes) or not handle.startswith(_HANDLE_PREFIX):
            raise errors.InvalidArgumentError(
                None, None, f"Could not parse an iterator string handle: {handle!r}"
            )
        parts = handle[len(_HANDLE_PREFIX) :].decode("utf-8", "replace").split("|")
        if len(parts) != 4:
            raise errors.InvalidArgumentError(
                None, None, f"Could not parse an iterator string handle: {handle!r}"
            )
        token, device, container, name = parts
        if token != _task_token(ctx.resources):
            where = device or "another task"
            raise errors.InvalidArgumentError(
                None,
                None,
                f"The iterator handle is for an iterator on {where}, not on this task: place "
                "the ops that use Iterator.from_string_handle(...) where the iterator is "
                "(tf.device).",
            )
        try:
            it = ctx.resources.lookup(container, name)
        except errors.NotFoundError:
            raise errors.NotFoundError(
                None, None, f"The iterator of handle {handle!r} does not exist (any more)"
            ) from None
        it = _iterator(it, node.name)
        if [(s.dtype, s.kind) for s in it.specs] != [(s.dtype, s.kind) for s in specs]:
            raise errors.InvalidArgumentError(
                None,
                None,
                f"Expected types {[s.dtype.name for s in specs]} but the iterator of the "
                f"handle has {[s.dtype.name for s in it.specs]}",
            )
        return (it,)

    return compute
