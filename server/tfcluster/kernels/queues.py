"""Queues kept in their task's ResourceMgr (FIFOQueue, RandomShuffleQueue, PaddingFIFOQueue,
PriorityQueue) and the kernels of the ops that use them.

A queue holds elements: tuples with one array per component. Enqueuers and dequeuers are
served in arrival order, as TF's QueueBase serves them: a plain close is itself an attempt
in the enqueue line, so it waits for the enqueues before it; close with
cancel_pending_enqueues fails those at once. A dequeue_many that must wait is woken once
all it asks for is there (or the queue is full, when it takes what there is and waits for
the rest): one wake-up per batch, where TF takes elements one by one as they come, with the
same result. An enqueue waiting for room is fed by the dequeue that makes it (TF's queue
runs its waiting attempts when it flushes its lines). Blocked kernels give up when their
step's deadline passes or it is cancelled.
"""

from __future__ import annotations

import collections
import heapq
import itertools
import math
import threading
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from tfcluster.framework import dtypes, errors
from tfcluster.framework.tensor_shape import TensorShape
from tfcluster.kernels import _philox
from tfcluster.kernels._philox_stream import PhiloxStream
from tfcluster.kernels.registry import CPU_ONLY, kernel
from tfcluster.kernels.resource_waits import ResourceName, shape_ok, shape_text, wait_until

Element = tuple[Any, ...]


def _invalid(message: str) -> errors.OpError:
    return errors.InvalidArgumentError(None, None, message)


class _Attempt:
    """One enqueue, close or dequeue waiting for its turn in a queue's line. An enqueue at
    the front of its line that found the queue open keeps the elements it has still to put
    in `pending` (started): whoever makes room puts them in."""

    __slots__ = ("cancelled", "pending", "started")

    def __init__(self, pending: Sequence[Element] = ()) -> None:
        self.cancelled = False
        self.pending: collections.deque[Element] = collections.deque(pending)
        self.started = False


class QueueResource:
    """The line discipline and checks every queue shares; subclasses keep the elements."""

    kind = "FIFOQueue"
    # Dequeue-many of components without a fully known shape: TF's message names the ops.
    many_needs_shapes = "DequeueMany and DequeueUpTo require"
    # Whether a waiting dequeue takes each element as soon as it may (under the lock of the
    # enqueue that brought it, TF's FlushUnlocked), instead of once its whole batch is there.
    # Only an order that depends on the queue's size at each take (RandomShuffleQueue's)
    # tells the two apart.
    takes_as_elements_come = False

    def __init__(
        self,
        name: str,
        component_types: Sequence[dtypes.DType],
        shapes: Sequence[TensorShape],
        capacity: int,
    ) -> None:
        self.name = name
        self.dtypes = list(component_types)
        self.np_dtypes = [np.dtype(d.as_numpy_dtype) for d in self.dtypes]
        self.shapes = list(shapes)
        self.capacity = capacity
        self.closed = False
        self._cond = threading.Condition()
        self._enqueuers: collections.deque[_Attempt] = collections.deque()
        self._dequeuers: collections.deque[_Attempt] = collections.deque()
        # The shapes as tuples when every one is fully known (the quick check of an element).
        self._fixed: list[tuple[int, ...]] | None = (
            [tuple(int(d or 0) for d in sh.as_list()) for sh in self.shapes]
            if self.shapes and all(sh.is_fully_defined() for sh in self.shapes)
            else None
        )
        # How many elements the dequeue at the front of its line waits for (0: none waits).
        # Enqueues wake it only once that many are there (or the queue is full): one wake-up
        # per batch, not one per element.
        self._need = 0
        # The batch the dequeue at the front of its line is filling, and its size, while it
        # waits (queues that take elements as they come).
        self._taker: tuple[list[Element], int] | None = None

    # ---- storage (subclasses) --------------------------------------------------------
    def __len__(self) -> int:
        raise NotImplementedError

    def _put(self, element: Element) -> None:
        raise NotImplementedError

    def _take(self) -> Element:
        raise NotImplementedError

    def _restore(self, taken: list[Element]) -> None:
        """Puts a partly dequeued batch back (the queue closed before it was complete)."""
        for element in taken:
            self._put(element)

    def _available(self) -> int:
        """How many elements a dequeue may take now."""
        return len(self)

    # ---- checks ------------------------------------------------------------------------
    @property
    def specified_shapes(self) -> bool:
        return bool(self.shapes)

    def matches(
        self, make: Any, types: Sequence[Any], shapes: Sequence[TensorShape], attrs: Any
    ) -> str:
        """Why this queue cannot serve a node sharing its name ('' if it can)."""
        kind = _KIND_OF.get(make, "")
        if kind and kind != self.kind:
            return f"Shared queue '{self.name}' is a {self.kind}, but a {kind} was requested"
        if self.dtypes != list(types):
            return (
                f"Shared queue '{self.name}' has component types "
                f"{', '.join(d.name for d in self.dtypes)} but requested component types were "
                f"{', '.join(d.name for d in types)}"
            )
        if [s.as_list() for s in self.shapes] != [s.as_list() for s in shapes]:
            return (
                f"Shared queue '{self.name}' has component shapes "
                f"{', '.join(shape_text(s) for s in self.shapes)} but requested component "
                f"shapes were {', '.join(shape_text(s) for s in shapes)}"
            )
        capacity = int(attrs.get("capacity", -1))
        if self.capacity != capacity:
            return (
                f"Shared queue '{self.name}' has capacity {self.capacity} but requested "
                f"capacity was {capacity}"
            )
        return ""

    def check_types(self, types: Sequence[Any]) -> None:
        if len(types) != len(self.dtypes) or list(types) != self.dtypes:
            have = ", ".join(["resource", *(d.name for d in types)])
            want = ", ".join(["resource", *(d.name for d in self.dtypes)])
            raise _invalid(f"Signature mismatch, have: {have} expected: {want}")

    def _component_fits(self, i: int, got: Sequence[int]) -> bool:
        return shape_ok(self.shapes[i], got)

    def _expected_text(self, i: int, batch: int | None) -> str:
        shape = self.shapes[i]
        return shape_text(TensorShape([batch]).concatenate(shape) if batch is not None else shape)

    def validate(self, values: Sequence[Any], many: bool) -> list[np.ndarray]:
        """The components as arrays, checked against the queue's shapes (TF's messages)."""
        if not many and self._fixed is not None and len(values) == len(self._fixed):
            arrays = [np.asarray(v) for v in values]
            if all(a.shape == f for a, f in zip(arrays, self._fixed)):
                return arrays  # one element of a queue with fully known shapes: all fit
        if len(values) != len(self.dtypes):
            raise _invalid(
                f"Wrong number of components in tuple. Expected {len(self.dtypes)}, got "
                f"{len(values)}"
            )
        arrays = [np.asarray(v) for v in values]
        if many:
            for i, a in enumerate(arrays):
                if a.ndim == 0:
                    raise _invalid(
                        f"Shape mismatch in tuple component {i}: EnqueueMany needs at least "
                        f"one dimension (the batch), got {shape_text(a.shape)}"
                    )
            batch = arrays[0].shape[0]
            for i, a in enumerate(arrays):
                if self.specified_shapes and (
                    a.shape[0] != batch or not self._component_fits(i, a.shape[1:])
                ):
                    raise _invalid(
                        f"Shape mismatch in tuple component {i}. Expected "
                        f"{self._expected_text(i, batch)}, got {shape_text(a.shape)}"
                    )
                if not self.specified_shapes and a.shape[0] != batch:
                    raise _invalid(
                        "All input tensors must have the same size in the 0th dimension. "
                        f"Component {i} has {a.shape[0]}, and should have {batch}"
                    )
        elif self.specified_shapes:
            for i, a in enumerate(arrays):
                if not self._component_fits(i, a.shape):
                    raise _invalid(
                        f"Shape mismatch in tuple component {i}. Expected "
                        f"{self._expected_text(i, None)}, got {shape_text(a.shape)}"
                    )
        return arrays

    def check_element(self, element: Element) -> None:
        """Subclass checks of one element before it is stored (PriorityQueue's priority)."""

    # ---- the lines -----------------------------------------------------------------------
    def _full(self) -> bool:
        return 0 <= self.capacity <= len(self)

    def _closed_error(self) -> errors.OpError:
        return errors.CancelledError(None, None, f"{self.kind} '{self.name}' is closed.")

    def _insufficient(self, requested: int, size: int) -> errors.OpError:
        return errors.OutOfRangeError(
            None,
            None,
            f"{self.kind} '{self.name}' is closed and has insufficient elements (requested "
            f"{requested}, current size {size})",
        )

    def _await_turn(self, line: collections.deque[_Attempt], attempt: _Attempt, ctx: Any) -> None:
        wait_until(self._cond, lambda: attempt.cancelled or line[0] is attempt, ctx)

    def _leave(self, line: collections.deque[_Attempt], attempt: _Attempt) -> None:
        if line and line[0] is attempt:
            line.popleft()
        elif attempt in line:
            line.remove(attempt)
        self._cond.notify_all()

    def enqueue(self, ctx: Any, elements: Sequence[Element]) -> None:
        for element in elements:
            self.check_element(element)
        with self._cond:
            if not self._enqueuers and not self.closed and self._room() >= len(elements):
                for element in elements:  # the common case: room now, nobody waiting
                    self._put(element)
                self._serve_taker()
                self._wake_dequeuer()
                return
            attempt = _Attempt(elements)
            self._enqueuers.append(attempt)
            try:
                self._await_turn(self._enqueuers, attempt, ctx)
                self._check_not_cancelled(attempt)
                if self.closed:
                    raise self._closed_error()
                attempt.started = True
                self._feed_enqueuer()
                wait_until(self._cond, lambda: attempt.cancelled or not attempt.pending, ctx)
                self._check_not_cancelled(attempt)
            except errors.CancelledError as e:
                raise _as_op_cancelled(e, "Enqueue") from None
            finally:
                self._leave(self._enqueuers, attempt)

    def _feed_enqueuer(self) -> None:
        """Puts the elements of the enqueue at the front of its line in while there is room,
        under the queue's lock, as TF's queue runs a waiting enqueue when a dequeue makes
        room: the dequeue's step (a size read right after it) sees the queue refilled."""
        front = self._enqueuers[0] if self._enqueuers else None
        if front is None or not front.started or front.cancelled or not front.pending:
            return
        moved = False
        while front.pending and not self._full():
            self._put(front.pending.popleft())
            moved = True
        if moved:
            self._cond.notify_all()
            self._serve_taker()

    def _serve_taker(self) -> None:
        """The waiting dequeue takes what it may of the elements just put in (TF's dequeue
        attempt, run after each enqueue); the room it makes lets a waiting enqueue go on."""
        if self._taker is None:
            return
        taken, n = self._taker
        k = min(n - len(taken), self._available())
        if k <= 0:
            return
        taken.extend(self._take() for _ in range(k))
        if len(taken) >= n or self._enqueuers:
            # The dequeue's batch is full, or room was made for a waiting enqueue; otherwise
            # nobody needs waking (one wake-up per batch, not one per element).
            self._cond.notify_all()
        self._feed_enqueuer()

    def _made_room(self) -> None:
        """After a dequeue took elements: the waiting enqueue fills the room, everyone waiting
        looks again."""
        self._feed_enqueuer()
        self._cond.notify_all()

    def _wake_dequeuer(self) -> None:
        if self._need and (self._available() >= self._need or self._full()):
            self._cond.notify_all()

    def _room(self) -> int:
        return len(self) + 1 if self.capacity < 0 else self.capacity - len(self)

    @staticmethod
    def _check_not_cancelled(attempt: _Attempt) -> None:
        if attempt.cancelled:
            raise errors.CancelledError(None, None, "Enqueue operation was cancelled")

    def close(self, cancel_pending_enqueues: bool = False, ctx: Any = None) -> None:
        """A plain close waits behind the enqueues already in line (TF's order); closing a
        closed queue that way is CancelledError. With cancel_pending_enqueues they fail now."""
        with self._cond:
            if cancel_pending_enqueues or ctx is None:
                self.closed = True
                for attempt in self._enqueuers:
                    attempt.cancelled = True
                self._enqueuers.clear()
                self._cond.notify_all()
                return
            attempt = _Attempt()
            self._enqueuers.append(attempt)
            try:
                self._await_turn(self._enqueuers, attempt, ctx)
                if attempt.cancelled or self.closed:
                    raise errors.CancelledError(
                        None, None, f"Queue '{self.name}' is already closed."
                    )
                self.closed = True
            finally:
                self._leave(self._enqueuers, attempt)

    def dequeue(self, ctx: Any, n: int, up_to: bool = False) -> list[Element]:
        """n elements (in the queue's order); up_to gives fewer, at least one, once closed."""
        with self._cond:
            if not self._dequeuers and self._available() >= n:
                taken = [self._take() for _ in range(n)]
                if self._enqueuers:
                    self._made_room()  # room for enqueues waiting
                return taken
            attempt = _Attempt()
            self._dequeuers.append(attempt)
            try:
                self._await_turn(self._dequeuers, attempt, ctx)
                return self._dequeue_in_turn(ctx, n, up_to)
            except errors.CancelledError as e:
                raise _as_op_cancelled(e, "Dequeue") from None
            finally:
                self._leave(self._dequeuers, attempt)

    def _dequeue_in_turn(self, ctx: Any, n: int, up_to: bool) -> list[Element]:
        taken: list[Element] = []
        while True:
            if self.closed and len(self) < n - len(taken):
                size, requested = len(self), n - len(taken)
                if taken:
                    self._restore(taken)
                    taken = []
                if up_to and len(self):
                    return [self._take() for _ in range(len(self))]
                if up_to and self._enqueuers:
                    # Enqueues still in line (a plain close came after them) may add some.
                    wait_until(self._cond, lambda: len(self) > 0 or not self._enqueuers, ctx)
                    continue
                raise self._insufficient(requested, size)
            k = min(n - len(taken), self._available())
            if k > 0:
                taken.extend(self._take() for _ in range(k))
                self._made_room()
            if len(taken) == n:
                return taken
            if self.takes_as_elements_come:
                self._wait_taking(ctx, taken, n)
            else:
                self._wait_for_elements(ctx, n - len(taken))

    def _wait_taking(self, ctx: Any, taken: list[Element], n: int) -> None:
        """Until enqueues have filled the batch (each taking into it as it comes), or the
        queue closed."""
        self._taker = (taken, n)
        try:
            wait_until(self._cond, lambda: len(taken) >= n or self.closed, ctx)
        finally:
            self._taker = None

    def _wait_for_elements(self, ctx: Any, need: int) -> None:
        """Until `need` elements can be taken, or the queue is full (a batch larger than
        the queue's room is taken as it comes, as TF's), or closed."""
        self._need = need
        try:
            wait_until(
                self._cond,
                lambda: self._available() >= need or self._full() or self.closed,
                ctx,
            )
        finally:
            self._need = 0

    def size(self) -> int:
        return len(self)

    # ---- batches -----------------------------------------------------------------------
    def check_many(self, what: str) -> None:
        if self._fixed is None:
            raise _invalid(
                f"{self.kind}'s {self.many_needs_shapes} the components to have specified shapes."
            )

    def batch(self, elements: list[Element]) -> tuple[Any, ...]:
        """The elements stacked along a new dimension 0, one array per component."""
        out = []
        for i, np_dtype in enumerate(self.np_dtypes):
            if not elements:
                dims = [d or 0 for d in self.shapes[i].as_list()] if self.shapes else []
                out.append(np.zeros([0, *dims], dtype=np_dtype))
            else:
                parts = [e[i] for e in elements]
                stacked = None
                if np_dtype.kind != "O" and self._fixed and math.prod(self._fixed[i]) >= _LARGE:
                    stacked = _stack_holding_the_gil(parts, self._fixed[i], np_dtype)
                out.append(np.stack(parts) if stacked is None else stacked)
        return tuple(out)


# Elements at least this large are stacked without numpy (see _stack_holding_the_gil).
_LARGE = 256


def _stack_holding_the_gil(parts: list[Any], shape: tuple[int, ...], dtype: np.dtype[Any]) -> Any:
    """np.stack of same-shaped numeric arrays, copied through a memoryview (None when one is
    not a contiguous array of the dtype). numpy lets go of the GIL to copy large arrays, and
    with QueueRunner threads busy the dequeuing thread then waits a switch interval (5 ms)
    to get it back, once per copy; a memoryview copies without letting go."""
    row = math.prod(shape) * dtype.itemsize
    buf = bytearray(row * len(parts))
    view = memoryview(buf)
    for k, p in enumerate(parts):
        if type(p) is not np.ndarray or p.dtype != dtype or not p.flags.c_contiguous:
            return None
        view[k * row : (k + 1) * row] = p.data.cast("B")
    return np.frombuffer(buf, dtype=dtype).reshape((len(parts), *shape))


class FIFOQueueResource(QueueResource):
    kind = "FIFOQueue"

    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        self._items: collections.deque[Element] = collections.deque()

    def __len__(self) -> int:
        return len(self._items)

    def _put(self, element: Element) -> None:
        self._items.append(element)

    def _take(self) -> Element:
        return self._items.popleft()

    def _restore(self, taken: list[Element]) -> None:
        self._items.extendleft(reversed(taken))  # back in front, in order


class PaddingFIFOQueueResource(FIFOQueueResource):
    """A FIFO queue whose shapes may have unknown dimensions: dequeue_many pads each
    component to the largest element of the batch (zeros, empty strings)."""

    kind = "PaddingFIFOQueue"

    def check_many(self, what: str) -> None:
        return None

    def batch(self, elements: list[Element]) -> tuple[Any, ...]:
        out = []
        for i, np_dtype in enumerate(self.np_dtypes):
            parts = [e[i] for e in elements]
            known = self.shapes[i].as_list()
            dims = [
                max((p.shape[j] for p in parts), default=0) if d is None else d
                for j, d in enumerate(known)
            ]
            if parts and all(p.shape == tuple(dims) for p in parts):
                out.append(np.stack(parts))
                continue
            fill = b"" if np_dtype.kind == "O" else 0
            batch = np.full([len(parts), *dims], fill, dtype=np_dtype)
            for row, p in enumerate(parts):
                region: tuple[Any, ...] = (row, *(slice(0, s) for s in p.shape))
                batch[region] = p
            out.append(batch)
        return tuple(out)


class RandomShuffleQueueResource(QueueResource):
    """Dequeues a uniformly random element; keeps at least min_after_dequeue elements until
    closed, so that what comes out is well mixed."""

    kind = "RandomShuffleQueue"
    takes_as_elements_come = True

    def __init__(self, *args: Any, min_after_dequeue: int, seed: int, seed2: int) -> None:
        super().__init__(*args)
        self.min_after_dequeue = min_after_dequeue
        self._items: list[Element] = []
        if seed == 0 and seed2 == 0:
            # Both unset: random seeds, as TF (random::New64 each).
            seed, seed2 = (int(v) for v in np.random.default_rng().integers(0, 2**63, 2))
        # TF's PhiloxRandom(seed, seed2) read one 32-bit word per dequeued element
        # (SingleSampleAdapter): the element at word % size comes out, the last one takes its
        # place. A seeded queue full to the same size hands elements out in TF's order.
        self._words = PhiloxStream(_philox.stateful_start(seed, seed2, 0))

    def __len__(self) -> int:
        return len(self._items)

    def _put(self, element: Element) -> None:
        self._items.append(element)

    def _take(self) -> Element:
        items = self._items
        i = int(self._words.words(1)[0]) % len(items)
        items[i], items[-1] = items[-1], items[i]
        return items.pop()

    def _restore(self, taken: list[Element]) -> None:
        """A partly taken batch goes back last taken first, as TF puts it back."""
        for element in reversed(taken):
            self._put(element)

    def _available(self) -> int:
        return len(self._items) if self.closed else len(self._items) - self.min_after_dequeue

    def matches(
        self, make: Any, types: Sequence[Any], shapes: Sequence[TensorShape], attrs: Any
    ) -> str:
        why = super().matches(make, types, shapes, attrs)
        wanted = int(attrs.get("min_after_dequeue", 0))
        if not why and wanted != self.min_after_dequeue:
            why = (
                f"Shared queue '{self.name}' has min_after_dequeue {self.min_after_dequeue} but "
                f"requested min_after_dequeue was {wanted}"
            )
        return why


class PriorityQueueResource(QueueResource):
    """Elements come out lowest priority (component 0, an int64 scalar) first; equal
    priorities in the order they came."""

    kind = "PriorityQueue"
    many_needs_shapes = "DequeueMany requires"

    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        self._heap: list[tuple[int, int, Element]] = []
        self._order = itertools.count()

    def __len__(self) -> int:
        return len(self._heap)

    def check_element(self, element: Element) -> None:
        priority = element[0]
        if np.ndim(priority) != 0:
            raise _invalid(
                "Expected the priority element to be a scalar, but received shape: "
                f"{shape_text(np.shape(priority))}"
            )

    def _put(self, element: Element) -> None:
        heapq.heappush(self._heap, (int(element[0]), next(self._order), element))

    def _take(self) -> Element:
        return heapq.heappop(self._heap)[2]

    def _dequeue_in_turn(self, ctx: Any, n: int, up_to: bool) -> list[Element]:
        """As TF's PriorityQueue: no smaller final batch (up_to waits for n like many); once
        closed and empty, the elements a dequeue took are lost with the OutOfRangeError."""
        taken: list[Element] = []
        while True:
            if self.closed and not self._heap:
                raise self._insufficient(n - len(taken), 0)
            k = min(n - len(taken), len(self._heap))
            if k > 0:
                taken.extend(self._take() for _ in range(k))
                self._made_room()
            if len(taken) == n:
                return taken
            self._wait_for_elements(ctx, n - len(taken))


# ---- kernels -------------------------------------------------------------------------------


def queue_of(value: Any, node_name: str) -> QueueResource:
    """The queue behind a handle (a handle picked by tf.QueueBase.from_list comes wrapped)."""
    if isinstance(value, np.ndarray) and value.dtype == object and value.ndim == 0:
        value = value.item()
    if not isinstance(value, QueueResource):
        raise _invalid(f"{node_name}: input 0 is not a queue handle ({type(value).__name__})")
    return value


def _queue_kernel(
    make: Callable[[str, list[Any], list[TensorShape], Any], QueueResource],
    prepend_priority: bool = False,
) -> Callable[[Any, Any], Any]:
    def factory(node: Any, xp: Any) -> Any:
        where = ResourceName(node)
        types = list(node.attrs["component_types"])
        shapes = [TensorShape(s) for s in node.attrs.get("shapes") or []]
        if prepend_priority:
            # The priority is component 0 of every element (TF's PriorityQueueOp adds it).
            types = [dtypes.int64, *types]
            shapes = [TensorShape([]), *shapes] if shapes else []
        if shapes and len(shapes) != len(types):
            raise _invalid(
                f"Queue {node.name} has {len(shapes)} shapes for {len(types)} components"
            )

        # The queue found last, and the ResourceMgr and generation it was found in: the
        # lookup and checks run again only when those change (Session.reset bumps it).
        found: list[Any] = [None, None, -1]

        def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
            resources = ctx.resources
            q, where_found, generation = found
            if where_found is resources and generation == resources.generation:
                return (q,)
            name = where.resolve(resources)
            q = resources.lookup_or_create(
                where.container, name, lambda: make(name, types, shapes, node.attrs)
            )
            if not isinstance(q, QueueResource):
                raise _invalid(f"Resource '{name}' is not a queue ({type(q).__name__})")
            why = q.matches(make, types, shapes, node.attrs)
            if why:
                raise _invalid(why)
            found[:] = [q, resources, resources.generation]
            return (q,)

        return compute

    return factory


def _fifo(name: str, types: list[Any], shapes: list[TensorShape], attrs: Any) -> QueueResource:
    return FIFOQueueResource(name, types, shapes, int(attrs.get("capacity", -1)))


def _padding(name: str, types: list[Any], shapes: list[TensorShape], attrs: Any) -> QueueResource:
    return PaddingFIFOQueueResource(name, types, shapes, int(attrs.get("capacity", -1)))


def _shuffle(name: str, types: list[Any], shapes: list[TensorShape], attrs: Any) -> QueueResource:
    return RandomShuffleQueueResource(
        name,
        types,
        shapes,
        int(attrs.get("capacity", -1)),
        min_after_dequeue=int(attrs.get("min_after_dequeue", 0)),
        seed=int(attrs.get("seed", 0)),
        seed2=int(attrs.get("seed2", 0)),
    )


def _priority(name: str, types: list[Any], shapes: list[TensorShape], attrs: Any) -> QueueResource:
    return PriorityQueueResource(name, types, shapes, int(attrs.get("capacity", -1)))


_KIND_OF: dict[Any, str] = {
    _fifo: FIFOQueueResource.kind,
    _padding: PaddingFIFOQueueResource.kind,
    _shuffle: RandomShuffleQueueResource.kind,
    _priority: PriorityQueueResource.kind,
}

# Each queue op and its first version (a string ref handle instead of a resource): one body.
for _suffix in ("V2", ""):
    kernel(f"FIFOQueue{_suffix}", devices=CPU_ONLY)(_queue_kernel(_fifo))
    kernel(f"PaddingFIFOQueue{_suffix}", devices=CPU_ONLY)(_queue_kernel(_padding))
    kernel(f"RandomShuffleQueue{_suffix}", devices=CPU_ONLY)(_queue_kernel(_shuffle))
    kernel(f"PriorityQueue{_suffix}", devices=CPU_ONLY)(
        _queue_kernel(_priority, prepend_priority=True)
    )


@kernel("FakeQueue", devices=CPU_ONLY)
def fake_queue(node: Any, xp: Any) -> Any:
    """A resource-handle queue handed on as a string ref handle (TF's FakeQueueOp)."""

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        return (queue_of(ins[0], node.name),)

    return compute


@kernel("QueueEnqueue", devices=CPU_ONLY)
@kernel("QueueEnqueueV2", devices=CPU_ONLY)
def queue_enqueue(node: Any, xp: Any) -> Any:
    types = list(node.attrs.get("Tcomponents") or [])
    checked: list[Any] = [None]  # the queue whose component types matched this node's

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        q = ins[0]
        if q is not checked[0]:
            q = queue_of(q, node.name)
            q.check_types(types)
            checked[0] = q
        q.enqueue(ctx, [tuple(q.validate(ins[1:], many=False))])
        return ()

    return compute


@kernel("QueueEnqueueMany", devices=CPU_ONLY)
@kernel("QueueEnqueueManyV2", devices=CPU_ONLY)
def queue_enqueue_many(node: Any, xp: Any) -> Any:
    types = list(node.attrs.get("Tcomponents") or [])

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        q = queue_of(ins[0], node.name)
        q.check_types(types)
        comps = q.validate(ins[1:], many=True)
        n = comps[0].shape[0] if comps else 0
        # c[i, ...] is a view, and a 0-d array for vectors (never a bare Python object).
        q.enqueue(ctx, [tuple(c[i, ...] for c in comps) for i in range(n)])
        return ()

    return compute


@kernel("QueueDequeue", devices=CPU_ONLY)
@kernel("QueueDequeueV2", devices=CPU_ONLY)
def queue_dequeue(node: Any, xp: Any) -> Any:
    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        (element,) = queue_of(ins[0], node.name).dequeue(ctx, 1)
        return tuple(np.asarray(c) for c in element)

    return compute


def _dequeue_many(node: Any, up_to: bool) -> Any:
    op = "DequeueUpToOp" if up_to else "DequeueManyOp"

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        q = queue_of(ins[0], node.name)
        n = int(np.asarray(ins[1]))
        if n < 0:
            raise _invalid(f"{op} requested {n} < 0 elements")
        q.check_many(op)
        if n == 0:
            return q.batch([])
        return q.batch(q.dequeue(ctx, n, up_to=up_to))

    return compute


@kernel("QueueDequeueMany", devices=CPU_ONLY)
@kernel("QueueDequeueManyV2", devices=CPU_ONLY)
def queue_dequeue_many(node: Any, xp: Any) -> Any:
    return _dequeue_many(node, up_to=False)


@kernel("QueueDequeueUpTo", devices=CPU_ONLY)
@kernel("QueueDequeueUpToV2", devices=CPU_ONLY)
def queue_dequeue_up_to(node: Any, xp: Any) -> Any:
    return _dequeue_many(node, up_to=True)


@kernel("QueueSize", devices=CPU_ONLY)
@kernel("QueueSizeV2", devices=CPU_ONLY)
def queue_size(node: Any, xp: Any) -> Any:
    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        return (np.int32(queue_of(ins[0], node.name).size()),)

    return compute


@kernel("QueueIsClosed", devices=CPU_ONLY)
@kernel("QueueIsClosedV2", devices=CPU_ONLY)
def queue_is_closed(node: Any, xp: Any) -> Any:
    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        return (np.bool_(queue_of(ins[0], node.name).closed),)

    return compute


@kernel("QueueClose", devices=CPU_ONLY)
@kernel("QueueCloseV2", devices=CPU_ONLY)
def queue_close(node: Any, xp: Any) -> Any:
    cancel = bool(node.attrs.get("cancel_pending_enqueues", False))

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        queue_of(ins[0], node.name).close(cancel, ctx)
        return ()

    return compute


def _as_op_cancelled(e: errors.OpError, what: str) -> errors.OpError:
    """A waiting enqueue's or dequeue's step cancelled (its session closed, a run timed out
    elsewhere) says so as TF's queue does through its cancellation callback; other
    cancellations keep their message."""
    if e.message.startswith("Step was"):
        return errors.CancelledError(None, None, f"{what} operation was cancelled")
    return e
