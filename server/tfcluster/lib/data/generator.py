"""Dataset.from_generator: elements made by a Python generator in the process that built the
graph (the generator is kept in framework.py_callbacks and named by the dataset op)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

from tfcluster.framework import dtypes, py_callbacks
from tfcluster.framework.graph import convert_to_tensor, get_default_graph
from tfcluster.framework.tensor_shape import TensorShape, as_shape
from tfcluster.lib.data import structure as st
from tfcluster.lib.data.dataset import Dataset
from tfcluster.ops import dataset_ops


def _convert(value: Any, dtype: dtypes.DType, shape: TensorShape) -> np.ndarray:
    np_dtype = dtype.as_numpy_dtype
    try:
        if np_dtype is object:
            arr = np.asarray(value, dtype=object)
            if arr.size and not all(isinstance(v, (bytes, str)) for v in arr.reshape(-1)):
                raise TypeError("not a string")
            if arr.size:
                flat = np.empty(arr.size, dtype=object)
                flat[:] = [v.encode() if isinstance(v, str) else v for v in arr.reshape(-1)]
                arr = flat.reshape(arr.shape)
        else:
            # TF converts with np.asarray(value, dtype) (script_ops' _convert): floats cast
            # to integers, digit strings parse; what numpy cannot convert fails.
            arr = np.asarray(value, dtype=np_dtype, order="C")
    except (TypeError, ValueError):
        raise TypeError(
            "`generator` yielded an element that could not be converted to the expected type. "
            f"The expected type was {dtype.name}, but the yielded element was {value!r}."
        ) from None
    if shape.ndims is not None and not shape.is_compatible_with(TensorShape(arr.shape)):
        raise ValueError(
            f"`generator` yielded an element of shape {arr.shape} where an element of shape "
            f"{shape} was expected."
        )
    return arr


def _flat_elements(
    generator: Callable[..., Any], types: Any, shapes: Any
) -> Callable[..., Iterator[list[np.ndarray]]]:
    flat_types = st.flatten(types)
    flat_shapes = st.flatten_up_to(types, shapes)

    def elements(*args: Any) -> Iterator[list[np.ndarray]]:
        for value in generator(*args):
            if isinstance(value, list):
                value = tuple(value)
            try:
                leaves = st.flatten_up_to(types, value)
            except ValueError:
                raise TypeError(
                    f"`generator` yielded an element that did not match the expected structure. "
                    f"The expected structure was {types!r}, but the yielded element was "
                    f"{value!r}."
                ) from None
            yield [_convert(v, t, as_shape(s)) for v, t, s in zip(leaves, flat_types, flat_shapes)]

    return elements


def from_generator(
    generator: Callable[..., Any], output_types: Any, output_shapes: Any = None, args: Any = None
) -> Dataset:
    if not callable(generator):
        raise TypeError("`generator` must be callable.")
    types = st.map_structure(dtypes.as_dtype, output_types)
    if output_shapes is None:
        shapes = st.map_structure(lambda _: TensorShape(None), types)
    else:
        shapes = st.pack_as(types, [as_shape(s) for s in st.flatten_up_to(types, output_shapes)])
    arg_tensors = [convert_to_tensor(a, name=f"args_{i}") for i, a in enumerate(args or ())]
    # TF 1.15 builds from_tensors(0).flat_map(...): a Const, a TensorDataset and a
    # FlatMapDataset where tfcluster has one op; op seeds follow TF's count.
    get_default_graph()._match_tf1_op_count(2)
    structure = st.map_structure(lambda t, s: st.dense(t, s), types, shapes)
    token = py_callbacks.register(_flat_elements(generator, types, shapes), "generator")
    attrs = {
        **st.op_attrs(structure),
        "token": token,
        "Targuments": [t.dtype.base_dtype for t in arg_tensors],
    }
    variant = dataset_ops.dataset_op(
        "_PyGeneratorDataset", arg_tensors, attrs, name="GeneratorDataset"
    )
    return Dataset(variant, structure)
