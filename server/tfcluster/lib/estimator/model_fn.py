"""ModeKeys and EstimatorSpec: what a model_fn returns for each mode."""

from __future__ import annotations

import collections
from typing import Any

from tfcluster.framework.graph import (
    GraphKeys,
    Operation,
    Tensor,
    add_to_collection,
    get_collection,
)


class ModeKeys:
    TRAIN = "train"
    EVAL = "eval"
    PREDICT = "infer"


def _check_tensor(x: Any, name: str) -> None:
    if not isinstance(x, (Tensor, Operation)):
        raise TypeError(f"{name} must be Tensor, given: {x}")


class EstimatorSpec(
    collections.namedtuple(
        "EstimatorSpec",
        [
            "mode",
            "predictions",
            "loss",
            "train_op",
            "eval_metric_ops",
            "export_outputs",
            "training_chief_hooks",
            "training_hooks",
            "scaffold",
            "evaluation_hooks",
            "prediction_hooks",
        ],
    )
):
    """The ops and tensors a model_fn builds for one mode (checked as TF checks them)."""

    def __new__(
        cls,
        mode: str,
        predictions: Any = None,
        loss: Any = None,
        train_op: Any = None,
        eval_metric_ops: Any = None,
        export_outputs: Any = None,
        training_chief_hooks: Any = None,
        training_hooks: Any = None,
        scaffold: Any = None,
        evaluation_hooks: Any = None,
        prediction_hooks: Any = None,
    ) -> EstimatorSpec:
        from tfcluster.lib.estimator import export_output

        if mode not in (ModeKeys.TRAIN, ModeKeys.EVAL, ModeKeys.PREDICT):
            raise ValueError(f"mode={mode} unrecognized.")
        if train_op is None and mode == ModeKeys.TRAIN:
            raise ValueError("Missing train_op.")
        if train_op is not None:
            _check_tensor(train_op, "train_op")
        if loss is None and mode in (ModeKeys.TRAIN, ModeKeys.EVAL):
            raise ValueError("Missing loss.")
        if loss is not None:
            _check_tensor(loss, "loss")
            shape = loss.shape
            if shape.ndims is not None and shape.num_elements() not in (None, 1):
                raise ValueError(f"Loss must be scalar, given: {loss}")
            from tfcluster.ops import array_ops

            if shape.ndims:
                loss = array_ops.reshape(loss, [])
        if predictions is None:
            if mode == ModeKeys.PREDICT:
                raise ValueError("Missing predictions.")
            predictions = {}
        elif isinstance(predictions, dict):
            for k, v in predictions.items():
                _check_tensor(v, f"predictions[{k}]")
        else:
            _check_tensor(predictions, "predictions")
        eval_metric_ops = dict(eval_metric_ops or {})
        for k, v in list(eval_metric_ops.items()):
            if hasattr(v, "result") and hasattr(v, "updates"):
                metric = v
                # A metric object (a head's metrics() after update_metrics): its value and
                # update op.
                if not v.updates:
                    raise ValueError(f'Please call update_state(...) on the "{v.name}" metric')
                v = eval_metric_ops[k] = (v.result(), v.updates[0])
                _collect_metric_variables(metric)
            if not isinstance(v, tuple) or len(v) != 2:
                raise TypeError(
                    f"Values of eval_metric_ops must be (metric_value, update_op) tuples, "
                    f"given: {v} for key: {k}"
                )
        if mode == ModeKeys.PREDICT:
            export_outputs = export_output.get_export_outputs(export_outputs, predictions)
        return super().__new__(
            cls,
            mode=mode,
            predictions=predictions,
            loss=loss,
            train_op=train_op,
            eval_metric_ops=eval_metric_ops,
            export_outputs=export_outputs,
            training_chief_hooks=tuple(training_chief_hooks or []),
            training_hooks=tuple(training_hooks or []),
            scaffold=scaffold,
            evaluation_hooks=tuple(evaluation_hooks or []),
            prediction_hooks=tuple(prediction_hooks or []),
        )


def _collect_metric_variables(metric: Any) -> None:
    """A Keras metric's variables are in no collection; TF 1.15's EstimatorSpec adds them to
    LOCAL_VARIABLES (to be initialized) and METRIC_VARIABLES."""
    for key in (GraphKeys.LOCAL_VARIABLES, GraphKeys.METRIC_VARIABLES):
        present = {id(x) for x in get_collection(key)}
        for var in getattr(metric, "variables", []):
            if id(var) not in present:
                add_to_collection(key, var)
