"""tf.test.compute_gradient / compute_gradient_error (TF1's): the Jacobian of y with respect
to x from the graph's gradients (one backprop per element of y) beside the numeric one from
central differences (two evaluations of y per element of x), both run in the default session.

Jacobians have one row per element of x and one column per element of y; a complex tensor
counts as its real and imaginary parts, as in TF.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from tfcluster.framework import dtypes
from tfcluster.framework.default_session import get_default_session
from tfcluster.framework.graph import Tensor
from tfcluster.gradients.gradients_impl import gradients
from tfcluster.ops import array_ops
from tfcluster.ops.constant_op import constant

_ALLOWED = ("float16", "float32", "float64", "complex64", "complex128")


def _size(shape: Sequence[int] | int) -> int:
    return shape if isinstance(shape, int) else math.prod(shape)


def _numpy(dtype: dtypes.DType) -> np.dtype[Any]:
    return np.dtype(dtype.base_dtype.as_numpy_dtype)


def _real(dtype: np.dtype[Any]) -> np.dtype[Any]:
    return np.empty(0, dtype).real.dtype


def _session() -> Any:
    sess = get_default_session()
    if sess is None:
        raise ValueError(
            "compute_gradient needs a default session: run it inside `with tf.Session():` "
            "(or sess.as_default())"
        )
    return sess


def _feeds(extra: Mapping[Any, Any] | None, new: Mapping[Any, Any]) -> dict[Any, Any]:
    return {**(extra or {}), **new}


def _theoretical(
    x: Tensor,
    x_shape: Sequence[int],
    x_data: np.ndarray,
    dy: Tensor,
    dy_shape: Sequence[int],
    dx: Tensor,
    extra: Mapping[Any, Any] | None,
) -> np.ndarray:
    x_np, dy_np = _numpy(x.dtype), _numpy(dy.dtype)
    x_size = _size(x_shape) * (2 if x_np.kind == "c" else 1)
    dy_size = _size(dy_shape) * (2 if dy_np.kind == "c" else 1)
    jacobian = np.zeros((x_size, dy_size), dtype=_real(x_np))
    dy_data = np.zeros(dy_shape, dtype=dy_np)
    dy_flat = dy_data.ravel().view(_real(dy_np))
    sess = _session()
    for col in range(dy_size):
        dy_flat[col] = 1
        backprop = np.asarray(sess.run(dx, feed_dict=_feeds(extra, {x: x_data, dy: dy_data})))
        jacobian[:, col] = backprop.ravel().view(jacobian.dtype)
        dy_flat[col] = 0
    if not dy_size:
        backprop = np.asarray(sess.run(dx, feed_dict=_feeds(extra, {x: x_data, dy: dy_data})))
        if backprop.shape != x_data.shape:
            raise ValueError(
                f"Empty gradient has wrong shape: expected {x_data.shape}, got {backprop.shape}"
            )
        if np.any(backprop):
            raise ValueError("Empty tensor with nonzero gradients")
    return jacobian


def _numeric(
    x: Tensor,
    x_shape: Sequence[int],
    x_data: np.ndarray,
    y: Tensor,
    y_shape: Sequence[int],
    delta: float,
    extra: Mapping[Any, Any] | None,
) -> np.ndarray:
    x_np, y_np = _numpy(x.dtype), _numpy(y.dtype)
    x_size = _size(x_shape) * (2 if x_np.kind == "c" else 1)
    y_size = _size(y_shape) * (2 if y_np.kind == "c" else 1)
    x_real, y_real = _real(x_np), _real(y_np)
    x_data = np.asarray(x_data, dtype=x_np)
    scale = np.asarray(2 * delta, dtype=y_real)[()]
    jacobian = np.zeros((x_size, y_size), dtype=x_real)
    sess = _session()
    for row in range(x_size):
        x_pos, x_neg = x_data.copy(), x_data.copy()
        x_pos.ravel().view(x_real)[row] += delta
        x_neg.ravel().view(x_real)[row] -= delta
        y_pos = np.asarray(sess.run(y, feed_dict=_feeds(extra, {x: x_pos})))
        y_neg = np.asarray(sess.run(y, feed_dict=_feeds(extra, {x: x_neg})))
        jacobian[row, :] = ((y_pos - y_neg) / scale).ravel().view(y_real)
    return jacobian


def _dx_and_dy(x: Tensor, y: Tensor, y_shape: Sequence[int]) -> tuple[Tensor, Tensor]:
    """d(y)/d(x) for a fed upstream gradient dy (a constant the checker feeds)."""
    with x.graph.as_default():
        dy_orig = constant(1.0, shape=list(y_shape), dtype=y.dtype)
        dy = array_ops.identity(dy_orig)
    (dx,) = gradients(y, x, dy)
    if dx is None:
        # TF's checker fails its `dx is a Tensor` assertion here: AssertionError, as there.
        raise AssertionError(
            f"dx = None: {y.name} does not depend on {x.name}, there is no gradient to check"
        )
    return dx, dy_orig


def _check_dtype(t: Tensor, what: str) -> None:
    name = t.dtype.base_dtype.name
    if name not in _ALLOWED:
        raise TypeError(f"compute_gradient does not support type {name} for {what}")


def _one(
    x: Tensor,
    x_shape: Sequence[int],
    dx: Tensor,
    y: Tensor,
    y_shape: Sequence[int],
    dy: Tensor,
    x_init_value: Any,
    delta: float,
    extra: Mapping[Any, Any] | None,
) -> tuple[np.ndarray, np.ndarray]:
    _check_dtype(x, "x")
    _check_dtype(y, "y")
    x_np = _numpy(x.dtype)
    if x_init_value is not None:
        x_data = np.asarray(x_init_value)
        if list(x_shape) != list(x_data.shape):
            raise ValueError(f"x_shape = {list(x_shape)}, init_data shape = {list(x_data.shape)}")
    else:
        x_data = np.random.random_sample(x_shape).astype(x_np)
        if x_np.kind == "c":
            x_data.imag = np.random.random_sample(x_shape)
    theoretical = _theoretical(x, x_shape, x_data, dy, y_shape, dx, extra)
    numeric = _numeric(x, x_shape, x_data, y, y_shape, delta, extra)
    return theoretical, numeric


def _run_init(init_targets: Sequence[Any] | None) -> None:
    if init_targets is None:
        return
    if not isinstance(init_targets, list | tuple):
        raise TypeError("init_targets must be a list or tuple of ops to run")
    sess = _session()
    for init in init_targets:
        sess.run(init)


def compute_gradient(
    x: Any,
    x_shape: Any,
    y: Tensor,
    y_shape: Sequence[int],
    x_init_value: Any = None,
    delta: float = 1e-3,
    init_targets: Sequence[Any] | None = None,
    extra_feed_dict: Mapping[Any, Any] | None = None,
) -> Any:
    """(theoretical, numeric) Jacobians of y with respect to x, or a list of such pairs when
    x is a list (x_shape and x_init_value then lists too). x_init_value defaults to uniform
    random values in [0, 1)."""
    if isinstance(x, list):
        pairs = [_dx_and_dy(xi, y, y_shape) for xi in x]
        _run_init(init_targets)
        inits = x_init_value if x_init_value is not None else [None] * len(x)
        return [
            _one(xi, shape_i, dx, y, y_shape, dy, init_i, delta, extra_feed_dict)
            for xi, shape_i, (dx, dy), init_i in zip(x, x_shape, pairs, inits)
        ]
    _run_init(init_targets)
    dx, dy = _dx_and_dy(x, y, y_shape)
    return _one(x, x_shape, dx, y, y_shape, dy, x_init_value, delta, extra_feed_dict)


def compute_gradient_error(
    x: Any,
    x_shape: Any,
    y: Tensor,
    y_shape: Sequence[int],
    x_init_value: Any = None,
    delta: float = 1e-3,
    init_targets: Sequence[Any] | None = None,
    extra_feed_dict: Mapping[Any, Any] | None = None,
) -> Any:
    """The largest absolute difference between the theoretical and numeric Jacobians."""
    grad = compute_gradient(
        x, x_shape, y, y_shape, x_init_value, delta, init_targets, extra_feed_dict
    )
    pairs = [grad] if isinstance(grad, tuple) else grad
    error: Any = 0
    for theoretical, numeric in pairs:
        if theoretical.size or numeric.size:
            # float64 as TF 1.15 gives it: numpy < 1.19 (its pin) promotes the int 0 and a
            # float32 scalar by value to float64, numpy 2 keeps float32.
            error = np.maximum(error, np.float64(np.fabs(theoretical - numeric).max()))
    return error
