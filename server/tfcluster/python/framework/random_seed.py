"""tensorflow.python.framework.random_seed (`random_seed.set_random_seed(1)`,
`random_seed.get_seed(None)`): the graph-level seed tf.set_random_seed sets and the seeds
random ops take from it."""

from __future__ import annotations

from tfcluster.framework.graph import _MAXINT32, DEFAULT_GRAPH_SEED, get_seed
from tfcluster.python._alias import face_function
from tfcluster.python._private_module import module_getattr

set_random_seed = face_function("random", "set_random_seed")

__all__ = ["DEFAULT_GRAPH_SEED", "_MAXINT32", "get_seed", "set_random_seed"]

__getattr__ = module_getattr("python.framework.random_seed")
