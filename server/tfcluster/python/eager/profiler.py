"""tensorflow.python.eager.profiler: tfcluster.client.trace_profiler (start, stop, save)."""

from tfcluster.python._alias import alias

alias(__name__, "tfcluster.client.trace_profiler")
