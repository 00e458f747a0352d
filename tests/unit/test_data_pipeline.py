"""tf.data's runtime in one process: pipeline threads (parallel map, prefetch, interleave)
run and stop with their iterator, caches, deadlines, MonitoredTrainingSession, the batched
form of map functions agreeing with element-by-element mapping, options and the
tf.data.experimental helpers. (What TF itself gives for each transformation is checked in
test_data_tf_reference.py.)"""

from __future__ import annotations

import gc
import os
import threading
import time
from typing import Any

import numpy as np
import pytest
import tfcluster as tf
from tf_reference import records_cases


def read_all(sess: Any, fetch: Any, limit: int = 1000) -> list[Any]:
    out = []
    for _ in range(limit):
        try:
            out.append(sess.run(fetch))
        except tf.errors.OutOfRangeError:
            break
    return out


def pipeline_threads(kind: str = "") -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name.startswith(f"tfcluster-data-{kind}")]


def wait_until(condition: Any, timeout: float = 5.0) -> bool:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        gc.collect()
        if condition():
            return True
        time.sleep(0.02)
    return condition()


# ---- threads -------------------------------------------------------------------------------
def test_a_parallel_map_runs_in_as_many_pipeline_threads_as_calls() -> None:
    with tf.Graph().as_default():
        ds = tf.data.Dataset.range(10**6).map(lambda x: x * 2, num_parallel_calls=3)
        nxt = ds.take(100).make_one_shot_iterator().get_next()
        with tf.Session() as sess:
            assert sess.run(nxt) == 0
            assert len(pipeline_threads("map")) == 3
            assert [int(v) for v in read_all(sess, nxt)] == list(range(2, 200, 2))


def test_closing_the_session_stops_the_pipeline_threads() -> None:
    before = set(pipeline_threads())
    with tf.Graph().as_default():
        ds = tf.data.Dataset.range(10**6).map(lambda x: x + 1, num_parallel_calls=2).prefetch(4)
        nxt = ds.make_one_shot_iterator().get_next()
        sess = tf.Session()
        sess.run(nxt)
        started = set(pipeline_threads()) - before
        assert len(started) == 3  # the prefetch and two map threads
        sess.close()
        del sess
    assert wait_until(lambda: not (started & set(pipeline_threads())))


def test_reinitializing_an_iterator_stops_its_old_pipeline() -> None:
    with tf.Graph().as_default():
        it = tf.data.Dataset.range(10**6).prefetch(8).make_initializable_iterator()
        nxt = it.get_next()
        with tf.Session() as sess:
            sess.run(it.initializer)
            sess.run(nxt)
            first = set(pipeline_threads("prefetch"))
            assert first
            sess.run(it.initializer)
            assert sess.run(nxt) == 0
            assert wait_until(lambda: not (first & set(pipeline_threads("prefetch"))))


def test_parallel_reads_interleave_files_each_in_its_own_thread(tmp_path: Any) -> None:
    paths = []
    for k in range(3):
        path = str(tmp_path / f"f{k}.tfrecord")
        with tf.python_io.TFRecordWriter(path) as w:
            for i in range(4):
                w.write(f"{k}-{i}".encode())
        paths.append(path)
    with tf.Graph().as_default():
        nxt = (
            tf.data.TFRecordDataset(paths, num_parallel_reads=3).make_one_shot_iterator().get_next()
        )
        with tf.Session() as sess:
            got = read_all(sess, nxt)
    # One record of each file in turn, as TF's parallel interleave with block 1.
    assert got == [f"{k}-{i}".encode() for i in range(4) for k in range(3)]


def _interleave_order(files: list[list[bytes]], cycle: int, block: int) -> list[bytes]:
    """TF's interleave order, element by element: `cycle` files open, `block` records of each
    in turn, a finished one replaced by the next file."""
    pending = [list(f) for f in files]
    slots: list[list[bytes] | None] = [None] * cycle
    out: list[bytes] = []
    index = 0
    while True:
        if slots[index] is None and pending:
            slots[index] = pending.pop(0)
        slot = slots[index]
        if slot is not None:
            took = 0
            while slot and took < block:
                out.append(slot.pop(0))
                took += 1
            if not slot and took < block:
                slots[index] = None  # found finished in its turn: the next file waits
        if all(s is None for s in slots) and not pending:
            return out
        index = (index + 1) % cycle


@pytest.mark.parametrize(("cycle", "block"), [(2, 1), (3, 1), (2, 3), (4, 2)])
def test_batches_through_interleaved_files_keep_the_element_order(
    tmp_path: Any, cycle: int, block: int
) -> None:
    # Whole rounds of the interleave are read from each file at once under a batch.
    sizes = [5, 130, 7, 260, 0, 64]
    files = [[f"{k}-{i}".encode() for i in range(n)] for k, n in enumerate(sizes)]
    paths = []
    for k, records in enumerate(files):
        paths.append(str(tmp_path / f"f{k}.tfrecord"))
        with tf.python_io.TFRecordWriter(paths[-1]) as w:
            for r in records:
                w.write(r)
    expected = _interleave_order(files, cycle, block)
    with tf.Graph().as_default():
        names = tf.data.Dataset.from_tensor_slices(paths)
        ds = names.interleave(tf.data.TFRecordDataset, cycle_length=cycle, block_length=block)
        one = ds.make_one_shot_iterator().get_next()
        batches = ds.batch(64).make_one_shot_iterator().get_next()
        with tf.Session() as sess:
            assert read_all(sess, one) == expected
            got = read_all(sess, batches)
    assert [b.tolist() for b in got] == [expected[i : i + 64] for i in range(0, len(expected), 64)]


def test_a_bad_record_in_an_interleaved_file_fails_its_batch_in_its_place(
    tmp_path: Any,
) -> None:
    good = [f"g-{i}".encode() for i in range(100)]
    bad = [f"b-{i}".encode() for i in range(100)]
    paths = [str(tmp_path / "good.tfrecord"), str(tmp_path / "bad.tfrecord")]
    for path, records in zip(paths, (good, bad)):
        with tf.python_io.TFRecordWriter(path) as w:
            for r in records:
                w.write(r)
    data = bytearray((tmp_path / "bad.tfrecord").read_bytes())
    at = sum(len(r) + 16 for r in bad[:40]) + 12  # the data of record 40
    data[at] ^= 1
    (tmp_path / "bad.tfrecord").write_bytes(bytes(data))

    def run(batch: int) -> list[Any]:
        with tf.Graph().as_default():
            ds = tf.data.Dataset.from_tensor_slices(paths).interleave(
                tf.data.TFRecordDataset, cycle_length=2
            )
            nxt = ds.batch(batch).make_one_shot_iterator().get_next()
            out: list[Any] = []
            with tf.Session() as sess:
                for _ in range(200):
                    try:
                        out.append(sess.run(nxt).tolist())
                    except tf.errors.DataLossError as e:
                        out.append(f"DataLossError at {str(e).split(' in file')[0]}")
                    except tf.errors.OutOfRangeError:
                        break
            return out

    # Batches of 1 go element by element; batches of 32 read whole rounds ahead.
    one_by_one = run(1)
    assert f"DataLossError at corrupted record at {at}" in one_by_one
    flat: list[Any] = []
    for item in one_by_one:
        flat += item if isinstance(item, list) else [item]
    batched = run(32)
    expected: list[Any] = []
    chunk: list[Any] = []
    for item in flat:
        if isinstance(item, str):
            expected.append(item)  # the batch with the error is lost, as in TF
            chunk = []
            continue
        chunk.append(item)
        if len(chunk) == 32:
            expected.append(chunk)
            chunk = []
    if chunk:
        expected.append(chunk)
    assert batched == expected


# ---- blocking and deadlines ----------------------------------------------------------------
def test_get_next_gives_up_at_the_step_deadline_and_the_session_goes_on() -> None:
    with tf.Graph().as_default():
        q = tf.FIFOQueue(10, tf.int64, shapes=[[]])
        ds = tf.data.Dataset.range(3).map(lambda x: x + q.dequeue())
        it = ds.make_initializable_iterator()
        nxt = it.get_next()
        push = q.enqueue(tf.constant(100, tf.int64))
        with tf.Session() as sess:
            sess.run(it.initializer)
            with pytest.raises(tf.errors.DeadlineExceededError):
                sess.run(nxt, options=tf.RunOptions(timeout_in_ms=200))
            sess.run(push)
            # The element whose function was cut short is gone, as in TF: the next one.
            assert sess.run(nxt) == 101


# ---- caches --------------------------------------------------------------------------------
def _counted(n: int) -> tuple[Any, list[int]]:
    calls: list[int] = []

    def gen() -> Any:
        calls.append(1)
        yield from range(n)

    return gen, calls


def test_a_memory_cache_is_filled_by_a_complete_pass_only() -> None:
    gen, calls = _counted(3)
    with tf.Graph().as_default():
        ds = tf.data.Dataset.from_generator(gen, tf.int64, tf.TensorShape([])).cache().repeat(3)
        with tf.Session() as sess:
            assert read_all(sess, ds.make_one_shot_iterator().get_next()) == [0, 1, 2] * 3
    assert len(calls) == 1
    gen, calls = _counted(3)
    with tf.Graph().as_default():
        ds = tf.data.Dataset.from_generator(gen, tf.int64, tf.TensorShape([]))
        ds = ds.cache().take(2).repeat(3)
        with tf.Session() as sess:
            assert read_all(sess, ds.make_one_shot_iterator().get_next()) == [0, 1] * 3
    assert len(calls) == 3  # no pass ever completed, so none was cached


def test_a_file_cache_is_written_once_and_read_back(tmp_path: Any) -> None:
    prefix = str(tmp_path / "cache")
    gen, calls = _counted(4)
    with tf.Graph().as_default():
        ds = tf.data.Dataset.from_generator(gen, tf.int64, tf.TensorShape([]))
        ds = ds.map(lambda x: (x, tf.fill([x], "s"))).cache(prefix)
        with tf.Session() as sess:
            for _ in range(2):
                got = read_all(sess, ds.make_one_shot_iterator().get_next())
                assert [int(a) for a, _ in got] == [0, 1, 2, 3]
                assert [b.tolist() for _, b in got][2] == [b"s", b"s"]
    assert len(calls) == 1
    assert os.path.exists(prefix + ".tfcluster-cache")
    # Another pipeline on the same prefix reads what the cache holds.
    with tf.Graph().as_default():
        other = tf.data.Dataset.range(100).map(lambda x: (x, tf.fill([x], "t"))).cache(prefix)
        with tf.Session() as sess:
            assert [
                int(a) for a, _ in read_all(sess, other.make_one_shot_iterator().get_next())
            ] == [0, 1, 2, 3]


def test_two_writers_of_one_file_cache_are_refused(tmp_path: Any) -> None:
    prefix = str(tmp_path / "busy")
    with tf.Graph().as_default():
        ds = tf.data.Dataset.range(10).cache(prefix)
        a, b = ds.make_initializable_iterator(), ds.make_initializable_iterator()
        with tf.Session() as sess:
            sess.run([a.initializer, b.initializer])
            assert sess.run(a.get_next()) == 0
            with pytest.raises(tf.errors.AlreadyExistsError, match="lockfile"):
                sess.run(b.get_next())
            assert sess.run(a.get_next()) == 1


# ---- training ------------------------------------------------------------------------------
def test_monitored_training_session_stops_when_the_dataset_ends() -> None:
    xs = np.arange(20, dtype=np.float32).reshape(10, 2)
    with tf.Graph().as_default():
        x = (
            tf.data.Dataset.from_tensor_slices(xs)
            .batch(3)
            .repeat(2)
            .make_one_shot_iterator()
            .get_next()
        )
        w = tf.Variable(0.0)
        step = tf.train.get_or_create_global_step()
        train = tf.group(w.assign_add(tf.reduce_sum(x)), step.assign_add(1))
        steps = 0
        with tf.train.MonitoredTrainingSession() as sess:
            while not sess.should_stop():
                sess.run(train)
                steps += 1
    assert steps == 8


# ---- the batched form of map functions -----------------------------------------------------
def _examples() -> list[bytes]:
    out = []
    for i in range(7):
        feature = {
            "v": tf.train.Feature(float_list=tf.train.FloatList(value=[i, 2.0 * i, -1.0])),
            "n": tf.train.Feature(int64_list=tf.train.Int64List(value=[i])),
            "tags": tf.train.Feature(bytes_list=tf.train.BytesList(value=[b"t"] * (i % 3))),
        }
        out.append(
            tf.train.Example(features=tf.train.Features(feature=feature)).SerializeToString()
        )
    return out


FUNCTIONS = {
    "parse_and_math": lambda s: (
        lambda f: (tf.reduce_sum(f["v"] * 2.0, axis=0) + tf.cast(f["n"], tf.float32), f["n"] + 1)
    )(
        tf.parse_single_example(
            s, {"v": tf.FixedLenFeature([3], tf.float32), "n": tf.FixedLenFeature([], tf.int64)}
        )
    ),
    "sparse_feature": lambda s: tf.parse_single_example(
        s, {"tags": tf.VarLenFeature(tf.string), "n": tf.FixedLenFeature([], tf.int64)}
    ),
    "reshape_slice_onehot": lambda s: (
        lambda v: (
            tf.reshape(v, [3, 1])[1:, 0],
            tf.one_hot(tf.cast(v[0], tf.int32) % 4, 4),
            tf.expand_dims(tf.transpose(tf.reshape(v, [1, 3])), 0),
            tf.constant(5),
        )
    )(tf.parse_single_example(s, {"v": tf.FixedLenFeature([3], tf.float32)})["v"]),
}


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_a_batched_map_gives_what_mapping_each_element_gives(name: str) -> None:
    records = _examples()
    fn = FUNCTIONS[name]
    with tf.Graph().as_default():
        source = tf.data.Dataset.from_tensor_slices(records)
        batched = source.map(fn).batch(3).make_one_shot_iterator().get_next()
        singles = source.map(fn).make_one_shot_iterator().get_next()
        vectorized = [
            op for op in tf.get_default_graph().get_operations() if op.type == "MapDataset"
        ]
        assert "vectorized_f" in vectorized[0].attrs
        with tf.Session() as sess:
            got = read_all(sess, batched)
            each = read_all(sess, singles)
    assert len(got) == 3
    # Rebuild the batches from the single elements with numpy, and compare leaf by leaf.
    for b, start in zip(got, range(0, 7, 3)):
        rows = each[start : start + 3]
        for key in range(len(_leaves(b))):
            batch_leaf = _leaves(b)[key]
            row_leaves = [_leaves(r)[key] for r in rows]
            if isinstance(batch_leaf, tf.SparseTensorValue):
                assert batch_leaf.values.tolist() == [
                    v for r in row_leaves for v in r.values.tolist()
                ]
                assert batch_leaf.dense_shape[0] == len(rows)
            else:
                np.testing.assert_array_equal(batch_leaf, np.stack(row_leaves))


def _leaves(value: Any) -> list[Any]:
    if isinstance(value, dict):
        return [v for k in sorted(value) for v in _leaves(value[k])]
    if isinstance(value, (tuple, list)) and not isinstance(value, tf.SparseTensorValue):
        return [v for x in value for v in _leaves(x)]
    return [value]


def test_a_map_before_shuffle_and_batch_runs_batched_with_the_same_elements() -> None:
    with tf.Graph().as_default():
        ds = tf.data.Dataset.range(50).map(lambda x: x * 3).shuffle(20, seed=2).batch(10)
        with tf.Session() as sess:
            got = read_all(sess, ds.make_one_shot_iterator().get_next())
    assert sorted(int(v) for b in got for v in b) == list(range(0, 150, 3))


def test_a_failed_batched_call_maps_the_elements_one_by_one_for_tensorflows_error() -> None:
    with tf.Graph().as_default():
        ds = tf.data.Dataset.from_tensor_slices(["ab", "abcd", "ef", "gh"]).map(
            lambda s: tf.decode_raw(s, tf.uint8)
        )
        nxt = ds.batch(2).make_one_shot_iterator().get_next()
        with tf.Session() as sess:
            with pytest.raises(tf.errors.InvalidArgumentError, match="Cannot batch tensors"):
                sess.run(nxt)
            assert sess.run(nxt).tolist() == [[101, 102], [103, 104]]


def test_random_ops_in_a_batched_map_draw_for_each_element() -> None:
    with tf.Graph().as_default():
        ds = tf.data.Dataset.range(6).map(lambda x: tf.random_uniform([2], seed=7)).batch(6)
        with tf.Session() as sess:
            values = sess.run(ds.make_one_shot_iterator().get_next())
    assert values.shape == (6, 2) and len({tuple(r) for r in values.tolist()}) == 6


# ---- iterators -----------------------------------------------------------------------------
def test_a_feedable_iterator_refuses_a_handle_of_another_structure() -> None:
    with tf.Graph().as_default():
        floats = tf.data.Dataset.from_tensors(1.0).make_one_shot_iterator()
        handle = tf.placeholder(tf.string, [])
        nxt = tf.data.Iterator.from_string_handle(handle, tf.int64).get_next()
        with tf.Session() as sess:
            h = sess.run(floats.string_handle())
            with pytest.raises(tf.errors.InvalidArgumentError, match="types"):
                sess.run(nxt, {handle: h})
            with pytest.raises(tf.errors.InvalidArgumentError, match="parse"):
                sess.run(nxt, {handle: b"garbage"})


def test_iterators_are_tf1_graph_objects() -> None:
    with tf.Graph().as_default() as g:
        ds = tf.data.Dataset.range(3)
        with pytest.raises(RuntimeError) as e:
            iter(ds)
        # TF 1.15's message, word for word (its r1 TFRecord tutorial prints it).
        assert str(e.value) == (
            "__iter__() is only supported inside of tf.function or when eager execution is enabled."
        )
        it = ds.make_one_shot_iterator()
        with pytest.raises(ValueError, match="initializer"):
            it.initializer  # noqa: B018
        assert it._iterator_resource in g.get_collection("iterators")
        assert tf.data.get_output_types(it) == tf.int64
        assert tf.data.get_output_shapes(ds).as_list() == []
        assert tf.data.get_output_classes(ds) is tf.Tensor


# ---- options and tf.data.experimental ------------------------------------------------------
def test_options_merge_and_the_latest_value_wins() -> None:
    with tf.Graph().as_default():
        a = tf.data.Options()
        a.experimental_deterministic = False
        a.experimental_threading.private_threadpool_size = 4
        b = tf.data.Options()
        b.experimental_deterministic = True
        ds = tf.data.Dataset.range(3).with_options(a).map(lambda x: x).with_options(b)
        opts = ds.options()
        assert opts.experimental_deterministic is True
        assert opts.experimental_threading.private_threadpool_size == 4
        with pytest.raises(AttributeError):
            a.no_such_option = 1  # type: ignore[attr-defined]
        with pytest.raises(TypeError):
            a.experimental_deterministic = "yes"


def test_sample_from_datasets_draws_by_the_weights() -> None:
    with tf.Graph().as_default():
        ds = tf.data.experimental.sample_from_datasets(
            [
                tf.data.Dataset.from_tensors(np.int64(0)).repeat(),
                tf.data.Dataset.from_tensors(np.int64(1)).repeat(),
            ],
            weights=[0.8, 0.2],
            seed=5,
        ).take(2000)
        with tf.Session() as sess:
            ones = sum(int(v) for v in read_all(sess, ds.make_one_shot_iterator().get_next(), 3000))
    assert 300 < ones < 500


def test_make_batched_features_dataset_reads_tensorflows_files() -> None:
    pattern = os.path.join(records_cases.RECORDS_DIR, records_cases.TF_WRITTEN[""])
    features = {
        "label": tf.FixedLenFeature([], tf.int64),
        "weights": tf.FixedLenFeature([3], tf.float32),
    }
    with tf.Graph().as_default():
        ds = tf.data.experimental.make_batched_features_dataset(
            pattern, 2, features, label_key="label", num_epochs=1, shuffle=False
        )
        with tf.Session() as sess:
            got = read_all(sess, ds.make_one_shot_iterator().get_next())
    assert sum(len(y) for _, y in got) == records_cases.NUM_EXAMPLES
    assert [int(v) for _, y in got for v in y] == [i % 3 for i in range(records_cases.NUM_EXAMPLES)]
    assert got[0][0]["weights"].shape == (2, 3)


def test_single_element_cardinality_and_counter() -> None:
    with tf.Graph().as_default():
        one = tf.data.experimental.get_single_element(tf.data.Dataset.from_tensors((1, "a")))
        n = tf.data.experimental.cardinality(tf.data.Dataset.range(10).batch(3))
        inf = tf.data.experimental.cardinality(tf.data.Dataset.range(2).repeat())
        counter = tf.data.experimental.Counter(5, -2).take(3).make_one_shot_iterator().get_next()
        too_many = tf.data.experimental.get_single_element(tf.data.Dataset.range(2))
        with tf.Session() as sess:
            assert sess.run(one) == (1, b"a")
            assert sess.run([n, inf]) == [4, tf.data.experimental.INFINITE_CARDINALITY]
            assert read_all(sess, counter) == [5, 3, 1]
            with pytest.raises(tf.errors.InvalidArgumentError, match="more than one"):
                sess.run(too_many)
