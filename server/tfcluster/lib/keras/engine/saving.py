"""Model.save_weights / load_weights in TF's checkpoint format as TF 1.15's Keras writes it:
object-based keys (`layer_with_weights-0/kernel/.ATTRIBUTES/VARIABLE_VALUE`, the optimizer's
`optimizer/iter/...` and slots `.../.OPTIMIZER_SLOT/optimizer/m/...`) plus the
`_CHECKPOINTABLE_OBJECT_GRAPH` proto TensorFlow restores them by. HDF5 files (`.h5`,
save_format="h5") are laid out as Keras writes them (engine/hdf5_format.py)."""

from __future__ import annotations

import os
from typing import Any

import numpy as np

from tfcluster.framework.graph import get_default_graph
from tfcluster.lib.keras import backend
from tfcluster.lib.keras.engine.weights_saver import CachedWeightsSaver, DeferredRestore
from tfcluster.ops import variables
from tfcluster.protos import trackable_object_graph_pb2 as tog
from tfcluster.training import checkpoint_utils
from tfcluster.training.checkpoint_management import update_checkpoint_state

_SUFFIX = "/.ATTRIBUTES/VARIABLE_VALUE"
_SLOT = "/.OPTIMIZER_SLOT/"
OBJECT_GRAPH_KEY = "_CHECKPOINTABLE_OBJECT_GRAPH"


def _is_hdf5(filepath: str, save_format: Any) -> bool:
    if save_format is not None:
        fmt = str(save_format).lower().strip()
        if fmt in ("h5", "hdf5", "keras"):
            return True
        if fmt in ("tf", "tensorflow"):
            return False
        raise ValueError(f"Unknown format {save_format}. Was expecting one of {{'tf', 'h5'}}.")
    return filepath.endswith((".h5", ".keras", ".hdf5"))


def _save_hdf5(model: Any, filepath: str) -> None:
    from tfcluster.lib.keras.engine import hdf5_format

    hdf5_format.h5py_module("save_weights")
    with hdf5_format.open_file(filepath, "w") as f:
        hdf5_format.save_weights_to_group(f, model.layers)


def _load_hdf5(model: Any, filepath: str, by_name: bool) -> None:
    """Keras's HDF5 weights: a whole-model file's `model_weights` group, or a weights file."""
    from tfcluster.lib.keras.engine import hdf5_format

    hdf5_format.h5py_module("load_weights")
    with hdf5_format.open_file(filepath, "r") as f:
        group = f["model_weights"] if "layer_names" not in f.attrs and "model_weights" in f else f
        if by_name:
            hdf5_format.load_weights_from_group_by_name(group, model.layers)
        else:
            hdf5_format.load_weights_from_group(group, model.layers)


def _attribute_name(variable: Any) -> str:
    """The name the layer tracks the weight by: add_weight's, else its variable's last part."""
    tracked = getattr(variable, "_tracked_name", None)
    return str(tracked) if tracked else str(variable.op.name.rsplit("/", 1)[-1])


class _Graph:
    """The trackable object graph: the model's layers with weights, their variables, and
    the optimizer with its hyperparameters and slots."""

    def __init__(self) -> None:
        self.proto = tog.TrackableObjectGraph()
        self.keys: dict[str, Any] = {}

    def node(self) -> tuple[int, Any]:
        self.proto.nodes.add()
        index = len(self.proto.nodes) - 1
        return index, self.proto.nodes[index]

    def variable(self, parent: Any, local_name: str, variable: Any, key: str) -> int:
        index, node = self.node()
        parent.children.add(node_id=index, local_name=local_name)
        node.attributes.add(name="VARIABLE_VALUE", full_name=variable.op.name, checkpoint_key=key)
        self.keys[key] = variable
        return index


def _tracked_parts(layer: Any) -> list[tuple[str, Any]] | None:
    """The sub-objects TF 1.15 tracks a layer's weights through (its checkpoint keys' path),
    or None where the weights are the layer's own: a Bidirectional's two copies, a wrapper's
    layer, an RNN's cell (a ConvLSTM2D's too, whose cell holds them in TF), a stack's cells."""
    from tfcluster.lib.keras.layers import convolutional_recurrent, recurrent, wrappers

    if isinstance(layer, wrappers.Bidirectional):
        return [("forward_layer", layer.forward_layer), ("backward_layer", layer.backward_layer)]
    if isinstance(layer, wrappers.Wrapper):
        return [("layer", layer.layer)]
    if isinstance(layer, recurrent.RNN):
        return [("cell", layer.cell)]
    if isinstance(layer, convolutional_recurrent.ConvLSTM2D):
        return [("cell", _OwnWeights(layer))]
    if isinstance(layer, recurrent.StackedRNNCells):
        return [("cells", list(layer.cells))]
    return None


class _OwnWeights:
    """A layer's own weights tracked one level down (TF keeps them in a cell object)."""

    def __init__(self, layer: Any) -> None:
        self.weights = layer.weights


def _add(
    graph: _Graph,
    parent: Any,
    local_name: str,
    obj: Any,
    path: str,
    var_nodes: dict[int, tuple[int, str]],
) -> None:
    """obj's node under `parent` (named local_name), and under it what holds its weights."""
    index, node = graph.node()
    parent.children.add(node_id=index, local_name=local_name)
    here = f"{path}{local_name}/"
    if isinstance(obj, list):
        for i, item in enumerate(obj):
            _add(graph, node, str(i), item, here, var_nodes)
        return
    if hasattr(obj, "_layers") and hasattr(obj, "layers"):
        _build(obj, graph, node, here, var_nodes)
        return
    parts = _tracked_parts(obj)
    if parts is not None:
        for name, part in parts:
            _add(graph, node, name, part, here, var_nodes)
        return
    for w in obj.weights:
        attr = _attribute_name(w)
        key = f"{here}{attr}"
        var_nodes[id(w)] = (graph.variable(node, attr, w, key + _SUFFIX), key)


def _build(
    model: Any, graph: _Graph, node: Any, prefix: str, var_nodes: dict[int, tuple[int, str]]
) -> None:
    """A model's layers with weights under `layer_with_weights-<i>`, as TF's Network tracks
    them."""
    layers = [layer for layer in model.layers if layer.weights]
    for i, layer in enumerate(layers):
        _add(graph, node, f"layer_with_weights-{i}", layer, prefix, var_nodes)


def _object_graph(model: Any) -> _Graph:
    graph = _Graph()
    _, root = graph.node()
    var_nodes: dict[int, tuple[int, str]] = {}
    _build(model, graph, root, "", var_nodes)
    optimizer = getattr(model, "optimizer", None)
    if optimizer is not None and hasattr(optimizer, "_hypers_created") and optimizer.variables():
        opt_index, opt = graph.node()
        root.children.add(node_id=opt_index, local_name="optimizer")
        if optimizer._iterations is not None:
            graph.variable(opt, "iter", optimizer._iterations, "optimizer/iter" + _SUFFIX)
        for name, v in sorted(optimizer._hyper.items()):
            if isinstance(v, variables.Variable):
                graph.variable(opt, name, v, f"optimizer/{name}{_SUFFIX}")
        for w in model.weights:
            slots = optimizer._slots.get(w.op.name, {})
            if id(w) not in var_nodes:
                continue
            original, key = var_nodes[id(w)]
            for slot_name, slot in slots.items():
                slot_key = f"{key}/.OPTIMIZER_SLOT/optimizer/{slot_name}{_SUFFIX}"
                index, slot_node = graph.node()
                slot_node.attributes.add(
                    name="VARIABLE_VALUE", full_name=slot.op.name, checkpoint_key=slot_key
                )
                graph.keys[slot_key] = slot
                opt.slot_variables.add(
                    original_variable_node_id=original,
                    slot_name=slot_name,
                    slot_variable_node_id=index,
                )
    return graph


def _weights_saver(model: Any) -> CachedWeightsSaver:
    saver = model.__dict__.get("_weights_saver")
    if saver is None:
        saver = model.__dict__["_weights_saver"] = CachedWeightsSaver()
    return saver  # type: ignore[no-any-return]


def save_weights(model: Any, filepath: str, save_format: Any = None) -> None:
    if _is_hdf5(filepath, save_format):
        _save_hdf5(model, filepath)
        return
    graph = _object_graph(model)
    session = backend.get_session()
    directory = os.path.dirname(filepath)
    if directory:
        os.makedirs(directory, exist_ok=True)
    _weights_saver(model).save(session, filepath, dict(graph.keys), graph.proto.SerializeToString())
    # TF 1.15's save_weights records the checkpoint, by a path relative to its directory.
    update_checkpoint_state(directory, filepath, [filepath], save_relative_paths=True)


def load_weights(model: Any, filepath: str, by_name: bool = False) -> None:
    """Restores by the object-graph keys; a checkpoint without them (tf.train.Saver's)
    by the variables' own names."""
    if _is_hdf5(filepath, None):
        _load_hdf5(model, filepath, by_name)
        return
    if os.path.isdir(filepath):
        filepath = checkpoint_utils._checkpoint_filename(filepath) or filepath
    reader = checkpoint_utils.NewCheckpointReader(filepath)
    graph = _object_graph(model)
    if reader.has_tensor(OBJECT_GRAPH_KEY):
        found = {key: v for key, v in graph.keys.items() if reader.has_tensor(key)}
        if found:
            saver = _weights_saver(model)
            saver.build_restore(get_default_graph(), found)
            session = backend.get_session()
            saver.restore(session, filepath, found)
            optimizer: Any = getattr(model, "optimizer", None)
            if hasattr(optimizer, "_deferred_restore"):
                # Weights the optimizer makes later (its first training step) come from the
                # checkpoint too, as TF 1.15's streaming restore does.
                owners = {
                    id(v): key[: -len(_SUFFIX)]
                    for key, v in graph.keys.items()
                    if _SLOT not in key and not key.startswith("optimizer/")
                }
                deferred = DeferredRestore(saver, session, filepath, reader.has_tensor, owners)
                deferred.previous = optimizer._deferred_restore
                optimizer._deferred_restore = deferred
            return
    # A checkpoint without the object graph (tf.train.Saver's): by the variables' own names.
    pairs = []
    for key, variable in graph.keys.items():
        if reader.has_tensor(key):
            pairs.append((variable, np.asarray(reader.get_tensor(key))))
        elif reader.has_tensor(variable.op.name):
            pairs.append((variable, np.asarray(reader.get_tensor(variable.op.name))))
    if not pairs:
        raise ValueError(f"No weights of the model were found in the checkpoint {filepath}")
    backend.batch_set_value(pairs)
