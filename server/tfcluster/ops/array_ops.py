"""Array ops: placeholders, shapes, reshaping, joining/splitting, slicing, gathers, padding, masks.

Each function follows TF1's python layer: the same op types, attrs, node names (Python values
become constants named after the argument, inside the op's name scope) and static shapes.
"""

from __future__ import annotations

import builtins
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

import numpy as np

from tfcluster.framework import (
    dispatch,
    dtypes,
    internal_deprecations,
    op_def_registry,
    tensor_util,
)
from tfcluster.framework.graph import (
    Operation,
    Tensor,
    convert_to_tensor,
    name_scope,
    register_tensor_conversion_function,
)
from tfcluster.framework.indexed_slices import IndexedSlices
from tfcluster.framework.inferred_values import inferred_value
from tfcluster.framework.sparse_tensor import SparseTensor
from tfcluster.framework.tensor_shape import Dimension, TensorShape, as_shape
from tfcluster.ops import constant_op
from tfcluster.ops.op_util import Outputs, make_op, unary_same

# math_ops imports this module at load time: the few functions here that need math_ops
# import it when called.

newaxis = None
_INDEX_DTYPES = (dtypes.int32, dtypes.int64)
# Below this many elements zeros()/ones() are one Const, as in TF; above, a Fill.
_SMALL_CONSTANT = 1000


# ---- static values -----------------------------------------------------------------------
def _shape_str(shape: TensorShape) -> str:
    if shape.ndims is None:
        return "?"
    return "[" + ",".join("?" if d is None else str(d) for d in shape.as_list()) + "]"


def _is_tensor_like(value: Any) -> bool:
    return isinstance(value, Tensor) or (
        hasattr(value, "_as_graph_element")
        and hasattr(value, "dtype")
        and not isinstance(value, type)
    )


def _scalar_value(t: Tensor) -> int | None:
    """A scalar int tensor's value when known statically, also for tf.shape(x)[i]."""
    value = tensor_util.constant_value(t)
    if value is not None:
        return int(value) if np.ndim(value) == 0 else None
    op = t.op
    if op.type in ("Identity", "Cast") and op.inputs:
        return _scalar_value(op.inputs[0])
    return _evaluated_scalar(t)


# Scalar int arithmetic TF's shape inference evaluates when every input is constant (its
# EvaluateConstantTensor runs such small constant subgraphs): `rank - 1` in Pack'ed sizes.
_SCALAR_ARITHMETIC: dict[str, Callable[[int, int], int]] = {
    "Add": lambda a, b: a + b,
    "AddV2": lambda a, b: a + b,
    "Sub": lambda a, b: a - b,
    "Mul": lambda a, b: a * b,
    "Maximum": max,
    "Minimum": min,
}


def _evaluated_scalar(t: Tensor) -> int | None:
    value = tensor_util.constant_value(t)
    if value is not None:
        return int(value) if np.ndim(value) == 0 and t.dtype.is_integer else None
    fn = _SCALAR_ARITHMETIC.get(t.op.type)
    if fn is None or not t.dtype.is_integer:
        return None
    a, b = (_evaluated_scalar(i) for i in t.op.inputs)
    return None if a is None or b is None else int(fn(a, b))


def _partial_values(t: Tensor) -> list[int | None] | None:
    """A 1-D int tensor's entries known at graph construction (None where unknown).

    Returns None when not even its length is known. Negative entries (-1) are kept.
    """
    value = inferred_value(t)
    if value is not None:
        return [int(v) for v in np.reshape(value, -1)] if np.ndim(value) <= 1 else None
    op = t.op
    if op.type in ("Shape", "ShapeN"):  # TF's shape refiner reads both (ConstantPartialShape)
        shape = op.inputs[t.value_index].shape
        return None if shape.ndims is None else shape.as_list()
    # Entries of unknown rank count as scalars (TF's ConstantPartialShape reads a Pack's
    # inputs one by one): reshape(x, [3 * batch_size]) with a shapeless placeholder is (?,).
    if op.type == "Pack" and all(i.shape.ndims in (None, 0) for i in op.inputs):
        return [_scalar_value(i) for i in op.inputs]
    if op.type == "ConcatV2":
        parts = [_partial_values(i) for i in op.inputs[:-1]]
        if all(p is not None for p in parts):
            return [v for p in parts for v in p]  # type: ignore[union-attr]
    if op.type in ("Identity", "Cast"):
        return _partial_values(op.inputs[0])
    if t.shape.ndims == 1 and t.shape.as_list()[0] is not None:
        return [None] * int(t.shape.as_list()[0])  # type: ignore[arg-type]
    return None


def _as_shape_or_unknown(values: list[int | None] | None) -> TensorShape:
    if values is None:
        return TensorShape(None)
    return TensorShape([None if v is None or v < 0 else v for v in values])


def _make(op_type: str, inputs: Sequence[Tensor], attrs: dict[str, Any], name: str) -> Operation:
    """Creates the op; static shape errors name the node and its input shapes, as TF's do."""
    try:
        return make_op(op_type, inputs, attrs, name=name)
    except ValueError as e:
        if not getattr(e, "tf_context", True):
            raise ValueError(str(e)) from None
        node = name[:-1] if name.endswith("/") else name
        shapes = ", ".join(_shape_str(t.shape) for t in inputs)
        partial = ""
        partial_shapes: dict[int, str] = getattr(e, "tf_partial_shapes", {})
        if partial_shapes:
            partial = " and with input tensors computed as partial shapes: " + ",".join(
                f"input[{i}] = {shape}" for i, shape in sorted(partial_shapes.items())
            )
        raise ValueError(
            f"{e} for '{node}' (op: '{op_type}') with input shapes: {shapes}{partial}."
        ) from None


def _output(op_type: str, inputs: Sequence[Tensor], attrs: dict[str, Any], name: str) -> Tensor:
    return _make(op_type, inputs, attrs, name).outputs[0]


def _plain_indices(value: Any) -> Any:
    """A shape or index argument with TensorShapes and Dimensions as plain ints."""
    if isinstance(value, TensorShape):
        value = value.as_list()
    if isinstance(value, (list, tuple)):
        value = [_index_value(d) for d in value]
    return value


def _allowed_index(t: Tensor, name: str, allowed: Sequence[dtypes.DType]) -> Tensor:
    """t, or TF's TypeError when its dtype is not an allowed index dtype."""
    if t.dtype.base_dtype not in allowed:
        names = ", ".join(d.name for d in allowed)
        raise TypeError(
            f"Value passed to parameter '{name}' has DataType {t.dtype.base_dtype.name} not in "
            f"list of allowed values: {names}"
        )
    return t


def _int_tensor(value: Any, name: str, allow_int64: bool = True) -> Tensor:
    """An index/shape argument as an int32 (or int64) tensor, named like TF's op inputs."""
    t = convert_to_tensor(_plain_indices(value), name=name, preferred_dtype=dtypes.int32)
    return _allowed_index(t, name, _INDEX_DTYPES if allow_int64 else (dtypes.int32,))


def _index_inputs(op_type: str, named: list[tuple[Any, str]]) -> list[Tensor]:
    """Inputs sharing one index type attr without a default (Slice's and StridedSlice's
    Index), as TF's op_def_library infers it: the first converted as it is (a numpy int64
    array stays int64, a list of Python ints is int32), the rest converted to its dtype; a
    tensor of another dtype is TF's TypeError naming both inputs."""
    (first_value, first_name), rest = named[0], named[1:]
    first = convert_to_tensor(_plain_indices(first_value), name=first_name)
    out = [_allowed_index(first, first_name, _INDEX_DTYPES)]
    want = first.dtype.base_dtype
    for value, name in rest:
        if isinstance(value, Tensor) and value.dtype.base_dtype != want:
            raise TypeError(
                f"Input '{name}' of '{op_type}' Op has type {value.dtype.base_dtype.name} that "
                f"does not match type {want.name} of argument '{first_name}'."
            )
        out.append(convert_to_tensor(_plain_indices(value), dtype=want, name=name))
    return out


def _int32_input(value: Any, name: str, op_type: str) -> Tensor:
    """An input whose op def fixes its type to int32 (no type attr): TF's op_def_library says
    which op's input a tensor of another type was passed to, or which value failed to convert."""
    if _is_tensor_like(value):
        t = convert_to_tensor(value)
        if t.dtype.base_dtype != dtypes.int32:
            raise TypeError(
                f"Input '{name}' of '{op_type}' Op has type {t.dtype.base_dtype.name} that does "
                "not match expected type of int32."
            )
        return t
    try:
        return convert_to_tensor(value, dtype=dtypes.int32, name=name)
    except (TypeError, ValueError) as e:
        raise TypeError(
            f"Expected int32 passed to parameter '{name}' of op '{op_type}', got {value!r} of "
            f"type '{type(value).__name__}' instead. Error: {e}"
        ) from None


def _convert_list(values: Sequence[Any], name: str, op_type: str) -> list[Tensor]:
    """List inputs of one dtype: Python values take the dtype of the first tensor."""
    dtype = next((v.dtype.base_dtype for v in values if _is_tensor_like(v)), None)
    out = []
    for i, v in enumerate(values):
        t = convert_to_tensor(
            v, dtype=dtype if not _is_tensor_like(v) else None, name=f"{name}_{i}"
        )
        out.append(t)
    base = out[0].dtype.base_dtype
    if any(t.dtype.base_dtype != base for t in out):
        got = ", ".join(t.dtype.base_dtype.name for t in out)
        raise TypeError(
            f"Tensors in list passed to '{name}' of '{op_type}' Op have types [{got}] that "
            "don't all match."
        )
    return out


# ---- autopacking: lists holding tensors convert to a Pack (as TF's array_ops does) ------
def _contains_tensor(value: Any) -> bool:
    if _is_tensor_like(value):
        return True
    if isinstance(value, (list, tuple)):
        return any(_contains_tensor(v) for v in value)
    return False


def _nested_dtype(value: Any) -> dtypes.DType | None:
    for v in value:
        if _is_tensor_like(v):
            return v.dtype.base_dtype  # type: ignore[no-any-return]
        if isinstance(v, (list, tuple)):
            found = _nested_dtype(v)
            if found is not None:
                return found
    return None


def _autopack(values: Sequence[Any], dtype: dtypes.DType, name: str) -> Any:
    converted: list[Any] = []
    must_pack = False
    with name_scope(name) as scope:
        for i, v in enumerate(values):
            if _is_tensor_like(v):
                t = convert_to_tensor(v)
                if t.dtype.base_dtype != dtype:
                    raise TypeError(
                        "Cannot convert a list containing a tensor of dtype "
                        f"{t.dtype.base_dtype.name} to {dtype.name} (Tensor is: {t!r})"
                    )
                converted.append(t)
                must_pack = True
            elif isinstance(v, (list, tuple)):
                inner = _autopack(v, dtype, str(i))
                must_pack = must_pack or isinstance(inner, Tensor)
                converted.append(inner)
            else:
                converted.append(v)
        if not must_pack:
            return converted
        tensors = [
            c if isinstance(c, Tensor) else constant_op.constant(c, dtype=dtype, name=str(i))
            for i, c in enumerate(converted)
        ]
        attrs = {"N": len(tensors), "T": dtype, "axis": 0}
        return _output("Pack", tensors, attrs, scope)


def _autopacking_conversion(
    value: Any, dtype: dtypes.DType | None = None, name: str | None = None, as_ref: bool = False
) -> Any:
    if not _contains_tensor(value):
        return NotImplemented
    inferred = _nested_dtype(value)
    if inferred is None:
        return NotImplemented
    if dtype is None:
        dtype = inferred
    elif dtype != inferred:
        # TF 1.15 casts every tensor of another dtype first (raw Cast ops where the list is
        # converted, before the Pack's scope): a list of float32 tensors asked for as int32
        # (the axis of a TF 0.x tf.concat(0, [a, b]) call) packs as int32.
        value = _cast_nested_tensors(value, dtype)
    return _autopack(value, dtype, name or "packed")


def _cast_nested_tensors(value: Any, dtype: dtypes.DType) -> Any:
    """value's tensors of another dtype cast to dtype, through nested lists and tuples (TF's
    nest.map_structure of _cast_nested_seqs_to_dtype)."""
    if _is_tensor_like(value):
        t = convert_to_tensor(value)
        if t.dtype.base_dtype == dtype:
            return value
        attrs = {"SrcT": t.dtype.base_dtype, "DstT": dtype, "Truncate": False}
        return make_op("Cast", [t], attrs, name="Cast").outputs[0]
    if isinstance(value, (list, tuple)):
        items = [_cast_nested_tensors(v, dtype) for v in value]
        if isinstance(value, tuple) and hasattr(value, "_fields"):  # a namedtuple
            return type(value)(*items)
        return type(value)(items)
    return value


register_tensor_conversion_function(list, _autopacking_conversion, 99)
register_tensor_conversion_function(tuple, _autopacking_conversion, 99)


# ---- placeholders, identity --------------------------------------------------------------
def _placeholder_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    shape = attrs.get("shape")
    return [(attrs["dtype"], TensorShape(None) if shape is None else as_shape(shape))]


def _placeholder_with_default_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    shape = as_shape(attrs["shape"])
    if not shape.is_compatible_with(inputs[0].shape):
        raise ValueError(
            f"Shapes {_shape_str(inputs[0].shape)} and {_shape_str(shape)} are incompatible: the "
            "default value must have the placeholder's shape"
        )
    return [(inputs[0].dtype.base_dtype, shape)]


op_def_registry.register("Placeholder", _placeholder_infer)
op_def_registry.register("PlaceholderWithDefault", _placeholder_with_default_infer)
op_def_registry.register("Identity", unary_same)
op_def_registry.register("StopGradient", unary_same)
op_def_registry.register("PreventGradient", unary_same)


def placeholder(dtype: Any, shape: Any = None, name: str | None = None) -> Tensor:
    attrs = {"dtype": dtypes.as_dtype(dtype).base_dtype, "shape": TensorShape(shape)}
    return make_op("Placeholder", [], attrs, name=name or "Placeholder").outputs[0]


def placeholder_with_default(input: Any, shape: Any, name: str | None = None) -> Tensor:
    with name_scope(name, "PlaceholderWithDefault", [input]) as scope:
        t = convert_to_tensor(input, name="input")
        attrs = {"dtype": t.dtype.base_dtype, "shape": TensorShape(shape)}
        return _output("PlaceholderWithDefault", [t], attrs, scope)


def identity(input: Any, name: str | None = None) -> Tensor:
    with name_scope(name, "Identity", [input]) as scope:
        t = convert_to_tensor(input, name="input")
        return _output("Identity", [t], {"T": t.dtype.base_dtype}, scope)


def stop_gradient(input: Any, name: str | None = None) -> Tensor:
    with name_scope(name, "StopGradient", [input]) as scope:
        t = convert_to_tensor(input, name="input")
        return _output("StopGradient", [t], {"T": t.dtype.base_dtype}, scope)


def prevent_gradient(input: Any, message: str = "", name: str | None = None) -> Tensor:
    """Identity whose gradient raises LookupError(message) (TF's array_ops.prevent_gradient)."""
    with name_scope(name, "PreventGradient", [input]) as scope:
        t = convert_to_tensor(input, name="input")
        attrs = {"T": t.dtype.base_dtype, "message": message}
        return _output("PreventGradient", [t], attrs, scope)


# ---- shape, size, rank -------------------------------------------------------------------
def _shape_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    return [(attrs.get("out_type", dtypes.int32), TensorShape([inputs[0].shape.ndims]))]


def _size_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    return [(attrs.get("out_type", dtypes.int32), TensorShape([]))]


def _shape_n_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    out_type = attrs.get("out_type", dtypes.int32)
    return [(out_type, TensorShape([t.shape.ndims])) for t in inputs]


op_def_registry.register("Shape", _shape_infer)
op_def_registry.register("ShapeN", _shape_n_infer)
op_def_registry.register("Size", _size_infer)
op_def_registry.register("Rank", lambda inputs, attrs: [(dtypes.int32, TensorShape([]))])


def _out_type(out_type: Any) -> dtypes.DType:
    dt = dtypes.as_dtype(out_type).base_dtype
    if dt not in _INDEX_DTYPES:
        raise TypeError(f"out_type must be int32 or int64, got {dt.name}")
    return dt


def shape(input: Any, name: str | None = None, out_type: Any = dtypes.int32) -> Tensor:
    """The shape of `input`: a Const when it is fully known statically (TF's optimize=True)."""
    dt = _out_type(out_type)
    with name_scope(name, "Shape", [input]) as scope:
        if isinstance(input, SparseTensor):
            # A SparseTensor's shape is its dense_shape (as TF's tf.shape gives it).
            # A Cast named Cast in the Shape scope, as TF's shape_internal makes it.
            attrs = {"SrcT": dtypes.int64, "DstT": dt, "Truncate": False}
            return make_op("Cast", [input.dense_shape], attrs, name="Cast").outputs[0]
        t = convert_to_tensor(input)
        if t.shape.is_fully_defined():
            return constant_op.constant(t.shape.as_list(), dtype=dt, name=scope)
        t = _converted_again(input, t)
        return _output("Shape", [t], {"T": t.dtype.base_dtype, "out_type": dt}, scope)


def _converted_again(input: Any, t: Tensor) -> Tensor:
    """TF's shape_internal converts an IndexedSlices to look at its static shape, then its
    Shape op converts it again, as "input" (two dense copies of a gather's gradient)."""
    if isinstance(input, IndexedSlices):
        return convert_to_tensor(input, name="input")
    return t


def shape_internal(
    input: Any, name: str | None = None, optimize: bool = True, out_type: Any = dtypes.int32
) -> Tensor:
    """TF's shape_internal: with optimize=False a Shape op even where the shape is static
    (TF's gradients of partly known broadcasts make those)."""
    if optimize or isinstance(input, SparseTensor):
        return shape(input, name=name, out_type=out_type)
    dt = _out_type(out_type)
    with name_scope(name, "Shape", [input]) as scope:
        t = _converted_again(input, convert_to_tensor(input))
        return _output("Shape", [t], {"T": t.dtype.base_dtype, "out_type": dt}, scope)


def _shape_op(t: Tensor) -> Tensor:
    with name_scope(None, "Shape", [t]) as scope:
        return _output("Shape", [t], {"T": t.dtype.base_dtype, "out_type": dtypes.int32}, scope)


def shape_n(
    input: Sequence[Any], out_type: Any = dtypes.int32, name: str | None = None
) -> list[Tensor]:
    """The shapes of several tensors, from one op (TF's conv gradients use it)."""
    dt = _out_type(out_type)
    with name_scope(name, "ShapeN", list(input)) as scope:
        tensors = [convert_to_tensor(t) for t in input]
        kinds = [t.dtype.base_dtype for t in tensors]
        if len(set(kinds)) > 1:
            raise TypeError(
                "Tensors in list passed to 'input' of 'ShapeN' Op have types "
                f"[{', '.join(k.name for k in kinds)}] that don't all match."
            )
        attrs = {"N": len(tensors), "T": kinds[0], "out_type": dt}
        return _make("ShapeN", tensors, attrs, scope).outputs


def size(input: Any, name: str | None = None, out_type: Any = dtypes.int32) -> Tensor:
    dt = _out_type(out_type)
    with name_scope(name, "Size", [input]) as scope:
        t = convert_to_tensor(input)
        n = t.shape.num_elements()
        if n is not None:
            return constant_op.constant(n, dtype=dt, name=scope)
        return _output("Size", [t], {"T": t.dtype.base_dtype, "out_type": dt}, scope)


def rank(input: Any, name: str | None = None) -> Tensor:
    with name_scope(name, "Rank", [input]) as scope:
        t = convert_to_tensor(input)
        if t.shape.ndims is not None:
            return constant_op.constant(t.shape.ndims, dtype=dtypes.int32, name=scope)
        return _output("Rank", [t], {"T": t.dtype.base_dtype}, scope)


# ---- reshape, fill, zeros, ones ----------------------------------------------------------
def _shape_fn_error(
    message: str, partial_shapes: dict[int, str] | None = None, context: bool = True
) -> ValueError:
    """A shape function's error (a plain ValueError, as TF's). TF's context names the inputs
    it read as partial shapes; an error reading a shape tensor itself gets no context."""
    err = ValueError(message)
    err.tf_partial_shapes = partial_shapes or {}  # type: ignore[attr-defined]
    err.tf_context = context  # type: ignore[attr-defined]
    return err


def _known_elements(dims: list[int | None]) -> tuple[int, int, bool]:
    """TF's reshape bookkeeping for one side: the product of the known dimensions, the index
    of the one unknown dimension (-1 if none), and whether more than one is unknown. A known
    zero makes the count known (0) whatever else is unknown, as TF's NumElements."""
    if 0 in dims:
        return 0, -1, False
    known, unknown = 1, -1
    for i, d in enumerate(dims):
        if d is None:
            if unknown >= 0:
                return known, unknown, True
            unknown = i
        else:
            known *= d
    return known, unknown, False


def _reshape_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    """TF 1.15's SetOutputShapeForReshape: -1 and unknown entries of the shape are alike; one
    unknown dimension on a side is inferred from (or checked against) the other side."""
    t, shape_t = inputs
    dtype = t.dtype.base_dtype
    if shape_t.shape.ndims not in (None, 1):
        raise ValueError(f"Shape must be rank 1 but is rank {shape_t.shape.ndims}")
    target = _partial_values(shape_t)
    if target is None:
        return [(dtype, TensorShape(None))]
    for d in target:
        if d is not None and d < -1:
            raise _shape_fn_error(f"Invalid value in tensor used for shape: {d}", context=False)
    out: list[int | None] = [None if d is None or d == -1 else d for d in target]
    partial = {1: _shape_str(TensorShape(out))}
    if t.shape.ndims is None:
        return [(dtype, TensorShape(out))]
    known_out, out_unknown, too_many_out = _known_elements(out)
    known_in, in_unknown, too_many_in = _known_elements(t.shape.as_list())
    if too_many_out or too_many_in:
        return [(dtype, TensorShape(out))]
    if in_unknown < 0 and out_unknown < 0:
        if known_in != known_out:
            raise _shape_fn_error(
                f"Cannot reshape a tensor with {known_in} elements to shape "
                f"{_shape_str(TensorShape(out))} ({known_out} elements)",
                partial,
            )
    elif in_unknown < 0 and known_out > 0:
        if known_in % known_out:
            raise _shape_fn_error(
                f"Dimension size must be evenly divisible by {known_out} but is {known_in}",
                partial,
            )
        out[out_unknown] = known_in // known_out
    elif out_unknown < 0 and in_unknown >= 0 and known_in != 0 and known_out % known_in:
        raise _shape_fn_error(
            f"Dimension size must be evenly divisible by {known_in} but is {known_out}", partial
        )
    return [(dtype, TensorShape(out))]


def _fill_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    dims_t, value = inputs
    if value.shape.ndims not in (None, 0):
        raise ValueError(f"Shape must be rank 0 but is rank {value.shape.ndims}")
    if dims_t.shape.ndims not in (None, 1):
        raise ValueError(f"Shape must be rank 1 but is rank {dims_t.shape.ndims}")
    dims = _partial_values(dims_t)
    if dims is not None and any(d is not None and d < 0 for d in dims):
        raise ValueError(f"Fill dimensions must be >= 0, got {dims}")
    return [(value.dtype.base_dtype, _as_shape_or_unknown(dims))]


op_def_registry.register("Reshape", _reshape_infer)
op_def_registry.register("Fill", _fill_infer)
op_def_registry.register("ZerosLike", unary_same)
op_def_registry.register("OnesLike", unary_same)


def reshape(tensor: Any, shape: Any, name: str | None = None) -> Tensor:
    with name_scope(name, "Reshape", [tensor, shape]) as scope:
        t = convert_to_tensor(tensor, name="tensor")
        s = _int_tensor(shape, "shape")
        attrs = {"T": t.dtype.base_dtype, "Tshape": s.dtype.base_dtype}
        return _output("Reshape", [t, s], attrs, scope)


def fill(dims: Any, value: Any, name: str | None = None) -> Tensor:
    with name_scope(name, "Fill", [dims, value]) as scope:
        d = _int_tensor(dims, "dims")
        v = convert_to_tensor(value, name="value")
        attrs = {"T": v.dtype.base_dtype, "index_type": d.dtype.base_dtype}
        return _output("Fill", [d, v], attrs, scope)


def _filled(value: Any, shape: Any, dtype: Any, name: str | None, default: str) -> Tensor:
    """TF's zeros()/ones(): a Const when small and static, else Fill(shape, value)."""
    dt = dtypes.as_dtype(dtype).base_dtype
    if dt is dtypes.bool_:
        value = bool(value)
    elif dt is dtypes.string and value == 0:
        value = ""
    with name_scope(name, default, [shape]) as scope:
        if not isinstance(shape, Tensor) and not _contains_tensor(shape):
            dims = TensorShape(shape.as_list() if isinstance(shape, TensorShape) else shape)
            if dims.ndims is None or not dims.is_fully_defined():
                raise ValueError(f"Cannot create a {default} tensor of unknown shape {shape!r}")
            if any(d < 0 for d in dims.as_list()):  # type: ignore[operator]
                raise ValueError(f"Dimension {min(dims.as_list())} must be >= 0")  # type: ignore[type-var]
            # TF tries constant(value, shape=shape) first; a shape that is one number (5, not
            # [5]) fails there (make_tensor_proto iterates it), so TF builds the Fill.
            if (dims.num_elements() or 0) < _SMALL_CONSTANT and _iterable(shape):
                return constant_op.constant(value, dtype=dt, shape=dims.as_list(), name=scope)
            shape_t = constant_op.constant(
                dims.as_list(), dtype=dtypes.int32, name="shape_as_tensor"
            )
        else:
            if not isinstance(shape, Tensor):
                _small_size_check(shape)
                shape = convert_to_tensor(shape, dtype=dtypes.int32)
            shape_t = _int_tensor(shape, "shape")
            if shape_t.shape.ndims == 0:
                shape_t = reshape(shape_t, [-1])
        return fill(shape_t, constant_op.constant(value, dtype=dt), name=scope)


def _iterable(shape: Any) -> bool:
    try:
        iter(shape)
    except TypeError:
        return False
    return True


def _small_size_check(shape: Sequence[Any]) -> None:
    """What TF 1.15's zeros()/ones() leave in the graph when the shape is a list holding
    tensors: they try `np.prod(shape) < 1000` to decide on a constant, which multiplies the
    elements (a `mul` op per element after the first) and compares (a `Less` op) before
    giving up. The ops are unused, but their names take their places in the scope."""
    if not isinstance(shape, (list, tuple)) or not shape:
        return
    if any(isinstance(d, (list, tuple)) for d in shape):
        return
    product = shape[0]
    for d in shape[1:]:
        product = product * d
    if isinstance(product, Tensor):
        _ = product < 1000


def zeros(shape: Any, dtype: Any = dtypes.float32, name: str | None = None) -> Tensor:
    return _filled(0, shape, dtype, name, "zeros")


def ones(shape: Any, dtype: Any = dtypes.float32, name: str | None = None) -> Tensor:
    return _filled(1, shape, dtype, name, "ones")


def zeros_like(
    tensor: Any, dtype: Any = None, name: str | None = None, optimize: bool = True
) -> Tensor:
    with name_scope(name, "zeros_like", [tensor]) as scope:
        t = convert_to_tensor(tensor, name="tensor")
        want = dtypes.as_dtype(dtype).base_dtype if dtype is not None else t.dtype.base_dtype
        if optimize and t.shape.is_fully_defined():
            return zeros(t.shape, dtype=want, name=scope)
        if want != t.dtype.base_dtype:
            return zeros(shape(t), dtype=want, name=scope)
        return _output("ZerosLike", [t], {"T": want}, scope)


def ones_like(
    tensor: Any, dtype: Any = None, name: str | None = None, optimize: bool = True
) -> Tensor:
    """Ones of `tensor`'s shape: Fill(its shape, 1), its shape a Const when known, as TF's."""
    with name_scope(name, "ones_like", [tensor]) as scope:
        t = convert_to_tensor(tensor, name="tensor")
        want = dtypes.as_dtype(dtype).base_dtype if dtype is not None else t.dtype.base_dtype
        ones_shape = shape(t) if optimize else _shape_op(t)
        out = ones(ones_shape, dtype=want, name=scope)
        out.set_shape(t.shape)
        return out


# ---- transpose ----------------------------------------------------------------------------
def _transpose_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    x, perm_t = inputs
    dtype = x.dtype.base_dtype
    rank = x.shape.ndims
    perm = _partial_values(perm_t)
    if perm is None:
        return [(dtype, TensorShape(None if rank is None else [None] * rank))]
    if rank is not None and len(perm) != rank:
        raise ValueError(f"Dimension must be {rank} but is {len(perm)}")
    rank = len(perm)
    dims = x.shape.as_list() if x.shape.ndims is not None else [None] * rank
    known = [p for p in perm if p is not None]
    for p in known:
        if not 0 <= p < rank:
            raise ValueError(f"perm dim {p} is out of range of input rank {rank}")
    if len(set(known)) != len(known):
        raise ValueError(f"perm {perm} has duplicate entries")
    return [(dtype, TensorShape([None if p is None else dims[p] for p in perm]))]


def _invert_permutation_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    x = inputs[0]
    if x.shape.ndims not in (None, 1):
        raise ValueError(f"Shape must be rank 1 but is rank {x.shape.ndims}")
    return [(x.dtype.base_dtype, x.shape.with_rank(1))]


op_def_registry.register("Transpose", _transpose_infer)
op_def_registry.register("InvertPermutation", _invert_permutation_infer)


def transpose(
    a: Any, perm: Any = None, name: str | None = "transpose", conjugate: bool = False
) -> Tensor:
    with name_scope(name, "transpose", [a]) as scope:
        # TF converts `a` itself when it computes perm ("a"), else the Transpose op does ("x").
        x = convert_to_tensor(a, name="a" if perm is None else "x")
        if perm is None:
            r = x.shape.ndims
            if r is not None:
                perm = np.arange(r - 1, -1, -1, dtype=np.int32)
            else:
                from tfcluster.ops import math_ops

                # TF's names: (rank - 1) - gen_math_ops._range(0, rank, 1): sub, Range, sub_1.
                dyn_rank = rank(x)
                perm = (dyn_rank - 1) - math_ops.range(0, dyn_rank, 1, name="Range")
        p = _int_tensor(perm, "perm")
        attrs = {"T": x.dtype.base_dtype, "Tperm": p.dtype.base_dtype}
        return _output("Transpose", [x, p], attrs, scope)


def invert_permutation(x: Any, name: str | None = None) -> Tensor:
    with name_scope(name, "InvertPermutation", [x]) as scope:
        t = _int_tensor(x, "x")
        return _output("InvertPermutation", [t], {"T": t.dtype.base_dtype}, scope)


# ---- concat, stack, unstack, split -------------------------------------------------------
def _concat_offset_infer(inputs: Sequence[Any], attrs: dict[str, Any]) -> Outputs:
    if len(inputs) < 3:
        raise ValueError(f"ConcatOffset needs at least two shapes, got {len(inputs) - 1}")
    if inputs[0].shape.ndims not in (None, 0):
        raise ValueError(f"Shape must be rank 0 but is rank {inputs[0].shape.ndims} (concat_dim)")
    return [(dtypes.int32, t.shape) for t in inputs[1:]]


op_def_registry.register("ConcatOffset", _concat_offset_infer)


def concat_offset(concat_dim: Any, shape: Sequence[Any], name: str | None = None) -> list[Tensor]:
    """Where each of the shapes starts along concat_dim once concatenated (a concat's gradient
    slices its gradient there, as TF's)."""
    with name_scope(name, "ConcatOffset", [concat_dim, *shape]) as scope:
        dim = _int_tensor(concat_dim, "concat_dim", allow_int64=False)
        shapes = [_int_tensor(s, "shape", allow_int64=False) for s in shape]
        return list(_make("ConcatOffset", [dim, *shapes], {"N": len(shapes)}, scope).outputs)


def _norm_axis(axis: int, rank: int, what: str) -> int:
    if not -rank <= axis < rank:
        raise ValueError(f"{what} = {axis} not in [{-rank}, {rank})")
    return axis + rank if axis < 0 else axis


def _concat_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    values, axis_t = list(inputs[:-1]), inputs[-1]
    dtype = values[0].dtype.base_dtype
    if axis_t.shape.ndims not in (None, 0):
        raise ValueError(f"Shape must be rank 0 but is rank {axis_t.shape.ndims}")
    ranks = {v.shape.ndims for v in values if v.shape.ndims is not None}
    if len(ranks) > 1:
        a, b = sorted(ranks)
        raise ValueError(f"Shape must be rank {a} but is rank {b}")
    if not ranks:
        return [(dtype, TensorShape(None))]
    rank = ranks.pop()
    if rank == 0:
        raise ValueError("Can't concatenate scalars (use tf.stack instead)")
    axis_v = _scalar_value(axis_t)
    if axis_v is None:
        return [(dtype, TensorShape([None] * rank))]
    if not -rank <= axis_v < rank:
        raise ValueError(
            f"ConcatOp : Expected concatenating dimensions in the range [{-rank}, {rank}), but "
            f"got {axis_v}"
        )
    axis = axis_v + rank if axis_v < 0 else axis_v
    out: list[int | None] = [None] * rank
    total: int | None = 0
    for v in values:
        dims = v.shape.as_list() if v.shape.ndims is not None else [None] * rank
        for j, d in enumerate(dims):
            if j == axis:
                total = None if total is None or d is None else total + d
            elif d is not None:
                if out[j] is not None and out[j] != d:
                    raise ValueError(
                        f"Dimension {j} in both shapes must be equal, but are {out[j]} and {d}"
                    )
                out[j] = d
    out[axis] = total
    return [(dtype, TensorShape(out))]


def _pack_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    dtype = inputs[0].dtype.base_dtype
    shape = TensorShape(None)
    for t in inputs:
        if t.dtype.base_dtype != dtype:
            raise TypeError(f"Pack: all inputs must have dtype {dtype.name}, got {t.dtype.name}")
        if not shape.is_compatible_with(t.shape):
            raise ValueError(
                f"Shapes must be equal rank and compatible, but are {_shape_str(shape)} and "
                f"{_shape_str(t.shape)}"
            )
        shape = shape.merge_with(t.shape)
    if shape.ndims is None:
        return [(dtype, TensorShape(None))]
    dims = shape.as_list()
    axis = _norm_axis(int(attrs["axis"]), len(dims) + 1, "axis")
    dims.insert(axis, len(inputs))
    return [(dtype, TensorShape(dims))]


def _unpack_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    x = inputs[0]
    num = int(attrs["num"])
    dtype = x.dtype.base_dtype
    if x.shape.ndims is None:
        return [(dtype, TensorShape(None))] * num
    dims = x.shape.as_list()
    axis = _norm_axis(int(attrs["axis"]), len(dims), "axis")
    if dims[axis] is not None and dims[axis] != num:
        raise ValueError(f"Dimension must be {num} but is {dims[axis]}")
    out = TensorShape(dims[:axis] + dims[axis + 1 :])
    return [(dtype, out)] * num


def _split_shapes(x: TensorShape, axis_v: int | None, sizes: list[int | None]) -> list[TensorShape]:
    if x.ndims is None:
        return [TensorShape(None)] * len(sizes)
    dims = x.as_list()
    if axis_v is None:
        return [TensorShape([None] * len(dims))] * len(sizes)
    axis = _norm_axis(axis_v, len(dims), "split_dim")
    return [TensorShape([*dims[:axis], s, *dims[axis + 1 :]]) for s in sizes]


def _split_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    axis_t, x = inputs
    num = int(attrs["num_split"])
    axis_v = _scalar_value(axis_t)
    dim: int | None = None
    if axis_v is not None and x.shape.ndims is not None:
        dim = x.shape.as_list()[_norm_axis(axis_v, x.shape.ndims, "split_dim")]
    if dim is not None and dim % num:
        raise ValueError(f"Dimension size must be evenly divisible by {num} but is {dim}")
    size = None if dim is None else dim // num
    return [(x.dtype.base_dtype, s) for s in _split_shapes(x.shape, axis_v, [size] * num)]


def _split_v_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    x, sizes_t, axis_t = inputs
    num = int(attrs["num_split"])
    axis_v = _scalar_value(axis_t)
    sizes = _partial_values(sizes_t)
    if sizes is None or len(sizes) != num:
        sizes = [None] * num
    dim: int | None = None
    if axis_v is not None and x.shape.ndims is not None:
        dim = x.shape.as_list()[_norm_axis(axis_v, x.shape.ndims, "split_dim")]
    wild = [i for i, s in enumerate(sizes) if s == -1]
    if len(wild) > 1:
        raise ValueError("Only one dimensions can have a value of -1")
    out: list[int | None] = [None if s == -1 else s for s in sizes]
    if all(s is not None for s in sizes) and dim is not None:
        known = sum(s for s in sizes if s is not None and s != -1)
        if (wild and known > dim) or (not wild and known != dim):
            raise ValueError(
                f"Determined shape must either match input shape along split_dim exactly if "
                f"fully specified, or be less than the size of the input along split_dim if not "
                f"fully specified.  Got: {known}"
            )
        if wild:
            out[wild[0]] = dim - known
    return [(x.dtype.base_dtype, s) for s in _split_shapes(x.shape, axis_v, out)]


op_def_registry.register("ConcatV2", _concat_infer)
op_def_registry.register("Pack", _pack_infer)
op_def_registry.register("Unpack", _unpack_infer)
op_def_registry.register("Split", _split_infer)
op_def_registry.register("SplitV", _split_v_infer)


def concat(values: Any, axis: Any, name: str | None = "concat") -> Tensor:
    if not isinstance(values, (list, tuple)):
        values = [values]
    if len(values) == 1:
        # TF names the Identity `name` inside the scope `name` opens (concat/concat).
        with name_scope(name, "concat"):
            a = convert_to_tensor(axis, name="concat_dim", dtype=dtypes.int32)
            a.get_shape().assert_has_rank(0)  # TF's check, and its message
            return identity(values[0], name=name)
    with name_scope(name, "ConcatV2", list(values)) as scope:
        tensors = _convert_list(values, "values", "ConcatV2")
        a = _int_tensor(axis, "axis")
        attrs = {"N": len(tensors), "T": tensors[0].dtype.base_dtype, "Tidx": a.dtype.base_dtype}
        return _output("ConcatV2", [*tensors, a], attrs, scope)


def stack(values: Sequence[Any], axis: int = 0, name: str | None = "stack") -> Tensor:
    if isinstance(values, Tensor) and axis == 0:
        return values  # TF converts `values` first: a tensor is returned as it is
    if not values:
        raise ValueError("stack needs at least one value (values is empty)")
    if axis == 0:
        try:
            # A list of constants is one constant, one holding tensors is packed as a
            # conversion packs it (Python values named by their index), as TF's stack does.
            return convert_to_tensor(list(values), name=name or "stack")
        except (TypeError, ValueError):
            pass
    if axis == 0:
        # As TF: converted as a list, which packs it with its constants named by position
        # (stack/1, stack/2, ...).
        try:
            packed = _autopacking_conversion(list(values), name=name or "stack")
        except (TypeError, ValueError):
            packed = NotImplemented
        if isinstance(packed, Tensor):
            return packed
    if not constant_op._is_graph_value(values[0]):
        # TF converts the first value on its own (for its shape's rank, the axis check): a
        # Dimension or Python value left unpacked above becomes a Const named as the stack.
        convert_to_tensor(values[0], name=name or "stack")
    with name_scope(name, "Pack", list(values)) as scope:
        tensors = _convert_list(values, "values", "Pack")
        first = tensors[0].shape
        if first.ndims is not None:
            _norm_axis(int(axis), first.ndims + 1, "axis")
        attrs = {"N": len(tensors), "T": tensors[0].dtype.base_dtype, "axis": int(axis)}
        return _output("Pack", tensors, attrs, scope)


def unstack(
    value: Any, num: int | None = None, axis: int = 0, name: str | None = "unstack"
) -> list[Tensor]:
    # Without num, TF converts the value in the caller's scope (a variable's ReadVariableOp
    # before `unstack`) to read num from its shape.
    if num is None:
        value = convert_to_tensor(value)
    with name_scope(name, "Unpack", [value]) as scope:
        t = convert_to_tensor(value, name="value")
        if num is None:
            if t.shape.ndims is None:
                raise ValueError(f"Cannot infer num from shape {t.shape}")
            dims = t.shape.as_list()
            num = dims[_norm_axis(int(axis), len(dims), "axis")]
            if num is None:
                raise ValueError(f"Cannot infer num from shape {t.shape}")
        attrs = {"num": int(num), "T": t.dtype.base_dtype, "axis": int(axis)}
        return list(_make("Unpack", [t], attrs, scope).outputs)


def split(
    value: Any,
    num_or_size_splits: Any,
    axis: Any = 0,
    num: int | None = None,
    name: str | None = "split",
) -> list[Tensor]:
    """tf.split: an int makes `Split` (equal parts), a list or 1-D tensor of sizes `SplitV`."""
    is_int = isinstance(num_or_size_splits, (int, np.integer, Dimension)) and not isinstance(
        num_or_size_splits, bool
    )
    # TF converts the sizes first, in the caller's scope (a `Const` even for an int, which
    # Split does not read): later op names in that scope count it.
    raw = num_or_size_splits
    if isinstance(raw, TensorShape):
        raw = raw.as_list()
    if isinstance(raw, (list, tuple)):
        raw = [d.value if isinstance(d, Dimension) else d for d in raw]
    sizes = convert_to_tensor(int(raw) if is_int else raw, preferred_dtype=dtypes.int32)
    with name_scope(name, "split", [value]) as scope:
        # Split's inputs are (split_dim, value): TF converts them in that order (a variable's
        # ReadVariableOp after `split_dim`); SplitV's are (value, size_splits, split_dim).
        a = _int32_input(axis, "split_dim", "Split") if is_int else None
        x = convert_to_tensor(value, name="value")
        if is_int:
            n = int(num_or_size_splits)
            if n <= 0:
                raise ValueError(f"num_or_size_splits must be positive, got {n}")
            attrs = {"num_split": n, "T": x.dtype.base_dtype}
            assert a is not None
            return list(_make("Split", [a, x], attrs, scope).outputs)
        if sizes.dtype.base_dtype not in _INDEX_DTYPES:
            raise TypeError(
                "Value passed to parameter 'size_splits' has DataType "
                f"{sizes.dtype.base_dtype.name} not in list of allowed values: int32, int64"
            )
        if sizes.shape.ndims == 0:
            raise ValueError("num_or_size_splits as a tensor must be 1-D (use an int for Split)")
        if num is None:
            if sizes.shape.ndims is None or sizes.shape.as_list()[0] is None:
                raise ValueError(f"Cannot infer num from shape {num_or_size_splits}")
            num = int(sizes.shape.as_list()[0])  # type: ignore[arg-type]
        a = _int32_input(axis, "split_dim", "SplitV")
        attrs = {"num_split": int(num), "T": x.dtype.base_dtype, "Tlen": sizes.dtype.base_dtype}
        return list(_make("SplitV", [x, sizes, a], attrs, scope).outputs)


# ---- slice and strided slice -------------------------------------------------------------
def _slice_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    x, begin_t, size_t = inputs
    dtype = x.dtype.base_dtype
    begin = _partial_values(begin_t)
    sizes = _partial_values(size_t)
    rank = x.shape.ndims
    n = len(sizes) if sizes is not None else len(begin) if begin is not None else rank
    if n is None:
        return [(dtype, TensorShape(None))]
    if rank is not None and n != rank:
        raise ValueError(f"Shape must be rank {rank} but is rank {n} (begin and size of Slice)")
    dims = x.shape.as_list() if rank is not None else [None] * n
    begin = begin if begin is not None and len(begin) == n else [None] * n
    sizes = sizes if sizes is not None and len(sizes) == n else [None] * n
    out: list[int | None] = []
    for i, (d, b, s) in enumerate(zip(dims, begin, sizes)):
        if d is not None and b is not None and not 0 <= b <= d:
            raise ValueError(f"Expected begin[{i}] in [0, {d}], but got {b}")
        if s is not None and s != -1:
            if s < -1 or (d is not None and b is not None and b + s > d):
                raise ValueError(f"Expected size[{i}] in [0, {(d or 0) - (b or 0)}], but got {s}")
            out.append(s)
        elif s == -1 and d is not None and b is not None:
            out.append(d - b)
        else:
            out.append(None)
    return [(dtype, TensorShape(out))]


def _slice_length(
    dim: int | None, b: int | None, e: int | None, s: int, b_masked: bool, e_masked: bool
) -> int | None:
    if dim is None or (b is None and not b_masked) or (e is None and not e_masked):
        return None
    start = None if b_masked else b
    stop = None if e_masked else e
    return len(builtins.range(*builtins.slice(start, stop, s).indices(dim)))


def _strided_slice_shape(
    x: TensorShape,
    begin: list[int | None] | None,
    end: list[int | None] | None,
    strides: list[int | None] | None,
    attrs: dict[str, Any],
) -> TensorShape:
    """Static result shape of a strided slice; dims stay unknown where values are unknown."""
    n = next((len(v) for v in (begin, end, strides) if v is not None), None)
    if n is None or x.ndims is None:
        return TensorShape(None)
    begin = begin if begin is not None and len(begin) == n else [None] * n
    end = end if end is not None and len(end) == n else [None] * n
    strides = strides if strides is not None and len(strides) == n else [None] * n
    bmask, emask = int(attrs.get("begin_mask", 0)), int(attrs.get("end_mask", 0))
    ellipsis, new_axis = int(attrs.get("ellipsis_mask", 0)), int(attrs.get("new_axis_mask", 0))
    shrink = int(attrs.get("shrink_axis_mask", 0))
    dims = x.as_list()
    rank = len(dims)
    ellipsis_bits = [i for i in builtins.range(n) if ellipsis & (1 << i)]
    if len(ellipsis_bits) > 1:
        raise ValueError("Multiple ellipses in slice spec not allowed")
    real = sum(1 for i in builtins.range(n) if not (ellipsis | new_axis) & (1 << i))
    if real > rank:
        raise ValueError(f"Index out of range using input dim {rank}; input has only {rank} dims")
    out: list[int | None] = []
    d = 0
    for i in builtins.range(n):
        bit = 1 << i
        if ellipsis & bit:
            k = rank - real
            out.extend(dims[d : d + k])
            d += k
        elif new_axis & bit:
            out.append(1)
        else:
            stride = strides[i]
            if stride == 0:
                raise ValueError(f"strides[{i}] must be non-zero")
            dim, b = dims[d], begin[i]
            if shrink & bit:
                if dim is not None and b is not None and not -dim <= b < dim:
                    raise ValueError(f"slice index {b} of dimension {d} out of bounds.")
            elif stride is None:
                out.append(None)
            else:
                out.append(
                    _slice_length(dim, b, end[i], stride, bool(bmask & bit), bool(emask & bit))
                )
            d += 1
    if not ellipsis_bits:
        out.extend(dims[d:])
    return TensorShape(out)


def _strided_slice_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    x, begin_t, end_t, strides_t = inputs
    shape = _strided_slice_shape(
        x.shape, _partial_values(begin_t), _partial_values(end_t), _partial_values(strides_t), attrs
    )
    return [(x.dtype.base_dtype, shape)]


def _strided_slice_grad_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    return [(inputs[4].dtype.base_dtype, _as_shape_or_unknown(_partial_values(inputs[0])))]


op_def_registry.register("Slice", _slice_infer)
op_def_registry.register("StridedSlice", _strided_slice_infer)
op_def_registry.register("StridedSliceGrad", _strided_slice_grad_infer)
# AddN of StridedSliceGrads, fused inside a function body (runtime/body_fusion.py): the
# parts' five inputs one after the other; the result is shaped as the first part's.
op_def_registry.register("_FusedAddNOfStridedSliceGrads", _strided_slice_grad_infer)


def slice(input_: Any, begin: Any, size: Any, name: str | None = None) -> Tensor:
    with name_scope(name, "Slice", [input_, begin, size]) as scope:
        x = convert_to_tensor(input_, name="input")
        b, s = _index_inputs("Slice", [(begin, "begin"), (size, "size")])
        attrs = {"T": x.dtype.base_dtype, "Index": b.dtype.base_dtype}
        return _output("Slice", [x, b, s], attrs, scope)


def _mask_attrs(
    begin_mask: int, end_mask: int, ellipsis_mask: int, new_axis_mask: int, shrink_axis_mask: int
) -> dict[str, int]:
    return {
        "begin_mask": int(begin_mask),
        "end_mask": int(end_mask),
        "ellipsis_mask": int(ellipsis_mask),
        "new_axis_mask": int(new_axis_mask),
        "shrink_axis_mask": int(shrink_axis_mask),
    }


def strided_slice(
    input_: Any,
    begin: Any,
    end: Any,
    strides: Any = None,
    begin_mask: int = 0,
    end_mask: int = 0,
    ellipsis_mask: int = 0,
    new_axis_mask: int = 0,
    shrink_axis_mask: int = 0,
    var: Any = None,
    name: str | None = None,
) -> Tensor:
    if strides is None:
        # As TF: ones_like(begin) before the op's scope, converting begin on its own (the op
        # count, hence the op seeds of later random ops, is TF's).
        strides = ones_like(begin)
    with name_scope(name, "StridedSlice", [input_, begin, end, strides]) as scope:
        x = convert_to_tensor(input_, name="input")
        b, e, s = _index_inputs(
            "StridedSlice", [(begin, "begin"), (end, "end"), (strides, "strides")]
        )
        attrs: dict[str, Any] = {"T": x.dtype.base_dtype, "Index": b.dtype.base_dtype}
        attrs.update(
            _mask_attrs(begin_mask, end_mask, ellipsis_mask, new_axis_mask, shrink_axis_mask)
        )
        return _output("StridedSlice", [x, b, e, s], attrs, scope)


def strided_slice_grad(
    shape: Any,
    begin: Any,
    end: Any,
    strides: Any,
    dy: Any,
    begin_mask: int = 0,
    end_mask: int = 0,
    ellipsis_mask: int = 0,
    new_axis_mask: int = 0,
    shrink_axis_mask: int = 0,
    name: str | None = None,
) -> Tensor:
    with name_scope(name, "StridedSliceGrad", [shape, begin, end, strides, dy]) as scope:
        ts = [
            _int_tensor(v, n)
            for v, n in ((shape, "shape"), (begin, "begin"), (end, "end"), (strides, "strides"))
        ]
        g = convert_to_tensor(dy, name="dy")
        attrs: dict[str, Any] = {"T": g.dtype.base_dtype, "Index": ts[0].dtype.base_dtype}
        attrs.update(
            _mask_attrs(begin_mask, end_mask, ellipsis_mask, new_axis_mask, shrink_axis_mask)
        )
        return _output("StridedSliceGrad", [*ts, g], attrs, scope)


_SLICE_TYPE_ERROR = (
    "Only integers, slices (`:`), ellipsis (`...`), tf.newaxis (`None`) and scalar "
    "tf.int32/tf.int64 tensors are valid indices"
)


def _check_index(idx: Any) -> None:
    if isinstance(idx, (int, np.integer, Dimension)) and not isinstance(idx, (bool, np.bool_)):
        return
    if _is_tensor_like(idx):
        dt = idx.dtype.base_dtype
        if dt in _INDEX_DTYPES and idx.shape.ndims in (None, 0):
            return
    raise TypeError(f"{_SLICE_TYPE_ERROR}, got {idx!r}")


def _index_value(idx: Any) -> Any:
    return idx.value if isinstance(idx, Dimension) else idx


def strided_slice_from_key(tensor: Any, key: Any, var: Any = None) -> Tensor:
    """`tensor[key]` as TF's _slice_helper builds it: one StridedSlice with masks. With
    `var` (the variable whose value `tensor` is), the result's `assign(value)` writes value
    into that slice of the variable (TF's sliced assignment, `<scope>_assign`)."""
    is_bool_mask = (
        isinstance(key, (bool, np.bool_))
        or (isinstance(key, Tensor) and key.dtype.base_dtype is dtypes.bool_)
        or (isinstance(key, np.ndarray) and key.dtype == np.bool_)
    )
    if is_bool_mask:
        return boolean_mask(tensor, key)
    spec = key if isinstance(key, (list, tuple)) else [key]
    begin: list[Any] = []
    end: list[Any] = []
    strides: list[Any] = []
    masks = {"begin": 0, "end": 0, "ellipsis": 0, "new_axis": 0, "shrink": 0}
    for index, s in enumerate(spec):
        bit = 1 << index
        if isinstance(s, builtins.slice):
            if s.start is not None:
                _check_index(s.start)
                begin.append(_index_value(s.start))
            else:
                begin.append(0)
                masks["begin"] |= bit
            if s.stop is not None:
                _check_index(s.stop)
                end.append(_index_value(s.stop))
            else:
                end.append(0)
                masks["end"] |= bit
            if s.step is not None:
                _check_index(s.step)
                strides.append(_index_value(s.step))
            else:
                strides.append(1)
        elif s is Ellipsis:
            begin.append(0)
            end.append(0)
            strides.append(1)
            masks["ellipsis"] |= bit
        elif s is newaxis:
            begin.append(0)
            end.append(0)
            strides.append(1)
            masks["new_axis"] |= bit
        else:
            _check_index(s)
            s = _index_value(s)
            begin.append(s)
            end.append(s + 1)
            strides.append(1)
            masks["shrink"] |= bit
    with name_scope(None, "strided_slice", [tensor, *begin, *end, *strides]) as scope:
        if begin:
            index_dtype = _slice_index_dtype([*begin, *end, *strides])
            packed = [_pack_indices(v) for v in (begin, end, strides)]
            if index_dtype is dtypes.int64:  # all cast to int64 once packed, as TF's
                from tfcluster.ops import math_ops

                packed = [math_ops.cast(p, dtypes.int64) for p in packed]
        else:
            empty = constant_op.constant([], dtype=dtypes.int32)
            packed = [empty, empty, empty]
        mask_args = {
            "begin_mask": masks["begin"],
            "end_mask": masks["end"],
            "ellipsis_mask": masks["ellipsis"],
            "new_axis_mask": masks["new_axis"],
            "shrink_axis_mask": masks["shrink"],
        }
        out = strided_slice(tensor, packed[0], packed[1], packed[2], name=scope, **mask_args)

    def assign(value: Any, name: str | None = None) -> Any:
        if var is None:
            raise ValueError("Sliced assignment is only supported for variables")
        return var._strided_slice_assign(
            *packed, value, name if name is not None else scope + "_assign", **mask_args
        )

    out.assign = assign  # type: ignore[attr-defined]
    return out


def _slice_index_dtype(values: Sequence[Any]) -> dtypes.DType:
    for v in values:
        if _is_tensor_like(v) and v.dtype.base_dtype is dtypes.int64:
            return dtypes.int64
    return dtypes.int32


def _pack_indices(values: list[Any]) -> Tensor:
    """One of begin/end/strides packed at its own dtype (int64 where it holds an int64
    tensor; strided_slice_from_key casts the others then, as TF's _slice_helper)."""
    own = _slice_index_dtype(values)
    if own is dtypes.int64:
        from tfcluster.ops import math_ops

        values = [
            math_ops.cast(v, dtypes.int64)
            if _is_tensor_like(v) and v.dtype.base_dtype != own
            else v
            for v in values
        ]
    if not _contains_tensor(values):
        packed = constant_op.constant(values, dtype=own, name="stack")
    else:
        packed = stack(values)
    return packed


# ---- gathers and scatters ----------------------------------------------------------------
def _gather_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    """params.shape[:axis] + indices.shape[batch_dims:] + params.shape[axis + 1:]."""
    params, indices, axis_t = inputs
    dtype = params.dtype.base_dtype
    axis_v = _scalar_value(axis_t)
    batch_dims = int(attrs.get("batch_dims", 0))
    if params.shape.ndims == 0:
        raise ValueError("Shape must be at least rank 1 but is rank 0")
    if axis_v is None or params.shape.ndims is None or indices.shape.ndims is None:
        return [(dtype, TensorShape(None))]
    p = params.shape.as_list()
    i = indices.shape.as_list()
    if not -len(p) <= axis_v < len(p):
        need = axis_v + 1 if axis_v >= 0 else -axis_v
        raise ValueError(f"Shape must be at least rank {need} but is rank {len(p)}")
    axis = axis_v + len(p) if axis_v < 0 else axis_v
    if batch_dims < 0:
        batch_dims += len(i)
    if batch_dims:
        if not 0 < batch_dims < len(i):
            raise ValueError(
                f"batch_dims ({batch_dims}) must be less than rank(indices) ({len(i)})"
            )
        if batch_dims > axis:
            raise ValueError(
                f"batch_dims ({batch_dims}) must be less than or equal to axis ({axis})"
            )
        if not TensorShape(p[:batch_dims]).is_compatible_with(TensorShape(i[:batch_dims])):
            raise ValueError(
                f"params.shape[:{batch_dims}] {p[:batch_dims]} and indices.shape[:{batch_dims}] "
                f"{i[:batch_dims]} must be equal"
            )
    return [(dtype, TensorShape(p[:axis] + i[batch_dims:] + p[axis + 1 :]))]


def _gather_nd_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    params, indices = inputs
    dtype = params.dtype.base_dtype
    if indices.shape.ndims is None or params.shape.ndims is None:
        return [(dtype, TensorShape(None))]
    if indices.shape.ndims == 0:
        raise ValueError("Shape must be at least rank 1 but is rank 0")
    idx = indices.shape.as_list()
    depth = idx[-1]
    if depth is None:
        return [(dtype, TensorShape(None))]
    if depth > params.shape.ndims:
        raise ValueError(
            f"indices.shape[-1] must be <= params.rank, but saw indices shape: "
            f"{_shape_str(indices.shape)} and params shape: {_shape_str(params.shape)}"
        )
    return [(dtype, TensorShape(idx[:-1] + params.shape.as_list()[depth:]))]


def _scatter_nd_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    indices, updates, shape_t = inputs
    out = _as_shape_or_unknown(_partial_values(shape_t))
    if (
        out.ndims is not None
        and indices.shape.ndims is not None
        and updates.shape.ndims is not None
    ):
        depth = indices.shape.as_list()[-1] if indices.shape.ndims else None
        if depth is not None:
            want = TensorShape(indices.shape.as_list()[:-1] + out.as_list()[depth:])
            if not want.is_compatible_with(updates.shape):
                raise ValueError(
                    f"updates has shape {_shape_str(updates.shape)}, but indices and shape "
                    f"require {_shape_str(want)}"
                )
    return [(updates.dtype.base_dtype, out)]


op_def_registry.register("GatherV2", _gather_infer)
op_def_registry.register("GatherNd", _gather_nd_infer)
op_def_registry.register("ScatterNd", _scatter_nd_infer)


def _indices_tensor(indices: Any) -> Tensor:
    i = convert_to_tensor(indices, name="indices")
    if i.dtype.base_dtype not in _INDEX_DTYPES:
        raise TypeError(
            f"Value passed to parameter 'indices' has DataType {i.dtype.base_dtype.name} not in "
            "list of allowed values: int32, int64"
        )
    return i


def gather(
    params: Any,
    indices: Any,
    validate_indices: Any = None,
    name: str | None = None,
    axis: Any = None,
    batch_dims: int = 0,
) -> Tensor:
    """Slices of params along `axis` (default: the first after the batch_dims leading
    dimensions that params and indices share) at `indices`."""
    if not isinstance(batch_dims, int | np.integer):
        raise TypeError(f"batch_dims must be an int; got {batch_dims!r}")
    if axis is None:
        axis = batch_dims
    if getattr(params, "_is_resource_variable", False) and _static_zero(axis):
        # TF reads the rows of a resource variable with ResourceGather (sparse_read), whose
        # gradient is an IndexedSlices of those rows.
        return params.sparse_read(indices, name=name)  # type: ignore[no-any-return]
    with name_scope(name, "GatherV2", [params, indices, axis]) as scope:
        p = convert_to_tensor(params, name="params")
        i = _indices_tensor(indices)
        a = _int_tensor(axis, "axis")
        attrs = {
            "Tparams": p.dtype.base_dtype,
            "Tindices": i.dtype.base_dtype,
            "Taxis": a.dtype.base_dtype,
            "batch_dims": int(batch_dims),
        }
        return _output("GatherV2", [p, i, a], attrs, scope)


def _static_zero(axis: Any) -> bool:
    value = tensor_util.constant_value(axis) if isinstance(axis, Tensor) else axis
    return value is not None and int(np.asarray(value)) == 0


def gather_nd(params: Any, indices: Any, name: str | None = None, batch_dims: int = 0) -> Tensor:
    if batch_dims != 0:
        return _batch_gather_nd(params, indices, batch_dims, name)
    with name_scope(name, "GatherNd", [params, indices]) as scope:
        p = convert_to_tensor(params, name="params")
        i = _indices_tensor(indices)
        attrs = {"Tparams": p.dtype.base_dtype, "Tindices": i.dtype.base_dtype}
        return _output("GatherNd", [p, i], attrs, scope)


def _batch_gather_nd(params: Any, indices: Any, batch_dims: int, name: str | None) -> Tensor:
    """gather_nd within each of the leading batch_dims entries: the batch dims are flattened
    into one, and each index is prefixed with its batch position."""
    from tfcluster.ops import math_ops

    if not isinstance(batch_dims, int) or batch_dims < 0:
        raise ValueError(f"batch_dims must be a non-negative int, got {batch_dims!r}")
    with name_scope(name, "BatchGatherND", [params, indices]):
        p = convert_to_tensor(params, name="params")
        i = _indices_tensor(indices)
        i_rank = i.shape.ndims
        if i_rank is None or p.shape.ndims is None:
            raise ValueError("gather_nd with batch_dims needs params and indices of known rank")
        if batch_dims >= i_rank or batch_dims >= p.shape.ndims:
            raise ValueError(
                f"batch_dims ({batch_dims}) must be less than the ranks of params "
                f"({p.shape.ndims}) and indices ({i_rank})"
            )
        p_shape = shape(p, out_type=i.dtype.base_dtype)
        i_shape = shape(i, out_type=i.dtype.base_dtype)
        batch_shape = p_shape[:batch_dims]
        batch_size = math_ops.reduce_prod(batch_shape, keepdims=True)
        flat_params = reshape(p, concat([batch_size, p_shape[batch_dims:]], 0))
        flat_indices = reshape(i, concat([batch_size, i_shape[batch_dims:]], 0))
        # The batch position of every index, broadcast over the index dims.
        positions = math_ops.range_cast_to(0, batch_size[0], 1, dtype=i.dtype.base_dtype)
        positions = reshape(positions, [-1] + [1] * (i_rank - batch_dims))
        positions = math_ops.add(positions, zeros_like(flat_indices[..., :1]))
        gathered = gather_nd(flat_params, concat([positions, flat_indices], -1))
        out_shape = concat([batch_shape, shape(gathered, out_type=i.dtype.base_dtype)[1:]], 0)
        return reshape(gathered, out_shape)


def scatter_nd(indices: Any, updates: Any, shape: Any, name: str | None = None) -> Tensor:
    with name_scope(name, "ScatterNd", [indices, updates, shape]) as scope:
        i = _indices_tensor(indices)
        u = convert_to_tensor(updates, name="updates")
        s = _int_tensor(shape, "shape")
        if s.dtype.base_dtype != i.dtype.base_dtype:
            from tfcluster.ops import math_ops

            s = math_ops.cast(s, i.dtype.base_dtype)
        attrs = {"T": u.dtype.base_dtype, "Tindices": i.dtype.base_dtype}
        return _output("ScatterNd", [i, u, s], attrs, scope)


# ---- tile, expand_dims, squeeze, reverse -------------------------------------------------
def _tile_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    x, mult_t = inputs
    dtype = x.dtype.base_dtype
    mult = _partial_values(mult_t)
    rank = x.shape.ndims
    if mult is None:
        return [(dtype, TensorShape(None if rank is None else [None] * rank))]
    if rank is not None and len(mult) != rank:
        raise ValueError(f"Shape must be rank {len(mult)} but is rank {rank}")
    if any(m is not None and m < 0 for m in mult):
        raise ValueError(f"Expected multiples to be non-negative, got {mult}")
    dims = x.shape.as_list() if rank is not None else [None] * len(mult)
    return [
        (
            dtype,
            TensorShape([None if d is None or m is None else d * m for d, m in zip(dims, mult)]),
        )
    ]


def _expand_dims_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    x, dim_t = inputs
    dtype = x.dtype.base_dtype
    dim_v = tensor_util.constant_value(dim_t)
    if x.shape.ndims is None:
        return [(dtype, TensorShape(None))]
    rank = x.shape.ndims
    if dim_v is None:
        return [(dtype, TensorShape([None] * (rank + 1)))]
    if np.size(dim_v) != 1:
        raise ValueError(f"'dim' input must be a tensor with a single value, got {dim_v}")
    dim = int(np.reshape(dim_v, -1)[0])
    if not -rank - 1 <= dim <= rank:
        raise ValueError(f"Tried to expand dim index {dim} for tensor with {rank} dimensions.")
    dims = x.shape.as_list()
    dims.insert(dim + rank + 1 if dim < 0 else dim, 1)
    return [(dtype, TensorShape(dims))]


def _squeeze_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    shape = inputs[0].shape
    dtype = inputs[0].dtype.base_dtype
    axes = [int(a) for a in attrs.get("squeeze_dims", [])]
    if shape.ndims is None:
        return [(dtype, TensorShape(None))]
    dims = shape.as_list()
    rank = len(dims)
    norm = set()
    for a in axes:
        if not -rank <= a < rank:
            raise ValueError(f"Tried to squeeze dim index {a} for tensor with {rank} dimensions.")
        a = a + rank if a < 0 else a
        if dims[a] is not None and dims[a] != 1:
            raise ValueError(f"Can not squeeze dim[{a}], expected a dimension of 1, got {dims[a]}")
        norm.add(a)
    if norm:
        return [(dtype, TensorShape([d for i, d in enumerate(dims) if i not in norm]))]
    if any(d is None for d in dims):
        return [(dtype, TensorShape(None))]
    return [(dtype, TensorShape([d for d in dims if d != 1]))]


def _reverse_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    x, axis_t = inputs
    axes = _partial_values(axis_t)
    rank = x.shape.ndims
    if axes is not None and rank is not None:
        seen = set()
        for a in axes:
            if a is None:
                continue
            if not -rank <= a < rank:
                raise ValueError(f"'axis'[0] = {a} is out of valid range [0, {rank - 1}]")
            a = a + rank if a < 0 else a
            if a in seen:
                raise ValueError(f"axis {a} specified more than once.")
            seen.add(a)
    return [(x.dtype.base_dtype, x.shape)]


op_def_registry.register("Tile", _tile_infer)
op_def_registry.register("ExpandDims", _expand_dims_infer)
op_def_registry.register("Squeeze", _squeeze_infer)
op_def_registry.register("ReverseV2", _reverse_infer)


def tile(input: Any, multiples: Any, name: str | None = None) -> Tensor:
    with name_scope(name, "Tile", [input, multiples]) as scope:
        x = convert_to_tensor(input, name="input")
        m = _int_tensor(multiples, "multiples")
        attrs = {"T": x.dtype.base_dtype, "Tmultiples": m.dtype.base_dtype}
        return _output("Tile", [x, m], attrs, scope)


def expand_dims(input: Any, axis: Any = None, name: str | None = None, dim: Any = None) -> Tensor:
    if axis is not None and dim is not None:
        raise ValueError("Cannot specify both 'axis' and 'dim'")
    axis = dim if axis is None else axis
    if axis is None:
        raise ValueError("Must specify an axis argument to tf.expand_dims()")
    with name_scope(name, "ExpandDims", [input, axis]) as scope:
        x = convert_to_tensor(input, name="input")
        d = _int_tensor(axis, "dim")
        attrs = {"T": x.dtype.base_dtype, "Tdim": d.dtype.base_dtype}
        return _output("ExpandDims", [x, d], attrs, scope)


def squeeze(
    input: Any, axis: Any = None, name: str | None = None, squeeze_dims: Any = None
) -> Tensor:
    if axis is not None and squeeze_dims is not None:
        raise ValueError("Cannot specify both 'axis' and 'squeeze_dims'")
    axis = squeeze_dims if axis is None else axis
    if np.isscalar(axis):
        axis = [axis]
    with name_scope(name, "Squeeze", [input]) as scope:
        x = convert_to_tensor(input, name="input")
        attrs = {"T": x.dtype.base_dtype, "squeeze_dims": [int(a) for a in (axis or [])]}
        return _output("Squeeze", [x], attrs, scope)


def reverse(tensor: Any, axis: Any, name: str | None = None) -> Tensor:
    with name_scope(name, "ReverseV2", [tensor, axis]) as scope:
        x = convert_to_tensor(tensor, name="tensor")
        a = _int_tensor(axis, "axis")
        attrs = {"T": x.dtype.base_dtype, "Tidx": a.dtype.base_dtype}
        return _output("ReverseV2", [x, a], attrs, scope)


reverse_v2 = reverse


# ---- pad ---------------------------------------------------------------------------------
def _pad_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    x, pads_t = inputs[0], inputs[1]
    dtype = x.dtype.base_dtype
    if len(inputs) == 3 and inputs[2].shape.ndims not in (None, 0):
        raise ValueError(f"Shape must be rank 0 but is rank {inputs[2].shape.ndims}")
    rank = x.shape.ndims
    pshape = pads_t.shape
    if pshape.ndims is not None:
        if pshape.ndims != 2 or pshape.as_list()[1] not in (None, 2):
            raise ValueError(f"paddings must be a matrix with 2 columns, got {_shape_str(pshape)}")
        n = pshape.as_list()[0]
        if rank is not None and n is not None and n != rank:
            raise ValueError(
                f"The first dimension of paddings must be the rank of inputs {n} != {rank}"
            )
        rank = rank if rank is not None else n
    pads = tensor_util.constant_value(pads_t)
    if rank is None:
        return [(dtype, TensorShape(None))]
    dims = x.shape.as_list() if x.shape.ndims is not None else [None] * rank
    if pads is None:
        return [(dtype, TensorShape([None] * rank))]
    pads = np.asarray(pads).reshape(rank, 2)
    if np.any(pads < 0):
        raise ValueError(f"Paddings must be non-negative: {pads.tolist()}")
    sign = -1 if attrs.get("_grad") else 1
    out = [None if d is None else d + sign * int(a + b) for d, (a, b) in zip(dims, pads)]
    return [(dtype, TensorShape(out))]


def _mirror_pad_grad_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    return _pad_infer(inputs, {**attrs, "_grad": True})


op_def_registry.register("Pad", _pad_infer)
op_def_registry.register("PadV2", _pad_infer)
op_def_registry.register("MirrorPad", _pad_infer)
op_def_registry.register("MirrorPadGrad", _mirror_pad_grad_infer)


def pad(
    tensor: Any,
    paddings: Any,
    mode: str = "CONSTANT",
    name: str | None = None,
    constant_values: Any = 0,
) -> Tensor:
    mode = mode.upper()
    if mode not in ("CONSTANT", "REFLECT", "SYMMETRIC"):
        raise ValueError(f"Unknown padding mode: {mode}")
    plain = (
        mode == "CONSTANT"
        and not _is_tensor_like(constant_values)
        and np.all(np.asarray(constant_values) == 0)
    )
    op_type = "Pad" if plain else "PadV2" if mode == "CONSTANT" else "MirrorPad"
    with name_scope(name, op_type, [tensor, paddings, constant_values]) as scope:
        x = convert_to_tensor(tensor, name="input")
        p = _int_tensor(paddings, "paddings")
        attrs: dict[str, Any] = {"T": x.dtype.base_dtype, "Tpaddings": p.dtype.base_dtype}
        inputs = [x, p]
        if op_type == "PadV2":
            inputs.append(
                convert_to_tensor(constant_values, dtype=x.dtype.base_dtype, name="constant_values")
            )
        elif op_type == "MirrorPad":
            attrs["mode"] = mode
        return _output(op_type, inputs, attrs, scope)


def mirror_pad_grad(input: Any, paddings: Any, mode: str, name: str | None = None) -> Tensor:
    with name_scope(name, "MirrorPadGrad", [input, paddings]) as scope:
        x = convert_to_tensor(input, name="input")
        p = _int_tensor(paddings, "paddings")
        attrs = {"T": x.dtype.base_dtype, "Tpaddings": p.dtype.base_dtype, "mode": mode}
        return _output("MirrorPadGrad", [x, p], attrs, scope)


# ---- where, boolean_mask, one_hot, unique, sequence_mask ---------------------------------
def _where_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    return [(dtypes.int64, TensorShape([None, inputs[0].shape.ndims]))]


def _one_hot_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    indices, depth_t, on, off = inputs
    for arg, t in (("on_value", on), ("off_value", off), ("depth", depth_t)):
        if t.shape.ndims not in (None, 0):
            raise ValueError(f"Shape must be rank 0 but is rank {t.shape.ndims} ({arg})")
    dtype = on.dtype.base_dtype
    axis = int(attrs.get("axis", -1))
    if indices.shape.ndims is None:
        return [(dtype, TensorShape(None))]
    rank = indices.shape.ndims
    if axis != -1 and not 0 <= axis <= rank:
        raise ValueError(
            f"Expected axis to be -1 or between [0, {rank + 1}).  But received: {axis}"
        )
    depth = _scalar_value(depth_t)
    if depth is not None and depth < 0:
        raise ValueError(f"depth must be non-negative, got: {depth}")
    dims = indices.shape.as_list()
    dims.insert(rank if axis == -1 else axis, depth)
    return [(dtype, TensorShape(dims))]


def _unique_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    x = inputs[0]
    if x.shape.ndims not in (None, 1):
        raise ValueError(f"Shape must be rank 1 but is rank {x.shape.ndims}")
    return [
        (x.dtype.base_dtype, TensorShape([None])),
        (attrs.get("out_idx", dtypes.int32), x.shape.with_rank(1)),
    ]


op_def_registry.register("Where", _where_infer)
op_def_registry.register("OneHot", _one_hot_infer)
op_def_registry.register("Unique", _unique_infer)


def where(condition: Any, x: Any = None, y: Any = None, name: str | None = None) -> Tensor:
    """One argument: the coordinates of true entries (int64, [num_true, rank]); three: select."""
    if x is None and y is None:
        with name_scope(name, "Where", [condition]) as scope:
            c = convert_to_tensor(condition, preferred_dtype=dtypes.bool_, name="condition")
            return _output("Where", [c], {"T": c.dtype.base_dtype}, scope)
    if x is None or y is None:
        raise ValueError("x and y must both be non-None or both be None.")
    from tfcluster.ops import math_ops

    return math_ops.select(condition, x, y, name=name)


def where_v2(condition: Any, x: Any = None, y: Any = None, name: str | None = None) -> Tensor:
    """One argument: the coordinates of true entries; three: x where condition else y, the
    three broadcast together (SelectV2)."""
    if x is None and y is None:
        return where(condition, name=name)
    if x is None or y is None:
        raise ValueError("x and y must both be non-None or both be None.")
    from tfcluster.ops import math_ops

    return math_ops.select_v2(condition, x, y, name=name)


def boolean_mask(
    tensor: Any, mask: Any, name: str | None = "boolean_mask", axis: int | None = None
) -> Tensor:
    """The entries of `tensor` where the (K-D) `mask` is true, mask dims starting at `axis`."""
    from tfcluster.ops import math_ops

    with name_scope(name, "boolean_mask", values=[tensor, mask]):
        t = convert_to_tensor(tensor, name="tensor")
        m = convert_to_tensor(mask, name="mask", dtype=dtypes.bool_)
        ndims_mask = m.shape.ndims
        if ndims_mask == 0:
            raise ValueError("mask cannot be scalar.")
        if ndims_mask is None:
            raise ValueError(
                "Number of mask dimensions must be specified, even if some dimensions are None.  "
                "E.g. shape=[None] is ok, but shape=None is not."
            )
        axis = 0 if axis is None else int(axis)
        t_shape = t.shape
        t_shape[axis : axis + ndims_mask].assert_is_compatible_with(m.shape)
        # TF's graph: the masked dims folded into one (even a single one), then a 1-D mask.
        leading_size = math_ops.reduce_prod(
            strided_slice_from_key(shape(t), builtins.slice(axis, axis + ndims_mask)), [0]
        )
        t = reshape(
            t,
            concat(
                [
                    strided_slice_from_key(shape(t), builtins.slice(None, axis)),
                    [leading_size],
                    strided_slice_from_key(shape(t), builtins.slice(axis + ndims_mask, None)),
                ],
                0,
            ),
        )
        if t_shape.ndims is not None:
            first = t_shape[axis : axis + ndims_mask].num_elements()
            t.set_shape(
                t_shape[:axis].concatenate([first]).concatenate(t_shape[axis + ndims_mask :])
            )
        m = reshape(m, [-1])
        # TF's boolean_mask calls the deprecated v1 where (announced at its first call).
        internal_deprecations.called_internally(internal_deprecations.WHERE)
        indices = squeeze(where(m), axis=[1])
        return gather(t, indices, axis=axis)


def one_hot(
    indices: Any,
    depth: Any,
    on_value: Any = None,
    off_value: Any = None,
    axis: int | None = None,
    dtype: Any = None,
    name: str | None = None,
) -> Tensor:
    with name_scope(name, "one_hot", [indices, depth, on_value, off_value]) as scope:
        # TF 1.15 converts a given on/off value once for its dtype and again (named) as the
        # op's input: a Python value makes two Consts, so later op seeds count both.
        on_dtype = None if on_value is None else convert_to_tensor(on_value).dtype.base_dtype
        off_dtype = None if off_value is None else convert_to_tensor(off_value).dtype.base_dtype
        want = dtypes.as_dtype(dtype).base_dtype if dtype is not None else None
        if want is not None:
            for arg, given in (("on_value", on_dtype), ("off_value", off_dtype)):
                if given is not None and given != want:
                    raise TypeError(f"dtype {given} of {arg} does not match dtype parameter {want}")
        else:
            want = on_dtype or off_dtype or dtypes.float32
        if on_value is None:
            on_value, on_dtype = convert_to_tensor(1, dtype=want, name="on_value"), want
        if off_value is None:
            off_value, off_dtype = convert_to_tensor(0, dtype=want, name="off_value"), want
        if on_dtype != off_dtype:
            raise TypeError(
                f"dtype {on_dtype} of on_value does not match dtype {off_dtype} of off_value"
            )
        idx = convert_to_tensor(indices, name="indices")
        if idx.dtype.base_dtype not in (dtypes.uint8, dtypes.int32, dtypes.int64):
            raise TypeError(f"one_hot indices must be uint8, int32 or int64, got {idx.dtype.name}")
        d = convert_to_tensor(depth, dtype=dtypes.int32, name="depth")
        on_t = convert_to_tensor(on_value, dtype=on_dtype, name="on_value")
        off_t = convert_to_tensor(off_value, dtype=off_dtype, name="off_value")
        attrs = {"axis": -1 if axis is None else int(axis), "T": want, "TI": idx.dtype.base_dtype}
        return _output("OneHot", [idx, d, on_t, off_t], attrs, scope)


class Unique(NamedTuple):
    """(y, idx): TF's namedtuple (named as the op), which Session.run gives back as one too."""

    y: Tensor
    idx: Tensor


def unique(x: Any, out_idx: Any = dtypes.int32, name: str | None = None) -> Unique:
    with name_scope(name, "Unique", [x]) as scope:
        t = convert_to_tensor(x, name="x")
        attrs = {"T": t.dtype.base_dtype, "out_idx": _out_type(out_idx)}
        op = _make("Unique", [t], attrs, scope)
        return Unique(op.outputs[0], op.outputs[1])


def sequence_mask(
    lengths: Any, maxlen: Any = None, dtype: Any = dtypes.bool_, name: str | None = None
) -> Tensor:
    from tfcluster.ops import math_ops

    with name_scope(name, "SequenceMask", [lengths, maxlen]):
        lens = convert_to_tensor(lengths)
        if maxlen is None:
            top = math_ops.reduce_max(lens)
            maxlen_t = math_ops.maximum(constant_op.constant(0, dtype=top.dtype.base_dtype), top)
        else:
            maxlen_t = convert_to_tensor(maxlen)
        if maxlen_t.shape.ndims not in (None, 0):
            raise ValueError("maxlen must be scalar for sequence_mask")
        # Raw Range and Cast ops, always made, as TF 1.15's gen_math_ops calls (node names).
        dt = maxlen_t.dtype.base_dtype
        limits = [constant_op.constant(0, dtype=dt), maxlen_t, constant_op.constant(1, dtype=dt)]
        row = make_op("Range", limits, {"Tidx": dt}, name="Range").outputs[0]
        expanded = expand_dims(lens, -1)
        cast_attrs = {"SrcT": expanded.dtype.base_dtype, "DstT": dt, "Truncate": False}
        matrix = make_op("Cast", [expanded], cast_attrs, name="Cast").outputs[0]
        result = math_ops.less(row, matrix)
        want = dtypes.as_dtype(dtype).base_dtype
        return result if want is dtypes.bool_ else math_ops.cast(result, want)


__all__ = [
    "boolean_mask",
    "concat",
    "expand_dims",
    "fill",
    "gather",
    "gather_nd",
    "identity",
    "invert_permutation",
    "newaxis",
    "one_hot",
    "ones",
    "ones_like",
    "pad",
    "placeholder",
    "placeholder_with_default",
    "rank",
    "reshape",
    "reverse",
    "reverse_v2",
    "scatter_nd",
    "sequence_mask",
    "shape",
    "shape_n",
    "size",
    "slice",
    "split",
    "squeeze",
    "stack",
    "stop_gradient",
    "strided_slice",
    "tile",
    "transpose",
    "unique",
    "unstack",
    "where",
    "where_v2",
    "zeros",
    "zeros_like",
]

# Ragged operands go to the handlers tf.ragged registers (framework/dispatch.DISPATCHED).
dispatch.make_dispatchable(globals())
