"""tensorflow.python.training.queue_runner: tfcluster.training.queue_runner."""

from tfcluster.python._alias import alias

alias(__name__, "tfcluster.training.queue_runner")
