"""tf.saved_model.builder.SavedModelBuilder: writes a SavedModel (TF 1.x's builder).

The first MetaGraphDef is added with the variables (saved by a sharded Saver into
variables/variables, as TF does); later ones share them. Assets listed in assets_collection
are copied to assets/ and recorded in the saved_model_assets collection.
"""

from __future__ import annotations

import filecmp
import os
import shutil
from collections.abc import Iterable, Mapping
from typing import Any

from tfcluster.framework import proto_text, tf_any
from tfcluster.framework.graph import (
    GraphKeys,
    Operation,
    Tensor,
    add_to_collection,
    get_collection,
)
from tfcluster.framework.internal_deprecations import deprecated_arguments
from tfcluster.framework.tensor_bundle.bundle import _write_atomically
from tfcluster.lib.platform import tf_logging as logging
from tfcluster.lib.saved_model import constants
from tfcluster.lib.saved_model.signature_def_utils import op_signature_def
from tfcluster.protos import meta_graph_pb2, saved_model_pb2, saver_pb2
from tfcluster.training.saver import Saver

# TF 1.15's deprecated_args on the builder's two methods: a call passing legacy_init_op (None
# too) announces it once per method.
_BUILDER_MODULE = "tensorflow.python.saved_model.builder_impl"
_LEGACY_INIT_OP_INSTRUCTIONS = "Pass your op to the equivalent parameter main_op instead."


def variables_dir(export_dir: str) -> str:
    return os.path.join(export_dir, constants.VARIABLES_DIRECTORY)


def variables_path(export_dir: str) -> str:
    return os.path.join(variables_dir(export_dir), constants.VARIABLES_FILENAME)


def assets_dir(export_dir: str) -> str:
    return os.path.join(export_dir, constants.ASSETS_DIRECTORY)


def _asset_path(tensor: Any) -> str:
    """The file path a constant string tensor of the assets collection holds."""
    if not isinstance(tensor, Tensor):
        raise TypeError(f"Asset path tensor {tensor} must be a Tensor.")
    if tensor.op.type != "Const":
        raise TypeError(f"Asset path tensor {tensor} must be of type constant.")
    value = tensor.op._get_attr("value")
    if getattr(value, "size", 0) != 1:
        raise TypeError(f"Asset path tensor {tensor} must be a scalar.")
    item = value.reshape(-1)[0]
    return item.decode() if isinstance(item, bytes) else str(item)


def _asset_filename(path: str, taken: Mapping[str, str]) -> str:
    """The basename an asset is saved under: a different file of the same name gets _1, _2."""
    name = os.path.basename(path)
    if name not in taken or taken[name] == path or filecmp.cmp(path, taken[name], shallow=False):
        return name
    i = 1
    unique = name
    while unique in taken:
        unique = f"{name}_{i}"
        i += 1
    return unique


class SavedModelBuilder:
    def __init__(self, export_dir: str | bytes) -> None:
        self._saved_model = saved_model_pb2.SavedModel(
            saved_model_schema_version=constants.SAVED_MODEL_SCHEMA_VERSION
        )
        given = os.fspath(export_dir)  # str or bytes (TF's own tutorials pass bytes)
        self._export_dir = os.fsdecode(given)
        if os.path.exists(self._export_dir):
            if os.listdir(self._export_dir):
                raise AssertionError(
                    f"Export directory already exists, and isn't empty. Please choose a "
                    f"different export directory, or delete all the contents of the specified "
                    f"directory: {given!s}"
                )
        else:
            os.makedirs(self._export_dir)
        self._has_saved_variables = False
        self._saved_asset_files: set[str] = set()

    # ---- validation -------------------------------------------------------------------
    @staticmethod
    def _validate_tensor_info(info: Any) -> None:
        if info is None:
            raise AssertionError(
                "All TensorInfo protos used in the SignatureDefs must have the name and dtype "
                "fields set."
            )
        if info.WhichOneof("encoding") is None:
            raise AssertionError(
                f"All TensorInfo protos used in the SignatureDefs must have one of the "
                f"'encoding' fields (e.g., name or coo_sparse) set: {info}"
            )
        if info.dtype == 0:
            raise AssertionError(
                f"All TensorInfo protos used in the SignatureDefs must have the dtype field "
                f"set: {info}"
            )

    def _validate_signature_def_map(self, signature_def_map: Mapping[str, Any]) -> None:
        for key, signature in signature_def_map.items():
            for info in signature.inputs.values():
                self._validate_tensor_info(info)
            for info in signature.outputs.values():
                self._validate_tensor_info(info)
            if key in (constants.INIT_OP_SIGNATURE_KEY, constants.TRAIN_OP_SIGNATURE_KEY):
                raise KeyError(
                    f'SignatureDef map key "{key}" is reserved for the SavedModel\'s own ops. '
                    "Please use a different key."
                )

    # ---- collections --------------------------------------------------------------------
    def _save_and_write_assets(self, assets_collection: Iterable[Any] | None) -> None:
        if assets_collection is None:
            logging.info("No assets to save.")
            logging.info("No assets to write.")
            return
        taken: dict[str, str] = {}
        for tensor in assets_collection:
            source = _asset_path(tensor)
            if not source:
                raise ValueError(f"Invalid asset filepath tensor {tensor}")
            filename = _asset_filename(source, taken)
            proto = meta_graph_pb2.AssetFileDef(filename=filename)
            proto.tensor_info.name = tensor.name
            add_to_collection(constants.ASSETS_KEY, tf_any.pack(proto))
            taken[filename] = source
        logging.info("Assets added to graph.")
        if not taken:
            logging.info("No assets to write.")
            return
        target_dir = assets_dir(self._export_dir)
        os.makedirs(target_dir, exist_ok=True)
        for filename, source in taken.items():
            target = os.path.join(target_dir, filename)
            if (
                os.path.exists(source)
                and source != target
                and target not in self._saved_asset_files
            ):
                shutil.copyfile(source, target)
                self._saved_asset_files.add(target)

    @staticmethod
    def _maybe_add_main_op(main_op: Any) -> None:
        if main_op is None:
            return
        if not isinstance(main_op, Operation):
            raise TypeError(f"main_op needs to be an Operation: {main_op!r}")
        for key in (constants.MAIN_OP_KEY, constants.LEGACY_INIT_OP_KEY):
            if get_collection(key):
                raise ValueError(
                    f"Graph already contains one or more main ops under the collection {key}."
                )
        add_to_collection(constants.MAIN_OP_KEY, main_op)

    @staticmethod
    def _maybe_create_saver(saver: Saver | None) -> Saver:
        if saver:
            return saver
        from tfcluster.ops.variables import global_variables

        return Saver(
            global_variables() + get_collection(GraphKeys.SAVEABLE_OBJECTS),
            sharded=True,
            write_version=saver_pb2.SaverDef.V2,
            allow_empty=True,
        )

    def _tag_and_add_meta_graph(
        self, meta_graph_def: Any, tags: Iterable[str], signature_def_map: Mapping[str, Any]
    ) -> None:
        for tag in tags:
            meta_graph_def.meta_info_def.tags.append(tag)
        for key, signature in signature_def_map.items():
            meta_graph_def.signature_def[key].CopyFrom(signature)
        self._saved_model.meta_graphs.add().CopyFrom(meta_graph_def)

    # ---- the API ------------------------------------------------------------------------
    @deprecated_arguments(
        "SavedModelBuilder.add_meta_graph",
        _BUILDER_MODULE,
        _LEGACY_INIT_OP_INSTRUCTIONS,
        "legacy_init_op",
    )
    def add_meta_graph(
        self,
        tags: Iterable[str],
        signature_def_map: Mapping[str, Any] | None = None,
        assets_collection: Iterable[Any] | None = None,
        legacy_init_op: Any = None,
        clear_devices: bool = False,
        main_op: Any = None,
        strip_default_attrs: bool = False,
        saver: Saver | None = None,
    ) -> None:
        """Adds another MetaGraphDef, sharing the variables already saved."""
        if not self._has_saved_variables:
            raise AssertionError(
                "Graph state including variables and assets has not been saved yet. Please "
                "invoke `add_meta_graph_and_variables()` first."
            )
        signature_def_map = dict(signature_def_map or {})
        self._validate_signature_def_map(signature_def_map)
        self._save_and_write_assets(assets_collection)
        self._maybe_add_main_op(main_op if main_op is not None else legacy_init_op)
        saver = self._maybe_create_saver(saver)
        meta_graph_def = saver.export_meta_graph(
            clear_devices=clear_devices, strip_default_attrs=strip_default_attrs
        )
        self._tag_and_add_meta_graph(meta_graph_def, tags, signature_def_map)

    @deprecated_arguments(
        "SavedModelBuilder.add_meta_graph_and_variables",
        _BUILDER_MODULE,
        _LEGACY_INIT_OP_INSTRUCTIONS,
        "legacy_init_op",
    )
    def add_meta_graph_and_variables(
        self,
        sess: Any,
        tags: Iterable[str],
        signature_def_map: Mapping[str, Any] | None = None,
        assets_collection: Iterable[Any] | None = None,
        legacy_init_op: Any = None,
        clear_devices: bool = False,
        main_op: Any = None,
        strip_default_attrs: bool = False,
        saver: Saver | None = None,
    ) -> None:
        """Saves the session's variables under variables/ and adds the first MetaGraphDef."""
        if self._has_saved_variables:
            raise AssertionError(
                "Graph state including variables and assets has already been saved. Please "
                "invoke `add_meta_graph()` instead."
            )
        signature_def_map = dict(signature_def_map or {})
        self._validate_signature_def_map(signature_def_map)
        self._save_and_write_assets(assets_collection)
        self._maybe_add_main_op(main_op if main_op is not None else legacy_init_op)
        os.makedirs(variables_dir(self._export_dir), exist_ok=True)
        saver = self._maybe_create_saver(saver)
        saver.save(
            sess, variables_path(self._export_dir), write_meta_graph=False, write_state=False
        )
        meta_graph_def = saver.export_meta_graph(
            clear_devices=clear_devices, strip_default_attrs=strip_default_attrs
        )
        self._tag_and_add_meta_graph(meta_graph_def, tags, signature_def_map)
        self._has_saved_variables = True

    def save(self, as_text: bool = False) -> bytes:
        """Writes saved_model.pb (or .pbtxt); returns its path."""
        os.makedirs(self._export_dir, exist_ok=True)
        if as_text:
            path = os.path.join(self._export_dir, constants.SAVED_MODEL_FILENAME_PBTXT)
            # TF writes str() of the SavedModel, map entries in full.
            data = proto_text.message_to_string(self._saved_model, full_maps=True).encode()
        else:
            path = os.path.join(self._export_dir, constants.SAVED_MODEL_FILENAME_PB)
            data = self._saved_model.SerializeToString(deterministic=True)
        _write_atomically(path, data)
        logging.info("SavedModel written to: %s", path)
        return path.encode()


Builder = SavedModelBuilder


def add_op_to_signature_def_map(signature_def_map: dict[str, Any], op: Any, key: str) -> None:
    if op is not None:
        signature_def_map[key] = op_signature_def(op, key)
