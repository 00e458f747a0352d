"""TF 1.15's saved_model.model_utils.export_utils.build_all_signature_defs: the signature defs
an export writes for a model's export outputs, and the report it logs of them ("Signatures
INCLUDED in export for Predict: ['predict']", the ones excluded and why, a warning where no
default signature is left), as an Estimator's export prints it."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tfcluster.lib.platform import tf_logging as logging
from tfcluster.lib.saved_model import signature_constants as sc
from tfcluster.lib.saved_model import signature_def_utils

SINGLE_RECEIVER_DEFAULT_NAME = "input"

_FRIENDLY_METHOD_NAMES = {
    sc.CLASSIFY_METHOD_NAME: "Classify",
    sc.REGRESS_METHOD_NAME: "Regress",
    sc.PREDICT_METHOD_NAME: "Predict",
    sc.SUPERVISED_TRAIN_METHOD_NAME: "Train",
    sc.SUPERVISED_EVAL_METHOD_NAME: "Eval",
}


def _as_receiver_dict(receiver_tensors: Any) -> dict[str, Any]:
    if isinstance(receiver_tensors, dict):
        return receiver_tensors
    return {SINGLE_RECEIVER_DEFAULT_NAME: receiver_tensors}


def build_all_signature_defs(
    receiver_tensors: Any,
    export_outputs: Mapping[Any, Any] | None,
    receiver_tensors_alternatives: Mapping[Any, Any] | None = None,
    serving_only: bool = True,
) -> dict[str, Any]:
    """A SignatureDef per export output (and per receiver alternative and output); an output
    that cannot be served is left out and reported, as TF's."""
    receiver_tensors = _as_receiver_dict(receiver_tensors)
    if export_outputs is None or not isinstance(export_outputs, dict):
        raise ValueError(f"export_outputs must be a dict and not{type(export_outputs)}")
    signature_def_map: dict[str, Any] = {}
    excluded: dict[str, str] = {}
    for output_key, export_output in export_outputs.items():
        name = f"{output_key or 'None'}"
        try:
            signature_def_map[name] = export_output.as_signature_def(receiver_tensors)
        except ValueError as e:
            excluded[name] = str(e)
    for receiver_name, alternative in (receiver_tensors_alternatives or {}).items():
        alternative = _as_receiver_dict(alternative)
        for output_key, export_output in export_outputs.items():
            name = f"{receiver_name or 'None'}:{output_key or 'None'}"
            try:
                signature_def_map[name] = export_output.as_signature_def(alternative)
            except ValueError as e:
                excluded[name] = str(e)
    _log_signature_report(signature_def_map, excluded)
    if serving_only:
        signature_def_map = {
            k: v for k, v in signature_def_map.items() if signature_def_utils.is_valid_signature(v)
        }
    return signature_def_map


def _log_signature_report(
    signature_def_map: Mapping[str, Any], excluded: Mapping[str, str]
) -> None:
    by_method: dict[str, list[str]] = {method: [] for method in _FRIENDLY_METHOD_NAMES}
    for name, signature in signature_def_map.items():
        by_method.setdefault(signature.method_name, []).append(name)
    for method, names in by_method.items():
        friendly = _FRIENDLY_METHOD_NAMES.get(method, method)
        logging.info(f"Signatures INCLUDED in export for {friendly}: {names if names else 'None'}")
    if excluded:
        logging.info(
            "Signatures EXCLUDED from export because they cannot be be served via TensorFlow "
            "Serving APIs:"
        )
        for name, message in excluded.items():
            logging.info(f"'{name}' : {message}")
    if not signature_def_map:
        logging.warning("Export includes no signatures!")
    elif sc.DEFAULT_SERVING_SIGNATURE_DEF_KEY not in signature_def_map:
        logging.warning("Export includes no default signature!")
