"""tensorflow.python.training.moving_averages: tfcluster.training.moving_averages."""

from tfcluster.python._alias import alias

alias(__name__, "tfcluster.training.moving_averages")
