"""tf.strings' Unicode ops (unicode_transcode, unicode_encode, unicode_script, unicode_decode,
unicode_split and their _with_offsets forms, bytes_split) and tf.strings.ngrams, plus tf.io's
decode_json_example (base64 is in string_ops). Decoding and splitting give RaggedTensors, and
ngrams / unicode_encode take them, as TF 1.15's do; dense inputs to those two keep the dense
forms (TF turns a dense input into a uniform ragged one and back: same values)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tfcluster.framework import dispatch, dtypes, op_def_registry
from tfcluster.framework.graph import Tensor, convert_to_tensor, name_scope
from tfcluster.framework.tensor_shape import TensorShape
from tfcluster.ops import array_ops, math_ops, ragged_ops
from tfcluster.ops.op_util import Outputs, check_dtype, make_op
from tfcluster.ops.ragged_tensor import RaggedTensor, convert_to_tensor_or_ragged_tensor

_OUTPUT_ENCODINGS = ("UTF-8", "UTF-16-BE", "UTF-32-BE")
_ERRORS = ("strict", "replace", "ignore")


def _same_shape(dtype: dtypes.DType) -> Any:
    def infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
        return [(dtype, inputs[0].shape)]

    return infer


def _encode_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    splits = inputs[1].shape
    count = None if splits.ndims is None else splits.as_list()[0]
    return [(dtypes.string, TensorShape([None if count is None else count - 1]))]


def _ngrams_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    return [(dtypes.string, TensorShape([None])), (inputs[1].dtype.base_dtype, inputs[1].shape)]


op_def_registry.register("UnicodeTranscode", _same_shape(dtypes.string))
op_def_registry.register("UnicodeEncode", _encode_infer)
op_def_registry.register("UnicodeScript", _same_shape(dtypes.int32))
op_def_registry.register("StringNGrams", _ngrams_infer)
op_def_registry.register("DecodeJSONExample", _same_shape(dtypes.string))


def _check_errors(errors: str) -> None:
    if errors not in _ERRORS:
        raise ValueError(f"errors must be one of {list(_ERRORS)}, got {errors!r}")


def unicode_transcode(
    input: Any,
    input_encoding: str,
    output_encoding: str,
    errors: str = "replace",
    replacement_char: int = 65533,
    replace_control_characters: bool = False,
    name: str | None = None,
) -> Tensor:
    """Each string re-encoded from input_encoding to output_encoding."""
    _check_errors(errors)
    if output_encoding not in _OUTPUT_ENCODINGS:
        raise ValueError(f"output_encoding must be one of {list(_OUTPUT_ENCODINGS)}")
    with name_scope(name, "UnicodeTranscode", [input]) as scope:
        t = convert_to_tensor(input, dtype=dtypes.string, name="input")
        attrs = {
            "input_encoding": input_encoding,
            "output_encoding": output_encoding,
            "errors": errors,
            "replacement_char": int(replacement_char),
            "replace_control_characters": bool(replace_control_characters),
        }
        return make_op("UnicodeTranscode", [t], attrs, name=scope).outputs[0]


def unicode_encode(
    input: Any,
    output_encoding: str,
    errors: str = "replace",
    replacement_char: int = 65533,
    name: str | None = None,
) -> Tensor:
    """A dense [..., n] tensor of code points -> the [...] strings they spell."""
    _check_errors(errors)
    if output_encoding not in _OUTPUT_ENCODINGS:
        raise ValueError(f"output_encoding must be one of {list(_OUTPUT_ENCODINGS)}")
    with name_scope(name, "UnicodeEncode", [input]) as scope:
        if isinstance(input, RaggedTensor):
            return _encode_ragged(input, output_encoding, errors, replacement_char)
        t = convert_to_tensor(input, name="input")
        check_dtype(t, (dtypes.int32,), "UnicodeEncode", "input_values")
        rank = t.shape.ndims
        if rank is None:
            raise ValueError("Rank of input_tensor must be statically known.")
        if rank == 0:
            raise ValueError("Rank of input_tensor must be at least 1.")
        attrs = {
            "output_encoding": output_encoding,
            "errors": errors,
            "replacement_char": int(replacement_char),
        }
        if rank == 2:
            return _encode_rows(t, attrs)
        shape = array_ops.shape(t, out_type=dtypes.int64)
        flat = _encode_rows(array_ops.reshape(t, array_ops.stack([-1, shape[-1]])), attrs)
        out = array_ops.reshape(flat, shape[:-1], name=scope)
        out.set_shape(TensorShape(t.shape.as_list()[:-1]))
        return out


def _encode_ragged(rt: RaggedTensor, output_encoding: str, errors: str, replacement: int) -> Any:
    """Each innermost row of code points -> one string (one ragged level less)."""
    if (rt.flat_values.shape.ndims or 1) > 1:
        return rt.with_flat_values(
            unicode_encode(rt.flat_values, output_encoding, errors, replacement)
        )
    if rt.ragged_rank > 1:
        return rt.with_values(unicode_encode(rt.values, output_encoding, errors, replacement))
    check_dtype(rt.values, (dtypes.int32,), "UnicodeEncode", "input_values")
    attrs = {
        "output_encoding": output_encoding,
        "errors": errors,
        "replacement_char": int(replacement),
        "Tsplits": rt.row_splits.dtype.base_dtype,
    }
    return make_op("UnicodeEncode", [rt.values, rt.row_splits], attrs).outputs[0]


def _encode_rows(t: Tensor, attrs: dict[str, Any]) -> Tensor:
    """UnicodeEncode of each row of a [rows, n] tensor, named as TF names it (unicode_encode
    recursing once on the ragged form: UnicodeEncode/UnicodeEncode/UnicodeEncode)."""
    with name_scope(None, "UnicodeEncode", [t]):
        shape = array_ops.shape(t, out_type=dtypes.int64)
        splits = math_ops.range_cast_to(shape[0] + 1, dtype=dtypes.int64) * shape[1]
        values = array_ops.reshape(t, [-1])
        out = make_op("UnicodeEncode", [values, splits], attrs, name="UnicodeEncode").outputs[0]
        out.set_shape(TensorShape([t.shape.as_list()[0]]))
        return out


def unicode_script(input: Any, name: str | None = None) -> Tensor:
    """ICU's UScriptCode of each int32 code point (-1 for an invalid one)."""
    with name_scope(name, "UnicodeScript", [input]) as scope:
        t = convert_to_tensor(input, dtype=dtypes.int32, name="input")
        return make_op("UnicodeScript", [t], {}, name=scope).outputs[0]


def _as_text(value: Any, what: str) -> str:
    if isinstance(value, bytes):
        return value.decode()
    if isinstance(value, str):
        return value
    raise TypeError("pad_values must be a string, tuple of strings, or None.")


def ngrams(
    data: Any,
    ngram_width: Any,
    separator: str = " ",
    pad_values: Any = None,
    padding_width: int | None = None,
    preserve_short_sequences: bool = False,
    name: str | None = None,
) -> Tensor:
    """The n-grams of each row of a dense string tensor (its last axis), joined by separator:
    [..., n] -> [..., number of n-grams per row]."""
    with name_scope(name, "StringNGrams", [data]):
        if isinstance(data, RaggedTensor):
            if data.ragged_rank > 1:
                return data.with_values(  # type: ignore[return-value]
                    ngrams(
                        data.values,
                        ngram_width,
                        separator,
                        pad_values,
                        padding_width,
                        preserve_short_sequences,
                    )
                )
            attrs = _ngram_attrs(
                ngram_width, separator, pad_values, padding_width, preserve_short_sequences
            )
            attrs["Tsplits"] = data.row_splits.dtype.base_dtype
            op = make_op("StringNGrams", [data.values, data.row_splits], attrs)
            return RaggedTensor.from_row_splits(  # type: ignore[return-value]
                op.outputs[0], op.outputs[1], validate=False
            )
        if pad_values is None:
            left_pad = right_pad = ""
        elif isinstance(pad_values, (list, tuple)):
            left_pad = _as_text(pad_values[0], "pad_values")
            right_pad = _as_text(pad_values[1], "pad_values")
        else:
            left_pad = right_pad = _as_text(pad_values, "pad_values")
        if padding_width is not None and padding_width < 1:
            raise ValueError("padding_width must be greater than 0.")
        if padding_width is not None and pad_values is None:
            raise ValueError("pad_values must be provided if padding_width is set.")
        t = convert_to_tensor(data, dtype=dtypes.string, name="data")
        if t.shape.ndims is None:
            raise ValueError("Rank of data must be known.")
        if t.shape.ndims == 0:
            raise ValueError("Data must have rank>0")
        pad_width = 0 if pad_values is None else (-1 if padding_width is None else padding_width)
        widths = list(ngram_width) if isinstance(ngram_width, (list, tuple)) else [ngram_width]
        for width in widths:
            if width < 1:
                raise ValueError(f"All ngram_widths must be greater than 0. Got {ngram_width}")
        shape = array_ops.shape(t, out_type=dtypes.int64)
        rows = math_ops.reduce_prod(shape[:-1])
        splits = math_ops.range_cast_to(rows + 1, dtype=dtypes.int64) * shape[-1]
        attrs = {
            "separator": separator,
            "ngram_widths": [int(w) for w in widths],
            "left_pad": left_pad,
            "right_pad": right_pad,
            "pad_width": int(pad_width),
            "preserve_short_sequences": bool(preserve_short_sequences),
            "Tsplits": dtypes.int64,
        }
        flat = make_op("StringNGrams", [array_ops.reshape(t, [-1]), splits], attrs).outputs[0]
        if t.shape.ndims == 1:
            return flat
        dense_shape = array_ops.concat([array_ops.shape(t)[:-1], constant_minus_one()], axis=0)
        return array_ops.reshape(flat, dense_shape)


def _ngram_attrs(
    ngram_width: Any,
    separator: str,
    pad_values: Any,
    padding_width: int | None,
    preserve_short_sequences: bool,
) -> dict[str, Any]:
    if pad_values is None:
        left_pad = right_pad = ""
    elif isinstance(pad_values, (list, tuple)):
        left_pad = _as_text(pad_values[0], "pad_values")
        right_pad = _as_text(pad_values[1], "pad_values")
    else:
        left_pad = right_pad = _as_text(pad_values, "pad_values")
    if padding_width is not None and padding_width < 1:
        raise ValueError("padding_width must be greater than 0.")
    if padding_width is not None and pad_values is None:
        raise ValueError("pad_values must be provided if padding_width is set.")
    pad_width = 0 if pad_values is None else (-1 if padding_width is None else padding_width)
    widths = list(ngram_width) if isinstance(ngram_width, (list, tuple)) else [ngram_width]
    for width in widths:
        if width < 1:
            raise ValueError(f"All ngram_widths must be greater than 0. Got {ngram_width}")
    return {
        "separator": separator,
        "ngram_widths": [int(w) for w in widths],
        "left_pad": left_pad,
        "right_pad": right_pad,
        "pad_width": int(pad_width),
        "preserve_short_sequences": bool(preserve_short_sequences),
    }


def _decode(
    input: Any,
    input_encoding: str,
    errors: str,
    replacement_char: int,
    replace_control_characters: bool,
    with_offsets: bool,
) -> Any:
    """UnicodeDecode(WithOffsets) of every string: the code points of each (and the byte
    where each starts) as a RaggedTensor one dimension deeper than input."""
    _check_errors(errors)
    value = convert_to_tensor_or_ragged_tensor(input, name="input")
    ndims = value.shape.ndims
    if ndims is None:
        raise ValueError("Rank of `input` must be statically known.")
    if ndims > 1:
        if not isinstance(value, RaggedTensor):
            value = RaggedTensor.from_tensor(value, ragged_rank=ndims - 1)
        elif value.ragged_rank < ndims - 1:
            value = value.with_flat_values(
                RaggedTensor.from_tensor(
                    value.flat_values, ragged_rank=ndims - value.ragged_rank + 1
                )
            )
    source = value.flat_values if isinstance(value, RaggedTensor) else value
    flat_input = array_ops.reshape(source, [-1])
    op_type = "UnicodeDecodeWithOffsets" if with_offsets else "UnicodeDecode"
    op = ragged_ops.unicode_decode_op(
        flat_input,
        input_encoding,
        errors,
        replacement_char,
        replace_control_characters,
        with_offsets,
        op_type,
    )
    splits, chars = op.outputs[0], op.outputs[1]
    starts = op.outputs[2] if with_offsets else None
    if ndims == 0:
        return (chars, starts) if with_offsets else chars
    codepoints: Any = RaggedTensor.from_row_splits(chars, splits, validate=False)
    offsets: Any = None
    if with_offsets:
        offsets = RaggedTensor.from_row_splits(starts, splits, validate=False)
    if ndims > 1:
        codepoints = value.with_flat_values(codepoints)
        if with_offsets:
            offsets = value.with_flat_values(offsets)
    return (codepoints, offsets) if with_offsets else codepoints


def unicode_decode(
    input: Any,
    input_encoding: str,
    errors: str = "replace",
    replacement_char: int = 65533,
    replace_control_characters: bool = False,
    name: str | None = None,
) -> Any:
    """The code points of each string: a RaggedTensor [..., (chars)] of int32."""
    with name_scope(name, "UnicodeDecode", [input]):
        return _decode(
            input, input_encoding, errors, replacement_char, replace_control_characters, False
        )


def unicode_decode_with_offsets(
    input: Any,
    input_encoding: str,
    errors: str = "replace",
    replacement_char: int = 65533,
    replace_control_characters: bool = False,
    name: str | None = None,
) -> Any:
    """(code points, the byte offset where each starts), both RaggedTensors."""
    with name_scope(name, "UnicodeDecodeWithOffsets", [input]):
        return _decode(
            input, input_encoding, errors, replacement_char, replace_control_characters, True
        )


def _encode_each(codepoints: Any, encoding: str, errors: str, replacement: int) -> Any:
    """Each code point as its own string (TF: unicode_encode of expand_dims(codepoints, -1))."""
    if isinstance(codepoints, RaggedTensor):
        return codepoints.with_flat_values(
            _encode_each(codepoints.flat_values, encoding, errors, replacement)
        )
    count = array_ops.shape(codepoints, out_type=dtypes.int64)[0]
    splits = math_ops.range_cast_to(count + 1, dtype=dtypes.int64)
    attrs = {
        "output_encoding": encoding,
        "errors": errors,
        "replacement_char": int(replacement),
        "Tsplits": dtypes.int64,
    }
    # TF encodes expand_dims(codepoints, -1), recursing through three unicode_encode scopes.
    with (
        name_scope(None, "UnicodeEncode", [codepoints]),
        name_scope(None, "UnicodeEncode", [codepoints]),
        name_scope(None, "UnicodeEncode", [codepoints]),
    ):
        return make_op("UnicodeEncode", [codepoints, splits], attrs).outputs[0]


def _split_encoding(input_encoding: str) -> str:
    if input_encoding not in _OUTPUT_ENCODINGS:
        raise ValueError(
            f"input_encoding must be one of {list(_OUTPUT_ENCODINGS)} to split "
            f"(each character is written back in it), got {input_encoding!r}"
        )
    return input_encoding


def unicode_split(
    input: Any,
    input_encoding: str,
    errors: str = "replace",
    replacement_char: int = 65533,
    name: str | None = None,
) -> Any:
    """Each string split into its characters (each in input_encoding): a RaggedTensor."""
    with name_scope(name, "UnicodeSplit", [input]):
        codepoints = _decode(input, input_encoding, errors, replacement_char, False, False)
        return _encode_each(codepoints, _split_encoding(input_encoding), errors, replacement_char)


def unicode_split_with_offsets(
    input: Any,
    input_encoding: str,
    errors: str = "replace",
    replacement_char: int = 65533,
    name: str | None = None,
) -> Any:
    """(characters, the byte offset where each starts), both RaggedTensors."""
    with name_scope(name, "UnicodeSplitWithOffsets", [input]):
        codepoints, offsets = _decode(input, input_encoding, errors, replacement_char, False, True)
        chars = _encode_each(codepoints, _split_encoding(input_encoding), errors, replacement_char)
        return chars, offsets


def string_bytes_split(input: Any, name: str | None = None) -> Any:
    """Each string split into its bytes: a RaggedTensor [..., (bytes)] of 1-byte strings."""
    with name_scope(name, "StringsByteSplit", [input]):
        value = convert_to_tensor_or_ragged_tensor(input, name="input")
        if isinstance(value, RaggedTensor):
            return value.with_flat_values(string_bytes_split(value.flat_values))
        rank = value.shape.ndims
        if rank is None:
            raise ValueError("input must have a statically-known rank.")
        if rank == 0:
            return string_bytes_split(array_ops.stack([value]))[0]
        if rank > 1:
            return string_bytes_split(RaggedTensor.from_tensor(value))
        op = make_op(
            "StringSplit",
            [value, convert_to_tensor("", dtype=dtypes.string)],
            {"skip_empty": False},
        )
        indices, values, shape = op.outputs
        return RaggedTensor.from_value_rowids(values, indices[:, 0], shape[0], validate=False)


def constant_minus_one() -> Tensor:
    return convert_to_tensor([-1], dtype=dtypes.int32)


def decode_json_example(json_examples: Any, name: str | None = None) -> Tensor:
    """Each tf.train.Example in protobuf's JSON form, serialized to its binary form."""
    with name_scope(name, "DecodeJSONExample", [json_examples]) as scope:
        t = convert_to_tensor(json_examples, dtype=dtypes.string, name="json_examples")
        return make_op("DecodeJSONExample", [t], {}, name=scope).outputs[0]


__all__: list[str] = []  # exported by name from the faces and api/top_level/string_codecs.py

# Ragged operands go to the handlers tf.ragged registers (framework/dispatch.DISPATCHED).
dispatch.make_dispatchable(globals())
