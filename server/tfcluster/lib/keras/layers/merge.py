"""Keras merge layers: element-wise Add/Subtract/Multiply/Average/Maximum/Minimum of a list of
tensors of one shape, and Concatenate along an axis."""

from __future__ import annotations

import functools
from typing import Any

from tfcluster.lib.keras.engine.base_layer import Layer
from tfcluster.ops import array_ops, math_ops


class _Merge(Layer):
    def __init__(self, **kwargs: Any) -> None:  # TF's: keyword arguments only
        super().__init__(**kwargs)

    def _check(self, inputs: Any) -> list[Any]:
        if not isinstance(inputs, (list, tuple)) or len(inputs) < 2:
            raise ValueError(
                "A merge layer should be called on a list of at least 2 inputs. "
                f"Got {len(inputs) if isinstance(inputs, (list, tuple)) else 1} inputs."
            )
        return list(inputs)

    def _merge(self, inputs: list[Any]) -> Any:
        raise NotImplementedError

    def call(self, inputs: Any) -> Any:
        return self._merge(_same_rank(self._check(inputs)))


def _same_rank(inputs: list[Any]) -> list[Any]:
    """TF 1.15's _Merge.call for inputs of known, different ranks: each lower-rank input
    gets new axes at 1 (ExpandDims) up to the highest rank, so the batch axes line up."""
    found = [getattr(getattr(x, "shape", None), "ndims", None) for x in inputs]
    ndims = [int(n) for n in found if n is not None]
    if len(ndims) < len(found) or len(set(ndims)) == 1:
        return inputs
    top = max(ndims)
    out = []
    for x, ndim in zip(inputs, ndims):
        for _ in range(top - ndim):
            x = array_ops.expand_dims(x, axis=1)
        out.append(x)
    return out


class Add(_Merge):
    def _merge(self, inputs: list[Any]) -> Any:
        return functools.reduce(lambda a, b: a + b, inputs)


class Subtract(_Merge):
    def _merge(self, inputs: list[Any]) -> Any:
        if len(inputs) != 2:
            raise ValueError("A `Subtract` layer should be called on exactly 2 inputs")
        return inputs[0] - inputs[1]


class Multiply(_Merge):
    def _merge(self, inputs: list[Any]) -> Any:
        return functools.reduce(lambda a, b: a * b, inputs)


class Average(_Merge):
    def _merge(self, inputs: list[Any]) -> Any:
        return functools.reduce(lambda a, b: a + b, inputs) / len(inputs)


class Maximum(_Merge):
    def _merge(self, inputs: list[Any]) -> Any:
        return functools.reduce(math_ops.maximum, inputs)


class Minimum(_Merge):
    def _merge(self, inputs: list[Any]) -> Any:
        return functools.reduce(math_ops.minimum, inputs)


class Concatenate(_Merge):
    def __init__(self, axis: int = -1, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.axis = axis

    def get_config(self) -> dict[str, Any]:
        return {**super().get_config(), "axis": self.axis}

    def call(self, inputs: Any) -> Any:
        # TF's Concatenate needs no reshape (its build checks the shapes instead).
        return self._merge(self._check(inputs))

    def _merge(self, inputs: list[Any]) -> Any:
        return array_ops.concat(inputs, axis=self.axis)


def _functional(cls: type, inputs: Any, **kwargs: Any) -> Any:
    return cls(**kwargs)(inputs)


def add(inputs: Any, **kwargs: Any) -> Any:
    return _functional(Add, inputs, **kwargs)


def subtract(inputs: Any, **kwargs: Any) -> Any:
    return _functional(Subtract, inputs, **kwargs)


def multiply(inputs: Any, **kwargs: Any) -> Any:
    return _functional(Multiply, inputs, **kwargs)


def average(inputs: Any, **kwargs: Any) -> Any:
    return _functional(Average, inputs, **kwargs)


def maximum(inputs: Any, **kwargs: Any) -> Any:
    return _functional(Maximum, inputs, **kwargs)


def minimum(inputs: Any, **kwargs: Any) -> Any:
    return _functional(Minimum, inputs, **kwargs)


def concatenate(inputs: Any, axis: int = -1, **kwargs: Any) -> Any:
    return _functional(Concatenate, inputs, axis=axis, **kwargs)


class Dot(_Merge):
    """Per-sample dot products of two tensors along `axes` (optionally of their
    l2-normalized forms: cosine similarity)."""

    def __init__(self, axes: Any, normalize: bool = False, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        if not isinstance(axes, int):
            if not isinstance(axes, (list, tuple)):
                raise TypeError("Invalid type for `axes` - should be a list or an int.")
            if len(axes) != 2:
                raise ValueError("Invalid format for `axes` - should contain two elements.")
            if not isinstance(axes[0], int) or not isinstance(axes[1], int):
                raise ValueError('Invalid format for `axes` - list elements should be "int".')
        self.axes = axes
        self.normalize = normalize
        self.supports_masking = True

    def _merge(self, inputs: list[Any]) -> Any:
        from tfcluster.lib.keras import backend_math
        from tfcluster.ops import nn_ops

        if len(inputs) != 2:
            raise ValueError("A `Dot` layer should be called on exactly 2 inputs")
        x1, x2 = inputs
        n1, n2 = x1.shape.ndims, x2.shape.ndims
        if isinstance(self.axes, int):
            axes = [self.axes % n1, self.axes % n2] if self.axes < 0 else [self.axes] * 2
        else:
            axes = [self.axes[0] % n1, self.axes[1] % n2]
        if self.normalize:
            x1 = nn_ops.l2_normalize(x1, axis=axes[0])
            x2 = nn_ops.l2_normalize(x2, axis=axes[1])
        return backend_math.batch_dot(x1, x2, axes)

    def get_config(self) -> dict[str, Any]:
        return {**super().get_config(), "axes": self.axes, "normalize": self.normalize}


def dot(inputs: Any, axes: Any, normalize: bool = False, **kwargs: Any) -> Any:
    return Dot(axes=axes, normalize=normalize, **kwargs)(inputs)
