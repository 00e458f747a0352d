"""An Estimator's SavedModel export (TF 1.15's Estimator._export_all_saved_models): one
MetaGraph per requested mode, each built by the model_fn in a graph of its own from that
mode's input receiver, tagged `train`, `eval` or `serve`, with the checkpoint's variables
saved once (with the first graph). TRAIN and EVAL graphs get a supervised signature of their
loss, predictions and metrics; a TRAIN graph carries its train op in the
`saved_model_train_op` collection."""

from __future__ import annotations

import os
import shutil
import time
from collections.abc import Callable, Mapping
from typing import Any

from tfcluster.framework import errors
from tfcluster.framework.graph import (
    Graph,
    GraphKeys,
    Operation,
    Tensor,
    add_to_collection,
    get_collection,
    set_random_seed,
)
from tfcluster.lib.estimator import export_output
from tfcluster.lib.estimator.model_fn import ModeKeys
from tfcluster.lib.saved_model import builder as builder_lib
from tfcluster.lib.saved_model import constants, export_utils, tag_constants
from tfcluster.training import checkpoint_management, monitored_session, training_util
from tfcluster.training.saver import Saver

_TAGS = {
    ModeKeys.TRAIN: [tag_constants.TRAINING],
    ModeKeys.EVAL: [tag_constants.EVAL],
    ModeKeys.PREDICT: [tag_constants.SERVING],
}


def timestamped_dir(base: str) -> str:
    for _ in range(10):
        path = os.path.join(base, str(int(time.time())))
        if not os.path.exists(path):
            os.makedirs(base, exist_ok=True)
            return path
        time.sleep(1)
    raise RuntimeError("Failed to obtain a unique export directory name after 10 attempts.")


def export_all_saved_models(
    estimator: Any,
    export_dir_base: str,
    input_receiver_fn_map: Mapping[str, Callable[[], Any]],
    assets_extra: Mapping[str, str] | None = None,
    as_text: bool = False,
    checkpoint_path: str | None = None,
    strip_default_attrs: bool = True,
) -> bytes:
    """Writes the SavedModel under export_dir_base/<timestamp>; returns that directory."""
    if not checkpoint_path:
        checkpoint_path = estimator.latest_checkpoint()
    if not checkpoint_path:
        warm_start = estimator._warm_start_settings
        if warm_start is None:
            raise ValueError(f"Couldn't find trained model at {estimator.model_dir}.")
        checkpoint_path = warm_start.ckpt_to_initialize_from
        if os.path.isdir(checkpoint_path):
            checkpoint_path = checkpoint_management.latest_checkpoint(checkpoint_path) or ""
    export_dir = timestamped_dir(export_dir_base)
    # TF formats the bytes name: the folder is literally temp-b'<timestamp>' (its log line
    # "SavedModel written to: .../temp-b'1700000000'/saved_model.pb" shows it).
    temp_dir = os.path.join(
        os.path.dirname(export_dir), "temp-" + str(os.path.basename(export_dir).encode())
    )
    builder = builder_lib.SavedModelBuilder(temp_dir)
    save_variables = True
    for mode in (ModeKeys.TRAIN, ModeKeys.EVAL, ModeKeys.PREDICT):
        if input_receiver_fn_map.get(mode):
            _add_meta_graph_for_mode(
                estimator,
                builder,
                input_receiver_fn_map[mode],
                checkpoint_path,
                save_variables,
                mode,
                strip_default_attrs,
            )
            save_variables = False
    if save_variables:
        raise ValueError(f"No valid modes for exporting found. Got {input_receiver_fn_map.keys()}.")
    builder.save(as_text)
    if assets_extra:
        extra = os.path.join(temp_dir, "assets.extra")
        for dest, source in assets_extra.items():
            path = os.path.join(extra, dest)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            shutil.copyfile(source, path)
    os.rename(temp_dir, export_dir)
    return export_dir.encode()


def _add_meta_graph_for_mode(
    estimator: Any,
    builder: Any,
    input_receiver_fn: Callable[[], Any],
    checkpoint_path: str,
    save_variables: bool,
    mode: str,
    strip_default_attrs: bool,
) -> None:
    from tfcluster.client.session import Session

    with Graph().as_default() as g:
        training_util.create_global_step(g)
        set_random_seed(estimator.config.tf_random_seed)
        receiver = input_receiver_fn()
        spec = estimator._call_model_fn(
            receiver.features, getattr(receiver, "labels", None), mode, estimator.config
        )
        outputs = export_output.export_outputs_for_mode(
            spec.mode,
            serving_export_outputs=spec.export_outputs,
            predictions=spec.predictions,
            loss=spec.loss,
            metrics=spec.eval_metric_ops,
        )
        signature_map = export_utils.build_all_signature_defs(
            receiver.receiver_tensors,
            outputs,
            getattr(receiver, "receiver_tensors_alternatives", None),
            serving_only=mode == ModeKeys.PREDICT,
        )
        with Session(config=estimator._session_config) as session:
            local_init_op = spec.scaffold.local_init_op
            if local_init_op is None:
                local_init_op = monitored_session.Scaffold.default_local_init_op()
            saver = spec.scaffold.saver or Saver(sharded=True)
            try:
                saver.restore(session, checkpoint_path)
            except errors.NotFoundError as e:
                raise ValueError(
                    "Could not load all requested variables from checkpoint. Please make sure "
                    "your model_fn does not expect variables that were not saved in the "
                    f"checkpoint.\n\nEncountered error with mode `{mode}` while restoring "
                    f"checkpoint from: `{checkpoint_path}`. Full Traceback:\n\n{e}"
                ) from None
            if spec.train_op is not None:
                if not isinstance(spec.train_op, (Tensor, Operation)):
                    raise TypeError(f"train_op needs to be a Tensor or Op: {spec.train_op!r}")
                add_to_collection(constants.TRAIN_OP_KEY, spec.train_op)
            kwargs: dict[str, Any] = {
                "signature_def_map": signature_map,
                "assets_collection": get_collection(GraphKeys.ASSET_FILEPATHS),
                "main_op": local_init_op,
                "saver": saver,
                "strip_default_attrs": strip_default_attrs,
            }
            if save_variables:
                builder.add_meta_graph_and_variables(session, _TAGS[mode], **kwargs)
            else:
                builder.add_meta_graph(_TAGS[mode], **kwargs)
