"""Cases of tf.strings' Unicode ops on dense tensors (unicode_transcode, unicode_encode,
unicode_script), tf.strings.ngrams on dense tensors, and tf.io's encode_base64 /
decode_base64 / decode_json_example, run on TensorFlow 1.15 by record_unicode.py and on
tfcluster by tests/unit/test_tf_reference_unicode.py.

Runs on Python 3.7 too (TF 1.15's recorder)."""

from __future__ import annotations

from typing import Any

import numpy as np

try:
    from casebook import Book
except ImportError:  # imported as tf_reference.cases_unicode by the tests
    from tf_reference.casebook import Book

BOOK = Book()
add = BOOK.add


def _strings(items: list, shape: Any = None) -> np.ndarray:
    out = np.empty(len(items), dtype=object)
    out[:] = items
    return out if shape is None else out.reshape(shape)


LATIN1 = _strings(["h\xe9llo".encode("latin-1"), b"ok\x01", b"", b"caf\xe9\x7f"])
BROKEN_UTF8 = _strings([b"a\xff\xfeb\xe2\x82", b"\xed\xa0\x80x", "\u00e9\u4e00".encode(), b"\xc3"])
UTF16 = _strings([b"\x00a\xd8\x00\x00b", b"\x00h\x00i", b"a\x00b", b"\xd8=\xde\x00"])

for _src, _data, _dst, _kw, _tag in (
    ("ISO-8859-1", LATIN1, "UTF-8", {}, "latin1_to_utf8"),
    ("ISO-8859-1", LATIN1, "UTF-16-BE", {"replace_control_characters": True}, "latin1_controls"),
    ("UTF-8", LATIN1, "UTF-8", {}, "latin1_read_as_utf8"),
    ("UTF-8", BROKEN_UTF8, "UTF-32-BE", {}, "broken_utf8_replace"),
    ("UTF-8", BROKEN_UTF8, "UTF-8", {"replacement_char": 63}, "broken_utf8_question_mark"),
    ("UTF-8", BROKEN_UTF8, "UTF-8", {"errors": "ignore"}, "broken_utf8_ignore"),
    ("UTF-16-BE", UTF16, "UTF-8", {}, "utf16_to_utf8"),
    ("US ASCII", _strings([b"a\xffb", b"plain"]), "UTF-16-BE", {}, "ascii_high_bytes"),
    (
        "UTF-8",
        _strings([b"ab", b"\x00\x1f"]),
        "UTF-8",
        {"replacement_char": 0xD800, "replace_control_characters": True},
        "surrogate_replacement",
    ),
):

    @add(f"unicode_transcode_{_tag}", {"s": _data})
    def _transcode(
        tf: Any, t: dict[str, Any], src: str = _src, dst: str = _dst, kw: Any = _kw
    ) -> dict[str, Any]:
        return {"out": tf.strings.unicode_transcode(t["s"], src, dst, **kw)}


@add("unicode_transcode_matrix", {"s": _strings([b"ab", b"\xc3\xa9", b"x", b"\xff"], (2, 2))})
def _transcode_matrix(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    return {"out": tf.strings.unicode_transcode(t["s"], "UTF-8", "UTF-16-BE")}


@add("unicode_transcode_error_strict", {"s": BROKEN_UTF8})
def _transcode_strict(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    return {"out": tf.strings.unicode_transcode(t["s"], "UTF-8", "UTF-8", errors="strict")}


@add("unicode_transcode_error_unknown_encoding", {"s": LATIN1})
def _transcode_unknown(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    return {"out": tf.strings.unicode_transcode(t["s"], "EBCDIC-XX", "UTF-8")}


CODEPOINTS = np.array(
    [[104, 0xE9, 0x4E00, 0x1F600], [72, -1, 0x110000, 65], [0xD800, 0xDFFF, 0xD800, 66]], np.int32
)

for _enc in ("UTF-8", "UTF-16-BE", "UTF-32-BE"):
    for _kw, _tag in (
        ({}, "replace"),
        ({"errors": "ignore"}, "ignore"),
        ({"replacement_char": 63}, "question_mark"),
    ):

        @add(f"unicode_encode_{_enc.replace('-', '_').lower()}_{_tag}", {"cp": CODEPOINTS})
        def _encode(tf: Any, t: dict[str, Any], enc: str = _enc, kw: Any = _kw) -> dict[str, Any]:
            return {"out": tf.strings.unicode_encode(t["cp"], enc, **kw)}


@add(
    "unicode_encode_vector",
    {"cp": np.array([72, 0x20AC, 0x10348], np.int32)},
    names=False,
    notes="TF makes the dense input ragged (other op names)",
)
def _encode_vector(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    # A scalar string comes back as bytes here, as a 0-d object array from TF's recorder.
    return {"out": tf.expand_dims(tf.strings.unicode_encode(t["cp"], "UTF-8"), 0)}


@add(
    "unicode_encode_rank3",
    {"cp": (np.arange(24, dtype=np.int32) + 0x41).reshape(2, 3, 4)},
    names=False,
    notes="TF makes the dense input ragged (other op names)",
)
def _encode_rank3(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    return {"out": tf.strings.unicode_encode(t["cp"], "UTF-16-BE")}


@add("unicode_encode_error_strict", {"cp": CODEPOINTS})
def _encode_strict(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    return {"out": tf.strings.unicode_encode(t["cp"], "UTF-8", errors="strict")}


@add(
    "unicode_script",
    {
        "cp": np.array(
            [
                72,
                0x3B1,
                0x5D0,
                0x4E00,
                0x30,
                -1,
                0x110000,
                0x1F600,
                0x300,
                0x378,
                0x0E01,
                0xAC00,
                0x0905,
                0x10FFFF,
                0xE000,
                0x1FAF8,
                0x30A2,
                0x3042,
            ],
            np.int32,
        ).reshape(3, 6)
    },
)
def _script(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    return {"out": tf.strings.unicode_script(t["cp"])}


WORDS = _strings([b"a", b"b", b"c", b"d"])
ROWS = _strings([b"a", b"b", b"c", b"d", b"e", b"f"], (2, 3))
SHORT = _strings([b"a", b"b", b"d", b"e"], (2, 2))
_NGRAM_NOTES = "TF makes the dense input ragged and back (other op names)"

for _data, _args, _tag in (
    (WORDS, {"ngram_width": 2}, "vector_bigrams"),
    (ROWS, {"ngram_width": [1, 3], "separator": "|", "pad_values": ("L", "R")}, "padded_1_3"),
    (SHORT, {"ngram_width": 3, "preserve_short_sequences": True}, "preserve_short"),
    (
        SHORT,
        {"ngram_width": 3, "pad_values": "P", "padding_width": 1, "preserve_short_sequences": True},
        "pad_1_width_3",
    ),
    (
        SHORT,
        {"ngram_width": 5, "pad_values": "P", "padding_width": 1, "preserve_short_sequences": True},
        "preserve_padded",
    ),
    (
        SHORT,
        {"ngram_width": [4, 5], "pad_values": "P", "preserve_short_sequences": True},
        "full_padding",
    ),
    (SHORT, {"ngram_width": 3}, "none_fit"),
    (
        _strings([b"a", b"b", b"c", b"d", b"e", b"f", b"g", b"h"], (2, 2, 2)),
        {"ngram_width": 2, "separator": ""},
        "rank3",
    ),
):

    @add(f"ngrams_{_tag}", {"s": _data}, names=False, notes=_NGRAM_NOTES)
    def _ngrams(tf: Any, t: dict[str, Any], args: Any = _args) -> dict[str, Any]:
        return {"out": tf.strings.ngrams(t["s"], **args)}


@add("ngrams_error_width", {"s": WORDS})
def _ngrams_bad_width(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    return {"out": tf.strings.ngrams(t["s"], 0)}


@add("ngrams_error_padding_without_values", {"s": WORDS})
def _ngrams_bad_pad(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    return {"out": tf.strings.ngrams(t["s"], 2, padding_width=1)}


BYTES = _strings([b"hello?>", b"", b"\xff\xfe", b"ab", b"abc", b"\x00"])


for _pad in (False, True):

    @add(f"encode_base64_pad_{_pad}", {"s": BYTES})
    def _b64(tf: Any, t: dict[str, Any], pad: bool = _pad) -> dict[str, Any]:
        return {
            "io": tf.io.encode_base64(t["s"], pad=pad),
            "top": tf.encode_base64(t["s"], pad=pad),
        }


@add(
    "decode_base64",
    {"s": _strings([b"aGVsbG8_Pg", b"aGVsbG8_Pg==", b"", b"__4", b"YWI=", b"YWJj"])},
)
def _unb64(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    return {"io": tf.io.decode_base64(t["s"]), "top": tf.decode_base64(t["s"])}


for _bad, _tag in (
    (b"aGVsbG8+Pg", "standard_alphabet"),
    (b"a", "one_left_over"),
    (b"aGVsbG8_Pg=", "short_padding"),
):

    @add(f"decode_base64_error_{_tag}", {"s": _strings([b"YWI", _bad])})
    def _unb64_bad(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
        return {"out": tf.io.decode_base64(t["s"])}


JSON = _strings(
    [
        b'{"features": {"feature": {"x": {"int64List": {"value": ["1", "2"]}}}}}',
        b'{"features": {"feature": {"s": {"bytesList": {"value": ["aGk="]}}, '
        b'"f": {"floatList": {"value": [1.5, -2]}}}}}',
        b"{}",
    ]
)


# Bytes only: TF writes numeric lists unpacked, tfcluster (Python protobuf) packed; both are
# valid wire forms of one Example (decode_json_example_parsed compares the numbers), and a map
# with several entries may serialize in another order.
@add(
    "decode_json_example",
    {
        "s": _strings(
            [b'{"features": {"feature": {"s": {"bytesList": {"value": ["aGk=", ""]}}}}}', b"{}"]
        )
    },
)
def _json(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    return {"io": tf.io.decode_json_example(t["s"]), "top": tf.decode_json_example(t["s"])}


@add("decode_json_example_parsed", {"s": JSON[:2]}, names=False)
def _json_parsed(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    serialized = tf.io.decode_json_example(t["s"])
    parsed = tf.io.parse_example(
        serialized,
        {
            "x": tf.io.FixedLenFeature([2], tf.int64, default_value=[0, 0]),
            "f": tf.io.VarLenFeature(tf.float32),
        },
    )
    return {"x": parsed["x"], "f": [parsed["f"].indices, parsed["f"].values]}


@add("decode_json_example_error_bad_type", {"s": _strings([b'{"features": 3}'])})
def _json_bad(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    return {"out": tf.io.decode_json_example(t["s"])}


# ---- tf.io.decode_proto / encode_proto (TF's message types; tfcluster's copies keep TF's field
# numbers). Serialized with TF's own protos: TensorShapeProto{dim: [{size: 3, name: "a"},
# {size: -1}]}, TensorShapeProto{unknown_rank: true}, NodeDef{name: "x", input: ["a", "b:1"]}.
SHAPE_PROTOS = _strings(
    [b"\x12\x05\x08\x03\x12\x01a\x12\x0b\x08\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01", b"\x18\x01"]
)
DIM_PROTOS = _strings([b"\x08\x03\x12\x01a", b"", b"\x08\x07", b"\x12\x02zz"], (2, 2))
NODE_PROTOS = _strings([b"\n\x01x\x1a\x01a\x1a\x03b:1", b"\n\x01y\x12\x03Add"])


@add("decode_proto_repeated_messages", {"b": SHAPE_PROTOS})
def _decode_shapes(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    out = tf.io.decode_proto(
        t["b"], "tensorflow.TensorShapeProto", ["dim", "unknown_rank"], [tf.string, tf.bool]
    )
    return {"sizes": out.sizes, "values": out.values}


@add("decode_proto_scalars_matrix", {"b": DIM_PROTOS})
def _decode_dims(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    out = tf.io.decode_proto(
        t["b"], "tensorflow.TensorShapeProto.Dim", ["name", "size"], [tf.string, tf.int64]
    )
    return {"sizes": out.sizes, "values": out.values}


@add("decode_proto_repeated_strings", {"b": NODE_PROTOS})
def _decode_nodes(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    out = tf.io.decode_proto(
        t["b"], "tensorflow.NodeDef", ["name", "op", "input", "device"], [tf.string] * 4
    )
    return {"sizes": out.sizes, "values": out.values}


@add("decode_proto_text_format", {"b": _strings([b'size: 4 name: "q"', b"size: -2"])})
def _decode_text(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    out = tf.io.decode_proto(
        t["b"],
        "tensorflow.TensorShapeProto.Dim",
        ["size", "name"],
        [tf.int64, tf.string],
        message_format="text",
    )
    return {"sizes": out.sizes, "values": out.values}


for _bad, _args, _tag in (
    (_strings([b"\xff"]), ("tensorflow.TensorShapeProto.Dim", ["size"], ["int64"]), "corrupt"),
    (_strings([b""]), ("tensorflow.NoSuchMessage", ["size"], ["int64"]), "unknown_type"),
    (_strings([b""]), ("tensorflow.TensorShapeProto.Dim", ["nosuch"], ["int64"]), "unknown_field"),
    (_strings([b""]), ("tensorflow.TensorShapeProto.Dim", ["size"], ["string"]), "wrong_type"),
):

    @add(f"decode_proto_error_{_tag}", {"b": _bad})
    def _decode_bad(tf: Any, t: dict[str, Any], args: Any = _args) -> dict[str, Any]:
        types = [tf.as_dtype(d) for d in args[2]]
        out = tf.io.decode_proto(t["b"], args[0], args[1], types)
        return {"sizes": out.sizes}


@add(
    "encode_proto_scalars",
    {
        "sizes": np.array([[1, 0], [0, 1], [1, 1]], np.int32),
        "size": np.array([[5], [0], [-1]], np.int64),
        "name": _strings([b"", b"z", b"ab"], (3, 1)),
    },
)
def _encode_dims(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    out = tf.io.encode_proto(
        t["sizes"], [t["size"], t["name"]], ["size", "name"], "tensorflow.TensorShapeProto.Dim"
    )
    return {"out": out}


@add(
    "encode_proto_repeated_and_messages",
    {
        "sizes": np.array([[2, 1], [0, 0]], np.int32),
        "dim": _strings([b"\x08\x03", b"\x08\x04\x12\x01h", b"", b""], (2, 2)),
        "unknown": np.array([[True], [False]]),
    },
)
def _encode_shapes(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    out = tf.io.encode_proto(
        t["sizes"], [t["dim"], t["unknown"]], ["dim", "unknown_rank"], "tensorflow.TensorShapeProto"
    )
    return {"out": out}


@add(
    "encode_proto_then_decode",
    {
        "sizes": np.array([[1, 2]], np.int32),
        "name": _strings([b"n"], (1, 1)),
        "inputs": _strings([b"a", b"b"], (1, 2)),
    },
)
def _encode_decode(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    encoded = tf.io.encode_proto(
        t["sizes"], [t["name"], t["inputs"]], ["name", "input"], "tensorflow.NodeDef"
    )
    out = tf.io.decode_proto(encoded, "tensorflow.NodeDef", ["input", "name"], [tf.string] * 2)
    return {"sizes": out.sizes, "values": out.values}


@add(
    "encode_proto_error_size_too_large",
    {"sizes": np.array([[3]], np.int32), "size": np.array([[5, 6]], np.int64)},
)
def _encode_bad(tf: Any, t: dict[str, Any]) -> dict[str, Any]:
    out = tf.io.encode_proto(t["sizes"], [t["size"]], ["size"], "tensorflow.TensorShapeProto.Dim")
    return {"out": out}
