"""tf.data.experimental.TFRecordWriter: writes a dataset of scalar strings to a TFRecord
file (the DatasetToTFRecord op, run like any other op)."""

from __future__ import annotations

from typing import Any

from tfcluster.framework import dtypes
from tfcluster.framework.graph import Operation, convert_to_tensor
from tfcluster.lib.data import structure as st
from tfcluster.lib.data.dataset import Dataset
from tfcluster.ops import (
    dataset_grouping_ops,  # noqa: F401 - registers DatasetToTFRecord
    dataset_ops,
)


class TFRecordWriter:
    """Writes a dataset to a TFRecord file."""

    def __init__(self, filename: Any, compression_type: Any = None) -> None:
        self._filename = convert_to_tensor(filename, dtypes.string, name="filename")
        self._compression_type = convert_to_tensor(
            "" if compression_type is None else compression_type,
            dtypes.string,
            name="compression_type",
        )

    def write(self, dataset: Dataset) -> Operation:
        """The op that writes every element of `dataset` as one record."""
        if not isinstance(dataset, Dataset):
            raise TypeError("`dataset` must be a `tf.data.Dataset` object.")
        specs = st.flatten(dataset._structure)
        if (
            st.is_nested(dataset._structure)
            or len(specs) != 1
            or specs[0].kind != st.DENSE
            or specs[0].dtype != dtypes.string
            or specs[0].shape.ndims not in (None, 0)
        ):
            raise TypeError(
                "`dataset` must produce scalar `DT_STRING` tensors whereas it produces shape "
                f"{dataset.output_shapes} and types {dataset.output_types}"
            )
        return dataset_ops.create(
            "DatasetToTFRecord",
            [dataset._variant_tensor, self._filename, self._compression_type],
            {},
        )


__all__ = ["TFRecordWriter"]
