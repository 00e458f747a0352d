"""tf.data.experimental.SqlDataset: the rows of a SQL query as elements (SQLite only, as TF)."""

from __future__ import annotations

from typing import Any

from tfcluster.framework import dtypes
from tfcluster.framework.graph import convert_to_tensor
from tfcluster.lib.data import structure as st
from tfcluster.lib.data.dataset import Dataset
from tfcluster.ops import dataset_ops


class SqlDataset(Dataset):
    """A Dataset consisting of the results from a SQL query."""

    _repr_name = "SqlDatasetV1"

    def __init__(self, driver_name: Any, data_source_name: Any, query: Any, output_types: Any):
        driver = convert_to_tensor(driver_name, dtype=dtypes.string, name="driver_name")
        source = convert_to_tensor(data_source_name, dtype=dtypes.string, name="data_source_name")
        query_t = convert_to_tensor(query, dtype=dtypes.string, name="query")
        structure = st.map_structure(lambda t: st.dense(t, []), output_types)
        variant = dataset_ops.dataset_op(
            "SqlDataset", [driver, source, query_t], st.op_attrs(structure)
        )
        super().__init__(variant, structure)
