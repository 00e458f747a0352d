"""Layer.add_metric and Model.add_metric in TF 1.15's graph-mode Keras: a functional model's
add_metric outside any call (its ops as TensorFlowOpLayers and an AddMetric layer, the ops
they make), a layer's add_metric in its call, a subclassed model's (a Metric made in its
__init__ reported first), the same name added twice, and TF's ValueErrors; the names, the
history of fit and the values of evaluate. Written once for TF 1.15
(record_keras_add_metric.py) and tfcluster (tests/unit/test_keras_add_metric.py); kept
runnable on Python 3.7."""

import numpy as np

try:  # imported by the tests (tests/ on the path) or run by a recorder (from this folder)
    from tf_reference.case_tools import registrar
except ImportError:
    from case_tools import registrar

CASES = {}
case = registrar(CASES, own_graph=True)


def _data():
    x = np.random.RandomState(0).rand(8, 3).astype("float32")
    return x, np.zeros((8, 2), "float32")


def _history(history):
    return {k: [round(float(v), 5) for v in vs] for k, vs in history.history.items()}


def _fit_and_evaluate(model, x, y):
    history = model.fit(x, y, batch_size=4, epochs=2, verbose=0, shuffle=False)
    return {
        "history": _history(history),
        "history_keys": list(history.history),
        "metrics_names": list(model.metrics_names),
        "metrics": [m.name for m in model.metrics],
        "evaluate": [round(float(v), 5) for v in model.evaluate(x, y, batch_size=4, verbose=0)],
    }


@case
def functional_model_add_metric(tf):
    inp = tf.keras.Input((3,))
    out = tf.keras.layers.Dense(2, kernel_initializer="ones")(inp)
    model = tf.keras.Model(inp, out)
    before = len(tf.get_default_graph().get_operations())
    model.add_metric(tf.reduce_mean(out), name="mean_out", aggregation="mean")
    ops = [op.name for op in tf.get_default_graph().get_operations()[before:]]
    result = {
        "layers": [[layer.name, type(layer).__name__] for layer in model.layers],
        "ops": ops,
        "names_before_compile": list(model.metrics_names),
        "add_metric_config": model.get_config()["layers"][-1],
    }
    model.compile("sgd", "mse", metrics=["mae"])
    result.update(_fit_and_evaluate(model, *_data()))
    return result


@case
def layer_add_metric_in_its_call(tf):
    class Summing(tf.keras.layers.Layer):
        def call(self, x):
            self.add_metric(tf.reduce_sum(x), name="input_sum", aggregation="mean")
            return x

    inp = tf.keras.Input((3,))
    summing = Summing()
    out = tf.keras.layers.Dense(2, kernel_initializer="ones")(summing(inp))
    model = tf.keras.Model(inp, out)
    model.compile("sgd", "mse")
    result = _fit_and_evaluate(model, *_data())
    result["layer_metrics"] = [m.name for m in summing.metrics]
    return result


@case
def subclassed_model_add_metric(tf):
    class Sub(tf.keras.Model):
        def __init__(self):
            super().__init__()
            self.d = tf.keras.layers.Dense(2, kernel_initializer="ones")
            self.mean_out = tf.keras.metrics.Mean(name="mean_out")

        def call(self, inp):
            out = self.d(inp)
            self.add_metric(tf.reduce_max(out), name="max_out", aggregation="mean")
            self.add_metric(self.mean_out(out))
            return out

    model = Sub()
    model.compile("sgd", "mse")
    return _fit_and_evaluate(model, *_data())


@case
def same_name_added_twice(tf):
    inp = tf.keras.Input((3,))
    out = tf.keras.layers.Dense(2, kernel_initializer="ones")(inp)
    model = tf.keras.Model(inp, out)
    model.add_metric(tf.reduce_sum(out), name="s", aggregation="mean")
    model.add_metric(tf.reduce_sum(out * 2.0), name="s", aggregation="mean")
    model.compile("sgd", "mse", metrics=["mae"])
    return _fit_and_evaluate(model, *_data())


@case
def add_metric_refusals(tf):
    inp = tf.keras.Input((3,))
    out = tf.keras.layers.Dense(2)(inp)
    model = tf.keras.Model(inp, out)
    mean = tf.keras.metrics.Mean(name="m")
    attempts = {
        "no_name": dict(value=tf.reduce_mean(out), aggregation="mean"),
        "aggregated_without_metric": dict(value=tf.reduce_mean(out), name="x"),
        "sum_aggregation": dict(value=tf.reduce_mean(out), name="y", aggregation="sum"),
        "not_a_tensor": dict(value=1.0, name="z", aggregation="mean"),
        "metric_result_on_functional": dict(value=mean(out)),
    }
    result = {}
    for label, kwargs in sorted(attempts.items()):
        try:
            model.add_metric(**kwargs)
            result[label] = None
        except ValueError as e:
            result[label] = str(e)
    return result
