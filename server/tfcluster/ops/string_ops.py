"""String ops (tf.strings and their top-level names), as TF 1.15 builds them."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from tfcluster.framework import dispatch, dtypes, op_def_registry
from tfcluster.framework.graph import Tensor, convert_to_tensor, get_default_graph, name_scope
from tfcluster.framework.tensor_shape import TensorShape
from tfcluster.ops.op_util import Outputs

_STRING_SCALAR = [(dtypes.string, TensorShape([]))]


def _string_format_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    return list(_STRING_SCALAR)


op_def_registry.register("StringFormat", _string_format_infer)


def string_format(
    template: str,
    inputs: Any,
    placeholder: str = "{}",
    summarize: int = 3,
    name: str | None = None,
) -> Tensor:
    """A scalar string: `template` with each placeholder replaced by one input tensor,
    formatted as tf.print formats it."""
    if isinstance(inputs, Tensor):
        inputs = [inputs]
    inputs = list(inputs)
    if template.count(placeholder) != len(inputs):
        raise ValueError(
            f"{template.count(placeholder)} placeholder(s) in template does not match "
            f"{len(inputs)} tensor(s) provided as input"
        )
    with name_scope(name, "StringFormat", inputs) as scope:
        ts = [convert_to_tensor(x, name="inputs") for x in inputs]
        attrs = {
            "T": [t.dtype.base_dtype for t in ts],
            "template": template,
            "placeholder": placeholder,
            "summarize": int(summarize),
        }
        return get_default_graph().create_op("StringFormat", ts, attrs, name=scope).outputs[0]


# ---- element-wise string ops --------------------------------------------------------------------
def _same_shape_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    return [(dtypes.string, inputs[0].shape)]


def _shape_to(dtype: dtypes.DType) -> Any:
    def infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
        return [(dtype, inputs[0].shape)]

    return infer


def _string_join_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    shape = TensorShape([])
    for t in inputs:
        if t.shape.ndims == 0:
            continue
        if shape.ndims == 0:
            shape = t.shape
            continue
        if shape.ndims is not None and t.shape.ndims is not None and shape.ndims != t.shape.ndims:
            dims = ", ".join(_dims(x.shape) for x in inputs)
            raise ValueError(
                f"Shapes must be equal rank, but are {shape.ndims} and {t.shape.ndims} for "
                f"'StringJoin' (op: 'StringJoin') with input shapes: {dims}."
            )
        shape = shape.merge_with(t.shape)
    return [(dtypes.string, shape)]


def _dims(shape: TensorShape) -> str:
    if shape.ndims is None:
        return "?"
    return "[" + ",".join("?" if d is None else str(d) for d in shape.as_list()) + "]"


def _substr_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    shape = inputs[0].shape
    for t in inputs[1:]:
        if t.shape.ndims and shape.ndims is not None and t.shape.ndims > shape.ndims:
            shape = t.shape
    return [(dtypes.string, shape)]


def _reduce_join_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    from tfcluster.framework import tensor_util

    shape = inputs[0].shape
    axes = tensor_util.constant_value(inputs[1])
    if shape.ndims is None or axes is None:
        return [(dtypes.string, TensorShape(None))]
    rank = shape.ndims
    reduced = {int(a) % rank for a in np.asarray(axes).reshape(-1)} if rank else set()
    dims = shape.as_list()
    if attrs.get("keep_dims"):
        return [
            (dtypes.string, TensorShape([1 if i in reduced else d for i, d in enumerate(dims)]))
        ]
    return [(dtypes.string, TensorShape([d for i, d in enumerate(dims) if i not in reduced]))]


def _unsorted_segment_join_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    from tfcluster.framework import tensor_util

    data, ids, num = inputs
    n = tensor_util.constant_value(num)
    if data.shape.ndims is None or ids.shape.ndims is None:
        return [(dtypes.string, TensorShape(None))]
    rest = data.shape.as_list()[ids.shape.ndims :]
    return [(dtypes.string, TensorShape([None if n is None else int(n), *rest]))]


for _op, _fn in {
    "StringJoin": _string_join_infer,
    "StringStrip": _same_shape_infer,
    "StringUpper": _same_shape_infer,
    "StringLower": _same_shape_infer,
    "StringLength": _shape_to(dtypes.int32),
    "Substr": _substr_infer,
    "RegexReplace": _same_shape_infer,
    "StaticRegexReplace": _same_shape_infer,
    "RegexFullMatch": _shape_to(dtypes.bool_),
    "StaticRegexFullMatch": _shape_to(dtypes.bool_),
    "StringToHashBucket": _shape_to(dtypes.int64),
    "StringToHashBucketFast": _shape_to(dtypes.int64),
    "StringToHashBucketStrong": _shape_to(dtypes.int64),
    "AsString": _same_shape_infer,
    "ReduceJoin": _reduce_join_infer,
    "EncodeBase64": _same_shape_infer,
    "DecodeBase64": _same_shape_infer,
    "UnsortedSegmentJoin": _unsorted_segment_join_infer,
}.items():
    op_def_registry.register(_op, _fn)


def _strings(value: Any, name: str) -> Tensor:
    t = convert_to_tensor(value, dtype=dtypes.string, name=name)
    return t


def _make(op_type: str, inputs: Sequence[Tensor], attrs: dict[str, Any], scope: str) -> Tensor:
    return get_default_graph().create_op(op_type, list(inputs), attrs, name=scope).outputs[0]


def string_join(inputs: Sequence[Any], separator: str = "", name: str | None = None) -> Tensor:
    """Element-wise concatenation of string tensors (scalars broadcast), with a separator."""
    with name_scope(name, "StringJoin", list(inputs)) as scope:
        ts = [_strings(x, f"inputs_{i}") for i, x in enumerate(inputs)]
        return _make("StringJoin", ts, {"N": len(ts), "separator": separator}, scope)


def strip(input: Any, name: str | None = None) -> Tensor:
    """Leading and trailing whitespace removed."""
    with name_scope(name, "StringStrip", [input]) as scope:
        return _make("StringStrip", [_strings(input, "input")], {}, scope)


def upper(input: Any, encoding: str = "", name: str | None = None) -> Tensor:
    """ASCII letters upper-cased."""
    with name_scope(name, "StringUpper", [input]) as scope:
        return _make("StringUpper", [_strings(input, "input")], {"encoding": encoding}, scope)


def lower(input: Any, encoding: str = "", name: str | None = None) -> Tensor:
    """ASCII letters lower-cased."""
    with name_scope(name, "StringLower", [input]) as scope:
        return _make("StringLower", [_strings(input, "input")], {"encoding": encoding}, scope)


def _check_unit(unit: str) -> None:
    if unit not in ("BYTE", "UTF8_CHAR"):
        raise ValueError(
            f"Attr 'unit' of 'StringLength' Op passed string '{unit}' not in: "
            '"BYTE", "UTF8_CHAR".'
        )


def string_length(input: Any, name: str | None = None, unit: str = "BYTE") -> Tensor:
    """The length of each string, in bytes or UTF-8 characters."""
    _check_unit(unit)
    with name_scope(name, "StringLength", [input]) as scope:
        return _make("StringLength", [_strings(input, "input")], {"unit": unit}, scope)


def substr(
    input: Any,
    pos: Any,
    len: Any,
    name: str | None = None,
    unit: str = "BYTE",
) -> Tensor:
    """Substrings: `len` units from `pos` (negative counts from the end)."""
    _check_unit(unit)
    with name_scope(name, "Substr", [input, pos, len]) as scope:
        s = _strings(input, "input")
        p = convert_to_tensor(pos, name="pos", preferred_dtype=dtypes.int32)
        n = convert_to_tensor(len, name="len", dtype=p.dtype.base_dtype)
        return _make("Substr", [s, p, n], {"T": p.dtype.base_dtype, "unit": unit}, scope)


def regex_replace(
    input: Any,
    pattern: Any,
    rewrite: Any,
    replace_global: bool = True,
    name: str | None = None,
) -> Tensor:
    """Matches of the RE2 pattern replaced by rewrite (\\1 backreferences, \\0 the match)."""
    if isinstance(pattern, (str, bytes)) and isinstance(rewrite, (str, bytes)):
        with name_scope(name, "StaticRegexReplace", [input]) as scope:
            attrs = {
                "pattern": _text(pattern),
                "rewrite": _text(rewrite),
                "replace_global": bool(replace_global),
            }
            return _make("StaticRegexReplace", [_strings(input, "input")], attrs, scope)
    with name_scope(name, "RegexReplace", [input, pattern, rewrite]) as scope:
        ts = [_strings(input, "input"), _strings(pattern, "pattern"), _strings(rewrite, "rewrite")]
        return _make("RegexReplace", ts, {"replace_global": bool(replace_global)}, scope)


def regex_full_match(input: Any, pattern: Any, name: str | None = None) -> Tensor:
    """Whether each whole string matches the RE2 pattern."""
    if isinstance(pattern, (str, bytes)):
        with name_scope(name, "StaticRegexFullMatch", [input]) as scope:
            attrs = {"pattern": _text(pattern)}
            return _make("StaticRegexFullMatch", [_strings(input, "input")], attrs, scope)
    with name_scope(name, "RegexFullMatch", [input, pattern]) as scope:
        ts = [_strings(input, "input"), _strings(pattern, "pattern")]
        return _make("RegexFullMatch", ts, {}, scope)


def _text(value: str | bytes) -> str:
    return value.decode("utf-8", "surrogateescape") if isinstance(value, bytes) else value


def _hash_bucket(
    op_type: str, value: Any, num_buckets: int, name: str | None, key: Any = None
) -> Tensor:
    with name_scope(name, op_type, [value]) as scope:
        attrs: dict[str, Any] = {"num_buckets": int(num_buckets)}
        if key is not None:
            for k in key:
                if not -(2**63) <= int(k) < 2**63:
                    raise ValueError(f"Value out of range: {int(k)}")
            attrs["key"] = [int(k) for k in key]
        return _make(op_type, [_strings(value, "input")], attrs, scope)


def string_to_hash_bucket_fast(input: Any, num_buckets: int, name: str | None = None) -> Tensor:
    """Fingerprint64(string) % num_buckets (FarmHash: TF's buckets exactly)."""
    return _hash_bucket("StringToHashBucketFast", input, num_buckets, name)


def string_to_hash_bucket(
    string_tensor: Any = None,
    num_buckets: int | None = None,
    name: str | None = None,
    input: Any = None,
) -> Tensor:
    """TF's legacy Hash64(string) % num_buckets."""
    if num_buckets is None:
        raise TypeError("string_to_hash_bucket needs num_buckets")
    value = input if input is not None else string_tensor
    return _hash_bucket("StringToHashBucket", value, num_buckets, name)


def string_to_hash_bucket_strong(
    input: Any,
    num_buckets: int,
    key: Sequence[int],
    name: str | None = None,
) -> Tensor:
    """SipHash-2-4 keyed with `key` (two ints) % num_buckets."""
    return _hash_bucket("StringToHashBucketStrong", input, num_buckets, name, key)


def as_string(
    input: Any,
    precision: int = -1,
    scientific: bool = False,
    shortest: bool = False,
    width: int = -1,
    fill: str = "",
    name: str | None = None,
) -> Tensor:
    """Numbers (and bools) formatted as strings, as C's printf would with these options."""
    with name_scope(name, "AsString", [input]) as scope:
        t = convert_to_tensor(input, name="input")
        allowed = (
            dtypes.int8,
            dtypes.int16,
            dtypes.int32,
            dtypes.int64,
            dtypes.complex64,
            dtypes.complex128,
            dtypes.float32,
            dtypes.float64,
            dtypes.bool_,
            dtypes.uint8,
            dtypes.float16,
        )
        if t.dtype.base_dtype not in allowed:
            raise TypeError(
                f"Value passed to parameter 'input' has DataType {t.dtype.base_dtype.name} not in "
                "list of allowed values: int8, int16, int32, int64, complex64, complex128, "
                "float32, float64, bool"
            )
        attrs = {
            "T": t.dtype.base_dtype,
            "precision": int(precision),
            "scientific": bool(scientific),
            "shortest": bool(shortest),
            "width": int(width),
            "fill": fill,
        }
        return _make("AsString", [t], attrs, scope)


def reduce_join(
    inputs: Any,
    axis: Any = None,
    keep_dims: Any = None,
    separator: str = "",
    name: str | None = None,
    reduction_indices: Any = None,
    keepdims: Any = None,
) -> Tensor:
    """Strings joined across the axes (all by default, last axis first as TF orders them)."""
    if keepdims is not None and keep_dims is not None:
        raise ValueError("Cannot specify both 'keepdims' and 'keep_dims'")
    keep = keepdims if keepdims is not None else keep_dims
    if axis is None:
        axis = reduction_indices
    with name_scope(None, "ReduceJoin", [inputs, axis]):
        t = convert_to_tensor(inputs)
        if axis is None:
            if t.shape.ndims is not None:
                axis_t = convert_to_tensor(np.arange(t.shape.ndims - 1, -1, -1, dtype=np.int32))
            else:
                from tfcluster.ops import array_ops, math_ops

                axis_t = math_ops.range(array_ops.rank(t) - 1, -1, -1)
        else:
            axis_t = convert_to_tensor(axis, dtype=dtypes.int32)
        with name_scope(name, "ReduceJoin") as scope:
            attrs = {"keep_dims": bool(keep), "separator": separator}
            return _make("ReduceJoin", [t, axis_t], attrs, scope)


def encode_base64(input: Any, pad: bool = False, name: str | None = None) -> Tensor:
    """Web-safe base64 of each string."""
    with name_scope(name, "EncodeBase64", [input]) as scope:
        return _make("EncodeBase64", [_strings(input, "input")], {"pad": bool(pad)}, scope)


def decode_base64(input: Any, name: str | None = None) -> Tensor:
    """Strings decoded from web-safe base64."""
    with name_scope(name, "DecodeBase64", [input]) as scope:
        return _make("DecodeBase64", [_strings(input, "input")], {}, scope)


def unsorted_segment_join(
    inputs: Any, segment_ids: Any, num_segments: Any, separator: str = "", name: str | None = None
) -> Tensor:
    """The strings of each segment joined (in input order), empty for empty segments."""
    with name_scope(name, "UnsortedSegmentJoin", [inputs, segment_ids, num_segments]) as scope:
        t = _strings(inputs, "inputs")
        ids = convert_to_tensor(segment_ids, name="segment_ids", preferred_dtype=dtypes.int32)
        num = convert_to_tensor(num_segments, name="num_segments", preferred_dtype=dtypes.int32)
        attrs = {
            "separator": separator,
            "Tindices": ids.dtype.base_dtype,
            "Tnumsegments": num.dtype.base_dtype,
        }
        return _make("UnsortedSegmentJoin", [t, ids, num], attrs, scope)


__all__ = [
    "as_string",
    "decode_base64",
    "encode_base64",
    "reduce_join",
    "regex_replace",
    "string_join",
    "string_to_hash_bucket",
    "string_to_hash_bucket_fast",
    "string_to_hash_bucket_strong",
    "substr",
]

# Ragged operands go to the handlers tf.ragged registers (framework/dispatch.DISPATCHED).
dispatch.make_dispatchable(globals())
