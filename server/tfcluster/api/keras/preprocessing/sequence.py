"""tf.keras.preprocessing.sequence"""

# ruff: noqa: F401
from tfcluster.api import _unimplemented
from tfcluster.lib.keras.preprocessing.sequence import (
    TimeseriesGenerator,
    make_sampling_table,
    pad_sequences,
    skipgrams,
)

__getattr__ = _unimplemented.module_getattr("keras.preprocessing.sequence")
