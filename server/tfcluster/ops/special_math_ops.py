"""Element-wise math TF 1.15 has beyond the core set (tf.math.*): special functions (erf,
lgamma, digamma, incomplete gamma/beta, zeta, polygamma, Bessel), hyperbolic functions,
atan2, rint, nextafter, xlogy/xdivy, the *_no_nan ops, log_sigmoid, polyval, lbeta, and the
reductions reduce_euclidean_norm/variance/std and cumulative_logsumexp."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tfcluster.framework import dispatch, dtypes, op_def_registry
from tfcluster.framework.graph import Tensor, convert_to_tensor, name_scope
from tfcluster.framework.tensor_shape import TensorShape
from tfcluster.ops import constant_op, math_ops, nn_ops
from tfcluster.ops.infer_util import check_dtype, index_tensor
from tfcluster.ops.op_util import (
    Outputs,
    binary_broadcast,
    make_op,
    unary_same,
)

_FLOAT = (dtypes.float16, dtypes.float32, dtypes.float64)
_FLOAT32_64 = (dtypes.float32, dtypes.float64)
_FLOAT_COMPLEX = (*_FLOAT, dtypes.complex64, dtypes.complex128)

_UNARY: dict[str, tuple[dtypes.DType, ...]] = {
    "Erf": _FLOAT,
    "Erfc": _FLOAT,
    "Lgamma": _FLOAT,
    "Digamma": _FLOAT,
    "BesselI0e": _FLOAT,
    "BesselI1e": _FLOAT,
    "Sinh": _FLOAT_COMPLEX,
    "Cosh": _FLOAT_COMPLEX,
    "Asinh": _FLOAT_COMPLEX,
    "Acosh": _FLOAT_COMPLEX,
    "Atanh": _FLOAT_COMPLEX,
    "Rint": _FLOAT,
}
_BINARY: dict[str, tuple[dtypes.DType, ...]] = {
    "Igamma": _FLOAT32_64,
    "Igammac": _FLOAT32_64,
    "IgammaGradA": _FLOAT32_64,
    "Zeta": _FLOAT32_64,
    "Polygamma": _FLOAT32_64,
    "Atan2": _FLOAT,
    "NextAfter": _FLOAT32_64,
    "Xlogy": _FLOAT_COMPLEX,
    "Xdivy": _FLOAT_COMPLEX,
    "MulNoNan": _FLOAT_COMPLEX,
}


def _betainc_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    """As TF's: no broadcasting; the non-scalar inputs must have one shape."""
    if all(t.shape.ndims == 0 for t in inputs):
        return [(inputs[0].dtype.base_dtype, TensorShape([]))]
    shape = TensorShape(None)
    for t in inputs:
        if t.shape.ndims is None or t.shape.ndims == 0:
            continue
        try:
            shape = shape.merge_with(t.shape)
        except ValueError:
            shapes = ", ".join(str(i.shape) for i in inputs)
            raise ValueError(
                f"Shapes of a, b and x are inconsistent: {shapes} (op: 'Betainc')"
            ) from None
    return [(inputs[0].dtype.base_dtype, shape)]


def _reduction_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    return math_ops._reduction_infer(inputs, attrs)


def _scan_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    return math_ops._scan_infer(inputs, attrs)


for _op in _UNARY:
    op_def_registry.register(_op, unary_same)
for _op in _BINARY:
    op_def_registry.register(_op, binary_broadcast)
op_def_registry.register("Betainc", _betainc_infer)
op_def_registry.register("EuclideanNorm", _reduction_infer)
op_def_registry.register("CumulativeLogsumexp", _scan_infer)


def _same_dtype(values: Sequence[Any], op_type: str, names: Sequence[str]) -> list[Tensor]:
    """Inputs of one dtype, converted in order as TF 1.15's op_def_library does."""
    return math_ops._convert_same(values, op_type, names)


def _unary(op_type: str, x: Any, name: str | None) -> Tensor:
    with name_scope(name, op_type, [x]) as scope:
        t = convert_to_tensor(x, name="x")
        check_dtype(t, _UNARY[op_type], op_type, "x")
        return make_op(op_type, [t], {"T": t.dtype.base_dtype}, name=scope).outputs[0]


def _binary(
    op_type: str, x: Any, y: Any, name: str | None, names: Sequence[str] = ("x", "y")
) -> Tensor:
    with name_scope(name, op_type, [x, y]) as scope:
        a, b = _same_dtype([x, y], op_type, names)
        check_dtype(a, _BINARY[op_type], op_type, names[0])
        return make_op(op_type, [a, b], {"T": a.dtype.base_dtype}, name=scope).outputs[0]


# ---- special functions ----------------------------------------------------------------------
def erf(x: Any, name: str | None = None) -> Tensor:
    return _unary("Erf", x, name)


def erfc(x: Any, name: str | None = None) -> Tensor:
    return _unary("Erfc", x, name)


def lgamma(x: Any, name: str | None = None) -> Tensor:
    """log |Gamma(x)|."""
    return _unary("Lgamma", x, name)


def digamma(x: Any, name: str | None = None) -> Tensor:
    return _unary("Digamma", x, name)


def igamma(a: Any, x: Any, name: str | None = None) -> Tensor:
    """The regularized lower incomplete gamma function P(a, x)."""
    return _binary("Igamma", a, x, name, ("a", "x"))


def igammac(a: Any, x: Any, name: str | None = None) -> Tensor:
    """The regularized upper incomplete gamma function Q(a, x) = 1 - P(a, x)."""
    return _binary("Igammac", a, x, name, ("a", "x"))


def igamma_grad_a(a: Any, x: Any, name: str | None = None) -> Tensor:
    return _binary("IgammaGradA", a, x, name, ("a", "x"))


def betainc(a: Any, b: Any, x: Any, name: str | None = None) -> Tensor:
    """The regularized incomplete beta function I_x(a, b)."""
    with name_scope(name, "Betainc", [a, b, x]) as scope:
        ta, tb, tx = _same_dtype([a, b, x], "Betainc", ("a", "b", "x"))
        check_dtype(ta, _FLOAT32_64, "Betainc", "a")
        return make_op("Betainc", [ta, tb, tx], {"T": ta.dtype.base_dtype}, name=scope).outputs[0]


def zeta(x: Any, q: Any, name: str | None = None) -> Tensor:
    """The Hurwitz zeta function sum_k (q + k)^-x."""
    return _binary("Zeta", x, q, name, ("x", "q"))


def polygamma(a: Any, x: Any, name: str | None = None) -> Tensor:
    """The a-th derivative of digamma at x."""
    return _binary("Polygamma", a, x, name, ("a", "x"))


def lbeta(x: Any, name: str | None = None) -> Tensor:
    """log(|Beta(x)|) over the last dimension: sum(lgamma(x)) - lgamma(sum(x))."""
    with name_scope(name, "lbeta", [x]):
        t = convert_to_tensor(x, name="x")
        log_prod_gamma_x = math_ops.reduce_sum(lgamma(t), axis=[-1])
        sum_x = math_ops.reduce_sum(t, axis=[-1])
        log_gamma_sum_x = lgamma(sum_x)
        return log_prod_gamma_x - log_gamma_sum_x


def bessel_i0e(x: Any, name: str | None = None) -> Tensor:
    """exp(-|x|) I0(x). TF 1.15's is the raw op: named "BesselI0e" by default."""
    return _unary("BesselI0e", x, name)


def bessel_i1e(x: Any, name: str | None = None) -> Tensor:
    return _unary("BesselI1e", x, name)


def bessel_i0(x: Any, name: str | None = None) -> Tensor:
    """The modified Bessel function I0, as exp(|x|) * bessel_i0e(x)."""
    with name_scope(name, "bessel_i0", [x]):
        t = convert_to_tensor(x, name="x")
        return math_ops.multiply(math_ops.exp(math_ops.abs(t)), bessel_i0e(t))


def bessel_i1(x: Any, name: str | None = None) -> Tensor:
    with name_scope(name, "bessel_i1", [x]):
        t = convert_to_tensor(x, name="x")
        return math_ops.multiply(math_ops.exp(math_ops.abs(t)), bessel_i1e(t))


# ---- hyperbolic, atan2, rounding ------------------------------------------------------------
def sinh(x: Any, name: str | None = None) -> Tensor:
    return _unary("Sinh", x, name)


def cosh(x: Any, name: str | None = None) -> Tensor:
    return _unary("Cosh", x, name)


def asinh(x: Any, name: str | None = None) -> Tensor:
    return _unary("Asinh", x, name)


def acosh(x: Any, name: str | None = None) -> Tensor:
    return _unary("Acosh", x, name)


def atanh(x: Any, name: str | None = None) -> Tensor:
    return _unary("Atanh", x, name)


def atan2(y: Any, x: Any, name: str | None = None) -> Tensor:
    """The angle of the point (x, y), in [-pi, pi]."""
    return _binary("Atan2", y, x, name, ("y", "x"))


def rint(x: Any, name: str | None = None) -> Tensor:
    """Rounds half to even."""
    return _unary("Rint", x, name)


def nextafter(x1: Any, x2: Any, name: str | None = None) -> Tensor:
    return _binary("NextAfter", x1, x2, name, ("x1", "x2"))


# ---- safe products and quotients ------------------------------------------------------------
def xlogy(x: Any, y: Any, name: str | None = None) -> Tensor:
    """x * log(y), and 0 where x is 0."""
    return _binary("Xlogy", x, y, name)


def xdivy(x: Any, y: Any, name: str | None = None) -> Tensor:
    """x / y, and 0 where x is 0 (TF 1.15's op itself: no name scope, unlike 2.x's)."""
    return _binary("Xdivy", x, y, name)


def multiply_no_nan(x: Any, y: Any, name: str | None = None) -> Tensor:
    """x * y, and 0 where y is 0 even if x is inf or nan."""
    with name_scope(name, "multiply_no_nan", [x, y]) as scope:
        return _binary("MulNoNan", x, y, scope)


def reciprocal_no_nan(x: Any, name: str | None = None) -> Tensor:
    """1 / x, and 0 where x is 0."""
    with name_scope(name, "reciprocal_no_nan", [x]) as scope:
        t = convert_to_tensor(x, name="x")
        one = constant_op.constant(1, dtype=t.dtype.base_dtype, name="one")
        return math_ops.div_no_nan(one, t, name=scope)


def log_sigmoid(x: Any, name: str | None = None) -> Tensor:
    """log(1 / (1 + exp(-x))), computed as -softplus(-x) so it never overflows."""
    with name_scope(name, "LogSigmoid", [x]) as scope:
        t = convert_to_tensor(x, name="x")
        return math_ops.negative(nn_ops.softplus(math_ops.negative(t)), name=scope)


def polyval(coeffs: Any, x: Any, name: str | None = None) -> Tensor:
    """coeffs[0] * x^(n-1) + ... + coeffs[n-1], by Horner's rule."""
    if not isinstance(coeffs, list):
        raise ValueError(f"Argument coeffs must be list type found {type(coeffs)}.")
    with name_scope(name, "polyval", [*coeffs, x]) as scope:
        t = convert_to_tensor(x, name="x")
        if not coeffs:
            from tfcluster.ops import array_ops

            return array_ops.zeros_like(t, name=scope)
        tensors = [convert_to_tensor(c, name=f"coeff_{i}") for i, c in enumerate(coeffs)]
        p = tensors[0]
        for c in tensors[1:]:
            p = c + p * t
        return p


# ---- reductions and scans ---------------------------------------------------------------------
def reduce_euclidean_norm(
    input_tensor: Any, axis: Any = None, keepdims: bool = False, name: str | None = None
) -> Tensor:
    """sqrt(sum(x^2)) over axis."""
    # Every axis (axis=None) is a constant made before the op, as TF's _ReductionDims does.
    all_axes = math_ops._all_axes(input_tensor) if axis is None else None
    with name_scope(name, "EuclideanNorm", [input_tensor]) as scope:
        x = convert_to_tensor(input_tensor, name="input")
        dims = all_axes if all_axes is not None else math_ops._reduction_dims(x, axis)
        attrs = {
            "keep_dims": bool(keepdims),
            "T": x.dtype.base_dtype,
            "Tidx": dims.dtype.base_dtype,
        }
        out = make_op("EuclideanNorm", [x, dims], attrs, name=scope).outputs[0]
    if not keepdims and axis is None:
        out.set_shape([])
    return out


def reduce_variance(
    input_tensor: Any, axis: Any = None, keepdims: bool = False, name: str | None = None
) -> Tensor:
    with name_scope(name or "reduce_variance"):
        x = convert_to_tensor(input_tensor)
        means = math_ops.reduce_mean(x, axis=axis, keepdims=True)
        squared = math_ops.square(math_ops.subtract(x, means))
        return math_ops.reduce_mean(squared, axis=axis, keepdims=keepdims)


def reduce_std(
    input_tensor: Any, axis: Any = None, keepdims: bool = False, name: str | None = None
) -> Tensor:
    with name_scope(name or "reduce_std"):
        variance = reduce_variance(input_tensor, axis=axis, keepdims=keepdims)
        return math_ops.sqrt(variance)


def cumulative_logsumexp(
    x: Any, axis: Any = 0, exclusive: bool = False, reverse: bool = False, name: str | None = None
) -> Tensor:
    """log(cumsum(exp(x))) along axis, computed without overflow."""
    with name_scope(name, "CumulativeLogsumexp", [x]) as scope:
        t = convert_to_tensor(x, name="x")
        check_dtype(t, _FLOAT, "CumulativeLogsumexp", "x")
        a = index_tensor(axis, "axis")
        attrs = {
            "T": t.dtype.base_dtype,
            "Tidx": a.dtype.base_dtype,
            "exclusive": bool(exclusive),
            "reverse": bool(reverse),
        }
        return make_op("CumulativeLogsumexp", [t, a], attrs, name=scope).outputs[0]


# Names at the top of tf.* (the others are tf.math.* only).
__all__ = [
    "acosh",
    "asinh",
    "atan2",
    "atanh",
    "betainc",
    "cosh",
    "digamma",
    "erf",
    "erfc",
    "igamma",
    "igammac",
    "lbeta",
    "lgamma",
    "log_sigmoid",
    "polygamma",
    "rint",
    "sinh",
    "zeta",
]

# Ragged operands go to the handlers tf.ragged registers (framework/dispatch.DISPATCHED).
dispatch.make_dispatchable(globals())
