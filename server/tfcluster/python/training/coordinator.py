"""tensorflow.python.training.coordinator: tfcluster.training.coordinator."""

from tfcluster.python._alias import alias

alias(__name__, "tfcluster.training.coordinator")
