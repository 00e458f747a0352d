"""The canned DNN estimators of TF 1.15 with batch_norm=True: after each hidden layer (and its
dropout) a tf.layers BatchNormalization `dnn/hiddenlayer_<i>/batchnorm_<i>` (momentum 0.999,
resource variables) whose moving statistics the v1 head's train op updates (it groups
UPDATE_OPS with the optimizer's op). Each case trains a few steps from a seeded RunConfig
and records the checkpoint's variables (names, shapes, values), the evaluation metrics and
the first predictions. Written once for TF 1.15 (record_canned_batch_norm.py) and tfcluster
(tests/unit/test_canned_batch_norm.py); kept runnable on Python 3.7."""

import shutil
import tempfile

import numpy as np

try:  # imported by the tests (tests/ on the path) or run by a recorder (from this folder)
    from tf_reference.case_tools import registrar
except ImportError:
    from case_tools import registrar

CASES = {}
case = registrar(CASES, own_graph=True)


def _data():
    rng = np.random.RandomState(0)
    x = rng.rand(40, 3).astype(np.float32)
    return x, (x.sum(1) > 1.5).astype(np.int64), (x.sum(1, keepdims=True) - 1.5)


def _run(tf, make, labels, prediction_key, steps=5):
    x = _data()[0]
    model_dir = tempfile.mkdtemp()
    try:
        estimator = make(model_dir, tf.estimator.RunConfig(tf_random_seed=1))

        def input_fn(epochs=None):
            return tf.estimator.inputs.numpy_input_fn(
                {"x": x}, labels, batch_size=8, shuffle=False, num_epochs=epochs
            )

        estimator.train(input_fn(), steps=steps)
        reader = tf.train.load_checkpoint(model_dir)
        variables = {
            name: [list(shape), np.round(reader.get_tensor(name), 5).tolist()]
            for name, shape in tf.train.list_variables(model_dir)
        }
        metrics = {k: float(v) for k, v in estimator.evaluate(input_fn(1)).items()}
        predictions = [
            np.asarray(p[prediction_key]).tolist() for p in estimator.predict(input_fn(1))
        ]
        return {"variables": variables, "metrics": metrics, "predictions": predictions[:4]}
    finally:
        shutil.rmtree(model_dir, ignore_errors=True)


def _columns(tf):
    return [tf.feature_column.numeric_column("x", shape=(3,))]


@case
def dnn_classifier_with_batch_norm(tf):
    def make(model_dir, config):
        return tf.estimator.DNNClassifier(
            [4, 3], _columns(tf), model_dir=model_dir, batch_norm=True, config=config
        )

    return _run(tf, make, _data()[1], "probabilities")


@case
def dnn_regressor_with_batch_norm_and_dropout(tf):
    def make(model_dir, config):
        return tf.estimator.DNNRegressor(
            [5], _columns(tf), model_dir=model_dir, batch_norm=True, dropout=0.25, config=config
        )

    return _run(tf, make, _data()[2], "predictions")


@case
def wide_and_deep_with_batch_norm(tf):
    def make(model_dir, config):
        return tf.estimator.DNNLinearCombinedClassifier(
            model_dir=model_dir,
            linear_feature_columns=_columns(tf),
            dnn_feature_columns=_columns(tf),
            dnn_hidden_units=[4],
            batch_norm=True,
            config=config,
        )

    return _run(tf, make, _data()[1], "probabilities")


@case
def dnn_logit_fn_with_batch_norm(tf):
    """tf.estimator.experimental.dnn_logit_fn_builder(batch_norm=True) in a model_fn of one's
    own, whose train op runs the moving statistics' updates itself."""

    def model_fn(features, labels, mode, config):
        logit_fn = tf.estimator.experimental.dnn_logit_fn_builder(
            units=1,
            hidden_units=[3],
            feature_columns=_columns(tf),
            activation_fn=tf.nn.relu,
            dropout=None,
            input_layer_partitioner=None,
            batch_norm=True,
        )
        logits = logit_fn(features=features, mode=mode)
        if mode == tf.estimator.ModeKeys.PREDICT:
            return tf.estimator.EstimatorSpec(mode, predictions={"logits": logits})
        loss = tf.losses.mean_squared_error(labels, logits)
        with tf.control_dependencies(tf.get_collection(tf.GraphKeys.UPDATE_OPS)):
            train_op = tf.train.GradientDescentOptimizer(0.1).minimize(
                loss, global_step=tf.train.get_global_step()
            )
        return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)

    def make(model_dir, config):
        return tf.estimator.Estimator(model_fn, model_dir=model_dir, config=config)

    return _run(tf, make, _data()[2].astype(np.float32), "logits")
