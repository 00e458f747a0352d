"""tensorflow.python.training.learning_rate_decay: tfcluster.training.learning_rate_decay."""

from tfcluster.python._alias import alias

alias(__name__, "tfcluster.training.learning_rate_decay")
