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
