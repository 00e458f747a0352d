"""Parsing ops against TensorFlow's recorded results: Examples and SequenceExamples from the
files TF wrote, every feature kind, TF's error classes for bad input (after which the
session keeps working), decode_raw, decode_csv, string_to_number, decode_compressed and
serialized tensors."""

from __future__ import annotations

import os
from typing import Any

import pytest
import tfcluster as tf
from tf_reference import records_cases as cases
from tf_reference import reference

AREA = "records"


def case(name: str) -> dict[str, Any]:
    return reference.case(AREA, name)


def examples() -> list[bytes]:
    return list(case("iterate_plain")["records"])


def sequences() -> list[bytes]:
    return list(case("iterate_sequences")["records"])


FEATURES = {
    "label": tf.FixedLenFeature([], tf.int64),
    "weights": tf.FixedLenFeature([3], tf.float32),
    "image_raw": tf.FixedLenFeature([], tf.string),
    "name": tf.FixedLenFeature([1], tf.string),
    "tags": tf.VarLenFeature(tf.string),
    "ids": tf.VarLenFeature(tf.int64),
    "scores": tf.VarLenFeature(tf.float32),
    "big": tf.FixedLenFeature([5, 8], tf.float32),
    "bigints": tf.VarLenFeature(tf.int64),
    "opt": tf.FixedLenFeature([], tf.float32, default_value=-1.0),
    "pairs": tf.FixedLenSequenceFeature([2], tf.int64, allow_missing=True, default_value=-7),
    "empty": tf.VarLenFeature(tf.float32),
    "absent": tf.FixedLenFeature([2], tf.int64, default_value=[4, 5]),
}
SINGLE_FEATURES = dict(FEATURES)
SINGLE_FEATURES["pairs"] = tf.FixedLenSequenceFeature([2], tf.int64, allow_missing=True)
SEQ_CONTEXT = {
    "length": tf.FixedLenFeature([], tf.int64),
    "title": tf.FixedLenFeature([], tf.string),
    "ctx_tags": tf.VarLenFeature(tf.string),
    "ctx_missing": tf.FixedLenFeature([2], tf.float32, default_value=[0.5, 1.5]),
}
SEQ_LISTS = {
    "tokens": tf.FixedLenSequenceFeature([], tf.int64),
    "vecs": tf.FixedLenSequenceFeature([2], tf.float32),
    "words": tf.VarLenFeature(tf.string),
    "sometimes": tf.FixedLenSequenceFeature([], tf.float32, allow_missing=True),
}


def assert_same(actual: Any, expected: Any, where: str = "") -> None:
    """Session results against recorded ones (SparseTensorValues recorded as dicts)."""
    if isinstance(actual, tf.SparseTensorValue):
        assert isinstance(expected, dict), where
        reference.assert_close(actual.indices, expected["indices"])
        reference.assert_close(actual.values, expected["values"])
        reference.assert_close(actual.dense_shape, expected["dense_shape"])
        return
    if isinstance(actual, dict):
        assert set(actual) == set(expected), where
        for k in actual:
            assert_same(actual[k], expected[k], f"{where}.{k}")
        return
    if isinstance(actual, list | tuple):
        assert len(actual) == len(expected), where
        for i, (a, e) in enumerate(zip(actual, expected)):
            assert_same(a, e, f"{where}[{i}]")
        return
    reference.assert_close(actual, expected)


def _tf115_name(name: str, scope: str, op: str) -> str:
    """TF 2's compat.v1 names (ParseExampleV2 under the v1 scopes) -> TF 1.15's."""
    tensor_index = name.rsplit(":", 1)[1]
    return f"{scope}/{op}:{tensor_index}"


def _names(value: Any) -> Any:
    if isinstance(value, tf.SparseTensor):
        return [value.indices.name, value.values.name, value.dense_shape.name]
    if isinstance(value, dict):
        return {k: _names(v) for k, v in value.items()}
    return value.name


def _shapes(value: Any) -> Any:
    if isinstance(value, tf.SparseTensor):
        return [str(value.indices.shape), str(value.values.shape), str(value.dense_shape.shape)]
    if isinstance(value, dict):
        return {k: _shapes(v) for k, v in value.items()}
    return str(value.shape)


# ---- Examples ------------------------------------------------------------------------------
def test_parse_example_of_a_file_tensorflow_wrote_gives_tensorflows_values() -> None:
    path = os.path.join(cases.RECORDS_DIR, cases.TF_WRITTEN["GZIP"])
    records = list(tf.python_io.tf_record_iterator(path, "GZIP"))
    with tf.Graph().as_default():
        parsed = tf.parse_example(tf.constant(records), FEATURES)
        with tf.Session() as sess:
            out = sess.run(parsed)
    assert_same(out, case("parse_example_plain")["output"])


def test_fixed_shape_features_alone_take_the_bulk_path_with_tensorflows_values() -> None:
    dense = {k: v for k, v in FEATURES.items() if isinstance(v, tf.FixedLenFeature)}
    recorded = case("parse_example_plain")["output"]
    with tf.Graph().as_default(), tf.Session() as sess:
        out = sess.run(tf.parse_example(tf.constant(examples()), dense))
        assert_same(out, {k: recorded[k] for k in dense})
        some = sess.run(tf.parse_example(tf.constant(examples()[1:4]), dense))
        assert_same(some["opt"], recorded["opt"][1:4])  # missing in 2 of 3: the default


def test_parse_example_names_and_shapes_are_tensorflows() -> None:
    recorded = case("parse_example_graph")
    with tf.Graph().as_default():
        serialized = tf.placeholder(tf.string, [None], name="serialized")
        parsed = tf.parse_example(serialized, FEATURES)
        assert _shapes(parsed) == recorded["shapes"]

        def mapped(value: Any) -> Any:
            if isinstance(value, list):
                return [mapped(v) for v in value]
            if isinstance(value, dict):
                return {k: mapped(v) for k, v in value.items()}
            return _tf115_name(value, "ParseExample", "ParseExample")

        assert _names(parsed) == mapped(recorded["names"])


def test_parse_single_example_gives_tensorflows_values_for_each_record() -> None:
    recorded = case("parse_single_example_graph")
    with tf.Graph().as_default():
        one = tf.placeholder(tf.string, [], name="one")
        parsed = tf.parse_single_example(one, SINGLE_FEATURES)
        assert _shapes(parsed) == recorded["shapes"]
        # TF 1.15's op; the first sparse key in sorted order owns output 0.
        assert _names(parsed)["bigints"][0] == "ParseSingleExample/ParseSingleExample:0"
        with tf.Session() as sess:
            for i, record in enumerate(examples()):
                assert_same(
                    sess.run(parsed, {one: record}), case(f"parse_single_example_{i}")["output"]
                )


def test_parse_single_sequence_example_gives_tensorflows_values() -> None:
    recorded = case("parse_single_sequence_example_graph")
    with tf.Graph().as_default():
        one = tf.placeholder(tf.string, [], name="one")
        ctx, lists = tf.parse_single_sequence_example(one, SEQ_CONTEXT, SEQ_LISTS)
        assert [_shapes(ctx), _shapes(lists)] == recorded["shapes"]
        with tf.Session() as sess:
            for i, record in enumerate(sequences()):
                out = sess.run([ctx, lists], {one: record})
                assert_same(out, case(f"parse_single_sequence_example_{i}")["output"], str(i))


def test_parse_sequence_example_batches_with_lengths_as_tensorflow() -> None:
    recorded = case("parse_sequence_example")
    with tf.Graph().as_default():
        batch = tf.placeholder(tf.string, [None], name="batch")
        ctx, lists, lengths = tf.io.parse_sequence_example(batch, SEQ_CONTEXT, SEQ_LISTS)
        assert [_shapes(ctx), _shapes(lists), _shapes(lengths)] == recorded["shapes"]
        with tf.Session() as sess:
            out = sess.run([ctx, lists, lengths], {batch: sequences()})
    assert_same(out, recorded["output"])


def test_tensorflow_parsed_the_sequences_tfcluster_wrote_as_tfcluster_does() -> None:
    path = os.path.join(cases.RECORDS_DIR, cases.TFCLUSTER_SEQUENCES_FILE)
    recorded = case("tf_reads_tfcluster_sequences")["parsed"]
    with tf.Graph().as_default():
        one = tf.placeholder(tf.string, [])
        parsed = tf.parse_single_sequence_example(one, SEQ_CONTEXT, SEQ_LISTS)
        with tf.Session() as sess:
            for i, record in enumerate(tf.io.tf_record_iterator(path)):
                assert_same(sess.run(list(parsed), {one: record}), recorded[i], str(i))


def test_tensorflow_parsed_the_examples_tfcluster_wrote_as_tfcluster_does() -> None:
    path = os.path.join(cases.RECORDS_DIR, cases.TFCLUSTER_WRITTEN["ZLIB"])
    with tf.Graph().as_default():
        parsed = tf.parse_example(list(tf.io.tf_record_iterator(path, "ZLIB")), FEATURES)
        with tf.Session() as sess:
            assert_same(sess.run(parsed), case("tf_reads_tfcluster_plain")["parsed"])


BAD = {
    "wrong_dtype": {"weights": tf.FixedLenFeature([3], tf.int64)},
    "wrong_shape": {"weights": tf.FixedLenFeature([4], tf.float32)},
    "missing_key": {"nope": tf.FixedLenFeature([], tf.float32)},
    "varlen_wrong_dtype": {"tags": tf.VarLenFeature(tf.int64)},
    "sequence_not_multiple": {"weights": tf.FixedLenSequenceFeature([2], tf.float32, True)},
}


@pytest.mark.parametrize("name", sorted(BAD))
def test_bad_examples_raise_tensorflows_error_and_the_session_keeps_working(name: str) -> None:
    feats = BAD[name]
    good = {"label": tf.FixedLenFeature([], tf.int64)}
    with tf.Graph().as_default():
        batch = tf.constant(examples()[:2])
        bad_batch = tf.parse_example(batch, feats)
        bad_one = tf.parse_single_example(tf.constant(examples()[1]), feats)
        ok = tf.parse_example(batch, good)
        with tf.Session() as sess:
            for fetch, recorded in (
                (bad_batch, case(f"bad_parse_example_{name}")),
                (bad_one, case(f"bad_parse_single_example_{name}")),
            ):
                with pytest.raises(tf.errors.InvalidArgumentError) as e:
                    sess.run(fetch)
                assert type(e.value).__name__ == reference.error_class(recorded["error"])
                if fetch is bad_batch:  # the batched kernel's messages are TF's verbatim
                    assert recorded["error"]["message"] in str(e.value)
                assert sess.run(ok)["label"].tolist() == [0, 1]


def test_a_record_that_is_not_an_example_is_invalid_argument() -> None:
    recorded = case("bad_parse_not_a_proto")["error"]
    with tf.Graph().as_default(), tf.Session() as sess:
        with pytest.raises(tf.errors.InvalidArgumentError) as e:
            sess.run(tf.parse_example(tf.constant([b"garbage"]), FEATURES))
        assert recorded["message"] in str(e.value)


def test_a_missing_feature_list_is_invalid_argument() -> None:
    recorded = case("bad_sequence_missing_list")["error"]
    with tf.Graph().as_default(), tf.Session() as sess:
        fetch = tf.parse_single_sequence_example(
            tf.constant(sequences()[0]),
            None,
            {"sometimes": tf.FixedLenSequenceFeature([], tf.float32)},
        )
        with pytest.raises(tf.errors.InvalidArgumentError) as e:
            sess.run(fetch)
        assert recorded["message"] in str(e.value)


@pytest.mark.parametrize(
    "name, build",
    [
        (
            "fixed_first_dim_unknown",
            lambda s: tf.parse_example(s, {"x": tf.FixedLenFeature([None], tf.float32)}),
        ),
        (
            "sequence_without_allow_missing",
            lambda s: tf.parse_example(s, {"x": tf.FixedLenSequenceFeature([], tf.float32)}),
        ),
        ("int32_feature", lambda s: tf.parse_example(s, {"x": tf.FixedLenFeature([], tf.int32)})),
        ("no_features", lambda s: tf.parse_example(s, {})),
    ],
)
def test_bad_feature_configs_fail_at_graph_construction_as_tensorflow(
    name: str, build: Any
) -> None:
    recorded = case(f"bad_graph_{name}")["error"]
    with tf.Graph().as_default(), pytest.raises(Exception) as e:
        build(tf.constant(examples()))
    assert type(e.value).__name__ == reference.error_class(recorded)
    if name != "no_features":  # TF 2 rewords this one
        assert str(e.value).split(" Received")[0] in recorded["message"]


def test_varlen_feature_fetches_and_feeds_as_sparse_tensor_value() -> None:
    with tf.Graph().as_default(), tf.Session() as sess:
        parsed = tf.parse_single_example(
            tf.constant(examples()[2]), {"ids": tf.VarLenFeature(tf.int64)}
        )
        value = sess.run(parsed["ids"])
        assert isinstance(value, tf.SparseTensorValue)
        assert value.values.tolist() == [-5, 5] and value.dense_shape.tolist() == [2]
        st = tf.SparseTensor([[0, 1]], [2.5], [3, 4])
        assert st.shape.as_list() == [3, 4] and st.dtype == tf.float32
        assert st.eval(session=sess).indices.tolist() == [[0, 1]]
        doubled = st.values * 2
        assert sess.run(doubled, {st: ([[1, 1]], [4.0], [3, 4])}).tolist() == [8.0]


# ---- decode_raw, decode_csv, string_to_number, decode_compressed, serialized tensors ----------
def test_decode_raw_as_tensorflow() -> None:
    recorded = case("decode_raw")
    raw = list(recorded["input"])
    with tf.Graph().as_default(), tf.Session() as sess:
        out = sess.run(
            {
                "uint8": tf.decode_raw(raw, tf.uint8),
                "int16_le": tf.decode_raw(raw, tf.int16),
                "int16_be": tf.decode_raw(raw, tf.int16, little_endian=False),
                "float32": tf.io.decode_raw(raw, tf.float32),
                "float64_be": tf.decode_raw(raw, tf.float64, little_endian=False),
                "int64_scalar": tf.decode_raw(raw[0], tf.int64),
            }
        )
        for k, v in out.items():
            reference.assert_close(v, recorded[k])
        for name, fetch in (
            ("decode_raw_uneven", tf.decode_raw(tf.constant([b"abcd", b"abcdef"]), tf.int16)),
            ("decode_raw_not_multiple", tf.decode_raw(tf.constant(b"abc"), tf.int16)),
        ):
            with pytest.raises(tf.errors.InvalidArgumentError) as e:
                sess.run(fetch)
            assert case(name)["error"]["message"] in str(e.value)


def test_decode_csv_as_tensorflow() -> None:
    records = list(case("decode_csv")["records"])
    with tf.Graph().as_default(), tf.Session() as sess:
        defaults = [[0], [0.0], ["dflt"], tf.constant([-1], tf.int64)]
        assert_same(
            sess.run(tf.decode_csv(records, defaults, na_value="NA")), case("decode_csv")["output"]
        )
        assert_same(
            sess.run(tf.decode_csv(records, [[0.0], [""]], select_cols=[1, 2])),
            case("decode_csv_select_cols")["output"],
        )
        tsv = list(case("decode_csv_tab")["records"])
        assert_same(
            sess.run(tf.io.decode_csv(tsv, [[""], ["z"], [0]], field_delim="\t")),
            case("decode_csv_tab")["output"],
        )
        noquote = list(case("decode_csv_no_quote_delim")["records"])
        assert_same(
            sess.run(tf.decode_csv(noquote, [[""], [""]], use_quote_delim=False)),
            case("decode_csv_no_quote_delim")["output"],
        )
        matrix = [list(r) for r in case("decode_csv_2d")["records"]]
        assert_same(sess.run(tf.decode_csv(matrix, [[0], [0.0]])), case("decode_csv_2d")["output"])


CSV_ERRORS = {
    "too_few_fields": (["1,2"], [[0], [0], [0]]),
    "too_many_fields": (["1,2,3"], [[0], [0]]),
    "required_missing": (["1,"], [[0], "empty_int32"]),
    "not_a_number": (["1,x"], [[0], [0.0]]),
    "not_an_int": (["1.5"], [[0]]),
    "int32_overflow": (["3000000000"], [[0]]),
    "bad_quotes": (['"a"b,c'], [[""], [""]]),
    "quote_in_unquoted": (['a"b,c'], [[""], [""]]),
}


@pytest.mark.parametrize("name", sorted(CSV_ERRORS))
def test_bad_csv_is_invalid_argument_and_the_session_keeps_working(name: str) -> None:
    records, defaults = CSV_ERRORS[name]
    recorded = case(f"decode_csv_{name}")["error"]
    with tf.Graph().as_default(), tf.Session() as sess:
        defaults = [tf.constant([], tf.int32) if d == "empty_int32" else d for d in defaults]
        with pytest.raises(tf.errors.InvalidArgumentError) as e:
            sess.run(tf.decode_csv(tf.constant(records), defaults))
        assert type(e.value).__name__ == reference.error_class(recorded)
        assert recorded["message"] in str(e.value)
        assert sess.run(tf.decode_csv(["5"], [[0]]))[0].tolist() == [5]


def test_string_to_number_as_tensorflow() -> None:
    recorded = case("string_to_number")
    numbers = list(recorded["input"])
    with tf.Graph().as_default(), tf.Session() as sess:
        reference.assert_close(sess.run(tf.string_to_number(numbers)), recorded["float32"])
        reference.assert_close(
            sess.run(tf.string_to_number(numbers, tf.float64)), recorded["float64"]
        )
        reference.assert_close(
            sess.run(tf.string_to_number([b"12", b"-7", b"2147483647"], tf.int32)),
            recorded["int32"],
        )
        reference.assert_close(
            sess.run(tf.string_to_number([[b"9007199254740993"]], out_type=tf.int64)),
            recorded["int64"],
        )
        for name, args in {
            "not_a_number": (["1.5", "abc"], tf.float32),
            "fraction_to_int": (["1.5"], tf.int32),
            "int32_overflow": (["2147483648"], tf.int32),
            "empty": ([""], tf.float32),
        }.items():
            with pytest.raises(tf.errors.InvalidArgumentError) as e:
                sess.run(tf.string_to_number(tf.constant(args[0]), args[1]))
            assert case(f"string_to_number_{name}")["error"]["message"] in str(e.value)


def test_decode_compressed_as_tensorflow() -> None:
    recorded = case("decode_compressed")
    with tf.Graph().as_default(), tf.Session() as sess:
        for key, kind in (("gzip", "GZIP"), ("zlib", "ZLIB")):
            out = sess.run(tf.io.decode_compressed(list(recorded[key]), kind))
            assert out.tolist() == list(recorded[f"from_{key}"]) == list(recorded["texts"])
        assert sess.run(tf.decode_compressed(list(recorded["texts"]))).tolist() == list(
            recorded["plain"]
        )
        with pytest.raises(tf.errors.DataLossError):
            sess.run(tf.io.decode_compressed(tf.constant([b"not gzip"]), "GZIP"))
    assert reference.error_class(case("decode_compressed_corrupt")["error"]) == "DataLossError"


def test_parse_tensor_reads_what_tensorflow_serialized_and_round_trips_ours() -> None:
    recorded = case("serialize_tensor")
    with tf.Graph().as_default(), tf.Session() as sess:
        for key, value in recorded["values"].items():
            dtype = tf.string if value.dtype == object else tf.as_dtype(value.dtype)
            theirs = sess.run(tf.io.parse_tensor(recorded["serialized"][key], dtype))
            reference.assert_close(theirs, value)
            reference.assert_close(theirs, case("parse_tensor")["values"][key])
            ours = tf.io.serialize_tensor(tf.constant(value))
            reference.assert_close(sess.run(tf.parse_tensor(ours, dtype)), value)
        with pytest.raises(tf.errors.InvalidArgumentError) as e:
            sess.run(tf.parse_tensor(tf.constant(recorded["serialized"]["float32"]), tf.int32))
        assert case("parse_tensor_wrong_type")["error"]["message"] in str(e.value)
