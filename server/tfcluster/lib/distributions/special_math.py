"""The standard normal's cdf, its log (stable in both tails) and its inverse, and the
Laplace log-cdf, built from ops so that they have gradients and run on any device."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from tfcluster.framework import dtypes
from tfcluster.framework.graph import Tensor, convert_to_tensor, name_scope
from tfcluster.ops import array_ops, math_ops, special_math_ops
from tfcluster.ops.constant_op import constant

# Where log_ndtr switches between -ndtr(-x), log(ndtr(x)) and the asymptotic series.
_LOG_NDTR_BOUNDS = {dtypes.float32: (-10.0, 5.0), dtypes.float64: (-20.0, 8.0)}


def _check_float(x: Tensor, what: str) -> None:
    if x.dtype.base_dtype not in (dtypes.float32, dtypes.float64):
        raise TypeError(
            f"{what}.dtype={x.dtype} is not handled, see docstring for supported types."
        )


def ndtr(x: Any, name: str = "ndtr") -> Tensor:
    """P(Z <= x) for a standard normal Z."""
    with name_scope(name, values=[x]):
        x = convert_to_tensor(x, name="x")
        _check_float(x, "x")
        return _ndtr(x)


def _ndtr(x: Tensor) -> Tensor:
    # erf near zero, erfc in the tails (where 1 + erf would lose every digit). Ops are made
    # in TF's order (its node names and graph-derived seeds follow from it).
    half_sqrt_2 = constant(0.5 * np.sqrt(2.0), dtype=x.dtype, name="half_sqrt_2")
    w = x * half_sqrt_2
    z = math_ops.abs(w)
    near_zero = math_ops.less(z, half_sqrt_2)
    centre = 1.0 + special_math_ops.erf(w)
    positive = math_ops.greater(w, 0.0)
    upper = 2.0 - special_math_ops.erfc(z)
    lower = special_math_ops.erfc(z)
    y = array_ops.where_v2(near_zero, centre, array_ops.where_v2(positive, upper, lower))
    return 0.5 * y


# Rational approximations of the inverse normal cdf (Cephes ndtri): one for the centre
# |p - 1/2| < 1/2 - exp(-2), and two in z = sqrt(-2 log p) for the tails (z < 8, z >= 8).
# Coefficients are listed from the constant term up.
_CENTRE_P = (-1.23916583867381258, 13.9312609387279679, -56.6762857469070293,
             98.0010754185999661, -59.9633501014107895)  # fmt: skip
_CENTRE_Q = (-1.18331621121330003, 15.9056225126211695, -82.0372256168333340,
             200.260212380060660, -225.462687854119370, 86.3602421390890590,
             4.67627912898881538, 1.95448858338141759, 1.0)  # fmt: skip
_TAIL_P = (-8.57456785154685413e-4, -3.50424626827848203e-2, -1.40256079171354495e-1,
           2.18663306850790267, 14.6849561928858024, 44.0805073893200834,
           57.1628192246421288, 31.5251094599893866, 4.05544892305962419)  # fmt: skip
_TAIL_Q = (-9.33259480895457427e-4, -3.80806407691578277e-2, -1.42182922854787788e-1,
           2.50464946208309415, 15.0425385692907503, 41.3172038254672030,
           45.3907635128879210, 15.7799883256466749, 1.0)  # fmt: skip
_FAR_P = (6.23974539184983293e-9, 2.65806974686737550e-6, 3.01581553508235416e-4,
          1.23716634817820021e-2, 2.01485389549179081e-1, 1.33303460815807542,
          3.93881025292474443, 6.91522889068984211, 3.23774891776946035)  # fmt: skip
_FAR_Q = (6.79019408009981274e-9, 2.89247864745380683e-6, 3.28014464682127739e-4,
          1.34204006088543189e-2, 2.16236993594496635e-1, 1.37702099489081330,
          3.67983563856160859, 6.02427039364742014, 1.0)  # fmt: skip


def _poly(x: Tensor, coeffs: tuple[float, ...]) -> Tensor:
    """Horner's rule from the highest power down, c_k + x * (...), starting from zeros_like(x)
    (TF's node sequence), with numpy constants of x's dtype."""
    acc: Any = array_ops.zeros_like(x)
    for k in np.asarray(coeffs, x.dtype.as_numpy_dtype)[::-1]:
        acc = k + acc * x
    return acc


def ndtri(p: Any, name: str = "ndtri") -> Tensor:
    """The x with ndtr(x) = p (-inf at 0, inf at 1)."""
    with name_scope(name, values=[p]):
        p = convert_to_tensor(p, name="p")
        _check_float(p, "p")
        return _ndtri(p)


def _ndtri(p: Tensor) -> Tensor:
    npdt = p.dtype.as_numpy_dtype
    # The smaller tail q; where q <= 0, 0.5 keeps the unselected branches finite (a NaN
    # there would leak into gradients).
    q = array_ops.where_v2(p > -np.expm1(-2.0), 1.0 - p, p)
    q = array_ops.where_v2(q <= 0.0, array_ops.fill(array_ops.shape(p), np.array(0.5, npdt)), q)
    w = q - 0.5
    ww = w**2
    centre = w + w * ww * (_poly(ww, _CENTRE_P) / _poly(ww, _CENTRE_Q))
    centre *= -np.sqrt(2.0 * np.pi)
    z = math_ops.sqrt(-2.0 * math_ops.log(q))
    first = z - math_ops.log(z) / z
    far_term = _poly(1.0 / z, _FAR_P) / _poly(1.0 / z, _FAR_Q) / z
    tail_term = _poly(1.0 / z, _TAIL_P) / _poly(1.0 / z, _TAIL_Q) / z
    far = first - far_term
    tail = first - tail_term
    x = array_ops.where_v2(q > np.exp(-2.0), centre, array_ops.where_v2(z >= 8.0, far, tail))
    x = array_ops.where_v2(p > 1.0 - np.exp(-2.0), x, -x)
    inf_scalar = constant(np.inf, dtype=p.dtype)
    inf = array_ops.fill(array_ops.shape(p), inf_scalar)
    return array_ops.where_v2(p <= 0.0, -inf, array_ops.where_v2(p >= 1.0, inf, x))


def log_ndtr(x: Any, series_order: int = 3, name: str = "log_ndtr") -> Tensor:
    """log(ndtr(x)), accurate far into both tails."""
    if not isinstance(series_order, int):
        raise TypeError("series_order must be a Python integer.")
    if series_order < 0:
        raise ValueError("series_order must be non-negative.")
    if series_order > 30:
        raise ValueError("series_order must be <= 30.")
    with name_scope(name, values=[x]):
        x = convert_to_tensor(x, name="x")
        bounds = _LOG_NDTR_BOUNDS.get(x.dtype.base_dtype)
        if bounds is None:
            raise TypeError(f"x.dtype={x.dtype} is not supported.")
        npdt = x.dtype.as_numpy_dtype
        lower, upper = np.array(bounds[0], npdt), np.array(bounds[1], npdt)
        above = math_ops.greater(x, upper)
        far_right = -_ndtr(-x)  # log(1 - e) ~ -e for the tiny upper tail
        inside = math_ops.greater(x, lower)
        middle = math_ops.log(_ndtr(math_ops.maximum(x, lower)))
        far_left = _log_ndtr_lower(math_ops.minimum(x, lower), series_order)
        return array_ops.where_v2(above, far_right, array_ops.where_v2(inside, middle, far_left))


def _log_ndtr_lower(x: Tensor, series_order: int) -> Tensor:
    """log ndtr(x) for very negative x: the Mills-ratio asymptotic expansion."""
    x_2 = math_ops.square(x)
    log_scale = -0.5 * x_2 - math_ops.log(-x) - 0.5 * np.log(2.0 * np.pi)
    return log_scale + math_ops.log(_asymptotic_series(x, series_order))


def _asymptotic_series(x: Tensor, series_order: int) -> Any:
    """1 + sum_n (-1)^n (2n-1)!! / x^(2n), n = 1..series_order."""
    npdt = x.dtype.as_numpy_dtype
    if series_order <= 0:
        return np.array(1, npdt)
    x_2 = math_ops.square(x)
    even_sum: Any = array_ops.zeros_like(x)
    odd_sum: Any = array_ops.zeros_like(x)
    x_2n: Any = x_2
    for n in range(1, series_order + 1):
        double_factorial = math.prod(range(2 * n - 1, 1, -2))
        term = np.array(double_factorial, npdt) / x_2n
        if n % 2:
            odd_sum += term
        else:
            even_sum += term
        x_2n *= x_2
    return 1.0 + even_sum - odd_sum


def log_cdf_laplace(x: Any, name: str = "log_cdf_laplace") -> Tensor:
    """log of the standard Laplace cdf, without cancellation on either side."""
    with name_scope(name, values=[x]):
        x = convert_to_tensor(x, name="x")
        lower_solution = -np.log(2.0) + x
        upper_solution = math_ops.log1p(-0.5 * math_ops.exp(-math_ops.abs(x)))
        return array_ops.where_v2(x < 0.0, lower_solution, upper_solution)
