"""Whole models and weights in HDF5 files, laid out as TF 1.15's Keras (2.2.4-tf) writes them:
root attributes `keras_version`, `backend`, `model_config` (JSON) and `training_config`;
group `model_weights` with `layer_names` and one group per layer holding its `weight_names`
and a dataset per weight (`dense/kernel:0`); group `optimizer_weights` with the optimizer's
variables. Files written by TensorFlow load here and the reverse."""

from __future__ import annotations

import json
import logging
import os
from typing import Any

import numpy as np

from tfcluster.lib.keras import backend
from tfcluster.lib.keras.utils.json_utils import keras_json_default

KERAS_VERSION = "2.2.4-tf"
# Attributes over HDF5's object-header limit are split in chunks, as Keras splits them.
_HEADER_LIMIT = 64512


def h5py_module(what: str) -> Any:
    try:
        import h5py  # type: ignore[import-untyped]
    except ImportError:
        raise ImportError(f"`{what}` requires h5py.") from None
    return h5py


def open_file(filepath: Any, mode: str) -> Any:
    """h5py.File(filepath, mode), failing as under TF 1.15 (h5py 2.10, HDF5 1.10): a plain
    OSError "Unable to create file (...)" where a newer h5py raises an errno subclass
    (IsADirectoryError, FileNotFoundError, ...) saying "[Errno 21] Unable to synchronously
    create file (...)"."""
    h5py = h5py_module("h5py.File")
    try:
        return h5py.File(filepath, mode=mode)
    except OSError as e:
        if type(e) is OSError and e.errno is None:
            raise
        message = e.strerror if e.errno is not None and e.strerror else str(e)
        raise OSError(message.replace("Unable to synchronously ", "Unable to ", 1)) from None


def _text(value: Any) -> str:
    return value.decode("utf8") if isinstance(value, bytes) else str(value)


def save_attributes(group: Any, name: str, data: list[bytes]) -> None:
    too_big = [x for x in data if len(x) > _HEADER_LIMIT]
    if too_big:
        raise RuntimeError(
            "The following attributes cannot be saved to HDF5 file because they are larger "
            f"than {_HEADER_LIMIT} bytes: {too_big}"
        )
    array = np.asarray(data)
    chunks = 1
    parts = np.array_split(array, chunks)
    while any(x.nbytes > _HEADER_LIMIT for x in parts):
        chunks += 1
        parts = np.array_split(array, chunks)
    if chunks > 1:
        for index, part in enumerate(parts):
            group.attrs[f"{name}{index}"] = part
    else:
        group.attrs[name] = data


def load_attributes(group: Any, name: str) -> list[str]:
    if name in group.attrs:
        return [_text(n) for n in group.attrs[name]]
    out: list[str] = []
    index = 0
    while f"{name}{index}" in group.attrs:
        out.extend(_text(n) for n in group.attrs[f"{name}{index}"])
        index += 1
    return out


def _layer_weights(layer: Any) -> list[Any]:
    return list(layer.trainable_weights) + list(layer.non_trainable_weights)


def save_weights_to_group(group: Any, layers: list[Any]) -> None:
    save_attributes(group, "layer_names", [layer.name.encode("utf8") for layer in layers])
    group.attrs["backend"] = b"tensorflow"
    group.attrs["keras_version"] = KERAS_VERSION.encode("utf8")
    for layer in layers:
        g = group.create_group(layer.name)
        weights = _layer_weights(layer)
        values = backend.batch_get_value(weights)
        names = [w.name.encode("utf8") for w in weights]
        save_attributes(g, "weight_names", names)
        for name, value in zip(names, values):
            value = np.asarray(value)
            dataset = g.create_dataset(name, value.shape, dtype=value.dtype)
            if not value.shape:
                dataset[()] = value
            else:
                dataset[:] = value


def _saved_layers(group: Any) -> list[tuple[str, list[str]]]:
    """(layer name, weight names) for each saved layer that has weights."""
    out = []
    for name in load_attributes(group, "layer_names"):
        weight_names = load_attributes(group[name], "weight_names")
        if weight_names:
            out.append((name, weight_names))
    return out


def load_weights_from_group(group: Any, layers: list[Any]) -> None:
    """By order: the k-th saved layer with weights into the k-th layer with weights."""
    with_weights = [layer for layer in layers if _layer_weights(layer)]
    saved = _saved_layers(group)
    if len(saved) != len(with_weights):
        raise ValueError(
            f"You are trying to load a weight file containing {len(saved)} layers into a "
            f"model with {len(with_weights)} layers."
        )
    pairs: list[tuple[Any, Any]] = []
    for k, ((name, weight_names), layer) in enumerate(zip(saved, with_weights)):
        values = [np.asarray(group[name][w]) for w in weight_names]
        symbolic = _layer_weights(layer)
        if len(values) != len(symbolic):
            raise ValueError(
                f'Layer #{k} (named "{layer.name}" in the current model) was found to '
                f"correspond to layer {name} in the save file. However the new layer "
                f"{layer.name} expects {len(symbolic)} weights, but the saved weights have "
                f"{len(values)} elements."
            )
        pairs.extend(zip(symbolic, values))
    backend.batch_set_value(_checked(pairs))


def load_weights_from_group_by_name(group: Any, layers: list[Any]) -> None:
    """Into the layers whose names match a saved layer's (others are left as they are)."""
    by_name: dict[str, list[Any]] = {}
    for layer in layers:
        if layer.name:
            by_name.setdefault(layer.name, []).append(layer)
    pairs: list[tuple[Any, Any]] = []
    for k, name in enumerate(load_attributes(group, "layer_names")):
        weight_names = load_attributes(group[name], "weight_names")
        values = [np.asarray(group[name][w]) for w in weight_names]
        for layer in by_name.get(name, []):
            symbolic = _layer_weights(layer)
            if len(values) != len(symbolic):
                raise ValueError(
                    f'Layer #{k} (named "{layer.name}") expects {len(symbolic)} weight(s), but '
                    f"the saved weights have {len(values)} element(s)."
                )
            pairs.extend(zip(symbolic, values))
    backend.batch_set_value(_checked(pairs))


def _checked(pairs: list[tuple[Any, Any]]) -> list[tuple[Any, Any]]:
    for variable, value in pairs:
        expected = tuple(variable.shape.as_list())
        if expected != tuple(np.shape(value)):
            raise ValueError(
                f"Shapes {expected} and {tuple(np.shape(value))} are incompatible: the saved "
                f"weight for {variable.name} does not fit the model's."
            )
    return pairs


# ---- whole models ---------------------------------------------------------------------------
def model_metadata(
    model: Any, include_optimizer: bool = True, require_config: bool = True
) -> dict[str, Any]:
    """TF's saving_utils.model_metadata (without require_config, a model whose get_config
    raises NotImplementedError has a model_config of its class name only)."""
    from tfcluster.lib.keras.optimizers import TFOptimizer

    model_config: dict[str, Any] = {"class_name": type(model).__name__}
    try:
        model_config["config"] = model.get_config()
    except NotImplementedError:
        if require_config:
            raise
    metadata: dict[str, Any] = {
        "keras_version": KERAS_VERSION,
        "backend": "tensorflow",
        "model_config": model_config,
    }
    optimizer = getattr(model, "optimizer", None)
    if optimizer is not None and include_optimizer:
        if isinstance(optimizer, TFOptimizer):
            logging.warning(
                "TensorFlow optimizers do not make it possible to access optimizer attributes "
                "or optimizer state after instantiation. As a result, we cannot save the "
                "optimizer as part of the model save file. You will have to compile your "
                "model again after loading it. Prefer using a Keras optimizer instead (see "
                "keras.io/optimizers)."
            )
        else:
            metadata["training_config"] = {
                "loss": model.loss,
                "metrics": model._compile_metrics,
                "weighted_metrics": getattr(model, "_compile_weighted_metrics", None),
                "sample_weight_mode": getattr(model, "sample_weight_mode", None),
                "loss_weights": model._loss_weights,
                "optimizer_config": {
                    "class_name": type(optimizer).__name__,
                    "config": optimizer.get_config(),
                },
            }
    return metadata


def save_model(
    model: Any, filepath: Any, overwrite: bool = True, include_optimizer: bool = True
) -> None:
    h5py = h5py_module("save_model")
    if not isinstance(filepath, h5py.File):
        if not overwrite and os.path.isfile(filepath):
            return
        f = open_file(filepath, "w")
        opened = True
    else:
        f, opened = filepath, False
    try:
        for key, value in model_metadata(model, include_optimizer).items():
            if isinstance(value, (dict, list, tuple)):
                f.attrs[key] = json.dumps(value, default=keras_json_default).encode("utf8")
            else:
                f.attrs[key] = value
        save_weights_to_group(f.create_group("model_weights"), model.layers)
        optimizer = getattr(model, "optimizer", None)
        from tfcluster.lib.keras.optimizers import TFOptimizer

        if include_optimizer and optimizer is not None and not isinstance(optimizer, TFOptimizer):
            _save_optimizer_weights(f, optimizer)
        f.flush()
    finally:
        if opened:
            f.close()


def _save_optimizer_weights(f: Any, optimizer: Any) -> None:
    weights = optimizer.weights
    if not weights:
        return
    group = f.create_group("optimizer_weights")
    names = [str(w.name).encode("utf8") for w in weights]
    save_attributes(group, "weight_names", names)
    for name, value in zip(names, backend.batch_get_value(weights)):
        value = np.asarray(value)
        dataset = group.create_dataset(name, value.shape, dtype=value.dtype)
        if not value.shape:
            dataset[()] = value
        else:
            dataset[:] = value


def load_model(filepath: Any, custom_objects: Any = None, compile: bool = True) -> Any:
    from tfcluster.lib.keras.engine import model_config as model_config_lib

    h5py = h5py_module("load_model")
    custom_objects = custom_objects or {}
    opened = not isinstance(filepath, h5py.File)
    f = open_file(filepath, "r") if opened else filepath
    try:
        raw = f.attrs.get("model_config")
        if raw is None:
            raise ValueError("No model found in config file.")
        model = model_config_lib.model_from_config(
            json.loads(_text(raw)), custom_objects=custom_objects
        )
        load_weights_from_group(f["model_weights"], model.layers)
        if not compile:
            return model
        raw = f.attrs.get("training_config")
        if raw is None:
            logging.warning(
                "No training configuration found in save file: the model was *not* compiled. "
                "Compile it manually."
            )
            return model
        model.compile(**compile_args(json.loads(_text(raw)), custom_objects))
        if "optimizer_weights" in f:
            _restore_optimizer(model, f["optimizer_weights"])
        return model
    finally:
        if opened:
            f.close()


def compile_args(training_config: dict[str, Any], custom_objects: dict[str, Any]) -> dict[str, Any]:
    from tfcluster.lib.keras import losses, optimizers

    optimizer = optimizers.deserialize(
        training_config["optimizer_config"], custom_objects=custom_objects
    )
    loss = training_config["loss"]
    if isinstance(loss, dict) and "class_name" in loss:
        loss = losses.get(loss)

    def custom(obj: Any) -> Any:
        if isinstance(obj, list):
            return [custom(x) for x in obj]
        if isinstance(obj, dict):
            return {k: custom(v) for k, v in obj.items()}
        return custom_objects.get(obj, obj) if isinstance(obj, str) else obj

    return {
        "optimizer": optimizer,
        "loss": custom(loss),
        "metrics": custom(training_config.get("metrics")),
        "weighted_metrics": custom(training_config.get("weighted_metrics")),
        "loss_weights": training_config.get("loss_weights"),
        "sample_weight_mode": training_config.get("sample_weight_mode"),
    }


def _restore_optimizer(model: Any, group: Any) -> None:
    """The optimizer's slots are made by building the training step; saved values are then
    matched by name (`Adam/iter:0`, `Adam/dense/kernel/m:0`), else by position."""
    names = load_attributes(group, "weight_names")
    values = [np.asarray(group[n]) for n in names]
    if not model._is_graph_network:
        logging.warning(
            "Sequential models without an `input_shape` passed to the first layer cannot "
            "reload their optimizer state. As a result, your model isstarting with a freshly "
            "initialized optimizer."
        )
        return
    model._ensure_compiled(for_training=True)
    weights = model.optimizer.weights
    saved = dict(zip(names, values))
    pairs = [(w, saved[w.name]) for w in weights if w.name in saved]
    if len(pairs) != len(weights) and len(values) == len(weights):
        pairs = list(zip(weights, values))
    try:
        backend.batch_set_value(_checked(pairs))
    except ValueError:
        logging.warning(
            "Error in loading the saved optimizer state. As a result, your model is starting "
            "with a freshly initialized optimizer."
        )
