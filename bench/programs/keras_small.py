"""Issue 17 (tf.keras): small models trained with Model.fit, where each step's fixed cost
(the session run, the executor, a while loop's iterations, keras's own per-batch Python)
weighs as much as the arithmetic.

Rows:
  keras MLP fit, steps/s    Sequential Dense(64, relu) -> Dense(10, softmax) on MNIST-size
                            inputs (784 floats), sparse categorical cross entropy, SGD,
                            metrics=['accuracy'], batch 32: fit(epochs=1, verbose=0) over
                            2048 samples (64 steps), steps per second of wall time
  keras LSTM fit, steps/s   Sequential LSTM(32) over MNIST rows (28 steps of 28 floats) ->
                            Dense(10, softmax), the same loss and optimizer, batch 128:
                            fit(epochs=1, verbose=0) over 1024 samples (8 steps)

Each row's detail gives the process's CPU time per step too (user + system, all threads), the
figure to compare on a busy machine. Both models' first losses are checked against numpy before
timing, and a few epochs must lower them.

TensorFlow 2.x's tf.keras is Keras 3, which has no graph mode (tf.compat.v1 with v2 behaviour
disabled): there the TF side is skipped with that reason. Run it with TensorFlow 1.15
(`python3.7 bench/programs/keras_small.py --impl tf` in a TF 1.15 virtualenv, or bench/run.py
--tf1-python PATH).
"""

from __future__ import annotations

import os
import sys
import time
from typing import Any

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import _common as c

MLP_BATCH, MLP_SAMPLES, PIXELS, HIDDEN, CLASSES = 32, 2048, 784, 64, 10
LSTM_BATCH, LSTM_SAMPLES, ROWS, UNITS = 128, 1024, 28, 32


def has_graph_keras(tf: Any) -> bool:
    """Whether tf.keras builds graphs for a tf.Session (TF 1.x's and tfcluster's, not
    Keras 3)."""
    version = str(getattr(tf.keras, "__version__", ""))
    return not version.startswith("3.")


def data(samples: int, shape: tuple[int, ...], seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Inputs in [0, 1) and labels a linear map of them decides (so the loss can fall)."""
    r = np.random.RandomState(seed)
    x = r.uniform(0, 1, (samples, *shape)).astype(np.float32)
    w = r.standard_normal((int(np.prod(shape)), CLASSES))
    y = (x.reshape(samples, -1) @ w).argmax(axis=1).astype(np.int32)
    return x, y


def _softmax_xent(logits: np.ndarray, y: np.ndarray) -> float:
    z = logits - logits.max(axis=1, keepdims=True)
    p = np.exp(z) / np.exp(z).sum(axis=1, keepdims=True)
    return float(-np.log(p[np.arange(len(y)), y]).mean())


def numpy_mlp_loss(weights: list[np.ndarray], x: np.ndarray, y: np.ndarray) -> float:
    w1, b1, w2, b2 = (w.astype(np.float64) for w in weights)
    h = np.maximum(x @ w1 + b1, 0.0)
    return _softmax_xent(h @ w2 + b2, y)


def numpy_lstm_loss(weights: list[np.ndarray], x: np.ndarray, y: np.ndarray) -> float:
    """Keras's LSTM (gates i, f, c, o; hard sigmoid on the gates, tanh), then the dense layer."""
    kernel, recurrent, bias, w, b = (v.astype(np.float64) for v in weights)
    h = np.zeros((len(x), UNITS))
    cell = np.zeros((len(x), UNITS))

    def hard_sigmoid(v: np.ndarray) -> np.ndarray:
        return np.clip(0.2 * v + 0.5, 0.0, 1.0)

    for t in range(x.shape[1]):
        z = x[:, t] @ kernel + h @ recurrent + bias
        i, f, g, o = np.split(z, 4, axis=1)
        cell = hard_sigmoid(f) * cell + hard_sigmoid(i) * np.tanh(g)
        h = hard_sigmoid(o) * np.tanh(cell)
    return _softmax_xent(h @ w + b, y)


def build(tf: Any) -> dict[str, tuple[Any, np.ndarray, np.ndarray, int]]:
    """The two compiled models, checked against numpy, with their data and batch size."""
    k = tf.keras
    mlp = k.Sequential(
        [
            k.layers.Dense(HIDDEN, activation="relu", input_shape=(PIXELS,)),
            k.layers.Dense(CLASSES, activation="softmax"),
        ]
    )
    lstm = k.Sequential(
        [
            k.layers.LSTM(UNITS, recurrent_activation="hard_sigmoid", input_shape=(ROWS, ROWS)),
            k.layers.Dense(CLASSES, activation="softmax"),
        ]
    )
    models = {
        "keras MLP fit, steps/s": (mlp, *data(MLP_SAMPLES, (PIXELS,), 0), MLP_BATCH),
        "keras LSTM fit, steps/s": (lstm, *data(LSTM_SAMPLES, (ROWS, ROWS), 1), LSTM_BATCH),
    }
    checks = {"keras MLP fit, steps/s": numpy_mlp_loss, "keras LSTM fit, steps/s": numpy_lstm_loss}
    for name, (model, x, y, batch) in models.items():
        model.compile("sgd", "sparse_categorical_crossentropy", metrics=["accuracy"])
        # Checked before timing: a fast wrong answer cannot pass.
        got = model.evaluate(x[:batch], y[:batch], batch_size=batch, verbose=0)[0]
        want = checks[name](model.get_weights(), x[:batch], y[:batch])
        if not np.isclose(got, want, rtol=1e-4):
            raise SystemExit(f"{name}: loss {got} differs from numpy's {want}")
        before = model.evaluate(x, y, batch_size=batch, verbose=0)[0]
        model.fit(x, y, batch_size=batch, epochs=3, verbose=0)
        after = model.evaluate(x, y, batch_size=batch, verbose=0)[0]
        if not after < before:
            raise SystemExit(f"{name}: training did not lower the loss ({before} -> {after})")
    return models


def _one_epoch(model: Any, x: np.ndarray, y: np.ndarray, batch: int) -> Any:
    return lambda: model.fit(x, y, batch_size=batch, epochs=1, verbose=0)


def main() -> None:
    args = c.base_parser(__doc__ or "").parse_args()
    tf = c.import_tf(args.impl)
    if not has_graph_keras(tf):
        c.skip(args.impl, "this TensorFlow's tf.keras is Keras 3, which has no graph mode")
    cap = c.seconds_cap(args)
    c.progress("keras models: numpy checks and warm-up")
    models = build(tf)
    rounds = 4 if args.quick else 12
    rates: dict[str, list[float]] = {name: [] for name in models}
    cpu: dict[str, list[float]] = {name: [] for name in models}
    start = time.perf_counter()
    for r in range(rounds):
        # The models take turns, so that drift in the machine's load hits both alike.
        for name, (model, x, y, batch) in models.items():
            steps = -(-len(x) // batch)
            c0, t0 = time.process_time(), time.perf_counter()
            model.fit(x, y, batch_size=batch, epochs=1, verbose=0)
            wall = time.perf_counter() - t0
            rates[name].append(steps / wall)
            cpu[name].append((time.process_time() - c0) / steps)
        if r + 1 >= 3 and time.perf_counter() - start > 2 * cap:
            break
    wanted = set((args.profile or "").split(",")) - {""}
    rows = []
    for name, xs in rates.items():
        cpu_ms = c.median(cpu[name]) * 1e3
        row = c.rate_row(name, "steps/s", xs, detail=f"CPU {cpu_ms:.2f} ms/step")
        row.extra["cpu_seconds_per_step"] = c.median(cpu[name])
        if name in wanted:
            row.profile = c.profile_calls(_one_epoch(*models[name]), 3)
        rows.append(row)
        c.progress(f"  {name}: median {row.median:.1f} steps/s, CPU {cpu_ms:.2f} ms/step")
    c.emit(args.impl, rows)


if __name__ == "__main__":
    main()
