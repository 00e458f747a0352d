"""Programs of tf.quantization (fake quantization and its gradients, quantize / dequantize in
every mode and round mode, quantized_concat, quantize_and_dequantize), run on TensorFlow 1.15
by record_quantization.py and on tfcluster by test_tf_reference_quantization.py.

Each program builds a graph with the `tf` it is given and returns {key: tensor}; `run` fetches
them and returns values (quantized ones as their integers plus "dtype:<key>"), tensor names
and any error's class. Kept runnable on Python 3.7 (TF 1.15's).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

PROGRAMS: dict[str, Callable[[Any], Any]] = {}


def program(name: str) -> Callable[[Callable[[Any], Any]], Callable[[Any], Any]]:
    def deco(fn: Callable[[Any], Any]) -> Callable[[Any], Any]:
        PROGRAMS[name] = fn
        return fn

    return deco


def run(tf: Any, name: str) -> dict[str, Any]:
    """{"out:k": value, "name:k": tensor name, "dtype:k": dtype} or {"error": e, "stage": ...}."""
    graph = tf.Graph()
    with graph.as_default():
        try:
            fetches = PROGRAMS[name](tf)
            init = tf.global_variables_initializer()
        except Exception as e:
            return {"error": e, "stage": "build"}
        flat = {}
        for key, value in fetches.items():
            if isinstance(value, (list, tuple)):
                for i, v in enumerate(value):
                    flat[f"{key}.{i}"] = v
            else:
                flat[key] = value
        out: dict[str, Any] = {}
        for key, value in flat.items():
            out["name:" + key] = value.name
            out["dtype:" + key] = value.dtype.name
        with tf.Session(graph=graph) as sess:
            try:
                sess.run(init)
                values = sess.run(flat)
            except Exception as e:
                return {"error": e, "stage": "run"}
    for key, value in values.items():
        arr = np.asarray(value)
        if arr.dtype.fields:  # a quantized dtype: its integers
            arr = arr.view(arr.dtype.fields[next(iter(arr.dtype.fields))][0])
        out["out:" + key] = arr
    return out


# Values on and around the levels of the ranges below (ties included: x.5 steps).
_BASE = np.array(
    [
        -7.0,
        -6.0,
        -5.98,
        -3.3,
        -1.0,
        -0.1,
        0.0,
        0.02,
        0.0235294,
        0.5,
        1.7,
        2.99,
        3.0,
        5.99,
        6.0,
        9.0,
    ],
    dtype=np.float32,
)
_STEPS = (np.arange(-40, 41, dtype=np.float32) * np.float32(0.0625)).astype(np.float32)
X = np.concatenate([_BASE, _STEPS]).astype(np.float32)
# Ranges that need nudging (0 is not on a level), that are already aligned, and one-sided.
RANGES = {
    "default": (-6.0, 6.0),
    "aligned": (0.0, 2.55),
    "unaligned": (-0.73, 3.41),
    "negative_only": (-5.0, -0.5),
    "positive_only": (0.5, 5.0),
}
GRAD = (np.arange(X.size, dtype=np.float32) % 7 + 1).astype(np.float32) * np.float32(0.25)


def _args_program(lo: float, hi: float, num_bits: int, narrow: bool) -> Callable[[Any], Any]:
    def build(tf: Any) -> Any:
        x = tf.constant(X, name="x")
        y = tf.quantization.fake_quant_with_min_max_args(
            x, min=lo, max=hi, num_bits=num_bits, narrow_range=narrow
        )
        g = tf.gradients(y, x, grad_ys=tf.constant(GRAD))[0]
        direct = tf.fake_quant_with_min_max_args_gradient(
            tf.constant(GRAD), x, min=lo, max=hi, num_bits=num_bits, narrow_range=narrow
        )
        return {"y": y, "dx": g, "direct": direct}

    return build


def _vars_program(lo: float, hi: float, num_bits: int, narrow: bool) -> Callable[[Any], Any]:
    def build(tf: Any) -> Any:
        x = tf.constant(X, name="x")
        lo_t = tf.constant(lo, name="lo")
        hi_t = tf.constant(hi, name="hi")
        y = tf.quantization.fake_quant_with_min_max_vars(
            x, lo_t, hi_t, num_bits=num_bits, narrow_range=narrow
        )
        grads = tf.gradients(y, [x, lo_t, hi_t], grad_ys=tf.constant(GRAD))
        return {"y": y, "grads": grads}

    return build


for _name, (_lo, _hi) in RANGES.items():
    for _bits, _narrow in ((8, False), (8, True), (4, False), (2, True), (16, False)):
        _suffix = f"{_name}_{_bits}bits" + ("_narrow" if _narrow else "")
        PROGRAMS[f"fake_quant_args_{_suffix}"] = _args_program(_lo, _hi, _bits, _narrow)
        PROGRAMS[f"fake_quant_vars_{_suffix}"] = _vars_program(_lo, _hi, _bits, _narrow)


@program("fake_quant_args_bad_num_bits")
def _args_bad_bits(tf: Any) -> Any:
    return {"y": tf.quantization.fake_quant_with_min_max_args(tf.constant(X), num_bits=17)}


@program("fake_quant_args_min_not_below_max")
def _args_bad_range(tf: Any) -> Any:
    return {"y": tf.quantization.fake_quant_with_min_max_args(tf.constant(X), min=2.0, max=1.0)}


@program("fake_quant_args_float64_input")
def _args_float64(tf: Any) -> Any:
    return {"y": tf.quantization.fake_quant_with_min_max_args(tf.constant(X.astype(np.float64)))}


@program("fake_quant_vars_min_not_scalar")
def _vars_bad_min(tf: Any) -> Any:
    x = tf.constant(X)
    return {"y": tf.quantization.fake_quant_with_min_max_vars(x, [-1.0, -2.0], 1.0)}


@program("fake_quant_vars_zero_range")
def _vars_zero(tf: Any) -> Any:
    x = tf.constant(X[:8])
    lo = tf.constant(0.0)
    hi = tf.constant(0.0)
    y = tf.quantization.fake_quant_with_min_max_vars(x, lo, hi)
    return {"y": y, "grads": tf.gradients(y, [x, lo, hi])}


@program("fake_quant_vars_named_and_trainable")
def _vars_variables(tf: Any) -> Any:
    x = tf.constant(X, name="x")
    lo = tf.Variable(-1.1, name="lo")
    hi = tf.Variable(2.3, name="hi")
    y = tf.fake_quant_with_min_max_vars(x, lo, hi, name="fq")
    grads = tf.gradients(tf.reduce_sum(y * y), [lo, hi])
    return {"y": y, "grads": grads}


_PC_LO = np.array([-6.0, -0.73, 0.0, -5.0, 0.5], np.float32)
_PC_HI = np.array([6.0, 3.41, 2.55, -0.5, 5.0], np.float32)


def _per_channel(shape: tuple[int, ...], num_bits: int, narrow: bool) -> Callable[[Any], Any]:
    def build(tf: Any) -> Any:
        n = int(np.prod(shape))
        x = tf.constant(np.resize(X, n).reshape(shape), name="x")
        g = tf.constant(np.resize(GRAD, n).reshape(shape), name="g")
        lo = tf.constant(_PC_LO[: shape[-1]], name="lo")
        hi = tf.constant(_PC_HI[: shape[-1]], name="hi")
        y = tf.quantization.fake_quant_with_min_max_vars_per_channel(
            x, lo, hi, num_bits=num_bits, narrow_range=narrow
        )
        grads = tf.gradients(y, [x, lo, hi], grad_ys=g)
        direct = tf.quantization.fake_quant_with_min_max_vars_per_channel_gradient(
            g, x, lo, hi, num_bits=num_bits, narrow_range=narrow
        )
        return {"y": y, "grads": grads, "direct": direct}

    return build


for _shape in ((5,), (7, 5), (2, 3, 5), (2, 3, 4, 5)):
    for _bits, _narrow in ((8, False), (6, True)):
        _suffix = "x".join(map(str, _shape)) + f"_{_bits}bits" + ("_narrow" if _narrow else "")
        PROGRAMS[f"fake_quant_per_channel_{_suffix}"] = _per_channel(_shape, _bits, _narrow)


@program("fake_quant_per_channel_zero_range")
def _pc_zero(tf: Any) -> Any:
    x = tf.constant(X[:12].reshape(4, 3))
    lo = tf.constant([0.0, -1.0, 0.0])
    hi = tf.constant([0.0, 1.0, 0.0])
    y = tf.quantization.fake_quant_with_min_max_vars_per_channel(x, lo, hi)
    return {"y": y, "grads": tf.gradients(y, [x, lo, hi])}


@program("fake_quant_per_channel_wrong_depth")
def _pc_bad(tf: Any) -> Any:
    x = tf.constant(X[:12].reshape(3, 4))
    return {"y": tf.quantization.fake_quant_with_min_max_vars_per_channel(x, _PC_LO, _PC_HI)}


@program("fake_quant_per_channel_rank5")
def _pc_rank5(tf: Any) -> Any:
    x = tf.constant(np.zeros((1, 1, 1, 1, 5), np.float32))
    return {"y": tf.quantization.fake_quant_with_min_max_vars_per_channel(x, _PC_LO, _PC_HI)}


QX = np.concatenate([X, np.array([-100.0, 100.0, 1e-7, -1e-7], np.float32)]).astype(np.float32)
QUANT_RANGES = {
    "symmetric": (-6.0, 6.0),
    "skewed": (-0.73, 3.41),
    "positive": (0.5, 5.0),
    "negative": (-5.0, -0.5),
    "narrow_gap": (-3.7, -3.69),
    "tiny": (-0.001, 0.002),
}
QTYPES = ("quint8", "qint8", "quint16", "qint16", "qint32")


def _quantize_program(dtype: str, mode: str, lo: float, hi: float, round_mode: str) -> Any:
    def build(tf: Any) -> Any:
        x = tf.constant(QX, name="x")
        q = tf.quantization.quantize(
            x, lo, hi, getattr(tf, dtype), mode=mode, round_mode=round_mode
        )
        back = tf.quantization.dequantize(q.output, q.output_min, q.output_max, mode=mode)
        # Dequantize also from the range as given (not the one QuantizeV2 adjusted).
        given = tf.quantization.dequantize(q.output, lo, hi, mode=mode, name="given")
        return {
            "q": q.output,
            "min": q.output_min,
            "max": q.output_max,
            "back": back,
            "given": given,
        }

    return build


for _dtype in QTYPES:
    for _mode in ("MIN_COMBINED", "MIN_FIRST", "SCALED"):
        for _rname, (_lo, _hi) in QUANT_RANGES.items():
            PROGRAMS[f"quantize_{_dtype}_{_mode}_{_rname}"] = _quantize_program(
                _dtype, _mode, _lo, _hi, "HALF_AWAY_FROM_ZERO"
            )
        PROGRAMS[f"quantize_{_dtype}_{_mode}_half_to_even"] = _quantize_program(
            _dtype, _mode, -1.0, 1.0, "HALF_TO_EVEN"
        )


@program("quantize_v2_alias")
def _quantize_v2(tf: Any) -> Any:
    q = tf.quantize_v2(tf.constant(QX), -2.0, 3.0, tf.quint8, mode="MIN_FIRST", name="qv2")
    return {"q": q.output, "min": q.output_min, "max": q.output_max}


@program("quantize_max_below_min")
def _quantize_bad_range(tf: Any) -> Any:
    return {"q": tf.quantization.quantize(tf.constant(QX), 2.0, 1.0, tf.quint8).output}


@program("quantize_bad_mode")
def _quantize_bad_mode(tf: Any) -> Any:
    return {"q": tf.quantization.quantize(tf.constant(QX), -1.0, 1.0, tf.quint8, mode="MAX").output}


@program("quantize_to_float_type")
def _quantize_bad_type(tf: Any) -> Any:
    return {"q": tf.quantization.quantize(tf.constant(QX), -1.0, 1.0, tf.float32).output}


@program("dequantize_float_input")
def _dequantize_float(tf: Any) -> Any:
    return {"d": tf.quantization.dequantize(tf.constant(QX), -1.0, 1.0)}


def _concat_program(dtype: str, axis: int, ranges: Any) -> Any:
    def build(tf: Any) -> Any:
        parts, mins, maxes = [], [], []
        for i, (lo, hi) in enumerate(ranges):
            x = tf.constant((QX[: 2 * 3] * (i + 1)).reshape(2, 3), name=f"x{i}")
            q = tf.quantization.quantize(x, lo, hi, getattr(tf, dtype), mode="MIN_FIRST")
            parts.append(q.output)
            mins.append(q.output_min)
            maxes.append(q.output_max)
        c = tf.quantization.quantized_concat(axis, parts, mins, maxes)
        return {"c": c.output, "min": c.output_min, "max": c.output_max}

    return build


for _dtype in ("quint8", "qint8", "qint32"):
    for _axis in (0, 1):
        PROGRAMS[f"quantized_concat_{_dtype}_axis{_axis}"] = _concat_program(
            _dtype, _axis, ((-1.0, 2.0), (-6.0, 6.0), (0.0, 3.5))
        )
    PROGRAMS[f"quantized_concat_{_dtype}_same_ranges"] = _concat_program(
        _dtype, 0, ((-2.0, 2.0), (-2.0, 2.0))
    )


@program("quantized_concat_negative_axis")
def _concat_negative(tf: Any) -> Any:
    return _concat_program("quint8", -1, ((-1.0, 2.0), (-6.0, 6.0)))(tf)


@program("quantized_concat_mismatched_lists")
def _concat_mismatch(tf: Any) -> Any:
    q = tf.quantization.quantize(tf.constant(QX), -1.0, 1.0, tf.quint8)
    return {
        "c": tf.quantization.quantized_concat(
            0, [q.output, q.output], [q.output_min], [q.output_max]
        ).output
    }


def _qdq_program(
    signed: bool, num_bits: int, range_given: bool, round_mode: str, narrow: bool, dtype: Any
) -> Any:
    def build(tf: Any) -> Any:
        x = tf.constant(QX[:-4].astype(dtype), name="x")
        y = tf.quantization.quantize_and_dequantize(
            x,
            -1.3,
            2.7,
            signed_input=signed,
            num_bits=num_bits,
            range_given=range_given,
            round_mode=round_mode,
            narrow_range=narrow,
        )
        return {"y": y, "dx": tf.gradients(y, x, grad_ys=tf.ones_like(x) * 2.0)[0]}

    return build


for _signed in (True, False):
    for _bits in (8, 4):
        for _given in (True, False):
            for _round in ("HALF_TO_EVEN", "HALF_UP"):
                for _narrow in (False, True):
                    PROGRAMS[
                        f"quantize_and_dequantize_{'signed' if _signed else 'unsigned'}_{_bits}bits"
                        f"{'_given' if _given else ''}_{_round}{'_narrow' if _narrow else ''}"
                    ] = _qdq_program(_signed, _bits, _given, _round, _narrow, np.float32)
PROGRAMS["quantize_and_dequantize_float64"] = _qdq_program(
    True, 8, True, "HALF_TO_EVEN", False, np.float64
)


@program("quantize_and_dequantize_bad_round_mode")
def _qdq_bad_round(tf: Any) -> Any:
    x = tf.constant(QX)
    return {"y": tf.quantization.quantize_and_dequantize(x, -1.0, 1.0, round_mode="HALF_DOWN")}


@program("quantize_and_dequantize_bad_range")
def _qdq_bad(tf: Any) -> Any:
    x = tf.constant(QX)
    return {"y": tf.quantization.quantize_and_dequantize(x, 2.0, 1.0, range_given=True)}
