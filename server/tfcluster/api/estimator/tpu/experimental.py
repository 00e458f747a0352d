"""tf.estimator.tpu.experimental (EmbeddingConfigSpec needs a TPU: still unimplemented)."""

from tfcluster.api import _unimplemented

__getattr__ = _unimplemented.module_getattr("estimator.tpu.experimental")
