"""The rest of tf.data.experimental and the dataset raw ops without functions, read the way
data_cases.py reads its cases: by TensorFlow 1.15 in record_data_rest.py and by tfcluster in
tests/unit/test_data_rest_reference.py. SqlDataset, LMDB, statistics (StatsAggregator,
latency_stats, bytes_produced_stats), iterator state in checkpoints
(make_saveable_from_iterator, CheckpointInputPipelineHook), to_variant / from_variant and
raw ops such as SlidingWindowDataset read through from_variant. Runs on Python 3.7 too
(the LMDB databases are written with the `lmdb` package, in TF 1.15's venv too)."""

from __future__ import annotations

import os
import sqlite3
from typing import Any

import numpy as np

try:
    from tf_reference.data_cases import Build, Case, plain, read_all
except ImportError:  # the recorder runs from this folder, in TensorFlow's venv
    from data_cases import Build, Case, plain, read_all  # type: ignore[no-redef]

ROWS = [
    (1, "x", 1.5, 0, b"\x00\x01"),
    (2, "yy", -2.25, 1, b"blob"),
    (300, "12abc", 3.0, 5, b""),
    (-7, "  42", 1e20, -1, b"z"),
    (None, None, None, None, None),
]
LMDB_PAIRS = [(b"b", b"2"), (b"a", b"1"), (b"c", b"three"), (b"aa", b"")]


def database(files: dict[str, str]) -> str:
    """A SQLite database of ROWS (made once per folder)."""
    path = os.path.join(files["dir"], "rows.db")
    if not os.path.exists(path):
        conn = sqlite3.connect(path)
        conn.execute("create table t (a integer, b text, c real, d integer, e blob)")
        conn.executemany("insert into t values (?, ?, ?, ?, ?)", ROWS)
        conn.commit()
        conn.close()
    return path


def lmdb_files(files: dict[str, str]) -> dict[str, str]:
    """An LMDB database as one file, one as a directory, and a file that is not LMDB."""
    import lmdb

    out = {
        "file": os.path.join(files["dir"], "pairs.mdb"),
        "dir": os.path.join(files["dir"], "pairs_dir"),
        "garbage": os.path.join(files["dir"], "garbage.mdb"),
    }
    if not os.path.exists(out["file"]):
        env = lmdb.open(out["file"], subdir=False, map_size=1 << 20)
        with env.begin(write=True) as txn:
            for k, v in LMDB_PAIRS:
                txn.put(k, v)
        env.close()
        env = lmdb.open(out["dir"], map_size=1 << 20)
        with env.begin(write=True) as txn:
            txn.put(b"k", b"v")
        env.close()
        with open(out["garbage"], "wb") as f:
            f.write(b"x" * 100)
    return out


def text_files(files: dict[str, str]) -> list[str]:
    names = []
    for i, text in enumerate([b"a0\na1\n", b"b0\nb1\nb2\n", b"c0\n"]):
        path = os.path.join(files["dir"], f"part{i}.txt")
        with open(path, "wb") as f:
            f.write(text)
        names.append(path)
    return names


def _sql(
    types: Any, query: str = "select a, b, c, d from t", driver: str = "sqlite", batch: int = 0
) -> Build:
    def build(tf: Any, files: dict[str, str]) -> Any:
        dtypes = tuple(getattr(tf, t) for t in types)
        ds = tf.data.experimental.SqlDataset(driver, database(files), query, dtypes)
        return ds.batch(batch) if batch else ds

    return build


def _range(tf: Any, n: int = 10) -> Any:
    return tf.data.experimental.to_variant(tf.data.Dataset.range(n))


def _read(tf: Any, variant: Any, dtype: str, shape: Any) -> Any:
    spec = tf.TensorSpec(shape, getattr(tf, dtype))
    return tf.data.experimental.from_variant(variant, spec)


def _raw(op: str, dtype: str, shape: Any, source: Any = None, **args: Any) -> Build:
    """A dataset raw op over (by default) range(10), read through from_variant."""

    def build(tf: Any, files: dict[str, str]) -> Any:
        kwargs = dict(args)
        if source is not None:
            kwargs["input_dataset"] = source(tf, files)
        elif "input_dataset" not in kwargs:
            kwargs["input_dataset"] = _range(tf)
        variant = getattr(tf.raw_ops, op)(
            output_types=[getattr(tf, dtype)], output_shapes=[shape], **kwargs
        )
        return _read(tf, variant, dtype, shape)

    return build


def _unoptimized(build: Build) -> Build:
    """Without TF's static optimizations and autotuning: TF 1.15 fails to rewrite a pipeline
    holding the V1 BatchDataset / PaddedBatchDataset ops (an InternalError in its
    graph rewrite), so these are read as written."""

    def wrapped(tf: Any, files: dict[str, str]) -> Any:
        options = tf.data.Options()
        options.experimental_optimization.apply_default_optimizations = False
        options.experimental_optimization.autotune = False
        return build(tf, files).with_options(options)

    return wrapped


def _batches(tf: Any, files: dict[str, str]) -> Any:
    return tf.data.experimental.to_variant(tf.data.Dataset.range(10).batch(4))


def _text_lines(tf: Any, files: dict[str, str]) -> Any:
    return tf.data.experimental.to_variant(tf.data.TextLineDataset(text_files(files)))


def _from_variant_roundtrip(tf: Any, files: dict[str, str]) -> Any:
    ds = tf.data.Dataset.from_tensor_slices(({"x": [1.0, 2.0, 3.0]}, [b"a", b"b", b"c"]))
    variant = tf.data.experimental.to_variant(ds.map(lambda d, s: (d, s, d["x"] * 2)))
    structure = (
        {"x": tf.TensorSpec([], tf.float32)},
        tf.TensorSpec([], tf.string),
        tf.TensorSpec([], tf.float32),
    )
    return tf.data.experimental.from_variant(variant, structure)


def _legacy_map_and_batch(tf: Any, files: dict[str, str]) -> Any:
    return tf.data.Dataset.range(7).apply(
        tf.data.experimental.map_and_batch_with_legacy_function(
            lambda x: (x * 3, tf.cast(x, tf.float32) / 2), 3, drop_remainder=False
        )
    )


def _lmdb(kind: str = "raw", which: Any = ("file", "dir")) -> Build:
    def build(tf: Any, files: dict[str, str]) -> Any:
        paths = lmdb_files(files)
        names = [paths[w] for w in which]
        op = tf.raw_ops.LMDBDataset if kind == "raw" else tf.raw_ops.ExperimentalLMDBDataset
        variant = op(filenames=names, output_types=[tf.string] * 2, output_shapes=[[], []])
        spec = tf.TensorSpec([], tf.string)
        return tf.data.experimental.from_variant(variant, (spec, spec))

    return build


def _fixed_length_v1(tf: Any, files: dict[str, str]) -> Any:
    path = os.path.join(files["dir"], "fixed_v1.bin")
    with open(path, "wb") as f:
        f.write(b"HD" + bytes(range(12)) + b"F")
    variant = tf.raw_ops.FixedLengthRecordDataset(
        filenames=[path], header_bytes=2, record_bytes=4, footer_bytes=1, buffer_size=0
    )
    return _read(tf, variant, "string", [])


def _read_missing_lmdb(tf: Any, files: dict[str, str]) -> Any:
    variant = tf.raw_ops.LMDBDataset(
        filenames=[os.path.join(files["dir"], "no_such.mdb")],
        output_types=[tf.string] * 2,
        output_shapes=[[], []],
    )
    spec = tf.TensorSpec([], tf.string)
    return tf.data.experimental.from_variant(variant, (spec, spec))


def _random(tf: Any, files: dict[str, str]) -> Any:
    """ExperimentalRandomDataset's elements are int64 scalars (their values are each
    framework's own random stream: compared is only what they are)."""
    variant = tf.raw_ops.ExperimentalRandomDataset(
        seed=1, seed2=2, output_types=[tf.int64], output_shapes=[[]]
    )
    return _read(tf, variant, "int64", []).map(lambda x: x * 0).take(3)


def _matching(tf: Any, files: dict[str, str]) -> Any:
    text_files(files)
    variant = tf.raw_ops.MatchingFilesDataset(patterns=[os.path.join(files["dir"], "part*.txt")])
    return _read(tf, variant, "string", []).map(lambda p: tf.strings.regex_replace(p, ".*/", ""))


def _thread_pool(handle: str, dataset: str, threads: int = 2) -> Build:
    """A ThreadPoolDataset over range(10) (the pool is a stateful op: an initializable
    iterator reads it)."""

    def build(tf: Any, files: dict[str, str]) -> Any:
        pool = getattr(tf.raw_ops, handle)(num_threads=threads, display_name="pool")
        variant = getattr(tf.raw_ops, dataset)(
            input_dataset=_range(tf), thread_pool=pool, output_types=[tf.int64], output_shapes=[[]]
        )
        return _read(tf, variant, "int64", [])

    return build


def _initializable(build: Build) -> Build:
    def wrapped(tf: Any, files: dict[str, str]) -> Any:
        it = tf.data.make_initializable_iterator(build(tf, files))
        return {"init": it.initializer, "elements": it.get_next()}

    return wrapped


def _sampling(rate: float) -> Build:
    return _raw("SamplingDataset", "int64", [], rate=rate, seed=1, seed2=2)


def _wrapped(tf: Any, files: dict[str, str]) -> Any:
    wrapped = tf.raw_ops.WrapDatasetVariant(input_handle=_range(tf, 4))
    return _read(tf, tf.raw_ops.UnwrapDatasetVariant(input_handle=wrapped), "int64", [])


CASES = [
    Case("sql_int32_string_double_bool", _sql(["int32", "string", "float64", "bool"])),
    Case(
        "sql_narrow_ints_wrap", _sql(["uint8", "int8", "int16", "uint16"], "select a,a,d,d from t")
    ),
    Case(
        "sql_text_as_numbers",
        _sql(["int64", "int64", "float64", "string"], "select b,c,b,c from t"),
    ),
    Case("sql_numbers_as_text", _sql(["string", "string", "string"], "select a, d, e from t")),
    Case("sql_batched", _sql(["int32", "string", "float64", "bool"], batch=2)),
    Case(
        "sql_batched_conversions",
        _sql(
            ["uint8", "int64", "float64", "string", "bool"], "select a, b, b, c, e from t", batch=3
        ),
    ),
    Case(
        "sql_filtered_query",
        _sql(["int64", "string"], "select a, b from t where a > 1 order by a desc"),
    ),
    Case(
        "sql_experimental_op",
        lambda tf, f: _read(
            tf,
            tf.raw_ops.ExperimentalSqlDataset(
                driver_name="sqlite",
                data_source_name=database(f),
                query="select b from t",
                output_types=[tf.string],
                output_shapes=[[]],
            ),
            "string",
            [],
        ),
    ),
    Case("from_variant_roundtrip", _from_variant_roundtrip),
    Case("map_and_batch_with_legacy_function", _legacy_map_and_batch),
    Case("lmdb_file_and_directory", _lmdb()),
    Case("experimental_lmdb", _lmdb("experimental", ("dir",))),
    Case(
        "lmdb_batched_across_files",
        lambda tf, f: _lmdb(which=("file", "dir", "file"))(tf, f).batch(3),
    ),
    Case(
        "sliding_window_shift_2",
        _raw(
            "SlidingWindowDataset", "int64", [None], window_size=3, window_shift=2, window_stride=1
        ),
    ),
    Case(
        "sliding_window_stride_3",
        _raw(
            "ExperimentalSlidingWindowDataset",
            "int64",
            [None],
            window_size=3,
            window_shift=1,
            window_stride=3,
        ),
    ),
    Case(
        "sliding_window_shift_past_window",
        _raw(
            "SlidingWindowDataset", "int64", [None], window_size=2, window_shift=4, window_stride=1
        ),
    ),
    Case("sleep", _raw("SleepDataset", "int64", [], sleep_microseconds=1000)),
    Case("rebatch_2", _raw("RebatchDataset", "int64", [None], _batches, num_replicas=2)),
    Case(
        "rebatch_3", _raw("ExperimentalRebatchDataset", "int64", [None], _batches, num_replicas=3)
    ),
    Case("auto_shard_elements", _raw("AutoShardDataset", "int64", [], num_workers=3, index=1)),
    Case(
        "auto_shard_files",
        _raw("ExperimentalAutoShardDataset", "string", [], _text_lines, num_workers=3, index=1),
    ),
    Case("private_thread_pool", _raw("PrivateThreadPoolDataset", "int64", [], num_threads=2)),
    Case(
        "experimental_private_thread_pool",
        _raw("ExperimentalPrivateThreadPoolDataset", "int64", [], num_threads=1),
    ),
    Case(
        "max_intra_op_parallelism",
        _raw("MaxIntraOpParallelismDataset", "int64", [], max_intra_op_parallelism=1),
    ),
    Case(
        "experimental_max_intra_op_parallelism",
        _raw("ExperimentalMaxIntraOpParallelismDataset", "int64", [], max_intra_op_parallelism=0),
    ),
    Case("model", _raw("ModelDataset", "int64", [])),
    Case("optimize", _raw("OptimizeDataset", "int64", [], optimizations=["map_fusion"])),
    Case("non_serializable", _raw("NonSerializableDataset", "int64", [])),
    Case("experimental_non_serializable", _raw("ExperimentalNonSerializableDataset", "int64", [])),
    Case("experimental_unbatch", _raw("ExperimentalUnbatchDataset", "int64", [], _batches)),
    Case(
        "experimental_unique",
        _raw(
            "ExperimentalUniqueDataset",
            "int64",
            [],
            lambda tf, f: tf.data.experimental.to_variant(
                tf.data.Dataset.from_tensor_slices(np.array([3, 1, 3, 2, 1], np.int64))
            ),
        ),
    ),
    Case("experimental_random", _random),
    Case("batch_v1", _unoptimized(_raw("BatchDataset", "int64", [None], batch_size=4))),
    Case(
        "padded_batch_v1",
        _unoptimized(
            lambda tf, f: _read(
                tf,
                tf.raw_ops.PaddedBatchDataset(
                    input_dataset=tf.data.experimental.to_variant(
                        tf.data.Dataset.range(5).map(lambda x: tf.fill([x], x))
                    ),
                    batch_size=2,
                    padded_shapes=[[4]],
                    padding_values=[tf.constant(-1, tf.int64)],
                    output_shapes=[[None, 4]],
                ),
                "int64",
                [None, 4],
            )
        ),
    ),
    Case("fixed_length_record_v1", _unoptimized(_fixed_length_v1)),
    Case("matching_files", _matching),
    Case("thread_pool", _initializable(_thread_pool("ThreadPoolHandle", "ThreadPoolDataset"))),
    Case(
        "experimental_thread_pool",
        _initializable(
            _thread_pool("ExperimentalThreadPoolHandle", "ExperimentalThreadPoolDataset", 1)
        ),
    ),
    Case("sampling_rate_0", _sampling(0.0)),
    Case("sampling_rate_1", _sampling(1.0)),
    Case("sampling_rate_above_1", _sampling(1.5)),
    Case("sampling_rate_negative", _sampling(-1.0)),
    Case("wrap_unwrap_dataset_variant", _wrapped),
]

RUN_ERRORS = [
    ("sql_unknown_driver", _sql(["int32"], "select a from t", driver="mysql"), 0),
    ("sql_syntax_error", _sql(["int32"], "selec a from t"), 0),
    ("sql_no_such_table", _sql(["int32"], "select a from nosuch"), 0),
    ("sql_too_many_columns", _sql(["int32"], "select a, b from t"), 0),
    ("sql_too_few_columns", _sql(["int32", "int32"], "select a from t"), 0),
    ("sql_unsupported_float32", _sql(["float32"], "select c from t"), 0),
    ("lmdb_not_lmdb", _lmdb(which=("garbage",)), 0),
    ("lmdb_missing", _read_missing_lmdb, 0),
    (
        "sliding_window_zero_size",
        _raw(
            "SlidingWindowDataset", "int64", [None], window_size=0, window_shift=1, window_stride=1
        ),
        0,
    ),
    (
        "sliding_window_zero_stride",
        _raw(
            "SlidingWindowDataset", "int64", [None], window_size=2, window_shift=1, window_stride=0
        ),
        0,
    ),
    ("auto_shard_index_too_big", _raw("AutoShardDataset", "int64", [], num_workers=3, index=5), 0),
    ("private_thread_pool_zero", _raw("PrivateThreadPoolDataset", "int64", [], num_threads=0), 0),
    (
        "max_intra_op_negative",
        _raw("MaxIntraOpParallelismDataset", "int64", [], max_intra_op_parallelism=-1),
        0,
    ),
    (
        "matching_files_none",
        lambda tf, f: _read(
            tf,
            tf.raw_ops.MatchingFilesDataset(patterns=os.path.join(f["dir"], "*.none")),
            "string",
            [],
        ),
        0,
    ),
]


# Errors of an initializable iterator's initializer: the class, then the class again.
INIT_ERRORS = [
    ("thread_pool_zero_threads", _thread_pool("ThreadPoolHandle", "ThreadPoolDataset", 0)),
    (
        "experimental_thread_pool_negative_threads",
        _thread_pool("ExperimentalThreadPoolHandle", "ExperimentalThreadPoolDataset", -1),
    ),
]


def run_init_error(tf: Any, build: Build, files: dict[str, str]) -> list[str]:
    with tf.Graph().as_default():
        it = tf.data.make_initializable_iterator(build(tf, files))
        got = []
        with tf.Session() as sess:
            for _ in range(2):
                try:
                    sess.run(it.initializer)
                    got.append("none")
                except tf.errors.OpError as e:
                    got.append(type(e).__name__)
        return got


# ---- statistics ----------------------------------------------------------------------------
def _stats_pipeline(tf: Any) -> Any:
    return (
        tf.data.Dataset.range(5)
        .apply(tf.data.experimental.latency_stats("lat"))
        .map(lambda x: (tf.fill([x], x), tf.strings.as_string(x * 111)))
        .apply(tf.data.experimental.bytes_produced_stats("bytes"))
    )


def _histo(value: Any) -> dict[str, Any]:
    h = value.histo
    return {
        "num": h.num,
        "min": h.min,
        "max": h.max,
        "sum": h.sum,
        "sum_squares": h.sum_squares,
        "bucket_limit": np.array(list(h.bucket_limit)),
        "bucket": np.array(list(h.bucket)),
    }


def run_stats(tf: Any, prefix: str, summary_class: Any) -> dict[str, Any]:
    """The graph's ops and the summary of the aggregator after reading every element (the
    byte sizes in full; of latencies, which differ per run, how many there are)."""
    with tf.Graph().as_default() as graph:
        aggregator = tf.data.experimental.StatsAggregator()
        options = tf.data.Options()
        options.experimental_stats.aggregator = aggregator
        if prefix:
            options.experimental_stats.prefix = prefix
        ds = _stats_pipeline(tf).with_options(options)
        it = tf.data.make_initializable_iterator(ds)
        nxt = it.get_next()
        summary = aggregator.get_summary()
        ops = [(op.name, op.type) for op in graph.get_operations()]
        seen = []
        with tf.Session() as sess:
            empty = summary_class.FromString(sess.run(summary))
            sess.run(it.initializer)
            elements = read_all(tf, sess, nxt)
            got = summary_class.FromString(sess.run(summary))
        for value in got.value:
            h = _histo(value)
            if value.tag.endswith("lat"):
                h = {"num": h["num"]}
            seen.append([value.tag, value.WhichOneof("value"), h])
        return {
            "ops": [list(o) for o in ops if not o[0].startswith("MapDataset/")],
            "empty_values": len(empty.value),
            "values": seen,
            "elements": elements,
            "summary_dtype": summary.dtype.name,
        }


def one_shot_with_aggregator_error(tf: Any) -> str:
    with tf.Graph().as_default():
        options = tf.data.Options()
        options.experimental_stats.aggregator = tf.data.experimental.StatsAggregator()
        ds = tf.data.Dataset.range(3).with_options(options)
        try:
            tf.data.make_one_shot_iterator(ds)
        except Exception as e:  # TF: ValueError (a stateful op cannot be captured)
            return type(e).__name__
    return "none"


# ---- iterator state in checkpoints ---------------------------------------------------------
def _shuffled(tf: Any) -> Any:
    return tf.data.Dataset.range(20).shuffle(8, seed=3).repeat(2).map(lambda x: x * 10).batch(3)


def _mapped(tf: Any) -> Any:
    return tf.data.Dataset.range(10).map(lambda x: x * 2)


SAVE_PIPELINES = {"mapped": _mapped, "shuffled_repeated_batched": _shuffled}


def run_saveable(tf: Any, pipeline: str, one_shot: bool, directory: str) -> dict[str, Any]:
    """Reads 3 elements, saves, reads 2; then a new session restores and reads 2 (the same
    2, when the state came back), and a session that did not initialise fails to restore."""
    make = SAVE_PIPELINES[pipeline]
    out: dict[str, Any] = {}
    with tf.Graph().as_default():
        ds = make(tf)
        it = (
            tf.data.make_one_shot_iterator(ds)
            if one_shot
            else tf.data.make_initializable_iterator(ds)
        )
        nxt = it.get_next()
        saveable = tf.data.experimental.make_saveable_from_iterator(it)
        out["saveable"] = [saveable.name, [s.name for s in saveable.specs]]
        tf.add_to_collection(tf.GraphKeys.SAVEABLE_OBJECTS, saveable)
        v = tf.Variable(1.0, name="v")
        saver = tf.train.Saver()
        init = [v.initializer] if one_shot else [it.initializer, v.initializer]
        prefix = os.path.join(directory, f"{pipeline}_{one_shot}")
        with tf.Session() as sess:
            sess.run(init)
            out["before"] = [plain(tf, sess.run(nxt)) for _ in range(3)]
            path = saver.save(sess, prefix)
            out["after_save"] = [plain(tf, sess.run(nxt)) for _ in range(2)]
        out["keys"] = [k for k, _ in tf.train.list_variables(path)]
        with tf.Session() as sess:
            sess.run(init)
            saver.restore(sess, path)
            out["restored"] = [plain(tf, sess.run(nxt)) for _ in range(2)]
        if not one_shot:
            with tf.Session() as sess:
                try:
                    saver.restore(sess, path)
                    out["uninitialized_restore"] = "none"
                except tf.errors.OpError as e:
                    out["uninitialized_restore"] = type(e).__name__
    return out


def run_input_pipeline_hook(tf: Any, model_dir: str) -> dict[str, Any]:
    """Two Estimator.train calls with CheckpointInputPipelineHook: the second resumes the
    input where the first stopped; the variable `seen` sums the features trained on."""

    def input_fn() -> Any:
        return tf.data.Dataset.range(1, 100).map(lambda x: ({"x": tf.cast(x, tf.float32)}, x))

    def model_fn(features: Any, labels: Any, mode: Any) -> Any:
        seen = tf.get_variable("seen", [], tf.float32, tf.zeros_initializer())
        step = tf.train.get_or_create_global_step()
        train_op = tf.group(tf.assign_add(seen, features["x"]), tf.assign_add(step, 1))
        return tf.estimator.EstimatorSpec(mode, loss=tf.constant(0.0), train_op=train_op)

    config = tf.estimator.RunConfig(save_checkpoints_steps=2, log_step_count_steps=1000)
    est = tf.estimator.Estimator(model_fn, model_dir=model_dir, config=config)
    est.train(input_fn, steps=3, hooks=[tf.data.experimental.CheckpointInputPipelineHook(est)])
    first = float(est.get_variable_value("seen"))
    est.train(input_fn, steps=2, hooks=[tf.data.experimental.CheckpointInputPipelineHook(est)])
    files = sorted(f for f in os.listdir(model_dir) if f.startswith(("input", "checkpoint_")))
    return {
        "seen_after_first": first,
        "seen_after_second": float(est.get_variable_value("seen")),
        "input_files": [f for f in files if not f.endswith(".meta")],
    }


# ---- iterator raw ops ----------------------------------------------------------------------
def run_iterator_ops(tf: Any, directory: str) -> dict[str, Any]:
    """AnonymousIterator(V2) / DeleteIterator, Iterator / IteratorFromStringHandle /
    IteratorGetNextSync (V1), SerializeIterator into another iterator, the cardinality and
    TFRecord-writing Experimental* ops, and statistics through raw ops."""
    r = tf.raw_ops
    types = {"output_types": [tf.int64], "output_shapes": [[]]}
    out: dict[str, Any] = {}

    def source() -> Any:
        return tf.data.experimental.to_variant(tf.data.Dataset.range(5))

    with tf.Graph().as_default():
        it = r.AnonymousIterator(**types)
        make = r.MakeIterator(dataset=source(), iterator=it)
        with tf.control_dependencies([make]):
            nxt = r.IteratorGetNext(iterator=it, **types)
        with tf.Session() as sess:
            # A new iterator each run.
            out["anonymous"] = [plain(tf, sess.run(nxt)) for _ in range(2)]
    with tf.Graph().as_default():
        it, deleter = r.AnonymousIteratorV2(**types)
        out["deleter_dtype"] = deleter.dtype.name
        make = r.MakeIterator(dataset=source(), iterator=it)
        with tf.control_dependencies([make]):
            nxt = r.IteratorGetNextSync(iterator=it, **types)
        with tf.control_dependencies(nxt):
            delete = r.DeleteIterator(handle=it, deleter=deleter)
        with tf.Session() as sess:
            out["anonymous_v2"] = plain(tf, sess.run([*nxt, delete])[0])
    with tf.Graph().as_default():
        it = r.Iterator(shared_name="shared_it", container="", **types)
        make = r.MakeIterator(dataset=source(), iterator=it)
        handle = r.IteratorToStringHandle(resource_handle=it)
        by_handle = r.IteratorFromStringHandle(string_handle=handle, **types)
        nxt = r.IteratorGetNextSync(iterator=by_handle, **types)
        with tf.Session() as sess:
            sess.run(make)
            out["v1_by_handle"] = read_all(tf, sess, nxt)
    with tf.Graph().as_default():
        data = source()
        a = r.IteratorV2(shared_name="", container="", **types)
        b = r.IteratorV2(shared_name="", container="", **types)
        inits = [r.MakeIterator(dataset=data, iterator=x) for x in (a, b)]
        next_a = r.IteratorGetNext(iterator=a, **types)
        next_b = r.IteratorGetNext(iterator=b, **types)
        copy = r.DeserializeIterator(
            resource_handle=b, serialized=r.SerializeIterator(resource_handle=a)
        )
        infinite = tf.data.experimental.to_variant(tf.data.Dataset.range(5).repeat())
        cardinality = [
            r.ExperimentalDatasetCardinality(input_dataset=data),
            r.DatasetCardinality(input_dataset=infinite),
        ]
        with tf.Session() as sess:
            sess.run(inits)
            out["serialized_from"] = [plain(tf, sess.run(next_a)) for _ in range(3)]
            sess.run(copy)
            out["deserialized_into"] = read_all(tf, sess, next_b)
            out["cardinality"] = [int(x) for x in sess.run(cardinality)]
    with tf.Graph().as_default():
        it = tf.data.make_one_shot_iterator(tf.data.Dataset.range(3))
        devices = [
            r.IteratorGetDevice(resource=it._iterator_resource),
            r.ExperimentalIteratorGetDevice(resource=it._iterator_resource),
        ]
        with tf.Session() as sess:
            out["iterator_devices"] = [plain(tf, d) for d in sess.run(devices)]
    with tf.Graph().as_default():
        path = os.path.join(directory, "written.tfrecord")
        words = tf.data.Dataset.from_tensor_slices([b"one", b"two", b"three"])
        write = r.ExperimentalDatasetToTFRecord(
            input_dataset=tf.data.experimental.to_variant(words),
            filename=path,
            compression_type="",
        )
        back = tf.data.make_one_shot_iterator(tf.data.TFRecordDataset(path)).get_next()
        with tf.Session() as sess:
            sess.run(write)
            out["written_tfrecords"] = read_all(tf, sess, back)
    for handle in ("ExperimentalStatsAggregatorHandle", "StatsAggregatorHandleV2"):
        with tf.Graph().as_default():
            aggregator = getattr(r, handle)(container="", shared_name="")
            stats = r.ExperimentalBytesProducedStatsDataset(
                input_dataset=source(), tag="b", **types
            )
            stats = r.ExperimentalSetStatsAggregatorDataset(
                input_dataset=stats,
                stats_aggregator=aggregator,
                tag="raw",
                counter_prefix="",
                **types,
            )
            it = r.IteratorV2(shared_name="", container="", **types)
            make = r.MakeIterator(dataset=stats, iterator=it)
            nxt = r.IteratorGetNext(iterator=it, **types)
            summary = r.ExperimentalStatsAggregatorSummary(iterator=aggregator)
            with tf.Session() as sess:
                sess.run(make)
                read_all(tf, sess, nxt)
                serialized = sess.run(summary)
            out[f"raw_stats_summary_{handle}"] = np.asarray(serialized, dtype=object)
    return out
