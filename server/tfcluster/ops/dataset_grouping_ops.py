"""Graph ops of tf.data.experimental's grouping and writing transformations: each dataset op
outputs a scalar variant, like the rest of ops/dataset_ops.py; DatasetToTFRecord writes a
dataset of strings to a file when run."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tfcluster.framework import dtypes, op_def_registry
from tfcluster.framework.graph import Tensor
from tfcluster.framework.tensor_shape import TensorShape
from tfcluster.ops.op_util import Outputs

GROUPING_OPS = ("GroupByWindowDataset", "GroupByReducerDataset", "DenseToSparseBatchDataset")


def _dataset_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    return [(dtypes.variant, TensorShape([]))]


for _op in GROUPING_OPS:
    # The dataset input is a reference (see dataset_ops): the pipeline stays on its task.
    op_def_registry.register(_op, _dataset_infer, ref_inputs=(0,))
op_def_registry.register(
    "DatasetToTFRecord", op_def_registry.no_outputs, ref_inputs=(0,), stateful=True
)

OP_TYPES = (*GROUPING_OPS, "DatasetToTFRecord")

__all__: list[str] = []
