"""What Keras (TF 1.15's standardize_input_data) checks of the input arrays given to fit,
evaluate, predict and the *_on_batch calls before anything runs: a 1-D array becomes one
column (unless its input has rank 1), and each array has its input's rank and, past the batch
axis, its input's known dimensions. A failure is TF's ValueError ("Error when checking input:
..."), before any check of the targets."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np


def as_column_if_flat(array: np.ndarray, shape: Sequence[Any] | None = None) -> np.ndarray:
    """TF's standardize_single_array: a 1-D array is fed as a column (n, 1), unless what it
    feeds has rank 1 (`shape`, None when unknown or a target)."""
    if array.ndim == 1 and (shape is None or len(shape) != 1):
        return array.reshape((array.shape[0], 1))
    return array


def check(
    arrays: Sequence[np.ndarray], names: Sequence[str], shapes: Sequence[Any]
) -> list[np.ndarray]:
    """The arrays as fed (flat ones made columns), after checking each against its input's
    static shape (a tuple of ints and Nones, or None when unknown)."""
    fed = [as_column_if_flat(a, shape) for a, shape in zip(arrays, shapes)]
    for array, name, shape in zip(fed, names, shapes):
        if shape is None:
            continue
        data_shape = tuple(int(d) for d in array.shape)
        if len(data_shape) != len(shape):
            raise ValueError(
                f"Error when checking input: expected {name} to have {len(shape)} dimensions, "
                f"but got array with shape {data_shape}"
            )
        for dim, ref in zip(data_shape[1:], shape[1:]):
            if ref is not None and dim != ref:
                raise ValueError(
                    f"Error when checking input: expected {name} to have shape "
                    f"{tuple(shape[1:])} but got array with shape {data_shape[1:]}"
                )
    return fed
