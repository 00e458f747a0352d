"""Queue-based input cases, written once against a `tf` module: record_queues.py runs them on
TensorFlow (tf.compat.v1) and records what they return; tests/unit/test_tf_reference_queues.py
runs the same functions on tfcluster and compares.

Each case builds its own graph and returns plain values (arrays, bytes, lists, dicts, and
errors as {"error": class, "message": ...}). File names in keys are written as "{dir}/name",
so that where the files lie does not matter. Cases whose order TF leaves open (shuffling,
several enqueue threads) return what is fixed: the sorted elements, the batch sizes.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from typing import Any

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
RECORDS_DIR = os.path.join(HERE, "data", "records")  # TFRecord files TensorFlow wrote
QUEUES_DIR = os.path.join(HERE, "data", "queues")  # text and binary files (record_queues.py)
TEXT_FILES = {
    "a.txt": b"header a\nline 1\nline 2\r\n\nline 4",
    "b.txt": b"header b only\n",
    "c.txt": b"",
    "d.txt": b"header d\r\nx\ny\n",
}
BIN_FILE = "fixed.bin"
BIN_BYTES = bytes(range(30))
GZ_BIN_FILE = "fixed.bin.gz"
EXAMPLES = "examples.tfrecord"
EXAMPLES_GZ = "examples.tfrecord.gz"
CORRUPT = "corrupt.tfrecord"
TRUNCATED = "truncated.tfrecord"

Case = Callable[[Any], dict[str, Any]]
CASES: dict[str, Case] = {}
# How a test compares a case's values: "exact" (the default) or "sorted" for named fields.
SORTED_FIELDS: dict[str, list[str]] = {}


def case(*sorted_fields: str) -> Callable[[Case], Case]:
    def register(fn: Case) -> Case:
        CASES[fn.__name__] = fn
        if sorted_fields:
            SORTED_FIELDS[fn.__name__] = list(sorted_fields)
        return fn

    return register


# ---- helpers ---------------------------------------------------------------------------------


def rec_path(name: str) -> str:
    return os.path.join(RECORDS_DIR, name)


def q_path(name: str) -> str:
    return os.path.join(QUEUES_DIR, name)


def norm(value: Any) -> Any:
    """File paths in keys as "{dir}/name"."""
    if isinstance(value, bytes):
        for d in (RECORDS_DIR, QUEUES_DIR):
            value = value.replace(d.encode() + b"/", b"{dir}/")
        return value
    if isinstance(value, str):
        for d in (RECORDS_DIR, QUEUES_DIR):
            value = value.replace(d + "/", "{dir}/")
        return value
    if isinstance(value, np.ndarray) and value.dtype == object:
        out = np.empty(value.shape, dtype=object)
        out.reshape(-1)[:] = [norm(v) for v in value.reshape(-1)]
        return out
    if isinstance(value, (list, tuple)):
        return [norm(v) for v in value]
    if isinstance(value, dict):
        return {k: norm(v) for k, v in value.items()}
    return value


def message(text: str) -> str:
    """A kernel's own message: TF 2's graph-execution wrapping and both sides' node suffixes
    taken off; queue names' private ids (_3_) made neutral."""
    if "Node: '" in text:
        text = text.split("Node: '", 1)[1].split("\n", 1)[1]
    text = text.split("\n\t [[", 1)[0].split("\n\nOriginal stack trace", 1)[0].strip()
    text = norm(text)
    return re.sub(r"'_\d+_", "'_N_", text)


def error(e: BaseException) -> dict[str, str]:
    msg = getattr(e, "message", None)
    return {"error": type(e).__name__, "message": message(msg if msg is not None else str(e))}


def catch(fn: Callable[[], Any]) -> dict[str, str]:
    try:
        fn()
    except Exception as e:
        return error(e)
    raise AssertionError("expected an error, none was raised")


def drain(sess: Any, fetches: Any, limit: int = 1000) -> tuple[list[Any], dict[str, str]]:
    """Runs fetches until OutOfRangeError; (the results, that error)."""
    out = []
    for _ in range(limit):
        try:
            out.append(sess.run(fetches))
        except Exception as e:
            return out, error(e)
    raise AssertionError("the input did not end")


def session(tf: Any) -> Any:
    return tf.Session()


def init(tf: Any, sess: Any) -> None:
    sess.run([tf.global_variables_initializer(), tf.local_variables_initializer()])


class Runners:
    """Queue runner threads under a Coordinator, stopped and joined on exit."""

    def __init__(self, tf: Any, sess: Any) -> None:
        self.coord = tf.train.Coordinator()
        self.threads = tf.train.start_queue_runners(sess=sess, coord=self.coord)

    def __enter__(self) -> Runners:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.coord.request_stop()
        self.coord.join(self.threads, stop_grace_period_secs=10)


def shape(t: Any) -> list[int | None] | None:
    s = t.shape
    return None if s.ndims is None else [None if d is None else int(d) for d in s.as_list()]


def sparse(v: Any) -> dict[str, Any]:
    return {"indices": v.indices, "values": v.values, "dense_shape": v.dense_shape}


def names(tf: Any) -> dict[str, Any]:
    """What a pipeline put in the graph's collections, by name."""
    g = tf.get_default_graph()
    runners = g.get_collection(tf.GraphKeys.QUEUE_RUNNERS)
    return {
        "local_variables": [v.name for v in tf.local_variables()],
        "global_variables": [v.name for v in tf.global_variables()],
        "summaries": [t.name for t in g.get_collection(tf.GraphKeys.SUMMARIES)],
        "queue_runners": [
            {"queue": qr.name, "enqueue_ops": [op.name for op in qr.enqueue_ops]} for qr in runners
        ],
    }


def op_types(tf: Any, types: set[str]) -> list[list[str]]:
    """(name, type) of the graph's ops of these types, in creation order."""
    return [
        [op.name, op.type] for op in tf.get_default_graph().get_operations() if op.type in types
    ]


PIPELINE_OPS = {
    "FIFOQueueV2",
    "RandomShuffleQueueV2",
    "PaddingFIFOQueueV2",
    "PriorityQueueV2",
    "QueueEnqueueV2",
    "QueueEnqueueManyV2",
    "QueueDequeueV2",
    "QueueDequeueManyV2",
    "QueueDequeueUpToV2",
    "QueueCloseV2",
    "QueueSizeV2",
    "QueueIsClosedV2",
    "TFRecordReaderV2",
    "TextLineReaderV2",
    "WholeFileReaderV2",
    "FixedLengthRecordReaderV2",
    "IdentityReaderV2",
    "ReaderReadV2",
    "ReaderReadUpToV2",
    "ScalarSummary",
    "VariableV2",
    "CountUpTo",
    "RandomShuffle",
    "MatchingFiles",
    "Assert",
    "AddSparseToTensorsMap",
    "AddManySparseToTensorsMap",
    "TakeManySparseFromTensorsMap",
}


# ---- producers -------------------------------------------------------------------------------


@case()
def string_input_producer_in_order(tf: Any) -> dict[str, Any]:
    with tf.Graph().as_default():
        q = tf.train.string_input_producer(["a", "b", "c"], num_epochs=2, shuffle=False)
        item = q.dequeue()
        graph = names(tf)
        ops = op_types(tf, PIPELINE_OPS)
        with session(tf) as sess:
            init(tf, sess)
            with Runners(tf, sess):
                items, end = drain(sess, item)
    return {
        "items": items,
        "end": end,
        "names": graph,
        "ops": ops,
        "queue": q.name,
        "item": [item.name, shape(item), item.dtype.name],
    }


@case("epochs")
def string_input_producer_shuffles_each_epoch(tf: Any) -> dict[str, Any]:
    with tf.Graph().as_default():
        files = [f"f{i}" for i in range(6)]
        q = tf.train.string_input_producer(files, num_epochs=3, seed=3, capacity=4)
        item = q.dequeue()
        with session(tf) as sess:
            init(tf, sess)
            with Runners(tf, sess):
                items, end = drain(sess, item)
    epochs = [sorted(items[i : i + 6]) for i in range(0, len(items), 6)]
    return {"epochs": epochs, "count": len(items), "end": end["error"]}


@case()
def range_and_slice_input_producers(tf: Any) -> dict[str, Any]:
    with tf.Graph().as_default():
        r = tf.train.range_input_producer(5, num_epochs=1, shuffle=False).dequeue()
        x = np.arange(8, dtype=np.float32).reshape(4, 2)
        y = np.array([b"p", b"q", b"r", b"s"], dtype=object)
        xs, ys = tf.train.slice_input_producer([x, y], num_epochs=2, shuffle=False)
        graph = names(tf)
        with session(tf) as sess:
            init(tf, sess)
            with Runners(tf, sess):
                ranged, range_end = drain(sess, r)
                sliced, slice_end = drain(sess, [xs, ys])
    return {
        "range": ranged,
        "range_end": range_end["error"],
        "sliced": sliced,
        "slice_end": slice_end["error"],
        "shapes": [shape(r), shape(xs), shape(ys)],
        "names": graph,
        "tensors": [r.name, xs.name, ys.name],
    }


@case()
def input_producer_rows_and_element_shape(tf: Any) -> dict[str, Any]:
    with tf.Graph().as_default():
        rows = tf.constant(np.arange(6, dtype=np.int64).reshape(3, 2))
        q = tf.train.input_producer(rows, num_epochs=1, shuffle=False, summary_name="rows_full")
        item = q.dequeue()
        unknown = tf.placeholder(tf.float32, [None, None])
        bad = catch(lambda: tf.train.input_producer(unknown))
        graph = names(tf)
        with session(tf) as sess:
            init(tf, sess)
            with Runners(tf, sess):
                items, end = drain(sess, item)
    return {"items": items, "end": end, "bad": bad, "names": graph, "shape": shape(item)}


@case()
def limit_epochs_counts_then_ends(tf: Any) -> dict[str, Any]:
    with tf.Graph().as_default():
        t = tf.train.limit_epochs(tf.constant([1, 2]), num_epochs=2, name="limited")
        zero = catch(lambda: tf.train.limit_epochs(tf.constant(1), num_epochs=0))
        same = tf.train.limit_epochs(tf.constant(1)) is not None
        graph = names(tf)
        with session(tf) as sess:
            uninitialized = catch(lambda: sess.run(t))
            init(tf, sess)
            values, end = drain(sess, t)
    return {
        "values": values,
        "end": end,
        "zero": zero,
        "unlimited": same,
        "uninitialized": uninitialized["error"],
        "names": graph,
        "tensor": t.name,
    }


@case()
def match_filenames_once_is_a_sorted_local_variable(tf: Any) -> dict[str, Any]:
    with tf.Graph().as_default():
        v = tf.train.match_filenames_once(q_path("*.txt"))
        both = tf.train.match_filenames_once([q_path("d.txt"), q_path("a.*")], name="two")
        none = tf.train.match_filenames_once(q_path("nothing-*"))
        graph = names(tf)
        with session(tf) as sess:
            init(tf, sess)
            out = sess.run([v, both, none])
    return {"values": norm(out), "names": graph, "var": v.name, "shape": shape(v)}


@case()
def matching_files_read_file_write_file(tf: Any) -> dict[str, Any]:
    import tempfile

    with tempfile.TemporaryDirectory() as tmp, tf.Graph().as_default():
        found = tf.matching_files([q_path("?.txt"), q_path("*.bin")])
        contents = tf.read_file(q_path("a.txt"))
        target = os.path.join(tmp, "sub", "out.txt")
        write = tf.write_file(target, tf.constant(b"written\n"))
        missing = tf.read_file(q_path("no-such-file"))
        with session(tf) as sess:
            files = norm(sess.run(found))
            data = sess.run(contents)
            sess.run(write)
            with open(target, "rb") as f:
                written = f.read()
            err = catch(lambda: sess.run(missing))
            still = sess.run(contents)
        return {
            "files": files,
            "data": data,
            "written": written,
            "missing": err["error"],
            "still": still,
            "names": [found.name, contents.name, write.name],
        }


# ---- readers ---------------------------------------------------------------------------------


def _read_all(tf: Any, reader: Any, files: list[str], read_up_to: int = 0) -> dict[str, Any]:
    queue = tf.FIFOQueue(10, tf.string, shapes=[[]])
    fill = queue.enqueue_many([files])
    close = queue.close()
    if read_up_to:
        key, value = reader.read_up_to(queue, read_up_to)
    else:
        key, value = reader.read(queue)
    produced = reader.num_records_produced()
    completed = reader.num_work_units_completed()
    with session(tf) as sess:
        sess.run(fill)
        sess.run(close)
        records, end = drain(sess, [key, value])
        counts = sess.run([produced, completed])
    return {
        "records": norm(records),
        "end": end,
        "counts": counts,
        "shapes": [shape(key), shape(value)],
        "names": [key.name, value.name, reader.reader_ref.name, produced.name, completed.name],
    }


@case()
def tfrecord_reader_reads_tf_files(tf: Any) -> dict[str, Any]:
    with tf.Graph().as_default():
        plain = _read_all(tf, tf.TFRecordReader(), [rec_path(EXAMPLES), rec_path(EXAMPLES)])
    with tf.Graph().as_default():
        options = tf.python_io.TFRecordOptions(tf.python_io.TFRecordCompressionType.GZIP)
        gz = _read_all(tf, tf.TFRecordReader(name="gz", options=options), [rec_path(EXAMPLES_GZ)])
    return {"plain": plain, "gzip": gz}


@case()
def tfrecord_reader_read_up_to(tf: Any) -> dict[str, Any]:
    with tf.Graph().as_default():
        return _read_all(
            tf, tf.TFRecordReader(), [rec_path(EXAMPLES), rec_path(EXAMPLES)], read_up_to=4
        )


@case()
def tfrecord_reader_bad_files(tf: Any) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for label, name in (("corrupt", CORRUPT), ("truncated", TRUNCATED), ("missing", "none.rec")):
        with tf.Graph().as_default():
            queue = tf.FIFOQueue(10, tf.string, shapes=[[]])
            fill = queue.enqueue_many([[rec_path(name), rec_path(EXAMPLES)]])
            reader = tf.TFRecordReader()
            key, _ = reader.read(queue)
            other = tf.constant(3) * 2
            with session(tf) as sess:
                sess.run(fill)
                got = []
                errors = []
                for _ in range(4):
                    try:
                        got.append(sess.run(key))
                    except Exception as e:
                        errors.append(error(e))
                out[label] = {"keys": norm(got), "errors": errors, "after": sess.run(other)}
    return out


@case()
def text_line_reader_skips_headers(tf: Any) -> dict[str, Any]:
    files = [q_path(n) for n in ("a.txt", "b.txt", "c.txt", "d.txt")]
    with tf.Graph().as_default():
        skipping = _read_all(tf, tf.TextLineReader(skip_header_lines=1), files)
    with tf.Graph().as_default():
        every = _read_all(tf, tf.TextLineReader(), files)
    with tf.Graph().as_default():
        up_to = _read_all(tf, tf.TextLineReader(), files, read_up_to=2)
    return {"skipping": skipping, "every": every, "up_to": up_to}


@case()
def fixed_length_record_reader_layouts(tf: Any) -> dict[str, Any]:
    layouts = {
        "plain": {"record_bytes": 4},
        "header_footer": {"record_bytes": 4, "header_bytes": 3, "footer_bytes": 5},
        "hop": {"record_bytes": 4, "hop_bytes": 3},
        "hop_header_footer": {
            "record_bytes": 4,
            "hop_bytes": 3,
            "header_bytes": 1,
            "footer_bytes": 2,
        },
        "long_hop": {"record_bytes": 4, "hop_bytes": 6},
        "record_7": {"record_bytes": 7},
    }
    out: dict[str, Any] = {}
    for label, kw in layouts.items():
        with tf.Graph().as_default():
            out[label] = _read_all(tf, tf.FixedLengthRecordReader(**kw), [q_path(BIN_FILE)])
    with tf.Graph().as_default():
        reader = tf.FixedLengthRecordReader(5, header_bytes=2, encoding="GZIP")
        out["gzip"] = _read_all(tf, reader, [q_path(GZ_BIN_FILE), q_path(GZ_BIN_FILE)])
    return out


@case()
def whole_file_and_identity_readers(tf: Any) -> dict[str, Any]:
    with tf.Graph().as_default():
        whole = _read_all(tf, tf.WholeFileReader(), [q_path("a.txt"), q_path("c.txt")])
    with tf.Graph().as_default():
        ident = _read_all(tf, tf.IdentityReader(), [b"w1", b"w2", b"w3"], read_up_to=2)
    return {"whole": whole, "identity": ident}


@case()
def reader_state_serialize_restore_reset(tf: Any) -> dict[str, Any]:
    with tf.Graph().as_default():
        queue = tf.FIFOQueue(10, tf.string, shapes=[[]])
        fill = queue.enqueue_many([[b"u1", b"u2", b"u3", b"u4"]])
        reader = tf.IdentityReader()
        key, _ = reader.read(queue)
        state = reader.serialize_state()
        new_state = tf.placeholder(tf.string, [])
        restore = reader.restore_state(new_state)
        reset = reader.reset()
        produced = reader.num_records_produced()
        completed = reader.num_work_units_completed()
        other = tf.TFRecordReader()
        with session(tf) as sess:
            sess.run(fill)
            first = sess.run(key)
            saved = sess.run(state)
            second = sess.run(key)
            sess.run(restore, {new_state: saved})
            after_restore = sess.run([produced, completed])
            third = sess.run(key)
            sess.run(reset)
            after_reset = sess.run([produced, completed])
            fourth = sess.run(key)
            bad = catch(lambda: sess.run(restore, {new_state: b"\xff\xfe not a proto"}))
            unsupported = catch(lambda: sess.run(other.serialize_state()))
            unsupported_restore = catch(lambda: sess.run(other.restore_state(saved)))
    return {
        "keys": [first, second, third, fourth],
        "saved": saved,
        "after_restore": after_restore,
        "after_reset": after_reset,
        "bad": bad["error"],
        "unsupported": unsupported,
        "unsupported_restore": unsupported_restore,
        "supports": [reader.supports_serialize, other.supports_serialize],
        "names": [state.name, restore.name, reset.name],
    }


# ---- batching --------------------------------------------------------------------------------


@case()
def batch_in_order_with_smaller_final_batch(tf: Any) -> dict[str, Any]:
    with tf.Graph().as_default():
        i = tf.train.range_input_producer(7, num_epochs=1, shuffle=False).dequeue()
        pair = tf.stack([i, i * 10])
        xs, ys = tf.train.batch(
            [pair, i], batch_size=3, capacity=10, allow_smaller_final_batch=True
        )
        # A producer of its own: a shared one would split its elements between the queues.
        j = tf.train.range_input_producer(7, num_epochs=1, shuffle=False).dequeue()
        fixed_x = tf.train.batch([tf.stack([j, j])], batch_size=3, name="fixed")
        graph = names(tf)
        ops = op_types(tf, PIPELINE_OPS)
        static = [shape(xs), shape(ys), shape(fixed_x), xs.dtype.name]
        with session(tf) as sess:
            init(tf, sess)
            with Runners(tf, sess):
                batches, end = drain(sess, [xs, ys])
    return {
        "batches": batches,
        "end": end,
        "names": graph,
        "ops": ops,
        "static": static,
        "tensors": [xs.name, ys.name, fixed_x.name],
    }


@case()
def batch_enqueue_many_and_dict_inputs(tf: Any) -> dict[str, Any]:
    with tf.Graph().as_default():
        rows = tf.train.limit_epochs(tf.constant(np.arange(12, dtype=np.float32).reshape(6, 2)), 1)
        labels = tf.train.limit_epochs(tf.constant(np.arange(6, dtype=np.int32)), 1)
        out = tf.train.batch(
            {"x": rows, "y": labels},
            batch_size=4,
            enqueue_many=True,
            allow_smaller_final_batch=True,
        )
        single = tf.train.batch({"only": tf.constant(1.5)}, batch_size=2)
        static = {k: shape(v) for k, v in out.items()}
        with session(tf) as sess:
            init(tf, sess)
            with Runners(tf, sess):
                batches, end = drain(sess, out)
                one = sess.run(single)
    return {
        "batches": batches,
        "end": end["error"],
        "static": static,
        "single": one,
        "keys": sorted(out),
        "tensors": {k: v.name for k, v in out.items()},
    }


@case()
def batch_dynamic_pad(tf: Any) -> dict[str, Any]:
    with tf.Graph().as_default():
        i = tf.train.range_input_producer(5, num_epochs=1, shuffle=False).dequeue()
        ragged = tf.range(i + 1)
        grid = tf.fill(tf.stack([i % 2 + 1, 2]), i)
        word = tf.gather(tf.constant([b"", b"a", b"bb", b"ccc", b"dddd"]), i)
        padded = tf.train.batch(
            [ragged, grid, word],
            batch_size=2,
            dynamic_pad=True,
            allow_smaller_final_batch=True,
        )
        static = [shape(t) for t in padded]
        bad = catch(lambda: tf.train.batch([ragged], batch_size=2))
        ops = op_types(tf, PIPELINE_OPS)
        with session(tf) as sess:
            init(tf, sess)
            with Runners(tf, sess):
                batches, end = drain(sess, padded)
    return {"batches": batches, "end": end["error"], "static": static, "bad": bad, "ops": ops}


@case()
def batch_sparse_tensors(tf: Any) -> dict[str, Any]:
    with tf.Graph().as_default():
        i = tf.train.range_input_producer(5, num_epochs=1, shuffle=False).dequeue()
        n = tf.cast(i + 1, tf.int64)
        sp = tf.SparseTensor(
            indices=tf.reshape(tf.range(n), [-1, 1]),
            values=tf.cast(tf.range(n), tf.float32) + tf.cast(i, tf.float32) * 10,
            dense_shape=tf.reshape(n + 1, [1]),
        )
        sp_batch, dense = tf.train.batch([sp, i], batch_size=2, allow_smaller_final_batch=True)
        ops = op_types(tf, PIPELINE_OPS)
        static = [shape(sp_batch.indices), shape(sp_batch.dense_shape), shape(dense)]
        with session(tf) as sess:
            init(tf, sess)
            with Runners(tf, sess):
                batches, end = drain(sess, [sp_batch, dense])
    return {
        "batches": [[sparse(b[0]), b[1]] for b in batches],
        "end": end["error"],
        "static": static,
        "ops": ops,
    }


@case("elements")
def batch_join_gathers_every_list(tf: Any) -> dict[str, Any]:
    with tf.Graph().as_default():
        a = tf.train.range_input_producer(4, num_epochs=1, shuffle=False).dequeue()
        b = tf.train.range_input_producer(3, num_epochs=1, shuffle=False).dequeue() + 100
        xs = tf.train.batch_join([[a], [b]], batch_size=2, allow_smaller_final_batch=True)
        graph = names(tf)
        with session(tf) as sess:
            init(tf, sess)
            with Runners(tf, sess):
                batches, end = drain(sess, xs)
    flat = [int(v) for batch in batches for v in np.asarray(batch).reshape(-1)]
    return {
        "elements": sorted(flat),
        "end": end["error"],
        "names": graph,
        "tensor": xs.name if hasattr(xs, "name") else [t.name for t in xs],
    }


@case("elements")
def shuffle_batch_mixes_every_element_once(tf: Any) -> dict[str, Any]:
    with tf.Graph().as_default():
        i = tf.train.range_input_producer(40, num_epochs=2, shuffle=False, seed=1).dequeue()
        xs, ys = tf.train.shuffle_batch(
            [i, tf.cast(i, tf.float32) * 0.5],
            batch_size=8,
            capacity=30,
            min_after_dequeue=10,
            num_threads=3,
            seed=7,
            allow_smaller_final_batch=True,
        )
        j = tf.train.range_input_producer(7, num_epochs=1, shuffle=False).dequeue()
        fixed = tf.train.shuffle_batch(
            [j], batch_size=5, capacity=20, min_after_dequeue=3, name="fixed_shuffle"
        )
        graph = names(tf)
        ops = op_types(tf, PIPELINE_OPS)
        static = [shape(xs), shape(ys), shape(fixed)]
        bad = catch(lambda: tf.train.shuffle_batch([i], 4, capacity=10, min_after_dequeue=10))
        with session(tf) as sess:
            init(tf, sess)
            with Runners(tf, sess):
                batches, end = drain(sess, [xs, ys])
    elements = sorted(int(x) for b in batches for x in b[0])
    pairs_ok = all(np.array_equal(b[0] * 0.5, b[1]) for b in batches)
    return {
        "elements": elements,
        "sizes": [len(b[0]) for b in batches],
        "pairs_ok": pairs_ok,
        "end": end["error"],
        "names": graph,
        "ops": ops,
        "static": static,
        "bad": bad,
        "tensors": [xs.name, ys.name, fixed.name],
    }


@case("elements")
def shuffle_batch_join_and_maybe_shuffle_batch(tf: Any) -> dict[str, Any]:
    with tf.Graph().as_default():
        a = tf.train.range_input_producer(10, num_epochs=1, shuffle=False).dequeue()
        b = tf.train.range_input_producer(10, num_epochs=1, shuffle=False).dequeue() + 100
        joined = tf.train.shuffle_batch_join(
            [[a], [b]],
            batch_size=4,
            capacity=12,
            min_after_dequeue=2,
            seed=5,
            allow_smaller_final_batch=True,
        )
        graph = names(tf)
        with session(tf) as sess:
            init(tf, sess)
            with Runners(tf, sess):
                batches, end = drain(sess, joined)
    with tf.Graph().as_default():
        c = tf.train.range_input_producer(12, num_epochs=1, shuffle=False).dequeue()
        kept = tf.train.maybe_shuffle_batch(
            [c],
            batch_size=3,
            capacity=10,
            min_after_dequeue=2,
            keep_input=tf.equal(c % 3, 0),
            allow_smaller_final_batch=True,
        )
        with session(tf) as sess:
            init(tf, sess)
            with Runners(tf, sess):
                maybe_batches, _ = drain(sess, kept)
    return {
        "elements": sorted(int(x) for batch in batches for x in np.asarray(batch).reshape(-1)),
        "end": end["error"],
        "names": graph,
        "maybe": sorted(int(x) for batch in maybe_batches for x in np.asarray(batch).reshape(-1)),
    }


@case()
def maybe_batch_keeps_only_the_chosen(tf: Any) -> dict[str, Any]:
    with tf.Graph().as_default():
        rows = tf.train.limit_epochs(tf.constant(np.arange(6, dtype=np.int64)), 1)
        keep = tf.constant([True, False, True, True, False, True])
        vector = tf.train.maybe_batch(
            [rows], keep, batch_size=2, enqueue_many=True, allow_smaller_final_batch=True
        )
        bad = catch(lambda: tf.train.maybe_batch([tf.constant(1)], keep, batch_size=2))
        i = tf.train.range_input_producer(7, num_epochs=1, shuffle=False).dequeue()
        scalar = tf.train.maybe_batch(
            [i], tf.equal(i % 2, 0), batch_size=2, allow_smaller_final_batch=True, name="odd"
        )
        j = tf.train.range_input_producer(3, num_epochs=1, shuffle=False).dequeue()
        k = tf.train.range_input_producer(2, num_epochs=1, shuffle=False).dequeue() + 10
        joined = tf.train.maybe_batch_join(
            [[j], [k]], keep_input=tf.constant(True), batch_size=1, name="joined"
        )
        with session(tf) as sess:
            init(tf, sess)
            with Runners(tf, sess):
                from_vector, end = drain(sess, vector)
                from_scalar, _ = drain(sess, scalar)
                from_joined, _ = drain(sess, joined)
    return {
        "joined": sorted(int(x) for b in from_joined for x in np.asarray(b).reshape(-1)),
        "vector": from_vector,
        "end": end["error"],
        "scalar": from_scalar,
        "bad": bad,
        "tensors": [vector.name, scalar.name, joined.name],
    }


# ---- queues ----------------------------------------------------------------------------------


@case()
def fifo_queue_ops_and_names(tf: Any) -> dict[str, Any]:
    with tf.Graph().as_default():
        q = tf.FIFOQueue(5, [tf.int32, tf.string], shapes=[[2], []], name="q")
        enq = q.enqueue([[1, 2], "one"])
        many = q.enqueue_many([[[3, 4], [5, 6], [7, 8]], ["two", "three", "four"]])
        deq = q.dequeue()
        deq_many = q.dequeue_many(2)
        up_to = q.dequeue_up_to(3)
        size = q.size()
        closed = q.is_closed()
        close = q.close()
        close_cancel = q.close(cancel_pending_enqueues=True)
        with session(tf) as sess:
            sess.run(enq)
            sess.run(many)
            sizes = [sess.run(size)]
            first = sess.run(deq)
            two = sess.run(deq_many)
            sess.run(close)
            is_closed = sess.run(closed)
            closed_enqueue = catch(lambda: sess.run(enq))
            rest = sess.run(up_to)
            empty_up_to = catch(lambda: sess.run(up_to))
            empty_deq = catch(lambda: sess.run(deq))
            again = catch(lambda: sess.run(close))
            sess.run(close_cancel)
            sizes.append(sess.run(size))
    return {
        "first": first,
        "two": two,
        "rest": rest,
        "sizes": sizes,
        "is_closed": is_closed,
        "closed_enqueue": closed_enqueue,
        "empty_up_to": empty_up_to,
        "empty_deq": empty_deq,
        "close_twice": again,
        "names": [
            q.name,
            enq.name,
            many.name,
            deq[0].name,
            deq_many[0].name,
            up_to[0].name,
            size.name,
            closed.name,
            close.name,
            close_cancel.name,
        ],
        "shapes": [shape(deq[0]), shape(deq_many[0]), shape(up_to[0]), shape(deq[1])],
        "props": [[d.name for d in q.dtypes], [str(s) for s in q.shapes], q.names],
    }


@case()
def fifo_queue_partial_dequeue_many_on_close(tf: Any) -> dict[str, Any]:
    with tf.Graph().as_default():
        q = tf.FIFOQueue(10, tf.int64, shapes=[[]])
        fill = q.enqueue_many([[1, 2, 3]])
        close = q.close()
        many = q.dequeue_many(2)
        with session(tf) as sess:
            sess.run(fill)
            sess.run(close)
            got = sess.run(many)
            short = catch(lambda: sess.run(many))
            left = sess.run(q.size())
            last = sess.run(q.dequeue())
    return {"got": got, "short": short, "left": left, "last": last}


@case()
def queue_errors(tf: Any) -> dict[str, Any]:
    with tf.Graph().as_default():
        q = tf.FIFOQueue(3, tf.float32, shapes=[[2]])
        p = tf.placeholder(tf.float32)
        enq = q.enqueue(p)
        enq_many = q.enqueue_many(p)
        unshaped = tf.FIFOQueue(3, [tf.int32, tf.int32])
        unshaped_many = unshaped.dequeue_many(1)
        pa = tf.placeholder(tf.int32, [None])
        pb = tf.placeholder(tf.int32, [None])
        fill_unshaped = unshaped.enqueue_many([pa, pb])
        static_ragged = catch(lambda: unshaped.enqueue_many([[1, 2], [3, 4, 5]]))
        ok = tf.constant(2.0) + 1
        with session(tf) as sess:
            wrong_shape = catch(lambda: sess.run(enq, {p: [1.0, 2.0, 3.0]}))
            wrong_many = catch(lambda: sess.run(enq_many, {p: [[1.0, 2.0, 3.0]]}))
            scalar_many = catch(lambda: sess.run(enq_many, {p: 1.0}))
            needs_shapes = catch(lambda: sess.run(unshaped_many))
            ragged_many = catch(lambda: sess.run(fill_unshaped, {pa: [1, 2], pb: [3, 4, 5]}))
            timed_out = catch(
                lambda: sess.run(q.dequeue(), options=tf.RunOptions(timeout_in_ms=200))
            )
            still = sess.run(ok)
        static_shape = catch(lambda: q.enqueue(tf.constant([1.0, 2.0, 3.0])))
        static_dtype = catch(lambda: q.enqueue(tf.constant([1, 2])))
        rank0_many = catch(lambda: q.enqueue_many(tf.constant(1.0)))
        not_fully_defined = catch(lambda: tf.FIFOQueue(2, tf.float32, shapes=[[None]]))
        shapes_len = catch(lambda: tf.FIFOQueue(2, [tf.float32], shapes=[[1], [2]]))
        names_len = catch(lambda: tf.FIFOQueue(2, [tf.float32], names=["a", "b"]))
        dict_no_names = catch(lambda: q.enqueue({"a": 1.0}))
        padding_unknown = catch(lambda: tf.PaddingFIFOQueue(2, tf.float32, shapes=None))
    return {
        "wrong_shape": wrong_shape,
        "wrong_many": wrong_many,
        "scalar_many": scalar_many["error"],
        "needs_shapes": needs_shapes,
        "ragged_many": ragged_many,
        "static_ragged": static_ragged["error"],
        "timed_out": timed_out["error"],
        "still": still,
        "static_shape": static_shape["error"],
        "static_dtype": static_dtype["error"],
        "rank0_many": rank0_many["error"],
        "not_fully_defined": not_fully_defined,
        "shapes_len": shapes_len["error"],
        "names_len": names_len["error"],
        "dict_no_names": dict_no_names,
        "padding_unknown": padding_unknown,
    }


@case()
def enqueue_blocked_then_cancelled(tf: Any) -> dict[str, Any]:
    import threading
    import time

    with tf.Graph().as_default():
        q = tf.FIFOQueue(1, tf.int32, shapes=[[]])
        enq = q.enqueue(1)
        cancel = q.close(cancel_pending_enqueues=True)
        with session(tf) as sess:
            sess.run(enq)
            errs: list[Any] = []

            def blocked() -> None:
                try:
                    sess.run(enq)
                except Exception as e:
                    errs.append(error(e))

            t = threading.Thread(target=blocked)
            t.start()
            time.sleep(0.3)
            waiting = t.is_alive()
            sess.run(cancel)
            t.join(10)
            left = sess.run(q.dequeue())
    return {"waiting": waiting, "errors": errs, "left": left}


@case()
def plain_close_waits_for_pending_enqueues(tf: Any) -> dict[str, Any]:
    import threading
    import time

    with tf.Graph().as_default():
        q = tf.FIFOQueue(1, tf.int32, shapes=[[]])
        value = tf.placeholder(tf.int32, [])
        enq = q.enqueue(value)
        close = q.close()
        deq = q.dequeue()
        with session(tf) as sess:
            sess.run(enq, {value: 1})
            done: list[str] = []

            def pending() -> None:
                sess.run(enq, {value: 2})
                done.append("enqueued")

            def closing() -> None:
                sess.run(close)
                done.append("closed")

            t1 = threading.Thread(target=pending)
            t1.start()
            time.sleep(0.3)
            t2 = threading.Thread(target=closing)
            t2.start()
            time.sleep(0.3)
            before = list(done)
            got = [sess.run(deq)]
            t1.join(10)
            t2.join(10)
            got.append(sess.run(deq))
            end = catch(lambda: sess.run(deq))
    return {"before": before, "after": sorted(done), "got": got, "end": end}


@case("elements")
def random_shuffle_queue_keeps_min_after_dequeue(tf: Any) -> dict[str, Any]:
    with tf.Graph().as_default():
        q = tf.RandomShuffleQueue(10, 3, [tf.int32, tf.float32], shapes=[[], [2]], seed=11)
        values = tf.placeholder(tf.int32, [None])
        fill = q.enqueue_many([values, tf.stack([tf.cast(values, tf.float32)] * 2, axis=1)])
        deq = q.dequeue()
        many = q.dequeue_many(2)
        up_to = q.dequeue_up_to(10)
        close = q.close()
        with session(tf) as sess:
            sess.run(fill, {values: [0, 1, 2]})
            blocked = catch(lambda: sess.run(deq, options=tf.RunOptions(timeout_in_ms=200)))
            sess.run(fill, {values: [3, 4, 5, 6]})
            got = [int(sess.run(deq)[0])]
            got += [int(v) for v in sess.run(many)[0]]
            blocked_many = catch(lambda: sess.run(many, options=tf.RunOptions(timeout_in_ms=200)))
            sess.run(close)
            rest = sess.run(up_to)
            got += [int(v) for v in rest[0]]
            pairs = bool(np.array_equal(rest[1][:, 0], rest[0]))
            end = catch(lambda: sess.run(deq))
    return {
        "elements": got,
        "blocked": blocked["error"],
        "blocked_many": blocked_many["error"],
        "rest_size": len(rest[0]),
        "pairs": pairs,
        "end": end,
        "names": [q.name, deq[0].name, many[0].name],
        "shapes": [shape(many[1]), shape(up_to[1])],
    }


@case()
def padding_fifo_queue_pads_batches(tf: Any) -> dict[str, Any]:
    with tf.Graph().as_default():
        q = tf.PaddingFIFOQueue(10, [tf.int32, tf.string], shapes=[[None, 2], [None]])
        a = tf.placeholder(tf.int32, [None, 2])
        s = tf.placeholder(tf.string, [None])
        enq = q.enqueue([a, s])
        deq = q.dequeue()
        many = q.dequeue_many(3)
        with session(tf) as sess:
            sess.run(enq, {a: [[1, 2]], s: [b"x"]})
            sess.run(enq, {a: [[3, 4], [5, 6], [7, 8]], s: []})
            sess.run(enq, {a: np.zeros((0, 2)), s: [b"y", b"zz"]})
            sess.run(enq, {a: [[9, 9]], s: [b"w"]})
            got = sess.run(many)
            single = sess.run(deq)
            bad = catch(lambda: sess.run(enq, {a: [[1, 2, 3]], s: [b"q"]}))
    return {
        "batch": got,
        "single": single,
        "bad": bad,
        "shapes": [shape(deq[0]), shape(many[0]), shape(many[1])],
        "names": [q.name, many[0].name],
    }


@case()
def priority_queue_lowest_first(tf: Any) -> dict[str, Any]:
    with tf.Graph().as_default():
        q = tf.PriorityQueue(10, [tf.string], shapes=[[]])
        prio = tf.placeholder(tf.int64, [None])
        words = tf.placeholder(tf.string, [None])
        fill = q.enqueue_many([prio, words])
        one = q.enqueue((tf.constant(2, tf.int64), tf.constant(b"two")))
        deq = q.dequeue()
        many = q.dequeue_many(2)
        up_to = q.dequeue_up_to(2)
        with session(tf) as sess:
            sess.run(fill, {prio: [5, 1, 9], words: [b"five", b"one", b"nine"]})
            sess.run(one)
            first = sess.run(deq)
            two = sess.run(many)
            sess.run(q.close())
            try:
                small: Any = sess.run(up_to)
            except Exception as e:
                small = error(e)
            last = catch(lambda: sess.run(deq))
    return {
        "first": first,
        "two": two,
        "up_to": small,
        "last": last,
        "dtypes": [d.name for d in q.dtypes],
        "shapes": [shape(deq[0]), shape(many[1])],
        "names": [q.name, deq[0].name],
    }


@case()
def queue_from_list_and_named_components(tf: Any) -> dict[str, Any]:
    with tf.Graph().as_default():
        q1 = tf.FIFOQueue(3, [tf.int32], shapes=[[]], name="q1")
        q2 = tf.FIFOQueue(3, [tf.int32], shapes=[[]], name="q2")
        index = tf.placeholder(tf.int32, [])
        picked = tf.QueueBase.from_list(index, [q1, q2])
        fill = [q1.enqueue(1), q2.enqueue(2)]
        deq = picked.dequeue()
        bad_list = catch(lambda: tf.QueueBase.from_list(0, [q1, tf.FIFOQueue(1, tf.float32)]))
        named = tf.FIFOQueue(3, [tf.int32, tf.float32], names=["n", "f"], shapes=[[], []])
        put = named.enqueue({"n": 4, "f": 0.5})
        get = named.dequeue()
        wrong_keys = catch(lambda: named.enqueue({"n": 1}))
        needs_dict = catch(lambda: named.enqueue([1, 2.0]))
        with session(tf) as sess:
            sess.run(fill)
            from_second = sess.run(deq, {index: 1})
            from_first = sess.run(deq, {index: 0})
            sess.run(put)
            got = sess.run(get)
    return {
        "picked": [from_second, from_first],
        "bad_list": bad_list,
        "named": got,
        "wrong_keys": wrong_keys["error"],
        "needs_dict": needs_dict,
        "names": picked.names,
        "shape": shape(deq),
    }


# ---- epochs, assertions, counting ------------------------------------------------------------


@case()
def string_input_producer_errors(tf: Any) -> dict[str, Any]:
    with tf.Graph().as_default():
        empty_list = catch(lambda: tf.train.string_input_producer([]))
        files = tf.placeholder(tf.string, [None])
        q = tf.train.string_input_producer(files, shuffle=False)
        runner = tf.get_collection(tf.GraphKeys.QUEUE_RUNNERS)[0]
        with session(tf) as sess:
            empty = catch(lambda: sess.run(runner.enqueue_ops[0], {files: []}))
            sess.run(runner.enqueue_ops[0], {files: ["x", "y"]})
            size = sess.run(q.size())
    with tf.Graph().as_default():
        q = tf.train.string_input_producer(["x"], num_epochs=1)
        runner = tf.get_collection(tf.GraphKeys.QUEUE_RUNNERS)[0]
        with session(tf) as sess:
            uninitialized = catch(lambda: sess.run(runner.enqueue_ops[0]))
    return {
        "empty_list": empty_list,
        "empty": empty,
        "size": size,
        "uninitialized": uninitialized["error"],
    }


@case()
def count_up_to_and_assert(tf: Any) -> dict[str, Any]:
    with tf.Graph().as_default():
        v = tf.Variable(0, dtype=tf.int64, name="counter")
        up = v.count_up_to(2)
        w = tf.Variable(5, name="w")
        up_w = tf.count_up_to(w, 7)
        bad_type = catch(lambda: tf.count_up_to(tf.Variable(1.0), 3))
        x = tf.placeholder(tf.int32, [])
        check = tf.Assert(tf.greater(x, 0), ["x must be positive, got", x, [1, 2, 3, 4]])
        with tf.control_dependencies([check]):
            y = tf.identity(x)
        with session(tf) as sess:
            sess.run(tf.global_variables_initializer())
            counts, end = drain(sess, up)
            counts_w = [sess.run(up_w), sess.run(up_w)]
            final = sess.run([v, w])
            passed = sess.run(y, {x: 3})
            failed = catch(lambda: sess.run(y, {x: -1}))
    return {
        "counts": counts,
        "end": end,
        "counts_w": counts_w,
        "final": final,
        "bad_type": bad_type["error"],
        "passed": passed,
        "failed": failed,
        "names": [up.name, up_w.name, check.name],
        "shape": shape(up),
    }
