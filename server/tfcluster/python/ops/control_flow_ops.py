"""tensorflow.python.ops.control_flow_ops: tfcluster.ops.control_flow_ops."""

from tfcluster.python._alias import alias

alias(__name__, "tfcluster.ops.control_flow_ops")
