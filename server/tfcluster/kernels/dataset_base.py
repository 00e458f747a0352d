"""What the dataset kernels share: datasets as values, element iterators, the environment a
pipeline runs in, and the functions (map_func, predicate, ...) it calls.

A dataset op's kernel returns a `Dataset`: an immutable recipe that the iterator ops turn into
a chain of `ElementIterator`s, one per dataset in the pipeline. An element is a tuple of
leaves: an array (or a numpy scalar / bytes for a scalar), a `SparseValue`, or a `Dataset`
(window's elements). `next()` returns None at the end of the sequence; an error for one
element is raised from `next()` and the iterator goes on with the next element afterwards,
as TensorFlow's do (ignore_errors relies on it).

Everything an iterator starts (threads of prefetch, parallel map, interleave) belongs to its
`Pipeline`: closing it (re-initialising the iterator, Session.reset, the resource going away)
stops them. A thread blocked on a buffer gives up when the pipeline closes; the thread of a
step gives up when its step is cancelled or passes its deadline.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from tfcluster.framework import dtypes, errors, func_graph, op_def_registry
from tfcluster.framework.tensor_shape import TensorShape, as_shape
from tfcluster.kernels.functional import CallContext
from tfcluster.runtime.constant_folding import fold_function_body
from tfcluster.runtime.executor import Executor
from tfcluster.runtime.function_fusion import fuse_cast_into_scaling, mark_strings_for_decode_raw
from tfcluster.runtime.graph_ir import nodes_from_graph_def
from tfcluster.runtime.rendezvous import Rendezvous
from tfcluster.runtime.resources import ResourceMgr
from tfcluster.runtime.step_context import StepContext

Element = tuple[Any, ...]
INFINITE = -1
UNKNOWN = -2
# How often a blocked wait wakes up to look at cancellation, without a notify.
_POLL_SECS = 0.05

DENSE, SPARSE, DATASET = "dense", "sparse", "dataset"


class SparseValue:
    """A SparseTensor leaf of an element: indices [N, rank], values [N], dense_shape [rank]."""

    __slots__ = ("dense_shape", "indices", "values")

    def __init__(self, indices: Any, values: Any, dense_shape: Any) -> None:
        self.indices = np.asarray(indices, dtype=np.int64)
        self.values = values
        self.dense_shape = np.asarray(dense_shape, dtype=np.int64)


@dataclass(frozen=True)
class LeafSpec:
    """What one leaf of an element is: its kind, dtype and static shape."""

    kind: str
    dtype: dtypes.DType
    shape: TensorShape

    @property
    def num_tensors(self) -> int:
        return 3 if self.kind == SPARSE else 1

    @functools.cached_property
    def dense_check(self) -> tuple[np.dtype[Any], tuple[int | None, ...] | None] | None:
        """(numpy dtype, static dims or None for an unknown rank) that a dense leaf held as an
        ndarray has when it fits: check_element's quick test. None for other leaves."""
        if self.kind != DENSE:
            return None
        try:
            np_dtype = np.dtype(self.dtype.as_numpy_dtype)
        except TypeError:
            return None
        dims = tuple(self.shape.as_list()) if self.shape.ndims is not None else None
        return np_dtype, dims


def leaf_specs(attrs: dict[str, Any], prefix: str = "output") -> list[LeafSpec]:
    """The leaves an op declares (output_types / output_shapes / output_sparse). Ops whose
    types TF infers from their inputs (TensorSliceDataset, TensorDataset, PaddedBatchDatasetV2)
    name that attr Toutput_types in TF's op def: a node from tf.raw_ops or a TF GraphDef
    has only that one."""
    types = list(attrs.get(f"{prefix}_types") or attrs.get(f"T{prefix}_types") or [])
    shapes = list(attrs.get(f"{prefix}_shapes") or [])
    if len(shapes) != len(types):
        shapes = [None] * len(types)
    sparse_at = set(attrs.get(f"{prefix}_sparse") or ())
    out = []
    for i, (dt, shape) in enumerate(zip(types, shapes)):
        kind = SPARSE if i in sparse_at else (DATASET if dt == dtypes.variant else DENSE)
        out.append(LeafSpec(kind, dt, as_shape(shape)))
    return out


# ---- values --------------------------------------------------------------------------------
def as_array(value: Any, dtype: dtypes.DType | None = None) -> Any:
    """A dense leaf as an ndarray (scalars kept as numpy scalars / bytes become 0-d arrays)."""
    if isinstance(value, np.ndarray):
        return value
    if isinstance(value, (bytes, str)):
        arr = np.empty((), dtype=object)
        arr[()] = value.encode() if isinstance(value, str) else value
        return arr
    if dtype is not None and dtype != dtypes.string:
        return np.asarray(value, dtype=dtype.as_numpy_dtype)
    return np.asarray(value)


def shape_of(value: Any) -> tuple[int, ...]:
    if isinstance(value, np.ndarray):
        return value.shape
    if isinstance(value, SparseValue):
        return tuple(int(d) for d in value.dense_shape)
    return ()


def stack(values: Sequence[Any], dtype: dtypes.DType, what: str = "component 0") -> np.ndarray:
    """Dense leaves of one component stacked along a new first dimension."""
    n = len(values)
    first = values[0]
    if dtype == dtypes.string and (not isinstance(first, np.ndarray) or first.ndim == 0):
        out = np.empty(n, dtype=object)
        if any(issubclass(t, np.ndarray) for t in set(map(type, values))):
            values = [v[()] if isinstance(v, np.ndarray) else v for v in values]
        out[:] = values
        return out
    # One np.array call stacks equal shapes; only a refusal or an unexpected result shape (a
    # leaf that is not an array) pays for the per-element shape check below.
    stacked: np.ndarray | None
    try:
        stacked = np.array(values)
    except ValueError:
        stacked = None
    if stacked is None or stacked.shape != (n, *shape_of(first)) or stacked.dtype == object:
        stacked = _stack_checked(values, first, what)
    want = dtype.as_numpy_dtype
    if want is not object and stacked.dtype != want:
        stacked = stacked.astype(want)
    return stacked


def _stack_checked(values: Sequence[Any], first: Any, what: str) -> np.ndarray:
    """np.stack after checking every element has the first one's shape (TF's error if not)."""
    shapes = {shape_of(v) for v in values}
    if len(shapes) > 1:
        first_shape = shape_of(first)
        for i, v in enumerate(values):
            if shape_of(v) != first_shape:
                raise errors.InvalidArgumentError(
                    None,
                    None,
                    f"Cannot batch tensors with different shapes in {what}. First element had "
                    f"shape {list(first_shape)} and element {i} had shape {list(shape_of(v))}.",
                )
    return np.stack(values)


def stack_variants(values: Sequence[np.ndarray], what: str) -> np.ndarray:
    """Variant leaves (object arrays, e.g. boxed SparseTensors) stacked along a new first
    dimension (np.stack does not look into the objects), after the shape check of dense
    leaves."""
    return _stack_checked(values, values[0], what)


def batch_elements_dense(elements: Sequence[Element], specs: Sequence[LeafSpec]) -> Element:
    """Elements of dense leaves stacked, one array per leaf."""
    return tuple(
        stack([e[j] for e in elements], spec.dtype, f"component {j}")
        for j, spec in enumerate(specs)
    )


def leaf_tensors(leaf: Any, spec: LeafSpec) -> list[Any]:
    """The graph tensors of one leaf (three for a sparse one)."""
    if spec.kind == SPARSE:
        if not isinstance(leaf, SparseValue):
            raise errors.InvalidArgumentError(
                None, None, f"Expected a SparseTensor component, got {type(leaf).__name__}"
            )
        return [leaf.indices, as_array(leaf.values, spec.dtype), leaf.dense_shape]
    if spec.kind == DATASET:
        return [leaf]
    return [as_array(leaf, spec.dtype)]


def element_tensors(element: Element, specs: Sequence[LeafSpec]) -> list[Any]:
    out: list[Any] = []
    for leaf, spec in zip(element, specs):
        out += leaf_tensors(leaf, spec)
    return out


def element_from_tensors(values: Sequence[Any], specs: Sequence[LeafSpec]) -> Element:
    """The leaves of an element from its graph tensors (a function's results)."""
    out: list[Any] = []
    i = 0
    for spec in specs:
        if spec.kind == SPARSE:
            out.append(SparseValue(values[i], values[i + 1], values[i + 2]))
            i += 3
        else:
            out.append(values[i])
            i += 1
    return tuple(out)


def _fits(leaf: Any, spec: LeafSpec) -> bool:
    """Whether a dense leaf is an ndarray of the spec's dtype and static shape (one quick
    test per leaf; anything else goes through check_element's full checks)."""
    check = spec.dense_check
    if check is None or type(leaf) is not np.ndarray or leaf.dtype != check[0]:
        return False
    dims = check[1]
    if dims is None:
        return True
    shape = leaf.shape
    return len(shape) == len(dims) and all(w is None or w == d for w, d in zip(dims, shape))


def check_element(element: Element, specs: Sequence[LeafSpec], where: str) -> None:
    """InvalidArgument when an element does not fit the declared leaves."""
    if len(element) == len(specs) and all(map(_fits, element, specs)):
        return
    if len(element) != len(specs):
        raise errors.InvalidArgumentError(
            None,
            None,
            f"{where}: number of components does not match: expected {len(specs)} types but "
            f"got {len(element)}.",
        )
    for i, (leaf, spec) in enumerate(zip(element, specs)):
        if spec.kind == DATASET:
            continue
        values = leaf.values if isinstance(leaf, SparseValue) else leaf
        got = _dtype_of(values)
        if got is not None and got != spec.dtype:
            raise errors.InvalidArgumentError(
                None,
                None,
                f"{where}: data type mismatch at component {i}: expected {spec.dtype.name} but "
                f"got {got.name}.",
            )
        if spec.shape.ndims is not None:
            shape = shape_of(leaf)
            want = spec.shape.as_list()
            if len(shape) != len(want) or any(
                w is not None and w != d for w, d in zip(want, shape)
            ):
                raise errors.InvalidArgumentError(
                    None,
                    None,
                    f"{where}: incompatible shapes at component {i}: expected "
                    f"{_shape_text(want)} but got {list(shape)}.",
                )


def _dtype_of(value: Any) -> dtypes.DType | None:
    if isinstance(value, (bytes, str)):
        return dtypes.string
    dt = getattr(value, "dtype", None)
    if dt is None:
        return None
    try:
        return dtypes.as_dtype(dt)
    except TypeError:
        return None


def _shape_text(dims: Sequence[int | None]) -> str:
    return "[" + ",".join("?" if d is None else str(d) for d in dims) + "]"


def scalar_int(value: Any, what: str) -> int:
    arr = np.asarray(value)
    if arr.shape != ():
        raise errors.InvalidArgumentError(
            None, None, f"{what} must be a scalar, got shape {list(arr.shape)}"
        )
    return int(arr)


# ---- datasets and their iterators ----------------------------------------------------------
class Dataset:
    """A dataset's value: made by its op's kernel, turned into iterators by the iterator ops."""

    def __init__(self, specs: Sequence[LeafSpec]) -> None:
        self.specs = list(specs)

    def iterate(self, pipeline: Pipeline) -> ElementIterator:
        raise NotImplementedError

    def cardinality(self) -> int:
        return UNKNOWN

    def with_input(self, data: Dataset) -> Dataset | None:
        """For a dataset that only picks and orders its input's elements without looking at
        them (shuffle, repeat, take, ...): the same over `data` instead. A map before it can
        then run after it, as one batched call (see dataset_batching). None for others."""
        return None

    def is_noop(self) -> bool:
        """Whether TF 1.15's noop_elimination drops it (take(-1), skip(0), repeat(1),
        prefetch(0)): what it leaves can then fuse (shuffle_and_repeat_fusion)."""
        return False


class ElementIterator:
    """Yields a dataset's elements in order; None at the end."""

    # Whether its elements do not depend on when they are pulled (a file reader's records):
    # a consumer may then pull them ahead of their turn, with read_ahead.
    reads_ahead_freely = False

    def read_ahead(self, n: int) -> tuple[list[Element], errors.OpError | None]:
        """Up to n elements, and the error met after them (None at the end or when there
        was none): the caller raises it when its turn comes."""
        raise NotImplementedError

    def next(self) -> Element | None:
        raise NotImplementedError

    def next_ready(self) -> Element | None:
        """The next element when it is already computed and held here (so taking it reads
        and computes nothing), else None; what next() would have given, in its order. A
        prefetch takes a batched map's finished batches with it in one hand-over."""
        return None

    def next_many(self, n: int) -> list[Element]:
        """Up to n elements; fewer only at the end. An error drops the elements gathered
        before it, as TF's batching does."""
        out: list[Element] = []
        while len(out) < n:
            item = self.next()
            if item is None:
                break
            out.append(item)
        return out

    def close(self) -> None:
        """Releases what the iterator holds (files, threads of its inputs)."""


class Pipeline:
    """One iterator's pipeline: the task's resources, the context its functions run in, and
    the threads it started. Closing it stops them."""

    def __init__(self, resources: ResourceMgr, device: str) -> None:
        self.resources = resources
        self.device = device
        self.call_context = StepContext(0, resources, Rendezvous())
        # The dataset an iterator reads (set by the iterator ops): assert_next looks at the
        # transformations between it and this one.
        self.root: Dataset | None = None
        # The static optimizations an OptimizeDataset of the pipeline names (TF 1.15 applies
        # them when an iterator is made with the dataset's options; make_initializer does
        # not): shuffle_and_repeat_fusion changes the order a shuffle().repeat() gives.
        self.static_optimizations: frozenset[str] = frozenset()
        self._closed = threading.Event()
        self._threads: list[threading.Thread] = []
        self._lock = threading.Lock()

    @property
    def closed(self) -> bool:
        return self._closed.is_set()

    def check_open(self) -> None:
        if self._closed.is_set():
            raise errors.CancelledError(None, None, "The iterator was closed or reinitialized")

    def start_thread(self, target: Callable[[], None], name: str) -> threading.Thread:
        with self._lock:
            self.check_open()
            t = threading.Thread(target=target, name=f"tfcluster-data-{name}", daemon=True)
            self._threads.append(t)
        t.start()
        return t

    def wait(self, cond: threading.Condition, ready: Callable[[], bool]) -> None:
        """Waits (holding `cond`) until ready(); raises once the pipeline closes or, in the
        thread of a step, when that step is cancelled or past its deadline."""
        step = current_step()
        while not ready():
            self.check_open()
            left = step.time_left() if step is not None else None
            cond.wait(_POLL_SECS if left is None else min(_POLL_SECS, left))

    def close(self) -> None:
        self._closed.set()
        self.call_context.cancelled.set()


# The step whose get_next is pulling elements in this thread (None in pipeline threads).
_current = threading.local()


def current_step() -> StepContext | None:
    return getattr(_current, "step", None)


class StepScope:
    """Marks the thread as pulling elements for `ctx` (blocking waits honour its deadline)."""

    __slots__ = ("_ctx", "_previous")

    def __init__(self, ctx: StepContext | None) -> None:
        self._ctx = ctx
        self._previous: StepContext | None = None

    def __enter__(self) -> None:
        self._previous = current_step()
        _current.step = self._ctx

    def __exit__(self, *exc: object) -> None:
        _current.step = self._previous


# ---- functions -----------------------------------------------------------------------------
class DatasetFunction:
    """A function attr (map_func, predicate, ...) bound once: call it with an element's
    leaves and the captured values; get its results as leaves."""

    def __init__(
        self,
        func: Any,
        what: str,
        device: str,
        in_specs: Sequence[LeafSpec] = (),
        out_specs: Sequence[LeafSpec] | None = None,
    ) -> None:
        try:
            body = func_graph.parse_function(func, what)
        except ValueError as e:
            raise errors.InvalidArgumentError(None, None, str(e)) from None
        nodes = nodes_from_graph_def(body.graph_def)
        for n in nodes:
            n.device = ""
        # Constants folded and divisions by them made products, as TF's optimizers make a
        # dataset function (`x / 255.` is x * (1 / 255.) there).
        nodes = fold_function_body(nodes, {})
        nodes = fuse_cast_into_scaling(nodes, body.results)
        nodes = mark_strings_for_decode_raw(nodes, body.results)
        targets = [
            n.name
            for n in nodes
            if n.op not in func_graph.ARG_OPS
            and (op_def := op_def_registry.lookup(n.op)) is not None
            and op_def.stateful
        ]
        self.what = what
        # Random and other stateful ops: results depend on the calls, not the elements alone.
        self.stateful = bool(targets)
        self.in_specs = list(in_specs)
        self.num_args = len(body.args)
        self.result_dtypes = body.result_dtypes
        self.out_specs = (
            list(out_specs)
            if out_specs is not None
            else [
                LeafSpec(DATASET if dt == dtypes.variant else DENSE, dt, TensorShape(None))
                for dt in body.result_dtypes
            ]
        )
        self._cache: dict[str, Any] = {}
        self._executor = Executor(
            nodes, [], body.results, targets, kernel_cache=self._cache, default_device=device
        )

    def call_tensors(self, pipeline: Pipeline, args: Sequence[Any]) -> list[Any]:
        if len(args) != self.num_args:
            raise errors.InvalidArgumentError(
                None, None, f"{self.what} takes {self.num_args} arguments, got {len(args)}"
            )
        # In a step's thread the function's blocking ops honour that step's deadline and
        # cancellation; in the pipeline's own threads, the pipeline's closing.
        parent = current_step() or pipeline.call_context
        return self._executor.run(CallContext(parent, args), ())

    def __call__(self, pipeline: Pipeline, element: Element, captured: Sequence[Any]) -> Element:
        args = element_tensors(element, self.in_specs) if self.in_specs else list(element)
        results = self.call_tensors(pipeline, [*args, *captured])
        return element_from_tensors(results, self.out_specs)


def function_specs(attrs: dict[str, Any], prefix: str = "output") -> list[LeafSpec]:
    return leaf_specs(attrs, prefix)


__all__ = [
    "DATASET",
    "DENSE",
    "INFINITE",
    "SPARSE",
    "UNKNOWN",
    "Dataset",
    "DatasetFunction",
    "Element",
    "ElementIterator",
    "LeafSpec",
    "Pipeline",
    "SparseValue",
    "StepScope",
    "as_array",
    "check_element",
    "current_step",
    "element_from_tensors",
    "element_tensors",
    "leaf_specs",
    "scalar_int",
    "stack",
]
