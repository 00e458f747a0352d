"""Programs for tf.estimator's heads, Baseline*/*Estimator, add_metrics, the parse-spec
helpers, the exporters, shared_embedding_columns and the sequence_* columns, written once
for TF 1.15 and tfcluster: each case takes the module (`tf`) and a scratch folder and
returns plain values. Models start from fixed values (constant initializers, zero biases,
or a seed checkpoint), so training, evaluation and prediction agree to float tolerance.
Runs on Python 3.7 (TF 1.15's)."""

from __future__ import annotations

import os
import re

import numpy as np

N = 24


def data():
    rng = np.random.RandomState(3)
    x = rng.randn(N, 3).astype(np.float32)
    w = rng.uniform(0.5, 2.0, size=(N, 1)).astype(np.float32)
    y_binary = (x[:, :1] + x[:, 1:2] > 0).astype(np.int64)
    y_multi = (np.arange(N) % 3).astype(np.int64).reshape(N, 1)
    y_multi_label = (rng.rand(N, 3) > 0.5).astype(np.int64)
    y_reg = np.stack([x[:, 0] * 2.0 - x[:, 2], x[:, 1] + 0.5], 1).astype(np.float32)
    y_count = rng.poisson(2.0, size=(N, 1)).astype(np.float32)
    y_prob = rng.uniform(0.0, 1.0, size=(N, 1)).astype(np.float32)
    return {
        "x": x,
        "w": w,
        "binary": y_binary,
        "multi": y_multi,
        "multi_str": np.array(["a", "b", "c"])[y_multi[:, 0]].reshape(N, 1),
        "multi_label": y_multi_label,
        "reg": y_reg,
        "reg1": y_reg[:, :1],
        "count": y_count,
        "prob": y_prob,
    }


def _kernel(units):
    return (np.arange(3 * units, dtype=np.float32).reshape(3, units) % 5 - 2.0) / 4.0


def _numeric(values):
    return {
        k: v
        for k, v in values.items()
        if np.asarray(v).dtype.kind in "fiub" and not isinstance(v, (bytes, str))
    }


def _run_head(tf, tmp, head, label_key, units, weight=False, reg_loss=False):
    """Trains a one-layer model under `head` (train_op_fn: SGD), then evaluates and
    predicts."""
    d = data()

    def model_fn(features, labels, mode):
        kernel = tf.get_variable("kernel", initializer=tf.constant(_kernel(units)))
        bias = tf.get_variable("bias", [units], initializer=tf.zeros_initializer())
        logits = tf.matmul(features["x"], kernel) + bias
        reg = [0.01 * tf.reduce_sum(tf.square(kernel))] if reg_loss else None

        def train_op_fn(loss):
            opt = tf.train.GradientDescentOptimizer(0.1)
            return opt.minimize(loss, global_step=tf.train.get_global_step())

        return head.create_estimator_spec(
            features=features,
            mode=mode,
            logits=logits,
            labels=labels,
            train_op_fn=train_op_fn,
            regularization_losses=reg,
        )

    est = tf.estimator.Estimator(model_fn, model_dir=os.path.join(tmp, "model"))
    feats = {"x": d["x"]}
    if weight:
        feats["w"] = d["w"]
    labels = d[label_key] if isinstance(label_key, str) else {k: d[v] for k, v in label_key}
    inputs = tf.estimator.inputs

    def fn(y=None, epochs=1):
        return inputs.numpy_input_fn(feats, y, batch_size=8, num_epochs=epochs, shuffle=False)

    est.train(fn(labels, 2))
    metrics = est.evaluate(fn(labels))
    preds = list(est.predict(fn()))
    keys = sorted(preds[0], key=str)
    return {
        "metrics": {k: float(v) for k, v in metrics.items()},
        "predictions": {
            "/".join(k) if isinstance(k, tuple) else k: np.stack([p[k] for p in preds])
            for k in keys
            if np.asarray(preds[0][k]).dtype.kind in "fi"
        },
        "strings": {
            "/".join(k) if isinstance(k, tuple) else k: [
                [s.decode() for s in np.asarray(p[k]).reshape(-1)] for p in preds
            ]
            for k in keys
            if np.asarray(preds[0][k]).dtype.kind in "OSU"
        },
        "variables": {n: est.get_variable_value(n) for n in sorted(est.get_variable_names())},
    }


def binary_head_case(tf, tmp):
    return _run_head(tf, tmp, tf.estimator.BinaryClassHead(), "binary", 1)


def binary_head_weighted_case(tf, tmp):
    head = tf.estimator.BinaryClassHead(
        weight_column="w", thresholds=[0.3, 0.7], loss_reduction="sum", name="bin"
    )
    return _run_head(tf, tmp, head, "binary", 1, weight=True, reg_loss=True)


def multi_class_head_case(tf, tmp):
    head = tf.estimator.MultiClassHead(3, label_vocabulary=["a", "b", "c"])
    return _run_head(tf, tmp, head, "multi_str", 3)


def multi_class_head_weighted_case(tf, tmp):
    head = tf.estimator.MultiClassHead(3, weight_column="w", name="mc")
    return _run_head(tf, tmp, head, "multi", 3, weight=True)


def multi_label_head_case(tf, tmp):
    head = tf.estimator.MultiLabelHead(
        3, thresholds=[0.5], classes_for_class_based_metrics=[0, 2], weight_column="w"
    )
    return _run_head(tf, tmp, head, "multi_label", 3, weight=True)


def regression_head_case(tf, tmp):
    head = tf.estimator.RegressionHead(label_dimension=2, weight_column="w")
    return _run_head(tf, tmp, head, "reg", 2, weight=True)


def regression_head_loss_fn_case(tf, tmp):
    def loss_fn(labels, logits):
        return tf.abs(labels - logits)

    head = tf.estimator.RegressionHead(loss_fn=loss_fn, name="abs")
    return _run_head(tf, tmp, head, "reg1", 1)


def poisson_head_case(tf, tmp):
    return _run_head(tf, tmp, tf.estimator.PoissonRegressionHead(), "count", 1)


def logistic_head_case(tf, tmp):
    head = tf.estimator.LogisticRegressionHead(name="lr")
    return _run_head(tf, tmp, head, "prob", 1)


def multi_head_case(tf, tmp):
    head = tf.estimator.MultiHead(
        [
            tf.estimator.MultiClassHead(3, name="mc"),
            tf.estimator.RegressionHead(name="reg"),
        ],
        head_weights=[1.0, 0.5],
    )
    return _run_head(tf, tmp, head, [("mc", "multi"), ("reg", "reg1")], 4)


def head_losses_case(tf, tmp):
    """head.loss / head.predictions on fixed logits: sparse multi-label labels (ids and
    vocabulary strings), weights, SUM reduction, a loss_fn taking features, Poisson's
    full loss."""
    est = tf.estimator
    logits3 = tf.constant([[0.5, -1.0, 2.0], [1.5, 0.25, -0.5], [-2.0, 1.0, 0.0]])
    logits1 = tf.constant([[0.5], [-1.0], [2.0]])
    w = tf.constant([[1.0], [2.0], [0.5]])
    sparse_ids = tf.SparseTensor([[0, 0], [0, 1], [2, 0]], tf.constant([0, 2, 1], tf.int64), [3, 2])
    sparse_str = tf.SparseTensor([[0, 0], [1, 0], [1, 1]], ["c", "a", "b"], [3, 2])
    counts = tf.constant([[0.0], [3.0], [7.0]])

    def loss_fn(labels, logits, features):
        return tf.square(labels - logits) * features["scale"]

    out = {
        "multi_label_sparse": est.MultiLabelHead(3).loss(sparse_ids, logits3, features={}),
        "multi_label_vocab": est.MultiLabelHead(3, label_vocabulary=["a", "b", "c"]).loss(
            sparse_str, logits3, features={}
        ),
        "multi_label_weighted_sum": est.MultiLabelHead(
            3, weight_column="w", loss_reduction="sum"
        ).loss(tf.constant([[1, 0, 1], [0, 0, 0], [1, 1, 1]]), logits3, features={"w": w}),
        "binary_vocab": est.BinaryClassHead(label_vocabulary=["no", "yes"]).loss(
            tf.constant([["yes"], ["no"], ["yes"]]), logits1, features={}
        ),
        "multi_class_sum": est.MultiClassHead(3, loss_reduction="sum").loss(
            tf.constant([[2], [0], [1]]), logits3, features={}
        ),
        "regression_loss_fn": est.RegressionHead(loss_fn=loss_fn).loss(
            tf.constant([[1.0], [0.0], [2.5]]),
            logits1,
            features={"scale": tf.constant([[1.0], [0.5], [2.0]])},
        ),
        "regression_regularized": est.RegressionHead().loss(
            tf.constant([[1.0], [0.0], [2.5]]),
            logits1,
            features={},
            regularization_losses=[tf.constant(0.25)],
        ),
        "poisson_full": est.PoissonRegressionHead().loss(counts, logits1, features={}),
        "poisson_partial": est.PoissonRegressionHead(compute_full_loss=False).loss(
            counts, logits1, features={}
        ),
        "logistic": est.LogisticRegressionHead(weight_column="w").loss(
            tf.constant([[0.2], [0.9], [0.5]]), logits1, features={"w": w}
        ),
        "multi_head": est.MultiHead(
            [est.MultiClassHead(3, name="a"), est.RegressionHead(name="b")], head_weights=[2.0, 1.0]
        ).loss(
            {"a": tf.constant([[1], [2], [0]]), "b": tf.constant([[0.0], [1.0], [2.0]])},
            tf.concat([logits3, logits1], 1),
            features={},
        ),
        "predictions_binary": est.BinaryClassHead().predictions(logits1),
        "predictions_poisson": est.PoissonRegressionHead().predictions(logits1),
        "predictions_multi_label": est.MultiLabelHead(3).predictions(logits3),
    }
    with tf.Session() as sess:
        sess.run(tf.tables_initializer())
        values = sess.run(out)
    return {
        k: (
            {n: v for n, v in val.items() if np.asarray(v).dtype.kind in "fi"}
            if isinstance(val, dict)
            else val
        )
        for k, val in values.items()
    }


def head_errors_case(tf, tmp):
    est = tf.estimator

    def bad_optimizer():
        head = est.RegressionHead()
        logits = tf.constant([[1.0], [2.0]])
        return head.create_estimator_spec(
            features={},
            mode=est.ModeKeys.TRAIN,
            logits=logits,
            labels=tf.constant([[1.0], [0.0]]),
            optimizer=tf.train.GradientDescentOptimizer(0.1),
        )

    def catch(fn):
        try:
            fn()
        except Exception as e:  # the class is what is compared
            return type(e).__name__
        return "no error"

    return {
        "errors": {
            "v1_optimizer": catch(bad_optimizer),
            "bad_reduction": catch(lambda: est.BinaryClassHead(loss_reduction="weighted_sum")),
            "multi_class_2": catch(lambda: est.MultiClassHead(2)),
            "multi_label_1": catch(lambda: est.MultiLabelHead(1)),
            "bad_threshold": catch(lambda: est.BinaryClassHead(thresholds=[1.5])),
            "unnamed_multi": catch(lambda: est.MultiHead([est.RegressionHead()])),
            "bad_loss_fn": catch(lambda: est.RegressionHead(loss_fn=lambda x, y: x)),
        },
        "properties": [
            est.BinaryClassHead().logits_dimension,
            est.MultiClassHead(4).logits_dimension,
            est.MultiLabelHead(5).logits_dimension,
            est.RegressionHead(label_dimension=2).logits_dimension,
            est.MultiHead(
                [est.MultiClassHead(3, name="a"), est.RegressionHead(name="b")]
            ).logits_dimension,
            est.MultiHead([est.MultiClassHead(3, name="a"), est.RegressionHead(name="b")]).name,
            est.BinaryClassHead().loss_reduction,
        ],
    }


def head_methods_case(tf, tmp):
    """A custom model_fn built from the head's own methods: loss, predictions(keys),
    metrics + update_metrics as the EstimatorSpec's eval_metric_ops."""
    d = data()
    head = tf.estimator.BinaryClassHead(weight_column="w", name="h")

    def model_fn(features, labels, mode):
        kernel = tf.get_variable("kernel", initializer=tf.constant(_kernel(1)))
        logits = tf.matmul(features["x"], kernel)
        preds = head.predictions(logits, keys=["probabilities", "class_ids"])
        if mode == tf.estimator.ModeKeys.PREDICT:
            return tf.estimator.EstimatorSpec(mode, predictions=preds)
        loss = head.loss(labels, logits, features=features, mode=mode)
        if mode == tf.estimator.ModeKeys.EVAL:
            metrics = head.metrics()
            head.update_metrics(metrics, features, logits, labels)
            return tf.estimator.EstimatorSpec(mode, loss=loss, eval_metric_ops=metrics)
        opt = tf.train.GradientDescentOptimizer(0.2)
        train_op = opt.minimize(loss, global_step=tf.train.get_global_step())
        return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)

    est = tf.estimator.Estimator(model_fn, model_dir=os.path.join(tmp, "m"))
    inputs = tf.estimator.inputs
    feats = {"x": d["x"], "w": d["w"]}

    def fn(y=None, epochs=1):
        return inputs.numpy_input_fn(feats, y, batch_size=8, num_epochs=epochs, shuffle=False)

    est.train(fn(d["binary"], 2))
    metrics = est.evaluate(fn(d["binary"]))
    preds = list(est.predict(fn()))
    return {
        "metrics": {k: float(v) for k, v in metrics.items()},
        "probabilities": np.stack([p["probabilities"] for p in preds]),
        "class_ids": np.stack([p["class_ids"] for p in preds]),
        "prediction_keys": sorted(preds[0]),
        "metric_keys": sorted(head.metrics()),
        "metric_keys_regularized": sorted(head.metrics(regularization_losses=[1.0])),
    }


def _baseline_run(tf, est, x, y, weight=None):
    inputs = tf.estimator.inputs
    feats = {"x": x}
    if weight is not None:
        feats["w"] = weight

    def fn(labels=None, epochs=1):
        return inputs.numpy_input_fn(feats, labels, batch_size=8, num_epochs=epochs, shuffle=False)

    est.train(fn(y, 2))
    metrics = est.evaluate(fn(y))
    preds = list(est.predict(fn()))
    return {
        "metrics": {k: float(v) for k, v in metrics.items()},
        "predictions": {
            k: np.stack([p[k] for p in preds])
            for k in sorted(preds[0])
            if np.asarray(preds[0][k]).dtype.kind in "fi"
        },
        "variables": {n: est.get_variable_value(n) for n in sorted(est.get_variable_names())},
    }


def baseline_classifier_case(tf, tmp):
    d = data()
    est = tf.estimator.BaselineClassifier(model_dir=os.path.join(tmp, "m"), weight_column="w")
    return _baseline_run(tf, est, d["x"], d["binary"], d["w"])


def baseline_multi_class_case(tf, tmp):
    d = data()
    est = tf.estimator.BaselineClassifier(
        model_dir=os.path.join(tmp, "m"), n_classes=3, optimizer="Adagrad"
    )
    return _baseline_run(tf, est, d["x"], d["multi"])


def baseline_regressor_case(tf, tmp):
    d = data()
    est = tf.estimator.BaselineRegressor(model_dir=os.path.join(tmp, "m"), label_dimension=2)
    return _baseline_run(tf, est, d["x"], d["reg"])


def baseline_estimator_case(tf, tmp):
    d = data()
    est = tf.estimator.BaselineEstimator(
        tf.estimator.MultiLabelHead(3), model_dir=os.path.join(tmp, "m")
    )
    return _baseline_run(tf, est, d["x"], d["multi_label"])


def _seed_model_dir(tf, path, shapes):
    """A model_dir whose checkpoint (step 5) holds fixed values."""
    rng = np.random.RandomState(5)
    with tf.Graph().as_default():
        for name, shape in sorted(shapes.items()):
            tf.Variable(rng.uniform(-0.5, 0.5, size=shape).astype(np.float32), name=name)
        tf.Variable(np.int64(5), name="global_step")
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            tf.train.Saver().save(sess, os.path.join(path, "model.ckpt"), global_step=5)
    return path


def _columns(tf):
    fc = tf.feature_column
    return [fc.numeric_column("x", shape=(3,))]


def linear_estimator_case(tf, tmp):
    d = data()
    model_dir = _seed_model_dir(
        tf,
        os.path.join(tmp, "m"),
        {"linear/linear_model/x/weights": [3, 2], "linear/linear_model/bias_weights": [2]},
    )
    est = tf.estimator.LinearEstimator(
        tf.estimator.RegressionHead(label_dimension=2), _columns(tf), model_dir=model_dir
    )
    inputs = tf.estimator.inputs
    fn = inputs.numpy_input_fn({"x": d["x"]}, d["reg"], batch_size=8, num_epochs=1, shuffle=False)
    metrics = est.evaluate(fn)
    try:
        est.train(fn)
        train_error = "no error"
    except Exception as e:  # TF 1.15: the public heads refuse a tf.train optimizer
        train_error = type(e).__name__
    return {"metrics": {k: float(v) for k, v in metrics.items()}, "train_error": train_error}


def dnn_estimator_case(tf, tmp):
    d = data()
    model_dir = _seed_model_dir(
        tf,
        os.path.join(tmp, "m"),
        {
            "dnn/hiddenlayer_0/kernel": [3, 4],
            "dnn/hiddenlayer_0/bias": [4],
            "dnn/logits/kernel": [4, 3],
            "dnn/logits/bias": [3],
        },
    )
    est = tf.estimator.DNNEstimator(
        tf.estimator.MultiClassHead(3), [4], _columns(tf), model_dir=model_dir
    )
    inputs = tf.estimator.inputs
    fn = inputs.numpy_input_fn({"x": d["x"]}, d["multi"], batch_size=8, num_epochs=1, shuffle=False)
    metrics = est.evaluate(fn)
    preds = list(est.predict(inputs.numpy_input_fn({"x": d["x"]}, shuffle=False)))
    try:
        est.train(fn)
        train_error = "no error"
    except Exception as e:
        train_error = type(e).__name__
    return {
        "metrics": {k: float(v) for k, v in metrics.items()},
        "probabilities": np.stack([p["probabilities"] for p in preds]),
        "train_error": train_error,
    }


def dnn_linear_combined_estimator_case(tf, tmp):
    d = data()
    model_dir = _seed_model_dir(
        tf,
        os.path.join(tmp, "m"),
        {
            "dnn/hiddenlayer_0/kernel": [3, 2],
            "dnn/hiddenlayer_0/bias": [2],
            "dnn/logits/kernel": [2, 1],
            "dnn/logits/bias": [1],
            "linear/linear_model/x/weights": [3, 1],
            "linear/linear_model/bias_weights": [1],
        },
    )
    est = tf.estimator.DNNLinearCombinedEstimator(
        tf.estimator.BinaryClassHead(),
        model_dir=model_dir,
        linear_feature_columns=_columns(tf),
        dnn_feature_columns=_columns(tf),
        dnn_hidden_units=[2],
        linear_optimizer=tf.train.GradientDescentOptimizer(0.05),
        dnn_optimizer=tf.train.GradientDescentOptimizer(0.05),
    )
    return _baseline_run(tf, est, d["x"], d["binary"])


def linear_many_columns_case(tf, tmp):
    """30 columns: the default 'Ftrl' gets learning rate 0.2, optimizer=None gets
    min(0.2, 1/sqrt(30))."""
    d = data()
    x = np.tile(d["x"], (1, 10))
    feats = {f"f{i}": x[:, i] for i in range(30)}
    cols = [tf.feature_column.numeric_column(f"f{i}") for i in range(30)]
    out = {}
    for name, opt in (("named", "Ftrl"), ("none", None)):
        est = tf.estimator.LinearRegressor(cols, model_dir=os.path.join(tmp, name), optimizer=opt)
        est.train(
            tf.estimator.inputs.numpy_input_fn(
                feats, d["reg1"], batch_size=8, num_epochs=1, shuffle=False
            )
        )
        out[name] = est.get_variable_value("linear/linear_model/f3/weights")
    return out


def add_metrics_case(tf, tmp):
    d = data()
    est = tf.estimator.BaselineRegressor(model_dir=os.path.join(tmp, "m"))

    def metric_fn(labels, predictions):
        return {"mae": tf.metrics.mean_absolute_error(labels, predictions["predictions"])}

    est = tf.estimator.add_metrics(est, metric_fn)
    return _baseline_run(tf, est, d["x"], d["reg1"])


def parse_spec_case(tf, tmp):
    fc = tf.feature_column
    cols = [
        fc.numeric_column("a", shape=(2,)),
        fc.categorical_column_with_vocabulary_list("c", ["x", "y"]),
    ]

    def show(spec):
        out = {}
        for k, v in sorted(spec.items()):
            fields = [type(v).__name__, v.dtype.name]
            if hasattr(v, "shape"):
                fields += [list(v.shape), repr(v.default_value)]
            out[k] = fields
        return out

    def catch(fn):
        try:
            fn()
        except Exception as e:
            return type(e).__name__
        return "no error"

    est = tf.estimator
    return {
        "classifier": show(est.classifier_parse_example_spec(cols, "label", weight_column="w")),
        "regressor": show(
            est.regressor_parse_example_spec(
                cols,
                "y",
                label_dimension=3,
                label_default=0.0,
                weight_column=fc.numeric_column("w"),
            )
        ),
        "label_is_feature": catch(lambda: est.classifier_parse_example_spec(cols, "a")),
        "weight_is_feature": catch(
            lambda: est.regressor_parse_example_spec(cols, "y", weight_column="a")
        ),
    }


def _layout(root):
    """The files under root, timestamps (10-digit folders) written as TS."""
    out = []
    for dirpath, _dirs, files in os.walk(root):
        for f in files:
            rel = os.path.relpath(os.path.join(dirpath, f), root)
            out.append(re.sub(r"(^|/)\d{10}(/|$)", r"\1TS\2", rel))
    return sorted(out)


def exporters_case(tf, tmp):
    d = data()
    model_dir = os.path.join(tmp, "m")
    config = tf.estimator.RunConfig(save_checkpoints_steps=2, save_summary_steps=1000)
    est = tf.estimator.BaselineRegressor(model_dir=model_dir, config=config)
    inputs = tf.estimator.inputs
    train = inputs.numpy_input_fn(
        {"x": d["x"]}, d["reg1"], batch_size=8, num_epochs=None, shuffle=False
    )
    evaluate = inputs.numpy_input_fn(
        {"x": d["x"]}, d["reg1"], batch_size=8, num_epochs=1, shuffle=False
    )
    spec = tf.feature_column.make_parse_example_spec(_columns(tf))
    receiver = tf.estimator.export.build_parsing_serving_input_receiver_fn(spec)
    exporters = [
        tf.estimator.LatestExporter("latest", receiver, exports_to_keep=2),
        tf.estimator.FinalExporter("final", receiver),
        tf.estimator.BestExporter("best", receiver, exports_to_keep=None),
    ]
    result = tf.estimator.train_and_evaluate(
        est,
        tf.estimator.TrainSpec(train, max_steps=6),
        tf.estimator.EvalSpec(evaluate, steps=None, exporters=exporters, throttle_secs=0),
    )
    first = _layout(os.path.join(model_dir, "export"))
    counts = {
        e.name: len(os.listdir(os.path.join(model_dir, "export", e.name)))
        for e in exporters
        if os.path.isdir(os.path.join(model_dir, "export", e.name))
    }

    # A restarted job: the best result so far is read back from the eval event files, so
    # an exporter preferring a larger loss exports nothing for the (smaller-loss) next one.
    def larger_loss(best_eval_result, current_eval_result):
        return current_eval_result["loss"] > best_eval_result["loss"]

    est2 = tf.estimator.BaselineRegressor(model_dir=model_dir, config=config)
    result2 = tf.estimator.train_and_evaluate(
        est2,
        tf.estimator.TrainSpec(train, max_steps=8),
        tf.estimator.EvalSpec(
            evaluate,
            steps=None,
            exporters=[tf.estimator.BestExporter("worst", receiver, compare_fn=larger_loss)],
            throttle_secs=0,
        ),
    )
    return {
        "metrics": {k: float(v) for k, v in (result[0] or {}).items()},
        "export_kinds": [None if r is None else "dir" for r in result[1]],
        "layout": first,
        "counts": counts,
        "restart_export_kinds": [None if r is None else "dir" for r in result2[1]],
        "after_restart": _layout(os.path.join(model_dir, "export")),
    }


def exporter_errors_case(tf, tmp):
    est = tf.estimator

    def catch(fn):
        try:
            fn()
        except Exception as e:
            return type(e).__name__
        return "no error"

    def receiver():
        return None

    return {
        "latest_keep_0": catch(lambda: est.LatestExporter("a", receiver, exports_to_keep=0)),
        "best_no_compare": catch(lambda: est.BestExporter("a", receiver, compare_fn=None)),
        "best_bad_args": catch(
            lambda: est.BestExporter("a", receiver, compare_fn=lambda a, b: True)
        ),
        "duplicate_names": catch(
            lambda: est.EvalSpec(
                lambda: None,
                exporters=[est.FinalExporter("x", receiver), est.LatestExporter("x", receiver)],
            )
        ),
        "not_exporter": catch(lambda: est.EvalSpec(lambda: None, exporters=[object()])),
        "add_metrics_bad_args": catch(
            lambda: est.add_metrics(est.BaselineRegressor(), lambda labels, other: {})
        ),
    }


def _catch(fn):
    try:
        fn()
    except Exception as e:  # the class is what is compared
        return type(e).__name__
    return "no error"


def shared_embedding_case(tf, tmp):
    fc = tf.feature_column
    a = fc.categorical_column_with_vocabulary_list("a", ["x", "y", "z"])
    c = fc.categorical_column_with_vocabulary_list("c", ["p", "q", "r"])
    b = fc.categorical_column_with_identity("b", 3)
    b2 = fc.categorical_column_with_identity("b2", 3)
    table = np.arange(6, dtype=np.float32).reshape(3, 2) / 4.0
    emb_c, emb_a = fc.shared_embedding_columns(
        [c, a], 2, combiner="sum", initializer=tf.constant_initializer(table)
    )
    named = fc.shared_embedding_columns(
        [b, fc.weighted_categorical_column(b2, "w")],
        3,
        shared_embedding_collection_name="mine",
        initializer=tf.constant_initializer(0.5),
    )
    features = {
        "a": tf.constant([["x", "z"], ["y", ""], ["q", "x"]]),
        "c": tf.constant([["r"], ["p"], ["zz"]]),
        "b": tf.constant([[0, 2], [1, 1], [2, -1]], tf.int64),
        "b2": tf.constant([[1, 2], [0, -1], [2, 2]], tf.int64),
        "w": tf.constant([[1.0, 2.0], [0.5, 0.5], [3.0, 0.0]]),
    }
    first = fc.input_layer(features, [emb_a, emb_c])
    second = fc.input_layer(features, [emb_c])
    third = fc.input_layer(features, named)
    lm = fc.linear_model(features, [emb_a], units=1)
    with tf.Session() as sess:
        sess.run([tf.global_variables_initializer(), tf.tables_initializer()])
        values = sess.run({"first": first, "second": second, "third": third, "lm": lm})
    return dict(
        values,
        names=[emb_a.name, emb_c.name, named[0].name, named[1].name],
        variables=sorted(v.op.name for v in tf.global_variables()),
        errors={
            "buckets": _catch(
                lambda: fc.shared_embedding_columns(
                    [a, fc.categorical_column_with_identity("c", 4)], 2
                )
            ),
            "types": _catch(lambda: fc.shared_embedding_columns([a, b], 2)),
            "dimension": _catch(lambda: fc.shared_embedding_columns([a, c], 0)),
        },
    )


def sequence_columns_case(tf, tmp):
    fc = tf.feature_column
    tokens = fc.sequence_categorical_column_with_vocabulary_list("tok", ["a", "b", "c"])
    ids = fc.sequence_categorical_column_with_identity("ids", 5)
    hashed = fc.sequence_categorical_column_with_hash_bucket("h", 7)
    vocab = os.path.join(tmp, "v.txt")
    with open(vocab, "w") as f:
        f.write("a\nb\n")
    from_file = fc.sequence_categorical_column_with_vocabulary_file("f", vocab, num_oov_buckets=1)
    price = fc.sequence_numeric_column("price", shape=(2,), dtype=tf.float64)
    spec = fc.make_parse_example_spec([tokens, ids, hashed, from_file])
    features = {
        "tok": tf.SparseTensor([[0, 0], [0, 1], [1, 0], [2, 2]], ["a", "c", "b", "x"], [3, 3]),
        "ids": tf.SparseTensor([[0, 0], [1, 0], [1, 1]], tf.constant([1, 4, 2], tf.int64), [3, 2]),
    }
    lm = fc.linear_model(features, [tokens, ids], units=2)
    weights = [v for v in tf.global_variables() if v.name.startswith("linear_model/")]
    assigns = [
        tf.assign(
            v,
            (np.arange(np.prod(v.shape.as_list())).reshape(v.shape.as_list()) / 8.0 + 0.25).astype(
                np.float32
            ),
        )
        for v in weights
    ]
    with tf.Session() as sess:
        sess.run([tf.global_variables_initializer(), tf.tables_initializer()])
        sess.run(assigns)
        value = sess.run(lm)
    return {
        "linear_model": value,
        "variables": sorted(v.op.name for v in tf.global_variables()),
        "spec": sorted(f"{k}:{type(v).__name__}:{v.dtype.name}" for k, v in spec.items()),
        "names": [c.name for c in (tokens, ids, hashed, from_file, price)],
        "errors": {
            "embedding": _catch(lambda: fc.input_layer(features, [fc.embedding_column(tokens, 2)])),
            "indicator": _catch(lambda: fc.input_layer(features, [fc.indicator_column(ids)])),
            "numeric": _catch(lambda: fc.input_layer({"price": tf.constant([[1.0]])}, [price])),
            "numeric_spec": _catch(lambda: fc.make_parse_example_spec([price])),
            "bad_dtype": _catch(lambda: fc.sequence_numeric_column("s", dtype=tf.string)),
            "bad_shape": _catch(lambda: fc.sequence_numeric_column("s", shape=(0,))),
        },
    }


CASES = {
    "shared_embedding": shared_embedding_case,
    "sequence_columns": sequence_columns_case,
    "binary_head": binary_head_case,
    "binary_head_weighted": binary_head_weighted_case,
    "multi_class_head": multi_class_head_case,
    "multi_class_head_weighted": multi_class_head_weighted_case,
    "multi_label_head": multi_label_head_case,
    "regression_head": regression_head_case,
    "regression_head_loss_fn": regression_head_loss_fn_case,
    "poisson_head": poisson_head_case,
    "logistic_head": logistic_head_case,
    "multi_head": multi_head_case,
    "head_errors": head_errors_case,
    "head_losses": head_losses_case,
    "head_methods": head_methods_case,
    "baseline_classifier": baseline_classifier_case,
    "baseline_multi_class": baseline_multi_class_case,
    "baseline_regressor": baseline_regressor_case,
    "baseline_estimator": baseline_estimator_case,
    "linear_estimator": linear_estimator_case,
    "dnn_estimator": dnn_estimator_case,
    "dnn_linear_combined_estimator": dnn_linear_combined_estimator_case,
    "linear_many_columns": linear_many_columns_case,
    "add_metrics": add_metrics_case,
    "parse_spec": parse_spec_case,
    "exporters": exporters_case,
    "exporter_errors": exporter_errors_case,
}
