"""The MNIST tutorial reader and model (`tensorflow.examples.tutorials.mnist`) as TF 1.15 has
them: programs importing `tfcluster.examples.tutorials.mnist` read the same files into the
same arrays and draw the same batches under the same seeds."""

from __future__ import annotations

import gzip
import json
import os
import struct
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import tfcluster as tf
from tf_reference import mnist_reader_cases, reference
from tfcluster.examples.tutorials.mnist import input_data, mnist


def _normalised(value: Any) -> Any:
    """Both sides through JSON, so floats and lists compare alike."""
    return json.loads(json.dumps(value))


@pytest.mark.parametrize("name", sorted(mnist_reader_cases.CASES))
def test_reader_gives_what_tf_1_15_gives(name: str, tmp_path: Path) -> None:
    mnist_reader_cases.write_idx_files(str(tmp_path))
    got = _normalised(mnist_reader_cases.CASES[name](tf, input_data, str(tmp_path)))
    want = reference.case("mnist_reader", name)
    _assert_same(got, want, name)


def _assert_same(got: Any, want: Any, where: str) -> None:
    """Equal structure and values; floats to float32 rounding (sums of 784-pixel images)."""
    if isinstance(want, dict):
        assert isinstance(got, dict) and got.keys() == want.keys(), where
        for key in want:
            _assert_same(got[key], want[key], f"{where}.{key}")
    elif isinstance(want, list):
        assert isinstance(got, list) and len(got) == len(want), where
        for i, (g, w) in enumerate(zip(got, want, strict=True)):
            _assert_same(g, w, f"{where}[{i}]")
    elif isinstance(want, float):
        assert got == pytest.approx(want, rel=1e-6), where
    else:
        assert got == want, where


def test_a_corrupt_file_says_which_and_why(tmp_path: Path) -> None:
    mnist_reader_cases.write_idx_files(str(tmp_path))
    with gzip.open(tmp_path / "train-labels-idx1-ubyte.gz", "wb") as f:
        f.write(struct.pack(">II", 2051, 3) + b"\0\0\0")
    with pytest.raises(ValueError, match="Invalid magic number 2051 in MNIST label file"):
        input_data.read_data_sets(str(tmp_path), validation_size=10)
    with gzip.open(tmp_path / "train-labels-idx1-ubyte.gz", "wb") as f:
        f.write(struct.pack(">II", 2049, 60) + b"\0" * 5)
    with pytest.raises(ValueError, match="truncated: 5 of 60 bytes"):
        input_data.read_data_sets(str(tmp_path), validation_size=10)


def test_the_tutorial_model_trains_with_tf_names(tmp_path: Path) -> None:
    """fully_connected_feed's graph: variables hidden1/weights ... and a falling loss."""
    mnist_reader_cases.write_idx_files(str(tmp_path))
    data = input_data.read_data_sets(str(tmp_path), validation_size=10)
    with tf.Graph().as_default():
        tf.set_random_seed(1)
        images = tf.placeholder(tf.float32, [None, mnist.IMAGE_PIXELS])
        labels = tf.placeholder(tf.int32, [None])
        logits = mnist.inference(images, 32, 16)
        loss = mnist.loss(logits, labels)
        train_op = mnist.training(loss, 0.1)
        correct = mnist.evaluation(logits, labels)
        names = [v.op.name for v in tf.global_variables()]
        assert names == [
            f"{scope}/{kind}"
            for scope in ("hidden1", "hidden2", "softmax_linear")
            for kind in ("weights", "biases")
        ] + ["global_step"]
        x, y = data.train.images[:20], data.train.labels[:20]
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            first = sess.run(loss, {images: x, labels: y})
            for _ in range(30):
                sess.run(train_op, {images: x, labels: y})
            last, right = sess.run([loss, correct], {images: x, labels: y})
    assert last < first
    assert 0 <= right <= 20 and np.asarray(right).dtype == np.int32


def test_reading_leaves_files_present_alone(tmp_path: Path) -> None:
    mnist_reader_cases.write_idx_files(str(tmp_path))
    before = {p: os.path.getmtime(tmp_path / p) for p in os.listdir(tmp_path)}
    input_data.read_data_sets(str(tmp_path), validation_size=0)
    assert before == {p: os.path.getmtime(tmp_path / p) for p in os.listdir(tmp_path)}


def test_the_package_alone_gives_its_reader_and_model_as_attributes() -> None:
    """`from tensorflow.examples.tutorials import mnist; mnist.input_data.read_data_sets(...)`:
    TF 1.15's package imports both modules itself (a fresh process, so no earlier import
    of the submodules set the attributes)."""
    import subprocess
    import sys

    code = (
        "from tfcluster.examples.tutorials import mnist\n"
        "print(mnist.input_data.read_data_sets.__name__, mnist.mnist.inference.__name__)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=os.environ, check=True
    )
    assert out.stdout.split() == ["read_data_sets", "inference"]
