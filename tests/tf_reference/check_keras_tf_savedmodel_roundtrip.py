"""TF 1.15 loads the Keras SavedModels tfcluster's model.save(save_format='tf') writes.

Two steps, by hand (the test suite never imports TensorFlow):

    # 1. tfcluster writes the SavedModels of the models of record_keras_tf_savedmodel.py,
    #    with their predictions, evaluation and summary, into DIR:
    cd tests/tf_reference
    PYTHONPATH=../../server:../../operator python check_keras_tf_savedmodel_roundtrip.py write DIR
    # 2. TF 1.15's tf.keras.models.load_model loads them and compares (from outside /tmp):
    /tmp/tf115/bin/python check_keras_tf_savedmodel_roundtrip.py check DIR

Step 2 prints one line per case (`same` or what differs) and exits non-zero on a difference.
"""

import json
import os
import sys

import keras_tf_savedmodel_models as models
import numpy as np
from keras_tf_savedmodel_models import Y_CLASSES, Y_VALUES, X

X_PAIR = [X, np.linspace(0, 1, 10).reshape(5, 2).astype(np.float32)]


def _x(name):
    return X_PAIR if name == "two_inputs" else X


def _models(tf):
    def sequential():
        return models.sequential_mlp(tf), Y_CLASSES

    def functional():
        return models.functional_mlp(tf), Y_VALUES

    def nested():
        return models.nested_mlp(tf), Y_CLASSES

    class Subclassed(tf.keras.Model):
        def __init__(self):
            super().__init__()
            self.dense = tf.keras.layers.Dense(2)

        def call(self, inputs):
            return self.dense(inputs)

    def subclassed():
        model = Subclassed()
        model.compile(tf.keras.optimizers.SGD(0.1), "mse")
        return model, Y_VALUES

    def two_inputs():
        return models.two_inputs(tf), [Y_VALUES, Y_CLASSES.reshape(5, 1).astype(np.float32)]

    return {
        "two_inputs": two_inputs,
        "sequential_mlp": sequential,
        "functional_mlp": functional,
        "nested_sequential": nested,
        "subclassed": subclassed,
    }


def _outputs(predictions):
    return predictions if isinstance(predictions, list) else [predictions]


def _summary(model):
    lines = []
    model.summary(print_fn=lines.append)
    return "\n".join(lines)


def write(directory):
    import tfcluster as tf

    for name, build in sorted(_models(tf).items()):
        tf.keras.backend.clear_session()
        model, y = build()
        if name == "subclassed":  # its weights are made by its first call
            model.fit(_x(name), y, epochs=1, batch_size=5, shuffle=False, verbose=0)
        values = [np.linspace(0.1, 1, np.prod(w.shape)) for w in model.get_weights()]
        model.set_weights(
            [v.reshape(w.shape).astype(np.float32) for v, w in zip(values, model.get_weights())]
        )
        model.fit(_x(name), y, epochs=2, batch_size=5, shuffle=False, verbose=0)
        model.save(os.path.join(directory, name), save_format="tf")
        expected = {
            "predictions": [np.asarray(p).tolist() for p in _outputs(model.predict(_x(name)))],
            "evaluate": np.atleast_1d(model.evaluate(_x(name), y, verbose=0)).tolist(),
            "summary": _summary(model) if name == "sequential_mlp" else None,
        }
        with open(os.path.join(directory, name + ".json"), "w") as f:
            json.dump(expected, f)
        print("wrote", name)


def check(directory):
    import tensorflow as tf

    failed = False
    for name, build in sorted(_models(tf).items()):
        tf.keras.backend.clear_session()
        _, y = build()
        with open(os.path.join(directory, name + ".json")) as f:
            expected = json.load(f)
        loaded = tf.keras.models.load_model(os.path.join(directory, name))
        problems = []
        got = _outputs(loaded.predict(_x(name)))
        if len(got) != len(expected["predictions"]) or not all(
            np.allclose(g, e, rtol=1e-5, atol=1e-6) for g, e in zip(got, expected["predictions"])
        ):
            problems.append("predictions")
        evaluate = np.atleast_1d(loaded.evaluate(_x(name), y, verbose=0))
        if not np.allclose(evaluate, expected["evaluate"], rtol=1e-5):
            problems.append("evaluate")
        if expected["summary"] is not None and _summary(loaded) != expected["summary"]:
            problems.append("summary")
        failed = failed or bool(problems)
        print(
            name,
            type(loaded).__name__,
            "same" if not problems else "differs: " + ", ".join(problems),
        )
    return 1 if failed else 0


if __name__ == "__main__":
    if len(sys.argv) != 3 or sys.argv[1] not in ("write", "check"):
        raise SystemExit(__doc__)
    if sys.argv[1] == "write":
        os.makedirs(sys.argv[2], exist_ok=True)
        write(sys.argv[2])
    else:
        sys.exit(check(sys.argv[2]))
