"""Kernels of TF's V1 checkpoint ops (framework/tensor_bundle/v1_table.py): Save and SaveSlices
write one table file; Restore and RestoreSlice read a tensor (or a slice of it) from the files
matching a pattern."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from tfcluster.framework import dtypes, errors
from tfcluster.framework.tensor_bundle import slices, v1_table
from tfcluster.kernels.common import invalid, shape_str
from tfcluster.kernels.registry import CPU_ONLY, kernel

Compute = Callable[[Any, list[Any]], tuple[Any, ...]]


def _text(value: Any) -> str:
    v = np.asarray(value).item()
    return v.decode("utf-8", "surrogateescape") if isinstance(v, bytes) else str(v)


def _texts(value: Any) -> list[str]:
    return [_text(v) for v in np.asarray(value, dtype=object).reshape(-1)]


def _save(ctx: Any, ins: list[Any], with_slices: bool) -> tuple[Any, ...]:
    filename = _text(ins[0])
    names = _texts(ins[1])
    specs = _texts(ins[2]) if with_slices else [""] * len(names)
    data = ins[3:] if with_slices else ins[2:]
    if len(names) != len(data):
        raise invalid(f"Expected tensor_names to have {len(data)} elements but got {len(names)}")
    if len(specs) != len(data):
        raise invalid(
            f"Expected shapes_and_slices to have {len(data)} elements but got {len(specs)}"
        )
    items = []
    for name, spec, value in zip(names, specs, data):
        value = np.asarray(value)
        parsed = slices.parse_shape_and_slice(spec)
        if parsed is None:
            full, extents = list(value.shape), tuple((0, -1) for _ in value.shape)
        else:
            full, extents = parsed
            want = tuple(full[i] if n < 0 else n for i, (_, n) in enumerate(extents))
            if want != tuple(value.shape):
                raise invalid(
                    f"Slice {spec} of {name} has shape {shape_str(want)} but the saved value "
                    f"has shape {shape_str(value.shape)}"
                )
        items.append(v1_table.SliceToSave(name, list(full), extents, value))
    v1_table.write(filename, items)
    return ()


@kernel("SaveSlices", devices=CPU_ONLY)
def save_slices(node: Any, xp: Any) -> Compute:
    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        return _save(ctx, ins, with_slices=True)

    return compute


@kernel("Save", devices=CPU_ONLY)
def save(node: Any, xp: Any) -> Compute:
    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        return _save(ctx, ins, with_slices=False)

    return compute


def _restore(node: Any, pattern: str, name: str, spec: str) -> np.ndarray:
    want: dtypes.DType = node.attrs["dt"]
    reader = v1_table.V1Reader(pattern)
    stored = reader.dtype_enum(name)
    if stored != want.as_datatype_enum:
        raise invalid(
            f"Expected to restore a tensor of type {want.name}, got a tensor of type "
            f"{dtypes.as_dtype(stored).name} instead: tensor_name = {name}"
        )
    parsed = slices.parse_shape_and_slice(spec)
    if parsed is None:
        return reader.get_tensor(name)
    full, extents = parsed
    if full != reader.shape(name):
        raise errors.InvalidArgumentError(
            None,
            None,
            f"Shape in shape_and_slice spec {spec} does not match the shape stored in "
            f"checkpoint: {shape_str(reader.shape(name))}",
        )
    return reader.read_slice(name, extents)


@kernel("Restore", devices=CPU_ONLY)
def restore(node: Any, xp: Any) -> Compute:
    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        return (_restore(node, _text(ins[0]), _text(ins[1]), ""),)

    return compute


@kernel("RestoreSlice", devices=CPU_ONLY)
def restore_slice(node: Any, xp: Any) -> Compute:
    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        return (_restore(node, _text(ins[0]), _text(ins[1]), _text(ins[2])),)

    return compute
