"""tf.profiler"""

# ruff: noqa: F401
from tfcluster.api import _unimplemented
from tfcluster.lib.profiler.model_analyzer import Profiler, advise, profile, write_op_log
from tfcluster.lib.profiler.option_builder import ProfileOptionBuilder
from tfcluster.protos.tfprof_log_pb2 import OpLogProto
from tfcluster.protos.tfprof_output_pb2 import AdviceProto, GraphNodeProto, MultiGraphNodeProto

__getattr__ = _unimplemented.module_getattr("profiler")
