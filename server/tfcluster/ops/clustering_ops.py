"""The clustering ops TF 1.15's KMeans is built from (gen_clustering_ops): k-means++ and k-MC2
seeding and nearest centers."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tfcluster.framework import dtypes, op_def_registry
from tfcluster.framework.graph import Tensor, convert_to_tensor, name_scope
from tfcluster.framework.tensor_shape import TensorShape
from tfcluster.ops.op_util import Outputs, make_op


# TF 1.15 registers these ops without shape functions: their outputs' shapes are unknown
# until they run (KMC2ChainInitialization's is a scalar).
def _unknown(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    return [(dtypes.float32, TensorShape(None))]


def _kmc2_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    return [(dtypes.int64, TensorShape([]))]


def _nearest_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    return [(dtypes.int64, TensorShape(None)), (dtypes.float32, TensorShape(None))]


op_def_registry.register("KmeansPlusPlusInitialization", _unknown)
op_def_registry.register("KMC2ChainInitialization", _kmc2_infer)
op_def_registry.register("NearestNeighbors", _nearest_infer)


def kmeans_plus_plus_initialization(
    points: Any, num_to_sample: Any, seed: Any, num_retries_per_sample: Any, name: str | None = None
) -> Tensor:
    """num_to_sample rows of points chosen by k-means++ (each next point drawn in proportion to
    its squared distance to the chosen ones, best of 1 + num_retries_per_sample draws)."""
    with name_scope(name, "KmeansPlusPlusInitialization", [points]) as scope:
        ins = [
            convert_to_tensor(points, dtypes.float32, "points"),
            convert_to_tensor(num_to_sample, dtypes.int64, "num_to_sample"),
            convert_to_tensor(seed, dtypes.int64, "seed"),
            convert_to_tensor(num_retries_per_sample, dtypes.int64, "num_retries_per_sample"),
        ]
        return make_op("KmeansPlusPlusInitialization", ins, {}, name=scope).outputs[0]


def kmc2_chain_initialization(distances: Any, seed: Any, name: str | None = None) -> Tensor:
    """The index of the point a k-MC2 Markov chain over `distances` ends on."""
    with name_scope(name, "KMC2ChainInitialization", [distances]) as scope:
        ins = [
            convert_to_tensor(distances, dtypes.float32, "distances"),
            convert_to_tensor(seed, dtypes.int64, "seed"),
        ]
        return make_op("KMC2ChainInitialization", ins, {}, name=scope).outputs[0]


def nearest_neighbors(
    points: Any, centers: Any, k: Any, name: str | None = None
) -> tuple[Tensor, Tensor]:
    """(indices, squared distances) of the k nearest centers of each point, nearest first."""
    with name_scope(name, "NearestNeighbors", [points, centers]) as scope:
        ins = [
            convert_to_tensor(points, dtypes.float32, "points"),
            convert_to_tensor(centers, dtypes.float32, "centers"),
            convert_to_tensor(k, dtypes.int64, "k"),
        ]
        op = make_op("NearestNeighbors", ins, {}, name=scope)
        return op.outputs[0], op.outputs[1]


__all__: list[str] = []
