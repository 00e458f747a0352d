"""TF 2's switches as a TF1 program sees them: tfcluster always runs TF1's graph mode, so the
calls that turn TF 2 behaviour off (what `import tensorflow.compat.v1 as tf;
tf.disable_v2_behavior()` programs start with) find it off already, and eager execution is
never on. Turning TF 2 behaviour on stays unimplemented."""

from __future__ import annotations

from tfcluster.framework import internal_deprecations


def disable_v2_behavior() -> None:
    """TF1 behaviour (graph mode, TF1 shapes and control flow) is tfcluster's only one. TF's
    calls the deprecated disable_resource_variables, which announces it."""
    internal_deprecations.called_internally(internal_deprecations.DISABLE_RESOURCE_VARIABLES)


def disable_eager_execution() -> None:
    """Graphs and sessions are tfcluster's only execution."""


def executing_eagerly() -> bool:
    return False
