"""tf.saved_model.save (TF 1.15, graph mode): a trackable object, its variables and its
tf.functions written as TF 2's object-based SavedModel.

The files are TF's: saved_model.pb holds one MetaGraphDef (tag `serve`) whose graph has a
resource variable (VarHandleOp) per saved variable, each traced function as a FunctionDef
taking those variables' handles, a call of each signature's wrapper function fed by
`<signature>_<argument>` placeholders, a SaverDef's save and restore ops, and the
SavedObjectGraph that tf.saved_model.load_v2 rebuilds the objects from; variables/ is an
object-based checkpoint of the variables' values (read in the default session, as TF reads
them) with its TrackableObjectGraph. TF 1.15's loader.load and load_v2 both read it.

Saved: variables, tf.train.Checkpoint / tf.Module objects and Keras models (their weighted
layers; Keras objects with TF's Keras identifiers, metadata and traced calls, see
keras/engine/keras_saved_model.py) and the concrete functions of their tf.function
attributes; a function may capture the saved resource variables and constants (TF also saves
captured assets)."""

from __future__ import annotations

import os
from typing import Any

import numpy as np

from tfcluster.framework.default_session import get_default_session
from tfcluster.framework.tensor_bundle import bundle
from tfcluster.lib.saved_model import constants, object_graph, signature_serialization
from tfcluster.lib.saved_model import signature_constants as sigs
from tfcluster.lib.saved_model.export_graph import OBJECT_GRAPH_KEY, ExportGraph, UserObjects
from tfcluster.lib.saved_model.saveable_view import SaveableView
from tfcluster.protos import meta_graph_pb2, saved_model_pb2, saver_pb2
from tfcluster.training.object_checkpoint import Checkpoint

TF_VERSION = "1.15.0"


def _session() -> Any:
    session = get_default_session()
    if session is None:
        from tfcluster.lib.keras import backend

        session = backend.get_session()
    return session


def save(obj: Any, export_dir: str, signatures: Any = None) -> None:
    """tf.saved_model.save: writes obj to export_dir as the SavedModel the module docstring
    describes (a Keras model with Keras's metadata, as TF 1.15's)."""
    save_with_user_objects(obj, export_dir, signatures)


def save_with_user_objects(
    obj: Any, export_dir: str, signatures: Any = None, user_objects: UserObjects | None = None
) -> None:
    """save(), with user_objects naming objects (identifier, metadata) and adding children
    (Keras's model.save(save_format='tf') passes its own)."""
    if not object_graph.is_trackable(obj):
        raise ValueError(f"Expected a Trackable object for export, got {obj}.")
    if signatures is None:
        found = signature_serialization.find_function_to_export(obj)
        signature_map = {} if found is None else {sigs.DEFAULT_SERVING_SIGNATURE_DEF_KEY: found}
    else:
        signature_map = signature_serialization.canonicalize_signatures(signatures)
    if isinstance(obj, Checkpoint):
        obj._maybe_create_save_counter()  # TF saves it (uninitialized: FailedPreconditionError)
    if user_objects is None:
        # Keras layers and models anywhere in the graph are saved as TF's Keras saves them
        # (identifiers, metadata, keras_api with their traced calls).
        from tfcluster.lib.keras.engine import keras_saved_model

        user_objects = keras_saved_model.KerasObjects(obj, include_optimizer=True)
    extra = user_objects.children
    objects = SaveableView(obj, signature_map, extra)
    export = ExportGraph(objects, user_objects)
    export.build()
    for _, var in objects.variables:
        if not getattr(var, "_is_resource_variable", False):
            # TF 1.15 saves through resource handles only: its saver refuses a ref variable.
            raise ValueError(
                f"{var._ref()} must be from the same graph as "
                'Tensor("saver_filename:0", shape=(), dtype=string).'
            )
    session = _session()
    # A variable fetched is its value (no op added: the graph may be finalized).
    values = session.run([v for _, v in objects.variables]) if objects.variables else []

    meta = meta_graph_pb2.MetaGraphDef()
    meta.meta_info_def.tags.append("serve")
    meta.meta_info_def.tensorflow_version = TF_VERSION
    meta.meta_info_def.tensorflow_git_version = "tfcluster"
    meta.graph_def.CopyFrom(export.graph)
    meta.saver_def.CopyFrom(
        saver_pb2.SaverDef(
            filename_tensor_name="saver_filename:0",
            save_tensor_name="save/Identity:0",
            restore_op_name="restore/restore_all",
            version=saver_pb2.SaverDef.V2,
        )
    )
    for key, signature in export.signature_defs.items():
        meta.signature_def[key].CopyFrom(signature)
    init = meta.signature_def[constants.INIT_OP_SIGNATURE_KEY]
    init.outputs[constants.INIT_OP_SIGNATURE_KEY].name = "NoOp"
    meta.collection_def[constants.MAIN_OP_KEY].node_list.value.append("NoOp")
    meta.object_graph_def.CopyFrom(export.saved)
    saved_model = saved_model_pb2.SavedModel(saved_model_schema_version=1)
    saved_model.meta_graphs.append(meta)

    export_dir = os.fspath(export_dir)
    variables_dir = os.path.join(export_dir, constants.VARIABLES_DIRECTORY)
    os.makedirs(variables_dir, exist_ok=True)
    os.makedirs(os.path.join(export_dir, constants.ASSETS_DIRECTORY), exist_ok=True)
    tensors = [
        bundle.TensorToSave(objects.checkpoint_key(i), np.asarray(value))
        for (i, _), value in zip(objects.variables, values)
    ]
    graph_value = np.empty((), dtype=object)
    graph_value[()] = objects.checkpoint_graph().SerializeToString()
    graph_tensor = bundle.TensorToSave(OBJECT_GRAPH_KEY, graph_value)
    # TF's saver shards by device: the variables', then the object graph's (placed on "CPU").
    shards = [tensors, [graph_tensor]] if tensors else [[graph_tensor]]
    bundle.write_bundle(os.path.join(variables_dir, constants.VARIABLES_FILENAME), shards)
    with open(os.path.join(export_dir, constants.SAVED_MODEL_FILENAME_PB), "wb") as f:
        f.write(saved_model.SerializeToString(deterministic=True))
