"""tensorflow.python.training.monitored_session: tfcluster.training.monitored_session."""

from tfcluster.python._alias import alias

alias(__name__, "tfcluster.training.monitored_session")
