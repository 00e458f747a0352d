"""tf.vectorized_map: fn applied to every slice of elems along dimension 0, outputs stacked.
TF 1.15 vectorizes fn with pfor; tfcluster runs it as a map_fn loop over the batch (same
values, also for outputs that do not depend on the slice: they are repeated per slice)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tfcluster.framework.func_graph import flatten, pack_as
from tfcluster.framework.graph import Graph, convert_to_tensor
from tfcluster.ops import array_ops
from tfcluster.ops.functional_ops import map_fn


def vectorized_map(fn: Callable[[Any], Any], elems: Any) -> Any:
    flat = [convert_to_tensor(e) for e in flatten(elems)]
    elems = pack_as(elems, flat)
    return map_fn(fn, elems, dtype=_output_dtypes(fn, flat, elems))


def _output_dtypes(fn: Callable[[Any], Any], flat: list[Any], elems: Any) -> Any:
    """The dtype structure of fn's output, found by calling fn on placeholders of one slice
    in a scratch graph (map_fn needs it when fn changes structure or dtype)."""
    with Graph().as_default():
        slices = [array_ops.placeholder(t.dtype, t.shape[1:]) for t in flat]
        out = fn(pack_as(elems, slices))
    leaves = flatten(out)
    return pack_as(out, [convert_to_tensor(leaf).dtype for leaf in leaves])
