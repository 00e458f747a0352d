"""tensorflow.python.training.basic_session_run_hooks: tfcluster's module of that name."""

from tfcluster.python._alias import alias

alias(__name__, "tfcluster.training.basic_session_run_hooks")
