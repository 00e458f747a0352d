"""tf.saved_model.loader.load: a SavedModel's MetaGraphDef (chosen by its tags) imported
into the session's graph, its variables restored and its main op run (TF 1.x's loader)."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable
from typing import Any

from google.protobuf import message, text_format

from tfcluster.framework import tf_any
from tfcluster.framework.graph import GraphKeys, Operation
from tfcluster.lib.saved_model import constants
from tfcluster.lib.saved_model.builder import variables_path
from tfcluster.lib.saved_model.utils import get_element_from_tensor_info
from tfcluster.protos import meta_graph_pb2, saved_model_pb2
from tfcluster.training.saver import Saver, _import_meta_graph_with_return_elements


def parse_saved_model(export_dir: str) -> saved_model_pb2.SavedModel:
    """The SavedModel proto of export_dir (saved_model.pb, else saved_model.pbtxt)."""
    export_dir = os.fspath(export_dir)
    pb = os.path.join(export_dir, constants.SAVED_MODEL_FILENAME_PB)
    pbtxt = os.path.join(export_dir, constants.SAVED_MODEL_FILENAME_PBTXT)
    saved_model = saved_model_pb2.SavedModel()
    if os.path.exists(pb):
        with open(pb, "rb") as f:
            content = f.read()
        try:
            saved_model.ParseFromString(content)
        except message.DecodeError as e:
            raise OSError(f"Cannot parse file {pb}: {e}.") from None
    elif os.path.exists(pbtxt):
        with open(pbtxt, "rb") as f:
            content = f.read()
        try:
            text_format.Parse(content.decode("utf-8"), saved_model)
        except text_format.ParseError as e:
            raise OSError(f"Cannot parse file {pbtxt}: {e}.") from None
    else:
        raise OSError(
            f"SavedModel file does not exist at: {export_dir}{os.path.sep}"
            f"{{{constants.SAVED_MODEL_FILENAME_PBTXT}|{constants.SAVED_MODEL_FILENAME_PB}}}"
        )
    return saved_model


def maybe_saved_model_directory(export_dir: str) -> bool:
    """Whether export_dir has a saved_model.pb or saved_model.pbtxt (it may still not load)."""
    export_dir = os.fspath(export_dir)
    return os.path.exists(
        os.path.join(export_dir, constants.SAVED_MODEL_FILENAME_PBTXT)
    ) or os.path.exists(os.path.join(export_dir, constants.SAVED_MODEL_FILENAME_PB))


contains_saved_model = maybe_saved_model_directory


def get_asset_tensors(
    export_dir: str, meta_graph_def: Any, import_scope: str | None = None
) -> dict[str, str]:
    """Asset tensor name -> the asset file's path under export_dir/assets."""
    protos: list[Any] = []
    if meta_graph_def.asset_file_def:
        protos = list(meta_graph_def.asset_file_def)
    elif constants.ASSETS_KEY in meta_graph_def.collection_def:
        for packed in meta_graph_def.collection_def[constants.ASSETS_KEY].any_list.value:
            protos.append(tf_any.unpack(packed, meta_graph_pb2.AssetFileDef()))
    directory = os.path.join(os.fspath(export_dir), constants.ASSETS_DIRECTORY)
    out = {}
    for proto in protos:
        name = proto.tensor_info.name
        if import_scope:
            name = f"{import_scope}/{name}"
        out[name] = os.path.join(directory, proto.filename)
    return out


class SavedModelLoader:
    """Loads graphs and restores variables of one SavedModel."""

    def __init__(self, export_dir: str | bytes) -> None:
        # Export methods return the directory as bytes (as TF's do); programs pass it back.
        path = os.fspath(export_dir)
        self._export_dir = path.decode() if isinstance(path, bytes) else path
        self._variables_path = variables_path(self._export_dir)
        self._saved_model = parse_saved_model(self._export_dir)

    @property
    def export_dir(self) -> str:
        return self._export_dir

    @property
    def variables_path(self) -> str:
        return self._variables_path

    @property
    def saved_model(self) -> saved_model_pb2.SavedModel:
        return self._saved_model

    def get_meta_graph_def_from_tags(self, tags: Iterable[str]) -> Any:
        available = []
        for mgd in self._saved_model.meta_graphs:
            have = set(mgd.meta_info_def.tags)
            available.append(have)
            if have == set(tags):
                return mgd
        raise RuntimeError(
            f"MetaGraphDef associated with tags {str(list(tags)).strip('[]')} could not be found "
            f"in SavedModel. To inspect available tag-sets in the SavedModel, please use the "
            f"SavedModel CLI: `saved_model_cli`\navailable_tags: {available}"
        )

    def load_graph(
        self, graph: Any, tags: Iterable[str], import_scope: str | None = None, **saver_kwargs: Any
    ) -> tuple[Saver | None, Any]:
        mgd = self.get_meta_graph_def_from_tags(tags)
        if sys.byteorder == "big":
            raise RuntimeError("tfcluster reads SavedModels on little-endian machines only")
        with graph.as_default():
            return _import_meta_graph_with_return_elements(
                mgd, import_scope=import_scope, **saver_kwargs
            )

    def restore_variables(
        self, sess: Any, saver: Saver | None, import_scope: str | None = None
    ) -> None:
        from tfcluster.ops.variables import global_variables

        with sess.graph.as_default():
            has_variables = global_variables(import_scope) or sess.graph.get_collection(
                GraphKeys.SAVEABLE_OBJECTS, import_scope
            )
            if saver is None and not has_variables:
                return
            if isinstance(saver, Saver):
                saver.restore(sess, self._variables_path)
                return
            raise ValueError(
                "No tf.train.Saver object was passed to the function "
                "SavedModelLoader.restore_variables. Since there are variables in the graph, a "
                "saver is required."
            )

    def run_init_ops(self, sess: Any, tags: Iterable[str], import_scope: str | None = None) -> None:
        mgd = self.get_meta_graph_def_from_tags(tags)
        with sess.graph.as_default():
            assets = get_asset_tensors(self._export_dir, mgd, import_scope)
            init_op = _init_op(sess.graph, mgd, import_scope)
            if init_op is not None:
                sess.run(fetches=[init_op], feed_dict=assets)

    def load(
        self, sess: Any, tags: Iterable[str], import_scope: str | None = None, **saver_kwargs: Any
    ) -> Any:
        with sess.graph.as_default():
            saver, _ = self.load_graph(sess.graph, tags, import_scope, **saver_kwargs)
            self.restore_variables(sess, saver, import_scope)
            self.run_init_ops(sess, tags, import_scope)
        return self.get_meta_graph_def_from_tags(tags)


def _init_op(graph: Any, mgd: Any, import_scope: str | None) -> Operation | None:
    """The init op: from the __saved_model_init_op signature, else the main op collection,
    else the legacy init op collection."""
    signature = mgd.signature_def.get(constants.INIT_OP_SIGNATURE_KEY)
    if signature is not None:
        return get_element_from_tensor_info(  # type: ignore[no-any-return]
            signature.outputs[constants.INIT_OP_SIGNATURE_KEY], graph, import_scope
        )
    for key in (constants.MAIN_OP_KEY, constants.LEGACY_INIT_OP_KEY):
        if key in mgd.collection_def:
            names = mgd.collection_def[key].node_list.value
            if len(names) != 1:
                raise RuntimeError(f"Expected exactly one SavedModel main op. Found: {list(names)}")
            return graph.get_collection(key)[0]  # type: ignore[no-any-return]
    return None


def load(
    sess: Any,
    tags: Iterable[str],
    export_dir: str,
    import_scope: str | None = None,
    **saver_kwargs: Any,
) -> Any:
    """Loads the MetaGraphDef tagged `tags` of export_dir into sess; returns it."""
    return SavedModelLoader(export_dir).load(sess, tags, import_scope, **saver_kwargs)
