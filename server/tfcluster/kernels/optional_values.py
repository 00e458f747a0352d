"""Kernels of tf.data.experimental.Optional's ops: the variant is an `OptionalValue` (the
element's tensors, or None), a host object of the task that made it."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from tfcluster.framework import errors
from tfcluster.kernels import dataset_base as base
from tfcluster.kernels.dataset import _iterator
from tfcluster.kernels.registry import CPU_ONLY, kernel


class OptionalValue:
    __slots__ = ("tensors",)

    def __init__(self, tensors: Sequence[Any] | None) -> None:
        self.tensors = None if tensors is None else list(tensors)


def _optional(value: Any, node_name: str) -> OptionalValue:
    if not isinstance(value, OptionalValue):
        raise errors.InvalidArgumentError(
            None, None, f"{node_name}: input must be an Optional, got {type(value).__name__}"
        )
    return value


@kernel("OptionalFromValue", devices=CPU_ONLY)
def optional_from_value(node: Any, xp: Any) -> Any:
    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        return (OptionalValue(ins),)

    return compute


@kernel("OptionalNone", devices=CPU_ONLY)
def optional_none(node: Any, xp: Any) -> Any:
    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        return (OptionalValue(None),)

    return compute


@kernel("OptionalHasValue", devices=CPU_ONLY)
def optional_has_value(node: Any, xp: Any) -> Any:
    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        return (np.asarray(_optional(ins[0], node.name).tensors is not None),)

    return compute


@kernel("OptionalGetValue", devices=CPU_ONLY)
def optional_get_value(node: Any, xp: Any) -> Any:
    def compute(ctx: Any, ins: list[Any]) -> list[Any]:
        tensors = _optional(ins[0], node.name).tensors
        if tensors is None:
            raise errors.InvalidArgumentError(
                None, None, "The given optional does not have a value."
            )
        return list(tensors)

    return compute


@kernel("IteratorGetNextAsOptional", devices=CPU_ONLY)
def iterator_get_next_as_optional(node: Any, xp: Any) -> Any:
    specs = base.leaf_specs(node.attrs)

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        try:
            tensors = _iterator(ins[0], node.name).get_next(ctx, specs)
        except errors.OutOfRangeError:
            return (OptionalValue(None),)
        return (OptionalValue(tensors),)

    return compute
