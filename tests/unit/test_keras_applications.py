"""tf.keras.applications against TensorFlow 1.15 (tf_reference/keras_applications_cases.py,
recorded by record_keras_applications.py): every model's layers, weights and parameter
counts; the argument checks; predictions under the same seeded weights; TF's own HDF5 weights
file loaded by topology, by name and as `weights=<path>`; ImageNet weights found in Keras's
cache; preprocess_input on arrays and tensors; decode_predictions."""

from __future__ import annotations

import json
import os
import warnings
from typing import Any

import numpy as np
import pytest
import tfcluster as tf
from tf_reference import reference
from tf_reference.keras_applications_cases import (
    ERRORS,
    H5_FILE,
    H5_MODEL,
    PREDICTIONS,
    PREPROCESS,
    STRUCTURES,
    application,
    class_index,
    decode_inputs,
    describe,
    digest,
    prediction_input,
    preprocess_inputs,
    preprocess_kwargs,
    seeded_weights,
    unpack,
)
from tfcluster.lib.keras.applications import imagenet_utils, weight_files

pytest.importorskip("h5py")

AREA = "keras_applications"
H5_PATH = os.path.join(reference.DATA_DIR, "keras_applications", H5_FILE)
K = tf.keras.backend


@pytest.fixture(autouse=True)
def _fresh_keras_graph() -> Any:
    K.clear_session()
    yield
    K.clear_session()


def _assert_described_as_tf(model: Any, case: str) -> None:
    want = unpack(reference.case(AREA, case)["description"])
    got = json.loads(json.dumps(describe(model)))
    assert got["name"] == want["name"]
    assert [layer[:3] for layer in got["layers"]] == [layer[:3] for layer in want["layers"]]
    assert [layer[3] for layer in got["layers"]] == [layer[3] for layer in want["layers"]]
    for key in ("count_params", "trainable", "non_trainable", "inputs", "outputs"):
        assert got[key] == want[key], key
    # Configs and the layers feeding each layer's calls.
    assert len(got["configs"]) == len(want["configs"])
    for layer, config, expected in zip(got["layers"], got["configs"], want["configs"]):
        assert config == expected, layer[0]


@pytest.mark.parametrize("case", sorted(STRUCTURES))
def test_model_has_tensorflows_layers_weights_and_parameter_count(case: str) -> None:
    module, fn, kwargs = STRUCTURES[case]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model = application(tf.keras, module, fn)(**kwargs)
    _assert_described_as_tf(model, "structure_" + case)
    ours = [str(w.message) for w in caught if "applications" in w.filename]
    assert ours == reference.case(AREA, "structure_" + case)["warnings"]


def test_plain_tensor_as_input_tensor_gets_an_input_layer_over_it() -> None:
    images = tf.placeholder(tf.float32, (None, 32, 32, 3), name="images")
    model = tf.keras.applications.VGG19(weights=None, include_top=False, input_tensor=images)
    _assert_described_as_tf(model, "structure_vgg19_placeholder_input_tensor")
    assert model.inputs[0] is images


def test_keras_input_as_input_tensor_is_the_models_input() -> None:
    inp = tf.keras.layers.Input((40, 40, 3), name="my_input")
    model = tf.keras.applications.MobileNetV2(weights=None, include_top=False, input_tensor=inp)
    _assert_described_as_tf(model, "structure_mobilenetv2_keras_input_tensor")


@pytest.mark.parametrize("case", sorted(ERRORS))
def test_argument_checks_raise_tensorflows_errors(case: str) -> None:
    module, fn, kwargs = ERRORS[case]
    want = reference.case(AREA, "error_" + case)["error"]
    with pytest.raises(Exception) as info:
        application(tf.keras, module, fn)(**kwargs)
    assert type(info.value).__name__ == want["error"]
    assert str(info.value) == want["message"]


@pytest.mark.parametrize("case", sorted(PREDICTIONS))
def test_prediction_under_seeded_weights_is_tensorflows(case: str) -> None:
    module, fn, kwargs, batch = PREDICTIONS[case]
    want = reference.case(AREA, "predict_" + case)
    model = application(tf.keras, module, fn)(**kwargs)
    model.set_weights(seeded_weights(model))
    x = prediction_input(kwargs["input_shape"], batch)
    assert digest(x) == want["x_digest"]
    reference.assert_close(model.predict(x), want["y"], rtol=2e-4, atol=2e-5)


def _h5_input(want: dict[str, Any]) -> np.ndarray:
    x = prediction_input(H5_MODEL[2]["input_shape"], 2)
    assert digest(x) == want["x_digest"]
    return x


def _h5_model(**extra: Any) -> Any:
    module, fn, kwargs = H5_MODEL
    return application(tf.keras, module, fn)(**{"weights": None, **kwargs, **extra})


@pytest.mark.parametrize("by_name", [False, True])
def test_tensorflows_h5_weights_load_and_predict_as_in_tensorflow(by_name: bool) -> None:
    want = reference.case(AREA, "predict_h5_initial_weights")
    model = _h5_model()
    model.load_weights(H5_PATH, by_name=by_name)
    reference.assert_close(model.predict(_h5_input(want)), want["y"], rtol=1e-4, atol=1e-6)


def test_weights_given_as_a_file_path_are_loaded() -> None:
    want = reference.case(AREA, "predict_h5_initial_weights")
    model = _h5_model(weights=H5_PATH)
    reference.assert_close(model.predict(_h5_input(want)), want["y"], rtol=1e-4, atol=1e-6)


def test_imagenet_weights_come_from_keras_cache(tmp_path: Any, monkeypatch: Any) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    source = _h5_model(include_top=False)
    source.set_weights(seeded_weights(source, seed=5))
    cache = tmp_path / ".keras" / "models"
    cache.mkdir(parents=True)
    # A 32x32 input is not an ImageNet size: Keras warns and loads the 224 file.
    source.save_weights(str(cache / "mobilenet_2_5_224_tf_no_top.h5"))
    K.clear_session()
    with pytest.warns(UserWarning, match="Weights for input shape"):
        model = tf.keras.applications.MobileNet(
            alpha=0.25, include_top=False, input_shape=(32, 32, 3), weights="imagenet"
        )
    for got, want in zip(model.get_weights(), seeded_weights(model, seed=5)):
        np.testing.assert_array_equal(got, want)


def test_missing_download_names_the_file_and_where_to_put_it(
    tmp_path: Any, monkeypatch: Any
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    origin = (tmp_path / "nowhere" / "vgg16_weights.h5").as_uri()
    with pytest.raises(Exception, match="URL fetch failure") as info:
        weight_files.cached_or_fetched("vgg16_weights.h5", origin, None)
    assert type(info.value) is Exception
    wanted_at = os.path.join(str(tmp_path), ".keras", "models", "vgg16_weights.h5")
    assert f"put it at {wanted_at}" in str(info.value)


@pytest.mark.parametrize("case", sorted(PREPROCESS))
def test_preprocess_input_of_arrays_is_tensorflows(case: str) -> None:
    module, input_name, data_format, mode = PREPROCESS[case]
    want = reference.case(AREA, "preprocess_array_" + case)
    x = preprocess_inputs()[input_name]
    fn = getattr(tf.keras.applications, module).preprocess_input
    got = fn(x.copy(), **preprocess_kwargs(data_format, mode))
    reference.assert_close(got, want["y"], rtol=1e-6, atol=1e-5)


def test_preprocess_input_writes_over_a_float_array_as_keras_does() -> None:
    x = preprocess_inputs()["float32_batch"]
    out = tf.keras.applications.mobilenet.preprocess_input(x)
    assert out is x
    y = preprocess_inputs()["float32_batch"]
    tf.keras.applications.vgg16.preprocess_input(y)
    # 'caffe' subtracts the BGR means through the reversed view: channel 2 gets the B mean.
    np.testing.assert_allclose(y[..., 2], preprocess_inputs()["float32_batch"][..., 2] - 103.939)


@pytest.mark.parametrize("case", sorted(PREPROCESS))
def test_preprocess_input_of_tensors_is_tensorflows(case: str) -> None:
    module, input_name, data_format, mode = PREPROCESS[case]
    want = reference.case(AREA, "preprocess_tensor_" + case)
    x = preprocess_inputs()[input_name].astype(np.float32)
    t = tf.placeholder(tf.float32, x.shape)
    fn = getattr(tf.keras.applications, module).preprocess_input
    if "error" in want:
        with pytest.raises(Exception) as info:
            fn(t, **preprocess_kwargs(data_format, mode))
        assert type(info.value).__name__ == want["error"]["error"]
        return
    out = fn(t, **preprocess_kwargs(data_format, mode))
    assert out.shape.as_list() == want["shape"]
    with tf.Session() as sess:
        reference.assert_close(sess.run(out, {t: x}), want["y"], rtol=1e-6, atol=1e-5)


def test_unknown_data_format_is_a_value_error() -> None:
    want = reference.case(AREA, "preprocess_bad_data_format")["error"]
    with pytest.raises(ValueError) as info:
        tf.keras.applications.imagenet_utils.preprocess_input(
            np.zeros((1, 2, 2, 3)), data_format="channels_middle"
        )
    assert str(info.value) == want["message"]


@pytest.fixture
def class_index_in_cache(tmp_path: Any, monkeypatch: Any) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setattr(imagenet_utils, "_class_index", None)
    cache = tmp_path / ".keras" / "models"
    cache.mkdir(parents=True)
    (cache / "imagenet_class_index.json").write_text(json.dumps(class_index()))


@pytest.mark.parametrize("case", sorted(decode_inputs()))
def test_decode_predictions_is_tensorflows(case: str, class_index_in_cache: None) -> None:
    want = reference.case(AREA, "decode_" + case)
    out = tf.keras.applications.imagenet_utils.decode_predictions(want["preds"], top=want["top"])
    got = [[[c, d, float(s)] for c, d, s in row] for row in out]
    if case.startswith("ties"):
        # Equal scores come in numpy's argsort order, which differs between numpy versions
        # (TF 1.15 ran numpy 1.18's introsort): the same scores, the tied classes as a set.
        assert [[r[2] for r in row] for row in got] == [
            [r[2] for r in row] for row in want["decoded"]
        ]
        tied = [{r[0] for r in row if r[2] == 0.5} for row in got]
        assert tied == [{r[0] for r in row if r[2] == 0.5} for row in want["decoded"]]
    else:
        assert got == want["decoded"]
    assert sorted({type(s).__name__ for row in out for _, _, s in row}) == want["types"]


def test_decode_predictions_wants_1000_classes() -> None:
    want = reference.case(AREA, "decode_wrong_shape")["error"]
    with pytest.raises(ValueError) as info:
        tf.keras.applications.vgg16.decode_predictions(np.zeros((2, 10), np.float32))
    assert str(info.value) == want["message"]
