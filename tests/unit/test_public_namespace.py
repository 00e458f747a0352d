"""The public namespace: TF 1.15's module tree, every name present, the missing ones raising
UnimplementedError on use, the implementation packages out of sight."""

from __future__ import annotations

import importlib
import subprocess
import sys
from pathlib import Path

import pytest
import tfcluster as tf
from tfcluster.api import _unimplemented

ROOT = Path(__file__).resolve().parents[2]


def test_every_public_name_of_tf_1_15_exists_and_is_real_or_unimplemented() -> None:
    for module_path, names in _unimplemented.tf_names().items():
        module = tf
        for part in filter(None, module_path.split(".")):
            module = getattr(module, part)
        for name in names:
            getattr(module, name)  # never AttributeError


def test_an_unimplemented_name_raises_unimplemented_error_naming_itself_on_every_use() -> None:
    stub = tf.distribute.experimental.TPUStrategy
    uses = [
        lambda: stub(1, 2),
        lambda: stub.some_attribute,
        lambda: isinstance(1, stub),
        lambda: list(stub),
        lambda: type("Sub", (stub,), {}),
    ]
    for use in uses:
        with pytest.raises(
            tf.errors.UnimplementedError, match=r"tf\.distribute\.experimental\.TPUStrategy"
        ):
            use()


def test_a_name_tf_does_not_have_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError, match="no_such_name"):
        tf.no_such_name  # noqa: B018
    with pytest.raises(AttributeError, match="no_such_name"):
        tf.nn.no_such_name  # noqa: B018


def test_a_module_tfcluster_lacks_is_unimplemented_all_the_way_down() -> None:
    assert _unimplemented.is_unimplemented(tf.tpu.experimental)
    with pytest.raises(
        tf.errors.UnimplementedError, match=r"tf\.tpu\.experimental\.DeviceAssignment"
    ):
        tf.tpu.experimental.DeviceAssignment()


def test_modules_of_the_tree_import_by_their_public_path() -> None:
    nn = importlib.import_module("tfcluster.nn")
    assert nn is tf.nn
    layers = importlib.import_module("tfcluster.keras.layers")
    assert layers is tf.keras.layers


def test_implementation_packages_are_not_attributes_of_tf() -> None:
    importlib.import_module("tfcluster.kernels.gpu_backend")  # imported later: still hidden
    for internal in ("framework", "ops", "kernels", "runtime", "rpc", "distributed", "api"):
        assert not hasattr(tf, internal), internal
        assert internal not in dir(tf)
    assert {"nn", "train", "errors", "layers", "Session", "constant"} <= set(dir(tf))


def test_the_api_coverage_document_is_current() -> None:
    done = subprocess.run(
        [sys.executable, str(ROOT / "tools" / "api_coverage.py"), "--check"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr


def test_no_implementation_package_takes_the_name_of_a_tf_module() -> None:
    """`tfcluster.layers` must be the face of tf.layers: a package of that name beside it would
    be found first by the import system."""
    package = ROOT / "server" / "tfcluster"
    own = {p.stem for p in package.iterdir() if p.suffix == ".py" or (p / "__init__.py").exists()}
    assert not own & _unimplemented.tf_submodules(""), sorted(
        own & _unimplemented.tf_submodules("")
    )


def test_a_submodule_imported_by_its_public_path_is_its_face_not_a_second_copy() -> None:
    import sys

    import tfcluster.io.gfile as by_public_path

    assert by_public_path is sys.modules["tfcluster.api.io.gfile"]
    assert by_public_path is tf.io.gfile


def test_tf_contrib_says_it_is_outside_the_api_instead_of_a_missing_attribute() -> None:
    with pytest.raises(tf.errors.UnimplementedError, match=r"tf\.contrib is not .*contrib aside"):
        tf.contrib.rnn.BasicLSTMCell(4)
    with pytest.raises(tf.errors.UnimplementedError, match=r"tf\.contrib is not implemented"):
        import tfcluster.contrib.layers  # noqa: F401


def test_keras_preprocessing_and_applications_are_tf_1_15s_modules() -> None:
    """TF 1.15 has tf.keras.preprocessing.{image,sequence,text} and tf.keras.applications: the
    implemented names work, the others raise UnimplementedError naming themselves, and a
    program's `from ... import` of them succeeds (applications' modules are the faces)."""
    sequence = importlib.import_module("tfcluster.keras.preprocessing.sequence")
    assert sequence is tf.keras.preprocessing.sequence
    assert sequence.pad_sequences([[1, 2]], maxlen=3).tolist() == [[0, 1, 2]]
    image = importlib.import_module("tfcluster.keras.preprocessing.image")
    assert image is tf.keras.preprocessing.image
    assert image.ImageDataGenerator(rescale=1.0 / 255).rescale == 1.0 / 255
    vgg16 = importlib.import_module("tfcluster.keras.applications.vgg16")
    assert vgg16 is tf.keras.applications.vgg16
    model = vgg16.VGG16(weights=None, include_top=False, input_shape=(32, 32, 3))
    assert model.name == "vgg16"


def test_tensorflow_python_keras_is_tf_keras() -> None:
    """Programs of TF 1.13-1.15 import Keras as `tensorflow.python.keras`: the same module
    objects and classes as tf.keras."""
    models = importlib.import_module("tfcluster.python.keras.models")
    assert models is tf.keras.models
    layers = importlib.import_module("tfcluster.python.keras.layers")
    assert layers.Dense is tf.keras.layers.Dense
    keras = importlib.import_module("tfcluster.python.keras")
    assert keras.backend is tf.keras.backend
    assert keras.Model is tf.keras.Model
    text = importlib.import_module("tfcluster.python.keras.preprocessing.text")
    assert text is tf.keras.preprocessing.text
    with pytest.raises(ImportError):
        importlib.import_module("tfcluster.python.keras.no_such_module")
