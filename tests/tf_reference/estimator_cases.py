"""Estimator and feature-column programs written once for both frameworks (TF 1.15 and
tfcluster): each case takes the module (`tf`) and a scratch folder and returns plain values.
Canned estimators start from a checkpoint of fixed values (warm_start_from), so training,
evaluation and prediction must agree to float tolerance. Runs on Python 3.7."""

from __future__ import annotations

import os

import numpy as np

N = 48


def data():
    rng = np.random.RandomState(7)
    x = {
        "a": rng.randn(N).astype(np.float32),
        "b": rng.randn(N, 2).astype(np.float32),
        "c": np.array(["p", "q", "r", "s"] * (N // 4)),
        "n": (np.arange(N) % 5).astype(np.int64),
    }
    y_class = (x["a"] + x["b"][:, 0] > 0).astype(np.int64)
    y_multi = (np.arange(N) % 3).astype(np.int64)
    y_reg = (2.0 * x["a"] - x["b"][:, 1] + 0.5).astype(np.float32)
    return x, y_class, y_multi, y_reg


def feature_columns_case(tf, tmp):
    fc = tf.feature_column
    vocab = os.path.join(tmp, "vocab.txt")
    with open(vocab, "w") as f:
        f.write("sf\nnyc\nla\n")
    features = {
        "age": tf.constant([[23.0], [47.0], [61.0]]),
        "color": tf.constant([["red"], ["blue"], ["green"]]),
        "city": tf.constant([["sf"], ["nyc"], ["tokyo"]]),
        "town": tf.constant([["la"], ["x"], ["sf"]]),
        "num": tf.constant([[1], [3], [0]], tf.int64),
        "w": tf.constant([[2.0], [0.5], [1.0]]),
        "ints": tf.constant([[7], [123456789], [-4]], tf.int64),
    }
    age = fc.numeric_column("age")
    ab = fc.bucketized_column(age, [30.0, 50.0])
    color = fc.categorical_column_with_vocabulary_list("color", ["red", "green"], num_oov_buckets=2)
    city_hash = fc.categorical_column_with_hash_bucket("city", 7)
    city_file = fc.categorical_column_with_vocabulary_file("town", vocab, num_oov_buckets=1)
    ints = fc.categorical_column_with_hash_bucket("ints", 1000, dtype=tf.int64)
    num = fc.categorical_column_with_identity("num", 4)
    cross = fc.crossed_column([ab, "color"], 11)
    wnum = fc.weighted_categorical_column(num, "w")
    dense = [
        age,
        ab,
        fc.indicator_column(color),
        fc.indicator_column(city_hash),
        fc.indicator_column(city_file),
        fc.indicator_column(cross),
        fc.indicator_column(wnum),
        fc.indicator_column(ints),
        fc.embedding_column(num, 3, initializer=tf.constant_initializer(0.5)),
        fc.embedding_column(
            color,
            2,
            combiner="sqrtn",
            initializer=tf.constant_initializer(np.arange(8, dtype=np.float32).reshape(4, 2)),
        ),
    ]
    out = fc.input_layer(features, dense)
    lm = fc.linear_model(features, [age, ab, color, city_hash, city_file, cross, wnum], units=2)
    spec = fc.make_parse_example_spec(dense)
    weights = [v for v in tf.global_variables() if v.name.startswith("linear_model/")]
    assigns = [
        tf.assign(
            v,
            (np.arange(np.prod(v.shape.as_list())).reshape(v.shape.as_list()) / 10.0 + 0.1).astype(
                np.float32
            ),
        )
        for v in weights
    ]
    with tf.Session() as sess:
        sess.run([tf.global_variables_initializer(), tf.tables_initializer()])
        sess.run(assigns)
        values = sess.run({"input_layer": out, "linear_model": lm})
    return {
        "input_layer": values["input_layer"],
        "linear_model": values["linear_model"],
        "variables": sorted(v.op.name for v in tf.global_variables()),
        "parse_spec": sorted(f"{k}:{type(v).__name__}" for k, v in spec.items()),
    }


def _seed_checkpoint(tf, path, shapes):
    """A checkpoint of the given variables with fixed values (the estimators warm-start
    from it)."""
    rng = np.random.RandomState(11)
    with tf.Graph().as_default():
        for name, shape in sorted(shapes.items()):
            tf.Variable((rng.uniform(-0.5, 0.5, size=shape)).astype(np.float32), name=name)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            tf.train.Saver().save(sess, os.path.join(path, "seed.ckpt"))
    return path


def _columns(tf):
    fc = tf.feature_column
    c = fc.categorical_column_with_vocabulary_list("c", ["p", "q", "r"])
    return fc, [fc.numeric_column("a"), fc.numeric_column("b", shape=(2,))], c


def _run(tf, est, x, y, steps_epochs=2):
    inputs = tf.estimator.inputs
    est.train(inputs.numpy_input_fn(x, y, batch_size=16, num_epochs=steps_epochs, shuffle=False))
    metrics = est.evaluate(inputs.numpy_input_fn(x, y, batch_size=16, num_epochs=1, shuffle=False))
    preds = list(est.predict(inputs.numpy_input_fn(x, batch_size=16, num_epochs=1, shuffle=False)))
    names = [n for n in est.get_variable_names()]
    model_vars = sorted(
        n
        for n in names
        if not any(s in n for s in ("Ftrl", "Adagrad", "Adam", "Momentum", "RMSProp"))
    )
    return {
        "metrics": {k: float(v) for k, v in metrics.items()},
        "predictions": {
            k: np.stack([p[k] for p in preds])
            for k in sorted(preds[0])
            if np.asarray(preds[0][k]).dtype.kind in "fi"
        },
        "classes": [p["classes"].tolist() for p in preds] if "classes" in preds[0] else [],
        "model_variables": model_vars,
        "values": {n: est.get_variable_value(n) for n in model_vars},
    }


def linear_classifier_case(tf, tmp):
    x, y, _, _ = data()
    _fc, cols, c = _columns(tf)
    seed = _seed_checkpoint(
        tf,
        os.path.join(tmp, "seed"),
        {
            "linear/linear_model/a/weights": [1, 1],
            "linear/linear_model/b/weights": [2, 1],
            "linear/linear_model/c/weights": [3, 1],
            "linear/linear_model/bias_weights": [1],
        },
    )
    est = tf.estimator.LinearClassifier(
        [*cols, c], model_dir=os.path.join(tmp, "model"), warm_start_from=seed
    )
    return _run(tf, est, x, y)


def linear_regressor_case(tf, tmp):
    x, _, _, y = data()
    _fc, cols, _c = _columns(tf)
    seed = _seed_checkpoint(
        tf,
        os.path.join(tmp, "seed"),
        {
            "linear/linear_model/a/weights": [1, 1],
            "linear/linear_model/b/weights": [2, 1],
            "linear/linear_model/bias_weights": [1],
        },
    )
    est = tf.estimator.LinearRegressor(
        cols,
        model_dir=os.path.join(tmp, "model"),
        warm_start_from=seed,
        optimizer=tf.train.GradientDescentOptimizer(0.01),
    )
    return _run(tf, est, x, y)


def _dnn_shapes(n_in, hidden, units, emb=None):
    shapes = {}
    width = n_in
    for i, h in enumerate(hidden):
        shapes[f"dnn/hiddenlayer_{i}/kernel"] = [width, h]
        shapes[f"dnn/hiddenlayer_{i}/bias"] = [h]
        width = h
    shapes["dnn/logits/kernel"] = [width, units]
    shapes["dnn/logits/bias"] = [units]
    if emb:
        shapes["dnn/input_from_feature_columns/input_layer/c_embedding/embedding_weights"] = emb
    return shapes


def dnn_classifier_case(tf, tmp):
    x, _, y, _ = data()
    fc, cols, c = _columns(tf)
    seed = _seed_checkpoint(tf, os.path.join(tmp, "seed"), _dnn_shapes(5, [4, 3], 3, emb=[3, 2]))
    est = tf.estimator.DNNClassifier(
        [4, 3],
        [*cols, fc.embedding_column(c, 2)],
        n_classes=3,
        model_dir=os.path.join(tmp, "model"),
        warm_start_from=seed,
    )
    return _run(tf, est, x, y)


def dnn_regressor_case(tf, tmp):
    x, _, _, y = data()
    _fc, cols, _c = _columns(tf)
    seed = _seed_checkpoint(tf, os.path.join(tmp, "seed"), _dnn_shapes(3, [4], 1))
    est = tf.estimator.DNNRegressor(
        [4],
        cols,
        model_dir=os.path.join(tmp, "model"),
        warm_start_from=seed,
        optimizer=tf.train.GradientDescentOptimizer(0.002),
    )
    return _run(tf, est, x, y)


def dnn_linear_combined_case(tf, tmp):
    x, y, _, _ = data()
    _fc, cols, c = _columns(tf)
    shapes = _dnn_shapes(3, [3], 1)
    shapes.update(
        {
            "linear/linear_model/c/weights": [3, 1],
            "linear/linear_model/bias_weights": [1],
        }
    )
    seed = _seed_checkpoint(tf, os.path.join(tmp, "seed"), shapes)
    est = tf.estimator.DNNLinearCombinedClassifier(
        os.path.join(tmp, "model"),
        linear_feature_columns=[c],
        dnn_feature_columns=cols,
        dnn_hidden_units=[3],
        warm_start_from=seed,
    )
    return _run(tf, est, x, y)


CASES = {
    "feature_columns": feature_columns_case,
    "linear_classifier": linear_classifier_case,
    "linear_regressor": linear_regressor_case,
    "dnn_classifier": dnn_classifier_case,
    "dnn_regressor": dnn_regressor_case,
    "dnn_linear_combined_classifier": dnn_linear_combined_case,
}


# -- checkpoints exchanged with TF 1.15 ---------------------------------------------------
# Each canned model with its default optimizer trains one epoch (TF 1.15 writes that
# checkpoint, optimizer slots included, into data/estimator_checkpoints/<case>), then one
# more epoch from it. On tfcluster the same program starts from TF's checkpoint: every
# variable and slot must be found under TF's name and end with TF's values.
CHECKPOINT_DIR = os.path.join(
    os.path.dirname(os.path.abspath(__file__)), "data", "estimator_checkpoints"
)


def _slot_estimators(tf, model_dir, seed):
    fc, cols, c = _columns(tf)
    return {
        "linear_classifier_ftrl": lambda: tf.estimator.LinearClassifier(
            [*cols, c], model_dir=model_dir, warm_start_from=seed
        ),
        "linear_regressor_ftrl": lambda: tf.estimator.LinearRegressor(
            cols, model_dir=model_dir, warm_start_from=seed
        ),
        "dnn_classifier_adagrad": lambda: tf.estimator.DNNClassifier(
            [4, 3],
            [*cols, fc.embedding_column(c, 2)],
            n_classes=3,
            model_dir=model_dir,
            warm_start_from=seed,
        ),
        "dnn_regressor_adagrad": lambda: tf.estimator.DNNRegressor(
            [4], cols, model_dir=model_dir, warm_start_from=seed
        ),
        "dnn_linear_combined_regressor": lambda: tf.estimator.DNNLinearCombinedRegressor(
            model_dir,
            linear_feature_columns=[c],
            dnn_feature_columns=cols,
            dnn_hidden_units=[3],
            warm_start_from=seed,
        ),
    }


_SLOT_SEEDS = {
    "linear_classifier_ftrl": {
        "linear/linear_model/a/weights": [1, 1],
        "linear/linear_model/b/weights": [2, 1],
        "linear/linear_model/c/weights": [3, 1],
        "linear/linear_model/bias_weights": [1],
    },
    "linear_regressor_ftrl": {
        "linear/linear_model/a/weights": [1, 1],
        "linear/linear_model/b/weights": [2, 1],
        "linear/linear_model/bias_weights": [1],
    },
    "dnn_classifier_adagrad": _dnn_shapes(5, [4, 3], 3, emb=[3, 2]),
    "dnn_regressor_adagrad": _dnn_shapes(3, [4], 1),
    "dnn_linear_combined_regressor": dict(
        _dnn_shapes(3, [3], 1),
        **{"linear/linear_model/c/weights": [3, 1], "linear/linear_model/bias_weights": [1]},
    ),
}


def _checkpoint_files(folder):
    return sorted(
        f for f in os.listdir(folder) if f.startswith("model.ckpt-3.") and not f.endswith(".meta")
    )


def checkpoint_case(tf, tmp, name, write_checkpoint):
    """Trains `name` one epoch from TF 1.15's checkpoint after one epoch (written by TF 1.15
    when write_checkpoint) and returns every variable's name and value."""
    import shutil

    x, y_class, y_multi, y_reg = data()
    y = {"linear_classifier_ftrl": y_class, "dnn_classifier_adagrad": y_multi}.get(name, y_reg)
    seed = _seed_checkpoint(tf, os.path.join(tmp, "seed"), _SLOT_SEEDS[name])
    model_dir = os.path.join(tmp, "model")
    saved = os.path.join(CHECKPOINT_DIR, name)
    make = _slot_estimators(tf, model_dir, seed)[name]
    inputs = tf.estimator.inputs
    train = inputs.numpy_input_fn(x, y, batch_size=16, num_epochs=1, shuffle=False)
    if write_checkpoint:
        make().train(train)
        os.makedirs(saved, exist_ok=True)
        for f in _checkpoint_files(model_dir):
            shutil.copy(os.path.join(model_dir, f), os.path.join(saved, f))
    else:
        os.makedirs(model_dir)
        for f in _checkpoint_files(saved):
            shutil.copy(os.path.join(saved, f), os.path.join(model_dir, f))
    with open(os.path.join(model_dir, "checkpoint"), "w") as f:
        f.write(
            'model_checkpoint_path: "model.ckpt-3"\nall_model_checkpoint_paths: "model.ckpt-3"\n'
        )
    est = make()
    est.train(train)
    names = sorted(est.get_variable_names())
    return {"variables": names, "values": {n: est.get_variable_value(n) for n in names}}


CHECKPOINT_CASES = sorted(_SLOT_SEEDS)
