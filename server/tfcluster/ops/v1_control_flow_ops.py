"""TF1's dataflow control-flow ops (Switch, Merge, Enter, Exit, NextIteration, LoopCond,
ControlTrigger and their Ref forms), as graphs TensorFlow 1.x wrote them: tf.cond and
tf.while_loop there build these, not functional If/While ops. tfcluster's own tf.cond and
tf.while_loop never make them (ops/control_flow_ops.py); they come in by import_graph_def,
import_meta_graph and the SavedModel loader, and run in runtime/frame_executor.py.

Shape and dtype inference follow TF's op registrations (core/ops/control_flow_ops.cc): a
non-constant Enter's shape is unknown (the loop may change it), a Merge's is the most specific
shape all of its inputs fit.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tfcluster.framework import dtypes, op_def_registry
from tfcluster.framework.tensor_shape import TensorShape
from tfcluster.ops.op_util import Outputs


def _dtype(t: Any, keep_ref: bool) -> dtypes.DType:
    return t.dtype if keep_ref else t.dtype.base_dtype


def _scalar(shape: TensorShape, what: str) -> None:
    if shape.ndims not in (None, 0):
        raise ValueError(f"Shape must be rank 0 but is rank {shape.ndims} ({what})")


def _switch_infer(keep_ref: bool) -> Any:
    def infer(inputs: Sequence[Any], attrs: dict[str, Any]) -> Outputs:
        data, pred = inputs
        _scalar(pred.shape, "pred")
        out = (_dtype(data, keep_ref), data.shape)
        return [out, out]

    return infer


def merged_shape(shapes: Sequence[TensorShape]) -> TensorShape:
    """TF's Merge shape: unknown rank if any rank is unknown or the ranks differ; else each
    dimension kept where every input agrees."""
    if not shapes or any(s.ndims is None for s in shapes):
        return TensorShape(None)
    ranks = {s.ndims for s in shapes}
    if len(ranks) > 1:
        return TensorShape(None)
    dims = []
    for column in zip(*(s.as_list() for s in shapes)):
        first = column[0]
        dims.append(first if all(d == first for d in column) else None)
    return TensorShape(dims)


def _merge_infer(keep_ref: bool) -> Any:
    def infer(inputs: Sequence[Any], attrs: dict[str, Any]) -> Outputs:
        if not inputs:
            raise ValueError("Merge needs at least one input")
        base = {t.dtype.base_dtype for t in inputs}
        if len(base) > 1:
            names = ", ".join(sorted(d.name for d in base))
            raise ValueError(f"Merge inputs must all have one dtype, got {names}")
        shape = merged_shape([t.shape for t in inputs])
        return [(_dtype(inputs[0], keep_ref), shape), (dtypes.int32, TensorShape([]))]

    return infer


def _enter_infer(keep_ref: bool) -> Any:
    def infer(inputs: Sequence[Any], attrs: dict[str, Any]) -> Outputs:
        if not attrs.get("frame_name"):
            raise ValueError("Enter needs a frame_name attr")
        data = inputs[0]
        # Loop variables may change shape from iteration to iteration; constants cannot.
        shape = data.shape if attrs.get("is_constant", False) else TensorShape(None)
        return [(_dtype(data, keep_ref), shape)]

    return infer


def _same(keep_ref: bool) -> Any:
    def infer(inputs: Sequence[Any], attrs: dict[str, Any]) -> Outputs:
        return [(_dtype(inputs[0], keep_ref), inputs[0].shape)]

    return infer


def _loop_cond_infer(inputs: Sequence[Any], attrs: dict[str, Any]) -> Outputs:
    _scalar(inputs[0].shape, "input")
    return [(dtypes.bool_, TensorShape([]))]


for _plain, _ref in (
    ("Switch", "RefSwitch"),
    ("Merge", "RefMerge"),
    ("Enter", "RefEnter"),
    ("Exit", "RefExit"),
    ("NextIteration", "RefNextIteration"),
):
    _make = {
        "Switch": _switch_infer,
        "Merge": _merge_infer,
        "Enter": _enter_infer,
    }.get(_plain, _same)
    op_def_registry.register(_plain, _make(False))
    # A Ref form passes the variable itself on: placed with it, read through by consumers.
    _ref_positions = range(8) if _plain == "Merge" else (0,)
    op_def_registry.register(_ref, _make(True), ref_inputs=_ref_positions, ref_outputs=True)
op_def_registry.register("LoopCond", _loop_cond_infer)
op_def_registry.register("ControlTrigger", op_def_registry.no_outputs)

__all__: list[str] = []
