"""tf.estimator.experimental's logit function helpers (TF 1.15): builders of the canned DNN
and linear models' logits for use inside a custom model_fn, and call_logit_fn, which calls a
logit_fn with the arguments it takes."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

from tfcluster.framework.graph import Tensor
from tfcluster.lib.estimator.dnn import dnn_logits
from tfcluster.lib.estimator.linear import linear_logits


def dnn_logit_fn_builder(
    units: int,
    hidden_units: Any,
    feature_columns: Any,
    activation_fn: Any,
    dropout: Any,
    input_layer_partitioner: Any,
    batch_norm: bool,
) -> Callable[[Any, str], Any]:
    """logit_fn(features, mode): DNNClassifier's network, its layers' variables in the
    caller's variable scope (hiddenlayer_<i>/kernel, logits/bias, ...), as TF 1.15's."""
    if isinstance(units, bool) or not isinstance(units, int):
        raise ValueError(f"units must be an int.  Given type: {type(units)}")

    def dnn_logit_fn(features: Any, mode: str) -> Any:
        return dnn_logits(
            features,
            mode,
            feature_columns,
            hidden_units,
            units,
            activation_fn,
            dropout,
            input_layer_partitioner,
            batch_norm,
        )

    return dnn_logit_fn


def linear_logit_fn_builder(
    units: int, feature_columns: Any, sparse_combiner: str = "sum"
) -> Callable[[Any], Any]:
    """logit_fn(features): LinearClassifier's model (variables under 'linear_model/')."""

    def linear_logit_fn(features: Any) -> Any:
        return linear_logits(features, feature_columns, units, sparse_combiner)

    return linear_logit_fn


def call_logit_fn(
    logit_fn: Callable[..., Any], features: Any, mode: str, params: Any, config: Any
) -> Any:
    """logit_fn(features=..., [mode, params, config as it takes them]); its result must be
    a Tensor or a dict of Tensors keyed by strings."""
    accepted = set(inspect.signature(logit_fn).parameters)
    kwargs = {
        k: v for k, v in (("mode", mode), ("params", params), ("config", config)) if k in accepted
    }
    result = logit_fn(features=features, **kwargs)
    valid_dict = isinstance(result, dict) and all(
        isinstance(k, str) and isinstance(v, Tensor) for k, v in result.items()
    )
    if not (valid_dict or isinstance(result, Tensor)):
        raise ValueError(
            "logit_fn should return a Tensor or a dictionary mapping strings to Tensors.  "
            f"logit_fn returned: {result}"
        )
    return result
