"""tf.graph_util"""

# ruff: noqa: F401
from tfcluster.api import _unimplemented
from tfcluster.framework.graph_util import (
    convert_variables_to_constants,
    extract_sub_graph,
    import_graph_def,
    must_run_on_cpu,
    remove_training_nodes,
    tensor_shape_from_node_def_name,
)

__getattr__ = _unimplemented.module_getattr("graph_util")
