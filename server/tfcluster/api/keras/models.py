"""tf.keras.models"""

# ruff: noqa: F401
from tfcluster.api import _unimplemented
from tfcluster.lib.keras.models import (
    Model,
    Sequential,
    clone_model,
    load_model,
    model_from_config,
    model_from_json,
    model_from_yaml,
    save_model,
)

__getattr__ = _unimplemented.module_getattr("keras.models")
