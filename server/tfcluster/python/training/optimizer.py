"""tensorflow.python.training.optimizer: tfcluster.training.optimizer."""

from tfcluster.python._alias import alias

alias(__name__, "tfcluster.training.optimizer")
