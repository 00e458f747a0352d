"""Normalisation kernels over xp: FusedBatchNorm (V1-V3, training and inference, NHWC/NCHW
and their 5-D forms) with its gradient, and local response normalisation (LRN) with its
gradient. Statistics are computed in float32 or wider, whatever the input's dtype (as TF's
U type for half inputs). On the CPU, FusedBatchNorm with float32 statistics rounds as TF 1.15's
kernel does (_forward_in_tf_order): sequential per-channel sums, 1 / rest factors and Eigen's
rsqrt packets; and so does its training gradient (_grad_in_tf_order) for channel counts below
8 or multiples of 8."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from tfcluster.kernels import _eigen_lrn, _eigen_math, _eigen_psqrt, _outer_sums
from tfcluster.kernels import _xp_util as u
from tfcluster.kernels._cpu_gemm import single_thread_blas
from tfcluster.kernels._window import over_batch
from tfcluster.kernels.registry import kernel
from tfcluster.runtime import thread_budget

Compute = Callable[[Any, list[Any]], tuple[Any, ...]]

_FORMATS = ("NHWC", "NCHW", "NDHWC", "NCDHW")


def _channel_axis(data_format: str, ndim: int) -> int:
    if data_format not in _FORMATS:
        raise u.invalid(f"Invalid data format: {data_format}")
    if ndim != len(data_format):
        raise u.invalid(f"input must be {len(data_format)}-dimensional, got rank {ndim}")
    return 1 if data_format.startswith("NC") else ndim - 1


def _broadcastable(v: Any, axis: int, ndim: int) -> Any:
    shape = [1] * ndim
    shape[axis] = -1
    return v.reshape(shape)


def _stats_dtype(x: Any) -> np.dtype[Any]:
    return np.dtype(np.float32) if x.dtype == np.float16 else x.dtype


def _channel_sums(xp: Any, v: Any, axis: int) -> Any:
    """v summed over every axis but the channel axis. Channels-last: one matrix-vector product
    (BLAS reads v once; numpy's reduction over the leading axes steps through rows of only a
    few channels at a time)."""
    if axis == v.ndim - 1 and v.ndim > 1 and v.flags.c_contiguous and v.dtype.kind == "f":
        rows = v.reshape(-1, v.shape[-1])
        ones = xp.ones(rows.shape[0], v.dtype)
        if xp is not np:
            return ones @ rows
        with single_thread_blas:  # BLAS's threads would wait for each other under load
            return ones @ rows
    return v.sum(axis=tuple(i for i in range(v.ndim) if i != axis))


def _sequential_column_sums(rows: np.ndarray) -> np.ndarray:
    """Each column of a 2-D float32 array summed row after row from zero, as Eigen reduces a
    tensor's outer dimension (its inner one kept): _outer_sums' one-thread sums."""
    return _outer_sums.sequential_column_sums(rows)


def _forward_in_tf_order(
    x: np.ndarray,
    axis: int,
    scale: np.ndarray,
    offset: np.ndarray,
    stats: tuple[np.ndarray, np.ndarray] | None,
    epsilon: float,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """FusedBatchNorm on float32 statistics as TF 1.15's CPU kernel rounds it, over x's rows
    of channels (rest x depth): the batch mean `sum(x) * (1 / rest)` and variance
    `sum((x - mean)^2) * (1 / rest)`, each column summed row after row, and y = (x - mean) *
    f + offset with f = rsqrt(var + eps) * scale, the rsqrt Eigen's fast-math packets
    (_eigen_psqrt) over the channel vector; or, given `stats` (the estimated mean and
    variance: inference), y = x * f + (offset - mean * f). Returns y (float32, x's layout),
    the mean, the variance, and the Bessel corrected variance (`var * (rest / (rest - 1))`)."""
    f32 = np.float32
    depth = x.shape[axis]
    rows = np.moveaxis(x, axis, -1).astype(f32).reshape(-1, depth)
    rest = rows.shape[0]
    if stats is None:
        inv = f32(1.0) / f32(rest)
        mean = _sequential_column_sums(rows) * inv
        out = rows  # astype made it a copy of x: centered in place
        squares = np.empty_like(rows)

        def center(block: slice) -> None:
            out[block] -= mean
            np.multiply(out[block], out[block], out=squares[block])

        _by_rows(rows, center, 3)
        var = _sequential_column_sums(squares) * inv
        shift = offset.astype(f32)
    else:
        mean, var = stats[0].astype(f32), stats[1].astype(f32)
        out = rows
    corrected = var * (f32(rest) / f32(max(rest - 1, 1)))
    factor = _eigen_psqrt.tf_rsqrt_float32(var + f32(epsilon)) * scale.astype(f32)
    if stats is not None:
        shift = offset.astype(f32) - mean * factor

    def normalize(block: slice) -> None:
        out[block] *= factor
        out[block] += shift

    _by_rows(rows, normalize, 2)
    y = np.moveaxis(out.reshape(*np.moveaxis(x, axis, -1).shape), -1, axis)
    return y, mean, var, corrected


# Eigen's rsqrt packets: channel vectors of fewer lanes, or of whole packets, take the same
# rsqrt in every row of a [rest, depth] expression; others mix packet and scalar roots by
# where a row's packets fall.
_LANES = 8


def _grad_in_tf_order(
    dy: np.ndarray,
    x: np.ndarray,
    axis: int,
    scale: np.ndarray,
    mean: np.ndarray,
    var: np.ndarray,
    epsilon: float,
) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """FusedBatchNormGrad (training) as TF 1.15's CPU kernel rounds it, or None where its
    rsqrt differs from row to row (a channel count above 8 that is not a multiple of 8).
    With c0 = rsqrt(var + eps) (Eigen's packets), xc = x - mean and every sum over the rows
    ReduceOuterDimensions' (_outer_sums): scale_backprop = sum(dy * (xc * c0)),
    offset_backprop = sum(dy), and x_backprop = (scale * c0) * ((dy - sum(dy) * (1 / rest))
    - xc * ((c0 * c0) * (sum(dy * xc) / rest))). Returns (x_backprop in x's layout, float32;
    scale_backprop; offset_backprop)."""
    f32 = np.float32
    depth = x.shape[axis]
    if depth > _LANES and depth % _LANES:
        return None
    # Read only here: no copy where x and dy are float32 with channels last.
    rows = np.ascontiguousarray(np.moveaxis(x, axis, -1), dtype=f32).reshape(-1, depth)
    grads = np.ascontiguousarray(np.moveaxis(dy, axis, -1), dtype=f32).reshape(-1, depth)
    rest = rows.shape[0]
    threads = thread_budget.current().intra
    c0 = _eigen_psqrt.tf_rsqrt_float32(var.astype(f32) + f32(epsilon))
    mean32 = mean.astype(f32)
    centered = np.empty_like(rows)
    scaled = np.empty_like(rows)
    products = np.empty_like(rows)

    def terms(block: slice) -> None:
        # Element by element (the same values however the rows are split): on every core.
        np.subtract(rows[block], mean32, out=centered[block])
        np.multiply(centered[block], c0, out=scaled[block])
        scaled[block] *= grads[block]
        np.multiply(grads[block], centered[block], out=products[block])

    _by_rows(rows, terms, 4)
    scale_backprop = _outer_sums.outer_dims_sum(scaled, threads)
    offset_backprop = _outer_sums.outer_dims_sum(grads, threads)
    grads_mean = offset_backprop * (f32(1.0) / f32(rest))
    centered_mean = _outer_sums.outer_dims_sum(products, threads) / f32(rest)
    coef1 = scale.astype(f32) * c0
    coef2 = (c0 * c0) * centered_mean
    out = scaled  # reused: its sums are taken

    def backprop(block: slice) -> None:
        centered[block] *= coef2
        np.subtract(grads[block], grads_mean, out=out[block])
        out[block] -= centered[block]
        out[block] *= coef1

    _by_rows(rows, backprop, 4)
    shape = np.moveaxis(x, axis, -1).shape
    return np.moveaxis(out.reshape(shape), -1, axis), scale_backprop, offset_backprop


def _by_rows(rows: np.ndarray, fn: Callable[[slice], None], passes: int) -> None:
    """fn over blocks of rows, on every core for large arrays (its values do not depend on
    the split)."""
    over_batch(np, rows.shape[0], rows.nbytes * passes, fn, blas=False)


def _check_vectors(depth: int, named: dict[str, Any], allow_empty: bool) -> None:
    for what, v in named.items():
        if v.ndim != 1:
            raise u.invalid(f"{what} must be 1-dimensional, got {u.shape_str(v.shape)}")
        if v.shape[0] != depth and not (allow_empty and v.shape[0] == 0):
            raise u.invalid(
                f"{what} must have the same number of elements as the channels of x, got "
                f"{v.shape[0]} and {depth}"
            )


def _fused_batch_norm(version: int) -> Callable[[Any, Any], Compute]:
    def factory(node: Any, xp: Any) -> Compute:
        epsilon = float(node.attrs.get("epsilon", 1e-4))
        data_format = str(node.attrs.get("data_format", "NHWC"))
        training = bool(node.attrs.get("is_training", True))
        avg_factor = float(node.attrs.get("exponential_avg_factor", 1.0))

        def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
            x, scale, offset, mean_in, var_in = ins
            axis = _channel_axis(data_format, x.ndim)
            depth = x.shape[axis]
            _check_vectors(depth, {"scale": scale, "offset": offset}, allow_empty=False)
            _check_vectors(depth, {"mean": mean_in, "variance": var_in}, allow_empty=training)
            acc = _stats_dtype(x)
            if xp is np and acc == np.float32 and x.size:
                return _in_tf_order(
                    x, axis, scale, offset, mean_in, var_in, training, avg_factor, epsilon, version
                )
            xf = x.astype(acc, copy=False)
            count = x.size // depth if depth else 0
            centered = None
            if training:
                mean = _channel_sums(xp, xf, axis) / count if count else xp.zeros(depth, acc)
                if count:
                    centered = xf - _broadcastable(mean, axis, x.ndim)
                    var = _channel_sums(xp, centered * centered, axis) / count
                else:
                    var = xp.zeros(depth, acc)
                # The variance reported (for the moving average) is the unbiased estimate.
                factor = count / max(count - 1, 1)
                batch_mean, batch_var = mean, var * factor
                if avg_factor != 1.0 and mean_in.size:
                    batch_mean = (1 - avg_factor) * mean_in + avg_factor * batch_mean
                    batch_var = (1 - avg_factor) * var_in + avg_factor * batch_var
            else:
                mean, var = mean_in.astype(acc), var_in.astype(acc)
                batch_mean, batch_var = mean_in, var_in
            if centered is None:
                centered = xf - _broadcastable(mean, axis, x.ndim)
            inv = 1.0 / xp.sqrt(var + epsilon)
            # y = (x - mean) * inv * scale + offset, in place on the centred copy.
            centered *= _broadcastable((inv * scale.astype(acc)).astype(acc), axis, x.ndim)
            centered += _broadcastable(offset.astype(acc), axis, x.ndim)
            y = centered
            return _outputs(xp, x, scale, version, y, batch_mean, batch_var, mean, var)

        return compute

    return factory


def _in_tf_order(
    x: np.ndarray,
    axis: int,
    scale: np.ndarray,
    offset: np.ndarray,
    mean_in: np.ndarray,
    var_in: np.ndarray,
    training: bool,
    avg_factor: float,
    epsilon: float,
    version: int,
) -> tuple[Any, ...]:
    """The kernel's outputs by _forward_in_tf_order (CPU, float32 statistics)."""
    stats = None if training else (mean_in, var_in)
    y, mean, var, corrected = _forward_in_tf_order(x, axis, scale, offset, stats, epsilon)
    if training:
        batch_mean, batch_var = mean, corrected
        if avg_factor != 1.0 and mean_in.size:
            batch_mean = (1 - avg_factor) * mean_in + avg_factor * batch_mean
            batch_var = (1 - avg_factor) * var_in + avg_factor * batch_var
    else:
        batch_mean, batch_var = mean_in, var_in
    return _outputs(np, x, scale, version, y, batch_mean, batch_var, mean, var)


def _outputs(
    xp: Any, x: Any, scale: Any, version: int, y: Any, batch_mean: Any, batch_var: Any,
    mean: Any, var: Any,
) -> tuple[Any, ...]:  # fmt: skip
    """FusedBatchNorm's outputs: y in x's dtype, the running statistics, and the saved ones
    the gradient reads (the batch mean and the biased variance actually used to normalise),
    in scale's dtype; V3's reserve_space_3 is one zero (a scalar), as TF's CPU kernel fills
    it."""
    u_dtype = scale.dtype
    outs = [
        y.astype(x.dtype, copy=False),
        batch_mean.astype(u_dtype),
        batch_var.astype(u_dtype),
        mean.astype(u_dtype),
        var.astype(u_dtype),
    ]
    if version == 3:
        outs.append(xp.zeros((), u_dtype))
    return tuple(outs)


kernel("FusedBatchNorm")(_fused_batch_norm(1))
kernel("FusedBatchNormV2")(_fused_batch_norm(2))
kernel("FusedBatchNormV3")(_fused_batch_norm(3))


def _fused_batch_norm_grad(version: int) -> Callable[[Any, Any], Compute]:
    def factory(node: Any, xp: Any) -> Compute:
        epsilon = float(node.attrs.get("epsilon", 1e-4))
        data_format = str(node.attrs.get("data_format", "NHWC"))
        training = bool(node.attrs.get("is_training", True))

        def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
            dy, x, scale, saved_mean, saved_var = ins[:5]
            axis = _channel_axis(data_format, x.ndim)
            depth = x.shape[axis]
            if dy.shape != x.shape:
                raise u.invalid(
                    f"x and y_backprop must have same shape, but x has shape "
                    f"{u.shape_str(x.shape)} and y_backprop has shape {u.shape_str(dy.shape)}"
                )
            _check_vectors(
                depth,
                {"scale": scale, "reserve_space_1": saved_mean, "reserve_space_2": saved_var},
                allow_empty=False,
            )
            acc = _stats_dtype(x)
            exact = None
            if xp is np and training and acc == np.float32 and x.size:
                exact = _grad_in_tf_order(dy, x, axis, scale, saved_mean, saved_var, epsilon)
            if exact is not None:
                empty = np.zeros((), scale.dtype)
                dx, d_scale, d_offset = exact
                return (
                    dx.astype(x.dtype, copy=False),
                    d_scale.astype(scale.dtype),
                    d_offset.astype(scale.dtype),
                    empty,
                    empty.copy(),
                )
            xf, dyf = x.astype(acc, copy=False), dy.astype(acc, copy=False)
            inv = 1.0 / xp.sqrt(saved_var.astype(acc) + epsilon)
            x_hat = xf - _broadcastable(saved_mean.astype(acc), axis, x.ndim)
            x_hat *= _broadcastable(inv, axis, x.ndim)
            d_offset = _channel_sums(xp, dyf, axis)
            d_scale = _channel_sums(xp, dyf * x_hat, axis)
            gain = scale.astype(acc) * inv
            dx = dyf * _broadcastable(gain, axis, x.ndim)
            if training:
                # dx = gain * (dy - (d_offset + x_hat * d_scale) / count), x_hat reused.
                count = max(x.size // depth, 1) if depth else 1
                x_hat *= _broadcastable((gain * d_scale / count).astype(acc), axis, x.ndim)
                x_hat += _broadcastable((gain * d_offset / count).astype(acc), axis, x.ndim)
                dx -= x_hat
            u_dtype = scale.dtype
            # TF's CPU kernel gives its two placeholder outputs as scalar zeros.
            empty = xp.zeros((), u_dtype)
            return (
                dx.astype(x.dtype, copy=False),
                d_scale.astype(u_dtype),
                d_offset.astype(u_dtype),
                empty,
                empty.copy(),
            )

        return compute

    return factory


kernel("FusedBatchNormGrad")(_fused_batch_norm_grad(1))
kernel("FusedBatchNormGradV2")(_fused_batch_norm_grad(2))
kernel("FusedBatchNormGradV3")(_fused_batch_norm_grad(3))


def _window_sums(xp: Any, v: Any, radius: int) -> Any:
    """sum of v[..., c - radius : c + radius + 1] along the last axis (clipped at the ends),
    from one cumulative sum."""
    depth = v.shape[-1]
    padded = xp.concatenate([xp.zeros((*v.shape[:-1], 1), v.dtype), xp.cumsum(v, axis=-1)], -1)
    idx = np.arange(depth)
    hi = np.minimum(idx + radius + 1, depth)
    lo = np.maximum(idx - radius, 0)
    return padded[..., xp.asarray(hi)] - padded[..., xp.asarray(lo)]


def _lrn_attrs(node: Any) -> tuple[int, float, float, float]:
    return (
        int(node.attrs.get("depth_radius", 5)),
        float(node.attrs.get("bias", 1.0)),
        float(node.attrs.get("alpha", 1.0)),
        float(node.attrs.get("beta", 0.5)),
    )


@kernel("LRN")
def lrn(node: Any, xp: Any) -> Compute:
    radius, bias, alpha, beta = _lrn_attrs(node)

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        x = ins[0]
        if x.ndim != 4:
            raise u.invalid(f"input must be 4-dimensional, got {u.shape_str(x.shape)}")
        if _eigen_math.applies(xp, x):
            return (_eigen_lrn.lrn(x, radius, bias, alpha, beta),)
        acc = _stats_dtype(x)
        xf = x.astype(acc)
        norm = bias + alpha * _window_sums(xp, xf * xf, radius)
        return ((xf * norm**-beta).astype(x.dtype),)

    return compute


@kernel("LRNGrad")
def lrn_grad(node: Any, xp: Any) -> Compute:
    radius, bias, alpha, beta = _lrn_attrs(node)

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        dy, x, y = ins
        if not (dy.ndim == x.ndim == y.ndim == 4) or not (dy.shape == x.shape == y.shape):
            raise u.invalid(
                "input_grads, input_image and output_image must be 4-D with the same shape, got "
                f"{u.shape_str(dy.shape)}, {u.shape_str(x.shape)}, {u.shape_str(y.shape)}"
            )
        if _eigen_math.applies(xp, x) and dy.dtype == y.dtype == np.float32:
            return (_eigen_lrn.lrn_grad(dy, x, y, radius, bias, alpha, beta),)
        acc = _stats_dtype(x)
        xf, dyf = x.astype(acc), dy.astype(acc)
        norm = bias + alpha * _window_sums(xp, xf * xf, radius)
        outf = xf * norm**-beta
        # d out_j / d x_i = [i == j] N_j^-beta - 2 alpha beta x_i x_j N_j^(-beta-1), over the
        # channels j whose window holds i (windows are symmetric).
        coupled = _window_sums(xp, dyf * outf / norm, radius)
        dx = dyf * norm**-beta - 2.0 * alpha * beta * xf * coupled
        return (dx.astype(x.dtype),)

    return compute
