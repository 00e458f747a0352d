"""Queue-based input pipelines (TF1's training/input.py): producers that fill a queue with
file names, indices or slices in QueueRunner threads, and batching functions that gather
elements into a queue and dequeue them in batches.

Every queue comes with a QueueRunner in the graph's QUEUE_RUNNERS collection (started by
tf.train.start_queue_runners or a MonitoredSession) and a `fraction_of_N_full` summary.
`num_epochs` counts through a local variable (tf.local_variables_initializer() must run):
once it is reached the producer's queue closes, and the batch dequeue raises
OutOfRangeError when what is left runs out, which ends a Coordinator's loop cleanly.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from tfcluster.framework import dtypes, internal_deprecations, tensor_util
from tfcluster.framework.graph import (
    GraphKeys,
    Operation,
    Tensor,
    control_dependencies,
    convert_to_tensor,
    name_scope,
)
from tfcluster.framework.sparse_tensor import SparseTensor
from tfcluster.framework.tensor_shape import Dimension, as_shape
from tfcluster.ops import (
    array_ops,
    control_flow_ops,
    data_flow_ops,
    logging_ops,
    math_ops,
    partition_ops,
    random_ops,
    reader_ops,
    sparse_ops,
    sparse_tensors_map_ops,
    summary_ops,
)
from tfcluster.ops.constant_op import constant
from tfcluster.ops.variables import Variable
from tfcluster.training import queue_runner

# ---- producers ------------------------------------------------------------------------------


def match_filenames_once(pattern: Any, name: str | None = None) -> Variable:
    """A local variable holding the files that match `pattern` (a glob, or a vector of
    them), computed once, when local variables are initialized; sorted."""
    with name_scope(name, "matching_filenames", [pattern]) as scope:
        return Variable(
            name=scope,
            initial_value=reader_ops.matching_files(pattern),
            trainable=False,
            validate_shape=False,
            collections=[GraphKeys.LOCAL_VARIABLES],
        )


def limit_epochs(tensor: Any, num_epochs: int | None = None, name: str | None = None) -> Tensor:
    """`tensor`, num_epochs times; after that, evaluating it raises OutOfRangeError. The count
    is a local variable `epochs` (initialize local variables)."""
    internal_deprecations.called_internally(internal_deprecations.LIMIT_EPOCHS, 2)
    if num_epochs is None:
        return tensor  # type: ignore[no-any-return]
    if num_epochs <= 0:
        raise ValueError(f"num_epochs must be > 0 not {num_epochs}.")
    with name_scope(name, "limit_epochs", [tensor]) as scope:
        zero64 = constant(0, dtype=dtypes.int64)
        epochs = Variable(
            zero64, name="epochs", trainable=False, collections=[GraphKeys.LOCAL_VARIABLES]
        )
        counter = epochs.count_up_to(num_epochs)
        with control_dependencies([counter]):
            return array_ops.identity(tensor, name=scope)


def input_producer(
    input_tensor: Any,
    element_shape: Any = None,
    num_epochs: int | None = None,
    shuffle: bool = True,
    seed: int | None = None,
    capacity: int = 32,
    shared_name: str | None = None,
    summary_name: str | None = None,
    name: str | None = None,
    cancel_op: Any = None,
) -> data_flow_ops.FIFOQueue:
    """A queue that a QueueRunner fills with the rows of input_tensor, each epoch (shuffled
    unless shuffle=False), num_epochs times or forever."""
    internal_deprecations.called_internally(internal_deprecations.INPUT_PRODUCER, 2)
    with name_scope(name, "input_producer", [input_tensor]):
        input_tensor = convert_to_tensor(input_tensor, name="input_tensor")
        element_shape = input_tensor.shape[1:].merge_with(as_shape(element_shape))
        if not element_shape.is_fully_defined():
            raise ValueError(
                "Either `input_tensor` must have a fully defined shape or `element_shape` "
                "must be specified"
            )
        if shuffle:
            input_tensor = random_ops.random_shuffle(input_tensor, seed=seed)
        input_tensor = limit_epochs(input_tensor, num_epochs)
        q = data_flow_ops.FIFOQueue(
            capacity=capacity,
            dtypes=[input_tensor.dtype.base_dtype],
            shapes=[element_shape],
            shared_name=shared_name,
            name=name,  # type: ignore[arg-type]
        )
        enq = q.enqueue_many([input_tensor])
        queue_runner.add_queue_runner(queue_runner.QueueRunner(q, [enq], cancel_op=cancel_op))
        if summary_name is not None:
            summary_ops.scalar(
                summary_name, math_ops.cast(q.size(), dtypes.float32) * (1.0 / capacity)
            )
        return q


def string_input_producer(
    string_tensor: Any,
    num_epochs: int | None = None,
    shuffle: bool = True,
    seed: int | None = None,
    capacity: int = 32,
    shared_name: str | None = None,
    name: str | None = None,
    cancel_op: Any = None,
) -> data_flow_ops.FIFOQueue:
    """A queue of the strings (file names) of string_tensor, for a reader to take from."""
    not_null_err = "string_input_producer requires a non-null input tensor"
    tensor_like = isinstance(string_tensor, Tensor) or hasattr(string_tensor, "_as_graph_element")
    if not tensor_like and not _non_empty(string_tensor):
        raise ValueError(not_null_err)
    with name_scope(name, "input_producer", [string_tensor]) as scope:
        string_tensor = convert_to_tensor(string_tensor, dtype=dtypes.string)
        # An empty list of files (e.g. a glob that matched nothing) fails when the queue fills.
        check = logging_ops.Assert(
            math_ops.greater(array_ops.size(string_tensor), 0), [not_null_err]
        )
        with control_dependencies([check]):
            string_tensor = array_ops.identity(string_tensor)
        return input_producer(
            input_tensor=string_tensor,
            element_shape=[],
            num_epochs=num_epochs,
            shuffle=shuffle,
            seed=seed,
            capacity=capacity,
            shared_name=shared_name,
            name=scope,
            summary_name=f"fraction_of_{capacity}_full",
            cancel_op=cancel_op,
        )


def _non_empty(value: Any) -> bool:
    try:
        return len(value) > 0
    except TypeError:
        return bool(value)


def range_input_producer(
    limit: Any,
    num_epochs: int | None = None,
    shuffle: bool = True,
    seed: int | None = None,
    capacity: int = 32,
    shared_name: str | None = None,
    name: str | None = None,
) -> data_flow_ops.FIFOQueue:
    """A queue of the integers 0 .. limit-1, each epoch."""
    internal_deprecations.called_internally(internal_deprecations.RANGE_INPUT_PRODUCER, 2)
    with name_scope(name, "input_producer", [limit]) as scope:
        range_tensor = math_ops.range(limit)
        return input_producer(
            range_tensor,
            [],
            num_epochs,
            shuffle,
            seed,
            capacity,
            shared_name,
            f"fraction_of_{capacity}_full",
            scope,
        )


def slice_input_producer(
    tensor_list: Sequence[Any],
    num_epochs: int | None = None,
    shuffle: bool = True,
    seed: int | None = None,
    capacity: int = 32,
    shared_name: str | None = None,
    name: str | None = None,
) -> list[Tensor]:
    """One slice (row i) of every tensor of tensor_list per evaluation, i running over the
    rows each epoch (shuffled unless shuffle=False)."""
    with name_scope(name, "input_producer", list(tensor_list)):
        tensors = [convert_to_tensor(t) for t in tensor_list]
        if not tensors:
            raise ValueError("Expected at least one tensor in slice_input_producer().")
        range_size = array_ops.shape(tensors[0])[0]
        queue = range_input_producer(
            range_size,
            num_epochs=num_epochs,
            shuffle=shuffle,
            seed=seed,
            capacity=capacity,
            shared_name=shared_name,
        )
        index = queue.dequeue()
        return [array_ops.gather(t, index) for t in tensors]


# ---- batching: what the queue holds -----------------------------------------------------------


class _SparseMetaData:
    """Whether a component is a SparseTensor (stored in a map, its handle queued), the op of
    that map, and its rank."""

    def __init__(self, sparse: bool, map_op: Operation | None, rank: Any) -> None:
        self.sparse = sparse
        self.map_op = map_op
        self.rank = rank if isinstance(rank, Dimension) else Dimension(rank)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, _SparseMetaData) or self.sparse != other.sparse:
            return False
        if not self.sparse:
            return True
        return self.map_op is other.map_op and self.rank.is_compatible_with(other.rank)

    def __hash__(self) -> int:
        return hash((self.sparse, id(self.map_op)))

    def __str__(self) -> str:
        name = self.map_op.name if self.map_op is not None else None
        return f"[SparseMetaData({self.sparse}, {name}, {self.rank})]"

    def merge_with(self, other: _SparseMetaData) -> _SparseMetaData:
        if self != other:
            raise ValueError(f"SparseMetaData objects are incompatible: {self} vs. {other}")
        if self.sparse:
            self.rank = self.rank.merge_with(other.rank)
        return self


def _smart_cond(pred: Any, true_fn: Callable[[], Any], false_fn: Callable[[], Any]) -> Any:
    """The branch itself when pred is known while building the graph, else tf.cond."""
    value = pred if isinstance(pred, bool) else tensor_util.constant_value(pred)
    if value is not None:
        return true_fn() if bool(value) else false_fn()
    return control_flow_ops.cond(pred, true_fn, false_fn)


def _sparse_retain(t: SparseTensor, keep: Tensor) -> SparseTensor:
    return sparse_ops.sparse_retain(t, keep)


def _store_sparse_tensors(
    tensor_list: Sequence[Any],
    enqueue_many: bool,
    keep_input: Tensor,
    shared_map_ops: Sequence[Operation | None] | None = None,
) -> tuple[list[Any], list[_SparseMetaData]]:
    """SparseTensors stored in a SparseTensorsMap, their handles (expanded to [1] per
    element) queued in their place; dense tensors unchanged."""
    shared = list(shared_map_ops or [None] * len(tensor_list))
    stored: list[Any] = []
    infos: list[_SparseMetaData] = []
    for t, shared_op in zip(tensor_list, shared):
        if not isinstance(t, SparseTensor):
            stored.append(t)
            infos.append(_SparseMetaData(False, None, None))
            continue
        rank = t.dense_shape.shape.with_rank(1).as_list()[0]
        if enqueue_many and rank is not None:
            rank -= 1
        map_name = shared_op.name if shared_op is not None else None
        if keep_input.shape.ndims == 1:
            keep = array_ops.gather(keep_input, t.indices[:, 0])
            handles = sparse_tensors_map_ops.add_many_sparse_to_tensors_map(
                _sparse_retain(t, keep), shared_name=map_name
            )
        elif enqueue_many:
            handles = _smart_cond(
                keep_input,
                functools.partial(_store_many, t, map_name),
                functools.partial(_no_handles, t),
            )
            handles.set_shape([None])
        else:
            handles = _smart_cond(
                keep_input,
                functools.partial(_store_one, t, map_name),
                functools.partial(constant, -1, dtypes.int64),
            )
        map_op = shared_op or _map_op_of(handles)
        infos.append(_SparseMetaData(True, map_op, rank))
        stored.append(array_ops.expand_dims(handles, [-1]))
    return stored, infos


def _store_one(t: SparseTensor, map_name: str | None) -> Tensor:
    return sparse_tensors_map_ops.add_sparse_to_tensors_map(t, shared_name=map_name)


def _store_many(t: SparseTensor, map_name: str | None) -> Tensor:
    return sparse_tensors_map_ops.add_many_sparse_to_tensors_map(t, shared_name=map_name)


def _no_handles(t: SparseTensor) -> Tensor:
    """-1 for each row: what a batch not kept stores."""
    return -1 * array_ops.ones(array_ops.shape(t.indices)[0:1], dtypes.int64)


def _map_op_of(handles: Tensor) -> Operation:
    """The Add*SparseToTensorsMap op behind `handles` (directly, or inside a cond's branch,
    where the map is named after the branch's op)."""
    if handles.op.type in ("AddSparseToTensorsMap", "AddManySparseToTensorsMap"):
        return handles.op
    raise ValueError(
        "SparseTensor inputs to batching with a keep_input known only when the step runs are "
        "not supported by tfcluster (the map op would live inside a tf.cond branch)"
    )


def _store_sparse_tensors_join(
    tensor_list_list: Sequence[Sequence[Any]], enqueue_many: bool, keep_input: Tensor
) -> tuple[list[list[Any]], list[_SparseMetaData]]:
    s0, infos = _store_sparse_tensors(tensor_list_list[0], enqueue_many, keep_input)
    stored = [s0]
    for tensor_list in tensor_list_list[1:]:
        s, candidate = _store_sparse_tensors(
            tensor_list, enqueue_many, keep_input, [i.map_op for i in infos]
        )
        if infos != candidate:
            raise ValueError(
                f"Inconsistent SparseTensors list: {tensor_list_list[0]} vs. {tensor_list}"
            )
        infos = [i.merge_with(c) for i, c in zip(infos, candidate)]
        stored.append(s)
    return stored, infos


def _restore_sparse_tensors(stored: Any, infos: list[_SparseMetaData]) -> Any:
    is_list = isinstance(stored, (list, tuple))
    items = list(stored) if is_list else [stored]
    tensors: list[Any] = []
    for s, info in zip(items, infos):
        if not info.sparse:
            tensors.append(s)
            continue
        assert info.map_op is not None
        rank = info.rank.value + 1 if info.rank.value is not None else None
        tensors.append(
            sparse_tensors_map_ops.take_many_sparse_from_tensors_map(
                info.map_op, array_ops.squeeze(s, [1]), rank=rank
            )
        )
    if any(isinstance(x, SparseTensor) for x in tensors):
        # Every output waits for all the values, so that one fetch does not take sparse
        # tensors out of the map that another fetch of the same step needs.
        values = [x.values if isinstance(x, SparseTensor) else x for x in tensors]

        def with_deps(x: Tensor) -> Tensor:
            return control_flow_ops.with_dependencies(values, x)

        tensors = [
            SparseTensor(with_deps(x.indices), with_deps(x.values), with_deps(x.dense_shape))
            if isinstance(x, SparseTensor)
            else with_deps(x)
            for x in tensors
        ]
    return tensors if is_list else tensors[0]


def _as_tensor_list(tensors: Any) -> list[Any]:
    if isinstance(tensors, Mapping):
        return [tensors[k] for k in sorted(tensors, key=str)]
    return list(tensors) if isinstance(tensors, (list, tuple)) else [tensors]


def _as_tensor_list_list(tensors_list: Sequence[Any]) -> list[list[Any]]:
    if not tensors_list:
        raise ValueError("Expected at least one set of tensors")
    if isinstance(tensors_list[0], Mapping):
        expected = set(tensors_list[0].keys())
        for tensors in tensors_list[1:]:
            if set(tensors.keys()) != expected:
                raise ValueError("All dictionaries in tensors_list must have the same keys")
    return [_as_tensor_list(t) for t in tensors_list]


def _as_original_type(original: Any, tensor_list: Any) -> Any:
    if isinstance(original, Mapping):
        if len(original) == 1:
            tensor_list = [tensor_list]  # a one-component dequeue is a tensor, not a list
        return {k: tensor_list[i] for i, k in enumerate(sorted(original, key=str))}
    return tensor_list


def _convert(t: Any) -> Any:
    return t if isinstance(t, SparseTensor) else convert_to_tensor(t)


def _validate(tensor_list: Sequence[Any]) -> list[Any]:
    out = [_convert(t) for t in tensor_list]
    if not out:
        raise ValueError("Expected at least one tensor in batch().")
    return out


def _validate_join(tensor_list_list: Sequence[Sequence[Any]]) -> list[list[Any]]:
    out = [[_convert(t) for t in tl] for tl in tensor_list_list]
    if not out:
        raise ValueError("Expected at least one input in batch_join().")
    return out


def _validate_keep_input(keep_input: Any, enqueue_many: bool) -> Tensor:
    keep = convert_to_tensor(keep_input)
    if keep.shape.ndims is None:
        raise ValueError("`keep_input` dimensions must be known at graph construction.")
    if not enqueue_many and keep.shape.ndims == 1:
        raise ValueError("`keep_input` cannot be a vector when `enqueue_many=False`.")
    if keep.shape.ndims > 1:
        raise ValueError("`keep_input` must be 0 or 1 dimensions.")
    return keep


def _dtypes(tensor_list_list: Sequence[Sequence[Any]]) -> list[dtypes.DType]:
    all_types = [[t.dtype for t in tl] for tl in tensor_list_list]
    types = all_types[0]
    for other in all_types[1:]:
        if other != types:
            raise TypeError(
                f"Expected types to be consistent: {', '.join(x.name for x in types)} vs. "
                f"{', '.join(x.name for x in other)}."
            )
    return types


def _merge_shapes(shape_list: Sequence[Any], enqueue_many: bool) -> list[int | None] | None:
    shapes = [as_shape(s) for s in shape_list]
    if enqueue_many:
        shapes = [s.with_rank_at_least(1)[1:] for s in shapes]
    merged = shapes[0]
    for s in shapes[1:]:
        merged.merge_with(s)  # as TF: checks compatibility, keeps the first's dimensions
    return merged.as_list() if merged.ndims is not None else None


def _shapes(tensor_list_list: Sequence[Sequence[Any]], shapes: Any, enqueue_many: bool) -> Any:
    if shapes is None:
        n = len(tensor_list_list[0])
        for tl in tensor_list_list:
            for i in range(n):
                if tl[i].shape.ndims is None:
                    raise ValueError(f"Cannot infer Tensor's rank: {tl[i]}")
        shapes = [
            _merge_shapes([tl[i].shape for tl in tensor_list_list], enqueue_many) for i in range(n)
        ]
    return shapes


def _select_which_to_enqueue(tensor_list: Sequence[Tensor], keep_input: Tensor) -> list[Tensor]:
    """The rows of each tensor whose keep_input is true: the second of two partitions by
    keep_input, as TF's graph has them."""
    select = math_ops.cast(keep_input, dtypes.int32)
    return [partition_ops.dynamic_partition(x, select, num_partitions=2)[1] for x in tensor_list]


def _enqueue_join(
    queue: data_flow_ops.QueueBase,
    tensor_list_list: Sequence[Sequence[Any]],
    enqueue_many: bool,
    keep_input: Tensor,
) -> None:
    enqueue_fn = queue.enqueue_many if enqueue_many else queue.enqueue
    if keep_input.shape.ndims == 1:
        ops = [enqueue_fn(_select_which_to_enqueue(tl, keep_input)) for tl in tensor_list_list]
    else:
        ops = [
            _smart_cond(keep_input, functools.partial(enqueue_fn, tl), control_flow_ops.no_op)
            for tl in tensor_list_list
        ]
    queue_runner.add_queue_runner(queue_runner.QueueRunner(queue, ops))


def _enqueue(
    queue: data_flow_ops.QueueBase,
    tensor_list: Sequence[Any],
    threads: int,
    enqueue_many: bool,
    keep_input: Tensor,
) -> None:
    enqueue_fn = queue.enqueue_many if enqueue_many else queue.enqueue
    if keep_input.shape.ndims == 1:
        op = enqueue_fn(_select_which_to_enqueue(tensor_list, keep_input))
    else:
        op = _smart_cond(keep_input, lambda: enqueue_fn(tensor_list), control_flow_ops.no_op)
    # The same op, run by `threads` threads.
    queue_runner.add_queue_runner(queue_runner.QueueRunner(queue, [op] * threads))


def _which_queue(dynamic_pad: bool) -> Any:
    return data_flow_ops.PaddingFIFOQueue if dynamic_pad else data_flow_ops.FIFOQueue


def _fraction_full(queue: data_flow_ops.QueueBase, capacity: int) -> None:
    summary_ops.scalar(
        f"fraction_of_{capacity}_full",
        math_ops.cast(queue.size(), dtypes.float32) * (1.0 / capacity),
    )


def _fraction_over(queue: data_flow_ops.QueueBase, capacity: int, min_after_dequeue: int) -> None:
    full = math_ops.cast(math_ops.maximum(0, queue.size() - min_after_dequeue), dtypes.float32) * (
        1.0 / (capacity - min_after_dequeue)
    )
    summary_ops.scalar(
        f"fraction_over_{min_after_dequeue}_of_{capacity - min_after_dequeue}_full", full
    )


def _dequeue(
    queue: data_flow_ops.QueueBase, batch_size: Any, allow_smaller_final_batch: bool, name: str
) -> Any:
    if allow_smaller_final_batch:
        return queue.dequeue_up_to(batch_size, name=name)
    return queue.dequeue_many(batch_size, name=name)


def _batch(
    tensors: Any,
    batch_size: Any,
    keep_input: Any,
    num_threads: int = 1,
    capacity: int = 32,
    enqueue_many: bool = False,
    shapes: Any = None,
    dynamic_pad: bool = False,
    allow_smaller_final_batch: bool = False,
    shared_name: str | None = None,
    name: str | None = None,
) -> Any:
    tensor_list = _as_tensor_list(tensors)
    with name_scope(name, "batch", [*tensor_list, keep_input]) as scope:
        tensor_list = _validate(tensor_list)
        keep = _validate_keep_input(keep_input, enqueue_many)
        tensor_list, sparse_info = _store_sparse_tensors(tensor_list, enqueue_many, keep)
        types = _dtypes([tensor_list])
        shape_list = _shapes([tensor_list], shapes, enqueue_many)
        queue = _which_queue(dynamic_pad)(
            capacity=capacity, dtypes=types, shapes=shape_list, shared_name=shared_name
        )
        _enqueue(queue, tensor_list, num_threads, enqueue_many, keep)
        _fraction_full(queue, capacity)
        dequeued = _dequeue(queue, batch_size, allow_smaller_final_batch, scope)
        dequeued = _restore_sparse_tensors(dequeued, sparse_info)
        return _as_original_type(tensors, dequeued)


def _batch_join(
    tensors_list: Sequence[Any],
    batch_size: Any,
    keep_input: Any,
    capacity: int = 32,
    enqueue_many: bool = False,
    shapes: Any = None,
    dynamic_pad: bool = False,
    allow_smaller_final_batch: bool = False,
    shared_name: str | None = None,
    name: str | None = None,
) -> Any:
    tensor_list_list = _as_tensor_list_list(tensors_list)
    flat = [t for tl in tensor_list_list for t in tl]
    with name_scope(name, "batch_join", [*flat, keep_input]) as scope:
        tensor_list_list = _validate_join(tensor_list_list)
        keep = _validate_keep_input(keep_input, enqueue_many)
        tensor_list_list, sparse_info = _store_sparse_tensors_join(
            tensor_list_list, enqueue_many, keep
        )
        types = _dtypes(tensor_list_list)
        shape_list = _shapes(tensor_list_list, shapes, enqueue_many)
        queue = _which_queue(dynamic_pad)(
            capacity=capacity, dtypes=types, shapes=shape_list, shared_name=shared_name
        )
        _enqueue_join(queue, tensor_list_list, enqueue_many, keep)
        _fraction_full(queue, capacity)
        dequeued = _dequeue(queue, batch_size, allow_smaller_final_batch, scope)
        dequeued = _restore_sparse_tensors(dequeued, sparse_info)
        return _as_original_type(tensors_list[0], dequeued)


def _shuffle_batch(
    tensors: Any,
    batch_size: Any,
    capacity: int,
    min_after_dequeue: int,
    keep_input: Any,
    num_threads: int = 1,
    seed: int | None = None,
    enqueue_many: bool = False,
    shapes: Any = None,
    allow_smaller_final_batch: bool = False,
    shared_name: str | None = None,
    name: str | None = None,
) -> Any:
    tensor_list = _as_tensor_list(tensors)
    with name_scope(name, "shuffle_batch", [*tensor_list, keep_input]) as scope:
        if capacity <= min_after_dequeue:
            raise ValueError(
                f"capacity {capacity} must be bigger than min_after_dequeue {min_after_dequeue}."
            )
        tensor_list = _validate(tensor_list)
        keep = _validate_keep_input(keep_input, enqueue_many)
        tensor_list, sparse_info = _store_sparse_tensors(tensor_list, enqueue_many, keep)
        types = _dtypes([tensor_list])
        shape_list = _shapes([tensor_list], shapes, enqueue_many)
        queue = data_flow_ops.RandomShuffleQueue(
            capacity=capacity,
            min_after_dequeue=min_after_dequeue,
            seed=seed,
            dtypes=types,
            shapes=shape_list,
            shared_name=shared_name,
        )
        _enqueue(queue, tensor_list, num_threads, enqueue_many, keep)
        _fraction_over(queue, capacity, min_after_dequeue)
        dequeued = _dequeue(queue, batch_size, allow_smaller_final_batch, scope)
        dequeued = _restore_sparse_tensors(dequeued, sparse_info)
        return _as_original_type(tensors, dequeued)


def _shuffle_batch_join(
    tensors_list: Sequence[Any],
    batch_size: Any,
    capacity: int,
    min_after_dequeue: int,
    keep_input: Any,
    seed: int | None = None,
    enqueue_many: bool = False,
    shapes: Any = None,
    allow_smaller_final_batch: bool = False,
    shared_name: str | None = None,
    name: str | None = None,
) -> Any:
    tensor_list_list = _as_tensor_list_list(tensors_list)
    flat = [t for tl in tensor_list_list for t in tl]
    with name_scope(name, "shuffle_batch_join", [*flat, keep_input]) as scope:
        tensor_list_list = _validate_join(tensor_list_list)
        keep = _validate_keep_input(keep_input, enqueue_many)
        tensor_list_list, sparse_info = _store_sparse_tensors_join(
            tensor_list_list, enqueue_many, keep
        )
        types = _dtypes(tensor_list_list)
        shape_list = _shapes(tensor_list_list, shapes, enqueue_many)
        queue = data_flow_ops.RandomShuffleQueue(
            capacity=capacity,
            min_after_dequeue=min_after_dequeue,
            seed=seed,
            dtypes=types,
            shapes=shape_list,
            shared_name=shared_name,
        )
        _enqueue_join(queue, tensor_list_list, enqueue_many, keep)
        _fraction_over(queue, capacity, min_after_dequeue)
        dequeued = _dequeue(queue, batch_size, allow_smaller_final_batch, scope)
        dequeued = _restore_sparse_tensors(dequeued, sparse_info)
        return _as_original_type(tensors_list[0], dequeued)


# ---- the public batching functions ------------------------------------------------------------


def batch(
    tensors: Any,
    batch_size: Any,
    num_threads: int = 1,
    capacity: int = 32,
    enqueue_many: bool = False,
    shapes: Any = None,
    dynamic_pad: bool = False,
    allow_smaller_final_batch: bool = False,
    shared_name: str | None = None,
    name: str | None = None,
) -> Any:
    """Batches of batch_size elements, in order, filled by num_threads QueueRunner threads;
    dynamic_pad pads components of unknown dimensions to the batch's largest."""
    return _batch(
        tensors,
        batch_size,
        keep_input=True,
        num_threads=num_threads,
        capacity=capacity,
        enqueue_many=enqueue_many,
        shapes=shapes,
        dynamic_pad=dynamic_pad,
        allow_smaller_final_batch=allow_smaller_final_batch,
        shared_name=shared_name,
        name=name,
    )


def maybe_batch(
    tensors: Any,
    keep_input: Any,
    batch_size: Any,
    num_threads: int = 1,
    capacity: int = 32,
    enqueue_many: bool = False,
    shapes: Any = None,
    dynamic_pad: bool = False,
    allow_smaller_final_batch: bool = False,
    shared_name: str | None = None,
    name: str | None = None,
) -> Any:
    """tf.train.batch of only the elements whose keep_input is true."""
    return _batch(
        tensors,
        batch_size,
        keep_input,
        num_threads=num_threads,
        capacity=capacity,
        enqueue_many=enqueue_many,
        shapes=shapes,
        dynamic_pad=dynamic_pad,
        allow_smaller_final_batch=allow_smaller_final_batch,
        shared_name=shared_name,
        name=name,
    )


def batch_join(
    tensors_list: Sequence[Any],
    batch_size: Any,
    capacity: int = 32,
    enqueue_many: bool = False,
    shapes: Any = None,
    dynamic_pad: bool = False,
    allow_smaller_final_batch: bool = False,
    shared_name: str | None = None,
    name: str | None = None,
) -> Any:
    """Batches from several lists of tensors (one enqueue thread each) into one queue."""
    return _batch_join(
        tensors_list,
        batch_size,
        keep_input=True,
        capacity=capacity,
        enqueue_many=enqueue_many,
        shapes=shapes,
        dynamic_pad=dynamic_pad,
        allow_smaller_final_batch=allow_smaller_final_batch,
        shared_name=shared_name,
        name=name,
    )


def maybe_batch_join(
    tensors_list: Sequence[Any],
    keep_input: Any,
    batch_size: Any,
    capacity: int = 32,
    enqueue_many: bool = False,
    shapes: Any = None,
    dynamic_pad: bool = False,
    allow_smaller_final_batch: bool = False,
    shared_name: str | None = None,
    name: str | None = None,
) -> Any:
    return _batch_join(
        tensors_list,
        batch_size,
        keep_input,
        capacity=capacity,
        enqueue_many=enqueue_many,
        shapes=shapes,
        dynamic_pad=dynamic_pad,
        allow_smaller_final_batch=allow_smaller_final_batch,
        shared_name=shared_name,
        name=name,
    )


def shuffle_batch(
    tensors: Any,
    batch_size: Any,
    capacity: int,
    min_after_dequeue: int,
    num_threads: int = 1,
    seed: int | None = None,
    enqueue_many: bool = False,
    shapes: Any = None,
    allow_smaller_final_batch: bool = False,
    shared_name: str | None = None,
    name: str | None = None,
) -> Any:
    """Batches of elements drawn at random from a RandomShuffleQueue that keeps at least
    min_after_dequeue of them (until its inputs run out)."""
    return _shuffle_batch(
        tensors,
        batch_size,
        capacity,
        min_after_dequeue,
        keep_input=True,
        num_threads=num_threads,
        seed=seed,
        enqueue_many=enqueue_many,
        shapes=shapes,
        allow_smaller_final_batch=allow_smaller_final_batch,
        shared_name=shared_name,
        name=name,
    )


def maybe_shuffle_batch(
    tensors: Any,
    batch_size: Any,
    capacity: int,
    min_after_dequeue: int,
    keep_input: Any,
    num_threads: int = 1,
    seed: int | None = None,
    enqueue_many: bool = False,
    shapes: Any = None,
    allow_smaller_final_batch: bool = False,
    shared_name: str | None = None,
    name: str | None = None,
) -> Any:
    return _shuffle_batch(
        tensors,
        batch_size,
        capacity,
        min_after_dequeue,
        keep_input,
        num_threads=num_threads,
        seed=seed,
        enqueue_many=enqueue_many,
        shapes=shapes,
        allow_smaller_final_batch=allow_smaller_final_batch,
        shared_name=shared_name,
        name=name,
    )


def shuffle_batch_join(
    tensors_list: Sequence[Any],
    batch_size: Any,
    capacity: int,
    min_after_dequeue: int,
    seed: int | None = None,
    enqueue_many: bool = False,
    shapes: Any = None,
    allow_smaller_final_batch: bool = False,
    shared_name: str | None = None,
    name: str | None = None,
) -> Any:
    return _shuffle_batch_join(
        tensors_list,
        batch_size,
        capacity,
        min_after_dequeue,
        keep_input=True,
        seed=seed,
        enqueue_many=enqueue_many,
        shapes=shapes,
        allow_smaller_final_batch=allow_smaller_final_batch,
        shared_name=shared_name,
        name=name,
    )


def maybe_shuffle_batch_join(
    tensors_list: Sequence[Any],
    batch_size: Any,
    capacity: int,
    min_after_dequeue: int,
    keep_input: Any,
    seed: int | None = None,
    enqueue_many: bool = False,
    shapes: Any = None,
    allow_smaller_final_batch: bool = False,
    shared_name: str | None = None,
    name: str | None = None,
) -> Any:
    return _shuffle_batch_join(
        tensors_list,
        batch_size,
        capacity,
        min_after_dequeue,
        keep_input,
        seed=seed,
        enqueue_many=enqueue_many,
        shapes=shapes,
        allow_smaller_final_batch=allow_smaller_final_batch,
        shared_name=shared_name,
        name=name,
    )


__all__ = [
    "batch",
    "batch_join",
    "input_producer",
    "limit_epochs",
    "match_filenames_once",
    "maybe_batch",
    "maybe_batch_join",
    "maybe_shuffle_batch",
    "maybe_shuffle_batch_join",
    "range_input_producer",
    "shuffle_batch",
    "shuffle_batch_join",
    "slice_input_producer",
    "string_input_producer",
]
