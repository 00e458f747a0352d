"""tf.ragged's library, built from ops: factories (constant, placeholder), functional and
array ops over RaggedTensors, ragged reductions, and the dispatch that lets tf.add,
tf.reduce_sum, tf.concat ... take RaggedTensors as TF 1.15's do (registered on import)."""

from tfcluster.lib.ragged import dispatch as _dispatch  # noqa: F401  (registers the handlers)
