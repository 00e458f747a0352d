"""tensorflow.python.ops.gen_math_ops (`gen_math_ops.<op>(...)`): TF 1.15's generated wrappers
of its ops, each building the op as tf.raw_ops does (see _gen_ops)."""

from tfcluster.python.ops._gen_ops import fill

fill(__name__)
