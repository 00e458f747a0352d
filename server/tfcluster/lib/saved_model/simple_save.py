"""tf.saved_model.simple_save: a serving SavedModel with one predict signature."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tfcluster.framework.graph import GraphKeys, get_collection
from tfcluster.lib.saved_model import signature_constants, tag_constants
from tfcluster.lib.saved_model.builder import SavedModelBuilder
from tfcluster.lib.saved_model.signature_def_utils import predict_signature_def


def simple_save(
    session: Any,
    export_dir: str,
    inputs: Mapping[str, Any],
    outputs: Mapping[str, Any],
    legacy_init_op: Any = None,
) -> None:
    signature_def_map = {
        signature_constants.DEFAULT_SERVING_SIGNATURE_DEF_KEY: predict_signature_def(
            inputs, outputs
        )
    }
    builder = SavedModelBuilder(export_dir)
    builder.add_meta_graph_and_variables(
        session,
        tags=[tag_constants.SERVING],
        signature_def_map=signature_def_map,
        assets_collection=get_collection(GraphKeys.ASSET_FILEPATHS),
        main_op=legacy_init_op,
        clear_devices=True,
    )
    builder.save()
