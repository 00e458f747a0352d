"""TF 1.15's older raw op types (BatchMatMulV2, Concat, Gather, Mod, Inv, MaxPoolV2, UniqueV2,
the Batch* linalg names, ...) compute what TF 1.15 computed: each program of
tests/tf_reference/legacy_ops_cases.py runs here and is compared with TF 1.15's recorded
answers (record_legacy_ops.py), as are GraphDefs TF 1.15 wrote that hold them."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import tfcluster as tf
from tf_reference import reference
from tf_reference.legacy_ops_cases import CASES

AREA = "legacy_ops"
# TF 1.15's InplaceAdd does not check its row indices (it writes out of bounds); tfcluster
# refuses them with InvalidArgumentError.
_NOT_COMPARED = {("inplace_updates", "bad_index")}


def _assert_same(got: Any, recorded: Any, where: str) -> None:
    if isinstance(recorded, dict):
        assert sorted(got) == sorted(recorded), where
        for k in recorded:
            _assert_same(got[k], recorded[k], f"{where}.{k}")
    elif isinstance(recorded, (list, tuple)):
        assert len(got) == len(recorded), where
        for i, (g, r) in enumerate(zip(got, recorded)):
            _assert_same(g, r, f"{where}[{i}]")
    elif isinstance(recorded, np.ndarray):
        got_a = np.asarray(got)
        assert got_a.shape == recorded.shape, where
        if recorded.dtype != object:
            assert got_a.dtype == recorded.dtype, where
            reference.assert_close(got_a, recorded, rtol=1e-5, atol=1e-5)
        else:
            assert got_a.tolist() == recorded.tolist(), where
    else:
        assert got == recorded, where


@pytest.mark.parametrize("name", sorted(CASES))
def test_program_computes_what_tf_computed(name: str) -> None:
    tf.reset_default_graph()
    got = CASES[name](tf)
    recorded = dict(reference.case(AREA, name))
    for case, key in _NOT_COMPARED:
        if case == name:
            got.pop(key)
            recorded.pop(key)
    _assert_same(got, recorded, name)


def test_inplace_add_refuses_rows_out_of_range() -> None:
    x = tf.zeros([2, 2])
    y = tf.raw_ops.InplaceAdd(x=x, i=[3], v=tf.ones([1, 2]))
    with tf.Session() as sess, pytest.raises(tf.errors.InvalidArgumentError):
        sess.run(y)


def test_batch_matmul_v2_graph_def_from_tf_runs_to_tfs_values() -> None:
    case = reference.case(AREA, "batch_matmul_v2_graph_def")
    assert "BatchMatMulV2" in case["op_types"]
    graph_def = tf.GraphDef.FromString(case["graph_def"])
    with tf.Graph().as_default() as g:
        tf.import_graph_def(graph_def, name="")
        types = {op.type for op in g.get_operations()}
        assert "BatchMatMulV2" in types
        feeds = {f"{k}:0": v for k, v in case["feeds"].items()}
        with tf.Session(graph=g) as sess:
            values = sess.run(case["fetches"], feeds)
    for got, want in zip(values, case["values"]):
        reference.assert_close(got, want, rtol=1e-5, atol=1e-4)


_OLD = sorted(
    name[len("old_graph_") :] for name in reference.load(AREA) if name.startswith("old_graph_")
)


@pytest.mark.parametrize("op_type", _OLD)
def test_graph_def_of_an_old_producer_runs_as_in_tf(op_type: str) -> None:
    case = reference.case(AREA, f"old_graph_{op_type}")
    graph_def = tf.GraphDef.FromString(case["graph_def"])
    with tf.Graph().as_default() as g:
        tf.import_graph_def(graph_def, name="")
        fetches = [f"old:{i}" for i in range(case["outputs"])]
        with tf.Session(graph=g) as sess:
            want = case["values"]
            if isinstance(want, dict) and "error" in want:
                with pytest.raises(tf.errors.OpError) as info:
                    sess.run(fetches)
                assert type(info.value).__name__ == want["error"]
                return
            got = sess.run(fetches)
    for a, b in zip(got, want):
        reference.assert_close(np.asarray(a), b, rtol=1e-5, atol=1e-5)


def test_tensor_strided_slice_update_writes_the_slice_of_a_copy() -> None:
    # TF 1.15's own kernel crashes the process (segfault) whenever it runs, so nothing could be
    # recorded from it; these are TF 2.x's values for the same op (checked by hand with 2.21).
    x = tf.constant(np.arange(20, dtype=np.float32).reshape(4, 5))
    y = tf.raw_ops.TensorStridedSliceUpdate(
        input=x, begin=[0, 1], end=[4, 5], strides=[2, 2], value=[[1.0, 2.0], [3.0, 4.0]]
    )
    z = tf.raw_ops.TensorStridedSliceUpdate(
        input=x, begin=[1], end=[0], strides=[1], value=[5.0] * 5, shrink_axis_mask=1
    )
    want_y = np.arange(20, dtype=np.float32).reshape(4, 5)
    want_y[0:4:2, 1:5:2] = [[1.0, 2.0], [3.0, 4.0]]
    want_z = np.arange(20, dtype=np.float32).reshape(4, 5)
    want_z[1] = 5.0
    bad = tf.raw_ops.TensorStridedSliceUpdate(
        input=x, begin=[0], end=[2], strides=[1], value=[1.0, 2.0]
    )
    with tf.Session() as sess:
        got_y, got_z, got_x = sess.run([y, z, x])
        # The l-value and r-value shapes must agree (StridedSliceAssign's error in TF 1.15).
        with pytest.raises(tf.errors.UnimplementedError):
            sess.run(bad)
    np.testing.assert_array_equal(got_y, want_y)
    np.testing.assert_array_equal(got_z, want_z)
    np.testing.assert_array_equal(got_x, np.arange(20, dtype=np.float32).reshape(4, 5))
    assert y.shape.as_list() == [4, 5] and y.dtype == tf.float32


_ABORT_PROGRAM = """
import tfcluster as tf
op = tf.raw_ops.Abort(error_msg="stop here", exit_without_error={clean})
with tf.Session() as sess:
    sess.run(op)
print("not reached")
"""


@pytest.mark.parametrize("clean", [True, False])
def test_abort_ends_the_process_as_tf_does(clean: bool) -> None:
    """TF 1.15 (checked by hand) exits with status 0 when exit_without_error, else by SIGABRT,
    after logging the message."""
    import os
    import signal
    import subprocess
    import sys

    run = subprocess.run(
        [sys.executable, "-c", _ABORT_PROGRAM.format(clean=clean)],
        capture_output=True,
        text=True,
        timeout=120,
        env=dict(os.environ),
    )
    assert "not reached" not in run.stdout
    assert run.returncode == (0 if clean else -signal.SIGABRT)
    assert "stop here" in run.stderr


def test_abort_refuses_to_end_a_process_serving_a_task_server() -> None:
    """A task server's process serves other clients' sessions: Abort fails the step there
    (PermissionDenied) and the server keeps serving."""
    from support.cluster_processes import free_ports

    port = free_ports(1)[0]
    spec = tf.train.ClusterSpec({"local": [f"localhost:{port}"]})
    server = tf.train.Server(spec, job_name="local", task_index=0)
    try:
        g = tf.Graph()
        with g.as_default():
            op = tf.raw_ops.Abort(error_msg="stop here", exit_without_error=True)
            x = tf.constant(2.0) * 3.0
        with tf.Session(server.target, graph=g) as sess:
            with pytest.raises(tf.errors.PermissionDeniedError, match="task server"):
                sess.run(op)
            assert sess.run(x) == 6.0
    finally:
        server.stop()


def test_v1_checkpoint_ops_write_tfs_bytes_and_read_as_tf(tmp_path: Any) -> None:
    from tf_reference.legacy_ops_cases import v1_checkpoint_save_and_restore

    tf.reset_default_graph()
    got = v1_checkpoint_save_and_restore(tf, str(tmp_path))
    recorded = reference.case(AREA, "v1_checkpoint_save_and_restore")
    # Byte for byte the files TF 1.15's SaveSlices and Save wrote from the same values.
    assert got.pop("sliced_bytes") == recorded.pop("sliced_bytes")
    assert got.pop("plain_bytes") == recorded.pop("plain_bytes")
    _assert_same(got, recorded, "v1_checkpoint")


def test_saver_restores_a_v1_checkpoint_tf_saver_wrote(tmp_path: Any) -> None:
    """A partitioned variable, a float64 and an int64 variable saved by TF 1.15's
    tf.train.Saver(write_version=V1): one table file, read back through RestoreV2."""
    recorded = reference.case(AREA, "v1_checkpoint_from_tf_saver")
    path = tmp_path / "model.ckpt"
    path.write_bytes(recorded["file"])
    tf.reset_default_graph()
    w = tf.get_variable("w", shape=[6, 3], partitioner=tf.fixed_size_partitioner(2))
    b = tf.Variable(np.zeros(3), name="scope/b")
    step = tf.Variable(0, dtype=tf.int64, name="global_step")
    saver = tf.train.Saver()
    with tf.Session() as sess:
        saver.restore(sess, str(path))
        values = sess.run([tf.convert_to_tensor(w), b, step])
    for got, want in zip(values, recorded["values"]):
        reference.assert_close(got, want)


def _v1_saver_graph(recorded: dict[str, Any]) -> tuple[Any, list[Any]]:
    w = tf.get_variable("w", shape=[6, 3], partitioner=tf.fixed_size_partitioner(2))
    b = tf.Variable(np.zeros(3), name="scope/b")
    step = tf.Variable(0, dtype=tf.int64, name="global_step")
    parts = list(w)
    assigns = [
        tf.assign(parts[0], recorded["values"][0][:3]),
        tf.assign(parts[1], recorded["values"][0][3:]),
        tf.assign(b, recorded["values"][1]),
        tf.assign(step, recorded["values"][2]),
    ]
    return w, [tf.group(*assigns), b, step]


def test_saver_v1_writes_the_file_tf_saver_wrote(tmp_path: Any) -> None:
    recorded = reference.case(AREA, "v1_checkpoint_from_tf_saver")
    tf.reset_default_graph()
    _, (init, _, _) = _v1_saver_graph(recorded)
    saver = tf.train.Saver(write_version=tf.train.SaverDef.V1)
    ops = {op.type for op in tf.get_default_graph().get_operations()}
    assert "SaveSlices" in ops and "SaveV2" not in ops
    with tf.Session() as sess:
        sess.run(init)
        path = saver.save(sess, str(tmp_path / "model.ckpt"))
    assert path == str(tmp_path / "model.ckpt")
    assert (tmp_path / "model.ckpt").read_bytes() == recorded["file"]
    assert tf.train.latest_checkpoint(str(tmp_path)) == path


def test_sharded_saver_v1_writes_shard_files_and_restores_them(tmp_path: Any) -> None:
    recorded = reference.case(AREA, "v1_checkpoint_from_tf_saver")
    tf.reset_default_graph()
    w, (init, b, step) = _v1_saver_graph(recorded)
    saver = tf.train.Saver(write_version=tf.train.SaverDef.V1, sharded=True)
    with tf.Session() as sess:
        sess.run(init)
        path = saver.save(sess, str(tmp_path / "model.ckpt"), global_step=7)
    # TF 1.15's sharded V1 save returns the pattern of its shard files.
    assert path == str(tmp_path / "model.ckpt-7-?????-of-00001")
    assert (tmp_path / "model.ckpt-7-00000-of-00001").read_bytes() == recorded["file"]
    with tf.Session() as sess:
        saver.restore(sess, path)
        values = sess.run([tf.convert_to_tensor(w), b, step])
    for got, want in zip(values, recorded["values"]):
        reference.assert_close(got, want)
