"""Keras's TF-format SavedModel in graph mode, compared with TF 1.15
(tests/tf_reference/record_keras_tf_savedmodel.py): tf.keras.models.load_model of the
directories TF's model.save(save_format='tf') wrote gives TF's layers, summary, compiled
optimizer, predictions and evaluation; tfcluster's own model.save(save_format='tf') writes
TF's files and Keras metadata and loads back; errors as TF's."""

from __future__ import annotations

import json
import os
import tarfile
from typing import Any

import numpy as np
import pytest
import tfcluster as tf
from tf_reference import keras_tf_savedmodel_models as models
from tf_reference import reference
from tf_reference.keras_tf_savedmodel_models import Y_CLASSES, Y_VALUES, X
from tfcluster.lib.saved_model.loader import parse_saved_model

AREA = "keras_tf_savedmodel"
_set_weights = models.set_weights


def _sequential_mlp() -> Any:
    return models.sequential_mlp(tf)


def _functional_mlp() -> Any:
    return models.functional_mlp(tf)


def _nested_mlp() -> Any:
    return models.nested_mlp(tf)


def _two_inputs() -> Any:
    return models.two_inputs(tf)


@pytest.fixture(autouse=True)
def _fresh_graph() -> Any:
    tf.keras.backend.clear_session()
    yield
    tf.keras.backend.clear_session()


def _tf_saved(tmp_path: Any, name: str) -> str:
    path = os.path.join(str(tmp_path), name)
    with tarfile.open(os.path.join(reference.DATA_DIR, AREA, f"{name}.tar.gz")) as archive:
        if hasattr(tarfile, "data_filter"):  # Python 3.11.4+
            archive.extractall(path, filter="data")
        else:  # the repository's own archives, on a Python without extraction filters
            archive.extractall(path)
    return path


def _files(path: str) -> list[str]:
    return sorted(
        os.path.relpath(os.path.join(root, n), path)
        for root, _, names in os.walk(path)
        for n in names
    )


def _summary(model: Any) -> str:
    lines: list[str] = []
    model.summary(print_fn=lines.append)
    return "\n".join(lines)


def _check_loaded(loaded: Any, want: dict[str, Any], y: np.ndarray, x: np.ndarray = X) -> None:
    assert loaded.name == want["name"]
    assert [layer.name for layer in loaded.layers] == want["layer_names"]
    assert [type(layer).__name__ for layer in loaded.layers] == want["layer_classes"]
    assert type(loaded.optimizer).__name__ == want["optimizer"]
    assert loaded.optimizer.get_config() == pytest.approx(want["optimizer_config"])
    reference.assert_close(loaded.predict(x), want["predictions"])
    np.testing.assert_allclose(loaded.evaluate(x, y, verbose=0), want["evaluate"], rtol=1e-5)


def test_tf_saved_sequential_model_loads_with_its_summary_and_training_config(
    tmp_path: Any,
) -> None:
    want = reference.case(AREA, "sequential_mlp")
    loaded = tf.keras.models.load_model(_tf_saved(tmp_path, "sequential_mlp"))
    assert type(loaded).__name__ == want["class_name"]
    assert isinstance(loaded, tf.keras.Sequential)
    assert _summary(loaded) == want["summary"]
    _check_loaded(loaded, want, Y_CLASSES)


@pytest.mark.parametrize(
    ("name", "y"), [("functional_mlp", Y_VALUES), ("nested_sequential", Y_CLASSES)]
)
def test_tf_saved_functional_model_loads_with_its_weights_and_training_config(
    tmp_path: Any, name: str, y: np.ndarray
) -> None:
    want = reference.case(AREA, name)
    loaded = tf.keras.models.load_model(_tf_saved(tmp_path, name))
    assert type(loaded).__name__ == want["class_name"]
    _check_loaded(loaded, want, y)


def test_nested_models_config_counts_its_own_node_as_tf_does() -> None:
    want = reference.case(AREA, "nested_sequential")["inbound_nodes"]
    config = _nested_mlp().get_config()
    assert [[layer["name"], layer["inbound_nodes"]] for layer in config["layers"]] == want


def test_tf_saved_recurrent_model_loads_its_weights_held_by_the_cell(tmp_path: Any) -> None:
    want = reference.case(AREA, "recurrent")
    loaded = tf.keras.models.load_model(_tf_saved(tmp_path, "recurrent"))
    assert _summary(loaded) == want["summary"]
    x = np.linspace(-1, 1, 75).reshape(5, 5, 3).astype(np.float32)
    _check_loaded(loaded, want, Y_VALUES, x)


def test_tf_saved_model_loads_uncompiled_with_compile_false(tmp_path: Any) -> None:
    want = reference.case(AREA, "sequential_mlp")
    loaded = tf.keras.models.load_model(_tf_saved(tmp_path, "sequential_mlp"), compile=False)
    reference.assert_close(loaded.predict(X), want["predictions"])
    loaded.compile("adam", "sparse_categorical_crossentropy", metrics=["accuracy"])
    np.testing.assert_allclose(
        loaded.evaluate(X, Y_CLASSES, verbose=0), want["evaluate"], rtol=1e-5
    )


@pytest.mark.parametrize(
    ("name", "build", "y"),
    [
        ("sequential_mlp", _sequential_mlp, Y_CLASSES),
        ("functional_mlp", _functional_mlp, Y_VALUES),
        ("nested_sequential", _nested_mlp, Y_CLASSES),
    ],
)
def test_saved_model_written_by_model_save_loads_back(
    tmp_path: Any, name: str, build: Any, y: np.ndarray
) -> None:
    want = reference.case(AREA, name)
    model = build()
    _set_weights(model)
    model.fit(X, y, epochs=2, batch_size=5, shuffle=False, verbose=0)
    before = model.predict(X)
    path = os.path.join(str(tmp_path), name)
    model.save(path, save_format="tf")
    assert _files(path) == want["files"]
    assert os.path.isdir(os.path.join(path, "assets"))
    loaded = tf.keras.models.load_model(path)
    assert [layer.name for layer in loaded.layers] == want["layer_names"]
    assert type(loaded.optimizer).__name__ == want["optimizer"]
    reference.assert_close(loaded.predict(X), before)
    np.testing.assert_allclose(
        loaded.evaluate(X, y, verbose=0), model.evaluate(X, y, verbose=0), rtol=1e-5
    )


def _root_user_object(path: str) -> Any:
    return parse_saved_model(path).meta_graphs[0].object_graph_def.nodes[0].user_object


def test_saved_model_carries_keras_metadata_as_tf_writes_it(tmp_path: Any) -> None:
    tf_root = _root_user_object(_tf_saved(tmp_path, "functional_mlp"))
    model = _functional_mlp()
    model.fit(X, Y_VALUES, epochs=1, batch_size=5, verbose=0)  # as TF's: the hypers are variables
    path = os.path.join(str(tmp_path), "ours")
    tf.keras.models.save_model(model, path, save_format="tf")
    ours = _root_user_object(path)
    assert ours.identifier == tf_root.identifier == "_tf_keras_model"
    theirs, mine = json.loads(tf_root.metadata), json.loads(ours.metadata)
    assert list(mine) == list(theirs)
    for key in ("class_name", "name", "config", "model_config", "training_config"):
        assert mine[key] == theirs[key], key


class Subclassed(tf.keras.Model):
    def __init__(self) -> None:
        super().__init__()
        self.dense = tf.keras.layers.Dense(2)

    def call(self, inputs: Any) -> Any:
        return self.dense(inputs)


def test_subclassed_model_saved_after_fit_carries_tfs_metadata(tmp_path: Any) -> None:
    want = reference.case(AREA, "subclassed_metadata")
    model = Subclassed()
    model.compile(tf.keras.optimizers.SGD(0.1), "mse")
    model.fit(X, Y_VALUES, epochs=1, batch_size=5, verbose=0)
    path = os.path.join(str(tmp_path), "subclassed_fitted")
    model.save(path, save_format="tf")
    root = _root_user_object(path)
    assert root.identifier == want["identifier"]
    metadata = json.loads(root.metadata)
    assert sorted(metadata) == sorted(want["metadata"])
    for key in ("class_name", "model_config", "training_config", "batch_input_shape"):
        assert metadata[key] == want["metadata"][key], key
    with pytest.raises(tf.errors.UnimplementedError):
        tf.keras.models.load_model(path)


def test_saved_calls_take_a_list_argument_as_tf_saves_them(tmp_path: Any) -> None:
    from tfcluster.framework.type_spec import TensorSpec
    from tfcluster.lib.saved_model import nested_structure_coder

    want = reference.case(AREA, "two_inputs_call_signatures")["calls"]
    model = _two_inputs()
    path = os.path.join(str(tmp_path), "two_inputs")
    model.save(path, save_format="tf")
    graph = parse_saved_model(path).meta_graphs[0].object_graph_def

    def spec(s: TensorSpec) -> list[Any]:
        return [s.shape.as_list(), s.dtype.name, s.name]

    calls = {}
    for node in graph.nodes:
        if not node.user_object.identifier.startswith("_tf_keras_"):
            continue
        children = {c.local_name: c.node_id for c in node.children}
        if "keras_api" not in children:
            continue
        api = {c.local_name: c.node_id for c in graph.nodes[children["keras_api"]].children}
        function = graph.nodes[api["call_and_return_conditional_losses"]].function
        concrete = graph.concrete_functions[function.concrete_functions[0]]
        first = nested_structure_coder.decode(concrete.canonicalized_input_signature)[0][0]
        name = json.loads(node.user_object.metadata)["name"]
        calls[name] = [spec(s) for s in first] if isinstance(first, list) else spec(first)
    assert calls == want
    x = [np.ones((2, 3), np.float32), np.ones((2, 2), np.float32)]
    loaded = tf.keras.models.load_model(path)
    for got, expected in zip(loaded.predict(x), model.predict(x)):
        reference.assert_close(got, expected)


def test_save_without_optimizer_drops_the_training_config(tmp_path: Any) -> None:
    model = _functional_mlp()
    path = os.path.join(str(tmp_path), "no_optimizer")
    model.save(path, include_optimizer=False, save_format="tf")
    assert "training_config" not in json.loads(_root_user_object(path).metadata)
    assert model.optimizer is not None
    assert tf.keras.models.load_model(path).optimizer is None


def test_save_format_other_than_h5_writes_a_saved_model(tmp_path: Any) -> None:
    want = reference.case(AREA, "save_format_other")
    path = os.path.join(str(tmp_path), "other_format")
    tf.keras.models.save_model(_functional_mlp(), path, save_format="xyz")
    assert _files(path) == want["files"]


def test_saving_a_subclassed_model_without_inputs_raises_tfs_error(tmp_path: Any) -> None:
    want = reference.case(AREA, "subclassed_not_built")
    tail = reference.case(AREA, "subclassed_not_built_tail")["message"]
    with pytest.raises(ValueError) as info:
        Subclassed().save(os.path.join(str(tmp_path), "subclassed"), save_format="tf")
    assert type(info.value).__name__ == want["error"]
    assert str(info.value).startswith(want["message"] + " ")
    assert str(info.value).endswith(tail)


def test_loading_a_missing_path_raises_tfs_error(tmp_path: Any) -> None:
    want = reference.case(AREA, "load_missing")
    with pytest.raises(OSError) as info:
        tf.keras.models.load_model(os.path.join(str(tmp_path), "missing"))
    assert str(info.value).replace(str(tmp_path), "<dir>") == want["message"]


def _layer_calls(path: str) -> dict[str, list[Any]]:
    """Each Keras layer's (by name) keras_api.call_and_return_conditional_losses: the input
    specs of its concrete functions, what TF 1.15's loader revives the layer's call from."""
    from tfcluster.framework.type_spec import TensorSpec
    from tfcluster.lib.saved_model import nested_structure_coder

    graph = parse_saved_model(path).meta_graphs[0].object_graph_def
    found: dict[str, list[Any]] = {}
    for node in graph.nodes:
        if not node.user_object.identifier.startswith("_tf_keras_"):
            continue
        children = {c.local_name: c.node_id for c in node.children}
        if "keras_api" not in children:
            continue
        api = {c.local_name: c.node_id for c in graph.nodes[children["keras_api"]].children}
        function = graph.nodes[api["call_and_return_conditional_losses"]].function
        specs = []
        for name in function.concrete_functions:
            signature = graph.concrete_functions[name].canonicalized_input_signature
            args = nested_structure_coder.decode(signature)[0]
            specs.append(
                [(s.shape.as_list(), s.dtype.name) for s in args if isinstance(s, TensorSpec)]
            )
        found[json.loads(node.user_object.metadata)["name"]] = specs
    return found


def test_saved_model_carries_each_layers_traced_call_as_tf_revives_it(tmp_path: Any) -> None:
    tf_calls = _layer_calls(_tf_saved(tmp_path, "functional_mlp"))
    model = _functional_mlp()
    path = os.path.join(str(tmp_path), "ours")
    model.save(path, save_format="tf")
    ours = _layer_calls(path)
    assert sorted(ours) == ["hidden", "logits", "mlp"]
    for name, specs in ours.items():
        assert specs and all(spec in tf_calls[name] for spec in specs), name


def _training_calls(path: str, layer_name: str) -> tuple[bool, list[Any]]:
    """A layer's metadata expects_training_arg and its saved call's Python arguments after
    the inputs (the training values it was traced with)."""
    from tfcluster.framework.type_spec import TensorSpec
    from tfcluster.lib.saved_model import nested_structure_coder

    graph = parse_saved_model(path).meta_graphs[0].object_graph_def
    for node in graph.nodes:
        if not node.user_object.identifier.startswith("_tf_keras_"):
            continue
        metadata = json.loads(node.user_object.metadata)
        if metadata["name"] != layer_name:
            continue
        children = {c.local_name: c.node_id for c in node.children}
        api = {c.local_name: c.node_id for c in graph.nodes[children["keras_api"]].children}
        function = graph.nodes[api["call_and_return_conditional_losses"]].function
        values = []
        for name in function.concrete_functions:
            signature = graph.concrete_functions[name].canonicalized_input_signature
            args = nested_structure_coder.decode(signature)[0]
            values.append([a for a in args[1:] if not isinstance(a, TensorSpec)])
        return metadata["expects_training_arg"], sorted(values)
    raise AssertionError(f"no layer {layer_name}")


def test_a_dropout_call_is_saved_for_training_and_inference_as_tf_does(tmp_path: Any) -> None:
    tf_expects, tf_values = _training_calls(_tf_saved(tmp_path, "sequential_mlp"), "dropout")
    model = _sequential_mlp()
    path = os.path.join(str(tmp_path), "ours")
    model.save(path, save_format="tf")
    expects, values = _training_calls(path, model.layers[1].name)
    assert (expects, values) == (tf_expects, tf_values) == (True, [[False], [True]])
    assert _training_calls(path, model.layers[0].name) == (False, [[]])


def test_tf_saved_model_save_of_a_keras_model_loads_back_as_keras(tmp_path: Any) -> None:
    want = reference.case(AREA, "saved_model_save_keras")
    model = _functional_mlp()
    _set_weights(model)
    path = os.path.join(str(tmp_path), "saved_model_save")
    with tf.keras.backend.get_session().as_default():
        tf.saved_model.save(model, path)
    root = _root_user_object(path)
    assert root.identifier == want["identifier"]
    assert sorted(json.loads(root.metadata)) == want["metadata_keys"]
    loaded = tf.keras.models.load_model(path)
    assert type(loaded).__name__ == want["class_name"]
    assert type(loaded.optimizer).__name__ == want["optimizer"]
    reference.assert_close(loaded.predict(X), want["predictions"])
