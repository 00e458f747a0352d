"""tf.metrics programs, written once against the TF1 API and run twice: by record_metrics.py
with TensorFlow (TF 1.15 itself, or tensorflow.compat.v1), and by
tests/unit/test_metrics_reference.py with tfcluster. A metric is built on placeholders,
its local variables initialized, and its update_op run on several batches: each case returns
the update_op's result and the value read after every batch, the value before any update and
after re-initializing, the local/metric variables, collections, ops and errors.

Also the ops metrics build on that are public names: tf.where_v2, tf.sets, tf.confusion_matrix.

Kept runnable on Python 3.7 (TensorFlow 1.15's interpreter) and free of anything but numpy.
"""

from __future__ import annotations

import numpy as np

try:  # imported by the tests (tests/ on the path) or run by a recorder (from this folder)
    from tf_reference.case_tools import devices_of, error_of, names, ops_of, registrar
except ImportError:
    from case_tools import devices_of, error_of, names, ops_of, registrar

CASES = {}


case = registrar(CASES)


_rng = np.random.RandomState(1115)
N = 8
BATCHES = 3
CLASS_LABELS = _rng.randint(0, 3, size=(BATCHES, N)).astype(np.int64)
CLASS_PREDS = np.where(
    _rng.uniform(size=(BATCHES, N)) < 0.6, CLASS_LABELS, _rng.randint(0, 3, size=(BATCHES, N))
).astype(np.int64)
BOOL_LABELS = _rng.uniform(size=(BATCHES, N)) > 0.5
PROBS = np.clip(BOOL_LABELS * 0.3 + _rng.uniform(0.0, 0.7, size=(BATCHES, N)), 0.0, 1.0).astype(
    np.float32
)
BOOL_PREDS = PROBS > 0.5
WEIGHTS = _rng.choice([0.0, 0.5, 1.0, 2.0], size=(BATCHES, N)).astype(np.float32)
REGR_LABELS = _rng.normal(size=(BATCHES, N, 3)).astype(np.float32)
REGR_PREDS = (REGR_LABELS + _rng.normal(0, 0.5, size=(BATCHES, N, 3))).astype(np.float32)
ROW_WEIGHTS = _rng.choice([0.0, 1.0, 3.0], size=(BATCHES, N, 1)).astype(np.float32)
_u = _rng.normal(size=(BATCHES, N, 3))
UNIT_A = (_u / np.linalg.norm(_u, axis=2, keepdims=True)).astype(np.float32)
_u = _rng.normal(size=(BATCHES, N, 3))
UNIT_B = (_u / np.linalg.norm(_u, axis=2, keepdims=True)).astype(np.float32)
NORMALIZER = _rng.choice([0.0, 0.5, 2.0], size=(BATCHES, N, 3)).astype(np.float32)
SCORES = _rng.normal(size=(BATCHES, N, 5)).astype(np.float32)
TOPK_LABELS = _rng.randint(0, 5, size=(BATCHES, N)).astype(np.int64)


def _stream(tf, build, inputs):
    """Builds the metric on placeholders shaped like one batch of each input, then runs: the
    value before any update; per batch, the update_op and the value after it; the value after
    local_variables_initializer again."""
    g = tf.Graph()
    with g.as_default():
        holders = {}
        for key, data in sorted(inputs.items()):
            holders[key] = tf.placeholder(tf.as_dtype(data.dtype), data.shape[1:], name=key)
        value, update = build(tf, holders)
        ops = ops_of(g)
        init = tf.local_variables_initializer()
        out = {
            "ops": ops,
            "names": [value.name, update.name],
            "shapes": [value.shape.as_list(), update.shape.as_list()],
            "dtypes": [value.dtype.name, update.dtype.name],
            "local": names(tf.local_variables()),
            "metric": names(tf.get_collection(tf.GraphKeys.METRIC_VARIABLES)),
            "global": names(tf.global_variables()),
            "trainable": names(tf.trainable_variables()),
            "local_shapes": [v.shape.as_list() for v in tf.local_variables()],
        }
        updates, values = [], []
        with tf.Session() as sess:
            sess.run(init)
            out["initial"] = sess.run(value)
            for b in range(BATCHES):
                feed = {holders[k]: inputs[k][b] for k in holders}
                updates.append(sess.run(update, feed))
                values.append(sess.run(value))
            out["state"] = sess.run(tf.local_variables())
            sess.run(init)
            out["reset"] = sess.run(value)
        out["updates"] = updates
        out["values"] = values
        return out


def _streaming_case(name, build, inputs):
    CASES[name] = lambda tf: _stream(tf, build, inputs)


M = "tf.metrics"

# ---- means ----------------------------------------------------------------------------------
_streaming_case(
    "accuracy",
    lambda tf, h: tf.metrics.accuracy(h["labels"], h["preds"]),
    {"labels": CLASS_LABELS, "preds": CLASS_PREDS},
)
_streaming_case(
    "accuracy_weighted_named",
    lambda tf, h: tf.metrics.accuracy(
        h["labels"], h["preds"], weights=h["weights"], name="my_accuracy"
    ),
    {"labels": CLASS_LABELS, "preds": CLASS_PREDS, "weights": WEIGHTS},
)
_streaming_case(
    "accuracy_labels_with_trailing_1",
    lambda tf, h: tf.metrics.accuracy(h["labels"], h["preds"], weights=h["weights"]),
    {"labels": CLASS_LABELS[..., None], "preds": CLASS_PREDS, "weights": WEIGHTS[..., None]},
)
_streaming_case(
    "accuracy_int32_predictions",
    lambda tf, h: tf.metrics.accuracy(h["labels"], h["preds"]),
    {"labels": CLASS_LABELS, "preds": CLASS_PREDS.astype(np.int32)},
)
_streaming_case(
    "mean_unweighted",
    lambda tf, h: tf.metrics.mean(h["values"]),
    {"values": REGR_LABELS},
)
_streaming_case(
    "mean_row_weights",
    lambda tf, h: tf.metrics.mean(h["values"], weights=h["weights"]),
    {"values": REGR_LABELS, "weights": ROW_WEIGHTS},
)
_streaming_case(
    "mean_full_weights_float64",
    lambda tf, h: tf.metrics.mean(h["values"], weights=h["weights"]),
    {"values": REGR_LABELS[..., 0].astype(np.float64), "weights": WEIGHTS},
)
_streaming_case(
    "mean_scalar_weight",
    lambda tf, h: tf.metrics.mean(h["values"], weights=2.0),
    {"values": REGR_LABELS},
)
_streaming_case(
    "mean_tensor",
    lambda tf, h: tf.metrics.mean_tensor(h["values"]),
    {"values": REGR_LABELS},
)
_streaming_case(
    "mean_tensor_weighted",
    lambda tf, h: tf.metrics.mean_tensor(h["values"], weights=h["weights"]),
    {"values": REGR_LABELS, "weights": ROW_WEIGHTS},
)
_streaming_case(
    "mean_absolute_error",
    lambda tf, h: tf.metrics.mean_absolute_error(h["labels"], h["preds"]),
    {"labels": REGR_LABELS, "preds": REGR_PREDS},
)
_streaming_case(
    "mean_squared_error_weighted",
    lambda tf, h: tf.metrics.mean_squared_error(h["labels"], h["preds"], weights=h["weights"]),
    {"labels": REGR_LABELS, "preds": REGR_PREDS, "weights": ROW_WEIGHTS},
)
_streaming_case(
    "root_mean_squared_error",
    lambda tf, h: tf.metrics.root_mean_squared_error(h["labels"], h["preds"]),
    {"labels": REGR_LABELS, "preds": REGR_PREDS},
)
_streaming_case(
    "mean_relative_error",
    lambda tf, h: tf.metrics.mean_relative_error(h["labels"], h["preds"], h["normalizer"]),
    {"labels": REGR_LABELS, "preds": REGR_PREDS, "normalizer": NORMALIZER},
)
_streaming_case(
    "mean_cosine_distance",
    lambda tf, h: tf.metrics.mean_cosine_distance(h["labels"], h["preds"], dim=1),
    {"labels": UNIT_A, "preds": UNIT_B},
)
_streaming_case(
    "mean_cosine_distance_weighted",
    lambda tf, h: tf.metrics.mean_cosine_distance(
        h["labels"], h["preds"], dim=1, weights=h["weights"]
    ),
    {"labels": UNIT_A, "preds": UNIT_B, "weights": ROW_WEIGHTS},
)
_streaming_case(
    "percentage_below",
    lambda tf, h: tf.metrics.percentage_below(h["values"], threshold=0.25),
    {"values": REGR_LABELS},
)

# ---- counts, precision, recall ----------------------------------------------------------------
for _metric in ("true_positives", "false_positives", "true_negatives", "false_negatives"):
    _streaming_case(
        _metric,
        lambda tf, h, m=_metric: getattr(tf.metrics, m)(h["labels"], h["preds"]),
        {"labels": BOOL_LABELS, "preds": BOOL_PREDS},
    )
    _streaming_case(
        _metric + "_weighted",
        lambda tf, h, m=_metric: getattr(tf.metrics, m)(
            h["labels"], h["preds"], weights=h["weights"]
        ),
        {"labels": BOOL_LABELS, "preds": BOOL_PREDS, "weights": WEIGHTS},
    )
    _streaming_case(
        _metric + "_at_thresholds",
        lambda tf, h, m=_metric: getattr(tf.metrics, m + "_at_thresholds")(
            h["labels"], h["probs"], thresholds=[0.25, 0.5, 0.75]
        ),
        {"labels": BOOL_LABELS, "probs": PROBS},
    )
_streaming_case(
    "true_positives_at_thresholds_weighted",
    lambda tf, h: tf.metrics.true_positives_at_thresholds(
        h["labels"], h["probs"], thresholds=[0.1, 0.6], weights=h["weights"]
    ),
    {"labels": BOOL_LABELS, "probs": PROBS, "weights": WEIGHTS},
)
_streaming_case(
    "true_positives_int_inputs",
    lambda tf, h: tf.metrics.true_positives(h["labels"], h["preds"]),
    {"labels": BOOL_LABELS.astype(np.int64), "preds": BOOL_PREDS.astype(np.int32)},
)
_streaming_case(
    "precision",
    lambda tf, h: tf.metrics.precision(h["labels"], h["preds"]),
    {"labels": BOOL_LABELS, "preds": BOOL_PREDS},
)
_streaming_case(
    "precision_weighted",
    lambda tf, h: tf.metrics.precision(h["labels"], h["preds"], weights=h["weights"]),
    {"labels": BOOL_LABELS, "preds": BOOL_PREDS, "weights": WEIGHTS},
)
_streaming_case(
    "recall",
    lambda tf, h: tf.metrics.recall(h["labels"], h["preds"]),
    {"labels": BOOL_LABELS, "preds": BOOL_PREDS},
)
_streaming_case(
    "recall_weighted_named",
    lambda tf, h: tf.metrics.recall(h["labels"], h["preds"], weights=h["weights"], name="rec"),
    {"labels": BOOL_LABELS, "preds": BOOL_PREDS, "weights": WEIGHTS},
)
_streaming_case(
    "precision_at_thresholds",
    lambda tf, h: tf.metrics.precision_at_thresholds(
        h["labels"], h["probs"], thresholds=[0.2, 0.5, 0.9]
    ),
    {"labels": BOOL_LABELS, "probs": PROBS},
)
_streaming_case(
    "recall_at_thresholds_weighted",
    lambda tf, h: tf.metrics.recall_at_thresholds(
        h["labels"], h["probs"], thresholds=[0.2, 0.5, 0.9], weights=h["weights"]
    ),
    {"labels": BOOL_LABELS, "probs": PROBS, "weights": WEIGHTS},
)

# ---- auc and the curves ---------------------------------------------------------------------
for _curve in ("ROC", "PR"):
    for _method in ("trapezoidal", "careful_interpolation", "minoring", "majoring"):
        _streaming_case(
            f"auc_{_curve.lower()}_{_method}",
            lambda tf, h, c=_curve, m=_method: tf.metrics.auc(
                h["labels"], h["probs"], curve=c, summation_method=m, num_thresholds=21
            ),
            {"labels": BOOL_LABELS, "probs": PROBS},
        )
_streaming_case(
    "auc_default",
    lambda tf, h: tf.metrics.auc(h["labels"], h["probs"]),
    {"labels": BOOL_LABELS, "probs": PROBS},
)
_streaming_case(
    "auc_weighted_thresholds",
    lambda tf, h: tf.metrics.auc(
        h["labels"], h["probs"], weights=h["weights"], thresholds=[0.7, 0.3, 0.5]
    ),
    {"labels": BOOL_LABELS, "probs": PROBS, "weights": WEIGHTS},
)
_streaming_case(
    "auc_float64_predictions",
    lambda tf, h: tf.metrics.auc(h["labels"], h["probs"], num_thresholds=7),
    {"labels": BOOL_LABELS.astype(np.int32), "probs": PROBS.astype(np.float64)},
)
_streaming_case(
    "sensitivity_at_specificity",
    lambda tf, h: tf.metrics.sensitivity_at_specificity(
        h["labels"], h["probs"], specificity=0.6, num_thresholds=51
    ),
    {"labels": BOOL_LABELS, "probs": PROBS},
)
_streaming_case(
    "specificity_at_sensitivity_weighted",
    lambda tf, h: tf.metrics.specificity_at_sensitivity(
        h["labels"], h["probs"], sensitivity=0.7, weights=h["weights"], num_thresholds=51
    ),
    {"labels": BOOL_LABELS, "probs": PROBS, "weights": WEIGHTS},
)

# ---- confusion-matrix metrics -----------------------------------------------------------------
_streaming_case(
    "mean_iou",
    lambda tf, h: tf.metrics.mean_iou(h["labels"], h["preds"], num_classes=4),
    {"labels": CLASS_LABELS, "preds": CLASS_PREDS},
)
_streaming_case(
    "mean_iou_weighted_2d",
    lambda tf, h: tf.metrics.mean_iou(h["labels"], h["preds"], num_classes=3, weights=h["weights"]),
    {
        "labels": CLASS_LABELS.reshape(BATCHES, 2, 4),
        "preds": CLASS_PREDS.reshape(BATCHES, 2, 4).astype(np.int32),
        "weights": WEIGHTS.reshape(BATCHES, 2, 4),
    },
)


# ---- top k and per-class metrics (they need tf.nn.top_k, dynamic_stitch, scatter_add) -----
TOPK_LABELS_2 = np.stack([TOPK_LABELS, (TOPK_LABELS + 2) % 7], axis=-1)  # 5, 6: not a class
TOPK_IDX = np.argsort(-SCORES, axis=-1)[..., :3].astype(np.int32)
for _k in (1, 3):
    _streaming_case(
        f"at_k_precision_at_{_k}",
        lambda tf, h, k=_k: tf.metrics.precision_at_k(h["labels"], h["scores"], k=k),
        {"labels": TOPK_LABELS, "scores": SCORES},
    )
    _streaming_case(
        f"at_k_recall_at_{_k}",
        lambda tf, h, k=_k: tf.metrics.recall_at_k(h["labels"], h["scores"], k=k),
        {"labels": TOPK_LABELS, "scores": SCORES},
    )
    _streaming_case(
        f"at_k_average_precision_at_{_k}",
        lambda tf, h, k=_k: tf.metrics.average_precision_at_k(h["labels"], h["scores"], k=k),
        {"labels": TOPK_LABELS_2, "scores": SCORES},
    )
_streaming_case(
    "at_k_precision_at_k_class_id_weighted",
    lambda tf, h: tf.metrics.precision_at_k(
        h["labels"], h["scores"], k=2, class_id=3, weights=h["weights"]
    ),
    {"labels": TOPK_LABELS, "scores": SCORES, "weights": WEIGHTS},
)
_streaming_case(
    "at_k_recall_at_k_multi_label_class_id",
    lambda tf, h: tf.metrics.recall_at_k(h["labels"], h["scores"], k=2, class_id=1),
    {"labels": TOPK_LABELS_2, "scores": SCORES},
)
_streaming_case(
    "at_k_sparse_precision_at_k",
    lambda tf, h: tf.metrics.sparse_precision_at_k(h["labels"], h["scores"], k=2),
    {"labels": TOPK_LABELS_2, "scores": SCORES},
)
_streaming_case(
    "at_k_precision_at_top_k",
    lambda tf, h: tf.metrics.precision_at_top_k(h["labels"], h["idx"], k=3),
    {"labels": TOPK_LABELS, "idx": TOPK_IDX},
)
_streaming_case(
    "at_k_recall_at_top_k_weighted",
    lambda tf, h: tf.metrics.recall_at_top_k(h["labels"], h["idx"], weights=h["weights"]),
    {"labels": TOPK_LABELS_2, "idx": TOPK_IDX, "weights": WEIGHTS},
)
_streaming_case(
    "at_k_sparse_average_precision_at_k_weighted",
    lambda tf, h: tf.metrics.sparse_average_precision_at_k(
        h["labels"], h["scores"], k=4, weights=h["weights"]
    ),
    {"labels": TOPK_LABELS, "scores": SCORES, "weights": WEIGHTS},
)
_streaming_case(
    "mean_per_class_accuracy",
    lambda tf, h: tf.metrics.mean_per_class_accuracy(h["labels"], h["preds"], num_classes=3),
    {"labels": CLASS_LABELS, "preds": CLASS_PREDS},
)
_streaming_case(
    "mean_per_class_accuracy_weighted_2d",
    lambda tf, h: tf.metrics.mean_per_class_accuracy(
        h["labels"], h["preds"], num_classes=4, weights=h["weights"]
    ),
    {
        "labels": CLASS_LABELS.reshape(BATCHES, 2, 4),
        "preds": CLASS_PREDS.reshape(BATCHES, 2, 4),
        "weights": WEIGHTS.reshape(BATCHES, 2, 4),
    },
)


def _sparse_labels(batch):
    """Each row's labels (TOPK_LABELS_2 without the out-of-range 5s and 6s), sparse."""
    indices, values = [], []
    for row, labels in enumerate(TOPK_LABELS_2[batch]):
        kept = sorted(set(int(v) for v in labels if v < 5))
        for j, v in enumerate(kept):
            indices.append([row, j])
            values.append(v)
    return np.array(indices, np.int64), np.array(values, np.int64), np.array([N, 2], np.int64)


@case
def at_k_sparse_labels(tf):
    g = tf.Graph()
    with g.as_default():
        ind = tf.placeholder(tf.int64, [None, 2])
        val = tf.placeholder(tf.int64, [None])
        shape = tf.placeholder(tf.int64, [2])
        scores = tf.placeholder(tf.float32, [N, 5])
        labels = tf.SparseTensor(ind, val, shape)
        metrics = {
            "precision": tf.metrics.precision_at_k(labels, scores, k=2),
            "recall": tf.metrics.recall_at_k(labels, scores, k=2, class_id=2),
            "average_precision": tf.metrics.average_precision_at_k(labels, scores, k=3),
        }
        ops = ops_of(g)
        out = {"ops": ops, "updates": [], "local": names(tf.local_variables())}
        with tf.Session() as sess:
            sess.run(tf.local_variables_initializer())
            for b in range(BATCHES):
                i, v, sh = _sparse_labels(b)
                feed = {ind: i, val: v, shape: sh, scores: SCORES[b]}
                out["updates"].append(sess.run({k: m[1] for k, m in metrics.items()}, feed))
            out["values"] = sess.run({k: m[0] for k, m in metrics.items()})
        return out


@case
def at_k_errors(tf):
    g = tf.Graph()
    with g.as_default():
        scores = tf.constant(SCORES[0])
        return {
            "average_precision_k0": error_of(
                lambda: tf.metrics.average_precision_at_k(TOPK_LABELS[0], scores, k=0)
            ),
            "labels_rank": error_of(
                lambda: tf.metrics.precision_at_top_k(
                    np.zeros((N, 2, 2), np.int64), tf.constant(TOPK_IDX[0])
                )
            ),
            "per_class_shapes": error_of(
                lambda: tf.metrics.mean_per_class_accuracy(
                    tf.constant([1, 2]), tf.constant([1, 2, 3]), 4
                )
            ),
        }


@case
def python_list_inputs(tf):
    """Metrics given Python lists where TF 1.15 reads a tensor attribute of them first: the
    AttributeError names the attribute TF reads (get_shape, dtype)."""
    g = tf.Graph()
    with g.as_default():
        return {
            "mean_iou": error_of(lambda: tf.metrics.mean_iou([1, 0], [1, 1], 2)),
            "mean_per_class_accuracy": error_of(
                lambda: tf.metrics.mean_per_class_accuracy([1, 0], [1, 1], 2)
            ),
            "auc": error_of(lambda: tf.metrics.auc([1, 0], [0.8, 0.3])),
        }


# ---- collections, names, devices, errors --------------------------------------------------------
@case
def collections_and_names(tf):
    g = tf.Graph()
    with g.as_default():
        labels = tf.placeholder(tf.int64, [None], name="labels")
        preds = tf.placeholder(tf.int64, [None], name="preds")
        acc = tf.metrics.accuracy(
            labels, preds, metrics_collections=["my_metrics"], updates_collections=["my_updates"]
        )
        acc2 = tf.metrics.accuracy(labels, preds, updates_collections=tf.GraphKeys.UPDATE_OPS)
        with tf.variable_scope("eval"):
            prec = tf.metrics.precision(labels, preds, metrics_collections="my_metrics", name="p")
            mae = tf.metrics.mean_absolute_error(
                tf.cast(labels, tf.float32), tf.cast(preds, tf.float32)
            )
        with tf.name_scope("tower"):
            auc = tf.metrics.auc(tf.cast(labels, tf.bool), tf.cast(preds, tf.float32) / 3.0)
        cos = tf.metrics.mean_cosine_distance(
            tf.ones([2, 3]),
            tf.ones([2, 3]),
            dim=1,
            metrics_collections=["cos"],
            updates_collections=["cos_up"],
        )
        rmse = tf.metrics.root_mean_squared_error(
            tf.ones([2]), tf.zeros([2]), metrics_collections=["rmse"]
        )
        return {
            "names": [[t.name for t in pair] for pair in (acc, acc2, prec, mae, auc, cos, rmse)],
            "my_metrics": names(tf.get_collection("my_metrics")),
            "my_updates": names(tf.get_collection("my_updates")),
            "update_ops": names(tf.get_collection(tf.GraphKeys.UPDATE_OPS)),
            "cos": names(tf.get_collection("cos") + tf.get_collection("cos_up")),
            "rmse": names(tf.get_collection("rmse")),
            "local": names(tf.local_variables()),
            "metric": names(tf.get_collection(tf.GraphKeys.METRIC_VARIABLES)),
            "global": names(tf.global_variables()),
        }


@case
def placement_under_replica_device_setter(tf):
    """Where TF puts metric variables and their ops under replica_device_setter (round robin
    over the ps tasks, shared with the model's variables, as for any variable)."""
    g = tf.Graph()
    with g.as_default():
        setter = tf.train.replica_device_setter(ps_tasks=2, worker_device="/job:worker/task:0")
        with tf.device(setter):
            x = tf.placeholder(tf.float32, [None, 3], name="x")
            y = tf.placeholder(tf.int64, [None], name="y")
            w = tf.get_variable("w", [3, 3])
            logits = tf.matmul(x, w)
            loss = tf.losses.sparse_softmax_cross_entropy(y, logits)
            acc = tf.metrics.accuracy(y, tf.argmax(logits, 1))
            auc = tf.metrics.auc(tf.cast(y, tf.bool), tf.sigmoid(logits[:, 0]), num_thresholds=5)
            mse = tf.metrics.mean_squared_error(tf.cast(y, tf.float32), logits[:, 1])
        variables = tf.global_variables() + tf.local_variables()
        return {
            "ops": ops_of(g),
            "variables": [[v.name, v.device] for v in variables],
            "devices": devices_of(g),
            "outputs": [[t.name, t.device] for t in (loss, *acc, *auc, *mse)],
        }


@case
def errors(tf):
    g = tf.Graph()
    with g.as_default():
        labels = tf.constant([1, 2, 3], tf.int64)
        probs = tf.constant([0.1, 0.9, 0.4])
        blabels = tf.constant([True, False, True])
        out = {
            "accuracy_shapes": error_of(
                lambda: tf.metrics.accuracy(labels, tf.constant([1, 2], tf.int64))
            ),
            "accuracy_weights": error_of(
                lambda: tf.metrics.accuracy(labels, labels, weights=tf.ones([2]))
            ),
            "mean_weights": error_of(
                lambda: tf.metrics.mean(tf.ones([2, 3]), weights=tf.ones([2, 2]))
            ),
            "auc_curve": error_of(lambda: tf.metrics.auc(blabels, probs, curve="XY")),
            "auc_method": error_of(
                lambda: tf.metrics.auc(blabels, probs, summation_method="simpson")
            ),
            "specificity_range": error_of(
                lambda: tf.metrics.sensitivity_at_specificity(blabels, probs, specificity=1.5)
            ),
            "sensitivity_range": error_of(
                lambda: tf.metrics.specificity_at_sensitivity(blabels, probs, sensitivity=-0.1)
            ),
            "true_positives_weights_rank": error_of(
                lambda: tf.metrics.true_positives(blabels, blabels, weights=tf.ones([3, 1, 1]))
            ),
            "mean_iou_shapes": error_of(
                lambda: tf.metrics.mean_iou(labels, tf.constant([[1, 2, 3]], tf.int64), 4)
            ),
        }
        p = tf.placeholder(tf.float32, [3])
        _auc_value, auc_update = tf.metrics.auc(blabels, p)
        ids = tf.placeholder(tf.int64, [3])
        iou_value, iou_update = tf.metrics.mean_iou(labels, ids, num_classes=4)
        with tf.Session() as sess:
            sess.run(tf.local_variables_initializer())
            out["auc_out_of_range"] = error_of(lambda: sess.run(auc_update, {p: [0.5, 1.5, 0.2]}))
            out["auc_after_error"] = sess.run(auc_update, {p: [0.5, 0.7, 0.2]})
            out["iou_out_of_range"] = error_of(lambda: sess.run(iou_update, {ids: [0, 5, 1]}))
            out["iou_negative"] = error_of(lambda: sess.run(iou_update, {ids: [0, -1, 1]}))
            out["iou_after_error"] = [sess.run(iou_update, {ids: [0, 2, 3]}), sess.run(iou_value)]
        return out


@case
def dynamic_shapes(tf):
    """Placeholders of unknown shape: squeezing and weight broadcasting decided at run time."""
    g = tf.Graph()
    with g.as_default():
        labels = tf.placeholder(tf.int64, None, name="labels")
        preds = tf.placeholder(tf.int64, None, name="preds")
        weights = tf.placeholder(tf.float32, None, name="weights")
        values = tf.placeholder(tf.float32, None, name="values")
        acc = tf.metrics.accuracy(labels, preds, weights=weights)
        mean = tf.metrics.mean(values, weights=weights)
        ops = ops_of(g)
        with tf.Session() as sess:
            sess.run(tf.local_variables_initializer())
            feeds = [
                {labels: [1, 2, 3], preds: [1, 0, 3], weights: [1.0, 2.0, 0.5], values: [1, 2, 3]},
                {labels: [[1], [2]], preds: [1, 2], weights: 3.0, values: [[1.0], [5.0]]},
                {labels: [2, 2], preds: [[2], [1]], weights: [[1.0], [4.0]], values: [3.0, 4.0]},
            ]
            results = [sess.run([acc[1], mean[1]], f) for f in feeds]
            results.append(sess.run([acc[0], mean[0]]))
            bad = error_of(
                lambda: sess.run(
                    mean[1], {values: [1.0, 2.0, 3.0], weights: [1.0, 2.0], labels: 1, preds: 1}
                )
            )
        return {"results": results, "ops": ops, "bad_weights": {"error": bad["error"]}}


@case
def streaming_read_order(tf):
    """update_op gives the value with this batch counted; the value tensor reads the
    variables as they are; fetching both in one run is TF's race (not compared); a value
    fetched alone after an update matches the update's result."""
    g = tf.Graph()
    with g.as_default():
        labels = tf.placeholder(tf.int64, [None])
        preds = tf.placeholder(tf.int64, [None])
        value, update = tf.metrics.accuracy(labels, preds)
        total, count = tf.local_variables()
        with tf.Session() as sess:
            sess.run(tf.local_variables_initializer())
            before = sess.run([value, total, count])
            u1 = sess.run(update, {labels: [1, 2, 3, 4], preds: [1, 2, 0, 0]})
            v1 = sess.run(value)
            u2 = sess.run(update, {labels: [1, 1], preds: [1, 1]})
            state = sess.run([total, count])
            v2 = [sess.run(value) for _ in range(3)]
            sess.run(tf.variables_initializer([total, count]))
            reset = sess.run(value)
        return {
            "before": before,
            "u1": u1,
            "v1": v1,
            "u2": u2,
            "state": state,
            "v2": v2,
            "reset": reset,
        }


@case
def evaluating_a_trained_model(tf):
    """A logistic regression trained with tf.losses, evaluated with tf.metrics over batches
    (accuracy, auc, precision, recall), as TF1 programs do."""
    rng = np.random.RandomState(7)
    x_all = rng.normal(size=(64, 4)).astype(np.float32)
    w_true = np.array([[1.5], [-2.0], [0.5], [0.0]], np.float32)
    y_all = ((x_all @ w_true)[:, 0] + rng.normal(0, 0.5, 64) > 0).astype(np.int64)
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [None, 4])
        y = tf.placeholder(tf.int64, [None])
        w = tf.get_variable("w", [4, 2], initializer=tf.zeros_initializer())
        b = tf.get_variable("b", [2], initializer=tf.zeros_initializer())
        logits = tf.matmul(x, w) + b
        loss = tf.losses.sparse_softmax_cross_entropy(y, logits)
        train = tf.train.GradientDescentOptimizer(0.5).minimize(loss)
        pred = tf.argmax(logits, 1)
        prob = tf.nn.softmax(logits)[:, 1]
        acc, acc_up = tf.metrics.accuracy(y, pred)
        auc, auc_up = tf.metrics.auc(y, prob)
        prec, prec_up = tf.metrics.precision(y, pred)
        rec, rec_up = tf.metrics.recall(y, pred)
        updates = tf.group(acc_up, auc_up, prec_up, rec_up)
        losses = []
        with tf.Session() as sess:
            sess.run([tf.global_variables_initializer(), tf.local_variables_initializer()])
            for step in range(20):
                lo = (step * 16) % 64
                losses.append(
                    sess.run([loss, train], {x: x_all[lo : lo + 16], y: y_all[lo : lo + 16]})[0]
                )
            for lo in range(0, 64, 16):
                sess.run(updates, {x: x_all[lo : lo + 16], y: y_all[lo : lo + 16]})
            final = sess.run([acc, auc, prec, rec])
        return {"losses": np.array(losses), "metrics": np.array(final)}


# ---- the ops metrics build on ------------------------------------------------------------
@case
def op_where_v2(tf):
    g = tf.Graph()
    with g.as_default():
        c = tf.constant([[True, False, True], [False, False, True]])
        x = tf.constant([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
        out = [
            tf.where_v2(c, x, 0.0),
            tf.where_v2(tf.constant([True, False, True]), x, tf.constant([[10.0], [20.0]])),
            tf.where_v2(tf.constant(False), x, -x),
            tf.where_v2(c),
        ]
        grad = tf.gradients(tf.reduce_sum(out[1] * tf.constant([[1.0, 2.0, 3.0]])), x)[0]
        with tf.Session() as sess:
            values = sess.run([*out, grad])
        return {
            "values": values,
            "shapes": [t.shape.as_list() for t in out],
            "ops": ops_of(g, "SelectV2"),
        }


@case
def op_sets(tf):
    g = tf.Graph()
    with g.as_default():
        a = tf.constant([[[1, 2, 2, 5], [3, 3, 3, 3]], [[7, 1, 0, 0], [9, 8, 7, 6]]], tf.int64)
        b = tf.constant([[[2, 5], [3, 4]], [[0, 0], [1, 1]]], tf.int64)
        sb = tf.SparseTensor(
            [[0, 0, 0], [0, 0, 1], [0, 1, 0], [1, 1, 0], [1, 1, 3]],
            tf.constant([2, 9, 3, 6, 7], tf.int64),
            [2, 2, 5],
        )
        results = {
            "intersection": tf.sets.set_intersection(a, b),
            "difference": tf.sets.set_difference(a, b),
            "difference_b_a": tf.sets.set_difference(a, b, aminusb=False),
            "union": tf.sets.set_union(a, b),
            "sparse_intersection": tf.sets.set_intersection(a, sb),
            "sparse_difference": tf.sets.set_difference(a, sb),
            "sparse_first": tf.sets.set_difference(sb, a),
            "sparse_sparse": tf.sets.set_union(sb, sb),
            "strings": tf.sets.set_union(
                tf.constant([["b", "a"], ["c", "c"]]), tf.constant([["a", "z"], ["a", "c"]])
            ),
            "empty": tf.sets.set_intersection(tf.constant([[1, 2]]), tf.constant([[3, 4]])),
        }
        sizes = {
            "size": tf.sets.set_size(sb),
            "size_2d": tf.sets.set_size(
                tf.SparseTensor([[0, 0], [0, 1], [2, 0]], [1, 1, 5], [4, 3])
            ),
        }
        with tf.Session() as sess:
            values = sess.run(results)
            size_values = sess.run(sizes)
        out = {k: [v.indices, v.values, v.dense_shape] for k, v in values.items()}
        out.update(size_values)
        out["errors"] = {
            "float": error_of(
                lambda: tf.sets.set_union(tf.constant([[1.0]]), tf.constant([[1.0]]))
            ),
            "mixed": error_of(
                lambda: tf.sets.set_union(tf.constant([[1]]), tf.constant([[1]], tf.int64))
            ),
            "dense_size": error_of(lambda: tf.sets.set_size(tf.constant([[1, 2]]))),
        }
        return out


@case
def op_confusion_matrix(tf):
    g = tf.Graph()
    with g.as_default():
        labels = tf.constant([1, 2, 4, 0, 2])
        preds = tf.constant([2, 2, 4, 0, 1])
        cm = tf.confusion_matrix(labels, preds)
        cm5 = tf.confusion_matrix(
            labels,
            preds,
            num_classes=6,
            dtype=tf.float32,
            weights=[1.0, 2.0, 0.5, 1.0, 3.0],
            name="cm",
        )
        ops = ops_of(g)
        p = tf.placeholder(tf.int32, [5])
        bad = tf.confusion_matrix(labels, p, num_classes=5)
        with tf.Session() as sess:
            values = sess.run([cm, cm5])
            out_of_bound = error_of(lambda: sess.run(bad, {p: [0, 1, 7, 1, 1]}))
            negative = error_of(lambda: sess.run(bad, {p: [0, 1, -1, 1, 1]}))
        return {
            "values": values,
            "ops": ops,
            "out_of_bound": {"error": out_of_bound["error"]},
            "negative": {"error": negative["error"]},
        }
