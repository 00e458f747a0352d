"""tf.data on a cluster of task servers: a dataset placed on a task runs there and its
iterator's state lives in that task's resources (shared by name across sessions, cleared by
Session.reset); get_next from another task pulls the elements across the cluster; every
worker of a between-graph program reads its own shard; bad input on a remote task is TF's
error class and the session goes on."""

from __future__ import annotations

import os

import numpy as np
import pytest
import tfcluster as tf
from support.cluster_processes import Cluster, free_ports

pytestmark = [pytest.mark.integration, pytest.mark.timeout(180)]

PS = "/job:ps/replica:0/task:0/device:CPU:0"
WORKER0 = "/job:worker/replica:0/task:0/device:CPU:0"


@pytest.fixture
def ps_workers(cluster: Cluster) -> Cluster:
    ports = free_ports(3)
    cluster.start({"ps": [ports[0]], "worker": ports[1:]})
    return cluster


def _devices_of(run_metadata: tf.RunMetadata) -> dict[str, str]:
    """node name -> the device it ran on, from a traced step."""
    out = {}
    for dev in run_metadata.step_stats.dev_stats:
        for ns in dev.node_stats:
            out[ns.node_name] = dev.device
    return out


def test_a_dataset_on_the_ps_runs_there_and_a_worker_op_pulls_its_elements(
    ps_workers: Cluster,
) -> None:
    with tf.Graph().as_default():
        with tf.device("/job:ps/task:0"):
            ds = tf.data.Dataset.range(10).map(lambda x: x * 3).batch(4)
            it = ds.make_initializable_iterator()
            batch = it.get_next()
        with tf.device("/job:worker/task:0"):
            doubled = batch * 2
        with tf.Session(ps_workers.task("worker", 0).target) as sess:
            sess.run(it.initializer)
            meta = tf.RunMetadata()
            opts = tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE)
            got = sess.run(doubled, options=opts, run_metadata=meta)
            assert got.tolist() == [0, 6, 12, 18]
            devices = _devices_of(meta)
            assert devices["IteratorGetNext"] == PS
            assert devices[doubled.op.name] == WORKER0
            assert sess.run(doubled).tolist() == [24, 30, 36, 42]
            assert sess.run(doubled).tolist() == [48, 54]
            with pytest.raises(tf.errors.OutOfRangeError):
                sess.run(doubled)


def test_a_shared_iterator_on_the_ps_hands_each_element_to_one_session(
    ps_workers: Cluster,
) -> None:
    """The iterator is the ps's resource: two clients read one sequence between them."""
    targets = [ps_workers.task("worker", i).target for i in range(2)]
    with tf.Graph().as_default():
        with tf.device("/job:ps/task:0"):
            it = tf.data.Dataset.range(20).make_initializable_iterator(shared_name="shared_it")
            nxt = it.get_next()
        with tf.Session(targets[0]) as s0, tf.Session(targets[1]) as s1:
            s0.run(it.initializer)
            seen = []
            for i in range(20):
                seen.append(int((s0 if i % 2 else s1).run(nxt)))
            assert seen == list(range(20))
            with pytest.raises(tf.errors.OutOfRangeError):
                s1.run(nxt)
            # Session.reset drops the ps's resources (and closes the sessions of that master):
            # the shared iterator is new, uninitialized.
            tf.Session.reset(targets[0])
            with pytest.raises(tf.errors.FailedPreconditionError, match="not been initialized"):
                s1.run(nxt)
            s1.run(it.initializer)
            assert int(s1.run(nxt)) == 0


def test_each_worker_of_a_between_graph_program_reads_its_own_shard(
    ps_workers: Cluster, tmp_path: object
) -> None:
    directory = str(tmp_path)
    for k in range(4):
        with tf.python_io.TFRecordWriter(os.path.join(directory, f"part-{k}.tfrecord")) as w:
            for i in range(5):
                w.write(f"{k}:{i}".encode())
    read: list[list[bytes]] = []
    for index in range(2):
        with tf.Graph().as_default():
            with tf.device(f"/job:worker/task:{index}"):
                files = tf.data.Dataset.list_files(
                    os.path.join(directory, "*.tfrecord"), shuffle=False
                )
                records = files.shard(2, index).interleave(tf.data.TFRecordDataset, cycle_length=2)
                nxt = records.make_one_shot_iterator().get_next()
            with tf.Session(ps_workers.task("worker", index).target) as sess:
                mine = []
                while True:
                    try:
                        mine.append(sess.run(nxt))
                    except tf.errors.OutOfRangeError:
                        break
            read.append(mine)
    assert {r.split(b":")[0] for r in read[0]} == {b"0", b"2"}
    assert {r.split(b":")[0] for r in read[1]} == {b"1", b"3"}
    assert sorted(read[0] + read[1]) == sorted(
        f"{k}:{i}".encode() for k in range(4) for i in range(5)
    )


def test_bad_input_on_a_remote_task_is_tensorflows_error_and_the_session_goes_on(
    ps_workers: Cluster, tmp_path: object
) -> None:
    path = os.path.join(str(tmp_path), "bad.tfrecord")
    with tf.python_io.TFRecordWriter(path) as w:
        for i in range(3):
            w.write(b"record-%d" % i)
    with open(path, "rb") as f:
        data = bytearray(f.read())
    data[len(data) // 2] ^= 0xFF
    with open(path, "wb") as f:
        f.write(bytes(data))
    with tf.Graph().as_default():
        with tf.device("/job:ps/task:0"):
            it = tf.data.TFRecordDataset(path).make_initializable_iterator()
            nxt = it.get_next()
            numbers = tf.data.Dataset.from_tensor_slices(["1", "x", "3"]).map(tf.string_to_number)
            num = numbers.make_one_shot_iterator().get_next()
        with tf.Session(ps_workers.task("worker", 1).target) as sess:
            sess.run(it.initializer)
            assert sess.run(nxt) == b"record-0"
            with pytest.raises(
                tf.errors.DataLossError, match=r"corrupted record at \d+ in file .*bad.tfrecord"
            ):
                sess.run(nxt)
            assert float(sess.run(num)) == 1.0
            with pytest.raises(tf.errors.InvalidArgumentError):
                sess.run(num)
            assert float(sess.run(num)) == 3.0


def test_a_string_handle_names_its_task(ps_workers: Cluster) -> None:
    """A feedable iterator reads the iterator a handle names, on the task that holds it; a
    handle used on another task is a clear InvalidArgumentError."""
    with tf.Graph().as_default():
        with tf.device("/job:ps/task:0"):
            train = tf.data.Dataset.range(100, 200).make_one_shot_iterator()
            test = tf.data.Dataset.range(5).make_initializable_iterator()
            handle = tf.placeholder(tf.string, [])
            feedable = tf.data.Iterator.from_string_handle(handle, train.output_types)
            nxt = feedable.get_next()
        with tf.device("/job:worker/task:1"):
            elsewhere = tf.data.Iterator.from_string_handle(handle, train.output_types).get_next()
        with tf.Session(ps_workers.task("worker", 0).target) as sess:
            h_train, h_test = sess.run([train.string_handle(), test.string_handle()])
            sess.run(test.initializer)
            assert [
                int(sess.run(nxt, {handle: h})) for h in (h_train, h_test, h_train, h_test)
            ] == [
                100,
                0,
                101,
                1,
            ]
            with pytest.raises(tf.errors.InvalidArgumentError, match="not on this task"):
                sess.run(elsewhere, {handle: h_train})
            assert int(sess.run(nxt, {handle: h_train})) == 102


def test_training_reads_batches_from_a_dataset_on_each_worker(ps_workers: Cluster) -> None:
    """Between-graph style: variables on the ps, each worker's input pipeline on the worker;
    MonitoredTrainingSession stops when the dataset ends."""
    rng = np.random.default_rng(0)
    xs = rng.normal(size=(64, 3)).astype(np.float32)
    ys = xs @ np.array([[1.0], [-2.0], [0.5]], dtype=np.float32)
    cluster = tf.train.ClusterSpec(
        {
            "ps": [f"localhost:{ps_workers.task('ps', 0).port}"],
            "worker": [f"localhost:{ps_workers.task('worker', i).port}" for i in range(2)],
        }
    )
    with tf.Graph().as_default():
        with tf.device(
            tf.train.replica_device_setter(worker_device="/job:worker/task:0", cluster=cluster)
        ):
            ds = tf.data.Dataset.from_tensor_slices((xs, ys)).shard(2, 0).batch(8).repeat(5)
            x, y = ds.make_one_shot_iterator().get_next()
            w = tf.Variable(tf.zeros([3, 1]), name="w")
            loss = tf.reduce_mean(tf.square(tf.matmul(x, w) - y))
            step = tf.train.get_or_create_global_step()
            train = tf.train.GradientDescentOptimizer(0.1).minimize(loss, global_step=step)
        steps = 0
        with tf.train.MonitoredTrainingSession(
            master=ps_workers.task("worker", 0).target, is_chief=True
        ) as sess:
            while not sess.should_stop():
                sess.run(train)
                steps += 1
        assert steps == 5 * 32 // 8


def test_a_pipeline_stays_on_the_task_of_its_dataset(ps_workers: Cluster) -> None:
    """A transformation made under another device joins its dataset's task (a dataset is a
    value of that task), as an op reading a variable goes where the variable is."""
    with tf.Graph().as_default():
        with tf.device("/job:ps/task:0"):
            ds = tf.data.Dataset.range(6)
        with tf.device("/job:worker/task:1"):
            it = ds.map(lambda x: x + 1).batch(3).make_initializable_iterator()
            nxt = it.get_next()
        with tf.Session(ps_workers.task("worker", 0).target) as sess:
            meta = tf.RunMetadata()
            opts = tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE)
            sess.run(it.initializer, options=opts, run_metadata=meta)
            devices = _devices_of(meta)
            assert {
                devices[n] for n in ("RangeDataset", "MapDataset", "BatchDatasetV2", "MakeIterator")
            } == {PS}
            assert sess.run(nxt).tolist() == [1, 2, 3]


def test_a_generator_runs_only_in_the_process_that_made_it(ps_workers: Cluster) -> None:
    with tf.Graph().as_default():
        with tf.device("/job:ps/task:0"):
            ds = tf.data.Dataset.from_generator(lambda: iter([1, 2]), tf.int64)
            nxt = ds.make_one_shot_iterator().get_next()
        with (
            tf.Session(ps_workers.task("worker", 0).target) as sess,
            pytest.raises(tf.errors.FailedPreconditionError, match="process that built"),
        ):
            sess.run(nxt)
