"""model.save(save_format='tf') / tf.keras.models.load_model of a SavedModel directory, as
TF 1.15's Keras does them in graph mode.

Saving writes the object-based SavedModel tf.saved_model.save writes for the model (serving
signature `serving_default`, variables/ under the object graph's checkpoint keys), with each
Keras object as TF's Keras serializes it: its user object named `_tf_keras_sequential`,
`_tf_keras_model`, `_tf_keras_network` or `_tf_keras_layer` with TF's JSON metadata (class
name, name, trainable, dtype, batch input shape, config; a model's also `model_config` and,
when compiled and include_optimizer, `training_config`), and a `keras_api` child holding its
call traced as `call_and_return_conditional_losses` (outputs and losses; a call taking
`training` traced with it True and False) and a model's `layers`: TF 1.15's loader revives
the layers' calls and a Sequential's layers from them, so TF loads what tfcluster saves.

Loading rebuilds the model from the metadata's config (TF's own SavedModels carry it too),
restores its weights from variables/ by their children paths in the checkpoint's object
graph and compiles it from the training config. A SavedModel that is not a Keras model's
comes back as tf.saved_model.load_v2 rebuilds it; a subclassed model's (no config) is
unimplemented."""

from __future__ import annotations

import inspect
import json
import os
from typing import Any

from tfcluster.lib.keras import backend
from tfcluster.lib.keras.backend_math import learning_phase_scope
from tfcluster.lib.keras.engine import hdf5_format
from tfcluster.lib.keras.utils.json_utils import keras_json_default
from tfcluster.lib.saved_model import constants

_MODEL_IDENTIFIERS = ("_tf_keras_model", "_tf_keras_network", "_tf_keras_sequential")


def _identifier(layer: Any) -> str:
    from tfcluster.lib.keras.engine.sequential import Sequential
    from tfcluster.lib.keras.engine.training import Model

    if isinstance(layer, Sequential):
        return "_tf_keras_sequential"
    if isinstance(layer, Model):
        return "_tf_keras_model"
    if hasattr(layer, "_layers"):
        return "_tf_keras_network"
    return "_tf_keras_layer"


def _config(layer: Any) -> Any:
    try:
        return layer.get_config()
    except NotImplementedError:
        return None


def _metadata(layer: Any, include_optimizer: bool) -> dict[str, Any]:
    """TF's `_tracking_metadata` of a layer (a model's with its HDF5 root attributes)."""
    dtype = getattr(layer, "dtype", None)
    shape = getattr(layer, "_batch_input_shape", None)
    metadata: dict[str, Any] = {
        "class_name": type(layer).__name__,
        "name": layer.name,
        "trainable": bool(layer.trainable),
        "expects_training_arg": False,  # set by KerasObjects where the call takes training
        "dtype": None if dtype is None else getattr(dtype, "name", dtype),
        "batch_input_shape": None if shape is None else list(shape),
        "config": _config(layer),
        "input_spec": None,
        "activity_regularizer": None,
    }
    if metadata["config"] is None:  # a layer without get_config: TF writes no config
        del metadata["config"]
    if _identifier(layer) in _MODEL_IDENTIFIERS:
        # A subclassed model's without its config (TF's require_config=False).
        metadata.update(hdf5_format.model_metadata(layer, include_optimizer, require_config=False))
    return metadata


class _KerasAPI:
    """A layer's `keras_api` child: its call traced as `call_and_return_conditional_losses`
    (the outputs and the list of its losses, none here) and, of a model, its layers, which
    TF 1.15's loader revives the layer's call and a Sequential's layers from."""

    layers: list[Any]
    call_and_return_conditional_losses: Any


def _input_spec(layer: Any) -> Any:
    """The specs of the inputs the layer was first called on (None where it never was),
    named as TF names a call's argument: `inputs`, a list's items `inputs/<i>`."""
    from tfcluster.framework.type_spec import TensorSpec

    try:
        tensors = layer.get_input_at(0)
    except (RuntimeError, ValueError, AttributeError):
        # No node (a subclassed model's layers, called on plain placeholders): its first call.
        tensors = getattr(layer, "_first_call_inputs", None)
        if tensors is None:
            return None
    if isinstance(tensors, (list, tuple)):
        return [
            TensorSpec(t.shape, t.dtype.base_dtype, name=f"inputs/{i}")
            for i, t in enumerate(tensors)
        ]
    return TensorSpec(tensors.shape, tensors.dtype.base_dtype, name="inputs")


def _takes_training(layer: Any) -> bool:
    try:
        return "training" in inspect.signature(layer.call).parameters
    except (TypeError, ValueError):
        return False


def _keras_api(layer: Any) -> _KerasAPI | None:
    from tfcluster.lib.keras.engine.input_layer import InputLayer

    spec = None if isinstance(layer, InputLayer) else _input_spec(layer)
    if spec is None:
        return None
    api = _KerasAPI()
    if hasattr(layer, "_layers"):
        api.layers = list(layer.layers)
    name = f"{layer.name}_layer_call_and_return_conditional_losses"
    api.call_and_return_conditional_losses = (
        _training_call(layer, spec, name) if _takes_training(layer) else None
    ) or _inference_call(layer, spec, name)
    return api


def _call(layer: Any, inputs: Any, **kwargs: Any) -> Any:
    return layer(inputs, **kwargs) if hasattr(layer, "_layers") else layer.call(inputs, **kwargs)


def _inference_call(layer: Any, spec: Any, name: str) -> Any:
    """The call traced once, on the input spec (as in inference)."""
    from tfcluster.lib.function.def_function import Function

    kwargs = {"training": False} if _takes_training(layer) else {}

    def call_and_return_conditional_losses(inputs: Any) -> Any:
        return _call(layer, inputs, **kwargs), []

    return Function(
        call_and_return_conditional_losses, name=name, input_signature=[spec], autograph=False
    )


def _training_call(layer: Any, spec: Any, name: str) -> Any:
    """A call taking `training`, traced with it True and False (TF's revived layer picks one
    by the learning phase); None where the training trace fails."""
    from tfcluster.lib.function.def_function import Function

    def call_and_return_conditional_losses(inputs: Any, training: Any = None) -> Any:
        return _call(layer, inputs, training=training), []

    function = Function(call_and_return_conditional_losses, name=name, autograph=False)
    try:
        for training in (True, False):
            function.get_concrete_function(spec, training)
    except (TypeError, ValueError, NotImplementedError):
        return None
    return function


class KerasObjects:
    """The Keras objects' identifiers, metadata and `keras_api` children."""

    def __init__(self, model: Any, include_optimizer: bool) -> None:
        self.model = model
        self.include_optimizer = include_optimizer
        self.apis: dict[int, _KerasAPI | None] = {}

    def identify(self, obj: Any) -> tuple[str, str] | None:
        from tfcluster.lib.keras.engine.base_layer import KerasLayerMixin

        if not isinstance(obj, KerasLayerMixin):
            return None
        metadata = _metadata(obj, self.include_optimizer and obj is self.model)
        api = self._api(obj)
        call = None if api is None else api.call_and_return_conditional_losses
        metadata["expects_training_arg"] = call is not None and call.input_signature is None
        return _identifier(obj), json.dumps(metadata, default=keras_json_default)

    def children(self, obj: Any) -> list[tuple[str, Any]]:
        from tfcluster.lib.keras.engine.base_layer import KerasLayerMixin

        if not isinstance(obj, KerasLayerMixin):
            return []
        api = self._api(obj)
        return [] if api is None else [("keras_api", api)]

    def _api(self, layer: Any) -> _KerasAPI | None:
        if id(layer) not in self.apis:
            self.apis[id(layer)] = _keras_api(layer)
        return self.apis[id(layer)]


def _raise_model_input_error(model: Any) -> None:
    raise ValueError(
        f"Model {model} cannot be saved because the input shapes have not been set. Usually, "
        "input shapes are automatically determined from calling .fit() or .predict(). To "
        "manually set the shapes, call model._set_inputs(inputs)."
    )


def ask_to_proceed_with_overwrite(filepath: str) -> bool:
    """TF's prompt: whether the user answers `y` to overwriting filepath."""
    answer = input(f"[WARNING] {filepath} already exists - overwrite? [y/n]").strip().lower()
    while answer not in ("y", "n"):
        answer = input('Enter "y" (overwrite) or "n" (cancel).').strip().lower()
    if answer == "n":
        return False
    print("[TIP] Next time specify overwrite=True!")
    return True


def save(
    model: Any,
    filepath: str,
    overwrite: bool = True,
    include_optimizer: bool = True,
    signatures: Any = None,
) -> None:
    """Writes the SavedModel the module docstring describes (overwrite=False keeps an existing
    path, as TF does when its prompt is declined)."""
    from tfcluster.lib.saved_model import save as save_lib

    filepath = os.fspath(filepath)
    exists = os.path.exists(filepath)
    if not overwrite and exists and not ask_to_proceed_with_overwrite(filepath):
        return
    if not getattr(model, "inputs", None):
        _raise_model_input_error(model)

    user_objects = KerasObjects(model, include_optimizer)
    optimizer = getattr(model, "optimizer", None)
    if not include_optimizer:
        model.optimizer = None
    try:
        with learning_phase_scope(0):
            save_lib.save_with_user_objects(model, filepath, signatures, user_objects=user_objects)
    finally:
        if not include_optimizer:
            model.optimizer = optimizer


def _root_metadata(saved_model: Any) -> tuple[str, dict[str, Any]] | None:
    graphs = list(saved_model.meta_graphs)
    if len(graphs) != 1 or not graphs[0].HasField("object_graph_def"):
        return None
    nodes = graphs[0].object_graph_def.nodes
    if not nodes or nodes[0].WhichOneof("kind") != "user_object":
        return None
    root = nodes[0].user_object
    if root.identifier not in (*_MODEL_IDENTIFIERS, "_tf_keras_layer") or not root.metadata:
        return None
    return str(root.identifier), json.loads(root.metadata)


def _restore_weights(model: Any, prefix: str) -> None:
    """The model's weights from the SavedModel's checkpoint, each found by its path of
    children names (`layer_with_weights-1/kernel`) in the checkpoint's object graph (its key
    may be by another path to the same variable)."""
    from tfcluster.lib.keras.engine import saving
    from tfcluster.protos.trackable_object_graph_pb2 import TrackableObjectGraph
    from tfcluster.training import checkpoint_utils

    reader = checkpoint_utils.NewCheckpointReader(prefix)
    graph = TrackableObjectGraph()
    raw = reader.get_tensor(saving.OBJECT_GRAPH_KEY)
    graph.ParseFromString(raw.item() if hasattr(raw, "item") else raw)
    pairs = []
    for key, variable in saving._object_graph(model).keys.items():
        if key.startswith("optimizer/") or "/.OPTIMIZER_SLOT/" in key:
            continue
        node: int | None = 0
        for name in key[: -len("/.ATTRIBUTES/VARIABLE_VALUE")].split("/"):
            assert node is not None
            children = {c.local_name: c.node_id for c in graph.nodes[node].children}
            for holder in ("cell", "layer"):
                if name not in children and holder in children:
                    # TF's recurrent layer holds its weights through its cell, a wrapper
                    # (TimeDistributed) through its layer.
                    inner = graph.nodes[children[holder]]
                    children = {c.local_name: c.node_id for c in inner.children}
            node = children.get(name)
            if node is None:
                break
        if node is None:
            raise ValueError(f"The SavedModel at {prefix} has no value for {variable.name}")
        attributes = [a for a in graph.nodes[node].attributes if a.name == "VARIABLE_VALUE"]
        if attributes:
            pairs.append((variable, reader.get_tensor(attributes[0].checkpoint_key)))
    backend.batch_set_value(pairs)


def load(filepath: str, custom_objects: Any = None, compile: bool = True) -> Any:
    """The Keras model of a SavedModel directory (see the module docstring)."""
    from tfcluster.lib.keras.engine.model_config import model_from_config
    from tfcluster.lib.saved_model import load_v2
    from tfcluster.lib.saved_model.loader import parse_saved_model

    filepath = os.fspath(filepath)
    found = _root_metadata(parse_saved_model(filepath))
    if found is None:
        return load_v2.load(filepath)
    identifier, metadata = found
    config = metadata.get("model_config") or {"class_name": metadata["class_name"]}
    if "config" not in config and metadata.get("config") is not None:
        config = {"class_name": metadata["class_name"], "config": metadata["config"]}
    if config.get("config") is None or identifier == "_tf_keras_layer":
        raise backend.unimplemented(
            "tf.keras.models.load_model of the SavedModel of a subclassed Keras model or of a "
            f"layer ({metadata.get('class_name')!r}, saved without a config)"
        )
    custom_objects = custom_objects or {}
    model = model_from_config(config, custom_objects=custom_objects)
    _restore_weights(
        model, os.path.join(filepath, constants.VARIABLES_DIRECTORY, constants.VARIABLES_FILENAME)
    )
    training_config = metadata.get("training_config")
    if compile and training_config is not None:
        model.compile(**hdf5_format.compile_args(training_config, custom_objects))
    return model
