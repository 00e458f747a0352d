"""Constructing a BoostedTrees estimator turns resource variables on for the whole process in
TF 1.15 (its _BoostedTreesBase calls enable_resource_variables so that the global step is a
resource variable): every variable made later without use_resource, in any graph and by any
estimator, is a resource variable (VarHandleOp), which also moves the op count and so the op
seeds of later random ops. Each case restores the switch after it.
Runs under Python 3.7 (TF 1.15) and on tfcluster.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


def _variable_after(tf: Any) -> dict[str, Any]:
    graph = tf.Graph()
    with graph.as_default():
        tf.set_random_seed(3)
        step = tf.train.get_or_create_global_step()
        w = tf.get_variable("w", [2], initializer=tf.random_normal_initializer())
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            value = sess.run(w)
        return {
            "global_step_op": step.op.type,
            "variable_op": w.op.type,
            "op_count": graph._op_count() if hasattr(graph, "_op_count") else graph._last_id,
            "value": value,
        }


def _with_switch_restored(tf: Any, build: Callable[[Any], dict[str, Any]]) -> dict[str, Any]:
    was = tf.resource_variables_enabled()
    try:
        return build(tf)
    finally:
        if was:
            tf.enable_resource_variables()
        else:
            tf.disable_resource_variables()


def _regressor(tf: Any) -> Any:
    column = tf.feature_column.bucketized_column(tf.feature_column.numeric_column("x"), [0.0])
    return tf.estimator.BoostedTreesRegressor([column], n_batches_per_layer=1)


def _classifier(tf: Any) -> Any:
    column = tf.feature_column.bucketized_column(tf.feature_column.numeric_column("x"), [0.0])
    return tf.estimator.BoostedTreesClassifier([column], n_batches_per_layer=1)


def _constructed_then_variable(make: Callable[[Any], Any]) -> Callable[[Any], dict[str, Any]]:
    def case(tf: Any) -> dict[str, Any]:
        def build(tf: Any) -> dict[str, Any]:
            tf.disable_resource_variables()
            before = tf.resource_variables_enabled()
            make(tf)
            return {
                "before": before,
                "after": tf.resource_variables_enabled(),
                **_variable_after(tf),
            }

        return _with_switch_restored(tf, build)

    return case


def variables_before_any_boosted_trees(tf: Any) -> dict[str, Any]:
    def build(tf: Any) -> dict[str, Any]:
        tf.disable_resource_variables()
        return {"enabled": tf.resource_variables_enabled(), **_variable_after(tf)}

    return _with_switch_restored(tf, build)


CASES: dict[str, Callable[[Any], dict[str, Any]]] = {
    "variables_before_any_boosted_trees": variables_before_any_boosted_trees,
    "variables_after_boosted_trees_regressor": _constructed_then_variable(_regressor),
    "variables_after_boosted_trees_classifier": _constructed_then_variable(_classifier),
}
