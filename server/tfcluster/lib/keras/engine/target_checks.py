"""What Keras (TF 1.15) checks of the target arrays given to fit/evaluate before running
anything: as many samples in every input and target array, targets of mean squared error and
the cross-entropies shaped as their outputs (no other target is held to its output's shape),
and targets fit for categorical_crossentropy. Each failure is TF's ValueError,
with its message, instead of a shape error from inside the step."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from tfcluster.lib.keras import losses
from tfcluster.lib.keras.engine import input_checks

_SHAPE_CHECKED_LOSSES = (
    losses.mean_squared_error,
    losses.binary_crossentropy,
    losses.categorical_crossentropy,
)


def _function_of(fn: Any) -> tuple[Any, str]:
    """(the loss function, its name) of a compiled loss: a Loss wrapping a function, or the
    function itself (Keras wraps it, named after it)."""
    if isinstance(fn, losses.LossFunctionWrapper):
        return fn.fn, fn.name or fn.fn.__name__
    return fn, getattr(fn, "__name__", type(fn).__name__)


def _samples(arrays: Sequence[np.ndarray]) -> set[int]:
    return {int(a.shape[0]) for a in arrays if a.ndim}


def check(
    xs: Sequence[np.ndarray],
    ys: Sequence[np.ndarray],
    outputs: Sequence[Any],
    loss_fns: Sequence[Any],
) -> None:
    in_samples, target_samples = _samples(xs), _samples(ys)
    if len(in_samples) > 1:
        shapes = [a.shape for a in xs]
        raise ValueError(
            f"All input arrays (x) should have the same number of samples. Got array shapes: "
            f"{shapes}"
        )
    if len(target_samples) > 1:
        shapes = [a.shape for a in ys]
        raise ValueError(
            "All target arrays (y) should have the same number of samples. Got array shapes: "
            f"{shapes}"
        )
    for y, output, fn in zip(ys, outputs, loss_fns):
        # TF 1.15 does not hold targets to their outputs' shapes (standardize_input_data is
        # given no shapes for them): only the key losses compare dimensions, below.
        output_shape = tuple(output.shape.as_list()) if output.shape.ndims is not None else None
        if output_shape is None:
            continue
        _check_loss_target(input_checks.as_column_if_flat(y), fn, output_shape)
    if in_samples and target_samples and in_samples != target_samples:
        raise ValueError(
            "Input arrays should have the same number of samples as target arrays. Found "
            f"{in_samples.pop()} input samples and {target_samples.pop()} target samples."
        )


def _check_loss_target(y: np.ndarray, fn: Any, output_shape: tuple[Any, ...]) -> None:
    if fn is None:
        return
    if losses.is_categorical_crossentropy(fn) and y.shape[-1] == 1:
        raise ValueError(
            f"You are passing a target array of shape {y.shape} while using as loss "
            "`categorical_crossentropy`. `categorical_crossentropy` expects targets to be "
            "binary matrices (1s and 0s) of shape (samples, classes). If your targets are "
            "integer classes, you can convert them to the expected format via:\n```\nfrom "
            "keras.utils import to_categorical\ny_binary = to_categorical(y_int)\n```\n\n"
            "Alternatively, you can use the loss function `sparse_categorical_crossentropy` "
            "instead, which does expect integer targets."
        )
    function, loss_name = _function_of(fn)
    if function not in _SHAPE_CHECKED_LOSSES:
        return
    for target_dim, out_dim in zip(y.shape[1:], output_shape[1:]):
        if out_dim is not None and target_dim != out_dim:
            raise ValueError(
                f"A target array with shape {y.shape} was passed for an output of shape "
                f"{output_shape} while using as loss `{loss_name}`. This loss expects targets "
                "to have the same shape as the output."
            )
