"""tensorflow.python.training.saver: tfcluster.training.saver."""

from tfcluster.python._alias import alias

alias(__name__, "tfcluster.training.saver")
