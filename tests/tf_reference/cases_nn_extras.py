"""Cases of tf.nn's CTC (loss, decoders, label helpers), morphology (dilation2d, erosion2d)
and smaller losses (log_poisson_loss, batch_norm_with_global_normalization,
compute_average_loss, scale_regularization_loss), run on TensorFlow 1.15 by
record_nn_extras.py and on tfcluster by tests/unit/test_tf_reference_nn_extras.py.

Runs on Python 3.7 too (TF 1.15's recorder)."""

from __future__ import annotations

from typing import Any

import numpy as np

try:
    from casebook import Book, values
except ImportError:  # imported as tf_reference.cases_nn_extras by the tests
    from tf_reference.casebook import Book, values

BOOK = Book()
add = BOOK.add

F32 = np.float32
I32 = np.int32
I64 = np.int64
TOL32 = {"rtol": 2e-4, "atol": 2e-5}

# Logits [time 6, batch 3, classes 5]; blank is class 4 for TF1's ctc_loss.
LOGITS = values((6, 3, 5), -2, 2, seed=90).astype(F32)
# Labels: batch 0 [1, 1, 2], batch 1 [3], batch 2 [0, 2, 2, 0].
LABEL_IDX = np.array([[0, 0], [0, 1], [0, 2], [1, 0], [2, 0], [2, 1], [2, 2], [2, 3]], I64)
LABEL_VAL = np.array([1, 1, 2, 3, 0, 2, 2, 0], I32)
LABEL_SHAPE = np.array([3, 4], I64)
SEQ = np.array([6, 4, 6], I32)
SPARSE = {"idx": LABEL_IDX, "vals": LABEL_VAL, "shape": LABEL_SHAPE, "seq": SEQ}


def _labels(tf: Any, t: dict[str, Any]) -> Any:
    return tf.SparseTensor(t["idx"], t["vals"], t["shape"])


for _name, _kwargs in (
    ("ctc_loss", {}),
    ("ctc_loss_no_merge", {"ctc_merge_repeated": False}),
    ("ctc_loss_collapse", {"preprocess_collapse_repeated": True}),
    (
        "ctc_loss_collapse_no_merge",
        {"preprocess_collapse_repeated": True, "ctc_merge_repeated": False},
    ),
):

    @add(_name, {"x": LOGITS, **SPARSE}, grad=("loss", ("x",)), **TOL32)
    def _ctc(tf: Any, t: dict[str, Any], kwargs: Any = _kwargs) -> dict[str, Any]:
        return {"loss": tf.nn.ctc_loss(_labels(tf, t), t["x"], t["seq"], **kwargs)}


@add(
    "ctc_loss_batch_major_float64",
    {"x": np.transpose(LOGITS, (1, 0, 2)).astype(np.float64), **SPARSE},
    grad=("loss", ("x",)),
)
def _ctc_batch_major(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    return {"loss": tf.nn.ctc_loss(_labels(tf, t), t["x"], t["seq"], time_major=False)}


@add(
    "ctc_loss_ignore_longer",
    {"x": LOGITS, **SPARSE, "seq": np.array([6, 4, 3], I32)},
    grad=("loss", ("x",)),
    **TOL32,
)
def _ctc_ignore_longer(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    loss = tf.nn.ctc_loss(_labels(tf, t), t["x"], t["seq"], ignore_longer_outputs_than_inputs=True)
    return {"loss": loss}


@add(
    "ctc_loss_no_valid_path",
    {"x": LOGITS, **SPARSE, "seq": np.array([3, 4, 6], I32)},
    grad=("loss", ("x",)),
    notes="labels [1, 1, 2] need 4 frames with the blank between the 1s: the loss is inf",
    **TOL32,
)
def _ctc_no_path(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    return {"loss": tf.nn.ctc_loss(_labels(tf, t), t["x"], t["seq"])}


@add(
    "ctc_loss_trailing_null_labels",
    {"x": LOGITS, **SPARSE, "vals": np.array([1, 1, 2, 3, 0, 2, 4, 4], I32)},
    grad=("loss", ("x",)),
    **TOL32,
)
def _ctc_trailing_null(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    return {"loss": tf.nn.ctc_loss(_labels(tf, t), t["x"], t["seq"])}


for _name, _over in (
    ("ctc_loss_error_not_enough_time", {"seq": np.array([2, 4, 6], I32)}),
    ("ctc_loss_error_negative_label", {"vals": np.array([1, -1, 2, 3, 0, 2, 2, 0], I32)}),
    ("ctc_loss_error_label_after_null", {"vals": np.array([1, 4, 2, 3, 0, 2, 2, 0], I32)}),
    ("ctc_loss_error_sequence_too_long", {"seq": np.array([7, 4, 6], I32)}),
    (
        "ctc_loss_error_batch_without_labels",
        {
            "idx": LABEL_IDX[[0, 1, 2, 4, 5, 6, 7]],
            "vals": LABEL_VAL[[0, 1, 2, 4, 5, 6, 7]],
        },
    ),
    (
        "ctc_loss_error_unsorted_labels",
        {"idx": LABEL_IDX[[1, 0, 2, 3, 4, 5, 6, 7]]},
    ),
):

    @add(_name, {"x": LOGITS, **SPARSE, **_over})
    def _ctc_error(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
        return {"loss": tf.nn.ctc_loss(_labels(tf, t), t["x"], t["seq"])}


@add("ctc_loss_error_dense_labels", {"x": LOGITS, "seq": SEQ})
def _ctc_dense_labels(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    return {"loss": tf.nn.ctc_loss(tf.constant([[1, 2]]), t["x"], t["seq"])}


DENSE_LABELS = np.array([[2, 2, 3, 0], [4, 0, 0, 0], [1, 3, 3, 1]], I32)
DENSE_LENGTHS = np.array([3, 1, 4], I32)


@add(
    "ctc_loss_v2_dense",
    {"x": LOGITS, "labels": DENSE_LABELS, "label_length": DENSE_LENGTHS, "seq": SEQ},
    grad=("loss", ("x",)),
    names=False,
    notes="TF builds the dense loss from ops (ctc_loss_dense); tfcluster runs CTCLoss",
    **TOL32,
)
def _ctc_v2_dense(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    loss = tf.nn.ctc_loss_v2(t["labels"], t["x"], t["label_length"], t["seq"])
    return {"loss": loss}


@add(
    "ctc_loss_v2_dense_blank_last_batch_major",
    {
        "x": np.transpose(LOGITS, (1, 0, 2)),
        "labels": np.minimum(DENSE_LABELS, 3),
        "label_length": DENSE_LENGTHS,
        "seq": SEQ,
    },
    grad=("loss", ("x",)),
    names=False,
    notes="TF builds the dense loss from ops (ctc_loss_dense); tfcluster runs CTCLoss",
    **TOL32,
)
def _ctc_v2_dense_last(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    loss = tf.nn.ctc_loss_v2(
        t["labels"], t["x"], t["label_length"], t["seq"], logits_time_major=False, blank_index=-1
    )
    return {"loss": loss}


@add(
    "ctc_loss_v2_sparse_blank_0",
    {"x": LOGITS, **SPARSE, "vals": LABEL_VAL + 1},
    grad=("loss", ("x",)),
    **TOL32,
)
def _ctc_v2_sparse(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    loss = tf.nn.ctc_loss_v2(_labels(tf, t), t["x"], None, t["seq"], blank_index=0)
    return {"loss": loss}


@add("ctc_loss_v2_sparse_without_blank", {"x": LOGITS, **SPARSE})
def _ctc_v2_no_blank(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    return {"loss": tf.nn.ctc_loss_v2(_labels(tf, t), t["x"], None, t["seq"])}


# Decoders: logits with a clear best class most frames (ties would be order-dependent).
DECODE = values((10, 3, 5), -3, 3, seed=91).astype(F32)
DECODE_SEQ = np.array([10, 7, 0], I32)


def _sparse_parts(sp: Any) -> list:
    return [sp.indices, sp.values, sp.dense_shape]


for _merge in (True, False):

    @add(f"ctc_greedy_decoder_merge_{_merge}", {"x": DECODE, "seq": DECODE_SEQ}, **TOL32)
    def _greedy(tf: Any, t: dict[str, Any], merge: bool = _merge) -> dict[str, Any]:
        decoded, neg_sum = tf.nn.ctc_greedy_decoder(t["x"], t["seq"], merge_repeated=merge)
        return {"decoded": _sparse_parts(decoded[0]), "neg_sum_logits": neg_sum}


for _width, _paths, _merge in ((1, 1, True), (4, 3, True), (4, 2, False), (20, 6, True)):

    @add(
        f"ctc_beam_search_width_{_width}_paths_{_paths}_merge_{_merge}",
        {"x": DECODE, "seq": np.array([10, 7, 3], I32)},
        **TOL32,
    )
    def _beam(
        tf: Any, t: dict[str, Any], w: int = _width, p: int = _paths, m: bool = _merge
    ) -> dict[str, Any]:
        decoded, log_probs = tf.nn.ctc_beam_search_decoder(
            t["x"], t["seq"], beam_width=w, top_paths=p, merge_repeated=m
        )
        return {
            "decoded": [part for d in decoded for part in _sparse_parts(d)],
            "log_probs": log_probs,
        }


@add("ctc_beam_search_v2_empty_sequence", {"x": DECODE, "seq": DECODE_SEQ}, **TOL32)
def _beam_v2(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    decoded, log_probs = tf.nn.ctc_beam_search_decoder_v2(t["x"], t["seq"], beam_width=5)
    return {"decoded": _sparse_parts(decoded[0]), "log_probs": log_probs}


@add("ctc_beam_search_error_fewer_leaves", {"x": DECODE, "seq": DECODE_SEQ})
def _beam_fewer(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    _, log_probs = tf.nn.ctc_beam_search_decoder(t["x"], t["seq"], beam_width=5, top_paths=2)
    return {"log_probs": log_probs}


@add(
    "collapse_repeated",
    {
        "labels": np.array([[1, 1, 2, 2, 1], [3, 4, 5, 6, 7], [2, 2, 2, 0, 0]], I32),
        "len": np.array([5, 4, 3], I32),
    },
)
def _collapse(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    return {"out": tf.nn.collapse_repeated(t["labels"], t["len"])}


@add("ctc_unique_labels", {"labels": np.array([[3, 4, 4, 3], [1, 1, 1, 0], [5, 6, 7, 8]], I32)})
def _unique(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    return {"out": tf.nn.ctc_unique_labels(t["labels"])}


# ---- smaller losses and normalisation ----------------------------------------------------------
TARGETS = np.array([[0.0, 0.5, 1.0, 2.0], [3.0, 0.25, 7.0, 1.5]], F32)
LOG_INPUT = values((2, 4), -1, 2, seed=92).astype(F32)


for _full in (False, True):

    @add(
        f"log_poisson_loss_full_{_full}",
        {"targets": TARGETS, "log_input": LOG_INPUT},
        grad=("loss", ("targets", "log_input")),
        **TOL32,
    )
    def _poisson(tf: Any, t: dict[str, Any], full: bool = _full) -> dict[str, Any]:
        loss = tf.nn.log_poisson_loss(t["targets"], t["log_input"], compute_full_loss=full)
        return {"loss": loss}


@add("log_poisson_loss_error_shapes", {"targets": TARGETS, "log_input": LOG_INPUT[:, :3]})
def _poisson_bad(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    return {"loss": tf.nn.log_poisson_loss(t["targets"], t["log_input"])}


IMAGES = values((2, 3, 3, 4), -2, 2, seed=93).astype(F32)
DEPTH = values((4,), 0.5, 1.5, seed=94).astype(F32)
SHIFT = values((4,), -0.5, 0.5, seed=95).astype(F32)

for _scale in (False, True):

    @add(
        f"batch_norm_with_global_normalization_scale_{_scale}",
        {"t": IMAGES, "m": SHIFT, "v": DEPTH, "beta": SHIFT * 2, "gamma": DEPTH * 3},
        grad=("y", ("t", "m", "v", "beta", "gamma")),
        **TOL32,
    )
    def _bn_global(tf: Any, t: dict[str, Any], scale: bool = _scale) -> dict[str, Any]:
        y = tf.nn.batch_norm_with_global_normalization(
            t["t"], t["m"], t["v"], t["beta"], t["gamma"], 0.001, scale
        )
        return {"y": y}


PER_EXAMPLE = values((4, 3), 0, 2, seed=96).astype(F32)


@add("compute_average_loss", {"loss": PER_EXAMPLE}, grad=("avg", ("loss",)), **TOL32)
def _avg(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    return {"avg": tf.nn.compute_average_loss(t["loss"])}


@add(
    "compute_average_loss_weights_batch",
    {"loss": PER_EXAMPLE, "w": np.array([[1.0], [0.5], [2.0], [0.0]], F32)},
    grad=("avg", ("loss", "w")),
    **TOL32,
)
def _avg_weighted(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    avg = tf.nn.compute_average_loss(t["loss"], sample_weight=t["w"], global_batch_size=10)
    return {"avg": avg}


@add(
    "compute_average_loss_vector_weights_float64",
    {"loss": PER_EXAMPLE[:, 0].astype(np.float64), "w": np.array([1.0, 0.5, 2.0, 3.0], np.float64)},
    **TOL32,
)
def _avg_vector(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    return {"avg": tf.nn.compute_average_loss(t["loss"], sample_weight=t["w"])}


@add("compute_average_loss_error_scalar", {"loss": np.float32(2.0)})
def _avg_scalar(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    return {"avg": tf.nn.compute_average_loss(t["loss"])}


@add("scale_regularization_loss", {"r": PER_EXAMPLE}, grad=("s", ("r",)), **TOL32)
def _scale_reg(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    return {"s": tf.nn.scale_regularization_loss(t["r"])}


# ---- morphology --------------------------------------------------------------------------------
MORPH_IMAGE = values((2, 7, 6, 3), -2, 2, seed=97).astype(F32)
MORPH_FILTER = values((3, 2, 3), -1, 1, seed=98).astype(F32)

for _pad in ("SAME", "VALID"):
    for _stride, _rate in (((1, 1), (1, 1)), ((2, 1), (1, 2)), ((1, 2), (2, 1))):
        _tag = f"{_pad}_strides_{_stride[0]}{_stride[1]}_rates_{_rate[0]}{_rate[1]}"

        @add(
            f"dilation2d_{_tag}",
            {"x": MORPH_IMAGE, "f": MORPH_FILTER},
            grad=("y", ("x", "f")),
            **TOL32,
        )
        def _dilation(
            tf: Any, t: dict[str, Any], pad: str = _pad, s: Any = _stride, r: Any = _rate
        ) -> dict[str, Any]:
            y = tf.nn.dilation2d(t["x"], t["f"], [1, s[0], s[1], 1], [1, r[0], r[1], 1], pad)
            return {"y": y}

        @add(
            f"erosion2d_{_tag}",
            {"x": MORPH_IMAGE, "f": MORPH_FILTER},
            grad=("y", ("x", "f")),
            **TOL32,
        )
        def _erosion(
            tf: Any, t: dict[str, Any], pad: str = _pad, s: Any = _stride, r: Any = _rate
        ) -> dict[str, Any]:
            y = tf.nn.erosion2d(t["x"], t["f"], [1, s[0], s[1], 1], [1, r[0], r[1], 1], pad)
            return {"y": y}


@add(
    "dilation2d_ties_float64_named",
    {"x": np.round(MORPH_IMAGE.astype(np.float64) * 2) / 2, "f": np.zeros((2, 2, 3))},
    grad=("y", ("x", "f")),
)
def _dilation_ties(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    y = tf.nn.dilation2d(
        t["x"],
        filters=t["f"],
        strides=[1, 1, 1, 1],
        dilations=[1, 1, 1, 1],
        padding="SAME",
        name="dil",
    )
    return {"y": y}


@add(
    "dilation2d_int32", {"x": (MORPH_IMAGE * 10).astype(I32), "f": (MORPH_FILTER * 10).astype(I32)}
)
def _dilation_int(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    return {"y": tf.nn.dilation2d(t["x"], t["f"], [1, 2, 2, 1], [1, 1, 1, 1], "SAME")}


@add("dilation2d_error_depth", {"x": MORPH_IMAGE, "f": MORPH_FILTER[:, :, :2]})
def _dilation_bad_depth(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    return {"y": tf.nn.dilation2d(t["x"], t["f"], [1, 1, 1, 1], [1, 1, 1, 1], "SAME")}


@add("dilation2d_error_strides", {"x": MORPH_IMAGE, "f": MORPH_FILTER})
def _dilation_bad_strides(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    return {"y": tf.nn.dilation2d(t["x"], t["f"], [1, 1, 1], [1, 1, 1, 1], "SAME")}


@add(
    "dilation2d_error_filter_too_big",
    {"x": MORPH_IMAGE, "f": values((8, 2, 3), seed=99).astype(F32)},
)
def _dilation_too_big(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    return {"y": tf.nn.dilation2d(t["x"], t["f"], [1, 1, 1, 1], [1, 1, 1, 1], "VALID")}


# ---- fractional pooling (deterministic seeds: TF's own pooling sequences) ----------------------
FRAC_IMAGE = values((2, 10, 13, 3), -2, 2, seed=100).astype(F32)

for _op in ("max", "avg"):
    for _pr, _ov, _seeds, _ratio in (
        (False, False, (7, 3), (1.0, 1.44, 1.73, 1.0)),
        (True, False, (1, 0), (1.0, 1.44, 1.73, 1.0)),
        (True, True, (123456789012, 987654321), (1.0, 1.6, 2.5, 1.0)),
        (False, True, (0, 5), (1.0, 2.0, 1.5, 1.0)),
    ):

        @add(
            f"fractional_{_op}_pool_pseudo_{_pr}_overlap_{_ov}_seed_{_seeds[0]}",
            {"x": FRAC_IMAGE},
            grad=("out.0", ("x",)),
            **TOL32,
        )
        def _fractional(
            tf: Any,
            t: dict[str, Any],
            op: str = _op,
            pr: bool = _pr,
            ov: bool = _ov,
            seeds: Any = _seeds,
            ratio: Any = _ratio,
        ) -> dict[str, Any]:
            pool = tf.nn.fractional_max_pool if op == "max" else tf.nn.fractional_avg_pool
            out = pool(
                t["x"],
                list(ratio),
                pseudo_random=pr,
                overlapping=ov,
                deterministic=True,
                seed=seeds[0],
                seed2=seeds[1],
            )
            return {"out": out}


@add(
    "fractional_max_pool_float64_ties",
    {"x": np.round(FRAC_IMAGE.astype(np.float64))},
    grad=("out.0", ("x",)),
)
def _fractional_ties(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    out = tf.nn.fractional_max_pool(
        t["x"], [1.0, 1.3, 1.9, 1.0], overlapping=True, deterministic=True, seed=11, seed2=2
    )
    return {"out": out}


@add("fractional_max_pool_random_shapes", {"x": FRAC_IMAGE}, names=False)
def _fractional_random(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    # Without deterministic seeds the windows differ run to run: only shapes are comparable.
    # (Not tf.shape(rows): TF's shape function says [output rows], one short of the real
    # length, and its graph optimizer folds tf.shape to that; tfcluster says [rows + 1].)
    out, rows, cols = tf.nn.fractional_avg_pool(t["x"], [1.0, 1.44, 1.73, 1.0])
    return {"shapes": [tf.shape(out), rows[-1], cols[-1]]}


@add("fractional_max_pool_error_seed_not_deterministic", {"x": FRAC_IMAGE})
def _fractional_bad_seed(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    return {"out": tf.nn.fractional_max_pool(t["x"], [1.0, 1.5, 1.5, 1.0], seed=3)[0]}
