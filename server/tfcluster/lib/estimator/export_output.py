"""What a model serves (TF's export_output): each ExportOutput becomes one signature of the
SavedModel, given the receiver's input tensors."""

from __future__ import annotations

from typing import Any

from tfcluster.framework import dtypes
from tfcluster.framework.graph import Tensor
from tfcluster.lib.saved_model import signature_constants as sc
from tfcluster.lib.saved_model import signature_def_utils


class ExportOutput:
    def as_signature_def(self, receiver_tensors: dict[str, Tensor]) -> Any:
        raise NotImplementedError


def _single_string_input(receiver_tensors: dict[str, Tensor], kind: str) -> Tensor:
    if len(receiver_tensors) != 1:
        raise ValueError(f"{kind} input must be a single string Tensor; got {receiver_tensors}")
    (examples,) = receiver_tensors.values()
    if examples.dtype.base_dtype != dtypes.string:
        raise ValueError(f"{kind} input must be a single string Tensor; got {receiver_tensors}")
    return examples


class ClassificationOutput(ExportOutput):
    """Scores (float [batch, n]) and/or classes (string [batch, n])."""

    def __init__(self, scores: Any = None, classes: Any = None) -> None:
        if scores is not None and not (
            isinstance(scores, Tensor) and scores.dtype.base_dtype == dtypes.float32
        ):
            raise ValueError(f"Classification scores must be a float32 Tensor; got {scores}")
        if classes is not None and not (
            isinstance(classes, Tensor) and classes.dtype.base_dtype == dtypes.string
        ):
            raise ValueError(f"Classification classes must be a string Tensor; got {classes}")
        if scores is None and classes is None:
            raise ValueError("At least one of scores and classes must be set.")
        self.scores = scores
        self.classes = classes

    def as_signature_def(self, receiver_tensors: dict[str, Tensor]) -> Any:
        examples = _single_string_input(receiver_tensors, "Classification")
        return signature_def_utils.classification_signature_def(examples, self.classes, self.scores)


class RegressionOutput(ExportOutput):
    """One float value per example."""

    def __init__(self, value: Any) -> None:
        if not (isinstance(value, Tensor) and value.dtype.is_floating):
            raise ValueError(f"Regression output value must be a float32 Tensor; got {value}")
        self.value = value

    def as_signature_def(self, receiver_tensors: dict[str, Tensor]) -> Any:
        examples = _single_string_input(receiver_tensors, "Regression")
        return signature_def_utils.regression_signature_def(examples, self.value)


class PredictOutput(ExportOutput):
    """Any tensors, by name (a single tensor is called 'output')."""

    def __init__(self, outputs: Any) -> None:
        if not isinstance(outputs, dict):
            outputs = {"output": outputs}
        for k, v in outputs.items():
            if not isinstance(k, str):
                raise ValueError(f"Prediction output key must be a string; got {k}.")
            if not isinstance(v, Tensor):
                raise ValueError(f"Prediction output value must be a Tensor; got {v}.")
        self.outputs = outputs

    def as_signature_def(self, receiver_tensors: dict[str, Tensor]) -> Any:
        return signature_def_utils.predict_signature_def(receiver_tensors, self.outputs)


def get_export_outputs(export_outputs: Any, predictions: Any) -> dict[Any, Any]:
    """A PREDICT spec's export outputs as TF's: a PredictOutput of the predictions when none
    are given, ExportOutput values only, and a lone output also served as the default."""
    if export_outputs is None:
        export_outputs = {sc.DEFAULT_SERVING_SIGNATURE_DEF_KEY: PredictOutput(predictions)}
    if not isinstance(export_outputs, dict):
        raise TypeError(f"export_outputs must be dict, given: {export_outputs}")
    for value in export_outputs.values():
        if not isinstance(value, ExportOutput):
            raise TypeError(
                f"Values in export_outputs must be ExportOutput objects. Given: {export_outputs}"
            )
    _maybe_add_default_serving_output(export_outputs)
    return export_outputs


def _maybe_add_default_serving_output(export_outputs: dict[Any, Any]) -> None:
    """TF's: the one output is served as the default too (the dict itself gains the key); of
    several, one must be named serving_default."""
    if len(export_outputs) == 1:
        ((key, value),) = export_outputs.items()
        if key != sc.DEFAULT_SERVING_SIGNATURE_DEF_KEY:
            export_outputs[sc.DEFAULT_SERVING_SIGNATURE_DEF_KEY] = value
    if len(export_outputs) > 1 and sc.DEFAULT_SERVING_SIGNATURE_DEF_KEY not in export_outputs:
        raise ValueError(
            "Multiple export_outputs were provided, but none of them is specified as the "
            "default.  Do this by naming one of them with "
            "signature_constants.DEFAULT_SERVING_SIGNATURE_DEF_KEY."
        )


class _SupervisedOutput(ExportOutput):
    """The loss, predictions and metrics of a TRAIN or EVAL graph, as one supervised
    signature: outputs `loss`, `predictions/<key>`, `metrics/<name>/value` and
    `metrics/<name>/update_op` (an update op wrapped in a tensor that runs it)."""

    _SEPARATOR = "/"

    def __init__(self, loss: Any = None, predictions: Any = None, metrics: Any = None) -> None:
        self.loss = _prefixed(_checked_outputs(loss, "loss"), "loss") if loss is not None else {}
        self.predictions = (
            _prefixed(_checked_outputs(predictions, "predictions"), "predictions")
            if predictions is not None
            else {}
        )
        self.metrics = _metric_outputs(metrics) if metrics is not None else {}

    def _signature_def_fn(self) -> Any:
        raise NotImplementedError

    def as_signature_def(self, receiver_tensors: dict[str, Tensor]) -> Any:
        return self._signature_def_fn()(receiver_tensors, self.loss, self.predictions, self.metrics)


class TrainOutput(_SupervisedOutput):
    def _signature_def_fn(self) -> Any:
        return signature_def_utils.supervised_train_signature_def


class EvalOutput(_SupervisedOutput):
    def _signature_def_fn(self) -> Any:
        return signature_def_utils.supervised_eval_signature_def


def _output_key(key: Any, label: str) -> str:
    if isinstance(key, tuple):  # a multi-head model's (head, key)
        key = "/".join(key)
    if not isinstance(key, str):
        raise ValueError(f"{label} output key must be a string; got {key}.")
    return key


def _checked_outputs(outputs: Any, label: str) -> dict[str, Tensor]:
    if not isinstance(outputs, dict):
        outputs = {label: outputs}
    checked = {}
    for key, value in outputs.items():
        key = _output_key(key, label)
        if not isinstance(value, Tensor):
            raise ValueError(f"{label} output value must be a Tensor; got {value}.")
        checked[key] = value
    return checked


def _prefix(key: str, name: str) -> str:
    return key if key.find(name) == 0 else f"{name}/{key}"


def _prefixed(outputs: dict[str, Tensor], name: str) -> dict[str, Tensor]:
    return {_prefix(key, name): value for key, value in outputs.items()}


def _metric_outputs(metrics: Any) -> dict[str, Tensor]:
    from tfcluster.framework.graph import Operation, control_dependencies
    from tfcluster.ops import constant_op

    if not isinstance(metrics, dict):
        metrics = {"metrics": metrics}
    outputs: dict[str, Tensor] = {}
    for key, value in metrics.items():
        if isinstance(value, tuple):
            metric_value, metric_op = value
        else:  # a Keras Metric object
            metric_value, metric_op = value.result(), value.updates[0]
        key = _prefix(_output_key(key, "metrics"), "metrics")
        if not isinstance(metric_value, Tensor):
            raise ValueError(f"{key} output value must be a Tensor; got {metric_value}.")
        if not isinstance(metric_op, (Tensor, Operation)):
            raise ValueError(f"{key} update_op must be a Tensor or Operation; got {metric_op}.")
        if not isinstance(metric_op, Tensor):
            # A SignatureDef holds tensors only: the op runs before an empty constant.
            with control_dependencies([metric_op]):
                metric_op = constant_op.constant([], name="metric_op_wrapper")
        outputs[f"{key}/value"] = metric_value
        outputs[f"{key}/update_op"] = metric_op
    return outputs


def export_outputs_for_mode(
    mode: str,
    serving_export_outputs: Any = None,
    predictions: Any = None,
    loss: Any = None,
    metrics: Any = None,
) -> dict[Any, Any]:
    """The export outputs of a graph built in `mode`: the serving ones for PREDICT, one
    TrainOutput or EvalOutput (under the key "train" or "eval") otherwise."""
    keys = {"train": "train", "eval": "eval", "infer": sc.DEFAULT_SERVING_SIGNATURE_DEF_KEY}
    if mode not in keys:
        raise ValueError(f"Export output type not found for mode: {mode}")
    if mode == "infer":
        return get_export_outputs(serving_export_outputs, predictions)
    made = TrainOutput if mode == "train" else EvalOutput
    return {keys[mode]: made(loss=loss, predictions=predictions, metrics=metrics)}
