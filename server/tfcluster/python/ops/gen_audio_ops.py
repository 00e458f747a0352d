"""tensorflow.python.ops.gen_audio_ops: tfcluster.ops.audio_features."""

from tfcluster.python._alias import alias

alias(__name__, "tfcluster.ops.audio_features")
