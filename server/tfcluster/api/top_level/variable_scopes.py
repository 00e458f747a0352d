"""Variable scopes, tf.get_variable, partitioners, templates and the tf.*_initializer
aliases."""

# ruff: noqa: F401
from tfcluster.framework.graph import init_scope
from tfcluster.ops.init_ops import (
    constant_initializer,
    glorot_normal_initializer,
    glorot_uniform_initializer,
    ones_initializer,
    orthogonal_initializer,
    random_normal_initializer,
    random_uniform_initializer,
    truncated_normal_initializer,
    uniform_unit_scaling_initializer,
    variance_scaling_initializer,
    zeros_initializer,
)
from tfcluster.ops.partitioned_variables import (
    create_partitioned_variables,
    fixed_size_partitioner,
    min_max_variable_partitioner,
    variable_axis_size_partitioner,
)
from tfcluster.ops.template import make_template
from tfcluster.ops.variable_scope import (
    AUTO_REUSE,
    VariableAggregation,
    VariableScope,
    VariableSynchronization,
    get_local_variable,
    get_variable,
    get_variable_scope,
    no_regularizer,
    variable_op_scope,
    variable_scope,
)
from tfcluster.ops.variables import (
    initialize_local_variables,
    initialize_variables,
    moving_average_variables,
)

__all__ = sorted(n for n in dir() if not n.startswith("_"))
