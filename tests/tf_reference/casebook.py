"""Cases that run unchanged on TensorFlow (in a recorder) and on tfcluster (in a test).

A case is fixed numpy inputs and a `build(tf, inputs)` that makes the graph with whichever
`tf` module it is given and returns the tensors to fetch (by key; tuples are flattened to
`key.0`, `key.1`, ...). `run_case` builds it in a fresh graph, optionally takes the gradient
of sum(w * out) with respect to some inputs (w fixed and non-uniform, so every output element
counts), runs it, and returns what a recorder stores and a test compares: values, tensor
names, and the class of any error (raised while building or while running).

Only numpy is imported here: recorders load this module in TensorFlow's venv, tests in
tfcluster's. It runs on Python 3.7 too (TF 1.15's).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    Build = Callable[[Any, dict[str, Any]], dict[str, Any]]
else:  # recorders also run on TF 1.15's Python 3.7, where dict[...] cannot be evaluated
    Build = Any


@dataclass
class Case:
    inputs: dict[str, np.ndarray]
    build: Build
    # (output key, input names): gradients of sum(w * output) with respect to those inputs.
    grad: tuple[str, tuple[str, ...]] | None = None
    # Feed the inputs through placeholders of unknown shape (the run-time shape paths).
    unknown_shapes: bool = False
    # Compare tensor names (off where TF 2.x's compat.v1 names differ from TF 1.15's).
    names: bool = True
    rtol: float = 1e-5
    atol: float = 1e-6
    notes: str = ""


@dataclass
class Book:
    cases: dict[str, Case] = field(default_factory=dict)

    def add(self, name: str, inputs: dict[str, Any], **kwargs: Any) -> Callable[[Build], Build]:
        def deco(build: Build) -> Build:
            if name in self.cases:
                raise ValueError(f"case {name!r} defined twice")
            arrays = {k: np.asarray(v) for k, v in inputs.items()}
            self.cases[name] = Case(arrays, build, **kwargs)
            return build

        return deco


def values(shape: tuple[int, ...], low: float = -1.0, high: float = 1.0, seed: int = 0) -> Any:
    """Deterministic scattered float64 values in [low, high) (no random generator: the same
    in every numpy version; recorders store the inputs they used anyway)."""
    n = int(np.prod(shape, dtype=np.int64))
    frac = np.modf(np.abs(np.sin(np.arange(n) * 12.9898 + seed * 78.233 + 1.0)) * 43758.5453)[0]
    return (low + (high - low) * frac).reshape(shape)


def _flatten(outputs: dict[str, Any]) -> dict[str, Any]:
    flat: dict[str, Any] = {}
    for key, value in outputs.items():
        if isinstance(value, (list, tuple)):
            for i, v in enumerate(value):
                flat[f"{key}.{i}"] = v
        else:
            flat[key] = value
    return flat


def _weights(tf: Any, y: Any) -> Any:
    """1/4 .. 7/4 in a repeating pattern, shaped like y (y's shape may be dynamic)."""
    ramp = tf.reshape(tf.range(tf.size(y)), tf.shape(y))
    return tf.cast(tf.floormod(ramp, 7) + 1, y.dtype) / tf.cast(4, y.dtype)


def run_case(tf: Any, case: Case) -> dict[str, Any]:
    """{"out:<key>": value, "name:<key>": tensor name, "grad:<input>": value} or
    {"error": exception, "stage": "build" | "run"}."""
    graph = tf.Graph()
    with graph.as_default():
        try:
            feeds: dict[Any, np.ndarray] = {}
            tensors: dict[str, Any] = {}
            for key, value in case.inputs.items():
                if case.unknown_shapes:
                    dtype = tf.as_dtype(value.dtype)
                    tensors[key] = tf.placeholder(dtype, shape=None, name=key)
                    feeds[tensors[key]] = value
                else:
                    tensors[key] = tf.constant(value, name=key)
            outputs = _flatten(case.build(tf, tensors))
            fetches = {f"out:{k}": v for k, v in outputs.items()}
            if case.grad is not None:
                key, wrt = case.grad
                y = outputs[key]
                loss = tf.reduce_sum(y * _weights(tf, y))
                grads = tf.gradients(loss, [tensors[n] for n in wrt])
                for n, g in zip(wrt, grads):
                    if g is not None:
                        fetches[f"grad:{n}"] = g
            init = tf.global_variables_initializer() if tf.global_variables() else None
        except Exception as e:
            return {"error": e, "stage": "build", **{f"in:{k}": v for k, v in case.inputs.items()}}
        result: dict[str, Any] = {f"in:{k}": v for k, v in case.inputs.items()}
        for k, v in outputs.items():
            if hasattr(v, "name") and case.names:
                result[f"name:{k}"] = v.name
        with tf.Session(graph=graph) as sess:
            try:
                if init is not None:
                    sess.run(init)
                values = sess.run(fetches, feeds)
            except Exception as e:
                return {
                    "error": e,
                    "stage": "run",
                    **{f"in:{k}": v for k, v in case.inputs.items()},
                }
    for k, v in values.items():
        result[k] = _as_array(v)
    return result


def _as_array(value: Any) -> np.ndarray:
    """A fetched value as an array; an IndexedSlicesValue (parts of different shapes) as an
    object array of its parts, as the TF side's numpy recorded it."""
    if isinstance(value, tuple):
        parts = np.empty(len(value), dtype=object)
        for i, part in enumerate(value):
            parts[i] = np.asarray(part)
        return parts
    return np.asarray(value)
