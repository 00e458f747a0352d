"""tf.data's file datasets: TFRecordDataset, TextLineDataset, FixedLengthRecordDataset.

`filenames` is a string tensor (a scalar or a vector), a list of names, or a dataset of
names. With `num_parallel_reads` the files are read that many at a time, their records
interleaved one by one, each file in a thread of its own (as TF's parallel interleave).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tfcluster.framework import dtypes
from tfcluster.framework.graph import Tensor, convert_to_tensor, get_default_graph
from tfcluster.lib.data import structure as st
from tfcluster.lib.data.dataset import DEFAULT_READER_BUFFER_SIZE_BYTES, Dataset, _int64
from tfcluster.ops import dataset_ops

_STRING = st.dense(dtypes.string, [])


def _filenames_tensor(filenames: Any) -> Tensor:
    t = convert_to_tensor(filenames, dtype=dtypes.string, name="filenames")
    if t.dtype.base_dtype != dtypes.string:
        raise TypeError("`filenames` must be a `tf.Tensor` of `tf.string` elements.")
    if t.shape.ndims not in (None, 0, 1):
        raise ValueError(f"`filenames` must be a scalar or a vector, but has shape {t.shape}.")
    return t


def _compression(compression_type: Any) -> Tensor:
    return convert_to_tensor(
        "" if compression_type is None else compression_type,
        dtype=dtypes.string,
        name="compression_type",
    )


def _read(
    filenames: Any,
    one_reader: Callable[[Tensor], Dataset],
    num_parallel_reads: Any,
) -> Dataset:
    """The records of the files, read one file after the other or num_parallel_reads at once."""
    if isinstance(filenames, Dataset):
        names = filenames
        if names.output_types != dtypes.string:
            raise TypeError("`filenames` must be a `tf.data.Dataset` of `tf.string` elements.")
    elif num_parallel_reads is None:
        graph = get_default_graph()
        start = graph._op_count()
        names_t = _filenames_tensor(filenames)
        made_for_names = graph._op_count() - start  # a Const of names given as Python values
        dataset = one_reader(names_t)
        # TF 1.15 reads them through Reshape (flat_filenames, its shape a Const),
        # TensorSliceDataset and FlatMapDataset, the reader inside the map function: count as
        # those four (later ops' seeds derive from the count), not as this reader's ops.
        graph._match_tf1_op_count(made_for_names + 4 - (graph._op_count() - start))
        return dataset
    else:
        names = Dataset.from_tensor_slices(_filenames_tensor(filenames))
    if num_parallel_reads is None:
        return names.flat_map(one_reader)
    from tfcluster.lib.data import experimental

    return names.apply(
        experimental.parallel_interleave(one_reader, cycle_length=num_parallel_reads)
    )


class _FileDataset(Dataset):
    """A file dataset: a Dataset whose class is the reader's, as in TF."""

    def __init__(self, impl: Dataset) -> None:
        super().__init__(impl._variant_tensor, impl._structure, impl._inputs, impl._options)
        self._impl = impl


class TFRecordDataset(_FileDataset):
    """A Dataset comprising records from one or more TFRecord files."""

    _repr_name = "TFRecordDatasetV1"

    def __init__(
        self,
        filenames: Any,
        compression_type: Any = None,
        buffer_size: Any = None,
        num_parallel_reads: Any = None,
    ) -> None:
        def one(names: Tensor) -> Dataset:
            kind = _compression(compression_type)
            size = _int64(
                DEFAULT_READER_BUFFER_SIZE_BYTES if buffer_size is None else buffer_size,
                "buffer_size",
            )
            variant = dataset_ops.dataset_op(
                "TFRecordDataset", [names, kind, size], st.op_attrs(_STRING)
            )
            return Dataset(variant, _STRING)

        super().__init__(_read(filenames, one, num_parallel_reads))


class TextLineDataset(_FileDataset):
    """A Dataset comprising lines from one or more text files."""

    _repr_name = "TextLineDatasetV1"

    def __init__(
        self,
        filenames: Any,
        compression_type: Any = None,
        buffer_size: Any = None,
        num_parallel_reads: Any = None,
    ) -> None:
        def one(names: Tensor) -> Dataset:
            kind = _compression(compression_type)
            size = _int64(256 * 1024 if buffer_size is None else buffer_size, "buffer_size")
            variant = dataset_ops.dataset_op(
                "TextLineDataset", [names, kind, size], st.op_attrs(_STRING)
            )
            return Dataset(variant, _STRING)

        super().__init__(_read(filenames, one, num_parallel_reads))


class FixedLengthRecordDataset(_FileDataset):
    """A Dataset of fixed-length records from one or more binary files."""

    _repr_name = "FixedLengthRecordDatasetV1"

    def __init__(
        self,
        filenames: Any,
        record_bytes: Any,
        header_bytes: Any = None,
        footer_bytes: Any = None,
        buffer_size: Any = None,
        compression_type: Any = None,
        num_parallel_reads: Any = None,
    ) -> None:
        def one(names: Tensor) -> Dataset:
            inputs = [
                names,
                _int64(0 if header_bytes is None else header_bytes, "header_bytes"),
                _int64(record_bytes, "record_bytes"),
                _int64(0 if footer_bytes is None else footer_bytes, "footer_bytes"),
                _int64(256 * 1024 if buffer_size is None else buffer_size, "buffer_size"),
                _compression(compression_type),
            ]
            variant = dataset_ops.dataset_op(
                "FixedLengthRecordDatasetV2", inputs, st.op_attrs(_STRING)
            )
            return Dataset(variant, _STRING)

        super().__init__(_read(filenames, one, num_parallel_reads))
