"""A strategy's dataset of numpy arrays (experimental_make_numpy_dataset) as TF 1.15 builds
it: each array held by a resource variable on one host device, filled from the numpy value
through placeholders in slices of about 64 MB, and the dataset sliced from the variables, so
the arrays enter the graph once (not as constants) and the graph holds TF's ops."""

from __future__ import annotations

from typing import Any

import numpy as np

from tfcluster.framework import dtypes
from tfcluster.framework.graph import init_scope
from tfcluster.ops import array_ops, nest, variable_creators
from tfcluster.ops.variables import Variable

# Slices copied into a variable hold about this many bytes.
_SLICE_BYTES = 64 << 20


class SingleDevice:
    """A `colocate_with` for a strategy's creator: one plain variable on this device."""

    def __init__(self, device: str) -> None:
        self.device = device


def init_var_from_numpy(input_var: Any, numpy_input: np.ndarray, session: Any) -> None:
    """Fills input_var with numpy_input through a sliced assignment fed in pieces."""
    with init_scope():
        session.run(input_var.initializer)
        start = array_ops.placeholder(dtypes.int64, ())
        end = array_ops.placeholder(dtypes.int64, ())
        piece = array_ops.placeholder(input_var.dtype)
        assign_piece = input_var[start:end].assign(piece)
        row_bytes = int(np.prod(numpy_input.shape[1:])) * input_var.dtype.size
        rows_per_piece = int(np.ceil(_SLICE_BYTES / max(row_bytes, 1)))
        first, limit = 0, numpy_input.shape[0]
        while first < limit:
            last = min(first + rows_per_piece, limit)
            session.run(
                assign_piece, feed_dict={start: first, end: last, piece: numpy_input[first:last]}
            )
            first = last


def one_host_numpy_dataset(numpy_input: Any, colocate_with: Any, session: Any) -> Any:
    """The dataset of numpy_input's rows, from variables colocated with `colocate_with`."""
    from tfcluster.lib.data.dataset import Dataset

    def colocated(next_creator: Any, **kwargs: Any) -> Any:
        kwargs["colocate_with"] = colocate_with
        return next_creator(**kwargs)

    flat = [np.asarray(a) for a in nest.flatten(numpy_input)]
    with variable_creators.variable_creator_scope(colocated):
        held = tuple(
            Variable(array_ops.zeros(a.shape, a.dtype), trainable=False, use_resource=True)
            for a in flat
        )
    for v, a in zip(held, flat):
        init_var_from_numpy(v, a, session)
    return Dataset.from_tensor_slices(nest.pack_sequence_as(numpy_input, list(held)))
