"""The placer with GPUs: tasks are described directly (TaskDevices with GPU counts), so these
run without a GPU and test the placement rules themselves (which ops have GPU kernels is the
real kernel table; registering the GPU kernels needs no cupy)."""

from __future__ import annotations

import numpy as np
import pytest
import tfcluster as tf
from tfcluster.runtime import gpu, placement
from tfcluster.runtime.graph_ir import node_from_operation
from tfcluster.runtime.placement import TaskDevices

GPU = "/job:w/replica:0/task:0/device:GPU:0"
CPU = "/job:w/replica:0/task:0/device:CPU:0"
WITH_GPU = [TaskDevices("w", 0, {"CPU": 1, "GPU": 1})]
CPU_ONLY = [TaskDevices("w", 0, {"CPU": 1})]


def _place(
    tasks: list[TaskDevices], allow_soft: bool = False, prefer_gpu: bool = True
) -> dict[str, str]:
    ops = tf.get_default_graph().get_operations()
    nodes = {op.name: node_from_operation(op) for op in ops}
    return placement.place(nodes, list(nodes), tasks, allow_soft, prefer_gpu)


def _mlp_layer() -> tf.Tensor:
    x = tf.constant(np.ones((2, 3), np.float32), name="x")
    w = tf.constant(np.ones((3, 4), np.float32), name="w")
    return tf.nn.relu(tf.matmul(x, w, name="mm"), name="act")


def test_ops_with_gpu_kernels_go_to_gpu0_when_the_task_has_one() -> None:
    _mlp_layer()
    placed = _place(WITH_GPU)
    assert placed["mm"] == placed["act"] == placed["x"] == GPU


def test_prefer_gpu_off_and_tasks_without_gpus_keep_everything_on_cpu() -> None:
    _mlp_layer()
    assert set(_place(WITH_GPU, prefer_gpu=False).values()) == {CPU}
    assert set(_place(CPU_ONLY).values()) == {CPU}


def test_explicit_cpu_placement_wins_over_a_present_gpu() -> None:
    with tf.device("/cpu:0"):
        _mlp_layer()
    assert set(_place(WITH_GPU).values()) == {CPU}


@pytest.mark.parametrize("device", ["/gpu:0", "/device:GPU:0", "/device:gpu:0"])
def test_gpu_placement_on_a_task_without_gpus(device: str) -> None:
    with tf.device(device):
        _mlp_layer()
    with pytest.raises(tf.errors.InvalidArgumentError) as e:
        _place(CPU_ONLY)
    # TF 1.15's placer message: the devices there are, and the hint about a GPU.
    assert "was explicitly assigned to /device:GPU:0 but available devices are [ " in (
        e.value.message
    )
    assert "/job:w/replica:0/task:0/device:CPU:0 ]" in e.value.message
    assert "The requested device appears to be a GPU, but CUDA is not enabled." in e.value.message
    assert set(_place(CPU_ONLY, allow_soft=True).values()) == {CPU}


def test_a_gpu_index_the_task_does_not_have() -> None:
    with tf.device("/gpu:1"):
        _mlp_layer()
    with pytest.raises(
        tf.errors.InvalidArgumentError, match=r"assigned to /device:GPU:1 but available devices"
    ) as e:
        _place(WITH_GPU)
    assert "/job:w/replica:0/task:0/device:GPU:0 ]" in e.value.message
    assert "CUDA" not in e.value.message
    assert set(_place(WITH_GPU, allow_soft=True).values()) == {CPU}
    two = [TaskDevices("w", 0, {"CPU": 1, "GPU": 2})]
    assert set(_place(two).values()) == {"/job:w/replica:0/task:0/device:GPU:1"}


def test_ops_without_gpu_kernels_stay_on_cpu() -> None:
    q = tf.FIFOQueue(4, [tf.float32], name="q")
    enq = q.enqueue([tf.constant(1.0, name="one")], name="enq")
    s = tf.summary.scalar("loss", tf.constant(2.0, name="two") * 3.0)
    placed = _place(WITH_GPU)
    assert placed["q"] == placed["enq"] == placed[s.op.name] == CPU
    # Their numeric inputs have GPU kernels and are not colocated with them.
    assert placed["one"] == placed["two"] == GPU
    assert enq.type == "QueueEnqueueV2"


def test_explicit_gpu_for_an_op_without_gpu_kernel() -> None:
    with tf.device("/gpu:0"):
        tf.FIFOQueue(4, [tf.float32], name="q")
    with pytest.raises(tf.errors.InvalidArgumentError) as e:
        _place(WITH_GPU)
    assert "no supported kernel for GPU devices is available." in e.value.message
    assert "\nFIFOQueueV2: CPU \n" in e.value.message
    assert _place(WITH_GPU, allow_soft=True)["q"] == CPU


def test_string_tensors_stay_on_cpu() -> None:
    tf.constant([b"a", b"bc"], name="s")
    tf.constant([1.0, 2.0], name="f")
    tf.identity(tf.constant([b"x"], name="s2"), name="s_id")
    placed = _place(WITH_GPU)
    assert placed["s"] == placed["s2"] == placed["s_id"] == CPU
    assert placed["f"] == GPU


def test_explicit_gpu_for_a_string_op() -> None:
    with tf.device("/gpu:0"):
        tf.constant([b"a"], name="s")
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"\nConst: CPU \n"):
        _place(WITH_GPU)
    assert _place(WITH_GPU, allow_soft=True)["s"] == CPU


def test_variables_follow_tf_default_and_explicit_placement() -> None:
    v = tf.Variable(np.ones(3, np.float32), name="v")
    with tf.device("/cpu:0"):
        c = tf.Variable(np.ones(3, np.float32), name="c")
    tf.assign_add(c, v, name="upd")
    placed = _place(WITH_GPU)
    # As in TF: a variable goes to the GPU by default, with its initializer and reads.
    assert placed["v"] == placed[v.initializer.name] == placed["v/read"] == GPU
    # The update of a CPU variable runs where the variable lives (reference input).
    assert placed["c"] == placed["upd"] == placed[c.initializer.name] == CPU


def test_colocation_group_with_a_cpu_only_member_goes_to_cpu() -> None:
    v = tf.Variable(np.ones(3, np.float32), name="v")
    vals = tf.constant([1, 1, 2], name="vals")
    with tf.colocate_with(v.op):
        tf.unique(vals, name="uniq")
    placed = _place(WITH_GPU)
    # Unique has no GPU kernel: the whole group (the variable too) stays on the CPU.
    assert placed["v"] == placed["uniq"] == CPU
    assert placed["vals"] == GPU


def test_ps_variables_on_cpu_worker_compute_on_gpu() -> None:
    tasks = [TaskDevices("ps", 0, {"CPU": 1}), TaskDevices("worker", 0, {"CPU": 1, "GPU": 1})]
    with tf.device("/job:ps/task:0"):
        w = tf.Variable(np.ones((3, 2), np.float32), name="w")
    with tf.device("/job:worker/task:0"):
        x = tf.constant(np.ones((4, 3), np.float32), name="x")
        y = tf.matmul(x, w, name="y")
        step = tf.train.GradientDescentOptimizer(0.1).minimize(tf.reduce_sum(y), name="train")
    placed = _place(tasks)
    assert placed["w"] == "/job:ps/replica:0/task:0/device:CPU:0"
    assert placed["x"] == placed["y"] == "/job:worker/replica:0/task:0/device:GPU:0"
    # The update op is colocated with the variable it updates: on the ps.
    update = [n for n, d in placed.items() if n.startswith("train/update_w")]
    assert update and all(placed[n].startswith("/job:ps/") for n in update)
    assert step.type == "NoOp"


@pytest.mark.skipif(bool(gpu.local_gpus()), reason="this machine has a GPU")
def test_session_soft_placement_without_gpu_runs_on_cpu() -> None:
    with tf.device("/gpu:0"):
        y = _mlp_layer()
    config = tf.ConfigProto(allow_soft_placement=True)
    meta = tf.RunMetadata()
    with tf.Session(config=config) as sess:
        out = sess.run(
            y, options=tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE), run_metadata=meta
        )
        devices = [d.name for d in sess.list_devices()]
    np.testing.assert_array_equal(out, np.full((2, 4), 3.0, np.float32))
    assert devices == [f"/job:localhost/replica:0/task:0/device:{k}:0" for k in ("CPU", "XLA_CPU")]
    ran = {d.device for d in meta.step_stats.dev_stats if len(d.node_stats) > 1}
    assert ran == {"/job:localhost/replica:0/task:0/device:CPU:0"}


@pytest.mark.skipif(bool(gpu.local_gpus()), reason="this machine has a GPU")
def test_session_gpu_placement_without_gpu_is_invalid_argument() -> None:
    with tf.device("/device:GPU:0"):
        y = _mlp_layer()
    with tf.Session() as sess, pytest.raises(tf.errors.InvalidArgumentError) as e:
        sess.run(y)
    assert "Cannot assign a device for operation" in e.value.message
    assert "Make sure the device specification refers to a valid device." in e.value.message


def test_device_count_limits_the_gpus_a_session_may_use() -> None:
    tasks = [TaskDevices("w", 0, {"CPU": 1, "GPU": 2}), TaskDevices("ps", 0, {"CPU": 1})]
    no_gpu = placement.limit_devices(tasks, {"GPU": 0, "CPU": 0})
    assert [t.counts for t in no_gpu] == [{"CPU": 1, "GPU": 0}, {"CPU": 1}]
    assert placement.limit_devices(tasks, {"gpu": 1})[0].counts == {"CPU": 1, "GPU": 1}
    assert placement.limit_devices(tasks, {}) is tasks
    _mlp_layer()
    assert set(_place(placement.limit_devices(WITH_GPU, {"GPU": 0})).values()) == {CPU}


def test_session_with_no_gpus_allowed_runs_on_cpu() -> None:
    y = _mlp_layer()
    meta = tf.RunMetadata()
    trace = tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE)
    with tf.Session(config=tf.ConfigProto(device_count={"GPU": 0})) as sess:
        out = sess.run(y, options=trace, run_metadata=meta)
    np.testing.assert_array_equal(out, np.full((2, 4), 3.0, np.float32))
    # Holds on a machine with GPUs too: the session may not use them.
    ran = {d.device for d in meta.step_stats.dev_stats if len(d.node_stats) > 1}
    assert ran == {"/job:localhost/replica:0/task:0/device:CPU:0"}
