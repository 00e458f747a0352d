"""tensorflow.python.framework.importer (`importer.import_graph_def(graph_def, name="")`):
tf.import_graph_def, the very function."""

from __future__ import annotations

from tfcluster.python._alias import face_function
from tfcluster.python._private_module import module_getattr

import_graph_def = face_function("graph_util", "import_graph_def")

__getattr__ = module_getattr("python.framework.importer")
