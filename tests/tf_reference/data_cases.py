"""tf.data reference cases, built the same way by TensorFlow (record_data.py) and by
tfcluster (tests/unit/test_data_tf_reference.py): each builder takes the `tf` module and
returns what to read. Inputs are fixed here (plain Python / numpy), files are written by
`write_files` (plain Python) or are the TFRecord files TensorFlow wrote (records_cases).

A case is `Case(name, build, order)`: `build(tf, files)` returns a Dataset (all its elements
are read with a one-shot iterator), or a dict with `elements` (a tensor structure read until
OutOfRange), optionally `init` (an op run first) and `feed`. `order` says how to compare:
"exact", "multiset" (a seeded shuffle: TF's Philox order is not reproduced) or "epochs:N"
(each run of N elements is a permutation of the same multiset).
"""

from __future__ import annotations

import gzip
import os
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

try:
    from tf_reference import records_cases
except ImportError:  # the recorder runs from this folder, in TensorFlow's venv
    import records_cases  # type: ignore[no-redef]

# (A plain alias: this module runs on Python 3.7 too, under TensorFlow 1.15.)
Build = Callable


@dataclass(frozen=True)
class Case:
    name: str
    build: Build
    order: str = "exact"


def write_files(directory: str) -> dict[str, str]:
    """Text and binary files the reader cases read; name -> path."""
    os.makedirs(directory, exist_ok=True)
    files = {}

    def put(name: str, data: bytes) -> None:
        path = os.path.join(directory, name)
        with open(path, "wb") as f:
            f.write(data)
        files[name] = path

    put("lines.txt", b"first\nsecond line\r\n\nlast without newline")
    put("lines2.txt", b"alpha\nbeta\n")
    put("lines.txt.gz", gzip.compress(b"one\ntwo\nthree\n"))
    put("fixed.bin", b"HDR" + bytes(range(20)) + b"FT")
    put("fixed2.bin", b"hdr" + bytes(range(100, 112)) + b"ft")
    put("fixed_bad.bin", b"hdr" + bytes(range(7)) + b"ft")
    put("a.csv", b'name,x,y,label\nann,1,2.5,0\nbob,,-1.5,1\n"c, d",3,0.25,1\n')
    put("b.csv", b"name,x,y,label\neve,4,1e3,0\n")
    for name in ("b.csv", "a.csv", "c.txt"):
        put(f"match_{name}", b"x")
    for kind, name in records_cases.TF_WRITTEN.items():
        files[f"tfrecord{kind}"] = os.path.join(records_cases.RECORDS_DIR, name)
    files["corrupt"] = os.path.join(records_cases.RECORDS_DIR, records_cases.CORRUPT_FILE)
    files["dir"] = directory
    return files


FEATURES_SPEC = {"label": ("fixed", [], "int64"), "weights": ("fixed", [3], "float32")}


def features(tf: Any) -> dict[str, Any]:
    return {
        "label": tf.FixedLenFeature([], tf.int64),
        "weights": tf.FixedLenFeature([3], tf.float32),
        "tags": tf.VarLenFeature(tf.string),
    }


X = np.arange(12, dtype=np.float32).reshape(6, 2)
Y = np.array([3, 1, 4, 1, 5, 9], dtype=np.int64)
WORDS = [b"a", b"bb", b"ccc", b"dddd", b"eeeee", b"ffffff"]


def _gen(n: int) -> Any:
    def gen() -> Any:
        for i in range(n):
            yield i, [float(i)] * i

    return gen


def _gen_args(start: Any, n: Any) -> Any:
    for i in range(int(start), int(start) + int(n)):
        yield {"v": i}


def _initializable(tf: Any, files: dict[str, str]) -> dict[str, Any]:
    limit = tf.placeholder(tf.int64, [], name="limit")
    it = tf.data.Dataset.range(limit).map(lambda x: x * 10).make_initializable_iterator()
    return {"elements": it.get_next(), "init": it.initializer, "feed": {limit: 4}}


def _reinitializable(tf: Any, files: dict[str, str]) -> dict[str, Any]:
    it = tf.data.Iterator.from_structure(tf.int64, tf.TensorShape([]))
    a = it.make_initializer(tf.data.Dataset.range(3))
    b = it.make_initializer(tf.data.Dataset.range(10, 12))
    return {"elements": it.get_next(), "init": [a], "then": b}


def _feedable(tf: Any, files: dict[str, str]) -> dict[str, Any]:
    one = tf.data.Dataset.range(3).make_one_shot_iterator()
    two = tf.data.Dataset.range(100, 103).make_initializable_iterator()
    handle = tf.placeholder(tf.string, [])
    it = tf.data.Iterator.from_string_handle(handle, one.output_types, one.output_shapes)
    return {"feedable": (it.get_next(), handle, one, two)}


CASES: list[Case] = [
    # ---- sources
    Case("from_tensor_slices_tuple", lambda tf, f: tf.data.Dataset.from_tensor_slices((X, Y))),
    Case(
        "from_tensor_slices_dict",
        lambda tf, f: tf.data.Dataset.from_tensor_slices({"x": X, "y": Y, "w": WORDS}),
    ),
    Case(
        "from_tensor_slices_nested",
        lambda tf, f: tf.data.Dataset.from_tensor_slices(((X, {"y": Y}), WORDS)),
    ),
    Case(
        "from_tensor_slices_list",
        lambda tf, f: tf.data.Dataset.from_tensor_slices([[1, 2], [3, 4]]),
    ),
    Case("from_tensors", lambda tf, f: tf.data.Dataset.from_tensors((X, Y, b"s"))),
    Case(
        "from_tensor_slices_sparse",
        lambda tf, f: tf.data.Dataset.from_tensor_slices(
            tf.SparseTensor([[0, 0], [1, 1], [1, 3], [3, 2]], [1.0, 2.0, 3.0, 4.0], [4, 5])
        ),
    ),
    Case(
        "from_sparse_tensor_slices",
        lambda tf, f: tf.data.Dataset.from_sparse_tensor_slices(
            tf.SparseTensor([[0, 0], [1, 1], [1, 3], [3, 2]], [1, 2, 3, 4], [4, 5])
        ),
    ),
    Case("range_stop", lambda tf, f: tf.data.Dataset.range(5)),
    Case("range_start_stop", lambda tf, f: tf.data.Dataset.range(2, 6)),
    Case("range_step", lambda tf, f: tf.data.Dataset.range(10, 0, -3)),
    Case("range_empty", lambda tf, f: tf.data.Dataset.range(5, 2)),
    Case(
        "zip_nested",
        lambda tf, f: tf.data.Dataset.zip(
            (tf.data.Dataset.range(4), {"w": tf.data.Dataset.from_tensor_slices(WORDS)})
        ),
    ),
    Case(
        "concatenate",
        lambda tf, f: tf.data.Dataset.range(3).concatenate(tf.data.Dataset.range(7, 9)),
    ),
    Case(
        "from_generator",
        lambda tf, f: tf.data.Dataset.from_generator(
            _gen(4), (tf.int64, tf.float32), (tf.TensorShape([]), tf.TensorShape([None]))
        ),
    ),
    Case(
        "from_generator_args",
        lambda tf, f: tf.data.Dataset.from_generator(
            _gen_args, {"v": tf.int32}, {"v": tf.TensorShape([])}, args=(5, 3)
        ),
    ),
    Case(
        "list_files_sorted",
        lambda tf, f: tf.data.Dataset.list_files(
            os.path.join(f["dir"], "match_*.csv"), shuffle=False
        ),
    ),
    # ---- transformations
    Case("repeat_3", lambda tf, f: tf.data.Dataset.range(3).repeat(3)),
    Case("repeat_empty_forever", lambda tf, f: tf.data.Dataset.range(0).repeat()),
    Case("take_skip", lambda tf, f: tf.data.Dataset.range(10).skip(2).take(5)),
    Case(
        "take_all_skip_all",
        lambda tf, f: (
            tf.data.Dataset.range(4).take(-1).concatenate(tf.data.Dataset.range(4).skip(-1))
        ),
    ),
    Case("shard", lambda tf, f: tf.data.Dataset.range(11).shard(3, 2)),
    Case("batch", lambda tf, f: tf.data.Dataset.from_tensor_slices((X, WORDS)).batch(4)),
    Case(
        "batch_drop_remainder",
        lambda tf, f: tf.data.Dataset.range(10).batch(4, drop_remainder=True),
    ),
    Case(
        "batch_sparse",
        lambda tf, f: tf.data.Dataset.from_tensor_slices(
            tf.SparseTensor([[0, 0], [1, 1], [1, 3], [3, 2]], [1.0, 2.0, 3.0, 4.0], [4, 5])
        ).batch(3),
    ),
    Case(
        "padded_batch",
        lambda tf, f: (
            tf.data.Dataset.range(1, 6)
            .map(lambda x: (tf.fill([x], x), tf.fill([2, x], tf.cast(x, tf.float32))))
            .padded_batch(2, padded_shapes=([None], [2, 6]), padding_values=(np.int64(-1), 0.5))
        ),
    ),
    Case(
        "padded_batch_strings",
        lambda tf, f: (
            tf.data.Dataset.range(1, 4)
            .map(lambda x: tf.fill([x], "s"))
            .padded_batch(2, padded_shapes=[3])
        ),
    ),
    Case("shuffle_seeded", lambda tf, f: tf.data.Dataset.range(20).shuffle(7, seed=5), "multiset"),
    Case(
        "shuffle_reshuffle_epochs",
        lambda tf, f: tf.data.Dataset.range(8).shuffle(8, seed=1).repeat(3),
        "epochs:8",
    ),
    Case(
        "map_tuple_args",
        lambda tf, f: tf.data.Dataset.from_tensor_slices((X, Y)).map(
            lambda x, y: (tf.reduce_sum(x), y * 2, "k")
        ),
    ),
    Case(
        "map_dict",
        lambda tf, f: tf.data.Dataset.from_tensor_slices({"x": X, "y": Y}).map(
            lambda d: {"s": d["x"][0] + tf.cast(d["y"], tf.float32)}
        ),
    ),
    Case("map_list_return", lambda tf, f: tf.data.Dataset.range(3).map(lambda x: [x, x + 1])),
    Case(
        "map_parallel",
        lambda tf, f: tf.data.Dataset.range(40).map(lambda x: x * x, num_parallel_calls=3),
    ),
    Case(
        "map_captures",
        lambda tf, f: tf.data.Dataset.range(4).map(lambda x: x + tf.constant(100, tf.int64)),
    ),
    Case("filter", lambda tf, f: tf.data.Dataset.range(20).filter(lambda x: tf.equal(x % 4, 1))),
    Case(
        "flat_map",
        lambda tf, f: tf.data.Dataset.range(4).flat_map(lambda x: tf.data.Dataset.range(x)),
    ),
    Case(
        "interleave",
        lambda tf, f: tf.data.Dataset.range(1, 5).interleave(
            lambda x: tf.data.Dataset.from_tensors(x).repeat(x), cycle_length=2, block_length=2
        ),
    ),
    Case(
        "interleave_parallel",
        lambda tf, f: tf.data.Dataset.range(1, 6).interleave(
            lambda x: tf.data.Dataset.range(x * 10, x * 10 + x),
            cycle_length=3,
            block_length=1,
            num_parallel_calls=2,
        ),
    ),
    Case(
        "parallel_interleave",
        lambda tf, f: tf.data.Dataset.range(1, 5).apply(
            tf.data.experimental.parallel_interleave(
                lambda x: tf.data.Dataset.range(x * 10, x * 10 + 3), cycle_length=2, block_length=2
            )
        ),
    ),
    Case("unbatch", lambda tf, f: tf.data.Dataset.from_tensor_slices((X, Y)).batch(4).unbatch()),
    Case(
        "window_flat_map",
        lambda tf, f: (
            tf.data.Dataset.range(10).window(4, shift=3, stride=2).flat_map(lambda w: w.batch(4))
        ),
    ),
    Case(
        "window_drop_remainder",
        lambda tf, f: (
            tf.data.Dataset.range(7).window(3, drop_remainder=True).flat_map(lambda w: w.batch(3))
        ),
    ),
    Case("enumerate", lambda tf, f: tf.data.Dataset.from_tensor_slices(WORDS).enumerate(start=5)),
    Case(
        "cache_memory_repeat",
        lambda tf, f: tf.data.Dataset.range(4).map(lambda x: x + 1).cache().repeat(2),
    ),
    Case("prefetch", lambda tf, f: tf.data.Dataset.range(6).prefetch(2)),
    Case(
        "map_and_batch",
        lambda tf, f: tf.data.Dataset.range(10).apply(
            tf.data.experimental.map_and_batch(lambda x: (x, -x), 4)
        ),
    ),
    Case(
        "map_and_batch_drop",
        lambda tf, f: tf.data.Dataset.range(10).apply(
            tf.data.experimental.map_and_batch(lambda x: x, 4, drop_remainder=True)
        ),
    ),
    Case(
        "shuffle_and_repeat",
        lambda tf, f: tf.data.Dataset.range(5).apply(
            tf.data.experimental.shuffle_and_repeat(5, count=3, seed=2)
        ),
        "epochs:5",
    ),
    Case(
        "ignore_errors",
        lambda tf, f: (
            tf.data.Dataset.from_tensor_slices(["1", "x", "3.5", ""])
            .map(tf.string_to_number)
            .apply(tf.data.experimental.ignore_errors())
        ),
    ),
    Case("counter", lambda tf, f: tf.data.experimental.Counter(3, 2).take(4)),
    Case(
        "choose_from_datasets",
        lambda tf, f: tf.data.experimental.choose_from_datasets(
            [tf.data.Dataset.range(3), tf.data.Dataset.range(100, 103)],
            tf.data.Dataset.from_tensor_slices(np.array([1, 0, 1, 1, 0, 0, 1], np.int64)),
        ),
    ),
    Case(
        "scan",
        lambda tf, f: tf.data.Dataset.range(5).apply(
            tf.data.experimental.scan(np.int64(0), lambda s, x: (s + x, s * 10))
        ),
    ),
    Case(
        "take_while",
        lambda tf, f: tf.data.Dataset.range(10).apply(
            tf.data.experimental.take_while(lambda x: x < 4)
        ),
    ),
    Case(
        "unique",
        lambda tf, f: tf.data.Dataset.from_tensor_slices(
            np.array([3, 1, 3, 2, 1, 5], np.int64)
        ).apply(tf.data.experimental.unique()),
    ),
    # ---- files
    Case("tfrecord_plain", lambda tf, f: tf.data.TFRecordDataset(f["tfrecord"])),
    Case(
        "tfrecord_gzip_parse",
        lambda tf, f: (
            tf.data.TFRecordDataset([f["tfrecordGZIP"]], compression_type="GZIP")
            .batch(3)
            .map(lambda s: tf.parse_example(s, features(tf)))
        ),
    ),
    Case(
        "tfrecord_files_parallel_reads",
        lambda tf, f: tf.data.TFRecordDataset(
            [f["tfrecord"], f["tfrecord"]], num_parallel_reads=2
        ).take(4),
    ),
    Case(
        "tfrecord_parse_single",
        lambda tf, f: tf.data.TFRecordDataset(f["tfrecordZLIB"], "ZLIB").map(
            lambda s: tf.parse_single_example(s, features(tf)), num_parallel_calls=2
        ),
    ),
    Case("text_lines", lambda tf, f: tf.data.TextLineDataset([f["lines.txt"], f["lines2.txt"]])),
    Case(
        "text_lines_gzip",
        lambda tf, f: tf.data.TextLineDataset(f["lines.txt.gz"], compression_type="GZIP"),
    ),
    Case(
        "fixed_length",
        lambda tf, f: tf.data.FixedLengthRecordDataset(
            [f["fixed.bin"], f["fixed2.bin"]], 4, header_bytes=3, footer_bytes=2
        ).map(lambda r: tf.decode_raw(r, tf.uint8)),
    ),
    Case(
        "csv_dataset",
        lambda tf, f: tf.data.experimental.CsvDataset(
            [f["a.csv"], f["b.csv"]],
            [tf.string, tf.constant(-1, tf.int64), 0.0, tf.int32],
            header=True,
        ),
    ),
    Case(
        "csv_dataset_select_cols",
        lambda tf, f: tf.data.experimental.CsvDataset(
            f["a.csv"], [tf.constant(0, tf.int32), tf.float64], header=True, select_cols=[1, 2]
        ),
    ),
    Case(
        "make_csv_dataset",
        lambda tf, f: tf.data.experimental.make_csv_dataset(
            os.path.join(f["dir"], "?.csv"), 2, label_name="label", num_epochs=1, shuffle=False
        ),
    ),
    # ---- iterators
    Case("initializable_placeholder", _initializable),
    Case("reinitializable", _reinitializable),
    Case("feedable", _feedable),
]


def _bad_slices(tf: Any, files: dict[str, str]) -> Any:
    return tf.data.Dataset.from_tensor_slices((np.zeros(3), np.zeros(4)))


def _bad_predicate(tf: Any, files: dict[str, str]) -> Any:
    return tf.data.Dataset.range(3).filter(lambda x: x)


def _bad_initializer(tf: Any, files: dict[str, str]) -> Any:
    it = tf.data.Iterator.from_structure(tf.int64, tf.TensorShape([]))
    return it.make_initializer(tf.data.Dataset.from_tensors(np.float32(1)))


def _one_shot_placeholder(tf: Any, files: dict[str, str]) -> Any:
    n = tf.placeholder(tf.int64, [])
    return tf.data.Dataset.range(n).make_one_shot_iterator()


def _flat_map_not_dataset(tf: Any, files: dict[str, str]) -> Any:
    return tf.data.Dataset.range(3).flat_map(lambda x: x)


# Errors when the graph is built: (name, builder).
BUILD_ERRORS: list[tuple[str, Build]] = [
    ("from_tensor_slices_mismatched_dims", _bad_slices),
    ("filter_not_bool", _bad_predicate),
    ("make_initializer_wrong_type", _bad_initializer),
    ("one_shot_iterator_placeholder", _one_shot_placeholder),
    ("flat_map_not_dataset", _flat_map_not_dataset),
]

# Errors when elements are read: (name, builder, how many elements come before the error).
RUN_ERRORS: list[tuple[str, Build, int]] = [
    (
        "map_function_error",
        lambda tf, f: tf.data.Dataset.from_tensor_slices(["1", "x", "3"]).map(tf.string_to_number),
        1,
    ),
    ("corrupt_tfrecord", lambda tf, f: tf.data.TFRecordDataset(f["corrupt"]), 1),
    ("batch_size_zero", lambda tf, f: tf.data.Dataset.range(3).batch(tf.constant(0, tf.int64)), 0),
    (
        "shard_index_out_of_range",
        lambda tf, f: tf.data.Dataset.range(3).shard(2, tf.constant(2, tf.int64)),
        0,
    ),
    (
        "padded_batch_too_small",
        lambda tf, f: (
            tf.data.Dataset.range(1, 4).map(lambda x: tf.fill([x], x)).padded_batch(2, [2])
        ),
        1,
    ),
    (
        "batch_different_shapes",
        lambda tf, f: tf.data.Dataset.range(1, 4).map(lambda x: tf.fill([x], x)).batch(2),
        0,
    ),
    (
        "generator_wrong_type",
        lambda tf, f: tf.data.Dataset.from_generator(lambda: iter([1, "x"]), tf.int64),
        1,
    ),
    (
        "fixed_length_bad_body",
        lambda tf, f: tf.data.FixedLengthRecordDataset(
            [f["fixed.bin"], f["fixed_bad.bin"]], 4, header_bytes=3, footer_bytes=2
        ),
        5,
    ),
    (
        "csv_missing_required_field",
        lambda tf, f: tf.data.experimental.CsvDataset(
            f["a.csv"], [tf.string, tf.int64, 0.0, 0], header=True
        ),
        1,
    ),
    (
        "missing_file",
        lambda tf, f: tf.data.TFRecordDataset(os.path.join(f["dir"], "nope.tfrecord")),
        0,
    ),
    (
        "list_files_no_match",
        lambda tf, f: {
            "initialize": tf.data.Dataset.list_files(os.path.join(f["dir"], "*.nothing"))
        },
        0,
    ),
    (
        "get_next_uninitialized",
        lambda tf, f: {"uninitialized": tf.data.Dataset.range(3).make_initializable_iterator()},
        0,
    ),
]


# ---- running a case (the same code on both sides) -------------------------------------------
def plain(tf: Any, value: Any) -> Any:
    """A session result as recordable values (SparseTensorValue -> dict, tuples -> lists)."""
    if isinstance(value, tf.SparseTensorValue):
        return {
            "indices": np.asarray(value.indices),
            "values": np.asarray(value.values),
            "dense_shape": np.asarray(value.dense_shape),
        }
    if isinstance(value, dict):
        return {k: plain(tf, v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(tf, v) for v in value]
    arr = np.asarray(value)
    return arr.astype(object) if arr.dtype.kind == "S" else arr


def describe(tf: Any, dataset_or_iterator: Any) -> dict[str, Any]:
    """output_types / output_shapes / output_classes as names and lists."""

    def leaves(f: Callable[[Any], Any], structure: Any) -> Any:
        if isinstance(structure, dict):
            return {k: leaves(f, v) for k, v in structure.items()}
        if isinstance(structure, tuple):
            return [leaves(f, v) for v in structure]
        return f(structure)

    d = dataset_or_iterator
    return {
        "types": leaves(lambda t: t.name, tf.data.get_output_types(d)),
        "shapes": leaves(
            lambda s: None if s.ndims is None else s.as_list(), tf.data.get_output_shapes(d)
        ),
        "classes": leaves(lambda c: c.__name__, tf.data.get_output_classes(d)),
    }


def read_all(tf: Any, sess: Any, fetch: Any, feed: Any = None, limit: int = 200) -> list[Any]:
    out = []
    for _ in range(limit):
        try:
            out.append(plain(tf, sess.run(fetch, feed)))
        except tf.errors.OutOfRangeError:
            break
    return out


def run_case(tf: Any, case: Case, files: dict[str, str]) -> dict[str, Any]:
    with tf.Graph().as_default():
        built = case.build(tf, files)
        out: dict[str, Any] = {}
        if not isinstance(built, dict):
            out.update(describe(tf, built))
            # (TF 1.15's unbatch() gives a V2 dataset, without make_one_shot_iterator().)
            fetch = tf.data.make_one_shot_iterator(built).get_next()
            with tf.Session() as sess:
                out["elements"] = read_all(tf, sess, fetch)
            return out
        if "feedable" in built:
            nxt, handle, one, two = built["feedable"]
            with tf.Session() as sess:
                h1 = sess.run(one.string_handle())
                sess.run(two.initializer)
                h2 = sess.run(two.string_handle())
                order = [h1, h2, h2, h1, h2, h1]
                out["elements"] = [plain(tf, sess.run(nxt, {handle: h})) for h in order]
                out["handle_type"] = type(h1).__name__
            return out
        with tf.Session() as sess:
            sess.run(built["init"], built.get("feed"))
            out["elements"] = read_all(tf, sess, built["elements"])
            if "then" in built:
                sess.run(built["then"])
                out["elements_then"] = read_all(tf, sess, built["elements"])
        return out


def run_error(tf: Any, build: Build, files: dict[str, str]) -> dict[str, Any]:
    """The elements before the error, the error's class, and what the next read gives."""
    with tf.Graph().as_default():
        built = build(tf, files)
        init = None
        if isinstance(built, dict) and "uninitialized" in built:
            fetch = built["uninitialized"].get_next()
        elif isinstance(built, dict):
            it = built["initialize"].make_initializable_iterator()
            fetch, init = it.get_next(), it.initializer
        else:
            fetch = tf.data.make_one_shot_iterator(built).get_next()
        before: list[Any] = []
        with tf.Session() as sess:
            error = None
            if init is not None:
                try:
                    sess.run(init)
                except tf.errors.OpError as e:
                    error = e
            for _ in range(50 if error is None else 0):
                try:
                    before.append(plain(tf, sess.run(fetch)))
                except tf.errors.OutOfRangeError:
                    break
                except tf.errors.OpError as e:
                    error = e
                    break
            try:
                after: Any = plain(tf, sess.run(fetch))
            except tf.errors.OpError as e:
                after = type(e).__name__
        return {
            "before": before,
            "error": type(error).__name__ if error is not None else None,
            "after": after,
        }


def build_error(tf: Any, build: Build, files: dict[str, str]) -> str | None:
    with tf.Graph().as_default():
        try:
            build(tf, files)
        except Exception as e:
            return type(e).__name__
    return None


def strip_dir(value: Any, files: dict[str, str]) -> Any:
    """Paths under the cases' temporary folder as '<dir>/name' (the folder differs per run)."""
    prefix = files["dir"].encode()
    if isinstance(value, dict):
        return {k: strip_dir(v, files) for k, v in value.items()}
    if isinstance(value, list):
        return [strip_dir(v, files) for v in value]
    if isinstance(value, np.ndarray) and value.dtype == object and value.shape == ():
        v = value[()]
        if isinstance(v, bytes) and v.startswith(prefix):
            out = np.empty((), dtype=object)
            out[()] = b"<dir>" + v[len(prefix) :]
            return out
    return value
