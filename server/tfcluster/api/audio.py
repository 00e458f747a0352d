"""tf.audio"""

# ruff: noqa: F401
from tfcluster.api import _unimplemented
from tfcluster.ops.audio_ops import decode_wav, encode_wav

__getattr__ = _unimplemented.module_getattr("audio")
