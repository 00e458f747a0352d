"""tf.losses programs, written once against the TF1 API and run twice: by record_losses.py with
TensorFlow (`tf` is tensorflow.compat.v1, or TF 1.15 itself), and by
tests/unit/test_losses_reference.py with tfcluster. Each case builds its own graph and returns
plain data (loss values, gradients, op names, collections, errors) that the test compares
with what TensorFlow returned.

Kept runnable on Python 3.7 (TensorFlow 1.15's interpreter) and free of anything but numpy.
"""

from __future__ import annotations

import numpy as np

try:  # imported by the tests (tests/ on the path) or run by a recorder (from this folder)
    from tf_reference.case_tools import error_of, names, ops_of, registrar
except ImportError:
    from case_tools import error_of, names, ops_of, registrar

CASES = {}


case = registrar(CASES)


_rng = np.random.RandomState(15)
PRED = _rng.uniform(0.05, 0.95, size=(4, 3)).astype(np.float32)
REGR_LABELS = _rng.uniform(-1.0, 2.0, size=(4, 3)).astype(np.float32)
BIN_LABELS = (_rng.uniform(size=(4, 3)) > 0.5).astype(np.float32)
LOGITS = _rng.normal(0.0, 2.0, size=(4, 3)).astype(np.float32)
CLASS_IDS = np.array([2, 0, 1, 2], dtype=np.int32)
ONEHOT = np.eye(3, dtype=np.float32)[CLASS_IDS]
_unit = _rng.normal(size=(4, 3))
UNIT_A = (_unit / np.linalg.norm(_unit, axis=1, keepdims=True)).astype(np.float32)
_unit = _rng.normal(size=(4, 3))
UNIT_B = (_unit / np.linalg.norm(_unit, axis=1, keepdims=True)).astype(np.float32)
FULL_WEIGHTS = np.array(
    [[1.0, 0.0, 2.0], [0.5, 0.5, 0.0], [0.0, 0.0, 0.0], [3.0, 1.0, 1.0]], dtype=np.float32
)
ROW_WEIGHTS = np.array([[2.0], [0.0], [1.0], [0.5]], dtype=np.float32)

REDUCTIONS = [
    "NONE",
    "SUM",
    "MEAN",
    "SUM_OVER_BATCH_SIZE",
    "SUM_BY_NONZERO_WEIGHTS",
    "SUM_OVER_NONZERO_WEIGHTS",
]


def _loss_call(tf, loss, pred, kwargs):
    """The loss `loss` of the predictions/logits `pred` (a tensor) on fixed labels."""
    L = tf.losses
    if loss == "absolute_difference":
        return L.absolute_difference(REGR_LABELS, pred, **kwargs)
    if loss == "mean_squared_error":
        return L.mean_squared_error(REGR_LABELS, pred, **kwargs)
    if loss == "huber_loss":
        return L.huber_loss(REGR_LABELS, pred, delta=0.6, **kwargs)
    if loss == "log_loss":
        return L.log_loss(BIN_LABELS, pred, **kwargs)
    if loss == "hinge_loss":
        return L.hinge_loss(BIN_LABELS, pred, **kwargs)
    if loss == "sigmoid_cross_entropy":
        return L.sigmoid_cross_entropy(BIN_LABELS, pred, **kwargs)
    if loss == "softmax_cross_entropy":
        return L.softmax_cross_entropy(ONEHOT, pred, **kwargs)
    if loss == "sparse_softmax_cross_entropy":
        return L.sparse_softmax_cross_entropy(CLASS_IDS, pred, **kwargs)
    if loss == "cosine_distance":
        return L.cosine_distance(UNIT_A, pred, axis=1, **kwargs)
    if loss == "mean_pairwise_squared_error":
        kwargs.pop("reduction", None)
        return L.mean_pairwise_squared_error(REGR_LABELS, pred, **kwargs)
    raise KeyError(loss)


# What each loss is given as predictions, and the weights it accepts besides scalars.
INPUTS = {
    "absolute_difference": (PRED, {"row": ROW_WEIGHTS, "full": FULL_WEIGHTS}),
    "mean_squared_error": (PRED, {"row": ROW_WEIGHTS, "full": FULL_WEIGHTS}),
    "huber_loss": (PRED * 2.0, {"row": ROW_WEIGHTS, "full": FULL_WEIGHTS}),
    "log_loss": (PRED, {"row": ROW_WEIGHTS, "full": FULL_WEIGHTS}),
    "hinge_loss": (LOGITS, {"row": ROW_WEIGHTS, "full": FULL_WEIGHTS}),
    "sigmoid_cross_entropy": (LOGITS, {"row": ROW_WEIGHTS, "full": FULL_WEIGHTS}),
    "softmax_cross_entropy": (LOGITS, {"row": ROW_WEIGHTS[:, 0]}),
    "sparse_softmax_cross_entropy": (LOGITS, {"row": ROW_WEIGHTS[:, 0], "row2d": ROW_WEIGHTS}),
    "cosine_distance": (UNIT_B, {"row": ROW_WEIGHTS}),
    "mean_pairwise_squared_error": (PRED, {"row": ROW_WEIGHTS}),
}


def _weights(tf, kind, extra):
    if kind == "default":
        return {}
    if kind == "python_scalar":
        return {"weights": 2.5}
    if kind == "zero_scalar":
        return {"weights": 0.0}
    if kind == "tensor_scalar":
        return {"weights": tf.constant(0.5)}
    return {"weights": extra[kind]}


def _value_case(loss, kind, reduction):
    def run(tf):
        g = tf.Graph()
        with g.as_default():
            pred_value, extra = INPUTS[loss]
            pred = tf.constant(pred_value, name="pred")
            kwargs = _weights(tf, kind, extra)
            if reduction is not None:
                kwargs["reduction"] = getattr(tf.losses.Reduction, reduction)
            out = _loss_call(tf, loss, pred, kwargs)
            grad = tf.gradients(out, pred)[0]
            with tf.Session() as sess:
                value, grad_value = sess.run([out, grad])
            return {
                "value": value,
                "grad": grad_value,
                "name": out.name,
                "shape": out.shape.as_list(),
                "dtype": out.dtype.name,
                "losses": names(tf.losses.get_losses()),
            }

    return run


for _loss, (_, _extra) in sorted(INPUTS.items()):
    _kinds = ["default", "python_scalar", "zero_scalar", "tensor_scalar", *sorted(_extra)]
    for _kind in _kinds:
        _reductions = [None] if _loss == "mean_pairwise_squared_error" else REDUCTIONS
        for _reduction in _reductions:
            _name = f"value_{_loss}_{_kind}_{(_reduction or 'default').lower()}"
            CASES[_name] = _value_case(_loss, _kind, _reduction)


def _graph_case(loss, kind, reduction=None):
    """The ops a loss adds (names, types, inputs), with TF's default reduction unless given."""

    def run(tf):
        g = tf.Graph()
        with g.as_default():
            pred_value, extra = INPUTS[loss]
            pred = tf.constant(pred_value, name="pred")
            kwargs = _weights(tf, kind, extra)
            if reduction is not None:
                kwargs["reduction"] = getattr(tf.losses.Reduction, reduction)
            out = _loss_call(tf, loss, pred, kwargs)
            return {"ops": ops_of(g), "name": out.name, "losses": names(tf.losses.get_losses())}

    return run


for _loss, (_, _extra) in sorted(INPUTS.items()):
    for _kind in ["default", "tensor_scalar", *sorted(_extra)]:
        CASES[f"graph_{_loss}_{_kind}"] = _graph_case(_loss, _kind)
for _reduction in REDUCTIONS:
    CASES[f"graph_reduction_{_reduction.lower()}"] = _graph_case(
        "mean_squared_error", "full", _reduction
    )


@case
def label_smoothing(tf):
    out = {}
    for smoothing in (0.0, 0.1, 0.5):
        g = tf.Graph()
        with g.as_default():
            logits = tf.constant(LOGITS)
            sig = tf.losses.sigmoid_cross_entropy(BIN_LABELS, logits, label_smoothing=smoothing)
            soft = tf.losses.softmax_cross_entropy(
                ONEHOT, logits, weights=ROW_WEIGHTS[:, 0], label_smoothing=smoothing
            )
            out[f"ops_{smoothing:g}"] = ops_of(g)
            grads = tf.gradients([sig, soft], logits)
            with tf.Session() as sess:
                out[f"{smoothing:g}"] = sess.run([sig, soft, grads[0]])
    return out


def _with(feed, key, value):
    out = dict(feed)
    out[key] = value
    return out


@case
def dynamic_shapes(tf):
    """Placeholders of unknown batch size: weights are checked and broadcast at run time."""
    g = tf.Graph()
    with g.as_default():
        pred = tf.placeholder(tf.float32, [None, 3], name="pred")
        labels = tf.placeholder(tf.float32, [None, 3], name="labels")
        weights = tf.placeholder(tf.float32, [None, 1], name="weights")
        ids = tf.placeholder(tf.int64, [None], name="ids")
        any_weights = tf.placeholder(tf.float32, None, name="any_weights")
        mse = tf.losses.mean_squared_error(labels, pred, weights=weights)
        mpse = tf.losses.mean_pairwise_squared_error(labels, pred, weights=weights)
        sparse = tf.losses.sparse_softmax_cross_entropy(ids, pred, weights=any_weights)
        feed = {pred: PRED, labels: REGR_LABELS, weights: ROW_WEIGHTS, ids: CLASS_IDS}
        with tf.Session() as sess:
            values = sess.run([mse, mpse], feed)
            sparse_values = [
                sess.run(sparse, _with(feed, any_weights, w))
                for w in (2.0, ROW_WEIGHTS[:, 0], ROW_WEIGHTS)
            ]
            bad = error_of(lambda: sess.run(mse, _with(feed, weights, np.ones((4, 2), np.float32))))
            bad_rank = error_of(
                lambda: sess.run(sparse, _with(feed, any_weights, np.ones((2, 2, 2))))
            )
        return {
            "values": values,
            "sparse_values": sparse_values,
            "bad_weights": bad,
            "bad_weights_rank": bad_rank,
            "ops": ops_of(g),
        }


@case
def input_dtypes(tf):
    """float64 and int inputs: losses are computed in float32 and cast back to the input's type."""
    g = tf.Graph()
    with g.as_default():
        pred64 = tf.constant(PRED.astype(np.float64))
        mse64 = tf.losses.mean_squared_error(REGR_LABELS.astype(np.float64), pred64)
        cwl = tf.losses.compute_weighted_loss(tf.constant([[1.0, 2.0], [3.0, 4.0]], tf.float64))
        cwl_int = tf.losses.compute_weighted_loss(tf.constant([1, 2, 3]), weights=[1, 0, 2])
        sig64 = tf.losses.sigmoid_cross_entropy(BIN_LABELS, tf.constant(LOGITS, tf.float64))
        sparse64 = tf.losses.sparse_softmax_cross_entropy(
            CLASS_IDS.astype(np.int64), tf.constant(LOGITS, tf.float64)
        )
        with tf.Session() as sess:
            values = sess.run([mse64, cwl, cwl_int, sig64, sparse64])
        return {
            "values": values,
            "dtypes": [t.dtype.name for t in (mse64, cwl, cwl_int, sig64, sparse64)],
            "ops": ops_of(g),
        }


@case
def compute_weighted_loss_reductions(tf):
    g = tf.Graph()
    with g.as_default():
        losses = tf.constant(REGR_LABELS)
        out = {}
        for reduction in REDUCTIONS:
            r = getattr(tf.losses.Reduction, reduction)
            out[reduction] = [
                tf.losses.compute_weighted_loss(losses, reduction=r),
                tf.losses.compute_weighted_loss(losses, FULL_WEIGHTS, reduction=r),
                tf.losses.compute_weighted_loss(losses, ROW_WEIGHTS, reduction=r),
                tf.losses.compute_weighted_loss(losses, np.zeros((4, 3), np.float32), reduction=r),
            ]
        with tf.Session() as sess:
            values = sess.run(out)
        return {
            "values": values,
            "names": {k: names(v) for k, v in out.items()},
            "ops": ops_of(g),
            "losses": names(tf.losses.get_losses()),
        }


@case
def reduction_keys(tf):
    R = tf.losses.Reduction
    return {
        "keys": [
            R.NONE,
            R.SUM,
            R.SUM_OVER_BATCH_SIZE,
            R.MEAN,
            R.SUM_BY_NONZERO_WEIGHTS,
            R.SUM_OVER_NONZERO_WEIGHTS,
        ],
        "all": list(R.all()),
        "validate_good": R.validate(R.MEAN),
        "validate_bad": error_of(lambda: R.validate("mean")),
        "compute_bad": error_of(lambda: tf.losses.compute_weighted_loss(1.0, reduction="x")),
    }


@case
def scopes_and_collections(tf):
    g = tf.Graph()
    with g.as_default():
        pred = tf.constant(PRED)
        a = tf.losses.mean_squared_error(REGR_LABELS, pred, scope="my_mse")
        with tf.name_scope("tower_1"):
            b = tf.losses.absolute_difference(REGR_LABELS, pred)
            c = tf.losses.log_loss(BIN_LABELS, pred, loss_collection=None)
            d = tf.losses.hinge_loss(BIN_LABELS, pred, loss_collection="my_losses")
        e = tf.losses.mean_squared_error(REGR_LABELS, pred)
        f = tf.losses.mean_squared_error(REGR_LABELS, pred)
        tf.losses.add_loss(tf.constant(1.5, name="extra"))
        tf.losses.add_loss(tf.constant(7.0, name="elsewhere"), loss_collection="my_losses")
        tf.losses.add_loss(tf.constant(3.0, name="nowhere"), loss_collection=None)
        w = tf.get_variable(
            "w", [2], initializer=tf.ones_initializer(), regularizer=lambda v: tf.reduce_sum(v)
        )
        with tf.variable_scope("tower_1"):
            tf.get_variable(
                "v",
                [3],
                initializer=tf.constant_initializer(2.0),
                regularizer=lambda v: 0.1 * tf.reduce_sum(v),
            )
        total = tf.losses.get_total_loss()
        total_no_reg = tf.losses.get_total_loss(add_regularization_losses=False, name="plain")
        tower_total = tf.losses.get_total_loss(scope="tower_1")
        reg = tf.losses.get_regularization_loss()
        tower_reg = tf.losses.get_regularization_loss(scope="tower_1", name="tower_reg")
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            values = sess.run([a, b, c, d, e, f, total, total_no_reg, tower_total, reg, tower_reg])
        return {
            "names": names([a, b, c, d, e, f]),
            "losses": names(tf.losses.get_losses()),
            "tower_losses": names(tf.losses.get_losses(scope="tower_1")),
            "my_losses": names(tf.losses.get_losses(loss_collection="my_losses")),
            "collection": names(tf.get_collection(tf.GraphKeys.LOSSES)),
            "regularization": names(tf.losses.get_regularization_losses()),
            "totals": names([total, total_no_reg, tower_total, reg, tower_reg]),
            "values": values,
            "w": w.name,
        }


@case
def total_loss_errors(tf):
    g = tf.Graph()
    with g.as_default():
        empty = error_of(lambda: tf.losses.get_total_loss())
        reg = tf.losses.get_regularization_loss()
        with tf.Session() as sess:
            reg_value = sess.run(reg)
        return {"empty_total": empty, "no_reg": [reg.name, reg_value]}


@case
def cosine_distance_axis_and_dim(tf):
    g = tf.Graph()
    with g.as_default():
        a = tf.losses.cosine_distance(UNIT_A, UNIT_B, axis=1)
        b = tf.losses.cosine_distance(UNIT_A, UNIT_B, dim=1)
        c = tf.losses.cosine_distance(UNIT_A.T, UNIT_B.T, axis=0, reduction="none")
        no_axis = error_of(lambda: tf.losses.cosine_distance(UNIT_A, UNIT_B))
        with tf.Session() as sess:
            values = sess.run([a, b, c])
        return {"values": values, "no_axis": no_axis, "shape": c.shape.as_list()}


@case
def shape_errors(tf):
    g = tf.Graph()
    with g.as_default():
        pred = tf.constant(PRED)
        L = tf.losses
        return {
            "labels_none": error_of(lambda: L.absolute_difference(None, pred)),
            "predictions_none": error_of(lambda: L.mean_squared_error(REGR_LABELS, None)),
            "logits_none": error_of(lambda: L.hinge_loss(BIN_LABELS, None)),
            "onehot_none": error_of(lambda: L.softmax_cross_entropy(None, pred)),
            "multi_class_none": error_of(lambda: L.sigmoid_cross_entropy(None, pred)),
            "shape_mismatch": error_of(lambda: L.mean_squared_error(REGR_LABELS[:, :2], pred)),
            "huber_mismatch": error_of(lambda: L.huber_loss(REGR_LABELS[:3], pred)),
            "softmax_mismatch": error_of(lambda: L.softmax_cross_entropy(ONEHOT[:, :2], pred)),
            "weights_rank": error_of(
                lambda: L.mean_squared_error(REGR_LABELS, pred, weights=[1.0, 2.0, 3.0])
            ),
            "weights_dim": error_of(
                lambda: L.mean_squared_error(REGR_LABELS, pred, weights=np.ones((4, 2)))
            ),
            "sparse_weights": error_of(
                lambda: L.sparse_softmax_cross_entropy(CLASS_IDS, pred, weights=np.ones((4, 3)))
            ),
            "sparse_labels_rank": error_of(
                lambda: L.sparse_softmax_cross_entropy(ONEHOT, tf.constant(LOGITS))
            ),
            "mpse_weights": error_of(
                lambda: L.mean_pairwise_squared_error(REGR_LABELS, pred, weights=[1.0, 2.0])
            ),
        }


@case
def sparse_label_out_of_range(tf):
    g = tf.Graph()
    with g.as_default():
        ids = tf.placeholder(tf.int32, [4])
        loss = tf.losses.sparse_softmax_cross_entropy(ids, tf.constant(LOGITS))
        with tf.Session() as sess:
            bad = error_of(lambda: sess.run(loss, {ids: [0, 3, 1, 1]}))
            good = sess.run(loss, {ids: CLASS_IDS})
        return {"bad": {"error": bad["error"]}, "good": good}


@case
def training_with_a_loss(tf):
    """A softmax classifier trained a few steps on tf.losses.sparse_softmax_cross_entropy plus
    an L2 regularizer, through get_total_loss: the loss after every step."""
    g = tf.Graph()
    with g.as_default():
        x = tf.constant(np.vstack([LOGITS, LOGITS * 0.5]))
        y = tf.constant(np.concatenate([CLASS_IDS, CLASS_IDS[::-1]]))
        w = tf.get_variable(
            "w",
            [3, 3],
            initializer=tf.constant_initializer(np.arange(9).reshape(3, 3) * 0.1),
            regularizer=lambda v: 0.01 * tf.nn.l2_loss(v),
        )
        logits = tf.matmul(x, w)
        tf.losses.sparse_softmax_cross_entropy(y, logits)
        total = tf.losses.get_total_loss()
        train = tf.train.GradientDescentOptimizer(0.3).minimize(total)
        losses = []
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            for _ in range(5):
                losses.append(sess.run([total, train])[0])
            final = sess.run(w)
        return {"losses": np.array(losses), "w": final}
