"""tf.initializers"""

# ruff: noqa: F401
from tfcluster.api import _unimplemented
from tfcluster.ops import init_ops as _init_ops
from tfcluster.ops.init_ops import (
    global_variables,
    he_normal,
    he_uniform,
    lecun_normal,
    lecun_uniform,
    local_variables,
    variables,
)
from tfcluster.ops.lookup_ops import tables_initializer

constant = _init_ops.Constant
glorot_normal = _init_ops.GlorotNormal
glorot_uniform = _init_ops.GlorotUniform
identity = _init_ops.Identity
ones = _init_ops.Ones
orthogonal = _init_ops.Orthogonal
random_normal = _init_ops.RandomNormal
random_uniform = _init_ops.RandomUniform
truncated_normal = _init_ops.TruncatedNormal
uniform_unit_scaling = _init_ops.UniformUnitScaling
variance_scaling = _init_ops.VarianceScaling
zeros = _init_ops.Zeros

__getattr__ = _unimplemented.module_getattr("initializers")
