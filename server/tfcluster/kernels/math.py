"""Math kernels over xp: element-wise ops, casts, select, matmul, reductions and scans.

Each factory reads the node's attrs once and returns the per-step compute function. Results
keep the op's dtype (numpy and cupy may promote), bad values raise TF's InvalidArgumentError,
and numpy's floating-point warnings are silenced because TF returns inf/nan quietly (cupy
never warns).

The element-wise tables name a function of the array module (resolved once per node) or
give `fn(xp, *args)` for what takes more than one call.
"""

from __future__ import annotations

import functools
import math
import weakref
from collections.abc import Callable
from typing import Any

import numpy as np

from tfcluster.framework import errors, memory_budget
from tfcluster.framework.inferred_values import broadcast_reduction_indices
from tfcluster.kernels import (
    _cpu_gemm,
    _eigen_activations,
    _eigen_axes_sum,
    _eigen_batch_matvec,
    _eigen_double,
    _eigen_gemv,
    _eigen_math,
    _eigen_psqrt,
    _eigen_small_depth,
    _eigen_sum,
    _eigen_trig,
    _libm_float,
    _mkldnn_sgemm,
    in_place,
    tensor_lists,
)
from tfcluster.kernels.common import (
    Compute,
    LastHostInputs,
    frozen,
    host_ints,
    invalid,
    np_dtype,
    shape_of,
    shape_str,
)
from tfcluster.kernels.registry import kernel
from tfcluster.runtime.float_errors import silenced
from tfcluster.runtime.float_errors import state as errors_state
from tfcluster.runtime.function_fusion import CAST_X_ATTR

# An xp function's name, or fn(xp, *args).
XpFn = str | Callable[..., Any]
# The float kernels a cast fuses into, by op (runtime/function_fusion.py): their numpy ufuncs.
_CAST_X_UFUNCS = {"RealDiv": np.true_divide, "Mul": np.multiply}


def _resolve(fn: XpFn, xp: Any) -> Callable[..., Any]:
    return getattr(xp, fn) if isinstance(fn, str) else functools.partial(fn, xp)


def _shape(x: Any) -> list[int]:
    return list(shape_of(x))


# ---- element-wise binary ops --------------------------------------------------------------
def _check_nonzero(xp: Any, x: Any, y: Any) -> None:
    # An empty result divides nothing (TF's binary ops return before computing it).
    if x.size and y.size and not bool(xp.all(y)):
        raise invalid("Integer division by zero")


def _int_floordiv(xp: Any, x: Any, y: Any) -> Any:
    _check_nonzero(xp, x, y)
    return xp.floor_divide(x, y)


def _int_truncdiv(xp: Any, x: Any, y: Any) -> Any:
    """C++ integer division: rounds toward zero."""
    _check_nonzero(xp, x, y)
    q = xp.floor_divide(x, y)
    return q + ((xp.remainder(x, y) != 0) & ((x < 0) != (y < 0)))


def _int_floormod(xp: Any, x: Any, y: Any) -> Any:
    _check_nonzero(xp, x, y)
    return xp.mod(x, y)


def _check_nonzero_unsafe(xp: Any, x: Any, y: Any) -> None:
    """TruncateDiv and TruncateMod have no division-by-zero check in TF: its binary-op
    functor reports the failure as an internal error."""
    if x.size and y.size and not bool(xp.all(y)):
        raise errors.InternalError(
            None,
            None,
            "Unexpected error in binary operator (only integer div and mod should have errors)",
        )


def _int_truncdiv_unsafe(xp: Any, x: Any, y: Any) -> Any:
    _check_nonzero_unsafe(xp, x, y)
    q = xp.floor_divide(x, y)
    return q + ((xp.remainder(x, y) != 0) & ((x < 0) != (y < 0)))


def _int_truncmod(xp: Any, x: Any, y: Any) -> Any:
    _check_nonzero_unsafe(xp, x, y)
    return xp.fmod(x, y)


def _int_pow(xp: Any, x: Any, y: Any) -> Any:
    if bool(xp.any(y < 0)):
        raise invalid("Integers to negative integer powers are not allowed")
    return xp.power(x, y)


def _float_pow(xp: Any, x: Any, y: Any) -> Any:
    """float32 and float64 powers as glibc's powf and pow give them on CPU (TF's kernel calls
    them per value)."""
    if xp is np and np.result_type(x, y) == np.float64:
        return _eigen_double.power(x, y)
    if xp is not np or np.result_type(x, y) != np.float32:
        return xp.power(x, y)
    # Subnormals in and out as zeros: TF's kernels run with flush-to-zero and
    # denormals-are-zero on. (A scalar exponent, x ** 2, is not spread to x's shape.)
    x, y = (_eigen_math.flushed(np.asarray(a, np.float32)) for a in (x, y))
    return _eigen_math.flush(_libm_float.powf(x, y))


def _float_truncdiv(xp: Any, x: Any, y: Any) -> Any:
    return xp.trunc(xp.true_divide(x, y))


def _div_no_nan(xp: Any, x: Any, y: Any) -> Any:
    zero = y == 0
    if xp is np and isinstance(zero, (np.ndarray, np.generic)) and not zero.any():
        # No zero divisor (a metric's count after its first batch): the quotient itself,
        # one numpy call where the selects below take six (~5 us a scalar division).
        return np.true_divide(x, y)
    safe = xp.where(zero, xp.ones_like(y), y)
    return xp.where(zero, xp.zeros_like(xp.true_divide(x, safe)), xp.true_divide(x, safe))


def _squared_difference(xp: Any, x: Any, y: Any) -> Any:
    d = xp.subtract(x, y)
    return d * xp.conj(d) if d.dtype.kind == "c" else d * d


# From this many values an elementwise max/min against a scalar spreads the scalar first (on
# smaller tensors, the LSTM's 128x32 gates, the two extra numpy calls cost what the vectorized
# loop saves once the caches are cold from the rest of a training step).
_SPREAD_FROM = 1 << 15


class _Spread:
    """Constant scalars spread to the shapes they meet: a loop's clip_by_value takes the same
    bound (a Const, read-only) against the same shape of batch in every iteration, so the
    spread array is made once. Kept per (scalar, shape) while the scalar is the same
    read-only array and no variable has been written in place since (a variable's read-only
    value changes that way), for a bounded number of them (each below _SPREAD_FROM values:
    larger ones spread into their result's array instead)."""

    LIMIT = 64

    def __init__(self) -> None:
        self._made: dict[tuple[int, tuple[int, ...]], tuple[Any, int, np.ndarray]] = {}

    def of(self, scalar: np.ndarray, shape: tuple[int, ...]) -> np.ndarray | None:
        epoch = in_place.write_epoch()
        entry = self._made.get((id(scalar), shape))
        if entry is not None and entry[0] is scalar and entry[1] == epoch:
            return entry[2]
        if scalar.flags.writeable:
            return None
        spread = np.empty(shape, scalar.dtype)
        spread.fill(scalar)
        spread.flags.writeable = False
        if len(self._made) >= self.LIMIT:
            self._made.clear()
        self._made[(id(scalar), shape)] = (scalar, epoch, spread)
        return spread


_spread = _Spread()


def _extreme_of_two(name: str) -> Callable[[Any, Any, Any], Any]:
    """numpy's maximum/minimum. numpy's vectorized loop runs only where both operands step
    through memory: against a scalar (clip_by_value's bounds, hard_sigmoid's) it takes its
    generic loop, ~1.5x slower on a 128x32 batch and 2x on a million values. The scalar is
    spread to the other operand's shape first: once for a constant scalar (see _Spread), else
    into the array the result then overwrites: the same function of each pair, so the same
    bits (NaNs and signed zeros included)."""
    op = getattr(np, name)

    def fn(xp: Any, x: Any, y: Any) -> Any:
        if xp is not np or type(x) is not np.ndarray or type(y) is not np.ndarray:
            return getattr(xp, name)(x, y)
        if y.ndim == 0 and 1 < x.size < _SPREAD_FROM and x.dtype == y.dtype:
            spread = _spread.of(y, x.shape)
            if spread is not None:
                return op(x, spread)
        if x.ndim == 0 and 1 < y.size < _SPREAD_FROM and x.dtype == y.dtype:
            spread = _spread.of(x, y.shape)
            if spread is not None:
                return op(spread, y)
        if y.ndim == 0 and x.size >= _SPREAD_FROM and x.dtype == y.dtype:
            out = np.empty_like(x)
            out.fill(y)
            return op(x, out, out=out)
        if x.ndim == 0 and y.size >= _SPREAD_FROM and x.dtype == y.dtype:
            out = np.empty_like(y)
            out.fill(x)
            return op(out, y, out=out)
        return op(x, y)

    return fn


# op type -> (kernel for floating/complex dtypes, kernel for integer dtypes): integer division
# is C++'s (toward zero, an error on zero), not numpy's.
_BINARY: dict[str, tuple[XpFn, XpFn]] = {
    "Add": ("add", "add"),
    "AddV2": ("add", "add"),
    "Sub": ("subtract", "subtract"),
    "Mul": ("multiply", "multiply"),
    "RealDiv": ("true_divide", _int_truncdiv),
    "Div": ("true_divide", _int_truncdiv),
    "DivNoNan": (_div_no_nan, _div_no_nan),
    "FloorDiv": ("floor_divide", _int_floordiv),
    "TruncateDiv": (_float_truncdiv, _int_truncdiv_unsafe),
    "FloorMod": ("mod", _int_floormod),
    "TruncateMod": ("fmod", _int_truncmod),
    "Pow": (_float_pow, _int_pow),
    "Maximum": (_extreme_of_two("maximum"), "maximum"),
    "Minimum": (_extreme_of_two("minimum"), "minimum"),
    "SquaredDifference": (_squared_difference, _squared_difference),
}


def _complex_multiply(xp: Any, x: Any, y: Any) -> Any:
    """Eigen's complex product: (ac - bd) + (ad + bc)i, each product and sum rounded in the
    parts' own precision (numpy's complex multiply rounds otherwise in ~45% of float32
    products: the Mandelbrot tutorial's escape counts came out apart)."""
    if xp is not np:
        return xp.multiply(x, y)
    x, y = np.asarray(x), np.asarray(y)
    a, b, c, d = x.real, x.imag, y.real, y.imag
    out = np.empty(np.broadcast_shapes(x.shape, y.shape), dtype=np.result_type(x, y))
    out.real = a * c - b * d
    out.imag = a * d + b * c
    return out


# Complex dtypes computed as TF's Eigen kernels do where numpy rounds otherwise.
_COMPLEX_BINARY: dict[str, XpFn] = {"Mul": _complex_multiply}


def _direct_binary(
    fn: Callable[[Any, Any], Any], dtype: np.dtype[Any], compute: Compute
) -> Callable[[Any, Any], Any]:
    """A binary kernel called with its two inputs and giving its one output, which a run plan
    calls in place of the kernel (runtime/run_plan.py): for two numpy arrays inside a step's
    silenced float errors, the kernel's value (its conversions included) without its input
    list, output tuple and checks (a loop body runs dozens an iteration). Anything else, a
    failure included, goes through the kernel itself."""
    ndarray = np.ndarray

    def direct(x: Any, y: Any) -> Any:
        if errors_state.on and type(x) is ndarray and type(y) is ndarray:
            try:
                out = fn(x, y)
            except ValueError:
                return compute(None, [x, y])[0]  # the kernel's error
            if type(out) is ndarray and out.dtype is dtype:
                return out
            # compute's own tail (a 0-d pair gives a numpy scalar)
            if not hasattr(out, "dtype"):
                out = np.asarray(out, dtype=dtype)
            return out if out.dtype == dtype else out.astype(dtype)
        return compute(None, [x, y])[0]

    return direct


def _binary_factory(
    float_fn: XpFn, int_fn: XpFn, complex_fn: XpFn | None = None
) -> Callable[[Any, Any], Compute]:
    def factory(node: Any, xp: Any) -> Compute:
        dtype = np_dtype(node)
        chosen = int_fn if dtype.kind in "iu" else float_fn
        if dtype.kind == "c" and complex_fn is not None:
            chosen = complex_fn
        fn = _resolve(chosen, xp)

        def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
            x, y = ins
            try:
                if errors_state.on:
                    out = fn(x, y)
                else:
                    with np.errstate(all="ignore"):
                        out = fn(x, y)
            except ValueError:
                raise invalid(f"Incompatible shapes: {_shape(x)} vs. {_shape(y)}") from None
            if type(out) is np.ndarray and out.dtype is dtype:
                return (out,)  # the usual result, checked in one step (a loop body's ops)
            if not hasattr(out, "dtype"):
                # numpy hands back the bare Python object for two 0-d object arrays (strings).
                out = np.asarray(out, dtype=dtype)
            if out.dtype != dtype:
                out = out.astype(dtype)
            return (out,)

        # A RealDiv or Mul that absorbed the Cast of its x from an integer type: x arrives as
        # the integers (runtime/function_fusion.py).
        if CAST_X_ATTR not in node.attrs or node.op not in _CAST_X_UFUNCS:
            if xp is np:
                compute.direct = _direct_binary(fn, dtype, compute)  # type: ignore[attr-defined]
            return compute
        if xp is not np:
            # Fused bodies run on the host; elsewhere the absorbed cast is made first.
            return lambda ctx, ins: compute(ctx, [xp.asarray(ins[0]).astype(dtype), ins[1]])

        ufunc = _CAST_X_UFUNCS[node.op]

        def cast_then_compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
            # The Cast kernel's conversion, then the quotient or product written over the cast
            # values (nothing else reads them) when y broadcasts to their shape.
            x = np.asarray(ins[0]).astype(dtype)
            y = ins[1]
            if (
                type(y) is np.ndarray
                and y.dtype == dtype
                and y.ndim <= x.ndim
                and all(e in (1, d) for d, e in zip(x.shape[x.ndim - y.ndim :], y.shape))
            ):
                if silenced():
                    return (ufunc(x, y, out=x),)
                with np.errstate(all="ignore"):
                    return (ufunc(x, y, out=x),)
            return compute(ctx, [x, y])

        return cast_then_compute

    return factory


for _name, (_float_fn, _int_fn) in _BINARY.items():
    kernel(_name)(_binary_factory(_float_fn, _int_fn, _COMPLEX_BINARY.get(_name)))


def _compare_factory(fn: str) -> Callable[[Any, Any], Compute]:
    def factory(node: Any, xp: Any) -> Compute:
        op = getattr(xp, fn)

        def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
            x, y = ins
            try:
                out = op(x, y)
            except ValueError:
                raise invalid(f"Incompatible shapes: {_shape(x)} vs. {_shape(y)}") from None
            return (xp.asarray(out, dtype=np.bool_),)

        return compute

    return factory


_COMPARE: dict[str, str] = {
    "Less": "less",
    "LessEqual": "less_equal",
    "Greater": "greater",
    "GreaterEqual": "greater_equal",
    "Equal": "equal",
    "NotEqual": "not_equal",
    "LogicalAnd": "logical_and",
    "LogicalOr": "logical_or",
}
for _name, _op in _COMPARE.items():
    kernel(_name)(_compare_factory(_op))


# ---- element-wise unary ops ---------------------------------------------------------------
# Below these, exp(-x) overflows: 1 / (1 + exp(-x)) gives 0 where exp(x) / (1 + exp(x)) does
# not (a subnormal result).
# Keyed by dtype: reading `x.dtype.name` costs more than a hash of the dtype (~1.5 us, a
# hundred and fifty times per forward pass of a 50-step LSTM).
_EXP_OVERFLOW = {
    np.dtype(np.float16): -11.0,
    np.dtype(np.float32): -88.0,
    np.dtype(np.float64): -708.0,
}


def _tanh(xp: Any, x: Any) -> Any:
    """TF 1.15's bits for small float32 tensors on the host (_eigen_activations), numpy's or
    cupy's tanh otherwise."""
    if _eigen_activations.cheap(xp, x):
        return _eigen_activations.tanh(x)
    return xp.tanh(x)


def _sigmoid(xp: Any, x: Any) -> Any:
    """TF 1.15's bits for small float32 tensors on the host (_eigen_activations); otherwise
    1 / (1 + exp(-x)): three passes over x (this runs several times per step of an LSTM);
    the rare elements where exp(-x) overflows are recomputed as exp(x) / (1 + exp(x))."""
    if _eigen_activations.cheap(xp, x):
        return _eigen_activations.sigmoid(x)
    limit = _EXP_OVERFLOW.get(x.dtype)
    if limit is None:  # complex: the symmetric form, never overflowing
        e = xp.exp(-xp.abs(x))
        r = 1 / (1 + e)
        return xp.where(x >= 0, r, e * r)
    # In place on one fresh array: a quarter less time than a new array per pass.
    r = xp.negative(x, out=xp.empty(x.shape, x.dtype))  # an array, a 0-d one too
    # One reduction, over the contiguous -x (x may be a strided slice of an LSTM's gates),
    # to learn whether any element may be that low, instead of a boolean array and any()
    # over it; a NaN maximum hides the others, so then each is compared.
    most = r.max() if r.size else -limit
    xp.exp(r, out=r)
    r += 1
    xp.reciprocal(r, out=r)
    if bool(most > -limit) or bool(most != most):
        low = x < limit
        e = xp.exp(xp.where(low, x, 0))
        r = xp.where(low, e / (1 + e), r)
    return r


def _tf_cpu_float32(name: str, fallback: XpFn, module: Any = _eigen_math) -> XpFn:
    """float32 on CPU with TF 1.15's Eigen bits (module's `name`: _eigen_math's or
    _eigen_trig's); other types and cupy as before."""
    eigen = getattr(module, name)

    def fn(xp: Any, x: Any) -> Any:
        if _eigen_math.applies(xp, x):
            return eigen(x)
        return _resolve(fallback, xp)(x)

    return fn


def _double_first(double: Callable[[np.ndarray], np.ndarray], fn: XpFn) -> XpFn:
    """float64 on CPU with TF 1.15's bits (_eigen_double: Eigen's exp packets, glibc's
    functions); other dtypes and cupy as fn."""

    def wrapped(xp: Any, x: Any) -> Any:
        if _eigen_double.applies(xp, x):
            return double(x)
        return _resolve(fn, xp)(x)

    return wrapped


def _glibc_double(name: str, fn: XpFn) -> XpFn:
    return _double_first(functools.partial(_eigen_double.scalar, name), fn)


def _neg(xp: Any, x: Any) -> Any:
    """-x; TF 1.15's CPU kernel negates float packets (32 bytes) as 0 - x, so a zero there
    comes out +0.0, and only the scalar tail (size % lanes) gives -0.0 for +0.0."""
    if xp is not np or x.dtype.kind != "f" or x.dtype.itemsize not in (4, 8):
        return xp.negative(x)
    out = np.negative(x, order="C")  # flat in TF's order (a 0-d x stays 0-d)
    flat = out.reshape(-1)
    packed = flat.size - flat.size % (32 // x.dtype.itemsize)
    if packed:
        flat[:packed] += 0  # -0.0 + 0 is +0.0: 0 - x for every value
    return out


def _reciprocal(xp: Any, x: Any) -> Any:
    if x.dtype.kind in "iu":
        return xp.floor_divide(xp.ones_like(x), x)
    return xp.reciprocal(x)


def _rsqrt(xp: Any, x: Any) -> Any:
    if _eigen_math.applies(xp, x):
        return _eigen_psqrt.tf_rsqrt_float32(x)  # Eigen's fast-math prsqrt, TF's bits
    return xp.reciprocal(xp.sqrt(x))


_UNARY: dict[str, XpFn] = {
    "Neg": _neg,
    "Abs": "abs",
    "Square": "square",
    "Sqrt": _tf_cpu_float32("tf_sqrt_float32", "sqrt", _eigen_psqrt),
    "Rsqrt": _rsqrt,
    "Exp": _double_first(_eigen_double.exp, _tf_cpu_float32("exp", "exp")),
    "Log": _glibc_double("log", _tf_cpu_float32("log", "log")),
    "Log1p": _glibc_double("log1p", _tf_cpu_float32("log1p", "log1p")),
    "Expm1": _glibc_double("expm1", _tf_cpu_float32("expm1", "expm1")),
    "Sign": "sign",
    "Reciprocal": _reciprocal,
    "Floor": "floor",
    "Ceil": "ceil",
    "Round": "round",  # half to even, as TF's Round
    "Sin": _tf_cpu_float32("sin", "sin", _eigen_trig),
    "Cos": _tf_cpu_float32("cos", "cos", _eigen_trig),
    "Tan": _glibc_double("tan", _tf_cpu_float32("tan", "tan", _eigen_trig)),
    "Asin": _glibc_double("asin", "arcsin"),
    "Acos": _glibc_double("acos", "arccos"),
    "Atan": _glibc_double("atan", "arctan"),
    "Tanh": _glibc_double("tanh", _tanh),
    "Sigmoid": _double_first(_eigen_double.sigmoid, _sigmoid),
    "Conj": "conj",
}


def _unary_factory(fn: XpFn) -> Callable[[Any, Any], Compute]:
    def factory(node: Any, xp: Any) -> Compute:
        dtype = np_dtype(node)
        op = _resolve(fn, xp)

        def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
            if silenced():
                out = xp.asarray(op(xp.asarray(ins[0])))
            else:
                with np.errstate(all="ignore"):
                    out = xp.asarray(op(xp.asarray(ins[0])))
            if out.dtype != dtype:
                out = out.astype(dtype)
            return (out,)

        return compute

    return factory


for _name, _fn in _UNARY.items():
    kernel(_name)(_unary_factory(_fn))


def _plain_factory(fn: str) -> Callable[[Any, Any], Compute]:
    """fn applied to the one input, its result as it comes (a bool array)."""

    def factory(node: Any, xp: Any) -> Compute:
        op = getattr(xp, fn)

        def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
            return (xp.asarray(op(ins[0])),)

        return compute

    return factory


for _name, _op in {
    "LogicalNot": "logical_not",
    "IsFinite": "isfinite",
    "IsNan": "isnan",
    "IsInf": "isinf",
}.items():
    kernel(_name)(_plain_factory(_op))


# TF's gradient helper ops: (y, dy) -> dx, from the forward op's output y. TF 1.15 evaluates
# them with Eigen's functors (cwise_ops_gradients.h): a packet form over all but the last
# size % packet values of the tensor, a scalar form, multiplied in another order, over those.
# Where dy is 0 the sqrt, rsqrt and reciprocal gradients are 0 (mul_no_nan), even for an
# infinite or NaN y.
def _no_nan(xp: Any, a: Any, b: Any) -> Any:
    """Eigen's mul_no_nan_op: a * b, and 0 where b is 0."""
    return xp.where(b == 0, xp.zeros((), a.dtype), a * b)


def _zero_where_no_gradient(xp: Any, dy: Any, value: Any) -> Any:
    return xp.where(dy == 0, xp.zeros((), value.dtype), value)


# name: (packet form, scalar form)
_GRAD_HELPERS: dict[str, tuple[XpFn, XpFn]] = {
    "TanhGrad": (lambda xp, y, dy: dy * (1 - y * y), lambda xp, y, dy: dy * (1 - y * y)),
    "SigmoidGrad": (lambda xp, y, dy: dy * (y * (1 - y)), lambda xp, y, dy: dy * y * (1 - y)),
    "SqrtGrad": (
        lambda xp, y, dy: _no_nan(xp, 0.5 / y, dy),
        lambda xp, y, dy: _zero_where_no_gradient(xp, dy, (0.5 * dy) / y),
    ),
    "RsqrtGrad": (
        lambda xp, y, dy: _no_nan(xp, -0.5 * (y * y), _no_nan(xp, y, dy)),
        lambda xp, y, dy: _zero_where_no_gradient(xp, dy, (-0.5 * (dy * y)) * (y * y)),
    ),
    # The packet negation is 0 - x (+0 for a zero y), the scalar one flips the sign.
    "ReciprocalGrad": (
        lambda xp, y, dy: _no_nan(xp, 0 - y * y, dy),
        lambda xp, y, dy: _zero_where_no_gradient(xp, dy, -y * y * dy),
    ),
}
# Values per AVX packet on TF 1.15's CPUs.
_PACKET_VALUES = {np.dtype(np.float32): 8, np.dtype(np.float64): 4}


def _packets_and_tail(packet: XpFn, scalar: XpFn) -> Callable[..., Any]:
    def fn(xp: Any, y: Any, dy: Any) -> Any:
        out = _resolve(packet, xp)(y, dy)
        lanes = _PACKET_VALUES.get(getattr(out, "dtype", None)) if xp is np else None
        if lanes is None or np.shape(y) != np.shape(dy) or out.size % lanes == 0:
            return out
        start = out.size - out.size % lanes
        flat = np.ascontiguousarray(out).reshape(-1)
        ys, dys = np.asarray(y).reshape(-1)[start:], np.asarray(dy).reshape(-1)[start:]
        flat[start:] = _resolve(scalar, xp)(ys, dys)
        return flat.reshape(out.shape)

    return fn


for _name, (_packet, _scalar) in _GRAD_HELPERS.items():
    _fn = _packets_and_tail(_packet, _scalar)
    kernel(_name)(_binary_factory(_fn, _fn))


# ---- cast, select, n-ary sums -------------------------------------------------------------
@kernel("Cast")
def cast(node: Any, xp: Any) -> Compute:
    dst = np_dtype(node, "DstT")
    src = node.attrs.get("SrcT")
    # A cast that cannot overflow or meet NaN (uint8 -> float32, ...) needs no errstate.
    quiet = src is not None and np.can_cast(np.dtype(src.as_numpy_dtype), dst, "safe")

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        if quiet or silenced():
            return (xp.asarray(ins[0]).astype(dst),)
        with np.errstate(all="ignore"):
            return (xp.asarray(ins[0]).astype(dst),)

    return compute


@kernel("Select")
def select(node: Any, xp: Any) -> Compute:
    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        c, x, y = xp.asarray(ins[0]), xp.asarray(ins[1]), xp.asarray(ins[2])
        if x.shape != y.shape:
            raise invalid(
                f"'then' and 'else' must have the same size.  but received: {_shape(x)} vs. "
                f"{_shape(y)}"
            )
        if c.ndim == 0:
            return (x if bool(c) else y,)
        if c.shape == x.shape:
            return (xp.where(c, x, y),)
        if c.ndim == 1 and x.ndim > 1 and c.shape[0] == x.shape[0]:
            return (xp.where(c.reshape((-1,) + (1,) * (x.ndim - 1)), x, y),)
        raise invalid(
            f"'condition' must be a scalar, a vector of size {x.shape[0] if x.ndim else 1} or "
            f"have the shape of 'then' {_shape(x)}; got {_shape(c)}"
        )

    return compute


@kernel("AddN")
@kernel("AccumulateNV2")
def add_n(node: Any, xp: Any) -> Compute:
    def direct(a: Any, b: Any) -> Any:
        """A run plan's call of a two-input AddN (runtime/run_plan.py): compute's first
        branch, without its list and tuple."""
        if type(a) is np.ndarray and type(b) is np.ndarray and a.shape == b.shape:
            return xp.add(a, b)
        return compute(None, [a, b])[0]

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        if len(ins) == 2:
            a, b = ins
            if type(a) is np.ndarray and type(b) is np.ndarray and a.shape == b.shape:
                # Two arrays (a loop's gradient body adds pairs every iteration): the sum
                # below without its checks.
                return (xp.add(a, b),)
        if isinstance(ins[0], tensor_lists.TensorListValue):  # variant lists (loop gradients)
            return (tensor_lists.add_lists(ins),)
        first = shape_of(ins[0])
        for i in range(1, len(ins)):
            x = ins[i]
            if shape_of(x) != first:
                raise invalid(
                    f"Inputs to operation {node.name} of type {node.op} must have the same size "
                    f"and shape.  Input 0: {list(first)} != input {i}: {_shape(x)}"
                )
        # TF's kernel adds the first n % 8 inputs (8 or 9 where that is 0 or 1) left to
        # right, then each later block of eight summed on its own: out += (a + ... + h).
        head = len(ins) % 8 or 8
        if head == 1:
            head = 9
        total = _sum_left_to_right(xp, ins[:head])
        for start in range(head, len(ins), 8):
            total = _add_into(xp, total, _sum_left_to_right(xp, ins[start : start + 8]))
        return (total,)

    compute.direct = direct  # type: ignore[attr-defined]
    return compute


def _sum_left_to_right(xp: Any, ins: list[Any]) -> Any:
    """((a + b) + c) + ... in a new array (a 0-d input gives a scalar, as xp.add does)."""
    total = xp.add(ins[0], ins[1]) if len(ins) > 1 else xp.array(ins[0], copy=True)
    for x in ins[2:]:
        total = _add_into(xp, total, x)
    return total


def _add_into(xp: Any, total: Any, x: Any) -> Any:
    """total + x, in total's own array where it is one (a new total from 0-d sums)."""
    if isinstance(total, xp.ndarray):
        xp.add(total, x, out=total)
        return total
    return total + x


# ---- matmul -------------------------------------------------------------------------------
class _TransposeCache:
    """The contiguous transpose of an operand that comes back unchanged: a loop's gradient
    multiplies by the same weights, transposed, in every iteration, and BLAS is markedly
    faster on a contiguous copy than on the transposed view. Only read-only numpy arrays
    that own their data (variable values) qualify; the copy is made on the second use of the
    same array and dropped with it (the array is held weakly), or when any variable has been
    written in place since (updates write variables' arrays in place)."""

    __slots__ = ("_entry",)

    def __init__(self) -> None:
        self._entry: tuple[weakref.ref[Any], Any, int] | None = None

    def transposed(self, xp: Any, v: Any) -> Any:
        entry = self._entry
        epoch = in_place.write_epoch()
        if entry is not None and entry[0]() is v is not None and entry[2] == epoch:
            t = entry[1]
            if t is None:
                t = xp.ascontiguousarray(xp.transpose(v))
                self._entry = (entry[0], t, epoch)
            return t
        if isinstance(v, np.ndarray) and not v.flags.writeable and v.flags.owndata:
            self._entry = (weakref.ref(v, self._forget), None, epoch)
        return v.T

    def _forget(self, _: Any) -> None:
        self._entry = None


def _matmul_product(
    xp: Any,
    ins: list[Any],
    ta: bool,
    tb: bool,
    caches: tuple[_TransposeCache, _TransposeCache],
    fused: bool = False,
) -> Any:
    """MatMul's product of ins[0] and ins[1], rounded as TF 1.15's CPU kernel rounds it: a
    plain MatMul's matrix-vector shapes through Eigen's matrix-vector routine, a fused one's
    (_FusedMatMul) through the general product unless it has one row, as TF's contraction
    does; narrow products in MKL-DNN's sgemm order; the rest BLAS's."""
    a, b = ins[0], ins[1]
    if type(a) is not np.ndarray or type(b) is not np.ndarray or xp is not np:
        a, b = xp.asarray(a), xp.asarray(b)
    if a.ndim != 2 or b.ndim != 2:
        raise invalid(
            f"In[0] and In[1] must be matrices (rank 2): In[0]: {_shape(a)}, In[1]: {_shape(b)}"
        )
    same_depth = (a.shape[0] if ta else a.shape[1]) == (b.shape[1] if tb else b.shape[0])
    # A fused product takes Eigen's matrix-vector routine only for one row.
    if xp is np and same_depth and (not fused or (a.shape[1] if ta else a.shape[0]) == 1):
        # TF's matrix-vector shapes: its summation order (_eigen_gemv), else BLAS below.
        exact = _eigen_gemv.matmul(a, b, ta, tb)
        if exact is not None:
            return exact
    if ta:
        a = caches[0].transposed(xp, a)
    if tb:
        b = caches[1].transposed(xp, b)
    if a.shape[1] != b.shape[0]:
        raise invalid(f"Matrix size-incompatible: In[0]: {_shape(ins[0])}, In[1]: {_shape(ins[1])}")
    if xp is np:
        exact = _eigen_small_depth.matmul(a, b)
        if exact is None:
            exact = _mkldnn_sgemm.narrow_product(a, b, one_column=fused)
        if exact is not None:
            return exact
    out = _cpu_gemm.matmul(a, b) if xp is np else xp.matmul(a, b)
    # numpy multiplies bfloat16 matrices in float32.
    return out if out.dtype == a.dtype else out.astype(a.dtype)


@kernel("MatMul")
def matmul(node: Any, xp: Any) -> Compute:
    ta = bool(node.attrs.get("transpose_a", False))
    tb = bool(node.attrs.get("transpose_b", False))
    caches = (_TransposeCache(), _TransposeCache())

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        return (_matmul_product(xp, ins, ta, tb, caches),)

    return compute


@kernel("_FusedMatMul")
def fused_matmul(node: Any, xp: Any) -> Compute:
    """MatMul -> BiasAdd as grappler's remapper fuses them on the CPU
    (runtime/kernel_fusion.py): TF's general product, then the bias added to it."""
    fused_ops = [v.decode() if isinstance(v, bytes) else str(v) for v in node.attrs["fused_ops"]]
    if fused_ops != ["BiasAdd"]:
        raise invalid(f"_FusedMatMul: unsupported fused_ops {fused_ops} ({node.name})")
    ta = bool(node.attrs.get("transpose_a", False))
    tb = bool(node.attrs.get("transpose_b", False))
    caches = (_TransposeCache(), _TransposeCache())

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        out = _matmul_product(xp, ins, ta, tb, caches, fused=True)
        bias = xp.asarray(ins[2])
        if bias.ndim != 1:
            raise invalid(f"Biases must be 1D: {list(bias.shape)}")
        if bias.shape[0] != out.shape[1]:
            raise invalid(
                "Must provide as many biases as the last dimension of the input tensor: "
                f"{list(bias.shape)} vs. {list(out.shape)}"
            )
        return (out + bias,)

    return compute


def _adjoint(xp: Any, m: Any) -> Any:
    """The conjugate transpose of the last two axes."""
    m = xp.swapaxes(m, -1, -2)
    return xp.conj(m) if m.dtype.kind == "c" else m


@kernel("BatchMatMul")
def batch_matmul(node: Any, xp: Any) -> Compute:
    """Same rank and batch dimensions (BatchMatMulV2 below broadcasts them)."""
    adj_x = bool(node.attrs.get("adj_x", False))
    adj_y = bool(node.attrs.get("adj_y", False))

    def adjoint(m: Any) -> Any:
        return _adjoint(xp, m)

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        a, b = (xp.asarray(v) for v in ins)
        if a.ndim < 2 or b.ndim < 2 or a.ndim != b.ndim or a.shape[:-2] != b.shape[:-2]:
            raise invalid(
                "In[0] and In[1] must have the same rank (at least 2) and batch dimensions: "
                f"In[0]: {_shape(a)}, In[1]: {_shape(b)}"
            )
        x = adjoint(a) if adj_x else a
        y = adjoint(b) if adj_y else b
        if x.shape[-1] != y.shape[-2]:
            raise invalid(
                f"Matrix size-incompatible: In[0]: {_shape(ins[0])}, In[1]: {_shape(ins[1])}"
            )
        return (_batch_product(xp, a, b, adj_x, adj_y),)

    return compute


def _batch_product(xp: Any, a: Any, b: Any, adj_x: bool, adj_y: bool) -> Any:
    """The product of the stored operands a and b, adjoined as asked: matrix-vector batches in
    TF's Eigen order (_eigen_batch_matvec), float64 depths of 2-3 too, the rest BLAS's."""
    exact = _eigen_batch_matvec.batch_matmul(a, b, adj_x, adj_y) if xp is np else None
    x = _adjoint(xp, a) if adj_x else a
    y = _adjoint(xp, b) if adj_y else b
    if exact is None and xp is np:
        exact = _eigen_small_depth.matmul(x, y)
    return xp.matmul(x, y) if exact is None else exact


@kernel("BatchMatMulV2")
def batch_matmul_v2(node: Any, xp: Any) -> Compute:
    """TF 1.15's tf.matmul of batches: batch dimensions broadcast."""
    adj_x = bool(node.attrs.get("adj_x", False))
    adj_y = bool(node.attrs.get("adj_y", False))

    def adjoint(m: Any) -> Any:
        return _adjoint(xp, m)

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        a, b = (xp.asarray(v) for v in ins)
        for i, m in enumerate((a, b)):
            if m.ndim < 2:
                raise invalid(f"In[{i}] ndims must be >= 2: {m.ndim}")
        try:
            np.broadcast_shapes(tuple(a.shape[:-2]), tuple(b.shape[:-2]))
        except ValueError:
            raise invalid(
                "In[0] and In[1] must have compatible batch dimensions: "
                f"{shape_str(a.shape)} vs. {shape_str(b.shape)}"
            ) from None
        x = adjoint(a) if adj_x else a
        y = adjoint(b) if adj_y else b
        if x.shape[-1] != y.shape[-2]:
            raise invalid(
                f"In[0] mismatch In[1] shape: {x.shape[-1]} vs. {y.shape[-2]}: "
                f"{shape_str(a.shape)} {shape_str(b.shape)} {int(adj_x)} {int(adj_y)}"
            )
        return (_batch_product(xp, a, b, adj_x, adj_y),)

    return compute


# ---- reductions ---------------------------------------------------------------------------
Reduce = Callable[[Any, Any, tuple[int, ...], bool], Any]


def _normalize_axes(axes: Any, ndim: int) -> tuple[int, ...]:
    out: list[int] = []
    for a in np.asarray(axes).reshape(-1).tolist():  # integer axes: Python ints
        if not -ndim <= a < ndim:
            raise invalid(f"Invalid reduction dimension ({a} for input with {ndim} dimension(s)")
        a %= ndim
        if a in out:
            raise invalid(f"Invalid reduction arguments: Axes contains duplicate dimension: {a}")
        out.append(a)
    return tuple(out)


def _acc(x: Any) -> Any:
    """float16 sums accumulate in float32, as TF's kernels do."""
    return np.float32 if x.dtype == np.float16 else x.dtype


def _int_mean(xp: Any, x: Any, axis: tuple[int, ...], keep: bool) -> Any:
    """Integer mean as TF computes it: the sum divided by the count, rounded toward zero."""
    total = xp.sum(x, axis=axis, keepdims=keep, dtype=np.int64)
    count = max(int(np.prod([x.shape[a] for a in axis])), 1)
    return xp.sign(total) * (xp.abs(total) // count)


def _eigen_ordered_sum(x: Any, axis: tuple[int, ...], keep: bool) -> Any:
    """x's float32/float64 sum over axis in TF's order, or None where numpy's is kept."""
    total = _eigen_sum.trailing_sum(x, axis, keep)
    if total is None and x.dtype == np.float64:
        total = _eigen_axes_sum.axes_sum(x, axis, keep)
    return total


def _float_mean(xp: Any, x: Any, axis: tuple[int, ...], keep: bool) -> Any:
    total = _eigen_ordered_sum(x, axis, keep)
    if total is not None:  # TF's MeanReducer: Eigen's sum over the count, in x's dtype
        return total / x.dtype.type(math.prod(x.shape[a] for a in axis))
    return xp.mean(x, axis=axis, keepdims=keep, dtype=np.float32 if x.dtype == np.float16 else None)


def _sum(xp: Any, x: Any, axis: tuple[int, ...], keep: bool) -> Any:
    total = _eigen_ordered_sum(x, axis, keep)
    if total is not None:
        return total
    return xp.sum(x, axis=axis, keepdims=keep, dtype=_acc(x))


def _prod(xp: Any, x: Any, axis: tuple[int, ...], keep: bool) -> Any:
    return xp.prod(x, axis=axis, keepdims=keep, dtype=_acc(x))


def _lowest(dtype: np.dtype[Any]) -> Any:
    return -np.inf if dtype.kind == "f" else np.iinfo(dtype).min


def _highest(dtype: np.dtype[Any]) -> Any:
    return np.inf if dtype.kind == "f" else np.iinfo(dtype).max


def _extreme(fn: str, identity: Callable[[np.dtype[Any]], Any]) -> Reduce:
    """max/min; an empty reduction yields TF's identity (the lowest or highest value)."""

    def reduce(xp: Any, x: Any, axis: tuple[int, ...], keep: bool) -> Any:
        if x.size == 0:
            shape = _eigen_sum.reduced_shape(x.shape, axis, keep)
            return xp.full(shape, identity(x.dtype), dtype=x.dtype)
        return getattr(xp, fn)(x, axis=axis, keepdims=keep)

    return reduce


def _all(xp: Any, x: Any, axis: tuple[int, ...], keep: bool) -> Any:
    return xp.all(x, axis=axis, keepdims=keep)


def _any(xp: Any, x: Any, axis: tuple[int, ...], keep: bool) -> Any:
    return xp.any(x, axis=axis, keepdims=keep)


def _reduction_factory(fn: Reduce, int_fn: Reduce | None = None) -> Callable[[Any, Any], Compute]:
    def factory(node: Any, xp: Any) -> Compute:
        keep = bool(node.attrs.get("keep_dims", False))
        dtype = np_dtype(node) if "T" in node.attrs else np.dtype(np.bool_)
        impl = int_fn if int_fn is not None and dtype.kind in "iu" else fn
        # (rank, axes) worked out from the last unchanging axes array: a loop's gradient
        # reduces by the same BroadcastGradientArgs result every iteration (~1.5 us each).
        last = LastHostInputs()

        def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
            x = xp.asarray(ins[0])
            kept = last.get(ins[1])
            if kept is not None and kept[0] == x.ndim:
                axis = kept[1]
            else:
                axis = _normalize_axes(ins[1], x.ndim)
                last.keep((ins[1],), (x.ndim, axis))
            if not axis:  # nothing to reduce: the input is the result
                return (x if x.dtype == dtype else x.astype(dtype),)
            if _eigen_sum.reduces_nothing(x.shape, axis):
                # Only axes of size 1: TF copies the input (a -0.0 stays -0.0).
                shape = _eigen_sum.reduced_shape(x.shape, axis, keep)
                return (x.reshape(shape) if x.dtype == dtype else x.astype(dtype).reshape(shape),)
            if silenced():
                out = xp.asarray(impl(xp, x, axis, keep))
            else:
                with np.errstate(all="ignore"):
                    out = xp.asarray(impl(xp, x, axis, keep))
            if out.dtype != dtype:
                out = out.astype(dtype)
            return (out,)

        return compute

    return factory


# The reduction axes stay in host memory (TF's HostMemory("reduction_indices")).
kernel("Sum", host=[1])(_reduction_factory(_sum))
kernel("Prod", host=[1])(_reduction_factory(_prod))
kernel("Mean", host=[1])(_reduction_factory(_float_mean, _int_mean))
kernel("Max", host=[1])(_reduction_factory(_extreme("max", _lowest)))
kernel("Min", host=[1])(_reduction_factory(_extreme("min", _highest)))
kernel("All", host=[1])(_reduction_factory(_all))
kernel("Any", host=[1])(_reduction_factory(_any))


def _arg_factory(fn: str) -> Callable[[Any, Any], Compute]:
    def factory(node: Any, xp: Any) -> Compute:
        out_dtype = np_dtype(node, "output_type")
        op = getattr(xp, fn)

        def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
            x = xp.asarray(ins[0])
            d = int(np.asarray(ins[1]))
            if not -x.ndim <= d < x.ndim:
                raise invalid(f"Expected dimension in the range [{-x.ndim}, {x.ndim}), but got {d}")
            if x.shape[d] == 0:
                raise invalid(f"Reduction axis {d} is empty in shape {_shape(x)}")
            return (xp.asarray(op(x, axis=d)).astype(out_dtype),)

        return compute

    return factory


kernel("ArgMax", host=[1])(_arg_factory("argmax"))
kernel("ArgMin", host=[1])(_arg_factory("argmin"))


def _scan_factory(fn: str, identity: int) -> Callable[[Any, Any], Compute]:
    def factory(node: Any, xp: Any) -> Compute:
        exclusive = bool(node.attrs.get("exclusive", False))
        reverse = bool(node.attrs.get("reverse", False))
        dtype = np_dtype(node)
        op = getattr(xp, fn)

        def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
            x = xp.asarray(ins[0])
            axis = int(np.asarray(ins[1]))
            if not -x.ndim <= axis < x.ndim:
                raise invalid(f"axis must be in the range [{-x.ndim}, {x.ndim}), but got {axis}")
            if reverse:
                x = xp.flip(x, axis)
            with np.errstate(all="ignore"):
                out = op(x, axis=axis, dtype=dtype)
            if exclusive:
                out = xp.roll(out, 1, axis=axis)
                first = [slice(None)] * x.ndim
                first[axis] = slice(0, 1)
                out[tuple(first)] = identity
            if reverse:
                out = xp.flip(out, axis)
            return (xp.ascontiguousarray(out),)

        return compute

    return factory


kernel("Cumsum", host=[1])(_scan_factory("cumsum", 0))
kernel("Cumprod", host=[1])(_scan_factory("cumprod", 1))


# ---- shape helpers: arithmetic TF runs on the host even for GPU nodes, with host results ---
@kernel("BroadcastGradientArgs", all_host=True)
def broadcast_gradient_args(node: Any, xp: Any) -> Compute:
    last = LastHostInputs()

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        kept = last.get(ins[0], ins[1])
        if kept is not None:
            return kept  # type: ignore[no-any-return]
        out = _broadcast_gradient_args(ins)
        last.keep((ins[0], ins[1]), (frozen(out[0]), frozen(out[1])))
        return out

    def _broadcast_gradient_args(ins: list[Any]) -> tuple[Any, ...]:
        s0 = host_ints(ins[0])
        s1 = host_ints(ins[1])
        try:
            r0, r1 = broadcast_reduction_indices(s0, s1)
        except ValueError as e:
            raise invalid(str(e)) from None
        dt = np.asarray(ins[0]).dtype
        return (np.array(r0, dtype=dt), np.array(r1, dtype=dt))

    return compute


@kernel("Range", all_host=True)
def range_kernel(node: Any, xp: Any) -> Compute:
    dtype = np_dtype(node, "Tidx")

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        start, limit, delta = (np.asarray(v).item() for v in ins)
        if delta == 0:
            raise invalid(f"Requires delta != 0: {delta}")
        if delta > 0 and start > limit:
            raise invalid(f"Requires start <= limit when delta > 0: {start}/{limit}")
        if delta < 0 and start < limit:
            raise invalid(f"Requires start >= limit when delta < 0: {start}/{limit}")
        count = math.ceil(abs((limit - start) / delta))
        memory_budget.check_shape([count], np.dtype(dtype), "Range's output")
        return (np.arange(start, limit, delta, dtype=dtype),)

    return compute
