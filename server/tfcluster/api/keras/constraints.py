"""tf.keras.constraints"""

# ruff: noqa: F401
from tfcluster.api import _unimplemented
from tfcluster.lib.keras.constraints import (
    Constraint,
    MaxNorm,
    MinMaxNorm,
    NonNeg,
    RadialConstraint,
    UnitNorm,
    deserialize,
    get,
    max_norm,
    min_max_norm,
    non_neg,
    radial_constraint,
    serialize,
    unit_norm,
)

__getattr__ = _unimplemented.module_getattr("keras.constraints")
