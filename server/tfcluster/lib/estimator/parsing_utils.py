"""classifier_parse_example_spec / regressor_parse_example_spec (TF 1.15): the parsing spec
of the feature columns plus the label (and weight) features, for tf.parse_example."""

from __future__ import annotations

from typing import Any

from tfcluster.framework import dtypes
from tfcluster.lib.feature_column.dense_columns import _NumericColumn, numeric_column
from tfcluster.lib.feature_column.layers import make_parse_example_spec
from tfcluster.ops import parsing_ops


def _add_label_and_weight(
    spec: dict[str, Any], label_key: str, label_spec: Any, weight_column: Any
) -> dict[str, Any]:
    if label_key in spec:
        raise ValueError(
            f"label should not be used as feature. label_key: {label_key}, features: {spec.keys()}"
        )
    spec[label_key] = label_spec
    if weight_column is None:
        return spec
    if isinstance(weight_column, str):
        weight_column = numeric_column(weight_column)
    if not isinstance(weight_column, _NumericColumn):
        raise ValueError(
            "weight_column should be an instance of tf.feature_column.numeric_column. "
            f"Given type: {type(weight_column)} value: {weight_column}"
        )
    if weight_column.key in spec:
        raise ValueError(
            f"weight_column should not be used as feature. weight_column: {weight_column.key}, "
            f"features: {spec.keys()}"
        )
    spec.update(weight_column._parse_example_spec)
    return spec


def classifier_parse_example_spec(
    feature_columns: Any,
    label_key: str,
    label_dtype: Any = dtypes.int64,
    label_default: Any = None,
    weight_column: Any = None,
) -> dict[str, Any]:
    spec = dict(make_parse_example_spec(feature_columns))
    label = parsing_ops.FixedLenFeature((1,), label_dtype, label_default)
    return _add_label_and_weight(spec, label_key, label, weight_column)


def regressor_parse_example_spec(
    feature_columns: Any,
    label_key: str,
    label_dtype: Any = dtypes.float32,
    label_default: Any = None,
    label_dimension: int = 1,
    weight_column: Any = None,
) -> dict[str, Any]:
    spec = dict(make_parse_example_spec(feature_columns))
    label = parsing_ops.FixedLenFeature((label_dimension,), label_dtype, label_default)
    return _add_label_and_weight(spec, label_key, label, weight_column)
