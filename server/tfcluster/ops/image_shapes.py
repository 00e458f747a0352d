"""What the image op modules share: static dims of their inputs (with the small constant
folding TF's C++ shape inference does for sizes) and the tensors their ops take."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from tfcluster.framework import dtypes, tensor_util
from tfcluster.framework.graph import Tensor, convert_to_tensor
from tfcluster.framework.op_def_registry import NodeShapeError
from tfcluster.framework.tensor_shape import TensorShape
from tfcluster.ops.op_util import make_op


def rank_dims(shape: TensorShape, rank: int, op: str, what: str) -> list[int | None]:
    if shape.ndims is None:
        return [None] * rank
    if shape.ndims != rank:
        # The graph adds the node, its op type and the input shapes, as TF's message does.
        raise NodeShapeError(f"Shape must be rank {rank} but is rank {shape.ndims}")
    return shape.as_list()


FOLDABLE: dict[str, Callable[..., Any]] = {
    "Round": np.round,  # halves to even, as TF's Round
    "Floor": np.floor,
    "Mul": np.multiply,
    "RealDiv": np.true_divide,
    "Add": np.add,
    "AddV2": np.add,
    "Sub": np.subtract,
    "Minimum": np.minimum,
    "Maximum": np.maximum,
}


def fold_constant(tensor: Tensor, depth: int = 0) -> np.ndarray | None:
    """A small shape computation over constants, evaluated as TF's C++ shape inference does
    (EvaluateConstantTensor): resize_images' preserve_aspect_ratio sizes are static there."""
    value = tensor_util.constant_value(tensor)
    if value is not None or depth > 12:
        return value
    op = tensor.op
    if op.type in FOLDABLE:
        args = [fold_constant(t, depth + 1) for t in op.inputs]
        if any(a is None for a in args):
            return None
        dtype = tensor.dtype.base_dtype.as_numpy_dtype
        with np.errstate(all="ignore"):
            return np.asarray(FOLDABLE[op.type](*args)).astype(dtype)
    if op.type in ("Cast", "Identity", "Pack"):
        args = [fold_constant(t, depth + 1) for t in op.inputs]
        if any(a is None for a in args):
            return None
        if op.type == "Cast":
            return np.asarray(args[0]).astype(op._get_attr("DstT").as_numpy_dtype)
        if op.type == "Identity":
            return args[0]
        return np.stack([a for a in args if a is not None], axis=op._get_attr("axis"))
    if op.type == "StridedSlice" and op._get_attr("shrink_axis_mask") == 1:
        source, begin = (
            fold_constant(op.inputs[0], depth + 1),
            fold_constant(op.inputs[1], depth + 1),
        )
        if source is None or begin is None or np.asarray(source).ndim != 1:
            return None
        return np.asarray(source)[int(np.asarray(begin).reshape(-1)[0])]
    return None


def merged_dim(a: int | None, b: int | None) -> int | None:
    """Two dimensions a shape function requires equal, merged (the known one), or TF's error
    (the graph adds the node, its op type and the input shapes)."""
    if a is not None and b is not None and a != b:
        raise NodeShapeError(f"Dimensions must be equal, but are {a} and {b}")
    return a if a is not None else b


def check_dim(dim: int | None, want: int) -> None:
    """A dimension a shape function requires to be `want` (unknown passes), or TF's error."""
    if dim is not None and dim != want:
        raise NodeShapeError(f"Dimension must be {want} but is {dim}")


def size_dims(size: Tensor, op: str) -> list[int | None]:
    rank_dims(size.shape, 1, op, "size")
    if size.shape.ndims == 1:
        check_dim(size.shape[0].value, 2)
    folded = fold_constant(size)
    if folded is not None and np.asarray(folded).size == 2:
        return [None if d < 0 else int(d) for d in np.asarray(folded).reshape(-1)]
    dims = tensor_util.constant_value_as_shape(size)
    if dims.ndims is None:
        return [None, None]
    return dims.as_list()


def add_node(op_type: str, inputs: Sequence[Any], attrs: dict[str, Any], name: str | None) -> Any:
    return make_op(op_type, inputs, attrs, name=name or op_type)


def int32_tensor(value: Any, name: str) -> Tensor:
    return convert_to_tensor(value, dtype=dtypes.int32, name=name)


def string_tensor(value: Any, name: str = "contents") -> Tensor:
    return convert_to_tensor(value, dtype=dtypes.string, name=name)


def is_tensor_like(x: Any) -> bool:
    """A graph value (a Tensor or a variable), as TF's image_ops_impl._is_tensor."""
    return isinstance(x, Tensor) or hasattr(x, "_as_graph_element")
