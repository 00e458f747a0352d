"""Serving input receivers (tf.estimator.export): the placeholders a served model is fed and
the features its model_fn gets from them."""

from __future__ import annotations

import collections
from typing import Any

from tfcluster.framework import dtypes
from tfcluster.framework.graph import Tensor
from tfcluster.framework.sparse_tensor import SparseTensor
from tfcluster.framework.tensor_shape import TensorShape
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
        receivers = _placeholders_like(features, default_batch_size)
        return ServingInputReceiver(receivers, receivers)

    return serving_input_receiver_fn


def _placeholder_like(t: Any, default_batch_size: int | None) -> Tensor:
    """A placeholder of t's dtype, its shape with the batch dimension default_batch_size,
    named as t's op (TF reuses the op name)."""
    shape = TensorShape([default_batch_size]).concatenate(t.shape[1:])
    return array_ops.placeholder(dtype=t.dtype.base_dtype, shape=shape, name=t.op.name)


def _placeholders_like(tensors: dict[Any, Any], default_batch_size: int | None) -> dict[Any, Any]:
    return {name: _placeholder_like(t, default_batch_size) for name, t in tensors.items()}


class SupervisedInputReceiver(
    collections.namedtuple("SupervisedInputReceiver", ["features", "labels", "receiver_tensors"])
):
    """What a TRAIN or EVAL export's input receiver gives: features and labels (each a
    tensor or a dict of them) and the tensors a request feeds."""

    def __new__(cls, features: Any, labels: Any, receiver_tensors: Any) -> SupervisedInputReceiver:
        for value, field in ((features, "feature"), (labels, "label")):
            if value is None:
                raise ValueError(f"{field}s must be defined.")
            # Integer keys are allowed here (multi-head labels), unlike receiver tensors.
            checked = value if isinstance(value, dict) else {None: value}
            for k, v in checked.items():
                if not isinstance(v, (Tensor, SparseTensor)):
                    raise ValueError(f"{field} {k} must be a Tensor or SparseTensor.")
        receiver_tensors = _wrap(receiver_tensors, SINGLE_RECEIVER_DEFAULT_NAME)
        return super().__new__(cls, features, labels, receiver_tensors)


def build_raw_supervised_input_receiver_fn(
    features: Any, labels: Any, default_batch_size: int | None = None
) -> Any:
    """A receiver fed features and labels directly (placeholders like the given tensors)."""
    feature_keys = features.keys() if isinstance(features, dict) else [SINGLE_RECEIVER_DEFAULT_NAME]
    label_keys = labels.keys() if isinstance(labels, dict) else [SINGLE_LABEL_DEFAULT_NAME]
    overlap = set(feature_keys) & set(label_keys)
    if overlap:
        raise ValueError(
            f"Features and labels must have distinct keys. Found overlapping keys: {overlap}"
        )

    def supervised_input_receiver_fn() -> SupervisedInputReceiver:
        features_in: Any
        labels_in: Any
        if isinstance(features, dict):
            features_in = _placeholders_like(features, default_batch_size)
            receiver_features = features_in
        else:
            features_in = _placeholder_like(features, default_batch_size)
            receiver_features = {SINGLE_RECEIVER_DEFAULT_NAME: features_in}
        if isinstance(labels, dict):
            labels_in = _placeholders_like(labels, default_batch_size)
            receiver_labels = labels_in
        else:
            labels_in = _placeholder_like(labels, default_batch_size)
            receiver_labels = {SINGLE_LABEL_DEFAULT_NAME: labels_in}
        return SupervisedInputReceiver(
            features_in, labels_in, {**receiver_features, **receiver_labels}
        )

    return supervised_input_receiver_fn
