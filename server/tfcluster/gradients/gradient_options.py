"""The option classes of tf.gradients: tf.AggregationMethod and tf.UnconnectedGradients."""

from __future__ import annotations

import enum
from typing import Any


class AggregationMethod:
    """How tf.gradients combines several gradient terms of one tensor. Every method gives
    the same values here: the terms are summed by one AddN (TF's ADD_N)."""

    ADD_N = 0
    DEFAULT = ADD_N
    EXPERIMENTAL_TREE = 1
    EXPERIMENTAL_ACCUMULATE_N = 2


_AGGREGATION_METHODS = (
    AggregationMethod.ADD_N,
    AggregationMethod.EXPERIMENTAL_TREE,
    AggregationMethod.EXPERIMENTAL_ACCUMULATE_N,
)


def check_aggregation_method(aggregation_method: Any) -> None:
    if aggregation_method is None:
        return
    if aggregation_method not in _AGGREGATION_METHODS:
        raise ValueError(f"Invalid aggregation_method specified {aggregation_method}.")


class UnconnectedGradients(enum.Enum):
    """What tf.gradients returns for an x with no path to the ys: None, or zeros shaped
    like x."""

    NONE = "none"
    ZERO = "zero"


def unconnected_gradients_value(value: Any) -> UnconnectedGradients:
    try:
        return UnconnectedGradients(value)
    except ValueError:
        raise ValueError(f"Unknown value for unconnected_gradients: {value!r}") from None
