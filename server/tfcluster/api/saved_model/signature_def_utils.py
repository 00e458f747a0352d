"""tf.saved_model.signature_def_utils"""

# ruff: noqa: F401
from tfcluster.api import _unimplemented
from tfcluster.lib.saved_model.signature_def_utils import (
    build_signature_def,
    classification_signature_def,
    is_valid_signature,
    predict_signature_def,
    regression_signature_def,
)

__getattr__ = _unimplemented.module_getattr("saved_model.signature_def_utils")
