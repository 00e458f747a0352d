"""SignatureDefs: the named inputs and outputs a served model offers (TF's
signature_def_utils), with TensorFlow Serving's predict/classify/regress constraints."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tfcluster.framework import dtypes, internal_deprecations
from tfcluster.framework.graph import Operation, Tensor
from tfcluster.lib.saved_model import signature_constants as sc
from tfcluster.lib.saved_model import utils
from tfcluster.protos import meta_graph_pb2

_DT_STRING = dtypes.string.as_datatype_enum
_DT_FLOAT = dtypes.float32.as_datatype_enum


def _tensor_info(tensor: Any) -> meta_graph_pb2.TensorInfo:
    # TF's builders call the deprecated public build_tensor_info: its first call announces it.
    internal_deprecations.called_internally(internal_deprecations.BUILD_TENSOR_INFO)
    return utils.build_tensor_info(tensor)


def build_signature_def(
    inputs: Mapping[str, Any] | None = None,
    outputs: Mapping[str, Any] | None = None,
    method_name: str | None = None,
) -> meta_graph_pb2.SignatureDef:
    signature = meta_graph_pb2.SignatureDef()
    for key, info in (inputs or {}).items():
        signature.inputs[key].CopyFrom(info)
    for key, info in (outputs or {}).items():
        signature.outputs[key].CopyFrom(info)
    if method_name is not None:
        signature.method_name = method_name
    return signature


def regression_signature_def(examples: Any, predictions: Any) -> meta_graph_pb2.SignatureDef:
    """Serving's Regress API: serialized tf.Examples (string) in, float predictions out."""
    if examples is None:
        raise ValueError("Regression examples cannot be None.")
    if not isinstance(examples, Tensor):
        raise ValueError("Regression examples must be a string Tensor.")
    if predictions is None:
        raise ValueError("Regression predictions cannot be None.")
    inp = _tensor_info(examples)
    if inp.dtype != _DT_STRING:
        raise ValueError("Regression examples must be a string Tensor.")
    out = _tensor_info(predictions)
    if out.dtype != _DT_FLOAT:
        raise ValueError("Regression output must be a float Tensor.")
    return build_signature_def(
        {sc.REGRESS_INPUTS: inp}, {sc.REGRESS_OUTPUTS: out}, sc.REGRESS_METHOD_NAME
    )


def classification_signature_def(
    examples: Any, classes: Any, scores: Any
) -> meta_graph_pb2.SignatureDef:
    """Serving's Classify API: serialized tf.Examples in, string classes and/or float
    scores out."""
    if examples is None:
        raise ValueError("Classification examples cannot be None.")
    if not isinstance(examples, Tensor):
        raise ValueError("Classification examples must be a string Tensor.")
    if classes is None and scores is None:
        raise ValueError("Classification classes and scores cannot both be None.")
    inp = _tensor_info(examples)
    if inp.dtype != _DT_STRING:
        raise ValueError("Classification examples must be a string Tensor.")
    outputs = {}
    if classes is not None:
        info = _tensor_info(classes)
        if info.dtype != _DT_STRING:
            raise ValueError("Classification classes must be a string Tensor.")
        outputs[sc.CLASSIFY_OUTPUT_CLASSES] = info
    if scores is not None:
        info = _tensor_info(scores)
        if info.dtype != _DT_FLOAT:
            raise ValueError("Classification scores must be a float Tensor.")
        outputs[sc.CLASSIFY_OUTPUT_SCORES] = info
    return build_signature_def({sc.CLASSIFY_INPUTS: inp}, outputs, sc.CLASSIFY_METHOD_NAME)


def predict_signature_def(
    inputs: Mapping[str, Any], outputs: Mapping[str, Any]
) -> meta_graph_pb2.SignatureDef:
    """Serving's Predict API: any named tensors in and out."""
    if not inputs:
        raise ValueError("Prediction inputs cannot be None or empty.")
    if not outputs:
        raise ValueError("Prediction outputs cannot be None or empty.")
    return build_signature_def(
        {k: _tensor_info(t) for k, t in inputs.items()},
        {k: _tensor_info(t) for k, t in outputs.items()},
        sc.PREDICT_METHOD_NAME,
    )


def supervised_train_signature_def(
    inputs: Mapping[str, Any], loss: Any, predictions: Any = None, metrics: Any = None
) -> meta_graph_pb2.SignatureDef:
    return _supervised(sc.SUPERVISED_TRAIN_METHOD_NAME, inputs, loss, predictions, metrics)


def supervised_eval_signature_def(
    inputs: Mapping[str, Any], loss: Any, predictions: Any = None, metrics: Any = None
) -> meta_graph_pb2.SignatureDef:
    return _supervised(sc.SUPERVISED_EVAL_METHOD_NAME, inputs, loss, predictions, metrics)


def _supervised(
    method: str, inputs: Mapping[str, Any], *output_sets: Mapping[str, Any] | None
) -> meta_graph_pb2.SignatureDef:
    if not inputs:
        raise ValueError(f"{method} inputs cannot be None or empty.")
    outputs = {}
    for output_set in output_sets:
        for key, t in (output_set or {}).items():
            outputs[key] = _tensor_info(t)
    return build_signature_def({k: _tensor_info(t) for k, t in inputs.items()}, outputs, method)


def op_signature_def(op: Operation, key: str) -> meta_graph_pb2.SignatureDef:
    """A SignatureDef holding an op (the init or train op of a SavedModel)."""
    return build_signature_def(outputs={key: utils.build_tensor_info_from_op(op)})


def is_valid_signature(signature_def: Any) -> bool:
    """Whether TensorFlow Serving can serve the SignatureDef."""
    if signature_def is None:
        return False
    return (
        _valid_classification(signature_def)
        or _valid_regression(signature_def)
        or _valid_predict(signature_def)
    )


def _valid_predict(sig: Any) -> bool:
    return sig.method_name == sc.PREDICT_METHOD_NAME and bool(sig.inputs) and bool(sig.outputs)


def _valid_regression(sig: Any) -> bool:
    return (
        sig.method_name == sc.REGRESS_METHOD_NAME
        and set(sig.inputs) == {sc.REGRESS_INPUTS}
        and sig.inputs[sc.REGRESS_INPUTS].dtype == _DT_STRING
        and set(sig.outputs) == {sc.REGRESS_OUTPUTS}
        and sig.outputs[sc.REGRESS_OUTPUTS].dtype == _DT_FLOAT
    )


def _valid_classification(sig: Any) -> bool:
    if sig.method_name != sc.CLASSIFY_METHOD_NAME:
        return False
    if set(sig.inputs) != {sc.CLASSIFY_INPUTS}:
        return False
    if sig.inputs[sc.CLASSIFY_INPUTS].dtype != _DT_STRING:
        return False
    allowed = {sc.CLASSIFY_OUTPUT_CLASSES, sc.CLASSIFY_OUTPUT_SCORES}
    if not sig.outputs or set(sig.outputs) - allowed:
        return False
    if (
        sc.CLASSIFY_OUTPUT_CLASSES in sig.outputs
        and sig.outputs[sc.CLASSIFY_OUTPUT_CLASSES].dtype != _DT_STRING
    ):
        return False
    return not (
        sc.CLASSIFY_OUTPUT_SCORES in sig.outputs
        and sig.outputs[sc.CLASSIFY_OUTPUT_SCORES].dtype != _DT_FLOAT
    )
