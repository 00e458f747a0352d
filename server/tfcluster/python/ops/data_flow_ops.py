"""tensorflow.python.ops.data_flow_ops: tfcluster.ops.data_flow_ops."""

from tfcluster.python._alias import alias

alias(__name__, "tfcluster.ops.data_flow_ops")
