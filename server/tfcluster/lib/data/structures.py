"""tf.data.experimental's structure names of TF 1.15: the deprecated *Structure constructors
(each makes the TypeSpec that replaced it) and get_structure (a dataset's or iterator's
element_spec)."""

from __future__ import annotations

from typing import Any

from tfcluster.framework.type_spec import SparseTensorSpec, TensorSpec
from tfcluster.ops.composite_specs import TensorArraySpec
from tfcluster.ops.ragged_tensor import RaggedTensorSpec


def TensorStructure(dtype: Any, shape: Any) -> TensorSpec:
    return TensorSpec(shape, dtype)


def SparseTensorStructure(dtype: Any, shape: Any) -> SparseTensorSpec:
    return SparseTensorSpec(shape, dtype)


def RaggedTensorStructure(dtype: Any, shape: Any, ragged_rank: int) -> RaggedTensorSpec:
    return RaggedTensorSpec(shape, dtype, ragged_rank)


def TensorArrayStructure(
    dtype: Any, element_shape: Any, dynamic_size: bool, infer_shape: bool
) -> TensorArraySpec:
    return TensorArraySpec(element_shape, dtype, dynamic_size, infer_shape)


def get_structure(dataset_or_iterator: Any) -> Any:
    try:
        return dataset_or_iterator.element_spec
    except AttributeError:
        raise TypeError(
            "`dataset_or_iterator` must be a Dataset or Iterator object, but got "
            f"{type(dataset_or_iterator)}."
        ) from None
