"""tf.data.experimental.to_variant / from_variant: a dataset as its variant tensor and back
(a dataset made by a raw op is read this way)."""

from __future__ import annotations

from typing import Any

from tfcluster.framework import dtypes
from tfcluster.framework.graph import Tensor
from tfcluster.framework.type_spec import SparseTensorSpec, TensorSpec
from tfcluster.lib.data import structure as st
from tfcluster.lib.data.dataset import Dataset, VariantDataset
from tfcluster.lib.data.type_specs import DatasetSpec


def to_variant(dataset: Dataset) -> Tensor:
    """The scalar variant tensor that is `dataset`."""
    return dataset._variant_tensor


def _leaf(spec: Any) -> st.Spec:
    if isinstance(spec, st.Spec):
        return spec
    if isinstance(spec, DatasetSpec):
        return st.dataset_leaf(st.map_structure(_leaf, spec._element_spec))
    if isinstance(spec, SparseTensorSpec):
        return st.sparse(spec.dtype, spec.shape)
    if isinstance(spec, TensorSpec):
        return st.dense(spec.dtype, spec.shape)
    raise TypeError(
        f"from_variant: an element structure of TensorSpec / SparseTensorSpec / DatasetSpec "
        f"was expected, got {type(spec).__name__}"
    )


def from_variant(variant: Tensor, structure: Any) -> Dataset:
    """The dataset whose variant tensor is `variant`, with elements of `structure` (the
    TypeSpecs a dataset's element_spec / tf.data.experimental.get_structure gives)."""
    if not isinstance(variant, Tensor) or variant.dtype.base_dtype != dtypes.variant:
        raise TypeError(f"from_variant: a variant tensor was expected, got {variant!r}")
    return VariantDataset(variant, st.map_structure(_leaf, structure))
