"""Ops made from TF 1.15's signatures, as TF's op_def_library does for tf.raw_ops: keyword
arguments named as the OpDef's input args and attrs, attr defaults filled in, type and list
length attrs inferred from the inputs, and TF's errors (TypeError / ValueError) for misuse.

The node goes through the op table like any other op (its outputs come from tfcluster's
inference function), so gradients, placement and kernels are those of the op type.
"""

from __future__ import annotations

import collections
import inspect
import numbers
from collections.abc import Callable, Sequence
from typing import Any, NoReturn

import numpy as np

from tfcluster.framework import dtypes, errors, op_signatures, tensor_util
from tfcluster.framework.graph import (
    Operation,
    Tensor,
    convert_to_tensor,
    get_graph_from_inputs,
)
from tfcluster.framework.op_signatures import ArgSig, AttrSig, OpSignature
from tfcluster.framework.tensor_shape import TensorShape
from tfcluster.ops import function_call_ops
from tfcluster.ops.op_util import make_op
from tfcluster.protos import tensor_pb2

# ---- the Python face of one op ------------------------------------------------------------


def raw_op_function(op_type: str) -> Callable[..., Any]:
    """`tf.raw_ops.<op_type>`: keyword arguments only, as TF's raw op functions."""
    sig = op_signatures.lookup(op_type)
    if sig is None:
        raise KeyError(f"TensorFlow 1.15 has no op {op_type}")
    keys = [*sig.params, "name"]

    def raw_op(*args: Any, **kwargs: Any) -> Any:
        if args:
            raise TypeError(
                f"{op_type} only takes keyword args (possible keys: {keys}). "
                "Please pass these args as kwargs instead."
            )
        return apply_op(sig, kwargs)

    raw_op.__name__ = raw_op.__qualname__ = op_type
    raw_op.__module__ = "tfcluster.raw_ops"
    raw_op.__doc__ = _doc(sig)
    raw_op.__signature__ = _python_signature(sig)  # type: ignore[attr-defined]
    return raw_op


def _python_signature(sig: OpSignature) -> inspect.Signature:
    params = []
    for p in sig.params:
        default = _param_default(sig, p)
        params.append(inspect.Parameter(p, inspect.Parameter.KEYWORD_ONLY, default=default))
    params.append(inspect.Parameter("name", inspect.Parameter.KEYWORD_ONLY, default=None))
    return inspect.Signature(params)


def _param_default(sig: OpSignature, param: str) -> Any:
    target = _target(sig, param)
    for a in sig.attrs:
        if a.name == target and a.has_default:
            return _attr_default(a)
    return inspect.Parameter.empty


def _doc(sig: OpSignature) -> str:
    ins = ", ".join(a.name for a in sig.inputs) or "none"
    outs = ", ".join(a.name for a in sig.outputs) or "none (returns the Operation)"
    return (
        f"tf.raw_ops.{sig.name}: adds one {sig.name} node, as TensorFlow 1.15's raw op.\n\n"
        f"Inputs: {ins}. Outputs: {outs}. Keyword arguments only."
    )


def _target(sig: OpSignature, param: str) -> str:
    return sig.target(param)


# ---- building the node ---------------------------------------------------------------------


def apply_op(sig: OpSignature, kwargs: dict[str, Any]) -> Any:
    """Adds the op to the graph of its inputs and returns TF's output structure: the
    Operation (no outputs), one Tensor or list, or a namedtuple named after the op."""
    kwargs = dict(kwargs)
    name = kwargs.pop("name", None)
    _check_arguments(sig, kwargs)
    _check_not_removed(sig)
    values = {_target(sig, p): v for p, v in kwargs.items()}
    # A func attr's concrete function has a graph of its own: not the one the op joins.
    funcs = {a.name for a in sig.attrs if a.type in ("func", "list(func)")}
    graph = get_graph_from_inputs(list(_flatten([v for k, v in values.items() if k not in funcs])))
    with graph.as_default(), graph.name_scope(name or sig.name) as scope:
        inputs, attrs = _convert_inputs(sig, values)
        for attr in sig.attrs:
            if attr.name not in attrs:
                attrs[attr.name] = _make_attr(sig, attr, values.get(attr.name))
        op = make_op(sig.name, inputs, attrs, name=scope or sig.name)
    return _output_structure(sig, op, attrs)


def _check_not_removed(sig: OpSignature) -> None:
    """TF 1.15 refuses ops its GraphDef version no longer has (MatrixExponential, ...)."""
    producer = op_signatures.tf_graph_def_version()
    if sig.deprecation_version and producer >= sig.deprecation_version:
        raise NotImplementedError(
            f"Op {sig.name} is not available in GraphDef version {producer}. It has been "
            f"removed in version {sig.deprecation_version}. {sig.deprecation_explanation}."
        )


def _flatten(values: Any) -> Any:
    for v in values:
        if isinstance(v, (list, tuple)):
            yield from v
        else:
            yield v


def _check_arguments(sig: OpSignature, kwargs: dict[str, Any]) -> None:
    """Python's own messages for calls that do not fit the signature."""
    for key in kwargs:
        if key not in sig.params:
            raise TypeError(f"{sig.name}() got an unexpected keyword argument '{key}'")
    missing = [
        p
        for p in sig.params
        if p not in kwargs and _param_default(sig, p) is inspect.Parameter.empty
    ]
    if missing:
        quoted = [f"'{p}'" for p in missing]
        if len(quoted) == 1:
            listed = quoted[0]
        elif len(quoted) == 2:
            listed = f"{quoted[0]} and {quoted[1]}"
        else:
            listed = ", ".join(quoted[:-1]) + f", and {quoted[-1]}"
        plural = "argument" if len(missing) == 1 else "arguments"
        raise TypeError(
            f"{sig.name}() missing {len(missing)} required positional {plural}: {listed}"
        )


def _convert_inputs(
    sig: OpSignature, values: dict[str, Any]
) -> tuple[list[Tensor], dict[str, Any]]:
    """Input tensors (Python values become constants named after their arg, inside the op's
    name scope) and the attrs they determine: types, list lengths, type lists."""
    attrs: dict[str, Any] = {}
    inferred_from: dict[str, str] = {}
    inputs: list[Tensor] = []
    for arg in sig.inputs:
        value = values[arg.name]
        if arg.is_list:
            tensors = _convert_list(sig, arg, value, attrs)
        else:
            tensors = [_convert_one(sig, arg, value, attrs, inferred_from)]
        base = [t.dtype.base_dtype for t in tensors]
        if arg.number_attr:
            _infer_number(sig, arg, tensors, attrs, inferred_from)
            if arg.type_attr and arg.type_attr not in attrs:
                if not base:
                    raise TypeError(
                        "Don't know how to infer type variable from empty input list passed "
                        f"to input '{arg.name}' of '{sig.name}' Op."
                    )
                _satisfies(sig.attr(arg.type_attr), base[0], arg.name)
                attrs[arg.type_attr] = base[0]
                inferred_from[arg.type_attr] = arg.name
        elif arg.type_attr:
            if arg.type_attr in attrs:
                if attrs[arg.type_attr] != base[0]:
                    raise TypeError(
                        f"Input '{arg.name}' of '{sig.name}' Op has type {base[0].name} that "
                        f"does not match type {attrs[arg.type_attr].name} of argument "
                        f"'{inferred_from[arg.type_attr]}'."
                    )
            else:
                _satisfies(sig.attr(arg.type_attr), base[0], arg.name)
                attrs[arg.type_attr] = base[0]
                inferred_from[arg.type_attr] = arg.name
        elif arg.type_list_attr:
            attr = sig.attr(arg.type_list_attr)
            if arg.type_list_attr in attrs:
                if attrs[arg.type_list_attr] != base:
                    raise TypeError(
                        f"Input '{arg.name}' of '{sig.name}' Op has type list of "
                        f"{[d.name for d in base]} that does not match type list "
                        f"{[d.name for d in attrs[arg.type_list_attr]]} of argument "
                        f"'{inferred_from[arg.type_list_attr]}'."
                    )
            else:
                for dt in base:
                    _satisfies(attr, dt, arg.name)
                _check_length(sig, attr, len(base))
                attrs[arg.type_list_attr] = base
                inferred_from[arg.type_list_attr] = arg.name
        if arg.is_ref and not all(t.dtype.is_ref_dtype for t in tensors):
            raise TypeError(
                f"'{sig.name}' Op requires that input '{arg.name}' be a mutable tensor "
                "(e.g.: a tf.Variable)"
            )
        inputs.extend(tensors)
    return inputs, attrs


def _default_type(sig: OpSignature, type_attr: str | None) -> dtypes.DType | None:
    if type_attr is None:
        return None
    attr = sig.attr(type_attr)
    return dtypes.as_dtype(attr.default) if attr.has_default else None


def _convert_one(
    sig: OpSignature,
    arg: ArgSig,
    value: Any,
    attrs: dict[str, Any],
    inferred_from: dict[str, str],
) -> Tensor:
    dtype: dtypes.DType | None = None
    preferred = None
    if arg.type is not None:
        dtype = dtypes.as_dtype(arg.type)
    elif arg.type_attr in attrs:
        dtype = attrs[arg.type_attr]
    else:
        preferred = _default_type(sig, arg.type_attr)
    try:
        return convert_to_tensor(
            value, dtype=dtype, name=arg.name, as_ref=arg.is_ref, preferred_dtype=preferred
        )
    except (TypeError, ValueError) as err:
        if dtype is None:
            raise
        observed = _observed_dtype(value, arg.is_ref)
        if observed is None:
            raise TypeError(
                f"Expected {dtype.name} passed to parameter '{arg.name}' of op '{sig.name}', "
                f"got {value!r} of type '{type(value).__name__}' instead. Error: {err}"
            ) from None
        prefix = f"Input '{arg.name}' of '{sig.name}' Op has type {observed} that does not match"
        if arg.type_attr in attrs:
            raise TypeError(
                f"{prefix} type {dtype.name} of argument '{inferred_from[arg.type_attr]}'."
            ) from None
        raise TypeError(f"{prefix} expected type of {dtype.name}.") from None


def _observed_dtype(value: Any, as_ref: bool) -> str | None:
    """The dtype a value converts to on its own, for messages (None: a Python value that only
    failed to become the requested type)."""
    if not (isinstance(value, Tensor) or hasattr(value, "_as_graph_element")):
        return None
    try:
        return convert_to_tensor(value, as_ref=as_ref).dtype.base_dtype.name
    except (TypeError, ValueError):
        return None


def _convert_list(sig: OpSignature, arg: ArgSig, value: Any, attrs: dict[str, Any]) -> list[Tensor]:
    if not isinstance(value, (list, tuple)):
        raise TypeError(
            f"Expected list for '{arg.name}' argument to '{sig.name}' Op, not {value!r}."
        )
    dtype: dtypes.DType | None = None
    preferred = None
    if arg.type is not None:
        dtype = dtypes.as_dtype(arg.type)
    elif arg.number_attr:
        if arg.type_attr in attrs:
            dtype = attrs[arg.type_attr]
        else:
            dtype = next((v.dtype.base_dtype for v in value if isinstance(v, Tensor)), None)
        if dtype is None:
            preferred = _default_type(sig, arg.type_attr)
    try:
        tensors = [
            convert_to_tensor(
                v,
                dtype=dtype,
                name=f"{arg.name}_{i}",
                as_ref=arg.is_ref,
                preferred_dtype=preferred,
            )
            for i, v in enumerate(value)
        ]
        if arg.number_attr and len({t.dtype.base_dtype for t in tensors}) > 1:
            raise TypeError("types differ")
    except (TypeError, ValueError):
        observed = ", ".join(_observed_dtype(v, arg.is_ref) or "<NOT A TENSOR>" for v in value)
        if arg.number_attr:
            raise TypeError(
                f"Tensors in list passed to '{arg.name}' of '{sig.name}' Op have types "
                f"[{observed}] that don't all match."
            ) from None
        raise TypeError(
            f"Tensors in list passed to '{arg.name}' of '{sig.name}' Op have types "
            f"[{observed}] that are invalid."
        ) from None
    return tensors


def _infer_number(
    sig: OpSignature,
    arg: ArgSig,
    tensors: list[Tensor],
    attrs: dict[str, Any],
    inferred_from: dict[str, str],
) -> None:
    key = arg.number_attr
    assert key is not None
    if key in attrs:
        if len(tensors) != attrs[key]:
            raise ValueError(
                f"List argument '{arg.name}' to '{sig.name}' Op with length {len(tensors)} must "
                f"match length {attrs[key]} of argument '{inferred_from[key]}'."
            )
        return
    attrs[key] = len(tensors)
    inferred_from[key] = arg.name
    minimum = sig.attr(key).minimum
    if minimum is not None and len(tensors) < minimum:
        raise ValueError(
            f"List argument '{arg.name}' to '{sig.name}' Op with length {len(tensors)} shorter "
            f"than minimum length {minimum}."
        )


def _satisfies(attr: AttrSig, dtype: dtypes.DType, param: str) -> None:
    if attr.allowed is not None and dtype.name not in attr.allowed:
        raise TypeError(
            f"Value passed to parameter '{param}' has DataType {dtype.name} not in list of "
            f"allowed values: {', '.join(attr.allowed)}"
        )


def _check_length(sig: OpSignature, attr: AttrSig, n: int) -> None:
    if attr.minimum is not None and n < attr.minimum:
        raise ValueError(
            f"Attr '{attr.name}' of '{sig.name}' Op passed list of length {n} less than "
            f"minimum {attr.minimum}."
        )


# ---- attrs ---------------------------------------------------------------------------------


def _attr_default(attr: AttrSig) -> Any:
    """An attr's TF default in the form tfcluster's graphs hold attrs."""
    return _from_plain(attr.type, attr.default)


def _from_plain(kind: str, value: Any) -> Any:
    return op_signatures.attr_value(kind, value)


def _make_attr(sig: OpSignature, attr: AttrSig, value: Any) -> Any:
    """A value given for an attr (None: its default) checked and converted as TF does."""
    if value is None and attr.has_default:
        return _attr_default(attr)
    if attr.type.startswith("list("):
        if not isinstance(value, (list, tuple)):
            raise TypeError(
                f"Expected list for '{attr.name}' argument to '{sig.name}' Op, not {value!r}."
            )
        _check_length(sig, attr, len(value))
        item = attr.type[5:-1]
        out = [_make_scalar(sig, attr, item, v) for v in value]
        return out
    out_value = _make_scalar(sig, attr, attr.type, value)
    if attr.type == "int" and attr.minimum is not None and out_value < attr.minimum:
        raise ValueError(
            f"Attr '{attr.name}' of '{sig.name}' Op passed {out_value} less than minimum "
            f"{attr.minimum}."
        )
    return out_value


def _make_scalar(sig: OpSignature, attr: AttrSig, kind: str, value: Any) -> Any:
    key = attr.name
    if kind == "int":
        if isinstance(value, (str, bytes)):
            _expected("int", key, value)
        try:
            return int(value)
        except (TypeError, ValueError):
            _expected("int", key, value)
    if kind == "float":
        if not isinstance(value, numbers.Real):
            _expected("float", key, value)
        return float(value)
    if kind == "bool":
        if not isinstance(value, bool):
            _expected("bool", key, value)
        return value
    if kind == "string":
        if isinstance(value, bytes):
            text = value.decode("utf-8", "surrogateescape")
        elif isinstance(value, str):
            text = value
        else:
            _expected("string", key, value)
        if attr.allowed is not None and text not in attr.allowed:
            allowed = '", "'.join(attr.allowed)
            raise ValueError(
                f"Attr '{key}' of '{sig.name}' Op passed string '{text}' not in: \"{allowed}\"."
            )
        return text
    if kind == "type":
        if value is None:  # numpy would read None as float64
            _expected("DataType", key, value)
        try:
            dtype = dtypes.as_dtype(value).base_dtype
        except TypeError:
            _expected("DataType", key, value)
        _satisfies(attr, dtype, key)
        return dtype
    if kind == "shape":
        try:
            return value if isinstance(value, TensorShape) else TensorShape(value)
        except TypeError as e:
            raise TypeError(f"Error converting {key} to a TensorShape: {e}.") from None
        except ValueError as e:
            raise ValueError(f"Error converting {key} to a TensorShape: {e}.") from None
    if kind == "tensor":
        return _make_tensor(key, value)
    if kind == "func":
        return function_call_ops.func_attr_value(value, key)
    raise TypeError(f"Unrecognized Attr type {kind}")


def _make_tensor(key: str, value: Any) -> np.ndarray:
    """TF takes only a TensorProto for a tensor attr (tf.make_tensor_proto makes one)."""
    if isinstance(value, tensor_pb2.TensorProto):
        return tensor_util.make_ndarray(value)
    descriptor = getattr(value, "DESCRIPTOR", None)
    if descriptor is not None and descriptor.name == "TensorProto":
        # A TensorProto of another package (TensorFlow's own): the same message on the wire.
        return tensor_util.make_ndarray(
            tensor_pb2.TensorProto.FromString(value.SerializeToString())
        )
    raise TypeError(f"Don't know how to convert {value!r} to a TensorProto for argument '{key}'.")


def _expected(what: str, key: str, value: Any) -> NoReturn:
    raise TypeError(f"Expected {what} for argument '{key}' not {value!r}.")


# ---- outputs -------------------------------------------------------------------------------


_EXTRA_OUTPUT_OPS = ("While", "StatelessWhile")


def _output_structure(sig: OpSignature, op: Operation, attrs: dict[str, Any]) -> Any:
    if not sig.outputs:
        return op
    outputs = list(op.outputs)
    groups: list[Any] = []
    at = 0
    for arg in sig.outputs:
        if arg.number_attr:
            n = int(attrs[arg.number_attr])
        elif arg.type_list_attr:
            n = len(attrs[arg.type_list_attr])
        else:
            groups.append(outputs[at] if at < len(outputs) else None)
            at += 1
            continue
        groups.append(outputs[at : at + n])
        at += n
    if at < len(outputs) and sig.name in _EXTRA_OUTPUT_OPS:
        outputs = outputs[:at]  # tfcluster's loop also returns its trip count
    if at != len(outputs):
        raise errors.InternalError(
            None,
            None,
            f"tfcluster's {sig.name} made {len(outputs)} outputs where TF's signature has {at}",
        )
    if len(groups) == 1:
        return groups[0]
    return _namedtuple(sig.name, tuple(a.name for a in sig.outputs))(*groups)


_NAMEDTUPLES: dict[tuple[str, tuple[str, ...]], type] = {}


def _namedtuple(op_type: str, fields: Sequence[str]) -> type:
    key = (op_type, tuple(fields))
    if key not in _NAMEDTUPLES:
        _NAMEDTUPLES[key] = collections.namedtuple(op_type, fields)  # type: ignore[misc]
    return _NAMEDTUPLES[key]
