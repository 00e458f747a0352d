"""The core of `tf.*`: dtypes, graphs and tensors, sessions, the everyday ops, variables,
gradients and queues."""

# ruff: noqa: F401, I001
from tfcluster.framework import dtypes as _dtypes
from tfcluster.framework.dtypes import (
    DType,
    as_dtype,
    bool_ as bool,
    complex64,
    complex128,
    double,
    float16,
    float32,
    float64,
    half,
    int8,
    int16,
    int32,
    int64,
    resource,
    string,
    uint8,
    uint16,
)
from tfcluster.framework.device_spec import DeviceSpec
from tfcluster.framework.graph import (
    Graph,
    GraphKeys,
    Operation,
    Tensor,
    add_to_collection,
    add_to_collections,
    colocate_with,
    container,
    control_dependencies,
    convert_to_tensor,
    device,
    get_collection,
    get_collection_ref,
    get_default_graph,
    get_seed,
    name_scope,
    register_tensor_conversion_function,
    reset_default_graph,
    set_random_seed,
)
from tfcluster.framework.graph_io import import_graph_def
from tfcluster.framework.tensor_shape import Dimension, TensorShape
from tfcluster.framework.tensor_util import make_ndarray, make_tensor_proto
from tfcluster.protos.config_pb2 import (
    ConfigProto,
    GPUOptions,
    GraphOptions,
    OptimizerOptions,
    RunMetadata,
    RunOptions,
)
from tfcluster.protos.graph_pb2 import GraphDef
from tfcluster.protos.node_def_pb2 import NodeDef
from tfcluster.protos.attr_value_pb2 import AttrValue
from tfcluster.protos.tensor_pb2 import TensorProto

from tfcluster.ops import sendrecv_ops as _sendrecv_ops
from tfcluster.ops.constant_op import constant
from tfcluster.ops.control_flow_ops import (
    case,
    cond,
    group,
    no_op,
    tuple_ as tuple,
    while_loop,
    with_dependencies,
)
from tfcluster.ops.array_ops import *  # noqa: F403
from tfcluster.ops.math_ops import *  # noqa: F403
from tfcluster.ops.math_ops import abs, pow, round
from tfcluster.ops.random_ops import *  # noqa: F403
from tfcluster.ops.clip_ops import *  # noqa: F403
from tfcluster.ops.state_ops import assign, assign_add, assign_sub
from tfcluster.ops.variables import (
    Variable,
    VariableV1,
    all_variables,
    assert_variables_initialized,
    global_variables,
    global_variables_initializer,
    initialize_all_variables,
    is_variable_initialized,
    local_variables,
    local_variables_initializer,
    model_variables,
    report_uninitialized_variables,
    trainable_variables,
    variables_initializer,
)
from tfcluster.gradients.gradients_impl import gradients
from tfcluster.client.session import InteractiveSession, Session
from tfcluster.framework.default_session import get_default_session

from tfcluster.ops.data_flow_ops import ConditionalAccumulator, FIFOQueue, QueueBase


float32_ref = _dtypes.float32_ref
newaxis = None

__all__ = sorted(
    n for n, v in globals().items() if not n.startswith("_") and not isinstance(v, type(_dtypes))
)
