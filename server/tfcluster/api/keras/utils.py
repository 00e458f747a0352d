"""tf.keras.utils"""

# ruff: noqa: F401
from tfcluster.api import _unimplemented
from tfcluster.lib.keras.utils import Progbar, get_file, normalize, to_categorical
from tfcluster.lib.keras.utils.data_utils import (
    GeneratorEnqueuer,
    OrderedEnqueuer,
    Sequence,
    SequenceEnqueuer,
)
from tfcluster.lib.keras.utils.io_utils import HDF5Matrix
from tfcluster.lib.keras.utils.model_tools import (
    convert_all_kernels_in_model,
    get_source_inputs,
    model_to_dot,
    multi_gpu_model,
    plot_model,
)
from tfcluster.lib.keras.utils.object_registry import (
    CustomObjectScope,
    custom_object_scope,
    deserialize_keras_object,
    get_custom_objects,
    serialize_keras_object,
)

__getattr__ = _unimplemented.module_getattr("keras.utils")
