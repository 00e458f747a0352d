"""tf.constant and the Const op, with TF1's conversion rules for Python and numpy values."""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np

from tfcluster.framework import dtypes, op_def_registry
from tfcluster.framework.graph import (
    Tensor,
    register_default_conversion_function,
    register_tensor_conversion_function,
)
from tfcluster.framework.tensor_shape import Dimension, TensorShape
from tfcluster.ops.op_util import Outputs, make_op

_INT32 = np.iinfo(np.int32)


def _const_infer(inputs: Any, attrs: dict[str, Any]) -> Outputs:
    value = np.asarray(attrs["value"])
    return [(attrs["dtype"], TensorShape(value.shape))]


op_def_registry.register("Const", _const_infer)


def _is_graph_value(value: Any) -> bool:
    return isinstance(value, Tensor) or (
        hasattr(value, "_as_graph_element") and not isinstance(value, type)
    )


def _leaf_ok(leaf: Any, dtype: dtypes.DType) -> bool:
    """TF1's _AssertCompatible: which Python leaves a dtype accepts."""
    if isinstance(leaf, np.ndarray):
        kind = leaf.dtype.kind
        if dtype is dtypes.string:
            return kind in "USO"
        return kind not in "USO"
    if dtype.is_integer:
        return isinstance(leaf, (numbers.Integral, np.integer, Dimension))
    if dtype.is_floating:
        return isinstance(leaf, (numbers.Real, np.integer, np.floating))
    if dtype.is_complex:
        return isinstance(leaf, (numbers.Number, np.number))
    if dtype is dtypes.bool_:
        return isinstance(leaf, (bool, np.bool_))
    if dtype is dtypes.string:
        return isinstance(leaf, (str, bytes, np.str_, np.bytes_))
    return True


def _first_mismatch(value: Any, dtype: dtypes.DType | None) -> Any:
    """The first leaf of a nested Python value that `dtype` cannot hold (or a tensor)."""
    if isinstance(value, (list, tuple)):
        for v in value:
            bad = _first_mismatch(v, dtype)
            if bad is not None:
                return bad
        return None
    if _is_graph_value(value):
        return value
    if dtype is not None and not _leaf_ok(value, dtype):
        return value
    return None


def _dense_dims(value: Any) -> list[int]:
    """TF's _GetDenseDimensions: only lists and tuples count, so a list of numpy arrays
    ([np.ones(2), np.ones(2)]) is not dense (tf.stack of them packs float64 Consts)."""
    if not isinstance(value, (list, tuple)):
        return []
    if not value:
        return [0]
    return [len(value), *_dense_dims(value[0])]


def _as_bytes(arr: np.ndarray) -> np.ndarray:
    flat = arr.reshape(-1)
    out = np.empty(flat.size, dtype=object)
    out[:] = [v.encode() if isinstance(v, str) else bytes(v) for v in flat.tolist()]
    return out.reshape(arr.shape)


def _from_numpy(value: np.ndarray | np.generic, dt: dtypes.DType | None) -> np.ndarray:
    arr = np.asarray(value)
    if arr.dtype.kind in "USO" and (dt is None or dt is dtypes.string):
        return _as_bytes(arr)
    if dt is None:
        dtypes.as_dtype(arr.dtype)  # raises TypeError for dtypes TF has no name for
        return arr
    if dt is dtypes.string:
        raise TypeError(f"Expected string, got {value!r} of type '{type(value).__name__}' instead.")
    try:
        return arr.astype(dt.as_numpy_dtype)
    except (TypeError, ValueError) as e:
        raise TypeError(
            f"Cannot convert {value!r} to EagerTensor of dtype {dt.name}: {e}"
        ) from None


def _first_leaf_is_text(value: Any) -> bool:
    while isinstance(value, (list, tuple)) and value:
        value = value[0]
    return isinstance(value, (bytes, str))


def _from_python(value: Any, dt: dtypes.DType | None) -> np.ndarray:
    bad = _first_mismatch(value, dt)
    if bad is not None:
        if dt is None:
            raise TypeError("List of Tensors when single Tensor expected")
        raise TypeError(f"Expected {dt.name}, got {bad!r} of type '{type(bad).__name__}' instead.")
    if value is None:
        raise ValueError("None values not supported.")
    np_dtype = None if dt is None or dt is dtypes.string else dt.as_numpy_dtype
    if dt is dtypes.string or _first_leaf_is_text(value):
        np_dtype = object  # numpy's bytes dtype would drop trailing NUL bytes
    try:
        arr = np.array(value, dtype=np_dtype)
    except OverflowError:
        raise ValueError(
            f"Value {value!r} is out of range for dtype {dt.name if dt else '?'}"
        ) from None
    except ValueError as e:
        raise ValueError(
            f"Argument must be a dense tensor: {value!r} - got a ragged or invalid value ({e})"
        ) from None
    if arr.dtype.kind in "SU":
        # numpy's fixed-width strings drop trailing NUL bytes (serialized protos end in them).
        arr = np.array(value, dtype=object)
    if list(arr.shape) != _dense_dims(value):
        raise ValueError(
            f"Argument must be a dense tensor: {value!r} - got shape {list(arr.shape)}, but "
            f"wanted {_dense_dims(value)}."
        )
    if arr.dtype.kind in "USO" or dt is dtypes.string:
        if arr.dtype.kind == "O" and not all(isinstance(v, (str, bytes)) for v in arr.reshape(-1)):
            raise TypeError(
                f"Failed to convert object of type {type(value)} to Tensor. Contents: {value}. "
                "Consider casting elements to a supported type."
            )
        return _as_bytes(arr)
    if dt is not None:
        return arr
    # TF's defaults for Python numbers: float32, and int32 when every value fits.
    if arr.dtype == np.float64:
        return arr.astype(np.float32)
    if arr.dtype.kind in "iu":
        fits = arr.size == 0 or (arr.min() >= _INT32.min and arr.max() <= _INT32.max)
        return arr.astype(np.int32 if fits else np.int64)
    return arr


def _is_array_like(value: Any) -> bool:
    """TF's _is_array_like: a value numpy converts itself (a pandas Series or DataFrame, an
    object with __array__ or __array_interface__, a buffer other than bytes) is taken as
    np.asarray of it, so it keeps numpy's dtype (float64 stays float64)."""
    if callable(getattr(value, "__array__", None)) or isinstance(
        getattr(value, "__array_interface__", None), dict
    ):
        return True
    try:
        memoryview(value)
    except TypeError:
        return False
    return not isinstance(value, bytes)


def to_numpy(value: Any, dtype: Any = None) -> np.ndarray:
    """A Python or numpy value as the ndarray a Const of `dtype` holds (strings as bytes)."""
    dt = dtypes.as_dtype(dtype).base_dtype if dtype is not None else None
    if _is_graph_value(value):
        raise TypeError(
            f"Expected a Python or numpy value, got a graph value {value!r}; use the tensor "
            "itself (or tf.identity) instead of tf.constant"
        )
    if isinstance(value, (np.ndarray, np.generic)):
        return _from_numpy(value, dt)
    if _is_array_like(value):
        return _from_numpy(np.asarray(value), dt)
    return _from_python(value, dt)


def _apply_shape(arr: np.ndarray, shape: Any, verify_shape: bool) -> np.ndarray:
    dims = TensorShape(shape.as_list() if isinstance(shape, TensorShape) else shape)
    if not dims.is_fully_defined():
        raise ValueError(f"Shape {shape!r} of a constant must be fully defined")
    target = [int(d) for d in dims.as_list()]  # type: ignore[arg-type]
    n = int(np.prod(target, dtype=np.int64))
    if verify_shape and list(arr.shape) != target:
        raise TypeError(f"Expected Tensor's shape: {tuple(target)}, got {arr.shape}.")
    if arr.size == n:
        return arr.reshape(target)
    if arr.size == 1:
        # A read-only broadcast view: the graph writes it as TF does, as the one value.
        return np.broadcast_to(arr.reshape(()), target)
    if arr.size > n:
        raise ValueError(f"Too many elements provided. Needed at most {n}, but received {arr.size}")
    if arr.size == 0:
        raise ValueError(f"Cannot fill a constant of shape {target} from an empty value")
    # TF pads with the last value when fewer values than elements are given.
    flat = np.empty(n, dtype=arr.dtype)
    flat[: arr.size] = arr.reshape(-1)
    flat[arr.size :] = arr.reshape(-1)[-1]
    return flat.reshape(target)


def constant(
    value: Any,
    dtype: Any = None,
    shape: Any = None,
    name: str = "Const",
    verify_shape: bool = False,
) -> Tensor:
    """A Const node holding `value` (a Python or numpy value), converted to `dtype` if given."""
    arr = to_numpy(value, dtype)
    if arr.size > 1 and not any(arr.strides):
        # The caller's own broadcast view: a full copy, written as every value as TF does.
        arr = arr.copy()
    if shape is not None:
        arr = _apply_shape(arr, shape, verify_shape)
    out_dtype = (
        dtypes.as_dtype(dtype).base_dtype if dtype is not None else dtypes.as_dtype(arr.dtype)
    )
    op = make_op("Const", [], {"value": arr, "dtype": out_dtype}, name=name)
    return op.outputs[0]


register_default_conversion_function(constant)


def _tensor_shape_to_tensor(
    s: TensorShape, dtype: Any = None, name: str | None = None, as_ref: bool = False
) -> Tensor:
    """A fully known TensorShape as an int32 vector (int64 when a dimension needs it), as TF
    converts one (e.g. in tf.concat([tf.shape(x), tensor.shape[1:]], 0))."""
    if not s.is_fully_defined():
        raise ValueError(f"Cannot convert a partially known TensorShape to a Tensor: {s}")
    dims = [int(d) for d in s.as_list()]  # type: ignore[arg-type]
    big = next((d for d in dims if d >= 2**31), 0)
    if dtype is not None:
        dtype = dtypes.as_dtype(dtype).base_dtype
        if dtype not in (dtypes.int32, dtypes.int64):
            raise TypeError(f"Cannot convert a TensorShape to dtype: {dtype}")
        if dtype == dtypes.int32 and big:
            raise ValueError(
                f"Cannot convert a TensorShape to dtype int32; a dimension is too large ({big})"
            )
    else:
        dtype = dtypes.int64 if big else dtypes.int32
    return constant(dims, dtype=dtype, name=name or "shape_as_tensor")


register_tensor_conversion_function(TensorShape, _tensor_shape_to_tensor, 100)


def _dimension_to_tensor(
    d: Dimension, dtype: Any = None, name: str | None = None, as_ref: bool = False
) -> Tensor:
    """A known Dimension as an int32 scalar (int64 if asked), as TF converts one (e.g. in
    tf.stack([batch, rows, cols, filters]) of a layer's get_shape() entries)."""
    if d.value is None:
        raise ValueError(f"Cannot convert an unknown Dimension to a Tensor: {d}")
    if dtype is not None:
        dtype = dtypes.as_dtype(dtype).base_dtype
        if dtype not in (dtypes.int32, dtypes.int64):
            raise TypeError(f"Cannot convert a TensorShape to dtype: {dtype}")
    else:
        dtype = dtypes.int32
    return constant(d.value, dtype=dtype, name=name or "shape_as_tensor")


register_tensor_conversion_function(Dimension, _dimension_to_tensor, 100)
