"""tf.keras.experimental.export_saved_model / load_from_saved_model (TF 1.15's graph-mode
SavedModel of a Keras model): the model's weights as an object-based checkpoint under
variables/, its JSON config in assets/saved_model.json, and one MetaGraph per mode, each
built on a clone of the model in its own graph: `serve` (signature `serving_default`), and
for a compiled model `train` and `eval` (supervised signatures with the targets as inputs and
`loss`, `predictions/<output>`, `metrics/<name>/value|update_op` as outputs; the train graph
carries its train op). With serving_only=True: TF 2's object-based SavedModel that
tf.saved_model.save writes, with the serving signature, and the JSON config. TensorFlow's
loader and TF Serving read both."""

from __future__ import annotations

import os
from typing import Any

from tfcluster.client.session import Session
from tfcluster.framework.graph import (
    Graph,
    GraphKeys,
    add_to_collection,
    control_dependencies,
    get_default_graph,
)
from tfcluster.lib.io import gfile
from tfcluster.lib.keras import backend
from tfcluster.lib.keras.engine import saving
from tfcluster.lib.metrics import metrics_impl
from tfcluster.lib.saved_model import builder as builder_lib
from tfcluster.lib.saved_model import constants, signature_constants, signature_def_utils
from tfcluster.ops import array_ops, constant_op, variables
from tfcluster.training.saver import Saver

_TRAIN, _EVAL, _PREDICT = "train", "eval", "infer"
_TAGS = {_TRAIN: ["train"], _EVAL: ["eval"], _PREDICT: ["serve"]}


def _optimizer_config(model: Any) -> dict[str, Any] | None:
    """Read in the model's own graph (its hyperparameters may be variables there)."""
    try:
        return model.optimizer.get_config()  # type: ignore[no-any-return]
    except (NotImplementedError, AttributeError):
        return None


def _clone(model: Any, mode: str, optimizer_config: dict[str, Any] | None) -> Any:
    from tfcluster.lib.keras import models

    backend.set_learning_phase(int(mode == _TRAIN))
    clone = models.clone_model(model)
    if mode != _PREDICT:
        optimizer = model.optimizer
        if optimizer_config is not None:
            optimizer = type(optimizer).from_config(optimizer_config)
        clone.compile(
            optimizer,
            loss=model.loss,
            metrics=model._compile_metrics,
            loss_weights=model._loss_weights,
            sample_weight_mode=model.sample_weight_mode,
        )
        clone._ensure_compiled(for_training=mode == _TRAIN)
        add_to_collection(GraphKeys.GLOBAL_STEP, clone.optimizer.iterations)
    return clone


def _metric_outputs(clone: Any) -> dict[str, Any]:
    """Each metric as its running mean's value and update (the update as a tensor that runs
    it, as TF's SupervisedOutput wraps it)."""
    outputs: dict[str, Any] = {}
    for name, per_sample in clone._metric_samples:
        value, update = metrics_impl.mean(per_sample)
        with control_dependencies([update]):
            update_tensor = constant_op.constant([], name="metric_op_wrapper")
        outputs[f"metrics/{name}/value"] = array_ops.identity(value)
        outputs[f"metrics/{name}/update_op"] = update_tensor
    return outputs


def _signature_def_map(clone: Any, mode: str) -> dict[str, Any]:
    inputs = dict(zip(clone.input_names, clone.inputs))
    outputs = dict(zip(clone.output_names, clone.outputs))
    if mode == _PREDICT:
        return {
            signature_constants.DEFAULT_SERVING_SIGNATURE_DEF_KEY: (
                signature_def_utils.predict_signature_def(inputs, outputs)
            )
        }
    inputs.update({t.op.name: t for t in clone._fed_targets})
    predictions = {f"predictions/{k}": v for k, v in outputs.items()}
    make = (
        signature_def_utils.supervised_train_signature_def
        if mode == _TRAIN
        else signature_def_utils.supervised_eval_signature_def
    )
    return {mode: make(inputs, {"loss": clone.total_loss}, predictions, _metric_outputs(clone))}


def _export_mode(
    mode: str,
    builder: Any,
    model: Any,
    checkpoint_path: str,
    has_saved_vars: bool,
    optimizer_config: dict[str, Any] | None,
) -> None:
    with Graph().as_default():
        clone = _clone(model, mode, optimizer_config)
        train_op = clone._train_fn if mode == _TRAIN else None
        signatures = _signature_def_map(clone, mode)
        with Session() as sess:
            backend._initialize_variables(sess)
            sess.run(variables.local_variables_initializer())
            clone.load_weights(checkpoint_path)
            if not has_saved_vars:
                # The first graph's variables (optimizer's included) become the checkpoint.
                clone.save_weights(checkpoint_path, save_format="tf")
                builder._has_saved_variables = True
        if train_op is not None:
            add_to_collection(constants.TRAIN_OP_KEY, train_op)
        builder.add_meta_graph(
            _TAGS[mode],
            signature_def_map=signatures,
            saver=Saver(var_list=dict(saving._object_graph(clone).keys), allow_empty=True),
            main_op=variables.local_variables_initializer(),
        )


def export_saved_model(
    model: Any,
    saved_model_path: str,
    custom_objects: Any = None,
    as_text: bool = False,
    input_signature: Any = None,
    serving_only: bool = False,
) -> None:
    """Writes the SavedModel described in the module docstring."""
    del custom_objects  # layers are rebuilt from their configs by their own classes
    if serving_only:
        # TF 2's object-based SavedModel of the model with its serving signature.
        from tfcluster.lib.saved_model import save as save_lib
        from tfcluster.lib.saved_model.signature_serialization import keras_model_signature

        signature = keras_model_signature(model, input_signature)
        save_lib.save(model, saved_model_path, signatures=signature)
        _write_model_json(model, saved_model_path)
        return
    if input_signature is not None:
        raise backend.unimplemented("tf.keras.experimental.export_saved_model(input_signature=)")
    if not model._is_graph_network:
        from tfcluster.lib.keras.engine.sequential import Sequential

        if not isinstance(model, Sequential):
            raise NotImplementedError(
                "Subclassed models can only be exported for serving. Please set argument "
                "serving_only=True."
            )
        if not model.built:
            raise ValueError(
                "Weights for sequential model have not yet been created. Weights are created "
                "when the Model is first called on inputs or `build()` is called with an "
                "`input_shape`, or the first layer in the model has `input_shape` during "
                "construction."
            )
    builder = builder_lib.SavedModelBuilder(saved_model_path)
    checkpoint_path = builder_lib.variables_path(saved_model_path)
    model.save_weights(checkpoint_path, save_format="tf")
    has_saved_vars = False
    graph = get_default_graph()
    optimizer_config = _optimizer_config(model) if model.optimizer else None
    if model.optimizer:
        for mode in (_TRAIN, _EVAL):
            _export_mode(mode, builder, model, checkpoint_path, has_saved_vars, optimizer_config)
            has_saved_vars = True
    _export_mode(_PREDICT, builder, model, checkpoint_path, has_saved_vars, optimizer_config)
    with graph.as_default():
        builder.save(as_text)
    _write_model_json(model, saved_model_path)


def _write_model_json(model: Any, saved_model_path: str) -> None:
    assets = builder_lib.assets_dir(saved_model_path)
    gfile.MakeDirs(assets)
    with gfile.GFile(os.path.join(assets, "saved_model.json"), "w") as f:
        f.write(model.to_json())


def load_from_saved_model(saved_model_path: str, custom_objects: Any = None) -> Any:
    """The model rebuilt from assets/saved_model.json with the weights of variables/."""
    from tfcluster.lib.keras.engine.model_config import model_from_json

    json_path = os.path.join(str(saved_model_path), constants.ASSETS_DIRECTORY, "saved_model.json")
    with gfile.GFile(json_path, "r") as f:
        model = model_from_json(str(f.read()), custom_objects=custom_objects)
    model.load_weights(
        os.path.join(
            str(saved_model_path), constants.VARIABLES_DIRECTORY, constants.VARIABLES_FILENAME
        )
    )
    return model
