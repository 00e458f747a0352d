"""tf.estimator.add_metrics: an Estimator whose evaluation also reports the metrics a
metric_fn(features, labels, predictions, config) adds (any subset of those arguments)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tfcluster.lib.estimator.estimator import Estimator, _fn_args
from tfcluster.lib.estimator.model_fn import ModeKeys

_VALID_METRIC_FN_ARGS = {"features", "labels", "predictions", "config"}


def add_metrics(estimator: Estimator, metric_fn: Callable[..., Any]) -> Estimator:
    invalid = sorted(_fn_args(metric_fn) - _VALID_METRIC_FN_ARGS)
    if invalid:
        raise ValueError(f"metric_fn ({metric_fn}) has following not expected args: {invalid}")

    def new_model_fn(features: Any, labels: Any, mode: str, config: Any) -> Any:
        spec = estimator.model_fn(features, labels, mode, config)
        if mode != ModeKeys.EVAL:
            return spec
        given = {"features": features, "labels": labels, "predictions": spec.predictions}
        given["config"] = config
        wanted = _fn_args(metric_fn)
        metrics = dict(spec.eval_metric_ops or {})
        metrics.update(metric_fn(**{k: v for k, v in given.items() if k in wanted}))
        return spec._replace(eval_metric_ops=metrics)

    return Estimator(
        model_fn=new_model_fn,
        model_dir=estimator.model_dir,
        config=estimator.config,
        warm_start_from=estimator._warm_start_settings,
    )
