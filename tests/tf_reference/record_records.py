"""TensorFlow writes TFRecord files (plain, GZIP, ZLIB) of Examples with every feature kind
and of SequenceExamples, a corrupt and a truncated file, into data/records/, and records how
it reads and parses them; it also reads back the files tfcluster wrote
(tfcluster_records.py) and records what it finds there. Plus decode_raw, decode_csv,
string_to_number, decode_compressed and serialize_tensor cases, and the error classes of bad
input.

TF 2.x's compat.v1 parses with ParseExampleV2 for both parse_example and
parse_single_example; TF 1.15 (what tfcluster follows) used ParseExample and
ParseSingleExample: tests map the recorded tensor names accordingly.
"""

from __future__ import annotations

import gzip
import os
import zlib

import numpy as np
import records_cases as cases
import tensorflow.compat.v1 as tf
from recorder import Recorder
from tfcluster_records import example, sequence_example

tf.disable_v2_behavior()
rec = Recorder("records")
os.makedirs(cases.RECORDS_DIR, exist_ok=True)


def path(name: str) -> str:
    return os.path.join(cases.RECORDS_DIR, name)


def run(fetches, feed=None):  # type: ignore[no-untyped-def]
    with tf.Session() as sess:
        return sess.run(fetches, feed)


def core(e):  # type: ignore[no-untyped-def]
    """The error with TF 2's graph-execution wrapping (node, stack traces) taken off its
    message, so what is recorded is the kernel's own message."""
    if not isinstance(e, tf.errors.OpError):
        return e
    text = e.message
    if "Node: '" in text:
        text = text.split("Node: '", 1)[1].split("\n", 1)[1]
    text = text.split("\n\t [[", 1)[0].split("\n\nOriginal stack trace", 1)[0]
    return type(e)(None, None, text.strip())


def run_error(build):  # type: ignore[no-untyped-def]
    with tf.Graph().as_default():
        fetches = build()
        with tf.Session() as sess:
            return core(rec.catch(lambda: sess.run(fetches)))


def same(a, b) -> bool:  # type: ignore[no-untyped-def]
    """Deep equality of session results (arrays compared by value)."""
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list | tuple):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    return bool(np.array_equal(np.asarray(a), np.asarray(b)))


def plain(value):  # type: ignore[no-untyped-def]
    """Session results as recordable values (SparseTensorValue -> 3 arrays)."""
    if isinstance(value, tf.SparseTensorValue):
        return {"indices": value.indices, "values": value.values, "dense_shape": value.dense_shape}
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [plain(v) for v in value]
    return value


def names(value):  # type: ignore[no-untyped-def]
    if isinstance(value, tf.SparseTensor):
        return [value.indices.name, value.values.name, value.dense_shape.name]
    if isinstance(value, dict):
        return {k: names(v) for k, v in value.items()}
    return value.name


# ---- files TensorFlow writes -----------------------------------------------------------------
examples = [example(tf.train, cases.example_features(i)) for i in range(cases.NUM_EXAMPLES)]
sequences = [
    sequence_example(tf.train, *cases.sequence_features(i)) for i in range(cases.NUM_SEQUENCES)
]
for kind, name in cases.TF_WRITTEN.items():
    with tf.python_io.TFRecordWriter(path(name), tf.python_io.TFRecordOptions(kind)) as w:
        for r in examples:
            w.write(r)
    read = list(tf.python_io.tf_record_iterator(path(name), tf.python_io.TFRecordOptions(kind)))
    if kind:
        rec.add(f"iterate_{kind}", same_as_plain=read == examples, count=len(read))
    else:
        rec.add("iterate_plain", records=read)
with tf.io.TFRecordWriter(path(cases.SEQUENCES_FILE)) as w:
    for r in sequences:
        w.write(r)
rec.add("iterate_sequences", records=list(tf.io.tf_record_iterator(path(cases.SEQUENCES_FILE))))

with open(path(cases.TF_WRITTEN[""]), "rb") as f:
    whole = f.read()
corrupt = bytearray(whole)
second = 16 + len(examples[0])
corrupt[second + 12 + 5] ^= 0x10  # a data byte of the second record
with open(path(cases.CORRUPT_FILE), "wb") as f:
    f.write(bytes(corrupt))
with open(path(cases.TRUNCATED_FILE), "wb") as f:
    f.write(whole[: second + 12 + 7])


def read_all(name: str) -> list[bytes]:
    out = []
    for r in tf.python_io.tf_record_iterator(path(name)):
        out.append(r)
    return out


rec.add(
    "corrupt_record",
    error=rec.catch(lambda: read_all(cases.CORRUPT_FILE)),
    offset=second + 12,
)
rec.add("truncated_file", error=rec.catch(lambda: read_all(cases.TRUNCATED_FILE)), offset=second)
rec.add("missing_file", error=core(rec.catch(lambda: read_all("no-such-file.tfrecord"))))
rec.add(
    "compression_strings",
    values=[
        tf.python_io.TFRecordOptions.get_compression_type_string(o)
        for o in (
            None,
            "",
            "GZIP",
            "ZLIB",
            tf.python_io.TFRecordCompressionType.GZIP,
            tf.python_io.TFRecordCompressionType.ZLIB,
            tf.python_io.TFRecordCompressionType.NONE,
            tf.python_io.TFRecordOptions(tf.python_io.TFRecordCompressionType.ZLIB),
        )
    ],
)
rec.add("bad_compression", error=rec.catch(lambda: tf.python_io.TFRecordOptions("LZ4")))

# ---- Example parsing -------------------------------------------------------------------------
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


def shapes(value):  # type: ignore[no-untyped-def]
    if isinstance(value, tf.SparseTensor):
        return [str(value.indices.shape), str(value.values.shape), str(value.dense_shape.shape)]
    if isinstance(value, dict):
        return {k: shapes(v) for k, v in value.items()}
    return str(value.shape)


parsed_plain = None
for kind, name in cases.TF_WRITTEN.items():
    with tf.Graph().as_default():
        ds = tf.data.TFRecordDataset(path(name), compression_type=kind)
        batch = tf.data.make_one_shot_iterator(ds.batch(cases.NUM_EXAMPLES)).get_next()
        output = plain(run(tf.parse_example(batch, FEATURES)))
    if kind:
        rec.add(f"parse_example_{kind}", same_as_plain=same(output, parsed_plain))
    else:
        parsed_plain = output
        rec.add("parse_example_plain", output=output)

with tf.Graph().as_default():
    serialized = tf.placeholder(tf.string, [None], name="serialized")
    parsed = tf.parse_example(serialized, FEATURES)
    rec.add("parse_example_graph", names=names(parsed), shapes=shapes(parsed))
    one = tf.placeholder(tf.string, [], name="one")
    parsed_one = tf.parse_single_example(one, SINGLE_FEATURES)
    rec.add("parse_single_example_graph", names=names(parsed_one), shapes=shapes(parsed_one))
    for i, r in enumerate(examples):
        rec.add(f"parse_single_example_{i}", output=plain(run(parsed_one, {one: r})))

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
with tf.Graph().as_default():
    one = tf.placeholder(tf.string, [], name="one")
    ctx, lists = tf.parse_single_sequence_example(one, SEQ_CONTEXT, SEQ_LISTS)
    rec.add(
        "parse_single_sequence_example_graph",
        names=[names(ctx), names(lists)],
        shapes=[shapes(ctx), shapes(lists)],
    )
    for i, r in enumerate(sequences):
        rec.add(f"parse_single_sequence_example_{i}", output=plain(run([ctx, lists], {one: r})))
    batch = tf.placeholder(tf.string, [None], name="batch")
    bctx, blists, blengths = tf.io.parse_sequence_example(batch, SEQ_CONTEXT, SEQ_LISTS)
    rec.add(
        "parse_sequence_example",
        output=plain(run([bctx, blists, blengths], {batch: sequences})),
        shapes=[shapes(bctx), shapes(blists), shapes(blengths)],
    )

# ---- bad Examples ---------------------------------------------------------------------------
BAD = {
    "wrong_dtype": {"weights": tf.FixedLenFeature([3], tf.int64)},
    "wrong_shape": {"weights": tf.FixedLenFeature([4], tf.float32)},
    "missing_key": {"nope": tf.FixedLenFeature([], tf.float32)},
    "varlen_wrong_dtype": {"tags": tf.VarLenFeature(tf.int64)},
    "sequence_not_multiple": {"weights": tf.FixedLenSequenceFeature([2], tf.float32, True)},
}
for case, feats in BAD.items():
    err = run_error(lambda feats=feats: tf.parse_example(tf.constant(examples[:2]), feats))
    rec.add(f"bad_parse_example_{case}", error=err)
    err = run_error(lambda feats=feats: tf.parse_single_example(tf.constant(examples[1]), feats))
    rec.add(f"bad_parse_single_example_{case}", error=err)
rec.add(
    "bad_parse_not_a_proto",
    error=run_error(lambda: tf.parse_example(tf.constant([b"garbage"]), FEATURES)),
)
rec.add(
    "bad_sequence_missing_list",
    error=run_error(
        lambda: tf.parse_single_sequence_example(
            tf.constant(sequences[0]),
            None,
            {"sometimes": tf.FixedLenSequenceFeature([], tf.float32)},
        )
    ),
)
for case, build in {
    "fixed_first_dim_unknown": lambda: tf.parse_example(
        tf.constant(examples), {"x": tf.FixedLenFeature([None], tf.float32)}
    ),
    "sequence_without_allow_missing": lambda: tf.parse_example(
        tf.constant(examples), {"x": tf.FixedLenSequenceFeature([], tf.float32)}
    ),
    "int32_feature": lambda: tf.parse_example(
        tf.constant(examples), {"x": tf.FixedLenFeature([], tf.int32)}
    ),
    "no_features": lambda: tf.parse_example(tf.constant(examples), {}),
}.items():
    with tf.Graph().as_default():
        rec.add(f"bad_graph_{case}", error=rec.catch(build))


# ---- tfcluster's files, read by TensorFlow -----------------------------------------------------
def feature_lists(record: bytes) -> dict:
    """An Example's features as name -> [kind, values], as TensorFlow reads them."""
    out = {}
    for k, f in tf.train.Example.FromString(record).features.feature.items():
        kind = f.WhichOneof("kind")
        values = list(getattr(f, kind).value) if kind else []
        out[k] = [kind or "", np.asarray(values) if kind != "bytes_list" else values]
    return out


tfcluster_plain = None
for kind, name in cases.TFCLUSTER_WRITTEN.items():
    p = path(name)
    if not os.path.exists(p):
        raise SystemExit(f"{p} is missing: run tests/tf_reference/tfcluster_records.py first")
    read = list(tf.python_io.tf_record_iterator(p, tf.python_io.TFRecordOptions(kind)))
    with tf.Graph().as_default():
        parsed = plain(run(tf.parse_example(tf.constant(read), FEATURES)))
    if kind:
        rec.add(
            f"tf_reads_tfcluster_{kind}",
            same_as_plain=read == tfcluster_plain[0] and same(parsed, tfcluster_plain[1]),
            count=len(read),
        )
    else:
        tfcluster_plain = (read, parsed)
        rec.add(
            "tf_reads_tfcluster_plain",
            parsed=parsed,
            features=[feature_lists(r) for r in read],
        )
read = list(tf.io.tf_record_iterator(path(cases.TFCLUSTER_SEQUENCES_FILE)))
with tf.Graph().as_default():
    one = tf.placeholder(tf.string, [])
    parsed_seq = tf.parse_single_sequence_example(one, SEQ_CONTEXT, SEQ_LISTS)
    rec.add(
        "tf_reads_tfcluster_sequences",
        count=len(read),
        parsed=[plain(run(list(parsed_seq), {one: r})) for r in read],
    )

# ---- decode_raw, decode_csv, string_to_number, decode_compressed, serialize_tensor -------------
raw = [bytes(range(i, i + 8)) for i in range(3)]
with tf.Graph().as_default():
    rec.add(
        "decode_raw",
        input=raw,
        uint8=run(tf.decode_raw(raw, tf.uint8)),
        int16_le=run(tf.decode_raw(raw, tf.int16)),
        int16_be=run(tf.decode_raw(raw, tf.int16, little_endian=False)),
        float32=run(tf.io.decode_raw(raw, tf.float32)),
        float64_be=run(tf.decode_raw(raw, tf.float64, little_endian=False)),
        int64_scalar=run(tf.decode_raw(raw[0], tf.int64)),
    )
rec.add(
    "decode_raw_uneven",
    error=run_error(lambda: tf.decode_raw(tf.constant([b"abcd", b"abcdef"]), tf.int16)),
)
rec.add(
    "decode_raw_not_multiple", error=run_error(lambda: tf.decode_raw(tf.constant(b"abc"), tf.int16))
)

CSV = [b"1,2.5,hello,7", b',,"quoted, with comma",', b'3,-1e3,"say ""hi""",NA', b"4,0.125,,8"]
with tf.Graph().as_default():
    defaults = [[0], [0.0], ["dflt"], tf.constant([-1], tf.int64)]
    rec.add("decode_csv", records=CSV, output=run(tf.decode_csv(CSV, defaults, na_value="NA")))
    rec.add(
        "decode_csv_select_cols",
        output=run(tf.decode_csv(CSV, [[0.0], [""]], select_cols=[1, 2])),
    )
    tsv = [b"a\tb\t1", b"c\t\t2"]
    rec.add(
        "decode_csv_tab",
        records=tsv,
        output=run(tf.io.decode_csv(tsv, [[""], ["z"], [0]], field_delim="\t")),
    )
    noquote = [b'"a",b', b'c,"d"']
    rec.add(
        "decode_csv_no_quote_delim",
        records=noquote,
        output=run(tf.decode_csv(noquote, [[""], [""]], use_quote_delim=False)),
    )
    matrix = [[b"1,2", b"3,4"], [b"5,6", b"7,8"]]
    rec.add("decode_csv_2d", records=matrix, output=run(tf.decode_csv(matrix, [[0], [0.0]])))
for case, build in {
    "too_few_fields": lambda: tf.decode_csv(tf.constant(["1,2"]), [[0], [0], [0]]),
    "too_many_fields": lambda: tf.decode_csv(tf.constant(["1,2,3"]), [[0], [0]]),
    "required_missing": lambda: tf.decode_csv(
        tf.constant(["1,"]), [[0], tf.constant([], tf.int32)]
    ),
    "not_a_number": lambda: tf.decode_csv(tf.constant(["1,x"]), [[0], [0.0]]),
    "not_an_int": lambda: tf.decode_csv(tf.constant(["1.5"]), [[0]]),
    "int32_overflow": lambda: tf.decode_csv(tf.constant(["3000000000"]), [[0]]),
    "bad_quotes": lambda: tf.decode_csv(tf.constant(['"a"b,c']), [[""], [""]]),
    "quote_in_unquoted": lambda: tf.decode_csv(tf.constant(['a"b,c']), [[""], [""]]),
}.items():
    rec.add(f"decode_csv_{case}", error=run_error(build))

numbers = [b"1.5", b"-2", b"3e2", b" 4 ", b"inf"]
with tf.Graph().as_default():
    rec.add(
        "string_to_number",
        input=numbers,
        float32=run(tf.string_to_number(numbers)),
        float64=run(tf.strings.to_number(numbers, tf.float64)),
        int32=run(tf.string_to_number([b"12", b"-7", b"2147483647"], tf.int32)),
        int64=run(tf.string_to_number([[b"9007199254740993"]], out_type=tf.int64)),
    )
for case, build in {
    "not_a_number": lambda: tf.string_to_number(tf.constant(["1.5", "abc"])),
    "fraction_to_int": lambda: tf.string_to_number(tf.constant(["1.5"]), tf.int32),
    "int32_overflow": lambda: tf.string_to_number(tf.constant(["2147483648"]), tf.int32),
    "empty": lambda: tf.string_to_number(tf.constant([""])),
}.items():
    rec.add(f"string_to_number_{case}", error=run_error(build))

texts = [b"hello hello hello", b"", bytes(range(256)) * 3]
gz = [gzip.compress(t, mtime=0) for t in texts]
zl = [zlib.compress(t) for t in texts]
with tf.Graph().as_default():
    rec.add(
        "decode_compressed",
        texts=texts,
        gzip=gz,
        zlib=zl,
        from_gzip=run(tf.io.decode_compressed(gz, "GZIP")),
        from_zlib=run(tf.decode_compressed(zl, compression_type="ZLIB")),
        plain=run(tf.decode_compressed(texts)),
    )
rec.add(
    "decode_compressed_corrupt",
    error=run_error(lambda: tf.io.decode_compressed(tf.constant([b"not gzip"]), "GZIP")),
)

values = {
    "float32": np.arange(6, dtype=np.float32).reshape(2, 3) / 4,
    "int64": np.array([1, -2, 2**40], dtype=np.int64),
    "int32_scalar": np.array(7, dtype=np.int32),
    "string": np.array([[b"a", b"bc"]], dtype=object),
    "bool": np.array([True, False]),
    "uint8": np.arange(5, dtype=np.uint8),
}
with tf.Graph().as_default():
    serialized = {k: run(tf.io.serialize_tensor(tf.constant(v))) for k, v in values.items()}
    rec.add("serialize_tensor", values=values, serialized=serialized)
    back = {
        k: run(
            tf.io.parse_tensor(
                serialized[k], tf.as_dtype(v.dtype if v.dtype != object else tf.string)
            )
        )
        for k, v in values.items()
    }
    rec.add("parse_tensor", values=back)
rec.add(
    "parse_tensor_wrong_type",
    error=run_error(lambda: tf.parse_tensor(tf.constant(serialized["float32"]), tf.int32)),
)

rec.save()
