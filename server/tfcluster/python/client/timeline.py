"""tensorflow.python.client.timeline: tfcluster.client.timeline (Timeline of a traced step)."""

from tfcluster.python._alias import alias

alias(__name__, "tfcluster.client.timeline")
