"""tf.keras.experimental"""

# ruff: noqa: F401
from tfcluster.api import _unimplemented
from tfcluster.lib.keras.engine.saved_model_export import export_saved_model, load_from_saved_model
from tfcluster.lib.keras.layers.feature_layers import SequenceFeatures
from tfcluster.lib.keras.layers.recurrent import PeepholeLSTMCell
from tfcluster.lib.keras.optimizer_schedules import (
    CosineDecay,
    CosineDecayRestarts,
    LinearCosineDecay,
    NoisyLinearCosineDecay,
)
from tfcluster.lib.keras.premade.linear import LinearModel
from tfcluster.lib.keras.premade.wide_deep import WideDeepModel
from tfcluster.lib.keras.utils.data_utils import terminate_keras_multiprocessing_pools

__getattr__ = _unimplemented.module_getattr("keras.experimental")
