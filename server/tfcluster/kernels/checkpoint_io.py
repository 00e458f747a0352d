"""Kernels of the checkpoint ops (CPU): SaveV2 and RestoreV2 over the V2 tensor bundle,
MergeV2Checkpoints and ShardedFilename (StringJoin and the regex matches are string_ops').

They read and write files where the op runs, as TF's do. tf.train.Saver itself does not run
them (it fetches values to the client and writes there); a program that runs a SaverDef's
ops by name, as TensorFlow's own loaders do, gets these.
"""

from __future__ import annotations

import contextlib
import os
from typing import Any

import numpy as np

from tfcluster.framework import errors
from tfcluster.framework.tensor_bundle import bundle, open_checkpoint, slices
from tfcluster.kernels.registry import kernel


def _str(x: Any) -> str:
    v = x.item() if isinstance(x, np.ndarray) else x
    return v.decode() if isinstance(v, bytes) else str(v)


def _strs(x: Any) -> list[str]:
    return [_str(v) for v in np.asarray(x, dtype=object).reshape(-1)]


def _string_scalar(s: str) -> np.ndarray:
    out = np.empty((), dtype=object)
    out[()] = s.encode()
    return out


@kernel("SaveV2", devices=("CPU",))
def save_v2(node: Any, xp: Any) -> Any:
    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        prefix, names, specs = _str(ins[0]), _strs(ins[1]), _strs(ins[2])
        values = ins[3:]
        if not len(names) == len(specs) == len(values):
            raise errors.InvalidArgumentError(
                None,
                None,
                f"SaveV2 got {len(names)} tensor names, {len(specs)} shape_and_slices and "
                f"{len(values)} tensors",
            )
        tensors = []
        for name, spec, value in zip(names, specs, values):
            parsed = slices.parse_shape_and_slice(spec)
            if parsed is None:
                tensors.append(bundle.TensorToSave(name, np.asarray(value)))
            else:
                tensors.append(bundle.TensorToSave(name, np.asarray(value), *parsed))
        bundle.write_bundle(prefix, [tensors])
        return ()

    return compute


@kernel("RestoreV2", devices=("CPU",))
def restore_v2(node: Any, xp: Any) -> Any:
    want = list(node.attrs["dtypes"])

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        prefix, names, specs = _str(ins[0]), _strs(ins[1]), _strs(ins[2])
        reader = open_checkpoint(prefix)
        out = []
        for name, spec, dtype in zip(names, specs, want):
            parsed = slices.parse_shape_and_slice(spec)
            value = (
                reader.get_tensor(name) if parsed is None else reader.read_slice(name, parsed[1])
            )
            stored = reader.dtype_enum(name)
            if stored != dtype.as_datatype_enum:
                raise errors.InvalidArgumentError(
                    None,
                    None,
                    f"tensor_name = {name}; expected dtype {dtype.name} does not equal original "
                    f"dtype {bundle.dtype_name(stored)}",
                )
            out.append(value)
        return tuple(out)

    return compute


@kernel("MergeV2Checkpoints", devices=("CPU",))
def merge_v2_checkpoints(node: Any, xp: Any) -> Any:
    delete_old_dirs = bool(node.attrs.get("delete_old_dirs", True))

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        prefixes = _strs(ins[0])
        bundle.merge_bundles(prefixes, _str(ins[1]))
        if delete_old_dirs:
            for p in prefixes:
                with contextlib.suppress(OSError):
                    os.rmdir(os.path.dirname(p))
        return ()

    return compute


@kernel("ShardedFilename", devices=("CPU",))
def sharded_filename(node: Any, xp: Any) -> Any:
    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        base, shard, num = _str(ins[0]), int(ins[1]), int(ins[2])
        return (_string_scalar(f"{base}-{shard:05d}-of-{num:05d}"),)

    return compute
