"""Attribute access on tf.keras optimizers in TF 1.15: `lr` reads the learning_rate
hyperparameter of an OptimizerV2, and a missing attribute raises the AttributeError for the
name asked (`lr`, not the `learning_rate` it is looked up as), e.g. on the TFOptimizer that
model.compile wraps a tf.train optimizer in (ReduceLROnPlateau reads `optimizer.lr`).
Runs under Python 3.7 (TF 1.15) and on tfcluster.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


def _attribute(obj: Any, name: str) -> dict[str, Any]:
    try:
        value = getattr(obj, name)
    except AttributeError as e:
        return {"error": type(e).__name__, "message": str(e)}
    return {"type": type(value).__name__}


def _compiled_optimizer(tf: Any, optimizer: Any) -> Any:
    with tf.Graph().as_default():
        model = tf.keras.Sequential([tf.keras.layers.Dense(1, input_shape=(2,))])
        model.compile(optimizer=optimizer, loss="mse")
        return model.optimizer


def tf_optimizer_lr(tf: Any) -> dict[str, Any]:
    optimizer = _compiled_optimizer(tf, tf.train.AdamOptimizer(0.01))
    return {"class": type(optimizer).__name__, **_attribute(optimizer, "lr")}


def tf_optimizer_missing(tf: Any) -> dict[str, Any]:
    optimizer = _compiled_optimizer(tf, tf.train.GradientDescentOptimizer(0.1))
    return _attribute(optimizer, "momentum")


def keras_adam_lr(tf: Any) -> dict[str, Any]:
    with tf.Graph().as_default():
        return _attribute(tf.keras.optimizers.Adam(0.01), "lr")


def keras_adam_missing(tf: Any) -> dict[str, Any]:
    with tf.Graph().as_default():
        return _attribute(tf.keras.optimizers.Adam(0.01), "momentum")


CASES: dict[str, Callable[[Any], dict[str, Any]]] = {
    fn.__name__: fn
    for fn in (tf_optimizer_lr, tf_optimizer_missing, keras_adam_lr, keras_adam_missing)
}
