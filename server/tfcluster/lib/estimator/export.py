"""Serving input receivers (tf.estimator.export): the placeholders a served model is fed and
the features its model_fn gets from them."""

from __future__ import annotations

import collections
from typing import Any

from tfcluster.framework import dtypes
from tfcluster.framework.graph import Tensor
from tfcluster.framework.sparse_tensor import SparseTensor
from tfcluster.ops import array_ops, parsing_ops

SINGLE_FEATURE_DEFAULT_NAME = "feature"
SINGLE_RECEIVER_DEFAULT_NAME = "input"
SINGLE_LABEL_DEFAULT_NAME = "label"


def _wrap(value: Any, default_name: str) -> dict[str, Any]:
    if value is None:
        return {}
    if not isinstance(value, dict):
        value = {default_name: value}
    for k, v in value.items():
        if not isinstance(k, str):
            raise ValueError(f"{default_name} keys must be strings: {k}.")
        if not isinstance(v, (Tensor, SparseTensor)):
            raise ValueError(f"{default_name} {k} must be a Tensor or SparseTensor.")
    return dict(value)


class ServingInputReceiver(
    collections.namedtuple(
        "ServingInputReceiver",
        ["features", "receiver_tensors", "receiver_tensors_alternatives"],
    )
):
    """features: what the model_fn gets; receiver_tensors: what a request feeds."""

    def __new__(
        cls, features: Any, receiver_tensors: Any, receiver_tensors_alternatives: Any = None
    ) -> ServingInputReceiver:
        if features is None:
            raise ValueError("features must be defined.")
        features = _wrap(features, SINGLE_FEATURE_DEFAULT_NAME)
        receiver_tensors = _wrap(receiver_tensors, SINGLE_RECEIVER_DEFAULT_NAME)
        if not receiver_tensors:
            raise ValueError("receiver_tensors must be defined.")
        return super().__new__(cls, features, receiver_tensors, receiver_tensors_alternatives)


class TensorServingInputReceiver(
    collections.namedtuple(
        "TensorServingInputReceiver",
        ["features", "receiver_tensors", "receiver_tensors_alternatives"],
    )
):
    """Like ServingInputReceiver, but the model_fn gets one Tensor, not a dict."""

    def __new__(
        cls, features: Any, receiver_tensors: Any, receiver_tensors_alternatives: Any = None
    ) -> TensorServingInputReceiver:
        if features is None:
            raise ValueError("features must be defined.")
        if not isinstance(features, (Tensor, SparseTensor)):
            raise ValueError(f"feature must be a Tensor or SparseTensor. Given: {features}")
        receiver_tensors = _wrap(receiver_tensors, SINGLE_RECEIVER_DEFAULT_NAME)
        return super().__new__(cls, features, receiver_tensors, receiver_tensors_alternatives)


def build_parsing_serving_input_receiver_fn(
    feature_spec: dict[str, Any], default_batch_size: int | None = None
) -> Any:
    """A receiver fed serialized tf.Examples, parsed with feature_spec."""

    def serving_input_receiver_fn() -> ServingInputReceiver:
        serialized = array_ops.placeholder(
            dtype=dtypes.string, shape=[default_batch_size], name="input_example_tensor"
        )
        features = parsing_ops.parse_example(serialized, feature_spec)
        return ServingInputReceiver(features, {"examples": serialized})

    return serving_input_receiver_fn


def build_raw_serving_input_receiver_fn(
    features: dict[str, Any], default_batch_size: int | None = None
) -> Any:
    """A receiver fed each feature directly (placeholders shaped like the given tensors)."""

    def serving_input_receiver_fn() -> ServingInputReceiver:
        receivers: dict[str, Any] = {}
        for name, t in features.items():
            shape = [default_batch_size, *list(t.shape.as_list()[1:])] if t.shape.ndims else None
            receivers[name] = array_ops.placeholder(
                dtype=t.dtype.base_dtype, shape=shape, name=name
            )
        return ServingInputReceiver(dict(receivers), receivers)

    return serving_input_receiver_fn
