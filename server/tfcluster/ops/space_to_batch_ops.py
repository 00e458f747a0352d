"""Moving spatial blocks into the batch or depth dimension and back (TF 1.15's array ops):
space_to_batch(_nd), batch_to_space(_nd), space_to_depth, depth_to_space and
required_space_to_batch_paddings, which dilated convolutions and pools are built from."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from tfcluster.framework import dtypes, op_def_registry, tensor_util
from tfcluster.framework.graph import Tensor, convert_to_tensor, name_scope
from tfcluster.framework.tensor_shape import TensorShape
from tfcluster.ops import array_ops
from tfcluster.ops.op_util import INTS, Outputs, check_dtype, make_op


# ---- shape inference -------------------------------------------------------------------------
def _block_and_pairs(
    block: Tensor, pairs: Tensor, op_type: str, what: str
) -> tuple[int | None, np.ndarray | None, np.ndarray | None]:
    """(number of block dims, constant block shape, constant [m, 2] pairs) where known."""
    bshape = block.shape
    if bshape.ndims is not None and bshape.ndims != 1:
        raise ValueError(f"Shape must be rank 1 but is rank {bshape.ndims} for '{op_type}'")
    m = bshape.as_list()[0] if bshape.ndims else None
    pshape = pairs.shape
    if pshape.ndims is not None:
        if pshape.ndims != 2 or pshape.as_list()[1] not in (None, 2):
            raise ValueError(f"{op_type}: {what} must have shape [M, 2], got {pshape}")
        pm = pshape.as_list()[0]
        if m is not None and pm is not None and m != pm:
            raise ValueError(
                f"{op_type}: block_shape and {what} disagree on M: {m} vs {pm} "
                f"({bshape} and {pshape})"
            )
        m = m if m is not None else pm
    b = tensor_util.constant_value(block)
    p = tensor_util.constant_value(pairs)
    if b is not None and np.any(np.asarray(b) < 1):
        raise ValueError(f"{op_type}: block_shape must be positive, got {np.asarray(b).tolist()}")
    if p is not None and np.any(np.asarray(p) < 0):
        raise ValueError(f"{op_type}: {what} must be non-negative, got {np.asarray(p).tolist()}")
    return m, b, p


def _to_batch_shape(
    x: Tensor, m: int | None, b: np.ndarray | None, p: np.ndarray | None, op_type: str
) -> Outputs:
    dtype = x.dtype.base_dtype
    if x.shape.ndims is None or m is None:
        return [(dtype, TensorShape(None))]
    if x.shape.ndims < m + 1:
        raise ValueError(
            f"{op_type}: input rank {x.shape.ndims} must be at least {m + 1} "
            f"(block_shape has {m} dims)"
        )
    d = x.shape.as_list()
    out: list[int | None] = list(d)
    if b is None:
        out[0] = None
        out[1 : m + 1] = [None] * m
        return [(dtype, TensorShape(out))]
    out[0] = d[0] * int(np.prod(b)) if d[0] is not None else None
    for i in range(m):
        size = d[i + 1]
        if p is None or size is None:
            out[i + 1] = None
            continue
        padded = size + int(p[i][0]) + int(p[i][1])
        if padded % int(b[i]):
            raise ValueError(
                f"padded_shape[{i}]={padded} is not divisible by block_shape[{i}]={int(b[i])} "
                f"for '{op_type}'"
            )
        out[i + 1] = padded // int(b[i])
    return [(dtype, TensorShape(out))]


def _to_space_shape(
    x: Tensor, m: int | None, b: np.ndarray | None, c: np.ndarray | None, op_type: str
) -> Outputs:
    dtype = x.dtype.base_dtype
    if x.shape.ndims is None or m is None:
        return [(dtype, TensorShape(None))]
    if x.shape.ndims < m + 1:
        raise ValueError(
            f"{op_type}: input rank {x.shape.ndims} must be at least {m + 1} "
            f"(block_shape has {m} dims)"
        )
    d = x.shape.as_list()
    out: list[int | None] = list(d)
    if b is None:
        out[0] = None
        out[1 : m + 1] = [None] * m
        return [(dtype, TensorShape(out))]
    block_prod = int(np.prod(b))
    if d[0] is not None:
        if d[0] % block_prod:
            raise ValueError(
                f"Dimension size must be evenly divisible by {block_prod} but is {d[0]} for "
                f"'{op_type}'"
            )
        out[0] = d[0] // block_prod
    for i in range(m):
        dim = d[i + 1]
        if c is None or dim is None:
            out[i + 1] = None
            continue
        size = dim * int(b[i]) - int(c[i][0]) - int(c[i][1])
        if size < 0:
            raise ValueError(f"{op_type}: crops {np.asarray(c).tolist()} exceed the block size")
        out[i + 1] = size
    return [(dtype, TensorShape(out))]


def _space_to_batch_nd_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    x, block, paddings = inputs
    m, b, p = _block_and_pairs(block, paddings, "SpaceToBatchND", "paddings")
    return _to_batch_shape(x, m, b, p, "SpaceToBatchND")


def _batch_to_space_nd_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    x, block, crops = inputs
    m, b, c = _block_and_pairs(block, crops, "BatchToSpaceND", "crops")
    return _to_space_shape(x, m, b, c, "BatchToSpaceND")


def _square_block(attrs: dict[str, Any]) -> np.ndarray:
    bs = int(attrs["block_size"])
    if bs < 2:
        raise ValueError(f"Value for attr 'block_size' of {bs} must be at least minimum 2")
    return np.array([bs, bs])


def _space_to_batch_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    x, paddings = inputs
    p = tensor_util.constant_value(paddings)
    return _to_batch_shape(x, 2, _square_block(attrs), p, "SpaceToBatch")


def _batch_to_space_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    x, crops = inputs
    c = tensor_util.constant_value(crops)
    return _to_space_shape(x, 2, _square_block(attrs), c, "BatchToSpace")


def _depth_infer(op_type: str, to_depth: bool) -> Any:
    def infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
        x = inputs[0]
        bs = int(attrs["block_size"])
        if bs < 2:
            raise ValueError(f"Value for attr 'block_size' of {bs} must be at least minimum 2")
        fmt = attrs.get("data_format", "NHWC")
        if fmt not in ("NHWC", "NCHW"):
            raise ValueError(f"{op_type}: data_format must be NHWC or NCHW, got {fmt!r}")
        dtype = x.dtype.base_dtype
        if x.shape.ndims is None:
            return [(dtype, TensorShape([None] * 4))]
        if x.shape.ndims != 4:
            raise ValueError(
                f"Shape must be rank 4 but is rank {x.shape.ndims} for '{op_type}' with input "
                f"shape {x.shape}."
            )
        n, a, b, c = x.shape.as_list()
        if fmt == "NCHW":
            n, c, a, b = x.shape.as_list()
        if to_depth:
            for size, what in ((a, "height"), (b, "width")):
                if size is not None and size % bs:
                    raise ValueError(
                        f"Dimension size must be evenly divisible by {bs} but is {size} for "
                        f"'{op_type}' ({what})"
                    )
            a = a // bs if a is not None else None
            b = b // bs if b is not None else None
            c = c * bs * bs if c is not None else None
        else:
            if c is not None and c % (bs * bs):
                raise ValueError(
                    f"Dimension size must be evenly divisible by {bs * bs} but is {c} for "
                    f"'{op_type}'"
                )
            a = a * bs if a is not None else None
            b = b * bs if b is not None else None
            c = c // (bs * bs) if c is not None else None
        shape = [n, c, a, b] if fmt == "NCHW" else [n, a, b, c]
        return [(dtype, TensorShape(shape))]

    return infer


op_def_registry.register("SpaceToBatchND", _space_to_batch_nd_infer)
op_def_registry.register("BatchToSpaceND", _batch_to_space_nd_infer)
op_def_registry.register("SpaceToBatch", _space_to_batch_infer)
op_def_registry.register("BatchToSpace", _batch_to_space_infer)
op_def_registry.register("SpaceToDepth", _depth_infer("SpaceToDepth", True))
op_def_registry.register("DepthToSpace", _depth_infer("DepthToSpace", False))


# ---- functions -------------------------------------------------------------------------------
def _index_input(value: Any, name: str) -> Tensor:
    t = convert_to_tensor(value, name=name, preferred_dtype=dtypes.int32)
    check_dtype(t, INTS, "space_to_batch", name)
    return t


def space_to_batch_nd(
    input: Any, block_shape: Any, paddings: Any, name: str | None = None
) -> Tensor:
    with name_scope(name, "SpaceToBatchND", [input, block_shape, paddings]) as scope:
        x = convert_to_tensor(input, name="input")
        b = _index_input(block_shape, "block_shape")
        p = _index_input(paddings, "paddings")
        attrs = {
            "T": x.dtype.base_dtype,
            "Tblock_shape": b.dtype.base_dtype,
            "Tpaddings": p.dtype.base_dtype,
        }
        return make_op("SpaceToBatchND", [x, b, p], attrs, name=scope).outputs[0]


def batch_to_space_nd(input: Any, block_shape: Any, crops: Any, name: str | None = None) -> Tensor:
    with name_scope(name, "BatchToSpaceND", [input, block_shape, crops]) as scope:
        x = convert_to_tensor(input, name="input")
        b = _index_input(block_shape, "block_shape")
        c = _index_input(crops, "crops")
        attrs = {
            "T": x.dtype.base_dtype,
            "Tblock_shape": b.dtype.base_dtype,
            "Tcrops": c.dtype.base_dtype,
        }
        return make_op("BatchToSpaceND", [x, b, c], attrs, name=scope).outputs[0]


def _block_size(new: Any, old: Any) -> int:
    if new is not None and old is not None:
        raise ValueError("Cannot specify both 'block_shape' and 'block_size'")
    value = new if new is not None else old
    if value is None:
        raise ValueError("block_size must be given")
    return int(value)


def space_to_batch(
    input: Any,
    paddings: Any,
    block_size: Any = None,
    name: str | None = None,
    block_shape: Any = None,
) -> Tensor:
    size = _block_size(block_shape, block_size)
    result = space_to_batch_nd(
        input, paddings=paddings, block_shape=np.array([size, size], np.int64), name=name
    )
    result.set_shape(result.shape.with_rank(4))
    return result


def batch_to_space(
    input: Any, crops: Any, block_size: Any, name: str | None = None, block_shape: Any = None
) -> Tensor:
    size = _block_size(block_shape, block_size)
    result = batch_to_space_nd(
        input, crops=crops, block_shape=np.array([size, size], np.int64), name=name
    )
    result.set_shape(result.shape.with_rank(4))
    return result


def _depth_op(
    op_type: str, input: Any, block_size: Any, data_format: str, name: str | None
) -> Tensor:
    with name_scope(name, op_type, [input]) as scope:
        x = convert_to_tensor(input, name="input")
        attrs = {"T": x.dtype.base_dtype, "block_size": int(block_size), "data_format": data_format}
        return make_op(op_type, [x], attrs, name=scope).outputs[0]


def space_to_depth(
    input: Any, block_size: Any, name: str | None = None, data_format: str = "NHWC"
) -> Tensor:
    return _depth_op("SpaceToDepth", input, block_size, data_format, name)


def depth_to_space(
    input: Any, block_size: Any, name: str | None = None, data_format: str = "NHWC"
) -> Tensor:
    return _depth_op("DepthToSpace", input, block_size, data_format, name)


def required_space_to_batch_paddings(
    input_shape: Any, block_shape: Any, base_paddings: Any = None, name: str | None = None
) -> tuple[Any, Any]:
    """(paddings, crops) that make input_shape + base_paddings divisible by block_shape;
    constants when every argument is known at graph-construction time (as TF)."""
    with name_scope(name, "required_space_to_batch_paddings", [input_shape, block_shape]):
        shape_t = convert_to_tensor(input_shape, dtype=dtypes.int32, name="input_shape")
        block_t = convert_to_tensor(block_shape, dtype=dtypes.int32, name="block_shape")
        if not block_t.shape.is_fully_defined() or block_t.shape.ndims != 1:
            raise ValueError(f"block_shape must be a vector of known length, got {block_t.shape}")
        m = int(block_t.shape.as_list()[0] or 0)
        if m == 0:
            zeros = array_ops.zeros([0, 2], dtypes.int32)
            return zeros, array_ops.zeros([0, 2], dtypes.int32)
        if not shape_t.shape.is_compatible_with(TensorShape([m])):
            raise ValueError(f"Shapes {shape_t.shape} and ({m},) are incompatible")
        if base_paddings is not None:
            base_t = convert_to_tensor(base_paddings, dtype=dtypes.int32, name="base_paddings")
            if not base_t.shape.is_compatible_with(TensorShape([m, 2])):
                raise ValueError(f"Shapes {base_t.shape} and ({m}, 2) are incompatible")
        else:
            base_t = array_ops.zeros([m, 2], dtypes.int32)
        const_block = tensor_util.constant_value(block_t)
        const_shape = tensor_util.constant_value(shape_t)
        const_base = tensor_util.constant_value(base_t)
        block: Any = block_t
        shape: Any = shape_t
        base: Any = base_t
        if const_block is not None and const_shape is not None and const_base is not None:
            block, shape, base = const_block, const_shape, const_base
        pad_start = base[:, 0]
        orig_end = base[:, 1]
        full = shape + pad_start + orig_end
        extra = (block - full % block) % block
        pad_end = orig_end + extra
        paddings = array_ops.stack([[pad_start[i], pad_end[i]] for i in range(m)], name="paddings")
        crops = array_ops.stack([[0, extra[i]] for i in range(m)], name="crops")
        return paddings, crops


__all__ = [
    "batch_to_space",
    "batch_to_space_nd",
    "depth_to_space",
    "required_space_to_batch_paddings",
    "space_to_batch",
    "space_to_batch_nd",
    "space_to_depth",
]
