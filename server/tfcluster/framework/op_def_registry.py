"""One table of op definitions: how each op type infers its outputs, and its ref/state traits.

Kernels live elsewhere (tfcluster.kernels); this table is what graph construction and
GraphDef import need: output dtypes and static shapes from inputs and attrs.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from tfcluster.framework import dtypes
from tfcluster.framework.tensor_shape import TensorShape


class NodeShapeError(ValueError):
    """A shape function's complaint about its inputs, without the node: the graph adds the
    node's name, op type and input shapes, as TF's shape inference errors say them."""


# (input tensors, attrs) -> one (dtype, static shape) per output
InferFn = Callable[[Sequence[Any], dict[str, Any]], list[tuple[dtypes.DType, TensorShape]]]


@dataclass(frozen=True)
class OpDef:
    name: str
    infer: InferFn
    # Input positions that take a reference (the variable itself, not its value).
    ref_inputs: frozenset[int] = field(default_factory=frozenset)
    # Outputs that are references (VariableV2): consumers read through them.
    ref_outputs: bool = False
    # Stateful ops are never pruned as duplicates and keep their kernel across runs.
    stateful: bool = False


_OPS: dict[str, OpDef] = {}


def register(
    name: str,
    infer: InferFn,
    *,
    ref_inputs: Sequence[int] = (),
    ref_outputs: bool = False,
    stateful: bool = False,
) -> None:
    if name in _OPS:
        # Two modules defining one op type would leave its shape function to import order.
        raise ValueError(f"op type {name} is defined twice")
    _OPS[name] = OpDef(name, infer, frozenset(ref_inputs), ref_outputs, stateful)


# Op definitions register when their ops module is imported; a process that only runs graphs
# (a task server) may never import some of them. The ops package installs a loader that
# imports every ops module, run once on the first miss.
_load_all: Callable[[], None] | None = None
_loading = False
# Other threads wait for the load to finish; the loading thread's own lookups pass through.
_load_lock = threading.RLock()


def set_loader(load_all: Callable[[], None]) -> None:
    global _load_all
    _load_all = load_all


def _load_everything() -> None:
    global _load_all, _loading
    with _load_lock:
        if _load_all is None or _loading:
            return
        _loading = True
        try:
            _load_all()
            _load_all = None
        finally:
            _loading = False


def lookup(name: str) -> OpDef | None:
    op_def = _OPS.get(name)
    if op_def is None and _load_all is not None:
        _load_everything()
        op_def = _OPS.get(name)
    return op_def


def registered_ops() -> list[str]:
    if _load_all is not None:
        _load_everything()
    return sorted(_OPS)


def same_as_input(index: int = 0) -> InferFn:
    def infer(
        inputs: Sequence[Any], attrs: dict[str, Any]
    ) -> list[tuple[dtypes.DType, TensorShape]]:
        t = inputs[index]
        return [(t.dtype.base_dtype, t.shape)]

    return infer


def fixed(*outputs: tuple[dtypes.DType, Any]) -> InferFn:
    shaped = [(dt, TensorShape(shape)) for dt, shape in outputs]

    def infer(
        inputs: Sequence[Any], attrs: dict[str, Any]
    ) -> list[tuple[dtypes.DType, TensorShape]]:
        return list(shaped)

    return infer


def no_outputs(
    inputs: Sequence[Any], attrs: dict[str, Any]
) -> list[tuple[dtypes.DType, TensorShape]]:
    return []
