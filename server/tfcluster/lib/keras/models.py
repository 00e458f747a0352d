"""tf.keras.models: save_model/load_model (HDF5, as TF 1.15 writes it), model_from_* and
clone_model."""

from __future__ import annotations

import os
from typing import Any

from tfcluster.lib.keras.engine import hdf5_format, keras_saved_model
from tfcluster.lib.keras.engine.input_layer import Input, InputLayer
from tfcluster.lib.keras.engine.model_config import (
    model_from_config,
    model_from_json,
    model_from_yaml,
)
from tfcluster.lib.keras.engine.sequential import Sequential
from tfcluster.lib.keras.engine.training import Model

_HDF5_EXTENSIONS = (".h5", ".hdf5", ".keras")


def save_model(
    model: Any,
    filepath: Any,
    overwrite: bool = True,
    include_optimizer: bool = True,
    save_format: Any = None,
    signatures: Any = None,
) -> None:
    """HDF5 (TF 1.15's default format in graph mode); any other save_format than 'h5' (for a
    path without an HDF5 extension) is TF's SavedModel (engine/keras_saved_model.py)."""
    save_format = save_format or "h5"
    is_file_object = not isinstance(filepath, (str, os.PathLike))
    if (
        save_format == "h5"
        or is_file_object
        or os.path.splitext(str(filepath))[1] in _HDF5_EXTENSIONS
    ):
        if not model._is_graph_network and not isinstance(model, Sequential):
            raise NotImplementedError(
                "Saving the model to HDF5 format requires the model to be a Functional model "
                "or a Sequential model. It does not work for subclassed models, because such "
                "models are defined via the body of a Python method, which isn't safely "
                "serializable. Consider saving to the Tensorflow SavedModel format (by setting "
                'save_format="tf") or using `save_weights`.'
            )
        hdf5_format.save_model(model, filepath, overwrite, include_optimizer)
        return
    keras_saved_model.save(model, filepath, overwrite, include_optimizer, signatures)


def load_model(filepath: Any, custom_objects: Any = None, compile: bool = True) -> Any:
    h5py = hdf5_format.h5py_module("load_model")
    if isinstance(filepath, h5py.File) or (
        os.path.isfile(str(filepath)) and h5py.is_hdf5(str(filepath))
    ):
        return hdf5_format.load_model(filepath, custom_objects, compile)
    if isinstance(filepath, (str, os.PathLike)):
        return keras_saved_model.load(os.fspath(filepath), custom_objects, compile)
    raise OSError(
        "Unable to load model. Filepath is not an hdf5 file (or h5py is not available) or "
        "SavedModel."
    )


# ---- clone_model --------------------------------------------------------------------------
def _clone_layer(layer: Any) -> Any:
    return type(layer).from_config(layer.get_config())


def _clone_functional(model: Any, input_tensors: Any, layer_fn: Any) -> Any:
    """New layers (same configs, fresh weights), called in the original node order."""
    new_layers: dict[int, Any] = {}
    values: dict[int, Any] = {}
    given = list(input_tensors) if isinstance(input_tensors, (list, tuple)) else input_tensors
    for i, x in enumerate(model.inputs):
        layer = x._keras_history[0]
        if given is None:
            new_input = Input(
                batch_shape=layer._batch_input_shape,
                dtype=layer.dtype,
                name=layer.name,
            )
        else:
            new_input = given[i] if isinstance(given, list) else given
            if not hasattr(new_input, "_keras_history"):
                new_input = Input(tensor=new_input, name="input_wrapper_for_" + layer.name)
        values[id(x)] = new_input
    for node in model._nodes_in_order:
        layer = node.layer
        if id(layer) not in new_layers:
            new_layers[id(layer)] = layer_fn(layer)
        args = _map(lambda t: values[id(t)], node.inputs_structure)
        outs = new_layers[id(layer)](args)
        flat = outs if isinstance(outs, (list, tuple)) else [outs]
        for t, v in zip(node.output_tensors, flat):
            values[id(t)] = v
    inputs = [values[id(x)] for x in model.inputs]
    outputs = [values[id(x)] for x in model.outputs]
    return Model(inputs, outputs, name=model.name)


def _map(fn: Any, structure: Any) -> Any:
    if isinstance(structure, (list, tuple)):
        return type(structure)(_map(fn, x) for x in structure)
    return fn(structure)


def _clone_sequential(model: Any, input_tensors: Any, layer_fn: Any) -> Any:
    layers = [layer_fn(layer) for layer in model.layers]
    if input_tensors is None:
        first = model._layers[0] if model._layers else None
        if isinstance(first, InputLayer):
            shape = first._batch_input_shape
            return Sequential(
                [InputLayer(batch_input_shape=shape, name=first.name), *layers], name=model.name
            )
        return Sequential(layers, name=model.name)
    tensor = input_tensors[0] if isinstance(input_tensors, (list, tuple)) else input_tensors
    if not hasattr(tensor, "_keras_history"):
        tensor = Input(tensor=tensor, name="input_wrapper_for_" + str(tensor.op.name))
    origin = tensor._keras_history[0]
    return Sequential([origin, *layers], name=model.name)


def clone_model(model: Any, input_tensors: Any = None, clone_function: Any = None) -> Any:
    layer_fn = clone_function or _clone_layer
    if isinstance(model, Sequential):
        return _clone_sequential(model, input_tensors, layer_fn)
    if not model._is_graph_network:
        raise ValueError(
            "Expected `model` argument to be a functional `Model` instance, but got a "
            f"subclass model instead: {model}"
        )
    return _clone_functional(model, input_tensors, layer_fn)


__all__ = [
    "Model", "Sequential", "clone_model", "load_model", "model_from_config", "model_from_json",
    "model_from_yaml", "save_model",
]  # fmt: skip
