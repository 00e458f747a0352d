"""TF's InferenceContext checks (WithRank, WithRankAtMost, Merge) with the messages TF's shape
functions give: raised as NodeShapeError, to which the graph adds the node, its op type and its
input shapes."""

from __future__ import annotations

from tfcluster.framework.op_def_registry import NodeShapeError
from tfcluster.framework.tensor_shape import TensorShape


def shape_text(shape: TensorShape) -> str:
    """A shape as TF's shape inference prints it: [2,?], or ? for an unknown rank."""
    if shape.ndims is None:
        return "?"
    return "[" + ",".join("?" if d is None else str(d) for d in shape.as_list()) + "]"


def with_rank(shape: TensorShape, rank: int) -> TensorShape:
    if shape.ndims is None:
        return TensorShape([None] * rank)
    if shape.ndims != rank:
        raise NodeShapeError(f"Shape must be rank {rank} but is rank {shape.ndims}")
    return shape


def with_rank_at_most(shape: TensorShape, rank: int) -> TensorShape:
    if shape.ndims is not None and shape.ndims > rank:
        raise NodeShapeError(f"Shape must be at most rank {rank} but is rank {shape.ndims}")
    return shape


def merge(a: TensorShape, b: TensorShape) -> TensorShape:
    """TF's InferenceContext::Merge: the two shapes' known parts together."""
    if a.ndims is None:
        return b
    if b.ndims is None:
        return a
    if a.ndims != b.ndims:
        raise NodeShapeError(f"Shapes must be equal rank, but are {a.ndims} and {b.ndims}")
    out: list[int | None] = []
    for i, (x, y) in enumerate(zip(a.as_list(), b.as_list())):
        if x is not None and y is not None and x != y:
            raise NodeShapeError(
                f"Dimension {i} in both shapes must be equal, but are {x} and {y}. Shapes are "
                f"{shape_text(a)} and {shape_text(b)}."
            )
        out.append(x if x is not None else y)
    return TensorShape(out)


def merge_dim(a: int | None, b: int | None) -> int | None:
    if a is not None and b is not None and a != b:
        raise NodeShapeError(f"Dimensions must be equal, but are {a} and {b}")
    return a if a is not None else b
