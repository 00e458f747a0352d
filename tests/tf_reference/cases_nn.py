"""Cases of tf.nn's normalisation, statistics, activations and losses (moments, batch norm,
fused batch norm, LRN, ...), run on TensorFlow by record_nn.py and on tfcluster by
tests/unit/test_tf_reference_nn.py."""

from __future__ import annotations

from typing import Any

import numpy as np

try:
    from casebook import Book, values
except ImportError:  # imported as tf_reference.cases_nn by the tests
    from tf_reference.casebook import Book, values

BOOK = Book()
add = BOOK.add

F32 = np.float32
IMAGES = values((2, 3, 4, 5), -2, 2, seed=80).astype(F32)
DEPTH5 = values((5,), 0.5, 1.5, seed=81).astype(F32)
SHIFT5 = values((5,), -0.5, 0.5, seed=82).astype(F32)
DEPTH3 = values((3,), 0.5, 1.5, seed=83).astype(F32)
SHIFT3 = values((3,), -0.5, 0.5, seed=84).astype(F32)
TOL32 = {"rtol": 2e-4, "atol": 2e-5}


@add("moments", {"x": IMAGES}, grad=("var", ("x",)), **TOL32)
def _moments(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    mean, var = tf.nn.moments(t["x"], [0, 1, 2])
    keep_mean, keep_var = tf.nn.moments(t["x"], axes=[1, 2], keep_dims=True)
    return {"mean": mean, "var": var, "keep_mean": keep_mean, "keep_var": keep_var}


@add(
    "weighted_moments",
    {"x": IMAGES, "w": values((2, 3, 4, 1), 0.1, 2, seed=85).astype(F32)},
    grad=("var", ("x", "w")),
    names=False,
    notes="TF 1.15 divides by the reciprocal of the weight sum; TF 2.x uses div_no_nan",
    **TOL32,
)
def _weighted_moments(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    mean, var = tf.nn.weighted_moments(t["x"], [0, 1, 2], t["w"])
    keep = tf.nn.weighted_moments(t["x"], [1], t["w"], keepdims=True)
    return {"mean": mean, "var": var, "keep": keep}


@add(
    "batch_normalization",
    {"x": IMAGES, "m": SHIFT5, "v": DEPTH5, "o": SHIFT5 * 2, "s": DEPTH5 * 3},
    grad=("y", ("x", "m", "v", "o", "s")),
    **TOL32,
)
def _batch_normalization(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    return {
        "y": tf.nn.batch_normalization(t["x"], t["m"], t["v"], t["o"], t["s"], 1e-3),
        "no_scale_offset": tf.nn.batch_normalization(t["x"], t["m"], t["v"], None, None, 0.01),
    }


for _fmt in ("NHWC", "NCHW"):
    _depth = 5 if _fmt == "NHWC" else 3
    _scale, _offset = (DEPTH5, SHIFT5) if _fmt == "NHWC" else (DEPTH3, SHIFT3)

    @add(
        f"fused_batch_norm_training_{_fmt}",
        {"x": IMAGES, "s": _scale, "o": _offset},
        grad=("y", ("x", "s", "o")),
        **TOL32,
    )
    def _fbn_train(tf: Any, t: dict[str, Any], fmt: str = _fmt) -> dict[str, Any]:
        y, mean, var = tf.nn.fused_batch_norm(t["x"], t["s"], t["o"], data_format=fmt)
        return {"y": y, "mean": mean, "var": var}

    @add(
        f"fused_batch_norm_inference_{_fmt}",
        {"x": IMAGES, "s": _scale, "o": _offset, "m": _offset * 0.5, "v": _scale * 2},
        grad=("y", ("x", "s", "o")),
        **TOL32,
    )
    def _fbn_infer(tf: Any, t: dict[str, Any], fmt: str = _fmt) -> dict[str, Any]:
        y, mean, var = tf.nn.fused_batch_norm(
            t["x"], t["s"], t["o"], t["m"], t["v"], epsilon=1e-3, data_format=fmt, is_training=False
        )
        return {"y": y, "mean": mean, "var": var}


@add(
    "fused_batch_norm_half_input",
    {"x": IMAGES.astype(np.float16), "s": DEPTH5, "o": SHIFT5},
    rtol=2e-3,
    atol=2e-3,
)
def _fbn_half(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    y, mean, var = tf.nn.fused_batch_norm(t["x"], t["s"], t["o"])
    return {"y": y, "mean": mean, "var": var}


@add("fused_batch_norm_wrong_depth_fails_at_build", {"x": IMAGES, "s": DEPTH3})
def _fbn_bad_depth(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    return {"y": tf.nn.fused_batch_norm(t["x"], t["s"], t["s"])[0]}


@add("lrn", {"x": IMAGES}, grad=("y", ("x",)), **TOL32)
def _lrn(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    return {
        "y": tf.nn.lrn(t["x"], depth_radius=2, bias=1.5, alpha=0.3, beta=0.75),
        "default": tf.nn.local_response_normalization(t["x"]),
    }


@add("lrn_wide_radius", {"x": IMAGES}, grad=("y", ("x",)), **TOL32)
def _lrn_wide(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    return {"y": tf.nn.local_response_normalization(t["x"], depth_radius=7, alpha=0.01)}


@add("sufficient_statistics_and_normalize_moments", {"x": IMAGES, "shift": SHIFT5}, **TOL32)
def _sufficient(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    counts, m_ss, v_ss, _ = tf.nn.sufficient_statistics(t["x"], [0, 1, 2])
    mean, var = tf.nn.normalize_moments(counts, m_ss, v_ss, None)
    c2, m2, v2, shift = tf.nn.sufficient_statistics(
        t["x"], [0, 1, 2], shift=t["shift"], keepdims=True
    )
    mean2, var2 = tf.nn.normalize_moments(c2, m2, v2, shift)
    return {
        "counts": counts,
        "m_ss": m_ss,
        "v_ss": v_ss,
        "mean": mean,
        "var": var,
        "mean_shift": mean2,
        "var_shift": var2,
    }


@add(
    "crelu_swish_zero_fraction",
    {"x": np.array([[0.0, 1.5, -2.0], [0.0, 0.0, 3.0]], F32)},
    grad=("crelu", ("x",)),
)
def _crelu(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    return {
        "crelu": tf.nn.crelu(t["x"]),
        "crelu0": tf.nn.crelu(t["x"], axis=0),
        "zero_fraction": tf.nn.zero_fraction(t["x"]),
        "math_zf": tf.math.zero_fraction(t["x"]),
    }


@add(
    "swish",
    {"x": np.array([[0.0, 1.5, -2.0], [0.5, -0.25, 3.0]], F32)},
    grad=("y", ("x",)),
    names=False,
    notes="TF wraps swish in a custom gradient (IdentityN)",
)
def _swish(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    return {"y": tf.nn.swish(t["x"])}


_ACTIVATIONS = (
    "relu",
    "relu6",
    "elu",
    "selu",
    "softplus",
    "softsign",
    "leaky_relu",
    "sigmoid",
    "tanh",
)
for _act in _ACTIVATIONS:

    @add(f"activation_{_act}", {"x": values((3, 4), -8, 8, seed=86)}, grad=("y", ("x",)))
    def _activation(tf: Any, t: dict[str, Any], act: str = _act) -> dict[str, Any]:
        return {"y": getattr(tf.nn, act)(t["x"])}


@add("softmax_axes", {"x": values((2, 3, 4), seed=87).astype(F32)}, grad=("axis1", ("x",)), **TOL32)
def _softmax(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    x = t["x"]
    return {
        "last": tf.nn.softmax(x),
        "axis1": tf.nn.softmax(x, axis=1),
        "log_axis0": tf.nn.log_softmax(x, axis=0),
        "log_last": tf.nn.log_softmax(x, -1),
        "dim": tf.nn.softmax(x, dim=1),
    }


@add("l2_normalize_and_loss", {"x": values((3, 4), seed=88)}, grad=("norm", ("x",)))
def _l2(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    x = t["x"]
    return {
        "norm": tf.nn.l2_normalize(x, axis=1),
        "norm_all": tf.math.l2_normalize(x),
        "loss": tf.nn.l2_loss(x),
        "linalg": tf.linalg.l2_normalize(x, 0),
    }


@add(
    "bias_add_and_xw_plus_b",
    {
        "x": IMAGES,
        "b3": DEPTH3,
        "b5": DEPTH5,
        "m": values((4, 3), seed=89).astype(F32),
        "w": values((3, 2), seed=90).astype(F32),
    },
    grad=("nchw", ("x", "b3")),
    **TOL32,
)
def _bias_add(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    return {
        "nhwc": tf.nn.bias_add(t["x"], t["b5"]),
        "nchw": tf.nn.bias_add(t["x"], t["b3"], data_format="NCHW"),
        "xw": tf.nn.xw_plus_b(t["m"], t["w"], t["b3"][:2]),
    }


@add(
    "cross_entropy_losses",
    {"logits": values((3, 4), -3, 3, seed=91), "labels": values((3, 4), 0, 1, seed=92)},
    grad=("sigmoid", ("logits", "labels")),
)
def _xent(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    lo, la = t["logits"], t["labels"]
    return {
        "sigmoid": tf.nn.sigmoid_cross_entropy_with_logits(labels=la, logits=lo),
        "weighted": tf.nn.weighted_cross_entropy_with_logits(targets=la, logits=lo, pos_weight=2.5),
    }


@add(
    "softmax_cross_entropy_v2",
    {"logits": values((3, 4), -3, 3, seed=91), "labels": values((3, 4), 0, 1, seed=92)},
    grad=("y", ("logits", "labels")),
    names=False,
    notes="TF reshapes the cost back even for rank-2 logits (its output is Reshape_2)",
)
def _softmax_xent(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    labels = t["labels"] / tf.reduce_sum(t["labels"], 1, keepdims=True)
    return {"y": tf.nn.softmax_cross_entropy_with_logits_v2(labels=labels, logits=t["logits"])}


@add("dropout_without_dropping", {"x": values((3, 4), seed=93).astype(F32)})
def _dropout(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    return {"keep1": tf.nn.dropout(t["x"], keep_prob=1.0), "rate0": tf.nn.dropout(t["x"], rate=0.0)}


@add("dropout_bad_rate_fails_at_build", {"x": values((3, 4), seed=93).astype(F32)})
def _dropout_bad(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    return {"y": tf.nn.dropout(t["x"], rate=1.5)}


@add(
    "clip_by_average_norm",
    {"x": values((3, 4), -2, 2, seed=94).astype(F32)},
    grad=("y", ("x",)),
    **TOL32,
)
def _clip_average(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    return {
        "y": tf.clip_by_average_norm(t["x"], 0.1),
        "loose": tf.clip_by_average_norm(t["x"], 100.0),
    }


@add(
    "fused_batch_norm_and_lrn_with_unknown_shapes",
    {"x": IMAGES, "s": DEPTH5, "o": SHIFT5},
    grad=("y", ("x", "s", "o")),
    unknown_shapes=True,
    **TOL32,
)
def _norm_unknown(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    x = tf.reshape(t["x"], [2, 3, 4, 5])
    y, mean, var = tf.nn.fused_batch_norm(x, t["s"], t["o"])
    return {"y": y + tf.nn.lrn(x, 2), "mean": mean, "var": var}
