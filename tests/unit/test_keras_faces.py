"""tf.keras's faces: what is built is reachable as TF 1.15 names it, what is not raises
UnimplementedError naming it; the checkpoint format questions Keras asks (HDF5 needs h5py)."""

from __future__ import annotations

import hashlib

import numpy as np
import pytest
import tfcluster as tf


def test_keras_names_resolve_through_the_public_namespace() -> None:
    assert tf.keras.layers.Dense is tf.keras.layers.Dense
    assert tf.keras.Sequential is tf.keras.models.Sequential
    assert tf.keras.Model is tf.keras.models.Model
    assert callable(tf.keras.datasets.mnist.load_data)
    assert tf.keras.layers.Conv2D(2, 3).name.startswith("conv2d")


def test_hdf5_weights_round_trip_by_order_and_by_name(tmp_path: object) -> None:
    pytest.importorskip("h5py")
    tf.keras.backend.clear_session()
    model = tf.keras.Sequential(
        [tf.keras.layers.Dense(2, input_shape=(3,), name="a"), tf.keras.layers.Dense(1, name="b")]
    )
    saved = model.get_weights()
    model.save_weights(str(tmp_path) + "/w.h5")
    model.set_weights([np.zeros_like(w) for w in saved])
    model.load_weights(str(tmp_path) + "/w.h5")
    for got, want in zip(model.get_weights(), saved):
        np.testing.assert_array_equal(got, want)
    other = tf.keras.Sequential([tf.keras.layers.Dense(1, input_shape=(2,), name="b")])
    other.load_weights(str(tmp_path) + "/w.h5", by_name=True)
    np.testing.assert_array_equal(other.get_weights()[0], saved[2])
    with pytest.raises(ValueError, match="layers into a model with"):
        other.load_weights(str(tmp_path) + "/w.h5")


def test_mnist_load_data_reads_the_cached_npz(
    tmp_path: object, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = str(tmp_path)
    monkeypatch.setenv("HOME", home)
    import os

    os.makedirs(os.path.join(home, ".keras", "datasets"))
    rng = np.random.RandomState(0)
    arrays = {
        "x_train": rng.randint(0, 255, (6, 28, 28)).astype("uint8"),
        "y_train": rng.randint(0, 10, 6).astype("uint8"),
        "x_test": rng.randint(0, 255, (2, 28, 28)).astype("uint8"),
        "y_test": rng.randint(0, 10, 2).astype("uint8"),
    }
    cached = os.path.join(home, ".keras", "datasets", "mnist.npz")
    np.savez(cached, **arrays)
    # The loader checks the cached file's hash (TF's is the real dataset's): name this one's.
    from tfcluster.lib.keras.datasets import mnist

    with open(cached, "rb") as f:
        monkeypatch.setattr(mnist, "_FILE_HASH", hashlib.sha256(f.read()).hexdigest())
    (x_train, y_train), (x_test, y_test) = tf.keras.datasets.mnist.load_data()
    assert x_test.shape == (2, 28, 28) and y_train.shape == (6,)
    np.testing.assert_array_equal(x_train, arrays["x_train"])
    np.testing.assert_array_equal(y_test, arrays["y_test"])


def test_to_categorical_one_hot_encodes() -> None:
    out = tf.keras.utils.to_categorical([[0], [2], [1]], 3)
    np.testing.assert_array_equal(out, np.eye(3, dtype="float32")[[0, 2, 1]])


def test_fit_prints_keras_progress_lines(capsys: pytest.CaptureFixture[str]) -> None:
    tf.keras.backend.clear_session()
    model = tf.keras.Sequential([tf.keras.layers.Dense(1, input_shape=(2,))])
    model.compile("sgd", "mse")
    model.fit(np.zeros((4, 2), "float32"), np.zeros((4, 1), "float32"), epochs=2, verbose=2)
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "Train on 4 samples"
    assert out[1] == "Epoch 1/2"
    assert out[2].startswith("4/4 - 0s - loss: 0.0000e+00")
