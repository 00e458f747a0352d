"""tf.data.experimental's grouping transformations: group_by_window, group_by_reducer (with
Reducer), bucket_by_sequence_length and dense_to_sparse_batch, built as TF 1.15 builds them
(grouping.py, batching.py): ops whose kernels are kernels/dataset_grouping.py."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from tfcluster.framework import dtypes
from tfcluster.framework.graph import Operation, Tensor, control_dependencies, convert_to_tensor
from tfcluster.framework.tensor_shape import TensorShape, as_shape
from tfcluster.lib.data import structure as st
from tfcluster.lib.data.dataset import Dataset, _int64
from tfcluster.lib.data.function import StructuredFunction
from tfcluster.ops import (
    array_ops,
    check_ops,
    constant_op,
    dataset_grouping_ops,  # noqa: F401 - registers the grouping ops
    dataset_ops,
    math_ops,
)

Transformation = Callable[[Dataset], Dataset]
_KEY = st.dense(dtypes.int64, [])


def _is_int64_scalar(structure: Any) -> bool:
    specs = st.flatten(structure)
    return (
        not st.is_nested(structure)
        and len(specs) == 1
        and specs[0].kind == st.DENSE
        and specs[0].dtype == dtypes.int64
        and specs[0].shape.ndims in (None, 0)
    )


def _as_int64(func: Callable[..., Any]) -> Callable[..., Any]:
    def wrapper(*args: Any) -> Tensor:
        return convert_to_tensor(func(*args), dtype=dtypes.int64)

    wrapper.__name__ = getattr(func, "__name__", "fn")
    return wrapper


def _make_dataset(
    op_type: str,
    dataset: Dataset,
    fns: Sequence[StructuredFunction],
    attr_names: Sequence[str],
    structure: Any,
) -> Dataset:
    """The op (dataset, captured of each function in turn) with one func attr per function."""
    inputs = [dataset._variant_tensor]
    attrs: dict[str, Any] = dict(st.op_attrs(structure))
    controls: list[Operation] = []
    for fn, name in zip(fns, attr_names):
        inputs += fn.captured_inputs
        attrs[name] = fn.function
        attrs[f"T{name}_other_arguments"] = fn.captured_types
        controls += fn.control_inputs
    op = dataset_ops.create(op_type, inputs, attrs, control_inputs=controls)
    return Dataset(op.outputs[0], structure, [dataset], None, list(fns))


def group_by_window(
    key_func: Callable[..., Any],
    reduce_func: Callable[..., Any],
    window_size: Any = None,
    window_size_func: Callable[..., Any] | None = None,
) -> Transformation:
    """Groups elements by key_func's int64 key; each window of window_size elements of one
    key becomes reduce_func(key, window dataset)'s elements."""
    if window_size is not None and window_size_func:
        raise ValueError("Must pass either window_size or window_size_func.")
    if window_size is not None:

        def constant_window_func(unused_key: Any) -> Tensor:
            return convert_to_tensor(window_size, dtype=dtypes.int64)

        window_size_func = constant_window_func
    if window_size_func is None:
        raise ValueError("Must pass either window_size or window_size_func.")
    size_func = window_size_func

    def apply(dataset: Dataset) -> Dataset:
        name = "tf.data.experimental.group_by_window()"
        key_fn = StructuredFunction(_as_int64(key_func), name, dataset._structure)
        if not _is_int64_scalar(key_fn.output_structure):
            raise ValueError("`key_func` must return a single tf.int64 scalar tensor.")
        window = (_KEY, st.dataset_leaf(dataset._structure))
        reduce_fn = StructuredFunction(reduce_func, name, window)
        out = st.flatten(reduce_fn.output_structure)
        if st.is_nested(reduce_fn.output_structure) or len(out) != 1 or out[0].kind != st.DATASET:
            raise TypeError("`reduce_func` must return a `Dataset` object.")
        size_fn = StructuredFunction(_as_int64(size_func), name, _KEY)
        if not _is_int64_scalar(size_fn.output_structure):
            raise ValueError("`window_size_func` must return a single tf.int64 scalar tensor.")
        return _make_dataset(
            "GroupByWindowDataset",
            dataset,
            [key_fn, reduce_fn, size_fn],
            ["key_func", "reduce_func", "window_size_func"],
            out[0].element,
        )

    return apply


class Reducer:
    """A reduction per key: init_func(key) -> state, reduce_func(state, element) -> state,
    finalize_func(state) -> result."""

    def __init__(
        self,
        init_func: Callable[..., Any],
        reduce_func: Callable[..., Any],
        finalize_func: Callable[..., Any],
    ) -> None:
        self._init_func = init_func
        self._reduce_func = reduce_func
        self._finalize_func = finalize_func

    @property
    def init_func(self) -> Callable[..., Any]:
        return self._init_func

    @property
    def reduce_func(self) -> Callable[..., Any]:
        return self._reduce_func

    @property
    def finalize_func(self) -> Callable[..., Any]:
        return self._finalize_func


def group_by_reducer(key_func: Callable[..., Any], reducer: Reducer) -> Transformation:
    """One element per key (ascending keys): finalize_func of the reduction of its elements."""

    def apply(dataset: Dataset) -> Dataset:
        name = "tf.data.experimental.group_by_reducer()"
        key_fn = StructuredFunction(key_func, name, dataset._structure)
        if not _is_int64_scalar(key_fn.output_structure):
            specs = st.flatten(key_fn.output_structure)
            raise ValueError(
                "`key_func` must return a single tf.int64 tensor. Got type="
                f"{st.output_types(key_fn.output_structure)} and shape="
                f"{[s.shape for s in specs]}"
            )
        init_fn = StructuredFunction(reducer.init_func, name, _KEY)
        state = init_fn.output_structure
        reduce_fn = _reduce_function(reducer.reduce_func, name, state, dataset._structure)
        state = _weakened_state(state, reduce_fn)
        if state is not init_fn.output_structure:
            reduce_fn = _reduce_function(reducer.reduce_func, name, state, dataset._structure)
        finalize_fn = StructuredFunction(reducer.finalize_func, name, state)
        return _make_dataset(
            # TF 1.15's group_by_reducer makes the Experimental spelling.
            "ExperimentalGroupByReducerDataset",
            dataset,
            [key_fn, init_fn, reduce_fn, finalize_fn],
            ["key_func", "init_func", "reduce_func", "finalize_func"],
            finalize_fn.output_structure,
        )

    return apply


def _reduce_function(
    func: Callable[..., Any], name: str, state: Any, element: Any
) -> StructuredFunction:
    fn = StructuredFunction(func, name, (state, element))
    new, old = st.flatten(fn.output_structure), st.flatten(state)
    if [s.kind for s in new] != [s.kind for s in old]:
        raise TypeError(
            "The element classes for the new state must match the initial state. Expected "
            f"{st.output_classes(state)}; got {st.output_classes(fn.output_structure)}."
        )
    if [s.dtype for s in new] != [s.dtype for s in old]:
        raise TypeError(
            "The element types for the new state must match the initial state. Expected "
            f"{st.output_types(state)}; got {st.output_types(fn.output_structure)}."
        )
    return fn


def _weakened_state(state: Any, reduce_fn: StructuredFunction) -> Any:
    """The state's structure with shapes relaxed where the reduction changes them (TF traces
    reduce_func again with them); the same object when nothing changes."""
    old, new = st.flatten(state), st.flatten(reduce_fn.output_structure)
    weak = [st.most_specific_compatible(o.shape, n.shape) for o, n in zip(old, new)]
    if all(
        o.shape.ndims is None or (w.ndims is not None and o.shape.as_list() == w.as_list())
        for o, w in zip(old, weak)
    ):
        return state
    specs = [st.Spec(o.kind, o.dtype, w, o.element) for o, w in zip(old, weak)]
    return st.pack_as(state, specs)


def bucket_by_sequence_length(
    element_length_func: Callable[..., Any],
    bucket_boundaries: Sequence[int],
    bucket_batch_sizes: Sequence[int],
    padded_shapes: Any = None,
    padding_values: Any = None,
    pad_to_bucket_boundary: bool = False,
    no_padding: bool = False,
    drop_remainder: bool = False,
) -> Transformation:
    """Batches of elements whose lengths fall in one bucket, padded to the batch's longest
    (or to the bucket's boundary - 1)."""
    if len(bucket_batch_sizes) != (len(bucket_boundaries) + 1):
        raise ValueError("len(bucket_batch_sizes) must equal len(bucket_boundaries) + 1")
    batch_sizes_list = list(bucket_batch_sizes)
    boundaries_list = list(bucket_boundaries)

    def element_to_bucket_id(*args: Any) -> Tensor:
        seq_length = element_length_func(*args)
        buckets_min = [np.iinfo(np.int32).min, *boundaries_list]
        buckets_max = [*boundaries_list, np.iinfo(np.int32).max]
        conditions_c = math_ops.logical_and(
            math_ops.less_equal(buckets_min, seq_length), math_ops.less(seq_length, buckets_max)
        )
        return math_ops.reduce_min(array_ops.where(conditions_c))

    def window_size_fn(bucket_id: Tensor) -> Tensor:
        batch_sizes = constant_op.constant(batch_sizes_list, dtype=dtypes.int64)
        return batch_sizes[bucket_id]

    def make_padded_shapes(shapes: Any, none_filler: Any = None) -> Any:
        def one(shape: Any) -> Any:
            dims = as_shape(shape).as_list() if as_shape(shape).ndims is not None else []
            return [none_filler if d is None else d for d in dims]

        return _map_shapes(one, shapes)

    def batching_fn(bucket_id: Tensor, grouped_dataset: Dataset) -> Dataset:
        batch_size = window_size_fn(bucket_id)
        if no_padding:
            return grouped_dataset.batch(batch_size, drop_remainder=drop_remainder)
        none_filler = None
        if pad_to_bucket_boundary:
            err_msg = (
                "When pad_to_bucket_boundary=True, elements must have length < "
                "max(bucket_boundaries)."
            )
            check = check_ops.assert_less(
                bucket_id,
                constant_op.constant(len(batch_sizes_list) - 1, dtype=dtypes.int64),
                message=err_msg,
            )
            with control_dependencies([check]):
                boundaries = constant_op.constant(boundaries_list, dtype=dtypes.int64)
                bucket_boundary = boundaries[bucket_id]
                none_filler = bucket_boundary - 1
        input_shapes = grouped_dataset.output_shapes
        shapes = make_padded_shapes(
            padded_shapes if padded_shapes is not None else input_shapes, none_filler
        )
        return grouped_dataset.padded_batch(
            batch_size, shapes, padding_values, drop_remainder=drop_remainder
        )

    def apply(dataset: Dataset) -> Dataset:
        return dataset.apply(
            group_by_window(element_to_bucket_id, batching_fn, window_size_func=window_size_fn)
        )

    return apply


def _map_shapes(fn: Callable[[Any], Any], shapes: Any) -> Any:
    """fn on each shape of a nested structure of shapes (a TensorShape or a list is a leaf)."""
    if isinstance(shapes, dict):
        return {k: _map_shapes(fn, v) for k, v in shapes.items()}
    if isinstance(shapes, tuple):
        return tuple(_map_shapes(fn, v) for v in shapes)
    return fn(shapes)


def dense_to_sparse_batch(batch_size: Any, row_shape: Any) -> Transformation:
    """Batches of batch_size elements as one SparseTensor [batch, *row_shape] (a -1 dimension
    of row_shape takes the batch's largest)."""

    def apply(dataset: Dataset) -> Dataset:
        specs = st.flatten(dataset._structure)
        if len(specs) != 1 or specs[0].kind != st.DENSE or st.is_nested(dataset._structure):
            raise TypeError(
                "DenseToSparseDataset requires an input whose elements have a single "
                f"component, whereas the input has {dataset.output_types!r}."
            )
        size = _int64(batch_size, "batch_size")
        shape = _row_shape(row_shape)
        static = TensorShape([None]).concatenate(_static_row_shape(row_shape))
        structure = st.sparse(specs[0].dtype, static)
        variant = dataset_ops.dataset_op(
            "DenseToSparseBatchDataset",
            [dataset._variant_tensor, size, shape],
            st.op_attrs(structure),
        )
        return Dataset(variant, structure, [dataset])

    return apply


def _row_shape(row_shape: Any) -> Tensor:
    if isinstance(row_shape, TensorShape):
        dims = [-1 if d is None else d for d in row_shape.as_list()]
        return convert_to_tensor(dims, dtype=dtypes.int64, name="row_shape")
    if isinstance(row_shape, Tensor):
        return math_ops.cast(row_shape, dtypes.int64)
    return convert_to_tensor(
        [-1 if d is None else int(d) for d in row_shape], dtype=dtypes.int64, name="row_shape"
    )


def _static_row_shape(row_shape: Any) -> TensorShape:
    if isinstance(row_shape, TensorShape):
        return row_shape
    if isinstance(row_shape, Tensor):
        from tfcluster.framework import tensor_util

        value = tensor_util.constant_value(row_shape)
        if value is None:
            rank = row_shape.shape.as_list()[0] if row_shape.shape.ndims else None
            return TensorShape(None if rank is None else [None] * rank)
        row_shape = value.tolist()
    return TensorShape([None if d is None or int(d) < 0 else int(d) for d in row_shape])


__all__ = [
    "Reducer",
    "bucket_by_sequence_length",
    "dense_to_sparse_batch",
    "group_by_reducer",
    "group_by_window",
]
