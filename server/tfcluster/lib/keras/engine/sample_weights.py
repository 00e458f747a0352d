"""Keras's per-sample loss weights (TF 1.15): sample_weight given to fit/evaluate/
train_on_batch, or class_weight turned into one weight per sample from each target's class,
both checked as TF checks them. The loss of an output is then mean(per-sample loss * weight)
(SUM_OVER_BATCH_SIZE), the metrics stay unweighted."""

from __future__ import annotations

from typing import Any

import numpy as np


def standardize(
    y: np.ndarray, sample_weight: Any, class_weight: Any, mode: str | None
) -> np.ndarray | None:
    """One output's weights: sample_weight, class weights, their product, or None."""
    if isinstance(sample_weight, tuple):
        sample_weight = sample_weight[0]
    if sample_weight is not None:
        sample_weight = np.asarray(sample_weight)
    if mode is not None and mode != "samplewise":
        if mode != "temporal":
            raise ValueError(f'"sample_weight_mode should be None or "temporal". Found: {mode}')
        if y.ndim < 3:
            raise ValueError(
                f"Found a sample_weight array for an input with shape {y.shape}. "
                'Timestep-wise sample weighting (use of sample_weight_mode="temporal") is '
                "restricted to outputs that are at least 3D, i.e. that have a time dimension."
            )
        if sample_weight is not None and sample_weight.ndim != 2:
            raise ValueError(
                f"Found a sample_weight array with shape {sample_weight.shape}. In order to "
                "use timestep-wise sample weighting, you should pass a 2D sample_weight array."
            )
    elif sample_weight is not None and sample_weight.ndim != 1:
        raise ValueError(
            f"Found a sample_weight array with shape {sample_weight.shape}. In order to use "
            'timestep-wise sample weights, you should specify sample_weight_mode="temporal" '
            "in compile(). If you just mean to use sample-wise weights, make sure your "
            "sample_weight array is 1D."
        )
    if sample_weight is not None:
        if sample_weight.ndim > y.ndim:
            raise ValueError(
                f"Found a sample_weight with shape {sample_weight.shape}.Expected "
                f"sample_weight with rank less than or equal to {y.ndim}"
            )
        if y.shape[: sample_weight.ndim] != sample_weight.shape:
            raise ValueError(
                f"Found a sample_weight array with shape {sample_weight.shape} for an input "
                f"with shape {y.shape}. sample_weight cannot be broadcast."
            )
    class_sample_weight = None
    if isinstance(class_weight, dict):
        if y.ndim > 2:
            raise ValueError("`class_weight` not supported for 3+ dimensional targets.")
        if y.ndim == 2 and y.shape[1] > 1:
            classes = np.argmax(y, axis=1)
        elif y.ndim == 2:
            classes = np.reshape(y, y.shape[0])
        else:
            classes = y
        weights = [class_weight[c] for c in classes.tolist() if c in class_weight]
        if len(weights) != len(classes):
            missing = set(classes.tolist()) - set(class_weight)
            raise ValueError(
                "`class_weight` must contain all classes in the data. The classes "
                f"{missing} exist in the data but not in `class_weight`."
            )
        class_sample_weight = np.asarray(weights)
    if class_sample_weight is not None and sample_weight is not None:
        return class_sample_weight * sample_weight
    return sample_weight if sample_weight is not None else class_sample_weight
