"""Element-wise kernels over xp that TF 1.15 has beyond the core math set: hyperbolic and
inverse hyperbolic functions, atan2, rint, nextafter, xlogy/xdivy, mul_no_nan, the bitwise
ops, and the reductions EuclideanNorm and CumulativeLogsumexp."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from tfcluster.kernels import _eigen_double
from tfcluster.kernels import _xp_util as u
from tfcluster.kernels.registry import kernel

Compute = Callable[[Any, list[Any]], tuple[Any, ...]]


def _unary(fn: Callable[[Any, Any], Any]) -> Callable[[Any, Any], Compute]:
    def factory(node: Any, xp: Any) -> Compute:
        dtype = u.np_dtype(node)

        def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
            with np.errstate(all="ignore"):
                out = fn(xp, ins[0])
            return (out if out.dtype == dtype else out.astype(dtype),)

        return compute

    return factory


def _binary(fn: Callable[[Any, Any, Any], Any]) -> Callable[[Any, Any], Compute]:
    def factory(node: Any, xp: Any) -> Compute:
        dtype = u.np_dtype(node)

        def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
            x, y = ins
            try:
                np.broadcast_shapes(x.shape, y.shape)
            except ValueError:
                raise u.invalid(
                    f"Incompatible shapes: {u.shape_str(x.shape)} vs. {u.shape_str(y.shape)}"
                ) from None
            with np.errstate(all="ignore"):
                out = fn(xp, x, y)
            return (out if out.dtype == dtype else out.astype(dtype),)

        return compute

    return factory


def _xlogy(xp: Any, x: Any, y: Any) -> Any:
    return xp.where(x == 0, xp.zeros((), x.dtype), x * xp.log(y))


def _xdivy(xp: Any, x: Any, y: Any) -> Any:
    return xp.where(x == 0, xp.zeros((), x.dtype), x / y)


def _mul_no_nan(xp: Any, x: Any, y: Any) -> Any:
    """x * y, and 0 wherever y is 0 (even where x is inf or nan)."""
    return xp.where(y == 0, xp.zeros((), x.dtype), x * y)


def _glibc_double_or(name: str, numpy_name: str) -> Callable[[Any, Any], Any]:
    """float64 on CPU: glibc's function value by value, as TF 1.15's (_eigen_double);
    otherwise numpy's or cupy's."""

    def fn(xp: Any, x: Any) -> Any:
        if _eigen_double.applies(xp, x):
            return _eigen_double.scalar(name, x)
        return getattr(xp, numpy_name)(x)

    return fn


kernel("Sinh")(_unary(_glibc_double_or("sinh", "sinh")))
kernel("Cosh")(_unary(_glibc_double_or("cosh", "cosh")))
kernel("Asinh")(_unary(_glibc_double_or("asinh", "arcsinh")))
kernel("Acosh")(_unary(_glibc_double_or("acosh", "arccosh")))
kernel("Atanh")(_unary(_glibc_double_or("atanh", "arctanh")))
kernel("Rint")(_unary(lambda xp, x: xp.rint(x)))
kernel("Atan2")(_binary(lambda xp, y, x: xp.arctan2(y, x)))
kernel("NextAfter")(_binary(lambda xp, x, y: xp.nextafter(x, y)))
kernel("Xlogy")(_binary(_xlogy))
kernel("Xdivy")(_binary(_xdivy))
kernel("MulNoNan")(_binary(_mul_no_nan))


# ---- bitwise ---------------------------------------------------------------------------------
def _shift(left: bool) -> Callable[[Any, Any, Any], Any]:
    def fn(xp: Any, x: Any, y: Any) -> Any:
        # TF clamps the shift to [0, bits - 1] rather than leave it undefined.
        bits = x.dtype.itemsize * 8
        amount = xp.clip(y, 0, bits - 1).astype(x.dtype)
        return xp.left_shift(x, amount) if left else xp.right_shift(x, amount)

    return fn


kernel("BitwiseAnd")(_binary(lambda xp, x, y: xp.bitwise_and(x, y)))
kernel("BitwiseOr")(_binary(lambda xp, x, y: xp.bitwise_or(x, y)))
kernel("BitwiseXor")(_binary(lambda xp, x, y: xp.bitwise_xor(x, y)))
kernel("LeftShift")(_binary(_shift(left=True)))
kernel("RightShift")(_binary(_shift(left=False)))
kernel("Invert")(_unary(lambda xp, x: xp.invert(x)))


# ---- reductions ------------------------------------------------------------------------------
def _axes(value: Any, rank: int) -> tuple[int, ...]:
    out = []
    for a in u.host_ints(value):
        if not -rank <= a < rank:
            raise u.invalid(f"Invalid reduction dimension ({a} for input with {rank} dimension(s)")
        out.append(a % rank)
    return tuple(sorted(set(out)))


@kernel("EuclideanNorm", host=(1,))
def euclidean_norm(node: Any, xp: Any) -> Compute:
    keep = bool(node.attrs.get("keep_dims", False))
    dtype = u.np_dtype(node)

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        x, axes_t = ins
        axes = _axes(axes_t, x.ndim)
        squares = (x * xp.conj(x)).real if x.dtype.kind == "c" else x.astype(np.float64) ** 2
        total = xp.sum(squares, axis=axes, keepdims=keep)
        root = xp.sqrt(total)
        if dtype.kind in "iu":
            root = xp.floor(root)
        return (root.astype(dtype),)

    return compute


@kernel("CumulativeLogsumexp", host=(1,))
def cumulative_logsumexp(node: Any, xp: Any) -> Compute:
    exclusive = bool(node.attrs.get("exclusive", False))
    reverse = bool(node.attrs.get("reverse", False))
    dtype = u.np_dtype(node)

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        x, axis_t = ins
        axis = u.host_int(axis_t, "axis")
        if not -x.ndim <= axis < x.ndim:
            raise u.invalid(f"axis must be in the range [{-x.ndim}, {x.ndim}), but got {axis}")
        v = x.astype(np.float64)
        if reverse:
            v = xp.flip(v, axis)
        # Shift by the (finite) maximum along the axis so exp never overflows.
        top = xp.max(v, axis=axis, keepdims=True) if v.size else xp.zeros(())
        top = xp.where(xp.isfinite(top), top, 0.0)
        with np.errstate(all="ignore"):
            out = xp.log(xp.cumsum(xp.exp(v - top), axis=axis)) + top
        if exclusive:
            out = xp.roll(out, 1, axis=axis)
            first = [slice(None)] * out.ndim
            first[axis] = slice(0, 1)
            out[tuple(first)] = -np.inf
        if reverse:
            out = xp.flip(out, axis)
        return (xp.ascontiguousarray(out).astype(dtype),)

    return compute
