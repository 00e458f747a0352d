"""tf.keras Model.fit / evaluate / predict fed tables rather than numpy arrays: TF 1.15's
standardize_input_data takes an object whose class is named `DataFrame` (pandas') through its
`.values`, and a 1-D array-like with a shape (a pandas Series) through np.expand_dims. The
small `DataFrame` and `Series` below hold what Keras reads of pandas' (the class name,
`.values`, `.shape`, `__array__`; row slices as `df[:k]`), so neither side needs pandas. Run
on TF 1.15 by record_keras_table_input.py and on tfcluster by
tests/unit/test_keras_table_input.py. Python 3.7 code."""

from __future__ import annotations

import numpy as np


class DataFrame:
    def __init__(self, values):
        self.values = np.asarray(values)

    @property
    def shape(self):
        return self.values.shape

    def __len__(self):
        return len(self.values)

    def __array__(self, dtype=None):
        return self.values if dtype is None else self.values.astype(dtype)

    def __getitem__(self, rows):
        return DataFrame(self.values[rows])


class Series:
    def __init__(self, values):
        self._values = np.asarray(values)

    @property
    def shape(self):
        return self._values.shape

    @property
    def ndim(self):
        return self._values.ndim

    def __len__(self):
        return len(self._values)

    def __array__(self, dtype=None):
        return self._values if dtype is None else self._values.astype(dtype)


def _data():
    rng = np.random.RandomState(7)
    x = rng.uniform(-1, 1, (12, 3))
    y = x @ np.array([0.5, -1.0, 2.0]) + 0.3
    return x, y


def run(tf):
    """A small regression fitted, evaluated and predicted on a DataFrame and a Series."""
    x, y = _data()
    tf.keras.backend.clear_session()
    model = tf.keras.Sequential(
        [
            tf.keras.layers.Dense(4, activation="relu", input_shape=(3,)),
            tf.keras.layers.Dense(1),
        ]
    )
    rng = np.random.RandomState(1)
    model.set_weights([rng.uniform(-0.5, 0.5, w.shape) for w in model.get_weights()])
    model.compile(optimizer="sgd", loss="mean_squared_error", metrics=["mean_absolute_error"])
    first = model.predict(DataFrame(x)[:5])
    history = model.fit(
        DataFrame(x),
        Series(y),
        epochs=3,
        batch_size=4,
        shuffle=False,
        validation_split=0.25,
        verbose=0,
    )
    return {
        "predict_before": first,
        "history": {k: [float(v) for v in vs] for k, vs in sorted(history.history.items())},
        "evaluate": [float(v) for v in model.evaluate(DataFrame(x), Series(y), verbose=0)],
        "predict_after": model.predict(DataFrame(x)),
    }
