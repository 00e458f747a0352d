"""tensorflow.python.training.training_util: tfcluster.training.training_util."""

from tfcluster.python._alias import alias

alias(__name__, "tfcluster.training.training_util")
