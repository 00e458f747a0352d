"""Programs training TF 1.15's canned gradient boosted trees (tf.estimator.BoostedTrees*) on a
small fixed numeric + bucketized dataset: each case trains with `tf` (TensorFlow 1.15 when
recorded by record_boosted_trees_estimator.py, tfcluster in
tests/unit/test_boosted_trees_estimator.py) and returns the loss of every step, the final
evaluation metrics, the predictions, the checkpoint's variables and the serialized ensemble.
Python 3.7 code: the recorder runs it under TF 1.15 itself."""

import os
import shutil
import tempfile

import numpy as np

N = 48


def data():
    rng = np.random.RandomState(5)
    x = rng.normal(size=N).astype(np.float32)
    z = np.round(rng.uniform(0.0, 10.0, size=N), 2).astype(np.float32)
    noise = rng.normal(scale=0.3, size=N)
    score = x + 0.25 * z + noise
    labels = (score > 1.2).astype(np.float32).reshape(-1, 1)
    targets = (score.reshape(-1, 1) * 2.0).astype(np.float32)
    return x, z, labels, targets


def columns(tf):
    fc = tf.feature_column
    return [
        fc.numeric_column("x"),
        fc.bucketized_column(fc.numeric_column("z"), [2.0, 4.0, 6.0, 8.0]),
    ]


class _LossHook:
    """Fetches the head's loss (the LOSSES collection) at every training step."""

    def __init__(self, tf):
        self._tf = tf
        self.losses = []

    def begin(self):
        losses = self._tf.get_collection(self._tf.GraphKeys.LOSSES)
        self.names = [t.name for t in losses]
        self._loss = [t for t in losses if t.shape.ndims == 0][-1]

    def after_create_session(self, session, coord):
        pass

    def before_run(self, run_context):
        return self._tf.train.SessionRunArgs(self._loss)

    def after_run(self, run_context, run_values):
        self.losses.append(float(run_values.results))

    def end(self, session):
        pass


def _hook(tf):
    base = tf.train.SessionRunHook
    hook_cls = type("LossHook", (base,), dict(_LossHook.__dict__))
    return hook_cls(tf)


def _input_fn(tf, label):
    x, z, labels, targets = data()
    y = labels if label == "class" else targets

    def fn():
        ds = tf.data.Dataset.from_tensors(({"x": x, "z": z, "w": weights()}, y))
        return ds.repeat()

    return fn


def _eval_input_fn(tf, label):
    x, z, labels, targets = data()
    y = labels if label == "class" else targets

    def fn():
        return tf.data.Dataset.from_tensors(({"x": x, "z": z, "w": weights()}, y))

    return fn


def weights():
    """Example weights (the weighted case's weight_column; the others ignore them)."""
    return (0.5 + 0.5 * (np.arange(N) % 3)).astype(np.float32).reshape(-1, 1)


def _predict_input_fn(tf):
    x, z, _, _ = data()

    def fn():
        return tf.data.Dataset.from_tensors({"x": x[:10], "z": z[:10]})

    return fn


def _run(tf, make, label, model_dir, steps):
    est = make(model_dir)
    hook = _hook(tf)
    est.train(_input_fn(tf, label), steps=steps, hooks=[hook])
    metrics = est.evaluate(_eval_input_fn(tf, label), steps=1)
    preds = list(est.predict(_predict_input_fn(tf)))
    key = "probabilities" if label == "class" else "predictions"
    names = sorted(n for n, _ in tf.train.list_variables(model_dir))
    out = {
        "losses": np.asarray(hook.losses, np.float32),
        "metric_names": sorted(metrics),
        "predictions": np.stack([p[key] for p in preds]).astype(np.float32),
        "logits": np.stack([p.get("logits", p.get("predictions")) for p in preds]).astype(
            np.float32
        ),
        "checkpoint_names": names,
        "ensemble": tf.train.load_variable(model_dir, "boosted_trees:0_serialized"),
        "global_step": int(tf.train.load_variable(model_dir, "global_step")),
    }
    for k in sorted(metrics):
        if k != "global_step":
            out["metric_" + k.replace("/", "_")] = np.float32(metrics[k])
    return out


def _classifier(tf, **kw):
    def make(model_dir):
        return tf.estimator.BoostedTreesClassifier(
            feature_columns=columns(tf), n_batches_per_layer=1, model_dir=model_dir, **kw
        )

    return make


def _regressor(tf, **kw):
    def make(model_dir):
        return tf.estimator.BoostedTreesRegressor(
            feature_columns=columns(tf), n_batches_per_layer=1, model_dir=model_dir, **kw
        )

    return make


def _case(make, label, steps, keep=None):
    def program(tf):
        model_dir = tempfile.mkdtemp(prefix="bt_est_")
        try:
            out = _run(tf, make(tf), label, model_dir, steps)
            if keep is not None:
                keep(model_dir, out)
            return out
        finally:
            shutil.rmtree(model_dir, ignore_errors=True)

    return program


def classifier_center_bias(tf):
    return _case(
        lambda tf: _classifier(tf, n_trees=3, max_depth=2, learning_rate=0.3, center_bias=True),
        "class",
        40,
    )(tf)


def classifier_post_pruning(tf):
    return _case(
        lambda tf: _classifier(
            tf,
            n_trees=2,
            max_depth=3,
            learning_rate=0.5,
            l1_regularization=0.01,
            l2_regularization=0.2,
            tree_complexity=0.05,
            pruning_mode="post",
        ),
        "class",
        40,
    )(tf)


def classifier_in_memory_pre_pruning(tf):
    return _case(
        lambda tf: _classifier(
            tf,
            n_trees=3,
            max_depth=2,
            learning_rate=0.4,
            l2_regularization=0.1,
            tree_complexity=0.01,
            pruning_mode="pre",
            train_in_memory=True,
        ),
        "class",
        40,
    )(tf)


def classifier_weighted(tf):
    return _case(
        lambda tf: _classifier(
            tf,
            n_trees=2,
            max_depth=2,
            learning_rate=0.4,
            l2_regularization=0.1,
            weight_column="w",
        ),
        "class",
        40,
    )(tf)


def regressor(tf):
    return _case(
        lambda tf: _regressor(
            tf, n_trees=3, max_depth=3, learning_rate=0.3, l2_regularization=0.01
        ),
        "regress",
        40,
    )(tf)


CASES = {
    "classifier_center_bias": classifier_center_bias,
    "classifier_post_pruning": classifier_post_pruning,
    "classifier_in_memory_pre_pruning": classifier_in_memory_pre_pruning,
    "classifier_weighted": classifier_weighted,
    "regressor": regressor,
}


def checkpoint_dir(base):
    return os.path.join(base, "boosted_trees_checkpoint")


def classifier_for_checkpoint(tf, model_dir):
    """The estimator whose TF-written checkpoint the tests restore."""
    return _classifier(tf, n_trees=3, max_depth=2, learning_rate=0.3, center_bias=True)(model_dir)


def predict_from(tf, model_dir):
    est = classifier_for_checkpoint(tf, model_dir)
    preds = list(est.predict(_predict_input_fn(tf)))
    return np.stack([p["probabilities"] for p in preds]).astype(np.float32)


def train_for_checkpoint(tf, model_dir):
    est = classifier_for_checkpoint(tf, model_dir)
    est.train(_input_fn(tf, "class"), steps=40)
    return predict_from(tf, model_dir)


def feature_importances(tf, model_dir):
    est = classifier_for_checkpoint(tf, model_dir)
    raw = est.experimental_feature_importances(normalize=False)
    normalized = est.experimental_feature_importances(normalize=True)
    return (
        [str(n) for n in raw],
        np.asarray(list(raw.values()), np.float64),
        np.asarray([normalized[n] for n in raw], np.float64),
    )


def explanations(tf, model_dir):
    """Each example's bias and directional feature contributions (names, values in order)."""
    est = classifier_for_checkpoint(tf, model_dir)
    preds = list(est.experimental_predict_with_explanations(_predict_input_fn(tf)))
    return (
        np.asarray([p["bias"] for p in preds], np.float64),
        [",".join(p["dfc"]) for p in preds],
        np.asarray([list(p["dfc"].values()) for p in preds], np.float64),
        np.stack([p["probabilities"] for p in preds]).astype(np.float32),
    )


def _fixed_input(tf, features, y, repeat):
    def fn():
        ds = tf.data.Dataset.from_tensors((features, y))
        return ds.repeat() if repeat else ds

    return fn


def estimator_with_heads(tf):
    """BoostedTreesEstimator under the public v2 heads: evaluation metrics after training."""
    x, z, labels, targets = data()
    out = {}
    for head, y in (
        (tf.estimator.RegressionHead(), targets),
        (tf.estimator.BinaryClassHead(), labels),
    ):
        model_dir = tempfile.mkdtemp(prefix="bt_head_")
        try:
            est = tf.estimator.BoostedTreesEstimator(
                columns(tf), 1, head, model_dir=model_dir, n_trees=2, max_depth=2, learning_rate=0.3
            )
            features = {"x": x, "z": z}
            est.train(_fixed_input(tf, features, y, repeat=True), steps=20)
            metrics = est.evaluate(_fixed_input(tf, features, y, repeat=False), steps=1)
        finally:
            shutil.rmtree(model_dir, ignore_errors=True)
        kind = type(head).__name__
        out[kind + "_names"] = sorted(metrics)
        out[kind + "_values"] = np.asarray([metrics[k] for k in sorted(metrics)], np.float64)
    return out
