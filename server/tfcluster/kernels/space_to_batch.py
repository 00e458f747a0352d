"""Space-to-batch and space-to-depth kernels over xp (and their inverses): each is a pad or
crop, one reshape, one transpose and one reshape, as TF defines them (the block offsets vary
slowest in the batch dimension, fastest-to-slowest row, column, channel in the depth)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from tfcluster.kernels.common import Compute, host_ints, invalid
from tfcluster.kernels.registry import kernel


def _block_and_pairs(
    block_arg: Any, pairs_arg: Any, what: str, name: str
) -> tuple[list[int], list[tuple[int, int]]]:
    block = host_ints(block_arg)
    pairs_arr = np.asarray(pairs_arg)
    if pairs_arr.ndim != 2 or pairs_arr.shape != (len(block), 2):
        raise invalid(
            f"{what} should have shape [{len(block)}, 2] instead of "
            f"{list(pairs_arr.shape)} ({name})"
        )
    pairs = [(int(a), int(b)) for a, b in pairs_arr.tolist()]
    if any(b < 1 for b in block):
        raise invalid(f"block_shape must be positive, got {block} ({name})")
    if any(a < 0 or b < 0 for a, b in pairs):
        raise invalid(f"{what} must be non-negative, got {[list(p) for p in pairs]} ({name})")
    return block, pairs


def space_to_batch(
    xp: Any, x: Any, block: list[int], paddings: list[tuple[int, int]], name: str
) -> Any:
    m = len(block)
    if x.ndim < m + 1:
        raise invalid(f"input rank should be > {m} instead of {x.ndim} ({name})")
    if any(a or b for a, b in paddings):
        widths = [(0, 0), *paddings] + [(0, 0)] * (x.ndim - m - 1)
        x = xp.pad(x, widths)
    batch, spatial, rest = x.shape[0], list(x.shape[1 : m + 1]), list(x.shape[m + 1 :])
    for i, (size, b) in enumerate(zip(spatial, block)):
        if size % b:
            raise invalid(
                f"padded_shape[{i}]={size} is not divisible by block_shape[{i}]={b} ({name})"
            )
    split = [batch] + [v for s, b in zip(spatial, block) for v in (s // b, b)] + rest
    y = x.reshape(split)
    perm = [2 + 2 * i for i in range(m)] + [0] + [1 + 2 * i for i in range(m)]
    perm += list(range(2 * m + 1, 2 * m + 1 + len(rest)))
    y = y.transpose(perm)
    return xp.ascontiguousarray(y).reshape(
        [batch * math.prod(block), *(s // b for s, b in zip(spatial, block)), *rest]
    )


def batch_to_space(
    xp: Any, x: Any, block: list[int], crops: list[tuple[int, int]], name: str
) -> Any:
    m = len(block)
    if x.ndim < m + 1:
        raise invalid(f"input rank should be > {m} instead of {x.ndim} ({name})")
    prod = math.prod(block)
    if x.shape[0] % prod:
        raise invalid(
            f"Input batch dimension ({x.shape[0]}) is not divisible by product of block sizes "
            f"({prod}) ({name})"
        )
    batch = x.shape[0] // prod
    spatial, rest = list(x.shape[1 : m + 1]), list(x.shape[m + 1 :])
    for i, ((a, b), s, k) in enumerate(zip(crops, spatial, block)):
        if a + b > s * k:
            raise invalid(
                f"Cropped size must be non-negative: crop_start[{i}]={a}, crop_end[{i}]={b}, "
                f"size {s * k} ({name})"
            )
    y = x.reshape([*block, batch, *spatial, *rest])
    perm = [m] + [v for i in range(m) for v in (m + 1 + i, i)]
    perm += list(range(2 * m + 1, 2 * m + 1 + len(rest)))
    y = xp.ascontiguousarray(y.transpose(perm)).reshape(
        [batch, *(s * k for s, k in zip(spatial, block)), *rest]
    )
    if any(a or b for a, b in crops):
        index = (slice(None), *(slice(a, s * k - b) for (a, b), s, k in zip(crops, spatial, block)))
        y = xp.ascontiguousarray(y[index])
    return y


@kernel("SpaceToBatchND", host=[1, 2])
def space_to_batch_nd(node: Any, xp: Any) -> Compute:
    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        block, pads = _block_and_pairs(ins[1], ins[2], "paddings", node.name)
        return (space_to_batch(xp, xp.asarray(ins[0]), block, pads, node.name),)

    return compute


@kernel("BatchToSpaceND", host=[1, 2])
def batch_to_space_nd(node: Any, xp: Any) -> Compute:
    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        block, crops = _block_and_pairs(ins[1], ins[2], "crops", node.name)
        return (batch_to_space(xp, xp.asarray(ins[0]), block, crops, node.name),)

    return compute


@kernel("SpaceToBatch", host=[1])
def space_to_batch_v1(node: Any, xp: Any) -> Compute:
    size = int(node.attrs["block_size"])

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        block, pads = _block_and_pairs([size, size], ins[1], "paddings", node.name)
        return (space_to_batch(xp, xp.asarray(ins[0]), block, pads, node.name),)

    return compute


@kernel("BatchToSpace", host=[1])
def batch_to_space_v1(node: Any, xp: Any) -> Compute:
    size = int(node.attrs["block_size"])

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        block, crops = _block_and_pairs([size, size], ins[1], "crops", node.name)
        return (batch_to_space(xp, xp.asarray(ins[0]), block, crops, node.name),)

    return compute


def _nhwc(xp: Any, x: Any, fmt: str) -> Any:
    return xp.moveaxis(x, 1, -1) if fmt == "NCHW" else x


def _from_nhwc(xp: Any, y: Any, fmt: str) -> Any:
    return xp.ascontiguousarray(xp.moveaxis(y, -1, 1)) if fmt == "NCHW" else y


@kernel("SpaceToDepth")
def space_to_depth(node: Any, xp: Any) -> Compute:
    bs = int(node.attrs["block_size"])
    fmt = node.attrs.get("data_format", "NHWC")

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        x = xp.asarray(ins[0])
        if x.ndim != 4:
            raise invalid(f"Input rank should be: 4 instead of: {x.ndim} ({node.name})")
        xl = _nhwc(xp, x, fmt)
        n, h, w, c = xl.shape
        if h % bs or w % bs:
            raise invalid(
                f"Image width {w} and height {h} should be divisible by block_size: {bs} "
                f"({node.name})"
            )
        y = xl.reshape(n, h // bs, bs, w // bs, bs, c).transpose(0, 1, 3, 2, 4, 5)
        y = xp.ascontiguousarray(y).reshape(n, h // bs, w // bs, bs * bs * c)
        return (_from_nhwc(xp, y, fmt),)

    return compute


@kernel("DepthToSpace")
def depth_to_space(node: Any, xp: Any) -> Compute:
    bs = int(node.attrs["block_size"])
    fmt = node.attrs.get("data_format", "NHWC")

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        x = xp.asarray(ins[0])
        if x.ndim != 4:
            raise invalid(f"Input rank should be: 4 instead of: {x.ndim} ({node.name})")
        xl = _nhwc(xp, x, fmt)
        n, h, w, c = xl.shape
        if c % (bs * bs):
            raise invalid(
                f"Input depth dimension {c} should be divisible by: {bs * bs} ({node.name})"
            )
        y = xl.reshape(n, h, w, bs, bs, c // (bs * bs)).transpose(0, 1, 3, 2, 4, 5)
        y = xp.ascontiguousarray(y).reshape(n, h * bs, w * bs, c // (bs * bs))
        return (_from_nhwc(xp, y, fmt),)

    return compute
