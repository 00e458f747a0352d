"""tf.data.experimental's transformations and helpers that TF1 programs use."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from tfcluster.framework import dtypes
from tfcluster.framework.graph import Tensor, convert_to_tensor
from tfcluster.framework.tensor_shape import TensorShape
from tfcluster.lib.data import structure as st
from tfcluster.lib.data.dataset import (
    AUTOTUNE,
    Dataset,
    _bool,
    _int64,
    _seeds,
    _vectorized_attr,
)
from tfcluster.lib.data.function import StructuredFunction
from tfcluster.lib.data.reduction import get_single_element
from tfcluster.ops import dataset_ops

INFINITE_CARDINALITY = -1
UNKNOWN_CARDINALITY = -2
Transformation = Callable[[Dataset], Dataset]


def map_and_batch(
    map_func: Callable[..., Any],
    batch_size: Any,
    num_parallel_batches: Any = None,
    drop_remainder: bool = False,
    num_parallel_calls: Any = None,
) -> Transformation:
    """Fused map and batch: map_func over the elements, then batches of batch_size."""
    if num_parallel_batches is not None and num_parallel_calls is not None:
        raise ValueError(
            "The `num_parallel_batches` and `num_parallel_calls` arguments are mutually exclusive."
        )

    def apply(dataset: Dataset) -> Dataset:
        fn = StructuredFunction(
            map_func, "tf.data.experimental.map_and_batch()", dataset._structure
        )
        size = _int64(batch_size, "batch_size")
        if num_parallel_calls is not None:
            calls: Any = _int64(num_parallel_calls, "num_parallel_calls")
        elif num_parallel_batches is not None:
            calls = size * _int64(num_parallel_batches, "num_parallel_batches")
        else:
            calls = size
        drop = _bool(drop_remainder, "drop_remainder")
        from tfcluster.lib.data.dataset import _static_bool, _static_int

        dim = _static_int(size) if _static_bool(drop) else None
        structure = st.batched(fn.output_structure, dim)
        attrs = {"preserve_cardinality": False, **_vectorized_attr(fn, dataset._structure)}
        return dataset._with_function(
            "MapAndBatchDataset", fn, [], [size, calls, drop], attrs, structure
        )

    return apply


def map_and_batch_with_legacy_function(
    map_func: Callable[..., Any],
    batch_size: Any,
    num_parallel_batches: Any = None,
    drop_remainder: bool = False,
    num_parallel_calls: Any = None,
) -> Transformation:
    """map_and_batch with map_func traced as a TF1 `Defun` (TF 1.15 keeps it for functions
    that need the legacy tracing): tfcluster traces both kinds the same way."""
    return map_and_batch(
        map_func, batch_size, num_parallel_batches, drop_remainder, num_parallel_calls
    )


def parallel_interleave(
    map_func: Callable[..., Any],
    cycle_length: Any,
    block_length: Any = 1,
    sloppy: bool = False,
    buffer_output_elements: Any = None,
    prefetch_input_elements: Any = None,
) -> Transformation:
    """A parallel interleave: cycle_length datasets read at once, each in its own thread."""

    def apply(dataset: Dataset) -> Dataset:
        fn = StructuredFunction(
            map_func, "tf.data.experimental.parallel_interleave()", dataset._structure
        )
        from tfcluster.lib.data.dataset import _returned_dataset

        inner = _returned_dataset(fn, "parallel_interleave")
        cycle = _int64(cycle_length, "cycle_length")
        block = _int64(block_length, "block_length")
        buffered = _int64(
            2 * block_length if buffer_output_elements is None else buffer_output_elements,
            "buffer_output_elements",
        )
        ahead = _int64(
            2 * cycle_length if prefetch_input_elements is None else prefetch_input_elements,
            "prefetch_input_elements",
        )
        after = [cycle, block, _bool(sloppy, "sloppy"), buffered, ahead]
        return dataset._with_function("ParallelInterleaveDataset", fn, [], after, {}, inner)

    return apply


def shuffle_and_repeat(buffer_size: Any, count: Any = None, seed: Any = None) -> Transformation:
    """Shuffles and repeats: each epoch in a new order, epochs not mixed."""

    def apply(dataset: Dataset) -> Dataset:
        # In TF 1.15's order: the seeds' op seed counts the count's constant.
        size = _int64(buffer_size, "buffer_size")
        n = _int64(-1 if count is None else count, "count")
        seed_t, seed2_t = _seeds(seed)
        variant = dataset_ops.dataset_op(
            "ShuffleAndRepeatDataset",
            [dataset._variant_tensor, size, seed_t, seed2_t, n],
            st.op_attrs(dataset._structure),
        )
        return Dataset(variant, dataset._structure, [dataset])

    return apply


def ignore_errors() -> Transformation:
    """Drops the elements whose computation raised an error."""

    def apply(dataset: Dataset) -> Dataset:
        return dataset._unary("IgnoreErrorsDataset", [])

    return apply


def prefetch_to_device(device: str, buffer_size: Any = None) -> Transformation:
    """Prefetches elements: tfcluster's elements stay on the host of the iterator's task and
    move to a device when an op there reads them, so this is a prefetch."""

    def apply(dataset: Dataset) -> Dataset:
        return dataset.prefetch(AUTOTUNE if buffer_size is None else buffer_size)

    return apply


def copy_to_device(target_device: str, source_device: str = "/cpu:0") -> Transformation:
    """Accepted for TF programs: elements reach a device when an op there reads them."""

    def apply(dataset: Dataset) -> Dataset:
        return dataset

    return apply


def unbatch() -> Transformation:
    """Splits elements of a dataset into multiple elements on the batch dimension."""
    return lambda dataset: dataset.unbatch()


def enumerate_dataset(start: Any = 0) -> Transformation:
    """(index, element) pairs."""
    return lambda dataset: dataset.enumerate(start)


def scan(initial_state: Any, scan_func: Callable[..., Any]) -> Transformation:
    """scan_func(state, element) -> (new_state, output) across the elements."""

    def apply(dataset: Dataset) -> Dataset:
        state = st.normalize_element(initial_state)
        state_structure = st.structure_of(state)
        state_specs = st.tensor_list_specs(state_structure)
        n_state = len(state_specs)
        element_specs = st.tensor_list_specs(dataset._structure)

        def body(*args: Any) -> Any:
            s = st.from_tensor_list(state_structure, args[:n_state])
            e = st.from_tensor_list(dataset._structure, args[n_state:])
            result = scan_func(s, e)
            if not isinstance(result, tuple) or len(result) != 2:
                raise TypeError(
                    "The scan function must return a pair comprising the new state "
                    "and the output value."
                )
            return result

        fn = StructuredFunction(
            body, "tf.data.experimental.scan()", input_tensors=[*state_specs, *element_specs]
        )
        new_state_structure, out_structure = fn.output_structure
        if [s.dtype for s in st.flatten(new_state_structure)] != [dt for dt, _ in state_specs]:
            raise TypeError(
                "The element types for the new state must match the initial state. Expected "
                f"{st.output_types(state_structure)}; got {st.output_types(new_state_structure)}."
            )
        attrs = {
            **st.op_attrs(out_structure),
            "f": fn.function,
            "Tstate": [dt for dt, _ in state_specs],
            "Targuments": fn.captured_types,
            "preserve_cardinality": False,
        }
        inputs = [dataset._variant_tensor, *st.to_tensor_list(state), *fn.captured_inputs]
        op = dataset_ops.create("ScanDataset", inputs, attrs, control_inputs=fn.control_inputs)
        return Dataset(op.outputs[0], out_structure, [dataset], functions=[fn])

    return apply


def take_while(predicate: Callable[..., Any]) -> Transformation:
    """The elements up to (not including) the first for which predicate is false."""

    def apply(dataset: Dataset) -> Dataset:
        from tfcluster.lib.data.dataset import _check_predicate

        fn = StructuredFunction(predicate, "tf.data.experimental.take_while()", dataset._structure)
        _check_predicate(fn, "predicate")
        return dataset._with_function(
            "TakeWhileDataset", fn, [], [], {}, dataset._structure, func_attr="predicate"
        )

    return apply


def unique() -> Transformation:
    """The elements with duplicates dropped (single int32, int64 or string components)."""

    def apply(dataset: Dataset) -> Dataset:
        specs = st.flatten(dataset._structure)
        if len(specs) != 1 or specs[0].dtype not in (dtypes.int32, dtypes.int64, dtypes.string):
            raise TypeError(
                "`tf.data.experimental.unique()` only supports datasets with a "
                "single `tf.int32`, `tf.int64`, or `tf.string` component."
            )
        return dataset._unary("UniqueDataset", [])

    return apply


def cardinality(dataset: Dataset) -> Tensor:
    """The number of elements of `dataset` (INFINITE_CARDINALITY, UNKNOWN_CARDINALITY)."""
    op = dataset_ops.create("DatasetCardinality", [dataset._variant_tensor], {})
    return op.outputs[0]


def Counter(start: Any = 0, step: Any = 1, dtype: Any = dtypes.int64) -> Dataset:
    """An unbounded dataset counting from start by step."""
    dtype = dtypes.as_dtype(dtype)
    if isinstance(step, (int, np.integer)) and step < 0:
        stop: Any = np.iinfo(np.int64).min
    else:
        stop = np.iinfo(np.int64).max
    counter = Dataset.range(start, stop, step)
    if dtype != dtypes.int64:
        from tfcluster.ops import math_ops

        counter = counter.map(lambda x: math_ops.cast(x, dtype))
    return counter


class RandomDataset(Dataset):
    """A Dataset of pseudorandom int64 values."""

    _repr_name = "RandomDatasetV1"

    def __init__(self, seed: Any = None) -> None:
        seed_t, seed2_t = _seeds(seed)
        structure = st.dense(dtypes.int64, [])
        variant = dataset_ops.dataset_op("RandomDataset", [seed_t, seed2_t], st.op_attrs(structure))
        super().__init__(variant, structure)


def _same_structure(datasets: Sequence[Dataset]) -> None:
    first = datasets[0]
    for d in datasets[1:]:
        if not st.same_structure(first._structure, d._structure) or [
            (s.dtype, s.kind) for s in st.flatten(first._structure)
        ] != [(s.dtype, s.kind) for s in st.flatten(d._structure)]:
            raise TypeError(
                "Datasets must have the same type and compatible structure: "
                f"{first.output_types!r} and {d.output_types!r}"
            )


def _directed(selector: Dataset, datasets: Sequence[Dataset]) -> Dataset:
    _same_structure(datasets)
    structure = datasets[0]._structure
    variant = dataset_ops.dataset_op(
        "DirectedInterleaveDataset",
        [selector._variant_tensor, *[d._variant_tensor for d in datasets]],
        {**st.op_attrs(structure), "N": len(datasets)},
    )
    return Dataset(variant, structure, [selector, *datasets])


def choose_from_datasets(datasets: Sequence[Dataset], choice_dataset: Dataset) -> Dataset:
    """The element of datasets[i] for each i that choice_dataset yields."""
    if choice_dataset.output_types != dtypes.int64 or choice_dataset.output_shapes.ndims != 0:
        raise TypeError("`choice_dataset` must be a dataset of scalar `tf.int64` tensors.")
    return _directed(choice_dataset, list(datasets))


def sample_from_datasets(
    datasets: Sequence[Dataset], weights: Any = None, seed: Any = None
) -> Dataset:
    """Elements drawn at random from `datasets`, dataset i with probability weights[i]: TF
    1.15's selector, a StatelessMultinomial over log(weights) seeded by each pair of
    RandomDataset(seed) values, so the same seed draws TF's sequence."""
    from tfcluster.ops import array_ops, math_ops, random_sampling_ops

    datasets = list(datasets)
    num_datasets = len(datasets)

    def draw(logits: Any, seed_pair: Tensor) -> Tensor:
        picked = random_sampling_ops.stateless_multinomial(logits, 1, seed=seed_pair)
        return array_ops.squeeze(picked, axis=[0, 1])

    if isinstance(weights, Dataset):
        logits_ds = weights.map(lambda *p: math_ops.log(p, name="logits"))
        pairs = Dataset.zip((logits_ds, RandomDataset(seed).batch(2)))
        return _directed(pairs.map(draw), datasets)
    if weights is None:
        logits: Any = [[1.0] * num_datasets]
    else:
        weights = convert_to_tensor(weights, name="weights")
        if weights.dtype not in (dtypes.float32, dtypes.float64):
            raise TypeError(
                "`weights` must be convertible to a tensor of `tf.float32` or `tf.float64` "
                "elements."
            )
        if not weights.shape.is_compatible_with([num_datasets]):
            raise ValueError("`weights` must be a vector of length `len(datasets)`.")
        logits = array_ops.expand_dims(math_ops.log(weights, name="logits"), 0)
    if num_datasets == 1:
        return datasets[0]
    selector = RandomDataset(seed).batch(2).map(lambda seed_pair: draw(logits, seed_pair))
    return _directed(selector, datasets)


def parse_example_dataset(features: Any, num_parallel_calls: Any = 1) -> Transformation:
    """Parses batches of serialized Examples into dicts of features (parse_example)."""
    if features is None:
        raise ValueError(f"Missing: features was {features}.")

    def apply(dataset: Dataset) -> Dataset:
        from tfcluster.ops import parsing_ops

        out = _parse_example_dataset(dataset, features, num_parallel_calls)
        if any(isinstance(f, parsing_ops.SparseFeature) for f in features.values()):
            # As TF: each SparseFeature merged from its index and value features.
            out = out.map(
                lambda parsed: parsing_ops._with_sparse_features(features, parsed),
                num_parallel_calls=num_parallel_calls,
            )
        return out

    return apply


def _parse_example_dataset(dataset: Dataset, features: Any, num_parallel_calls: Any) -> Dataset:
    """TF 1.15's _ParseExampleDataset: one ParseExampleDataset op; its element is a dict of
    the parsed features (and the index / value features of SparseFeatures)."""
    from tfcluster.ops import parsing_ops

    element = dataset._structure
    if not (
        isinstance(element, st.Spec)
        and element.kind == "dense"
        and element.dtype == dtypes.string
        and element.shape.ndims in (None, 1)
    ):
        raise TypeError("Input dataset should be a dataset of vectors of strings")
    params = parsing_ops._RawParams(
        features,
        (
            parsing_ops.VarLenFeature,
            parsing_ops.SparseFeature,
            parsing_ops.FixedLenFeature,
            parsing_ops.FixedLenSequenceFeature,
        ),
    )
    defaults = params.default_tensors()
    batch = element.shape if element.shape.ndims is not None else TensorShape([None])
    structure: dict[str, Any] = {}
    for key, dtype, shape in zip(params.dense_keys, params.dense_types, params.dense_shapes):
        structure[key] = st.dense(dtype, batch.concatenate(shape))
    for key, dtype in zip(params.sparse_keys, params.sparse_types):
        structure[key] = st.sparse(dtype, batch.concatenate([None]))
    attrs = {
        "sparse_keys": params.sparse_keys,
        "dense_keys": params.dense_keys,
        "sparse_types": params.sparse_types,
        "Tdense": params.dense_types,
        "dense_shapes": params.dense_shapes,
        "sloppy": False,
        **st.op_attrs(structure),
    }
    calls = convert_to_tensor(num_parallel_calls, dtype=dtypes.int64, name="num_parallel_calls")
    variant = dataset_ops.dataset_op(
        "ParseExampleDataset", [dataset._variant_tensor, calls, *defaults], attrs
    )
    return Dataset(variant, structure, [dataset])


def make_batched_features_dataset(
    file_pattern: Any,
    batch_size: int,
    features: Any,
    reader: Any = None,
    label_key: str | None = None,
    reader_args: Sequence[Any] | None = None,
    num_epochs: int | None = None,
    shuffle: bool = True,
    shuffle_buffer_size: int = 10000,
    shuffle_seed: Any = None,
    prefetch_buffer_size: Any = None,
    reader_num_threads: Any = None,
    parser_num_threads: Any = None,
    sloppy_ordering: bool = False,
    drop_final_batch: bool = False,
) -> Dataset:
    """Batches of parsed Examples read from the files matching file_pattern."""
    from tfcluster.lib.data.readers import TFRecordDataset

    reader = TFRecordDataset if reader is None else reader
    args = list(reader_args or ())
    threads = 1 if reader_num_threads is None else reader_num_threads
    dataset = Dataset.list_files(file_pattern, shuffle=shuffle, seed=shuffle_seed)
    if threads == AUTOTUNE:
        dataset = dataset.interleave(lambda f: reader(f, *args), num_parallel_calls=AUTOTUNE)
    else:
        dataset = dataset.apply(
            parallel_interleave(
                lambda f: reader(f, *args), cycle_length=threads, sloppy=sloppy_ordering
            )
        )
    if dataset.output_types == (dtypes.string, dtypes.string):
        dataset = dataset.map(lambda _, v: v)
    if num_epochs != 1 and shuffle:
        dataset = dataset.apply(shuffle_and_repeat(shuffle_buffer_size, num_epochs, shuffle_seed))
    elif shuffle:
        dataset = dataset.shuffle(shuffle_buffer_size, shuffle_seed)
    elif num_epochs != 1:
        dataset = dataset.repeat(num_epochs)
    dataset = dataset.batch(batch_size, drop_remainder=drop_final_batch)
    calls = 2 if parser_num_threads is None else parser_num_threads
    dataset = dataset.apply(parse_example_dataset(features, num_parallel_calls=calls))
    if label_key:
        if label_key not in features:
            raise ValueError(
                f"The `label_key` provided ({label_key}) must be one of the `features` keys."
            )
        dataset = dataset.map(lambda x: (x, x.pop(label_key)))
    return dataset.prefetch(AUTOTUNE if prefetch_buffer_size is None else prefetch_buffer_size)


__all__ = [
    "AUTOTUNE",
    "INFINITE_CARDINALITY",
    "UNKNOWN_CARDINALITY",
    "Counter",
    "RandomDataset",
    "cardinality",
    "choose_from_datasets",
    "copy_to_device",
    "enumerate_dataset",
    "get_single_element",
    "ignore_errors",
    "make_batched_features_dataset",
    "map_and_batch",
    "parallel_interleave",
    "parse_example_dataset",
    "prefetch_to_device",
    "sample_from_datasets",
    "scan",
    "shuffle_and_repeat",
    "take_while",
    "unbatch",
    "unique",
]
