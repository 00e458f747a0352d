"""Saver: round trips, state file, max_to_keep, global step suffix, atomicity, errors."""

from __future__ import annotations

import os

import numpy as np
import pytest
import tfcluster as tf
from tfcluster.framework.tensor_bundle import bundle
from tfcluster.training import checkpoint_management as cm


def _model() -> tuple[tf.Variable, tf.Variable, tf.Variable]:
    w = tf.Variable(np.arange(6, dtype=np.float32).reshape(2, 3), name="w")
    b = tf.Variable(np.array([1.5, -2.5], np.float64), name="layer/b")
    step = tf.Variable(0, dtype=tf.int64, name="global_step", trainable=False)
    return w, b, step


def test_save_restore_round_trip_with_step_suffix(tmp_path: os.PathLike) -> None:
    w, b, step = _model()
    saver = tf.train.Saver()
    prefix = os.path.join(str(tmp_path), "model.ckpt")
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run([w.assign(w * 10.0), step.assign(42)])
        path = saver.save(sess, prefix, global_step=step)
        assert path == prefix + "-42"
        assert tf.train.latest_checkpoint(str(tmp_path)) == path
        assert tf.train.checkpoint_exists(path)
        # Scribble over the variables, then restore.
        sess.run([w.assign(tf.zeros([2, 3])), b.assign([0.0, 0.0]), step.assign(0)])
        saver.restore(sess, path)
        got_w, got_b, got_step = sess.run([w, b, step])
    np.testing.assert_array_equal(got_w, np.arange(6, dtype=np.float32).reshape(2, 3) * 10)
    np.testing.assert_array_equal(got_b, [1.5, -2.5])
    assert got_b.dtype == np.float64 and got_step == 42
    assert sorted(tf.train.list_variables(str(tmp_path))) == [
        ("global_step", []),
        ("layer/b", [2]),
        ("w", [2, 3]),
    ]
    np.testing.assert_array_equal(tf.train.load_variable(path, "layer/b"), [1.5, -2.5])


def test_restore_into_a_fresh_session_of_a_new_graph(tmp_path: os.PathLike) -> None:
    w, _, _ = _model()
    saver = tf.train.Saver()
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(w.assign_add(tf.ones([2, 3])))
        path = saver.save(sess, os.path.join(str(tmp_path), "m"), global_step=7)
    with tf.Graph().as_default():
        w2, _, _ = _model()
        saver2 = tf.train.Saver()
        with tf.Session() as sess:
            saver2.restore(sess, path)
            np.testing.assert_array_equal(
                sess.run(w2), np.arange(6, dtype=np.float32).reshape(2, 3) + 1
            )


def test_var_list_dict_and_partial_restore(tmp_path: os.PathLike) -> None:
    w, b, _ = _model()
    saver = tf.train.Saver({"renamed": w})
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        path = saver.save(sess, os.path.join(str(tmp_path), "ckpt"))
    assert path is not None
    assert [n for n, _ in tf.train.list_variables(path)] == ["renamed"]
    # A saver for a variable the checkpoint lacks: NotFoundError naming the key.
    other = tf.train.Saver([b])
    with tf.Session() as sess, pytest.raises(tf.errors.NotFoundError, match="layer/b not found"):
        other.restore(sess, path)


def test_max_to_keep_deletes_old_checkpoints_and_state_file(tmp_path: os.PathLike) -> None:
    _model()
    saver = tf.train.Saver(max_to_keep=2)
    d = str(tmp_path)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        paths = [saver.save(sess, os.path.join(d, "model.ckpt"), global_step=i) for i in range(4)]
    assert saver.last_checkpoints == paths[2:]
    assert not tf.train.checkpoint_exists(paths[0]) and not tf.train.checkpoint_exists(paths[1])
    assert not os.path.exists(paths[0] + cm.DATA_SUFFIX)
    assert all(tf.train.checkpoint_exists(p) for p in paths[2:])
    state = tf.train.get_checkpoint_state(d)
    assert state is not None
    assert state.model_checkpoint_path == paths[3]
    assert state.all_model_checkpoint_paths == paths[2:]
    # As TF's: absolute paths unless save_relative_paths (test_tf_files_exchange checks text).
    with open(os.path.join(d, "checkpoint")) as f:
        text = f.read()
    assert f'model_checkpoint_path: "{paths[3]}"' in text


def test_a_crash_mid_save_never_leaves_a_half_checkpoint(
    tmp_path: os.PathLike, monkeypatch: pytest.MonkeyPatch
) -> None:
    _w, _, _ = _model()
    saver = tf.train.Saver()
    d = str(tmp_path)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        good = saver.save(sess, os.path.join(d, "model.ckpt"), global_step=1)

        # The data file of step 2 lands, then the process "dies" before the index is written.
        real = bundle._write_atomically
        calls: list[str] = []

        def dying_write(path: str, data: bytes) -> None:
            calls.append(path)
            if path.endswith(cm.INDEX_SUFFIX):
                raise KeyboardInterrupt("killed")
            real(path, data)

        monkeypatch.setattr(bundle, "_write_atomically", dying_write)
        with pytest.raises(KeyboardInterrupt):
            saver.save(sess, os.path.join(d, "model.ckpt"), global_step=2)
    assert calls == [os.path.join(d, "model.ckpt-2" + cm.INDEX_SUFFIX)]
    assert os.path.exists(os.path.join(d, "model.ckpt-2" + cm.DATA_SUFFIX))
    assert tf.train.latest_checkpoint(d) == good
    assert not tf.train.checkpoint_exists(os.path.join(d, "model.ckpt-2"))
    # No temp files are left behind by the atomic writers.
    assert not [f for f in os.listdir(d) if ".tempstate" in f]


def test_corrupt_data_file_is_detected(tmp_path: os.PathLike) -> None:
    _model()
    saver = tf.train.Saver()
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        path = saver.save(sess, os.path.join(str(tmp_path), "m"))
        assert path is not None
        with open(path + cm.DATA_SUFFIX, "r+b") as f:
            f.seek(40)
            f.write(b"\xff\xff\xff")
        with pytest.raises(tf.errors.DataLossError, match="corrupt"):
            saver.restore(sess, path)


def test_shape_mismatch_on_restore(tmp_path: os.PathLike) -> None:
    tf.Variable(np.zeros(3, np.float32), name="v")
    saver = tf.train.Saver()
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        path = saver.save(sess, os.path.join(str(tmp_path), "m"))
    with tf.Graph().as_default():
        tf.Variable(np.zeros(4, np.float32), name="v")
        saver2 = tf.train.Saver()
        with (
            tf.Session() as sess,
            pytest.raises(
                tf.errors.InvalidArgumentError,
                match=r"variable v has shape \[4\] but checkpoint .* holds v with shape \[3\]",
            ),
        ):
            saver2.restore(sess, path)


def test_errors(tmp_path: os.PathLike) -> None:
    with pytest.raises(ValueError, match="No variables to save"):
        tf.train.Saver()
    a = tf.Variable(1.0, name="a")
    with pytest.raises(ValueError, match="same name"):
        tf.train.Saver([a, a])
    saver = tf.train.Saver()
    with tf.Session() as sess:
        with pytest.raises(ValueError, match="not a valid checkpoint"):
            saver.restore(sess, os.path.join(str(tmp_path), "nothing"))
        with pytest.raises(ValueError, match="when it is None"):
            saver.restore(sess, None)
        with pytest.raises(ValueError, match="doesn't exist"):
            saver.save(sess, os.path.join(str(tmp_path), "no", "such", "dir", "m"))
        with pytest.raises(tf.errors.FailedPreconditionError, match="uninitialized"):
            saver.save(sess, os.path.join(str(tmp_path), "m"))
    assert tf.train.latest_checkpoint(str(tmp_path)) is None


def test_string_variables_round_trip(tmp_path: os.PathLike) -> None:
    s = tf.Variable(np.array([b"a", b"", b"c\x00d"], dtype=object), name="s")
    saver = tf.train.Saver()
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        path = saver.save(sess, os.path.join(str(tmp_path), "m"))
        sess.run(s.assign(np.array([b"x", b"y", b"z"], dtype=object)))
        saver.restore(sess, path)
        assert list(sess.run(s)) == [b"a", b"", b"c\x00d"]


def _write_old_format(prefix: str, tensors: dict[str, np.ndarray]) -> None:
    """A checkpoint as tfcluster 0.1 wrote it: an npz (strings as blob + lengths) and a JSON
    index with its sha256."""
    import hashlib
    import io
    import json

    payload: dict[str, np.ndarray] = {}
    entries = {}
    for i, (key, arr) in enumerate(tensors.items()):
        entry: dict[str, object] = {"slot": f"t{i}", "shape": list(arr.shape)}
        if arr.dtype == object:
            payload[f"t{i}"] = np.frombuffer(b"".join(arr.reshape(-1)), dtype=np.uint8)
            payload[f"t{i}_len"] = np.array([len(x) for x in arr.reshape(-1)], dtype=np.int64)
            entry["dtype"] = "string"
        else:
            payload[f"t{i}"] = arr
            entry["dtype"] = tf.as_dtype(arr.dtype).name
        entries[key] = entry
    buf = io.BytesIO()
    np.savez(buf, **payload)  # type: ignore[arg-type]
    data = buf.getvalue()
    with open(prefix + cm.DATA_SUFFIX, "wb") as f:
        f.write(data)
    index = {
        "format": "tfcluster-checkpoint-v1",
        "data_sha256": hashlib.sha256(data).hexdigest(),
        "tensors": entries,
    }
    with open(prefix + cm.INDEX_SUFFIX, "w") as f:
        json.dump(index, f)


def test_old_tfcluster_checkpoints_restore_and_convert_to_v2(tmp_path: os.PathLike) -> None:
    from tfcluster.cli import tfcluster_main
    from tfcluster.framework.tensor_bundle import legacy

    old = {
        "w": np.arange(6, dtype=np.float32).reshape(2, 3),
        "layer/b": np.array([1.5, -2.5]),
        "global_step": np.array(42, np.int64),
    }
    prefix = os.path.join(str(tmp_path), "old.ckpt-42")
    _write_old_format(prefix, old)
    w, b, step = _model()
    saver = tf.train.Saver()
    with tf.Session() as sess:
        saver.restore(sess, prefix)
        np.testing.assert_array_equal(sess.run(w), old["w"])
        assert sess.run(step) == 42
    assert tf.train.list_variables(prefix) == [("global_step", []), ("layer/b", [2]), ("w", [2, 3])]
    # The converter rewrites it in place as V2 (what TensorFlow reads).
    assert tfcluster_main.main(["convert-checkpoint", prefix]) == 0
    assert not legacy.is_legacy(prefix)
    with open(prefix + cm.INDEX_SUFFIX, "rb") as f:
        assert f.read()[-8:] == bytes.fromhex("57fb808b247547db")  # the table's magic number
    reader = tf.train.NewCheckpointReader(prefix)
    for key, value in old.items():
        np.testing.assert_array_equal(reader.get_tensor(key), value)
    with tf.Session() as sess:
        saver.restore(sess, prefix)
        np.testing.assert_array_equal(sess.run(b), old["layer/b"])
    assert tfcluster_main.main(["convert-checkpoint", prefix]) == 2  # already V2: refused


def test_old_strings_convert(tmp_path: os.PathLike) -> None:
    from tfcluster.framework.tensor_bundle import legacy

    words = np.array([b"a", b"", b"c\x00d"], dtype=object)
    prefix = os.path.join(str(tmp_path), "s")
    _write_old_format(prefix, {"s": words})
    out = legacy.convert(prefix, os.path.join(str(tmp_path), "s2"))
    assert list(tf.train.load_variable(out, "s")) == list(words)


def test_keep_checkpoint_every_n_hours_keeps_checkpoints_past_max_to_keep(
    tmp_path: os.PathLike,
) -> None:
    _model()
    d = str(tmp_path)
    # Every checkpoint is older than "now + a moment": each one dropped by max_to_keep is
    # kept for good once the keep interval has passed.
    keeper = tf.train.Saver(max_to_keep=1, keep_checkpoint_every_n_hours=1e-9)
    plain = tf.train.Saver(max_to_keep=1)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        kept = [keeper.save(sess, os.path.join(d, "k"), global_step=i) for i in range(3)]
        dropped = [plain.save(sess, os.path.join(d, "p"), global_step=i) for i in range(3)]
    assert all(tf.train.checkpoint_exists(p) for p in kept)
    assert [tf.train.checkpoint_exists(p) for p in dropped] == [False, False, True]
    assert keeper.last_checkpoints == kept[-1:]


def test_pad_step_number_and_meta_graph_file(tmp_path: os.PathLike) -> None:
    _model()
    saver = tf.train.Saver(pad_step_number=True)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        path = saver.save(sess, os.path.join(str(tmp_path), "m"), global_step=7)
    assert path is not None and path.endswith("m-00000007")
    assert os.path.exists(path + ".meta")


def test_running_the_saver_def_ops_uses_the_checkpoint_kernels(tmp_path: os.PathLike) -> None:
    """TF's own way (TensorFlow's loaders do this): run save_tensor_name / restore_op_name
    with the filename fed. The kernels write what Saver.save writes from the client."""
    import sys

    sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
    from tf_reference import tf_files_models as models

    models.convnet(tf)
    saver = tf.train.Saver(sharded=True)
    sd = saver.saver_def
    d = str(tmp_path)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        by_client = saver.save(sess, os.path.join(d, "client"))
        by_kernels = sess.run(
            sd.save_tensor_name, {sd.filename_tensor_name: os.path.join(d, "ops")}
        )
        assert by_kernels == os.path.join(d, "ops").encode()
        for suffix in (".index", ".data-00000-of-00002", ".data-00001-of-00002"):
            with (
                open(by_client + suffix, "rb") as a,
                open(os.path.join(d, "ops") + suffix, "rb") as b,
            ):
                assert a.read() == b.read(), suffix
        assert sorted(f for f in os.listdir(d) if "_temp_" in f) == []  # merged and removed
        before = sess.run("fc/kernel:0")
        sess.run(tf.global_variables_initializer())
        sess.run(sd.restore_op_name, {sd.filename_tensor_name: os.path.join(d, "ops")})
        np.testing.assert_array_equal(sess.run("fc/kernel:0"), before)


def test_restore_reads_the_checkpoint_once_in_the_client(
    tmp_path: os.PathLike, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The RestoreV2 nodes are fed, so they do not run: the files are read by the client only."""
    _model()
    saver = tf.train.Saver()
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        path = saver.save(sess, os.path.join(str(tmp_path), "m"))
        opened: list[str] = []
        real = bundle.BundleReader.__init__

        def counting(self: bundle.BundleReader, prefix: str) -> None:
            opened.append(prefix)
            real(self, prefix)

        monkeypatch.setattr(bundle.BundleReader, "__init__", counting)
        saver.restore(sess, path)
    assert opened == [path]


def test_saver_from_a_saver_def_saves_and_restores_another_graph(tmp_path: os.PathLike) -> None:
    w, _, _ = _model()
    saver = tf.train.Saver(sharded=True)
    sd = saver.as_saver_def()
    rebuilt = tf.train.Saver(saver_def=sd)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        path = rebuilt.save(sess, os.path.join(str(tmp_path), "m"))
        sess.run(w.assign(tf.zeros([2, 3])))
        rebuilt.restore(sess, path)
        np.testing.assert_array_equal(sess.run(w), np.arange(6).reshape(2, 3))


def test_reshape_restores_into_a_differently_shaped_variable(tmp_path: os.PathLike) -> None:
    tf.Variable(np.arange(6, dtype=np.float32), name="v")
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        path = tf.train.Saver().save(sess, os.path.join(str(tmp_path), "m"))
    with tf.Graph().as_default():
        v = tf.Variable(np.zeros([2, 3], np.float32), name="v")
        with tf.Session() as sess:
            tf.train.Saver(reshape=True).restore(sess, path)
            np.testing.assert_array_equal(sess.run(v), np.arange(6).reshape(2, 3))


def test_checkpoints_iterator_yields_each_new_checkpoint(tmp_path: os.PathLike) -> None:
    _model()
    saver = tf.train.Saver()
    d = str(tmp_path)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        first = saver.save(sess, os.path.join(d, "m"), global_step=1)
        it = tf.train.checkpoints_iterator(d, timeout=0.1)
        assert next(it) == first
        second = saver.save(sess, os.path.join(d, "m"), global_step=2)
        assert next(it) == second
        with pytest.raises(StopIteration):
            next(it)
