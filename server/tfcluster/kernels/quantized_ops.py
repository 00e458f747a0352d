"""Kernels of TF 1.15's quantized ops (CPU, as TF's): element-wise add / mul with TF's
broadcast forms, bias add, matrix product and convolution over zero-point-shifted integers
(exact, as gemmlowp's), pools, activations, requantization and range ops, batch norm in TF's
fixed point, and QuantizeAndDequantize V1 / V3. Arithmetic from quantized_arith."""

from __future__ import annotations

from typing import Any

import numpy as np

from tfcluster.framework import dtypes, errors
from tfcluster.framework.common_shapes import windowed_output_size
from tfcluster.kernels import quantized_arith as qa
from tfcluster.kernels.common import host_array, invalid, shape_str
from tfcluster.kernels.quantization import float_to_quantized_min_first, quantize_and_dequantize
from tfcluster.kernels.registry import CPU_ONLY, kernel
from tfcluster.runtime import thread_budget

F32 = np.float32


def _unsupported(op_type: str, **attrs: dtypes.DType) -> Any:
    names = ", ".join(f"{k}={v.name}" for k, v in attrs.items())
    return invalid(
        f"No OpKernel was registered to support Op '{op_type}' with these attrs: [{names}]"
    )


def _require(op_type: str, allowed: Any, **attrs: dtypes.DType) -> None:
    if tuple(attrs.values()) not in allowed:
        raise _unsupported(op_type, **attrs)


def _outputs(values: Any, dtype: dtypes.DType, lo: Any, hi: Any) -> tuple[Any, ...]:
    return qa.to_quantized(values, dtype), np.asarray(lo, F32), np.asarray(hi, F32)


# ---- broadcasting as TF's BCast collapses it ------------------------------------------------
def bcast_rank(x: tuple[int, ...], y: tuple[int, ...]) -> int:
    """How many dimensions TF's BCast keeps after merging runs of the same broadcast case."""
    n = max(len(x), len(y))
    xs = (1,) * (n - len(x)) + tuple(x)
    ys = (1,) * (n - len(y)) + tuple(y)
    runs, prev = 0, None
    for xd, yd in zip(reversed(xs), reversed(ys)):
        if xd == yd:
            if xd == 1:
                continue
            state = "same"
        elif xd == 1:
            state = "x_one"
        elif yd == 1:
            state = "y_one"
        else:
            raise invalid(f"Incompatible shapes: {shape_str(x)} vs. {shape_str(y)}")
        if state != prev:
            runs += 1
        prev = state
    return max(runs, 1)


def _binary_forms(op_type: str, x: np.ndarray, y: np.ndarray) -> tuple[tuple[int, ...], str]:
    """The output shape and which of TF's loops computes it: scalar, vector or vector-tensor."""
    out_shape = np.broadcast_shapes(x.shape, y.shape)
    rank = bcast_rank(x.shape, y.shape)
    if rank <= 1:
        if x.size == 1:
            return out_shape, "x_scalar"
        if y.size == 1:
            return out_shape, "y_scalar"
        return out_shape, "vector"
    if rank == 2:
        return out_shape, "vector_tensor"
    raise errors.UnimplementedError(
        None,
        None,
        f"Broadcast between {shape_str(x.shape)} and {shape_str(y.shape)} is not supported yet.",
    )


def _combine(
    form: str, out_shape: tuple[int, ...], xv: np.ndarray, yv: np.ndarray, fn: Any
) -> np.ndarray:
    """fn over TF's element pairing (its vector-tensor loop takes vector[i % n])."""
    if form == "x_scalar":
        return fn(xv.reshape(-1)[0], yv).reshape(out_shape)
    if form == "y_scalar":
        return fn(xv, yv.reshape(-1)[0]).reshape(out_shape)
    if form == "vector":
        return fn(xv.reshape(-1), yv.reshape(-1)).reshape(out_shape)
    if xv.size < yv.size:
        vec, ten = xv.reshape(-1), yv.reshape(-1)
        pair = fn(vec[np.arange(ten.size) % vec.size], ten)
    else:
        vec, ten = yv.reshape(-1), xv.reshape(-1)
        pair = fn(ten, vec[np.arange(ten.size) % vec.size])
    return pair.reshape(out_shape)


_EIGHT_BIT: Any = {(dtypes.quint8, dtypes.quint8, dtypes.qint32)}


def _through_float(
    q: Any, lo: Any, hi: Any, out_lo: Any, out_hi: Any, tin: dtypes.DType, tout: dtypes.DType
) -> Any:
    as_float = qa.quantized_to_float(q, lo, hi, tin)
    return qa.float_to_quantized(as_float, out_lo, out_hi, tout)


@kernel("QuantizedAdd", devices=CPU_ONLY)
def quantized_add(node: Any, xp: Any) -> Any:
    t1, t2, tout = node.attrs["T1"], node.attrs["T2"], node.attrs.get("Toutput", dtypes.qint32)
    _require("QuantizedAdd", _EIGHT_BIT, T1=t1, T2=t2, Toutput=tout)

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        x, y = qa.ints(ins[0], t1), qa.ints(ins[1], t2)
        min_x, max_x, min_y, max_y = (qa.scalar(v) for v in ins[2:6])
        out_shape, form = _binary_forms("QuantizedAdd", x, y)
        if not max_x > min_x:
            raise invalid("max_x must be larger than min_x.")
        if not max_y > min_y:
            raise invalid("max_y must be larger than min_y.")
        biggest = max(abs(min(min_x, min_y)), abs(max(max_x, max_y)))
        out_hi = F32(biggest * F32(1 << 14))
        out_lo = F32(-out_hi)
        xs = qa.eight_to_32(x, min_x, max_x, out_lo, out_hi)
        ys = qa.eight_to_32(y, min_y, max_y, out_lo, out_hi)
        # TF's scalar loop moves the scalar through float instead (RequantizeInNewRange).
        if form == "x_scalar":
            xs = _through_float(x, min_x, max_x, out_lo, out_hi, t1, tout)
        elif form == "y_scalar":
            ys = _through_float(y, min_y, max_y, out_lo, out_hi, t2, tout)
        z = _combine(form, out_shape, xs, ys, lambda a, b: qa.wrap_int32(a + b))
        return _outputs(z, tout, out_lo, out_hi)

    return compute


@kernel("QuantizedMul", devices=CPU_ONLY)
def quantized_mul(node: Any, xp: Any) -> Any:
    t1, t2, tout = node.attrs["T1"], node.attrs["T2"], node.attrs.get("Toutput", dtypes.qint32)
    _require("QuantizedMul", _EIGHT_BIT, T1=t1, T2=t2, Toutput=tout)

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        x, y = qa.ints(ins[0], t1), qa.ints(ins[1], t2)
        min_x, max_x, min_y, max_y = (qa.scalar(v) for v in ins[2:6])
        out_shape, form = _binary_forms("QuantizedMul", x, y)
        if not max_x > min_x:
            raise invalid("max_x must be larger than min_a.")
        if not max_y > min_y:
            raise invalid("max_x must be larger than min_b.")
        offset_x = int(qa.wrap_int32(qa.float_to_quantized_unclamped(0.0, min_x, max_x, t1)))
        offset_y = int(qa.wrap_int32(qa.float_to_quantized_unclamped(0.0, min_y, max_y, t2)))
        z = _combine(form, out_shape, x - offset_x, y - offset_y, lambda a, b: qa.wrap_int32(a * b))
        lo, hi = qa.range_for_multiplication((min_x, max_x), (min_y, max_y), t1, t2, tout)
        return _outputs(z, tout, lo, hi)

    return compute


@kernel("QuantizedBiasAdd", devices=CPU_ONLY)
def quantized_bias_add(node: Any, xp: Any) -> Any:
    t1, t2, tout = node.attrs["T1"], node.attrs["T2"], node.attrs["out_type"]
    _require(
        "QuantizedBiasAdd",
        {
            (dtypes.quint8, dtypes.quint8, dtypes.qint32),
            (dtypes.qint8, dtypes.qint8, dtypes.qint32),
        },
        T1=t1,
        T2=t2,
        out_type=tout,
    )

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        x, bias = qa.ints(ins[0], t1), qa.ints(ins[1], t2)
        in_lo, in_hi, b_lo, b_hi = (qa.scalar(v) for v in ins[2:6])
        if x.ndim < 2:
            raise invalid(f"Input tensor must be at least 2D: {shape_str(x.shape)}")
        if bias.ndim != 1:
            raise invalid(f"Biases must be 1D: {shape_str(bias.shape)}")
        if bias.shape[0] != x.shape[-1]:
            raise invalid(
                "Must provide as many biases as the last dimension of the input tensor: "
                f"{shape_str(bias.shape)} vs. {shape_str(x.shape)}"
            )
        # GetOutputMinAndMaxForQuantizedAdd: symmetric, 17 bits of headroom.
        out_hi = F32(max(in_hi, max(-in_lo, max(b_hi, -b_lo))) * F32(1 << 17))
        out_lo = F32(-out_hi)
        zero = qa.float_to_quantized(0.0, out_lo, out_hi, tout)
        x_total = qa.requantize(x, in_lo, in_hi, out_lo, out_hi, t1, tout)
        b_total = qa.requantize(bias, b_lo, b_hi, out_lo, out_hi, t2, tout)
        z = qa.wrap_int32(x_total + qa.wrap_int32(b_total + zero))
        return _outputs(z, tout, out_lo, out_hi)

    return compute


# ---- products -------------------------------------------------------------------------------
def _integer_product(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """a @ b for integer-valued arrays through BLAS, exactly: in float32 while every sum stays
    below 2**24, else float64 (below 2**53: 8-bit operands at any realistic depth); wrapped to
    int32 as TF's int32 sums. One BLAS thread: its hand-offs cost more than they share here."""
    if a.size == 0 or b.size == 0:
        return np.zeros((a.shape[0], b.shape[1]), np.int64)
    bound = a.shape[1] * int(np.abs(a).max()) * int(np.abs(b).max())
    dtype = np.float32 if bound < (1 << 24) else np.float64
    with thread_budget.blas_threads(1):
        product = a.astype(dtype) @ b.astype(dtype)
    return qa.wrap_int32(product.astype(np.int64))


@kernel("QuantizedMatMul", devices=CPU_ONLY)
def quantized_matmul(node: Any, xp: Any) -> Any:
    t1, t2, tout = node.attrs["T1"], node.attrs["T2"], node.attrs.get("Toutput", dtypes.qint32)
    _require("QuantizedMatMul", _EIGHT_BIT, T1=t1, T2=t2, Toutput=tout)
    ta = bool(node.attrs.get("transpose_a", False))
    tb = bool(node.attrs.get("transpose_b", False))

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        a, b = qa.ints(ins[0], t1), qa.ints(ins[1], t2)
        min_a, max_a, min_b, max_b = (qa.scalar(v) for v in ins[2:6])
        if not max_a > min_a:
            raise invalid("max_a must be larger than min_a.")
        if not max_b > min_b:
            raise invalid("max_b must be larger than min_b.")
        if a.ndim != 2:
            raise invalid("In[0] is not a matrix")
        if b.ndim != 2:
            raise invalid("In[1] is not a matrix")
        a = a.T if ta else a
        b = b.T if tb else b
        if a.shape[1] != b.shape[0]:
            raise invalid(
                f"Matrix size-compatible: In[0]: {shape_str(ins[0].shape)}, In[1]: "
                f"{shape_str(ins[1].shape)}"
            )
        offset_a = int(qa.wrap_int32(qa.float_to_quantized_unclamped(0.0, min_a, max_a, t1)))
        offset_b = int(qa.wrap_int32(qa.float_to_quantized_unclamped(0.0, min_b, max_b, t2)))
        c = _integer_product(a - offset_a, b - offset_b)
        lo, hi = qa.range_for_multiplication((min_a, max_a), (min_b, max_b), t1, t2, tout)
        return _outputs(c, tout, lo, hi)

    return compute


def _attr_str(node: Any, name: str) -> str:
    v = node.attrs.get(name, "")
    return v.decode() if isinstance(v, bytes) else str(v)


def _windows(padded: np.ndarray, kh: int, kw: int, sh: int, sw: int, oh: int, ow: int) -> Any:
    """[batch, oh, ow, depth, kh, kw] views of the windows of an NHWC array."""
    view = np.lib.stride_tricks.sliding_window_view(padded, (kh, kw), axis=(1, 2))
    return view[:, : (oh - 1) * sh + 1 : sh, : (ow - 1) * sw + 1 : sw]


def _shifted_canvas(x: np.ndarray, top: int, left: int, height: int, width: int) -> np.ndarray:
    """float64 [batch, height, width, depth], zero outside x, x placed at (top, left) (either
    may be negative: then x's first rows / columns fall off)."""
    batch, rows, cols, depth = x.shape
    canvas = np.zeros((batch, height, width, depth), np.float64)
    src_y, src_x = max(-top, 0), max(-left, 0)
    dst_y, dst_x = max(top, 0), max(left, 0)
    h = max(min(rows - src_y, height - dst_y), 0)
    w = max(min(cols - src_x, width - dst_x), 0)
    canvas[:, dst_y : dst_y + h, dst_x : dst_x + w] = x[:, src_y : src_y + h, src_x : src_x + w]
    return canvas


@kernel("QuantizedConv2D", devices=CPU_ONLY)
def quantized_conv2d(node: Any, xp: Any) -> Any:
    t1, t2 = node.attrs["Tinput"], node.attrs["Tfilter"]
    tout = node.attrs.get("out_type", dtypes.qint32)
    _require("QuantizedConv2D", _EIGHT_BIT, Tinput=t1, Tfilter=t2, out_type=tout)
    strides = [int(s) for s in node.attrs["strides"]]
    dilations = [int(d) for d in node.attrs.get("dilations", [1, 1, 1, 1])]
    padding = _attr_str(node, "padding")
    if len(strides) != 4:
        raise invalid("strides should be of length 4")
    if strides[0] != 1 or strides[3] != 1:
        raise invalid(
            "Current implementation does not yet support strides in the batch and depth dimensions."
        )
    if strides[1] != strides[2]:
        raise invalid(
            "Current implementation only supports equal length strides in the row and column "
            "dimensions."
        )
    if dilations != [1, 1, 1, 1]:
        raise invalid("Current implementation only supports dilated rate as 1.")
    stride = strides[1]

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        x, w = qa.ints(ins[0], t1), qa.ints(ins[1], t2)
        min_x, max_x, min_w, max_w = (qa.scalar(v) for v in ins[2:6])
        if x.ndim != 4:
            raise invalid(f"input must be 4-dimensional{shape_str(x.shape)}")
        if w.ndim != 4:
            raise invalid(f"filter must be 4-dimensional: {shape_str(w.shape)}")
        if x.shape[3] != w.shape[2]:
            raise invalid(
                f"input and filter must have the same depth: {x.shape[3]} vs {w.shape[2]}"
            )
        batch, rows, cols, depth = x.shape
        kh, kw, _, out_depth = w.shape
        oh, _, _ = windowed_output_size(rows, kh, stride, 1, padding)
        ow, _, _ = windowed_output_size(cols, kw, stride, 1, padding)
        if oh < 0 or ow < 0:
            raise invalid("Computed output size would be negative")
        # TF's Im2ColConvFunctor: the window at output o starts at o * stride - offset, the
        # offset half the overhang (rounded toward zero; one more for VALID, as TF has it).
        extra = 1 if padding == "VALID" else 0
        top = int(((oh - 1) * stride + kh - rows + extra) / 2)
        left = int(((ow - 1) * stride + kw - cols + extra) / 2)
        offset_x = int(qa.wrap_int32(qa.float_to_quantized_unclamped(0.0, min_x, max_x, t1)))
        offset_w = int(qa.wrap_int32(qa.float_to_quantized_unclamped(0.0, min_w, max_w, t2)))
        padded = _shifted_canvas(
            x - offset_x, top, left, (oh - 1) * stride + kh, (ow - 1) * stride + kw
        )
        out = np.zeros((batch, oh, ow, out_depth), np.int64)
        if out.size:
            win = _windows(padded, kh, kw, stride, stride, oh, ow)  # b, oh, ow, d, kh, kw
            patches = win.transpose(0, 1, 2, 4, 5, 3).reshape(batch * oh * ow, kh * kw * depth)
            out = _integer_product(patches, (w - offset_w).reshape(kh * kw * depth, out_depth))
            out = out.reshape(batch, oh, ow, out_depth)
        lo, hi = qa.range_for_multiplication((min_x, max_x), (min_w, max_w), t1, t2, tout)
        return _outputs(out, tout, lo, hi)

    return compute


# ---- pools ----------------------------------------------------------------------------------
def _pool_params(node: Any, op_type: str) -> tuple[list[int], list[int], str]:
    ksize = [int(k) for k in node.attrs["ksize"]]
    strides = [int(s) for s in node.attrs["strides"]]
    return ksize, strides, _attr_str(node, "padding")


def _pool(node: Any, op_type: str, reduce_max: bool) -> Any:
    t = node.attrs["T"]
    _require(op_type, {(dtypes.quint8,)}, T=t)
    ksize, strides, padding = _pool_params(node, op_type)
    if len(ksize) != 4 or len(strides) != 4:
        raise invalid("Sliding window ksize and strides fields must specify 4 dimensions")
    if ksize[0] != 1 or strides[0] != 1:
        raise errors.UnimplementedError(
            None, None, "Pooling is not yet supported on the batch dimension."
        )
    if ksize[3] != 1 or strides[3] != 1:
        # TF's quantized average pool refuses these too; its max pool would pool across
        # depth, which tfcluster does not do.
        raise errors.UnimplementedError(
            None, None, f"{op_type}: Non-spatial pooling is not yet supported."
        )

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        x = qa.ints(ins[0], t)
        lo, hi = qa.scalar(ins[1]), qa.scalar(ins[2])
        if x.ndim != 4:
            raise invalid("tensor_in must be 4-dimensional")
        batch, rows, cols, depth = x.shape
        kh, kw, sh, sw = ksize[1], ksize[2], strides[1], strides[2]
        oh, top, _ = windowed_output_size(rows, kh, sh, 1, padding)
        ow, left, _ = windowed_output_size(cols, kw, sw, 1, padding)
        need_h = max((oh - 1) * sh + kh, rows + top)
        need_w = max((ow - 1) * sw + kw, cols + left)
        fill = -1 if reduce_max else 0
        padded = np.full((batch, need_h, need_w, depth), fill, np.int64)
        padded[:, top : top + rows, left : left + cols] = x
        out = np.zeros((batch, oh, ow, depth), np.int64)
        if out.size:
            win = _windows(padded, kh, kw, sh, sw, oh, ow)
            if reduce_max:
                out = win.max(axis=(4, 5))
            else:
                valid = np.zeros((1, need_h, need_w, 1), np.int64)
                valid[:, top : top + rows, left : left + cols] = 1
                counts = _windows(valid, kh, kw, sh, sw, oh, ow).sum(axis=(4, 5))
                # SpatialAvgPool<int32>: the integer sum over the window's real cells,
                # divided (truncating) by their count.
                out = np.clip(win.sum(axis=(4, 5)) // np.maximum(counts, 1), 0, 255)
        return _outputs(out, t, lo, hi)

    return compute


@kernel("QuantizedMaxPool", devices=CPU_ONLY)
def quantized_max_pool(node: Any, xp: Any) -> Any:
    return _pool(node, "QuantizedMaxPool", reduce_max=True)


@kernel("QuantizedAvgPool", devices=CPU_ONLY)
def quantized_avg_pool(node: Any, xp: Any) -> Any:
    return _pool(node, "QuantizedAvgPool", reduce_max=False)


# ---- activations and reshape ----------------------------------------------------------------
_SAME_8_32: Any = {(dtypes.quint8, dtypes.quint8), (dtypes.qint32, dtypes.qint32)}


def _relu(node: Any, op_type: str, six: bool) -> Any:
    tin, tout = node.attrs["Tinput"], node.attrs.get("out_type", dtypes.quint8)
    _require(op_type, _SAME_8_32, Tinput=tin, out_type=tout)

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        x = qa.ints(ins[0], tin)
        lo, hi = qa.scalar(ins[1]), qa.scalar(ins[2])
        out = np.maximum(x, qa.float_to_quantized(0.0, lo, hi, tin))
        if six:
            out = np.minimum(out, qa.float_to_quantized(6.0, lo, hi, tin))
        return _outputs(out, tout, lo, hi)

    return compute


@kernel("QuantizedRelu", devices=CPU_ONLY)
def quantized_relu(node: Any, xp: Any) -> Any:
    return _relu(node, "QuantizedRelu", six=False)


@kernel("QuantizedRelu6", devices=CPU_ONLY)
def quantized_relu6(node: Any, xp: Any) -> Any:
    return _relu(node, "QuantizedRelu6", six=True)


@kernel("QuantizedReshape", devices=CPU_ONLY)
def quantized_reshape(node: Any, xp: Any) -> Any:
    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        x = host_array(ins[0])
        shape = np.asarray(host_array(ins[1])).reshape(-1)
        if np.asarray(host_array(ins[1])).ndim != 1:
            raise invalid(f"sizes input must be 1-D, not {shape_str(np.shape(host_array(ins[1])))}")
        dims = [int(d) for d in shape]
        unknown = [i for i, d in enumerate(dims) if d == -1]
        if len(unknown) > 1:
            raise invalid(f"Only one input size may be -1, not both {unknown[0]} and {unknown[1]}")
        known = int(np.prod([d for d in dims if d != -1], dtype=np.int64))
        if any(d < -1 for d in dims):
            raise invalid(f"Size {dims.index(min(dims))} must be non-negative, not {min(dims)}")
        if unknown:
            if known == 0 or x.size % known:
                raise invalid(
                    f"Input to reshape is a tensor with {x.size} values, but the requested shape "
                    f"requires a multiple of {known}"
                )
            dims[unknown[0]] = x.size // known
        elif known != x.size:
            raise invalid(
                f"Input to reshape is a tensor with {x.size} values, but the requested shape has "
                f"{known}"
            )
        return (
            np.ascontiguousarray(x).reshape(dims),
            np.asarray(qa.scalar(ins[2]), F32),
            np.asarray(qa.scalar(ins[3]), F32),
        )

    return compute


# ---- resize ---------------------------------------------------------------------------------
def _lerp_cache(
    out_size: int, in_size: int, scale: Any, resolution: int, half_pixel: bool
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """TF's ComputeInterpolationWeights: (lower, upper, lerp, ilerp) per output index, in
    float32 as TF computes them."""
    i = np.arange(out_size)
    if half_pixel:
        pos = ((i.astype(F32) + F32(0.5)) * F32(scale) - F32(0.5)).astype(F32)
    else:
        pos = (i.astype(F32) * F32(scale)).astype(F32)
    floor = np.floor(pos)
    lower = np.maximum(floor.astype(np.int64), 0)
    upper = np.minimum(np.ceil(pos).astype(np.int64), in_size - 1)
    lerp = (pos - floor).astype(F32)
    ilerp = np.trunc(lerp * F32(1 << resolution)).astype(np.int64)
    return lower, upper, lerp, ilerp


def _c_div(a: np.ndarray, b: int) -> np.ndarray:
    """C++'s integer division (toward zero)."""
    q = np.abs(a) // b
    return np.where(a < 0, -q, q)


def _corners(x: np.ndarray, ys: tuple[np.ndarray, ...], xs: tuple[np.ndarray, ...]) -> Any:
    top, bottom = x[:, ys[0]], x[:, ys[1]]
    return top[:, :, xs[0]], top[:, :, xs[1]], bottom[:, :, xs[0]], bottom[:, :, xs[1]]


@kernel("QuantizedResizeBilinear", devices=CPU_ONLY)
def quantized_resize_bilinear(node: Any, xp: Any) -> Any:
    t = node.attrs["T"]
    _require(
        "QuantizedResizeBilinear", {(dtypes.quint8,), (dtypes.qint32,), (dtypes.float32,)}, T=t
    )
    align = bool(node.attrs.get("align_corners", False))
    half_pixel = bool(node.attrs.get("half_pixel_centers", False))

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        raw = host_array(ins[0])
        x = raw.astype(F32) if t == dtypes.float32 else qa.ints(raw, t)
        size = np.asarray(host_array(ins[1]))
        lo, hi = qa.scalar(ins[2]), qa.scalar(ins[3])
        if x.ndim != 4:
            raise invalid(f"input must be 4-dimensional{shape_str(x.shape)}")
        if size.ndim != 1:
            raise invalid(f"shape_t must be 1-dimensional{shape_str(size.shape)}")
        if size.size != 2:
            raise invalid(f"shape_t must have two elements{shape_str(size.shape)}")
        out_h, out_w = int(size[0]), int(size[1])
        _, in_h, in_w, channels = x.shape
        if out_h <= 0 or out_w <= 0:
            raise invalid("output dimensions must be positive")
        if channels <= 0:
            raise invalid("image must have at least one channel")
        if in_h <= 0 or in_w <= 0:
            raise invalid("input image must be of non-zero size")

        def scale(n_in: int, n_out: int) -> Any:
            if align and n_out > 1:
                return F32(F32(n_in - 1) / F32(n_out - 1))
            return F32(F32(n_in) / F32(n_out))

        if (out_h, out_w) == (in_h, in_w) or x.size == 0:
            out = x
        else:
            resolution = {dtypes.quint8: 7, dtypes.qint32: 30}.get(t, 0)
            ys = _lerp_cache(out_h, in_h, scale(in_h, out_h), resolution, half_pixel)
            xs = _lerp_cache(out_w, in_w, scale(in_w, out_w), resolution, half_pixel)
            tl, tr, bl, br = _corners(x, ys, xs)
            if t == dtypes.float32:
                # ResizeImageReference: float lerps of the values as floats.
                x_lerp = xs[2][None, None, :, None]
                y_lerp = ys[2][None, :, None, None]
                if t != dtypes.float32:
                    tl, tr, bl, br = (qa.quantized_to_float(v, lo, hi, t) for v in (tl, tr, bl, br))
                top = (tl + ((tr - tl) * x_lerp).astype(F32)).astype(F32)
                bottom = (bl + ((br - bl) * x_lerp).astype(F32)).astype(F32)
                out = (top + ((bottom - top) * y_lerp).astype(F32)).astype(F32)
                if t != dtypes.float32:
                    out = qa.float_to_quantized(out, lo, hi, t)
            else:
                # ComputeLerp: fixed point with `resolution` fraction bits. Eigen's qint32
                # reaches int64 through float (its only conversion), rounding big values.
                tl, tr, bl, br = (qa.eigen_ints(v, t) for v in (tl, tr, bl, br))
                mult = 1 << resolution
                x_il = xs[3][None, None, :, None]
                y_il = ys[3][None, :, None, None]
                top = tl * mult + (tr - tl) * x_il
                bottom = bl * mult + (br - bl) * x_il
                value = top + _c_div(bottom - top, mult) * y_il
                out = qa.wrap_int32(_c_div(value + mult // 2, mult))
        if t == dtypes.float32:
            return np.ascontiguousarray(out, F32), np.asarray(lo, F32), np.asarray(hi, F32)
        return _outputs(out, t, lo, hi)

    return compute


# ---- requantization -------------------------------------------------------------------------
@kernel("Requantize", devices=CPU_ONLY)
def requantize(node: Any, xp: Any) -> Any:
    tin, tout = node.attrs["Tinput"], node.attrs["out_type"]
    _require(
        "Requantize",
        {(dtypes.qint32, dtypes.qint8), (dtypes.qint32, dtypes.quint8)},
        Tinput=tin,
        out_type=tout,
    )

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        q = qa.ints(ins[0], tin)
        in_lo, in_hi, out_lo, out_hi = (qa.scalar(v) for v in ins[1:5])
        if not out_lo <= 0.0:
            raise invalid(f"requested_output_min must be <= 0, but got {out_lo:g}")
        if not out_hi >= out_lo:
            raise invalid(
                f"requested_output_max must be >= requested_output_min, but got {out_hi:g} "
                f"and {out_lo:g}"
            )
        out = qa.requantize(q, in_lo, in_hi, out_lo, out_hi, tin, tout)
        return _outputs(out, tout, out_lo, out_hi)

    return compute


def _used_range(q: np.ndarray, dtype: dtypes.DType, lo: Any, hi: Any) -> tuple[Any, Any]:
    low, high = qa.limits(dtype)
    used_min = int(q.min()) if q.size else high
    used_max = int(q.max()) if q.size else low
    out_lo = min(F32(0), F32(qa.quantized_to_float(used_min, lo, hi, dtype)))
    out_hi = F32(qa.quantized_to_float(used_max, lo, hi, dtype))
    return F32(out_lo), out_hi


@kernel("RequantizationRange", devices=CPU_ONLY)
def requantization_range(node: Any, xp: Any) -> Any:
    tin = node.attrs["Tinput"]
    _require("RequantizationRange", {(dtypes.qint32,)}, Tinput=tin)

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        lo, hi = _used_range(qa.ints(ins[0], tin), tin, qa.scalar(ins[1]), qa.scalar(ins[2]))
        return np.asarray(lo, F32), np.asarray(hi, F32)

    return compute


@kernel("QuantizeDownAndShrinkRange", devices=CPU_ONLY)
def quantize_down_and_shrink_range(node: Any, xp: Any) -> Any:
    tin, tout = node.attrs["Tinput"], node.attrs["out_type"]
    _require(
        "QuantizeDownAndShrinkRange", {(dtypes.qint32, dtypes.quint8)}, Tinput=tin, out_type=tout
    )

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        q = qa.ints(ins[0], tin)
        in_lo, in_hi = qa.scalar(ins[1]), qa.scalar(ins[2])
        out_lo, out_hi = _used_range(q, tin, in_lo, in_hi)
        out = qa.requantize(q, in_lo, in_hi, out_lo, out_hi, tin, tout)
        return _outputs(out, tout, out_lo, out_hi)

    return compute


# ---- batch norm -----------------------------------------------------------------------------
@kernel("QuantizedBatchNormWithGlobalNormalization", devices=CPU_ONLY)
def quantized_batch_norm(node: Any, xp: Any) -> Any:
    tin, tout = node.attrs["Tinput"], node.attrs["out_type"]
    _require(
        "QuantizedBatchNormWithGlobalNormalization",
        {(dtypes.quint8, dtypes.qint32)},
        Tinput=tin,
        out_type=tout,
    )
    epsilon = F32(node.attrs["variance_epsilon"])
    scale_after = bool(node.attrs["scale_after_normalization"])

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        x = qa.ints(ins[0], tin)
        if x.ndim != 4:
            raise invalid(f"input must be 4-dimensional{shape_str(x.shape)}")
        params = []
        for i, what in zip((3, 6, 9, 12), ("mean", "var", "beta", "gamma")):
            v = qa.ints(ins[i], tin)
            if v.ndim != 1:
                raise invalid(f"{what} must be 1-dimensional{shape_str(v.shape)}")
            lo, hi = qa.scalar(ins[i + 1]), qa.scalar(ins[i + 2])
            params.append(qa.quantized_to_float(v, lo, hi, tin))
        mean, var, beta, gamma = params
        # FixedPointBatchNorm: scale and offset per channel in a +-2**20 qint32 range.
        out_lo, out_hi = F32(-(1 << 20)), F32(1 << 20)
        with np.errstate(divide="ignore", invalid="ignore"):
            scale = (F32(1.0) / np.sqrt(var + epsilon)).astype(F32)
        if scale_after:
            scale = (scale * gamma).astype(F32)
        offset = ((-mean * scale).astype(F32) + beta).astype(F32)
        scale_q = qa.float_to_quantized(scale, out_lo, out_hi, tout)
        offset_q = qa.float_to_quantized(offset, out_lo, out_hi, tout)
        one = int(qa.float_to_quantized(1.0, out_lo, out_hi, tout))
        in_lo, in_hi = qa.scalar(ins[1]), qa.scalar(ins[2])
        x_total = qa.float_to_quantized(
            qa.quantized_to_float(x, in_lo, in_hi, tin), out_lo, out_hi, tout
        )
        product = qa.wrap_int32(x_total * scale_q)
        # C++'s int32 division truncates toward zero.
        quotient = np.trunc(product / one).astype(np.int64) if one else product
        out = qa.wrap_int32(quotient + offset_q)
        return _outputs(out, tout, out_lo, out_hi)

    return compute


# ---- instance norm --------------------------------------------------------------------------
def _sequential_mean(values: np.ndarray) -> np.ndarray:
    """Eigen's MeanReducer over axes 1 and 2 of [n, h, w, c] float32: one running float32 sum
    per (n, c), the reduced cells taken w-major (its reducer's loop order), then / count."""
    n, h, w, c = values.shape
    total = np.zeros((n, c), F32)
    for j in range(w):
        for i in range(h):
            total += values[:, i, j]
    return (total / F32(h * w)).astype(F32)


@kernel("QuantizedInstanceNorm", devices=CPU_ONLY)
def quantized_instance_norm(node: Any, xp: Any) -> Any:
    t = node.attrs["T"]
    _require("QuantizedInstanceNorm", {(dtypes.quint8,)}, T=t)
    epsilon = F32(node.attrs.get("variance_epsilon", 1e-5))
    min_separation = F32(node.attrs.get("min_separation", 1e-3))
    range_given = bool(node.attrs.get("output_range_given", False))
    given_lo = F32(node.attrs.get("given_y_min", 0.0))
    given_hi = F32(node.attrs.get("given_y_max", 0.0))
    if range_given and not given_lo < given_hi:
        raise invalid(f"given_y_min must be less than given_y_max : {given_lo:g} >= {given_hi:g}")

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        x = qa.ints(ins[0], t)
        lo, hi = qa.scalar(ins[1]), qa.scalar(ins[2])
        scale = F32(F32(hi - lo) / F32(255.0))
        if not lo < hi:
            raise invalid(f"input_min must be less than input_max : {lo:g} >= {hi:g}")
        if x.ndim != 4:
            raise invalid(f"input must be 4-dimensional{shape_str(x.shape)}")
        values = x.astype(F32)
        if values.size == 0:
            return _outputs(x, t, F32(0), min_separation)
        # The sum of 8-bit integers is exact in float32: the mean is one division.
        mean = (
            values.sum(axis=(1, 2), dtype=np.float64).astype(F32) / F32(x.shape[1] * x.shape[2])
        ).astype(F32)
        diff = (values - mean[:, None, None, :]).astype(F32)
        variance = _sequential_mean(np.square((scale * diff).astype(F32)))
        inverse = (F32(1) / np.sqrt((variance + epsilon).astype(F32))).astype(F32)
        normed = ((scale * diff).astype(F32) * inverse[:, None, None, :]).astype(F32)
        if range_given:
            out_lo, out_hi = given_lo, given_hi
        else:
            out_lo, out_hi = F32(normed.min()), F32(normed.max())
        if F32(out_hi - out_lo) < min_separation:
            out_hi = F32(out_lo + min_separation)
        out = float_to_quantized_min_first(normed, out_lo, out_hi, t)
        return _outputs(out, t, out_lo, out_hi)

    return compute


# ---- QuantizeAndDequantize V1 / V3 -----------------------------------------------------------
def _qdq_types(node: Any, op_type: str) -> None:
    t = node.attrs["T"]
    if t not in (dtypes.float32, dtypes.float64):
        raise _unsupported(op_type, T=t)


@kernel("QuantizeAndDequantize")
def quantize_and_dequantize_v1(node: Any, xp: Any) -> Any:
    _qdq_types(node, "QuantizeAndDequantize")
    signed = bool(node.attrs.get("signed_input", True))
    num_bits = int(node.attrs.get("num_bits", 8))
    range_given = bool(node.attrs.get("range_given", False))
    lo_attr = float(node.attrs.get("input_min", 0.0))
    hi_attr = float(node.attrs.get("input_max", 0.0))
    if not 0 < num_bits < (62 if signed else 63):
        raise invalid(f"num_bits is out of range: {num_bits} with signed_input_ {int(signed)}")
    if range_given and not lo_attr <= hi_attr:
        raise invalid(f"Invalid range: input_min {lo_attr:g} > input_max {hi_attr:g}")

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        x = ins[0]
        t = x.dtype.type
        return (
            quantize_and_dequantize(
                xp, x, signed, num_bits, range_given, t(lo_attr), t(hi_attr), "HALF_TO_EVEN", False
            ),
        )

    return compute


@kernel("QuantizeAndDequantizeV3", host=(1, 2, 3))
def quantize_and_dequantize_v3(node: Any, xp: Any) -> Any:
    _qdq_types(node, "QuantizeAndDequantizeV3")
    signed = bool(node.attrs.get("signed_input", True))
    range_given = bool(node.attrs.get("range_given", True))
    narrow = bool(node.attrs.get("narrow_range", False))

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        x = ins[0]
        t = x.dtype.type
        num_bits = int(np.asarray(host_array(ins[3])).reshape(-1)[0])
        if not 0 < num_bits < (62 if signed else 63):
            raise invalid(f"num_bits is out of range: {num_bits} with signed_input_ {int(signed)}")
        lo = t(np.asarray(host_array(ins[1])).reshape(-1)[0])
        hi = t(np.asarray(host_array(ins[2])).reshape(-1)[0])
        if range_given and not lo <= hi:
            raise invalid(f"Invalid range: input_min {lo:g} > input_max {hi:g}")
        return (
            quantize_and_dequantize(
                xp, x, signed, num_bits, range_given, lo, hi, "HALF_TO_EVEN", narrow
            ),
        )

    return compute
