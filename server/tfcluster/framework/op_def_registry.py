"""One table of op definitions: how each op type infers its outputs, and its ref/state traits.

Kernels live elsewhere (tfcluster.kernels); this table is what graph construction and
GraphDef import need: output dtypes and static shapes from inputs and attrs.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from tfcluster.framework import dtypes
from tfcluster.framework.tensor_shape import TensorShape

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
    _OPS[name] = OpDef(name, infer, frozenset(ref_inputs), ref_outputs, stateful)


def lookup(name: str) -> OpDef | None:
    found = _OPS.get(name)
    if found is None and not _all_loaded:
        _load_op_modules()
        found = _OPS.get(name)
    return found


_all_loaded = False


def _load_op_modules() -> None:
    """Imports every module of tfcluster.ops, where op types register themselves: a GraphDef
    being imported may use ops of a family the program never touched (tf.nn, ...)."""
    global _all_loaded
    _all_loaded = True
    package = importlib.import_module("tfcluster.ops")
    for info in pkgutil.iter_modules(package.__path__):
        if not info.name.startswith("_"):
            importlib.import_module(f"tfcluster.ops.{info.name}")


def registered_ops() -> list[str]:
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
