"""The global step: one integer variable per graph that counts the training updates."""

from __future__ import annotations

from typing import Any

from tfcluster.framework import dtypes, internal_deprecations
from tfcluster.framework.graph import Graph, GraphKeys, Tensor, get_default_graph
from tfcluster.ops import init_ops, variable_scope
from tfcluster.ops.variables import Variable, VariableAggregation

# Cache of the `global_step + 0` read tensor that hooks fetch (TF's GLOBAL_STEP_READ_KEY).
GLOBAL_STEP_READ_KEY = "global_step_read_op_cache"


def global_step(sess: Any, global_step_tensor: Any) -> int:
    """The global step's current value, as a Python int."""
    return int(sess.run(global_step_tensor))


def assert_global_step(global_step_tensor: Any) -> None:
    # A tf.distribute MirroredVariable acts as a variable (TF accepts it as a resource variable).
    if not isinstance(global_step_tensor, (Variable, Tensor)) and not hasattr(
        global_step_tensor, "_to_saveable"
    ):
        raise TypeError(
            f'Existing "global_step" must be a Variable or Tensor: {global_step_tensor}.'
        )
    if not global_step_tensor.dtype.base_dtype.is_integer:
        raise TypeError(
            f'Existing "global_step" does not have integer type: {global_step_tensor.dtype.name}'
        )
    shape = global_step_tensor.get_shape()
    if shape.ndims != 0 and shape.is_fully_defined():
        raise TypeError(f'Existing "global_step" is not scalar: {shape}')


def get_global_step(graph: Graph | None = None) -> Any:
    """The GLOBAL_STEP collection's variable, else the tensor named 'global_step:0' (a
    variable made by that name is found as its reference tensor, as TF 1.15 finds it), else
    None."""
    graph = graph or get_default_graph()
    found = graph.get_collection(GraphKeys.GLOBAL_STEP)
    if len(found) > 1:
        return None
    if found:
        step = found[0]
    else:
        try:
            step = graph.get_tensor_by_name("global_step:0")
        except (KeyError, ValueError):
            return None
    assert_global_step(step)
    return step


def create_global_step(graph: Graph | None = None) -> Any:
    """A new int64 scalar 'global_step' variable in GLOBAL_VARIABLES and GLOBAL_STEP, made by
    tf.get_variable as TF does (so a later get_variable('global_step') finds it taken)."""
    graph = graph or get_default_graph()
    if get_global_step(graph) is not None:
        raise ValueError('"global_step" already exists.')
    with graph.as_default(), graph.name_scope(None):
        return variable_scope.get_variable(
            GraphKeys.GLOBAL_STEP,
            shape=[],
            dtype=dtypes.int64,
            initializer=init_ops.zeros_initializer(),
            trainable=False,
            aggregation=VariableAggregation.ONLY_FIRST_REPLICA,
            collections=[GraphKeys.GLOBAL_VARIABLES, GraphKeys.GLOBAL_STEP],
        )


def get_or_create_global_step(graph: Graph | None = None) -> Any:
    graph = graph or get_default_graph()
    step = get_global_step(graph)
    if step is None:
        step = create_global_step(graph)
    return step


def _get_global_step_read(graph: Graph | None = None) -> Tensor | None:
    graph = graph or get_default_graph()
    cached = graph.get_collection(GLOBAL_STEP_READ_KEY)
    if len(cached) > 1:
        raise RuntimeError(f"There are multiple items in collection {GLOBAL_STEP_READ_KEY}.")
    return cached[0] if cached else None


def _get_or_create_global_step_read(graph: Graph | None = None) -> Tensor | None:
    """A plain (non-reference) copy of the global step that hooks can fetch with the train op.

    It reads the value once initialized, so fetching it alongside the init op never fails.
    """
    graph = graph or get_default_graph()
    read = _get_global_step_read(graph)
    if read is not None:
        return read
    step = get_global_step(graph)
    if step is None:
        return None

    with graph.as_default(), graph.name_scope(None), graph.name_scope(step.op.name + "/"):
        if isinstance(step, Variable):
            internal_deprecations.called_internally(internal_deprecations.INITIALIZED_VALUE)
            value = step.initialized_value()
        else:
            value = step
        read = value + 0  # AddV2 named "add", as TF 1.15 writes it
        graph.add_to_collection(GLOBAL_STEP_READ_KEY, read)
    return read


def write_graph(graph_or_graph_def: Any, logdir: str, name: str, as_text: bool = True) -> str:
    """Writes a GraphDef to logdir/name (text format unless as_text is False), atomically;
    makes logdir when missing. Returns the path."""
    from tfcluster.framework.meta_graph import write_proto

    graph_def = (
        graph_or_graph_def.as_graph_def()
        if hasattr(graph_or_graph_def, "as_graph_def")
        else graph_or_graph_def
    )
    return write_proto(graph_def, logdir, name, as_text=as_text)


__all__ = [
    "assert_global_step",
    "create_global_step",
    "get_global_step",
    "get_or_create_global_step",
    "global_step",
    "write_graph",
]
