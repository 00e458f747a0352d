"""tf.keras.estimator.model_to_estimator of a subclassed tf.keras.Model (TF 1.15): each
model_fn rebuilds the model's layers in the estimator's graph (variables `<model>/<layer>/`),
the features keyed `input_<i>`, predictions `output_<i>`; the model given keeps its own
layers (unbuilt) but is marked built; nested subclassed models and attributes holding lists
of layers are refused with TF's ValueErrors. Written once for TF 1.15
(record_keras_estimator_subclassed.py) and tfcluster
(tests/unit/test_keras_estimator_subclassed.py); kept runnable on Python 3.7."""

import shutil
import tempfile

import numpy as np

try:  # imported by the tests (tests/ on the path) or run by a recorder (from this folder)
    from tf_reference.case_tools import registrar
except ImportError:
    from case_tools import registrar

CASES = {}
case = registrar(CASES, own_graph=True)


def _train_evaluate_predict(tf, model):
    rng = np.random.RandomState(0)
    x = rng.rand(16, 3).astype(np.float32)
    y = x.sum(1, keepdims=True)
    model_dir = tempfile.mkdtemp()
    try:
        config = tf.estimator.RunConfig(tf_random_seed=3)
        est = tf.keras.estimator.model_to_estimator(
            keras_model=model, model_dir=model_dir, config=config
        )

        def input_fn(epochs=None):
            return tf.estimator.inputs.numpy_input_fn(
                {"input_1": x}, y, batch_size=4, shuffle=False, num_epochs=epochs
            )

        est.train(input_fn(), steps=6)
        reader = tf.train.load_checkpoint(model_dir)
        variables = {
            name: np.round(reader.get_tensor(name), 5).tolist()
            for name, _ in tf.train.list_variables(model_dir)
        }
        metrics = {k: float(v) for k, v in est.evaluate(input_fn(1)).items()}
        predictions = [
            {k: np.asarray(v).tolist() for k, v in p.items()} for p in est.predict(input_fn(1))
        ]
        return {
            "variables": variables,
            "metrics": metrics,
            "predictions": predictions[:3],
            "model_built_after": bool(model.built),
            "layers_built_after": [bool(layer.built) for layer in model.layers],
        }
    finally:
        shutil.rmtree(model_dir, ignore_errors=True)


@case
def subclassed_model_trains_evaluates_predicts(tf):
    class TwoDense(tf.keras.Model):
        def __init__(self):
            super().__init__()
            self.hidden = tf.keras.layers.Dense(4, activation="relu")
            self.out = tf.keras.layers.Dense(1)

        def call(self, x):
            return self.out(self.hidden(x))

    model = TwoDense()
    model.compile(tf.keras.optimizers.SGD(0.1), "mse", metrics=["mae"])
    return _train_evaluate_predict(tf, model)


@case
def subclassed_model_with_dropout_and_training(tf):
    class WithDropout(tf.keras.Model):
        def __init__(self):
            super().__init__()
            self.hidden = tf.keras.layers.Dense(5, activation="tanh")
            self.drop = tf.keras.layers.Dropout(0.5)
            self.out = tf.keras.layers.Dense(1)

        def call(self, x, training=None):
            return self.out(self.drop(self.hidden(x), training=training))

    model = WithDropout()
    model.compile(tf.keras.optimizers.Adam(0.05), "mse")
    return _train_evaluate_predict(tf, model)


@case
def subclassed_models_refused(tf):
    class Inner(tf.keras.Model):
        def __init__(self):
            super().__init__()
            self.d = tf.keras.layers.Dense(1)

        def call(self, x):
            return self.d(x)

    class Nested(tf.keras.Model):
        def __init__(self):
            super().__init__()
            self.inner = Inner()

        def call(self, x):
            return self.inner(x)

    class Listed(tf.keras.Model):
        def __init__(self):
            super().__init__()
            self.stack = [tf.keras.layers.Dense(2), tf.keras.layers.Dense(1)]

        def call(self, x):
            for layer in self.stack:
                x = layer(x)
            return x

    out = {}
    x = np.ones((4, 3), np.float32)
    for label, cls in (("nested", Nested), ("list_of_layers", Listed)):
        model = cls()
        model.compile("sgd", "mse")
        model_dir = tempfile.mkdtemp()
        try:
            est = tf.keras.estimator.model_to_estimator(keras_model=model, model_dir=model_dir)
            est.train(
                tf.estimator.inputs.numpy_input_fn(
                    {"input_1": x}, x[:, :1], batch_size=2, shuffle=False
                ),
                steps=1,
            )
            out[label] = None
        except ValueError as e:
            out[label] = str(e).split(": ")[0]
        finally:
            shutil.rmtree(model_dir, ignore_errors=True)
    return out
