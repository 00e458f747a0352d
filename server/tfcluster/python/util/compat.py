"""tensorflow.python.util.compat (as_bytes, as_str, ...): tfcluster.lib.compat."""

from tfcluster.python._alias import alias

alias(__name__, "tfcluster.lib.compat")
