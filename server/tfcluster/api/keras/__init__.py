"""tf.keras (TF 1.15, graph mode)"""

# ruff: noqa: F401
from tfcluster.api import _unimplemented

# TF 1.15 lists tf.keras.preprocessing outside its API files (keras_preprocessing provides
# it), so it is not found by name like the other submodules: imported here.
from tfcluster.api.keras import preprocessing

# tf.keras.__version__ (a tutorial prints it): the Keras version TF 1.15 bundles.
from tfcluster.lib.keras.engine.hdf5_format import KERAS_VERSION as __version__
from tfcluster.lib.keras.engine.input_layer import Input
from tfcluster.lib.keras.engine.sequential import Sequential
from tfcluster.lib.keras.engine.training import Model

__getattr__ = _unimplemented.module_getattr("keras")
