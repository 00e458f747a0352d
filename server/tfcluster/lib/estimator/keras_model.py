"""tf.keras.estimator.model_to_estimator (TF 1.15, checkpoint_format="saver"): an Estimator
whose model_fn clones a compiled Keras model onto the input_fn's features, compiles the clone
with the model's loss and metrics, the labels as its targets and a copy of its optimizer that
counts steps in the global step. The Keras model's current weights are saved once to
`<model_dir>/keras/keras_model.ckpt` and the Estimator warm-starts from them."""

from __future__ import annotations

import os
from typing import Any

from tfcluster.client.session import Session
from tfcluster.framework.graph import Graph, set_random_seed
from tfcluster.lib.estimator import export_output, subclassed_reset
from tfcluster.lib.estimator.estimator import (
    Estimator,
    maybe_overwrite_model_dir_and_session_config,
)
from tfcluster.lib.estimator.model_fn import EstimatorSpec, ModeKeys
from tfcluster.lib.io import gfile
from tfcluster.lib.keras import backend, models
from tfcluster.lib.keras.optimizers import TFOptimizer
from tfcluster.lib.metrics import metrics_impl
from tfcluster.lib.platform import tf_logging as logging
from tfcluster.ops.array_extras import convert_to_tensor_or_sparse_tensor
from tfcluster.training import checkpoint_management, training_util
from tfcluster.training import saver as saver_lib

_DEFAULT_SERVING_KEY = "serving_default"


def _any_weight_initialized(keras_model: Any) -> bool:
    """Whether Keras's session has initialized any of the model's weights (then they are the
    weights the Estimator starts from)."""
    return any(
        getattr(weight, "_keras_initialized", False)
        for layer in keras_model.layers
        for weight in layer.weights
    )


def _convert_tensor(x: Any) -> Any:
    return convert_to_tensor_or_sparse_tensor(x)


def _ordered(obj: Any, key_order: list[str] | None, obj_name: str, order_name: str) -> Any:
    """Features or labels as a list in the model's input or output order."""
    if obj is None:
        return None
    if isinstance(obj, (list, tuple)):
        return [_convert_tensor(x) for x in obj]
    if isinstance(obj, dict):
        assert key_order is not None
        different_keys = set(obj) ^ set(key_order)
        if different_keys:
            raise KeyError(
                f"The dictionary passed into {obj_name} does not have the expected "
                f"{order_name} keys defined in the keras model.\n\tExpected keys: "
                f"{set(key_order)}\n\t{obj_name} keys: {set(obj)}\n\tDifference: "
                f"{different_keys}"
            )
        return [_convert_tensor(obj[key]) for key in key_order]
    return [_convert_tensor(obj)]


def _estimator_io_to_keras(keras_model: Any, features: Any, labels: Any) -> tuple[Any, Any]:
    if isinstance(features, dict) and set(features) == {"features", "sample_weights"}:
        raise backend.unimplemented(
            "tf.keras.estimator.model_to_estimator with per-example `sample_weights` features"
        )
    graph_network = keras_model._is_graph_network
    input_names = None
    output_names = None
    if isinstance(features, dict):
        input_names = (
            list(keras_model.input_names)
            if graph_network
            else [f"input_{i}" for i in range(1, len(features) + 1)]
        )
    if isinstance(labels, dict):
        output_names = (
            list(keras_model.output_names)
            if graph_network
            else [f"output_{i}" for i in range(1, len(labels) + 1)]
        )
    inputs = _ordered(features, input_names, "features", "inputs")
    targets = _ordered(labels, output_names, "labels", "outputs")
    return inputs, targets


def _optimizer_copy(
    keras_model: Any, optimizer_config: dict[str, Any] | None, global_step: Any
) -> Any:
    """The clone's optimizer stepping the global step (TF 1.15's clone_and_build_model)."""
    optimizer = keras_model.optimizer
    if isinstance(optimizer, TFOptimizer):
        # A tf.train optimizer has no config: a new wrapper around the same one.
        return TFOptimizer(optimizer.optimizer, global_step)
    if optimizer_config is not None:
        optimizer = type(optimizer).from_config(optimizer_config)
    optimizer.iterations = global_step
    return optimizer


def _clone_and_build_model(
    mode: str,
    keras_model: Any,
    custom_objects: Any,
    features: Any = None,
    labels: Any = None,
    optimizer_config: dict[str, Any] | None = None,
) -> Any:
    """The model rebuilt in the current graph on the features; compiled (losses and metrics on
    the labels, the optimizer stepping the global step) unless predicting."""
    del custom_objects  # layers are rebuilt from their configs by their own classes
    backend.set_learning_phase(int(mode == ModeKeys.TRAIN))
    inputs, targets = _estimator_io_to_keras(keras_model, features, labels)
    if not keras_model._is_graph_network and not isinstance(keras_model, models.Sequential):
        clone = subclassed_reset.built_on(keras_model, inputs)
    else:
        clone = models.clone_model(keras_model, input_tensors=inputs)
    if mode != ModeKeys.PREDICT:
        global_step = training_util.get_or_create_global_step()
        optimizer = _optimizer_copy(keras_model, optimizer_config, global_step)
        clone.compile(
            optimizer,
            loss=keras_model.loss,
            metrics=keras_model._compile_metrics,
            loss_weights=keras_model._loss_weights,
            sample_weight_mode=keras_model.sample_weight_mode,
            target_tensors=targets,
        )
    return clone


def _optimizer_config(keras_model: Any) -> dict[str, Any] | None:
    try:
        return keras_model.optimizer.get_config()  # type: ignore[no-any-return]
    except (NotImplementedError, AttributeError):
        return None


def _create_keras_model_fn(keras_model: Any, custom_objects: Any = None) -> Any:
    optimizer_config = _optimizer_config(keras_model)

    def model_fn(features: Any, labels: Any, mode: str) -> EstimatorSpec:
        # A subclassed model is rebuilt in place (fresh layers) and restored after.
        with subclassed_reset.restored_after(keras_model):
            return _estimator_spec(
                mode, keras_model, custom_objects, features, labels, optimizer_config
            )

    return model_fn


def _estimator_spec(
    mode: str,
    keras_model: Any,
    custom_objects: Any,
    features: Any,
    labels: Any,
    optimizer_config: dict[str, Any] | None,
) -> EstimatorSpec:
    model = _clone_and_build_model(
        mode, keras_model, custom_objects, features, labels, optimizer_config
    )
    predictions = dict(zip(model.output_names, model.outputs))
    loss = train_op = eval_metric_ops = None
    if mode != ModeKeys.PREDICT:
        model._ensure_compiled(for_training=mode == ModeKeys.TRAIN)
        loss = model.total_loss
        eval_metric_ops = {
            name: metrics_impl.mean(values) for name, values in model._metric_samples
        } or None
    if mode == ModeKeys.TRAIN:
        train_op = model._train_fn
    return EstimatorSpec(
        mode=mode,
        predictions=predictions,
        loss=loss,
        train_op=train_op,
        eval_metric_ops=eval_metric_ops,
        export_outputs={_DEFAULT_SERVING_KEY: export_output.PredictOutput(predictions)},
    )


def _save_first_checkpoint(keras_model: Any, custom_objects: Any, config: Any) -> str:
    """The Keras model's weights (fresh ones if Keras never initialized it) with the training
    graph's other variables, saved once under <model_dir>/keras."""
    keras_model_dir = os.path.join(config.model_dir, "keras")
    latest_path = checkpoint_management.latest_checkpoint(keras_model_dir)
    if latest_path:
        return latest_path
    keras_weights = keras_model.get_weights() if _any_weight_initialized(keras_model) else None
    if not gfile.IsDirectory(keras_model_dir):
        gfile.MakeDirs(keras_model_dir)
    with Graph().as_default():
        set_random_seed(config.tf_random_seed)
        training_util.create_global_step()
        model = _clone_and_build_model(
            ModeKeys.TRAIN, keras_model, custom_objects, None, None, _optimizer_config(keras_model)
        )
        model._ensure_compiled(for_training=True)
        with Session(config=config.session_config) as sess:
            if keras_weights:
                model.set_weights(keras_weights)
            backend._initialize_variables(sess)
            latest_path = os.path.join(keras_model_dir, "keras_model.ckpt")
            saver_lib.Saver().save(sess, latest_path)
    return latest_path


def model_to_estimator(
    keras_model: Any = None,
    keras_model_path: str | None = None,
    custom_objects: Any = None,
    model_dir: str | None = None,
    config: Any = None,
    checkpoint_format: str = "saver",
) -> Estimator:
    """An Estimator training, evaluating and serving a compiled Keras model (see module)."""
    if not (keras_model or keras_model_path):
        raise ValueError("Either `keras_model` or `keras_model_path` needs to be provided.")
    if keras_model and keras_model_path:
        raise ValueError("Please specity either `keras_model` or `keras_model_path`, but not both.")
    config = maybe_overwrite_model_dir_and_session_config(config, model_dir)
    if not keras_model:
        logging.info("Loading models from %s", keras_model_path)
        keras_model = models.load_model(keras_model_path, custom_objects=custom_objects)
    else:
        logging.info("Using the Keras model provided.")
    if checkpoint_format == "checkpoint":
        raise backend.unimplemented(
            'tf.keras.estimator.model_to_estimator(checkpoint_format="checkpoint") '
            '(object-based checkpoints); use checkpoint_format="saver"'
        )
    if checkpoint_format != "saver":
        raise ValueError(
            f'Checkpoint format must be one of "checkpoint" or "saver". Got {checkpoint_format}'
        )
    if not getattr(keras_model, "optimizer", None):
        raise ValueError(
            "The given keras model has not been compiled yet. Please compile the model with "
            "`model.compile()` before calling `model_to_estimator()`."
        )
    model_fn = _create_keras_model_fn(keras_model, custom_objects)
    warm_start_path = None
    if keras_model._is_graph_network:
        warm_start_path = _save_first_checkpoint(keras_model, custom_objects, config)
    return Estimator(model_fn, config=config, warm_start_from=warm_start_path)
