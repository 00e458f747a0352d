"""tensorflow.python.training.session_run_hook: tfcluster.training.session_run_hook."""

from tfcluster.python._alias import alias

alias(__name__, "tfcluster.training.session_run_hook")
