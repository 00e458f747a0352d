"""tensorflow.python.framework.graph_io (`graph_io.write_graph(frozen, folder, "model.pb",
as_text=False)`, the way Keras-to-TF conversion scripts write a frozen graph): tf.io's
write_graph, the very function."""

from __future__ import annotations

from tfcluster.python._alias import face_function
from tfcluster.python._private_module import module_getattr

write_graph = face_function("io", "write_graph")

__getattr__ = module_getattr("python.framework.graph_io")
