"""tf.test.compute_gradient(_error) on a y that does not depend on x: the error TF raises.

Runs under Python 3.7 (TF 1.15) too.
"""

from __future__ import annotations

from typing import Any


def _error_class(fn: Any) -> str:
    try:
        fn()
    except Exception as e:
        return type(e).__name__
    return "none"


def unconnected_y(tf: Any) -> dict[str, Any]:
    with tf.Graph().as_default(), tf.Session():
        x = tf.constant([1.0, 2.0])
        y = tf.reduce_sum(tf.constant([3.0, 4.0]) * 2.0)
        return {
            "gradient_error": _error_class(lambda: tf.test.compute_gradient_error(x, [2], y, [])),
            "gradient": _error_class(lambda: tf.test.compute_gradient(x, [2], y, [])),
        }


CASES = {f.__name__: f for f in (unconnected_y,)}
