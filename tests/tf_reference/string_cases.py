"""tf.strings basics and their top-level names, written once against the TF1 API and run
twice: by record_strings.py under TensorFlow 1.15 and by tests/unit/test_strings_reference.py
under tfcluster. Each case returns plain data: values (hash buckets included), op names and
types, error classes and messages.

Kept runnable on Python 3.7 (TensorFlow 1.15's interpreter) and free of anything but numpy.
"""

from __future__ import annotations

import numpy as np

try:
    from tf_reference.case_tools import error, registrar, run, run_error
except ImportError:  # the recorder runs from this folder
    from case_tools import error, registrar, run, run_error

CASES = {}


case = registrar(CASES)


_WORDS = [["Hello", " wOrld "], ["a\tb", "\xe9t\xe9"]]
_MANY = [
    "",
    "a",
    "hello",
    "abcdefgh",
    "abcdefghi",
    "The quick brown fox jumps over the lazy dog",
    "\u00fcber",
    "0123456789" * 5,
]


@case
def element_wise_ops(tf):
    with tf.Graph().as_default():
        s = tf.constant(_WORDS)
        out = run(
            tf,
            {
                "join": tf.strings.join([s, "!", s], separator="-"),
                "string_join": tf.string_join(["a", "b"]),
                "strip": tf.strings.strip(s),
                "string_strip": tf.string_strip(s),
                "length": tf.strings.length(s),
                "length_utf8": tf.strings.length(s, unit="UTF8_CHAR"),
                "substr": tf.strings.substr(s, 1, 3),
                "substr_negative": tf.strings.substr(s, -2, 2),
                "substr_vectors": tf.strings.substr(tf.constant(["abcd", "efgh"]), [0, 1], [2, 5]),
                "substr_utf8": tf.strings.substr(s, 1, 2, unit="UTF8_CHAR"),
                "tf_substr": tf.substr("hello", 1, 2),
                "upper": tf.strings.upper(s),
                "lower": tf.strings.lower(s),
            },
        )
        j = tf.strings.join([s, s])
        return {"values": out, "op": [j.op.name, j.op.type]}


@case
def regex_ops(tf):
    with tf.Graph().as_default():
        s = tf.constant(_WORDS)
        out = run(
            tf,
            {
                "replace": tf.strings.regex_replace(s, "[aeiou]", "_"),
                "replace_first": tf.strings.regex_replace(s, "l", "L", replace_global=False),
                "replace_groups": tf.regex_replace(
                    tf.constant(["ab12cd"]), r"(\d)(\d)", r"\2\1<\0>"
                ),
                "replace_tensors": tf.strings.regex_replace(s, tf.constant("o"), tf.constant("0")),
                "full_match": tf.strings.regex_full_match(s, ".*o.*"),
                "full_match_tensor": tf.strings.regex_full_match(s, tf.constant("[a-z\t]+")),
            },
        )
        static = tf.strings.regex_replace(s, "a", "b")
        dynamic = tf.strings.regex_replace(s, tf.constant("a"), "b")
        match = tf.strings.regex_full_match(s, "a")
        bad = run_error(tf, tf.strings.regex_replace(s, "(", "x"))
        return {
            "values": out,
            "ops": [static.op.type, dynamic.op.type, match.op.type],
            "bad_pattern": {"error": bad["error"], "message": bad["message"].split(",")[0]},
        }


@case
def hash_buckets(tf):
    with tf.Graph().as_default():
        many = tf.constant(_MANY)
        out = run(
            tf,
            {
                "fast": tf.strings.to_hash_bucket_fast(many, 2**62),
                "legacy": tf.strings.to_hash_bucket(many, 2**62),
                "strong": tf.strings.to_hash_bucket_strong(many, 2**62, [7, 11]),
                "strong_big_key": tf.strings.to_hash_bucket_strong(many, 2**62, [2**62 + 5, 99]),
                "fast_small": tf.strings.to_hash_bucket_fast(tf.constant(_WORDS), 10),
                "top_level": [
                    tf.string_to_hash_bucket_fast(["x"], 10),
                    tf.string_to_hash_bucket(["x"], 10),
                    tf.string_to_hash_bucket_strong(["x"], 10, [1, 2]),
                ],
            },
        )
        return {
            "values": out,
            "bad_key": run_error(tf, tf.strings.to_hash_bucket_strong(["x"], 10, [1])),
        }


@case
def reduce_join_and_as_string(tf):
    with tf.Graph().as_default():
        s = tf.constant(_WORDS)
        out = run(
            tf,
            {
                "all": tf.strings.reduce_join(s),
                "axis0": tf.reduce_join(s, 0, separator="|"),
                "last_keep": tf.reduce_join(s, -1, keep_dims=True, separator="|"),
                "empty": tf.reduce_join(tf.zeros([2, 0], tf.string), 1),
                "float": tf.as_string(tf.constant([1.5, -2.25, 1e10, 1e-7])),
                "precision": tf.as_string(tf.constant([1.5, 3.14159]), precision=2),
                "scientific": tf.as_string(tf.constant([1.5, 3.14159]), scientific=True),
                "shortest": tf.as_string(tf.constant([1.5, 3.14159, 1e10]), shortest=True),
                "zero_fill": tf.as_string(tf.constant([1, -22]), width=5, fill="0"),
                "space_fill": tf.as_string(tf.constant([1, -22]), width=5),
                "bool": tf.as_string(tf.constant([True, False])),
                "double": tf.as_string(tf.constant([1.5], tf.float64)),
                "int64": tf.as_string(tf.constant([2**40], tf.int64)),
            },
        )
        return {
            "values": out,
            "int_precision": run_error(tf, tf.as_string(tf.constant([1]), precision=2)),
            "strings_in": {"error": error(lambda: tf.as_string(tf.constant(["a"])))["error"]},
        }


@case
def format_base64_segment_join_to_number(tf):
    with tf.Graph().as_default():
        out = run(
            tf,
            {
                "format": tf.strings.format("x={} y={}", [tf.constant([1, 2]), tf.constant("s")]),
                "format_summarize": tf.strings.format(
                    "{}", tf.constant(np.arange(10)), summarize=1
                ),
                "encode": tf.encode_base64(tf.constant(["hello world", "\xff\xfe"])),
                "encode_pad": tf.encode_base64(tf.constant(["hello world"]), pad=True),
                "decode": tf.decode_base64(tf.constant(["aGVsbG8gd29ybGQ", "w7_Dvg"])),
                "segment_join": tf.strings.unsorted_segment_join(
                    ["a", "b", "c"], [1, 0, 1], 3, separator=","
                ),
                "to_number": tf.strings.to_number(["1.5", "-2e3"]),
                "to_number_int": tf.strings.to_number(["12", "-3"], out_type=tf.int32),
            },
        )
        return {
            "values": out,
            "format_count": error(
                lambda: tf.strings.format("x={}", [tf.constant(1), tf.constant(2)])
            ),
            "to_number_bad": run_error(tf, tf.strings.to_number(["abc"])),
            "substr_bad": run_error(tf, tf.strings.substr(tf.constant(["ab"]), 5, 1)),
            "join_shapes": {
                "error": error(
                    lambda: tf.strings.join([tf.constant(_WORDS), tf.constant(["a", "b", "c"])])
                )["error"]
            },
        }
