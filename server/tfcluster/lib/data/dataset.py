"""tf.data.Dataset (TF 1.15's DatasetV1): a graph object whose variant tensor is the dataset.

Each method adds the dataset op of its transformation (ops/dataset_ops.py) and returns a new
Dataset that knows the structure of its elements. Nothing runs until an iterator over it is
initialised and read in a session; then the pipeline runs on the task the dataset was placed
on (tf.device), in the threads of that task.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from tfcluster.framework import dtypes, internal_deprecations
from tfcluster.framework.graph import (
    Graph,
    Tensor,
    control_dependencies,
    convert_to_tensor,
    get_default_graph,
    get_seed,
    name_scope,
)
from tfcluster.framework.sparse_tensor import SparseTensor
from tfcluster.lib.data import structure as st
from tfcluster.lib.data import type_specs
from tfcluster.lib.data.function import StructuredFunction
from tfcluster.lib.data.options import Options
from tfcluster.ops import (
    array_ops,
    dataset_ops,
    logging_ops,
    math_ops,
    reader_ops,
    string_ops,
)

AUTOTUNE = -1
# TF's default read buffer for record files (256 KiB).
DEFAULT_READER_BUFFER_SIZE_BYTES = 256 * 1024


def _int64(value: Any, name: str) -> Tensor:
    return convert_to_tensor(value, dtype=dtypes.int64, name=name)


def _bool(value: Any, name: str) -> Tensor:
    return convert_to_tensor(value, dtype=dtypes.bool_, name=name)


def _seeds(seed: Any) -> tuple[Tensor, Tensor]:
    """(seed, seed2) as TF's tf.data derives them from the graph and op seeds, with TF's ops:
    a given seed2 passes through Select(seed == 0 and seed2 == 0, 2**31 - 1, seed2), since
    (0, 0) means "pick at random" and a given seed never does. The ops count: every op made
    moves the op seeds of the random ops made after it."""
    seed1, seed2 = get_seed(seed)
    if seed2 is None:
        return _int64(0, "seed"), _int64(0, "seed2")
    seed_t = _int64(seed1, "seed")
    with name_scope("seed2") as scope:
        internal_deprecations.called_internally(internal_deprecations.WHERE)
        given = convert_to_tensor(seed2, dtype=dtypes.int64)
        both_zero = math_ops.logical_and(math_ops.equal(seed_t, 0), math_ops.equal(given, 0))
        max_int = convert_to_tensor(2**31 - 1, dtype=dtypes.int64)
        return seed_t, math_ops.select(both_zero, max_int, given, name=scope)


def _map_leaves(fn: Callable[[Any], str], structure: Any) -> Any:
    """fn of each leaf, in the structure's own containers and order (TF's nest.map_structure
    keeps a dict's key order)."""
    if isinstance(structure, dict):
        return type(structure)((k, _map_leaves(fn, v)) for k, v in structure.items())
    if isinstance(structure, tuple) and hasattr(structure, "_fields"):
        return type(structure)(*(_map_leaves(fn, v) for v in structure))
    if isinstance(structure, (tuple, list)):
        return type(structure)(_map_leaves(fn, v) for v in structure)
    return fn(structure)


class Dataset:
    """Represents a potentially large set of elements."""

    def __init__(
        self,
        variant_tensor: Tensor,
        structure: Any,
        inputs: Sequence[Dataset] = (),
        options: Options | None = None,
        functions: Sequence[StructuredFunction] = (),
    ) -> None:
        self._variant_tensor = variant_tensor
        self._structure = structure
        self._inputs = list(inputs)
        self._options = options
        self._functions = list(functions)
        self._graph = variant_tensor.graph

    # ---- structure -------------------------------------------------------------------------
    @property
    def output_types(self) -> Any:
        """The type of each component of an element of this dataset."""
        return st.output_types(self._structure)

    @property
    def output_shapes(self) -> Any:
        """The shape of each component of an element of this dataset."""
        return st.output_shapes(self._structure)

    @property
    def element_spec(self) -> Any:
        """The TypeSpecs of an element of this dataset (TensorSpec, SparseTensorSpec, ...)."""
        return type_specs.spec_structure(self._structure)

    @property
    def output_classes(self) -> Any:
        """The class of each component of an element of this dataset."""
        return st.output_classes(self._structure)

    def _as_variant_tensor(self) -> Tensor:
        return self._variant_tensor

    def options(self) -> Options:
        """The options of this dataset and its inputs."""
        out = Options()
        for d in self._inputs:
            out = out.merge(d.options())
        if self._options is not None:
            out = out.merge(self._options)
        return out

    def __iter__(self) -> Any:
        raise RuntimeError(
            "__iter__() is only supported inside of tf.function or when eager execution is enabled."
        )

    # The class TF 1.15 shows in a dataset's repr (its v1 wrappers; file datasets name theirs).
    _repr_name = "DatasetV1Adapter"

    def __repr__(self) -> str:
        # TF 1.15's: shapes by str, types by repr, in the element's structure, quotes dropped.
        shapes = str(_map_leaves(str, self.output_shapes)).replace("'", "")
        types = str(_map_leaves(repr, self.output_types)).replace("'", "")
        return f"<{self._repr_name} shapes: {shapes}, types: {types}>"

    def _new(
        self,
        variant: Tensor,
        structure: Any,
        inputs: Sequence[Dataset] | None = None,
        functions: Sequence[StructuredFunction] = (),
    ) -> Dataset:
        return Dataset(variant, structure, [self] if inputs is None else inputs, None, functions)

    def _unary(self, op_type: str, extra: Sequence[Tensor], structure: Any = None) -> Dataset:
        structure = self._structure if structure is None else structure
        variant = dataset_ops.dataset_op(
            op_type, [self._variant_tensor, *extra], st.op_attrs(structure)
        )
        return self._new(variant, structure)

    def _with_function(
        self,
        op_type: str,
        fn: StructuredFunction,
        before: Sequence[Tensor],
        after: Sequence[Tensor],
        attrs: dict[str, Any],
        structure: Any,
        func_attr: str = "f",
    ) -> Dataset:
        """A dataset op that calls `fn`: inputs (dataset, *before, *captured, *after)."""
        inputs = [self._variant_tensor, *before, *fn.captured_inputs, *after]
        all_attrs = {
            **st.op_attrs(structure),
            **attrs,
            func_attr: fn.function,
            "Targuments": fn.captured_types,
        }
        op = dataset_ops.create(op_type, inputs, all_attrs, control_inputs=fn.control_inputs)
        return self._new(op.outputs[0], structure, functions=[fn])

    # ---- iterators -------------------------------------------------------------------------
    def make_one_shot_iterator(self) -> Any:
        """An iterator over the elements of this dataset, initialised on first use."""
        from tfcluster.lib.data import iterator

        return iterator.one_shot(self)

    def make_initializable_iterator(self, shared_name: str | None = None) -> Any:
        """An iterator over the elements of this dataset; run its `initializer` first."""
        from tfcluster.lib.data import iterator

        return iterator.initializable(self, shared_name)

    # ---- sources ---------------------------------------------------------------------------
    @staticmethod
    def from_tensors(tensors: Any) -> Dataset:
        """A dataset with a single element, comprising the given tensors."""
        element = st.normalize_element(tensors)
        structure = st.structure_of(element)
        variant = dataset_ops.dataset_op(
            "TensorDataset", st.to_tensor_list(element), st.op_attrs(structure)
        )
        return Dataset(variant, structure)

    @staticmethod
    def from_tensor_slices(tensors: Any) -> Dataset:
        """A dataset whose elements are slices of the given tensors (along dimension 0)."""
        element = st.normalize_element(tensors)
        batched = st.structure_of(element)
        first = None
        for spec in st.flatten(batched):
            if spec.kind == st.DATASET:
                raise TypeError("from_tensor_slices does not slice datasets")
            if spec.shape.ndims == 0:
                raise ValueError("Unbatching a tensor is only supported for rank >= 1")
            if spec.shape.ndims is not None:
                d = spec.shape.as_list()[0]
                if first is not None and d is not None and d != first:
                    raise ValueError(f"Dimensions {first} and {d} are not compatible")
                first = d if d is not None else first
        structure = st.unbatched(batched)
        variant = dataset_ops.dataset_op(
            "TensorSliceDataset", st.to_batched_tensor_list(element), st.op_attrs(structure)
        )
        return Dataset(variant, structure)

    @staticmethod
    def from_sparse_tensor_slices(sparse_tensor: Any) -> Dataset:
        """Splits each rank-N SparseTensor into rank-(N-1) ones: elements are (indices,
        values, dense_shape) tuples."""
        if not isinstance(sparse_tensor, SparseTensor):
            sparse_tensor = SparseTensor.from_value(sparse_tensor)
        rank = sparse_tensor.shape.ndims
        inner = None if rank is None else rank - 1
        structure = (
            st.dense(dtypes.int64, [None, inner]),
            st.dense(sparse_tensor.dtype, [None]),
            st.dense(dtypes.int64, [inner]),
        )
        inputs = [sparse_tensor.indices, sparse_tensor.values, sparse_tensor.dense_shape]
        variant = dataset_ops.dataset_op("SparseTensorSliceDataset", inputs, st.op_attrs(structure))
        return Dataset(variant, structure)

    @staticmethod
    def from_generator(
        generator: Callable[..., Any],
        output_types: Any,
        output_shapes: Any = None,
        args: Any = None,
    ) -> Dataset:
        """A dataset whose elements are generated by `generator` (run in this process)."""
        from tfcluster.lib.data import generator as gen

        return gen.from_generator(generator, output_types, output_shapes, args)

    @staticmethod
    def range(*args: Any) -> Dataset:
        """A dataset of a step-separated range of int64 values: range([start,] stop[, step])."""
        if not args:
            raise ValueError("No arguments were passed to Dataset.range().")
        if len(args) > 3:
            raise ValueError(f"Dataset.range() takes at most 3 arguments, got {len(args)}.")
        start, stop, step = 0, None, 1
        if len(args) == 1:
            (stop,) = args
        elif len(args) == 2:
            start, stop = args
        else:
            start, stop, step = args
        inputs = [_int64(start, "start"), _int64(stop, "stop"), _int64(step, "step")]
        structure = st.dense(dtypes.int64, [])
        variant = dataset_ops.dataset_op("RangeDataset", inputs, st.op_attrs(structure))
        return Dataset(variant, structure)

    @staticmethod
    def zip(datasets: Any) -> Dataset:
        """A dataset of the elements of the given (nested) datasets, zipped together."""
        flat = st.flatten(datasets)
        for d in flat:
            if not isinstance(d, Dataset):
                raise TypeError(
                    f"The argument to `Dataset.zip()` must be a (nested) structure of `Dataset` "
                    f"objects, got {type(d).__name__}."
                )
        structure = st.pack_as(datasets, [d._structure for d in flat])
        variant = dataset_ops.dataset_op(
            "ZipDataset",
            [d._variant_tensor for d in flat],
            {**st.op_attrs(structure), "N": len(flat)},
        )
        return Dataset(variant, structure, flat)

    @staticmethod
    def list_files(file_pattern: Any, shuffle: bool | None = None, seed: Any = None) -> Dataset:
        """A dataset of all files matching one or more glob patterns (shuffled by default)."""
        with name_scope("list_files"):
            if shuffle is None:
                shuffle = True
            pattern = convert_to_tensor(file_pattern, dtype=dtypes.string, name="file_pattern")
            matching = reader_ops.matching_files(pattern)
            # TF 1.15's graph, op for op: the op seeds of what is made later depend on it.
            matched = math_ops.greater(array_ops.shape(matching)[0], 0, name="match_not_empty")
            message = math_ops.add(
                "No files matched pattern: ",
                string_ops.reduce_join(pattern, separator=", "),
                name="message",
            )
            check = logging_ops.Assert(matched, [message], summarize=1, name="assert_not_empty")
            with control_dependencies([check]):
                matching = array_ops.identity(matching)
            dataset = Dataset.from_tensor_slices(matching)
            if shuffle:
                # The buffer holds every name (at least one: the list may be empty).
                count = array_ops.shape(matching, out_type=dtypes.int64)[0]
                dataset = dataset.shuffle(math_ops.maximum(count, 1), seed=seed)
            return dataset

    # ---- transformations -------------------------------------------------------------------
    def concatenate(self, dataset: Dataset) -> Dataset:
        """This dataset's elements, then `dataset`'s."""
        if not st.same_structure(self._structure, dataset._structure):
            raise TypeError(
                f"Two datasets to concatenate have different types {self.output_types} and "
                f"{dataset.output_types}"
            )
        mine, theirs = st.flatten(self._structure), st.flatten(dataset._structure)
        for a, b in zip(mine, theirs):
            if a.dtype != b.dtype or a.kind != b.kind:
                raise TypeError(
                    f"Two datasets to concatenate have different types {self.output_types} and "
                    f"{dataset.output_types}"
                )
        structure = st.pack_as(
            self._structure,
            [
                st.Spec(a.kind, a.dtype, st.most_specific_compatible(a.shape, b.shape), a.element)
                for a, b in zip(mine, theirs)
            ],
        )
        variant = dataset_ops.dataset_op(
            "ConcatenateDataset",
            [self._variant_tensor, dataset._variant_tensor],
            st.op_attrs(structure),
        )
        return self._new(variant, structure, [self, dataset])

    def prefetch(self, buffer_size: Any) -> Dataset:
        """Prefetches up to `buffer_size` elements in a background thread."""
        return self._unary("PrefetchDataset", [_int64(buffer_size, "buffer_size")])

    def repeat(self, count: Any = None) -> Dataset:
        """Repeats this dataset `count` times (forever when None or -1)."""
        return self._unary("RepeatDataset", [_int64(-1 if count is None else count, "count")])

    def shuffle(
        self, buffer_size: Any, seed: Any = None, reshuffle_each_iteration: bool | None = None
    ) -> Dataset:
        """Randomly shuffles the elements of this dataset through a buffer of buffer_size."""
        size = _int64(buffer_size, "buffer_size")
        seed_t, seed2_t = _seeds(seed)
        reshuffle = True if reshuffle_each_iteration is None else bool(reshuffle_each_iteration)
        attrs = {**st.op_attrs(self._structure), "reshuffle_each_iteration": reshuffle}
        variant = dataset_ops.dataset_op(
            "ShuffleDataset", [self._variant_tensor, size, seed_t, seed2_t], attrs
        )
        return self._new(variant, self._structure)

    def cache(self, filename: Any = "") -> Dataset:
        """Caches the elements in memory (or in files under the prefix `filename`)."""
        name = convert_to_tensor(filename, dtype=dtypes.string, name="filename")
        return self._unary("CacheDataset", [name])

    def take(self, count: Any) -> Dataset:
        """The first `count` elements (all of them for -1)."""
        return self._unary("TakeDataset", [_int64(count, "count")])

    def skip(self, count: Any) -> Dataset:
        """All but the first `count` elements (none for -1)."""
        return self._unary("SkipDataset", [_int64(count, "count")])

    def shard(self, num_shards: Any, index: Any) -> Dataset:
        """Only 1/num_shards of the elements: those whose position modulo num_shards is index."""
        if isinstance(num_shards, (int, np.integer)) and num_shards <= 0:
            raise ValueError(f"num_shards must be greater than zero, got {num_shards}")
        static = isinstance(index, (int, np.integer)) and isinstance(num_shards, (int, np.integer))
        if static and not 0 <= index < num_shards:
            raise ValueError(f"index must be in [0, num_shards), got {index} of {num_shards}")
        attrs = {**st.op_attrs(self._structure), "require_non_empty": False}
        variant = dataset_ops.dataset_op(
            "ShardDataset",
            [self._variant_tensor, _int64(num_shards, "num_shards"), _int64(index, "index")],
            attrs,
        )
        return self._new(variant, self._structure)

    def batch(self, batch_size: Any, drop_remainder: bool = False) -> Dataset:
        """Combines consecutive elements into batches (the last one smaller unless dropped)."""
        size = _int64(batch_size, "batch_size")
        drop = _bool(drop_remainder, "drop_remainder")
        dim = _static_int(size) if _static_bool(drop) else None
        structure = st.batched(self._structure, dim)
        attrs = {**st.op_attrs(structure), "parallel_copy": False}
        variant = dataset_ops.dataset_op(
            "BatchDatasetV2", [self._variant_tensor, size, drop], attrs
        )
        return self._new(variant, structure)

    def padded_batch(
        self,
        batch_size: Any,
        padded_shapes: Any,
        padding_values: Any = None,
        drop_remainder: bool = False,
    ) -> Dataset:
        """Batches elements, padding each component to padded_shapes (-1/None: the longest)."""
        from tfcluster.lib.data import padding

        return padding.padded_batch(self, batch_size, padded_shapes, padding_values, drop_remainder)

    def map(self, map_func: Callable[..., Any], num_parallel_calls: Any = None) -> Dataset:
        """Maps map_func across the elements (num_parallel_calls of them at once)."""
        fn = StructuredFunction(map_func, "Dataset.map()", self._structure)
        attrs: dict[str, Any] = {"use_inter_op_parallelism": True, "preserve_cardinality": False}
        attrs.update(_vectorized_attr(fn, self._structure))
        if num_parallel_calls is None:
            return self._with_function("MapDataset", fn, [], [], attrs, fn.output_structure)
        calls = convert_to_tensor(num_parallel_calls, dtype=dtypes.int32, name="num_parallel_calls")
        attrs["sloppy"] = False
        return self._with_function(
            "ParallelMapDataset", fn, [], [calls], attrs, fn.output_structure
        )

    def map_with_legacy_function(
        self, map_func: Callable[..., Any], num_parallel_calls: Any = None
    ) -> Dataset:
        return self.map(map_func, num_parallel_calls)

    def flat_map(self, map_func: Callable[..., Any]) -> Dataset:
        """Maps map_func (returning a Dataset) across the elements and flattens the result."""
        fn = StructuredFunction(map_func, "Dataset.flat_map()", self._structure)
        inner = _returned_dataset(fn, "flat_map")
        return self._with_function("FlatMapDataset", fn, [], [], {}, inner)

    def interleave(
        self,
        map_func: Callable[..., Any],
        cycle_length: Any = AUTOTUNE,
        block_length: Any = 1,
        num_parallel_calls: Any = None,
    ) -> Dataset:
        """Maps map_func (returning a Dataset) and interleaves the results: cycle_length of
        them at a time, block_length elements from each in turn."""
        fn = StructuredFunction(map_func, "Dataset.interleave()", self._structure)
        inner = _returned_dataset(fn, "interleave")
        cycle = _int64(cycle_length, "cycle_length")
        block = _int64(block_length, "block_length")
        if num_parallel_calls is None:
            return self._with_function("InterleaveDataset", fn, [], [cycle, block], {}, inner)
        calls = _int64(num_parallel_calls, "num_parallel_calls")
        return self._with_function(
            "ParallelInterleaveDatasetV2", fn, [], [cycle, block, calls], {"sloppy": False}, inner
        )

    def filter(self, predicate: Callable[..., Any]) -> Dataset:
        """The elements for which predicate is true."""
        fn = StructuredFunction(predicate, "Dataset.filter()", self._structure)
        _check_predicate(fn, "predicate")
        return self._with_function(
            "FilterDataset", fn, [], [], {}, self._structure, func_attr="predicate"
        )

    def filter_with_legacy_function(self, predicate: Callable[..., Any]) -> Dataset:
        return self.filter(predicate)

    def apply(self, transformation_func: Callable[[Dataset], Dataset]) -> Dataset:
        """Applies a transformation function (tf.data.experimental's) to this dataset."""
        dataset = transformation_func(self)
        if not isinstance(dataset, Dataset):
            raise TypeError(
                f"`transformation_func` must return a Dataset. Got {type(dataset).__name__}."
            )
        return dataset

    def window(
        self, size: Any, shift: Any = None, stride: Any = 1, drop_remainder: bool = False
    ) -> Dataset:
        """Windows of `size` elements (a dataset per component), every `shift` elements."""
        size_t = _int64(size, "size")
        shift_t = size_t if shift is None else _int64(shift, "shift")
        inputs = [
            size_t,
            shift_t,
            _int64(stride, "stride"),
            _bool(drop_remainder, "drop_remainder"),
        ]
        structure = st.map_structure(lambda s: st.dataset_leaf(s), self._structure)
        return self._unary("WindowDataset", inputs, structure)

    def unbatch(self) -> Dataset:
        """Splits each element into the elements along its first dimension. As in TF, a map
        first boxes each sparse leaf row by row ([N, 3]) so that the split is along rows."""
        structure = self._structure

        def normalize(arg: Any, *rest: Any) -> tuple[Tensor, ...]:
            return tuple(st.to_batched_tensor_list((arg, *rest) if rest else arg))

        normalized = self.map(normalize)
        return normalized._unary("UnbatchDataset", [], st.unbatched(structure))

    def enumerate(self, start: Any = 0) -> Dataset:
        """(index, element) pairs, the index counting from start."""
        max_value = np.iinfo(np.int64).max
        return Dataset.zip((Dataset.range(start, max_value), self))

    def reduce(self, initial_state: Any, reduce_func: Callable[..., Any]) -> Any:
        """Reduces the elements to one value: state = reduce_func(state, element)."""
        from tfcluster.lib.data import reduction

        return reduction.reduce(self, initial_state, reduce_func)

    def with_options(self, options: Options) -> Dataset:
        """This dataset with `options` set (merged with those it has)."""
        return Dataset(self._variant_tensor, self._structure, [self], options, [])


class VariantDataset(Dataset):
    """A dataset known only by its variant tensor (a window's component inside a function)."""

    def __init__(self, variant: Tensor, structure: Any) -> None:
        super().__init__(variant, structure)


def _vectorized_attr(fn: StructuredFunction, input_structure: Any) -> dict[str, Any]:
    """{"vectorized_f": fn's batched form} when it has one and its elements can be batched
    (dense or sparse leaves, not datasets)."""
    leaves = [*st.flatten(input_structure), *st.flatten(fn.output_structure)]
    if any(s.kind == st.DATASET for s in leaves):
        return {}
    batched = fn.vectorized()
    return {} if batched is None else {"vectorized_f": batched}


def _returned_dataset(fn: StructuredFunction, what: str) -> Any:
    out = st.flatten(fn.output_structure)
    if len(out) != 1 or out[0].kind != st.DATASET or st.is_nested(fn.output_structure):
        raise TypeError(f"`map_func` must return a `Dataset` object (Dataset.{what}()).")
    return out[0].element


def _check_predicate(fn: StructuredFunction, what: str) -> None:
    specs = st.flatten(fn.output_structure)
    if (
        st.is_nested(fn.output_structure)
        or len(specs) != 1
        or specs[0].kind != st.DENSE
        or specs[0].dtype != dtypes.bool_
        or specs[0].shape.ndims not in (None, 0)
    ):
        raise ValueError(f"`{what}` return type must be convertible to a scalar boolean tensor.")


def _static_int(t: Tensor) -> int | None:
    from tfcluster.framework import tensor_util

    value = tensor_util.constant_value(t)
    return None if value is None else int(value)


def _static_bool(t: Tensor) -> bool:
    from tfcluster.framework import tensor_util

    value = tensor_util.constant_value(t)
    return bool(value) if value is not None else False


def same_graph(dataset: Dataset) -> None:
    """ValueError when the dataset was made in another graph than the default one."""
    graph = get_default_graph()
    if dataset._graph is not graph and not _encloses(dataset._graph, graph):
        raise ValueError("The dataset must be from the same graph as the current default graph.")


def _encloses(outer: Graph, inner: Graph) -> bool:
    g: Any = inner
    while g is not None:
        if g is outer:
            return True
        g = getattr(g, "outer_graph", None)
    return False


__all__ = ["AUTOTUNE", "Dataset", "VariantDataset"]
