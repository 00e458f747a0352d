"""tf.saved_model"""

# ruff: noqa: F401
from tfcluster.api import _unimplemented
from tfcluster.lib.saved_model.builder import SavedModelBuilder as Builder
from tfcluster.lib.saved_model.constants import (
    ASSETS_DIRECTORY,
    ASSETS_KEY,
    LEGACY_INIT_OP_KEY,
    MAIN_OP_KEY,
    SAVED_MODEL_FILENAME_PB,
    SAVED_MODEL_FILENAME_PBTXT,
    SAVED_MODEL_SCHEMA_VERSION,
    VARIABLES_DIRECTORY,
    VARIABLES_FILENAME,
)
from tfcluster.lib.saved_model.load_v2 import load as load_v2
from tfcluster.lib.saved_model.loader import contains_saved_model, load, maybe_saved_model_directory
from tfcluster.lib.saved_model.main_op import main_op_with_restore
from tfcluster.lib.saved_model.save import save
from tfcluster.lib.saved_model.signature_constants import (
    CLASSIFY_INPUTS,
    CLASSIFY_METHOD_NAME,
    CLASSIFY_OUTPUT_CLASSES,
    CLASSIFY_OUTPUT_SCORES,
    DEFAULT_SERVING_SIGNATURE_DEF_KEY,
    PREDICT_INPUTS,
    PREDICT_METHOD_NAME,
    PREDICT_OUTPUTS,
    REGRESS_INPUTS,
    REGRESS_METHOD_NAME,
    REGRESS_OUTPUTS,
)
from tfcluster.lib.saved_model.signature_def_utils import (
    build_signature_def,
    classification_signature_def,
    is_valid_signature,
    predict_signature_def,
    regression_signature_def,
)
from tfcluster.lib.saved_model.simple_save import simple_save
from tfcluster.lib.saved_model.tag_constants import GPU, SERVING, TPU, TRAINING
from tfcluster.lib.saved_model.utils import build_tensor_info, get_tensor_from_tensor_info

__getattr__ = _unimplemented.module_getattr("saved_model")
