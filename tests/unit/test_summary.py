"""tf.summary ops and FileWriter, read back with TensorBoard's own EventAccumulator."""

from __future__ import annotations

import io
import os

import numpy as np
import pytest
import tfcluster as tf
from PIL import Image

event_accumulator = pytest.importorskip(
    "tensorboard.backend.event_processing.event_accumulator",
    reason="tensorboard (a dev dependency) provides the reference reader",
)


def _accumulator(logdir: str) -> event_accumulator.EventAccumulator:
    acc = event_accumulator.EventAccumulator(logdir, size_guidance={"scalars": 0, "histograms": 0})
    acc.Reload()
    return acc


def test_scalar_and_histogram_reach_tensorboard(tmp_path: os.PathLike) -> None:
    x = tf.placeholder(tf.float32, [None])
    loss = tf.reduce_mean(tf.square(x))
    s = tf.summary.scalar("loss", loss)
    h = tf.summary.histogram("values", x)
    with tf.name_scope("train"):
        lr = tf.summary.scalar("lr", tf.constant(0.5, tf.float64))
    merged = tf.summary.merge_all()
    assert s.op.name == "loss" and s.dtype == tf.string and s.shape.as_list() == []
    assert lr.op.name == "train/lr" and h.op.type == "HistogramSummary"
    assert merged.op.type == "MergeSummary"
    logdir = str(tmp_path)
    writer = tf.summary.FileWriter(logdir, graph=tf.get_default_graph())
    data = np.array([1.0, -2.0, 3.0, 0.5], np.float32)
    with tf.Session() as sess:
        for step in range(3):
            writer.add_summary(sess.run(merged, {x: data * (step + 1)}), global_step=step)
    writer.close()
    acc = _accumulator(logdir)
    tags = acc.Tags()
    assert sorted(tags["scalars"]) == ["loss", "train/lr"]
    assert tags["histograms"] == ["values"]
    events = acc.Scalars("loss")
    assert [e.step for e in events] == [0, 1, 2]
    want = [float(np.mean(np.square(data * (k + 1)))) for k in range(3)]
    np.testing.assert_allclose([e.value for e in events], want, rtol=1e-6)
    assert [e.value for e in acc.Scalars("train/lr")] == [0.5, 0.5, 0.5]
    histo = acc.Histograms("values")[2].histogram_value
    assert histo.num == 4 and histo.min == -6.0 and histo.max == 9.0
    assert histo.sum == pytest.approx(float(np.sum(data * 3)))
    assert histo.sum_squares == pytest.approx(float(np.sum((data * 3) ** 2)))
    assert sum(histo.bucket) == 4
    # Every value falls in the bucket TensorFlow's upper-bound rule gives it.
    limits = list(histo.bucket_limit)
    for v in data * 3:
        i = next(k for k, lim in enumerate(limits) if v < lim)
        assert histo.bucket[i] >= 1
    assert acc.Graph() is not None


def test_family_and_clean_tags(tmp_path: os.PathLike) -> None:
    s = tf.summary.scalar("bad name!", 1.0, family="fam")
    assert s.op.name == "fam/bad_name_"
    with tf.Session() as sess:
        summary = tf.summary.Summary.FromString(sess.run(s))
    assert summary.value[0].tag == "fam/fam/bad_name_"


def test_merge_rejects_duplicate_tags() -> None:
    a = tf.summary.scalar("x", 1.0, collections=[])
    b = tf.summary.scalar("y", 2.0, collections=[])
    dup = tf.summary.merge([a, a])
    both = tf.summary.merge([a, b])
    assert tf.summary.merge_all() is None
    with tf.Session() as sess:
        got = tf.summary.Summary.FromString(sess.run(both))
        assert [(v.tag, v.simple_value) for v in got.value] == [("x", 1.0), ("y", 2.0)]
        with pytest.raises(tf.errors.InvalidArgumentError, match="Duplicate tag x"):
            sess.run(dup)


def test_scalar_needs_a_scalar_when_it_runs_and_a_real_dtype() -> None:
    with pytest.raises(TypeError, match="string"):
        tf.summary.scalar("s", tf.constant("a"))
    # As TF 1.15: the graph builds, with no op of its own besides the tag; running fails.
    before = len(tf.get_default_graph().get_operations())
    values = tf.constant([3.0])
    one = tf.summary.scalar("one", values)
    assert one.op.inputs[1] is values
    assert len(tf.get_default_graph().get_operations()) == before + 3
    two = tf.summary.scalar("v", tf.constant([1.0, 2.0]))
    with tf.Session() as sess:
        with pytest.raises(
            tf.errors.InvalidArgumentError,
            match=r"tags and values not the same shape: \[\] != \[1\] \(tag 'one'\)",
        ):
            sess.run(one)
        with pytest.raises(tf.errors.InvalidArgumentError, match=r"\[\] != \[2\]"):
            sess.run(two)


def test_histogram_with_nan_fails() -> None:
    h = tf.summary.histogram("h", tf.constant([1.0, np.nan]))
    with tf.Session() as sess, pytest.raises(tf.errors.InvalidArgumentError, match="Nan"):
        sess.run(h)


def test_text_summary(tmp_path: os.PathLike) -> None:
    t = tf.summary.text("note", tf.constant("hello"))
    with tf.Session() as sess:
        got = tf.summary.Summary.FromString(sess.run(t))
    assert got.value[0].tag == "note"
    assert got.value[0].metadata.plugin_data.plugin_name == "text"
    assert list(got.value[0].tensor.string_val) == [b"hello"]


def test_file_writer_session_log_and_flush(tmp_path: os.PathLike) -> None:
    logdir = str(tmp_path)
    writer = tf.summary.FileWriter(logdir, flush_secs=3600)
    writer.add_session_log(tf.summary.SessionLog(status=tf.summary.SessionLog.START), 5)
    writer.add_summary(
        tf.summary.Summary(value=[tf.summary.Summary.Value(tag="a", simple_value=2.0)]), 6
    )
    writer.flush()
    acc = _accumulator(logdir)
    assert [(e.step, e.value) for e in acc.Scalars("a")] == [(6, 2.0)]
    writer.close()
    with pytest.warns(UserWarning, match="Attempting to use a closed FileWriter"):
        writer.add_summary(
            tf.summary.Summary(value=[tf.summary.Summary.Value(tag="a", simple_value=3.0)]), 7
        )
    writer.reopen()
    writer.add_summary(
        tf.summary.Summary(value=[tf.summary.Summary.Value(tag="a", simple_value=4.0)]), 8
    )
    writer.close()
    files = [f for f in os.listdir(logdir) if "tfevents" in f]
    assert len(files) == 2
    with pytest.raises(TypeError, match="Summary proto"):
        writer.add_summary(3.5)


def test_images_audio_text_and_tensors_reach_tensorboard(tmp_path: os.PathLike) -> None:
    images = tf.placeholder(tf.float32, [None, 4, 5, 3])
    tf.summary.image("input", images, max_outputs=2)
    tf.summary.audio("clip", tf.sin(tf.range(0.0, 8.0)) * tf.ones([2, 1]), 8000, max_outputs=1)
    tf.summary.text("note", tf.constant(["hello", "world"]))
    tf.summary.tensor_summary("raw", tf.constant([[1, 2], [3, 4]]))
    merged = tf.summary.merge_all()
    logdir = str(tmp_path)
    writer = tf.summary.FileWriter(logdir)
    data = np.linspace(0.0, 2.0, 3 * 4 * 5 * 3, dtype=np.float32).reshape(3, 4, 5, 3)
    with tf.Session() as sess:
        writer.add_summary(sess.run(merged, {images: data}), global_step=7)
    writer.close()
    acc = event_accumulator.EventAccumulator(
        logdir, size_guidance={"images": 0, "audio": 0, "tensors": 0}
    )
    acc.Reload()
    tags = acc.Tags()
    assert sorted(tags["images"]) == ["input/image/0", "input/image/1"]
    assert tags["audio"] == ["clip/audio"]
    assert sorted(tags["tensors"]) == ["note", "raw"]
    first = acc.Images("input/image/0")[0]
    assert (first.step, first.width, first.height) == (7, 5, 4)
    pixels = np.array(Image.open(io.BytesIO(first.encoded_image_string)))
    # Each image scaled alone so that its largest value is 255 (TF's rule).
    want = (data[0] * np.float32(255.0 / data[0].max())).astype(np.uint8)
    np.testing.assert_array_equal(pixels, want)
    clip = acc.Audio("clip/audio")[0]
    assert clip.sample_rate == 8000 and clip.length_frames == 8 and clip.content_type == "audio/wav"
    note = acc.Tensors("note")[0].tensor_proto
    assert list(note.string_val) == [b"hello", b"world"]
    raw = acc.Tensors("raw")[0].tensor_proto
    np.testing.assert_array_equal(
        np.frombuffer(raw.tensor_content, np.int32).reshape(2, 2), [[1, 2], [3, 4]]
    )
