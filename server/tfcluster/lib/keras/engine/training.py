"""tf.keras.Model's training side in graph mode (TF 1.15): compile() records the optimizer,
losses and metrics; the first fit/evaluate/predict/train_on_batch builds the graph (target
placeholders `<output>_target`, the loss under `loss/`, the optimizer's step under
`training/<Optimizer>/`) and runs it through backend.get_session() batch by batch, feeding the
learning phase."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

import numpy as np

from tfcluster.framework.graph import Operation, Tensor, control_dependencies, name_scope
from tfcluster.lib.keras import backend, losses, metrics, optimizers
from tfcluster.lib.keras import callbacks as cbks
from tfcluster.lib.keras.backend_function import run_step
from tfcluster.lib.keras.engine import (
    input_checks,
    layer_metrics,
    model_functions,
    sample_weights,
    saving,
    target_checks,
    tf_op_layer,
    training_array_steps,
    training_dataset,
    training_generator,
    training_tensors,
)
from tfcluster.lib.keras.engine.base_layer import flatten
from tfcluster.lib.keras.engine.input_layer import Input
from tfcluster.lib.keras.engine.loop_hooks import LoopHooks
from tfcluster.lib.keras.engine.loop_progress import LoopProgress
from tfcluster.lib.keras.engine.network import Network
from tfcluster.lib.keras.mixed_precision.loss_scale_optimizer import LossScaleOptimizer
from tfcluster.lib.keras.utils import losses_utils
from tfcluster.ops import array_ops, constant_op, control_flow_ops, math_ops


def _given_targets(target_tensors: Any, output_names: list[str]) -> list[Any]:
    """compile(target_tensors=...) as one entry per output (None: a placeholder is made)."""
    n = len(output_names)
    if target_tensors is None:
        return [None] * n
    if isinstance(target_tensors, dict):
        for key in target_tensors:
            if key not in output_names:
                raise ValueError(
                    f'Unknown entry in `target_tensors` dictionary: "{key}". Only expected the '
                    f"following keys: {output_names}"
                )
        return [target_tensors.get(name) for name in output_names]
    if not isinstance(target_tensors, (list, tuple)):
        target_tensors = [target_tensors]
    if len(target_tensors) != n:
        raise ValueError(
            "When passing a list as `target_tensors`, it should have one entry per model "
            f"output. The model has {n} outputs, but you passed target_tensors={target_tensors}"
        )
    return list(target_tensors)


def _fed_order(order: np.ndarray, batch_size: int) -> np.ndarray:
    """TF 1.15's array loop feeds a single batch whole, in the data's own order (it does not
    slice, so a shuffle drew its numbers for nothing)."""
    return np.arange(len(order)) if len(order) <= batch_size else order


def _as_list(x: Any) -> list[Any]:
    if x is None:
        return []
    if isinstance(x, dict):
        return list(x.values())
    return list(x) if isinstance(x, (list, tuple)) else [x]


def _is_array_like(x: Any) -> bool:
    """numpy arrays and lists, and the tables TF 1.15's standardize_input_data reads as
    arrays: a pandas DataFrame, a Series or another array-like with a shape (not a symbolic
    tensor)."""
    if isinstance(x, (np.ndarray, list, tuple, dict)) or np.isscalar(x):
        return True
    return not isinstance(x, Tensor) and hasattr(x, "shape") and hasattr(x, "__array__")


def _as_array(a: Any) -> np.ndarray:
    # TF 1.15 takes a DataFrame (known by its class name) through `.values`.
    return np.asarray(a.values if type(a).__name__ == "DataFrame" else a)


class Model(Network):
    """tf.keras.Model: a functional network (Model(inputs, outputs)) or a subclass with call()."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.optimizer: Any = None
        self.stop_training = False
        self.history: Any = None
        self._compiled = False
        self._train_fn: Any = None
        self._test_fn: Any = None

    # ---- compile ---------------------------------------------------------------------------
    def compile(
        self,
        optimizer: Any = "rmsprop",
        loss: Any = None,
        metrics: Any = None,
        loss_weights: Any = None,
        sample_weight_mode: Any = None,
        weighted_metrics: Any = None,
        target_tensors: Any = None,
        distribute: Any = None,
        **kwargs: Any,
    ) -> None:
        if distribute is not None:
            # TF 1.15 deprecates it for building the model under strategy.scope(); models here
            # train on one replica only.
            raise backend.unimplemented("tf.keras.Model.compile(distribute=...)")
        if self.dynamic:
            raise ValueError(
                "Your model contains layers that can only be successfully run in eager execution "
                "(layers constructed with `dynamic=True`). You must enable eager execution with "
                "`tf.enable_eager_execution()`."
            )
        self._compile_strategy = _one_replica_strategy()
        self._target_tensors = target_tensors
        self.optimizer = optimizers.get(optimizer)
        loss_scale = self._dtype_policy.loss_scale
        if loss_scale is not None and not isinstance(self.optimizer, LossScaleOptimizer):
            # A model whose policy scales losses trains through a LossScaleOptimizer (TF 1.15).
            self.optimizer = LossScaleOptimizer(self.optimizer, loss_scale)
        self.loss = loss or {}  # TF 1.15: no loss is an empty dict (per-output losses)
        self._compile_metrics = metrics or []
        self._loss_weights = loss_weights
        self.sample_weight_mode = sample_weight_mode
        self._compiled = True
        self._train_fn = self._test_fn = None
        if self.built and self._is_graph_network:
            self._build_loss()

    def _build_loss(self) -> None:
        """What TF 1.15's compile builds, in its order: the targets, the metrics' objects
        (their `total`/`count` variables), their update and result ops under `metrics/`, the
        sample weights' placeholders (sample_weight_mode "temporal") and the total loss under
        `loss/`. Op seeds derive from the op count, so a random op made later draws TF's."""
        names = self.output_names
        loss = self.loss
        if isinstance(loss, dict):
            for name in names:
                if name not in loss:
                    logging.getLogger("tensorflow").warning(
                        f"Output {name} missing from loss dictionary. We assume this was done "
                        "on purpose. The fit and evaluate APIs will not be expecting any data "
                        f"to be passed to {name}."
                    )
            loss_fns = [losses.get(loss.get(n)) for n in names]
        elif isinstance(loss, (list, tuple)):
            loss_fns = [losses.get(x) for x in loss]
        else:
            loss_fns = [losses.get(loss)] * len(self.outputs)
        if isinstance(self._loss_weights, dict):
            weights = [self._loss_weights.get(n, 1.0) for n in names]
        else:
            weights = list(self._loss_weights or [1.0] * len(self.outputs))
        self._loss_fns = loss_fns
        self._output_loss_weights = weights
        given_targets = _given_targets(getattr(self, "_target_tensors", None), names)
        self.targets: list[Tensor] = []
        # The targets fit/evaluate feed: those compile did not get as tensors.
        self._fed_targets: list[Tensor] = []
        # Per-sample values of each metric (an Estimator averages them over its evaluation).
        self._metric_samples: list[tuple[str, Tensor]] = []
        for i, output in enumerate(self.outputs):
            target = given_targets[i]
            if target is None:
                target = backend.placeholder(
                    ndim=output.shape.ndims,
                    dtype=output.dtype.base_dtype,
                    name=names[i] + "_target",
                )
                self._fed_targets.append(target)
            self.targets.append(target)
        multi = len(self.outputs) > 1
        # The metric objects, per output, then each output's loss as a Mean (several outputs).
        per_output: list[list[tuple[str, metrics.Metric]]] = []
        for i, output in enumerate(self.outputs):
            if loss_fns[i] is None:
                per_output.append([])
                continue
            specs = self._compile_metrics
            if isinstance(specs, dict):
                specs = _as_list(specs.get(names[i]))
            made: list[tuple[str, metrics.Metric]] = []
            for spec in specs:
                name, fn = self._metric_fn(spec, loss_fns[i], output)
                full = f"{names[i]}_{name}" if multi else name
                if isinstance(fn, metrics.Metric):
                    fn.name = full
                    made.append((full, fn))
                else:
                    made.append((full, metrics.MeanMetricWrapper(self._recorded(full, fn), full)))
            per_output.append(made)
        self._output_loss_metrics: list[metrics.Metric | None] = [
            metrics.Mean(name=names[i] + "_loss") if multi and fn is not None else None
            for i, fn in enumerate(loss_fns)
        ]
        masks = [getattr(x, "_keras_mask", None) for x in self.outputs]
        self._metric_results: list[Tensor] = []
        metric_names: list[str] = []
        with name_scope("metrics"):
            for i, output in enumerate(self.outputs):
                for full, metric in per_output[i]:
                    with name_scope(full):
                        mask = masks[i]
                        weight = None if mask is None else math_ops.cast(mask, output.dtype)
                        self._metric_results.append(
                            metric(self.targets[i], output, sample_weight=weight)
                        )
                    metric_names.append(full)
        self._compile_metric_objects = [m for made in per_output for _, m in made]
        # add_metric's, after compile's own (the layers', then the model's), as TF 1.15.
        for name, _, result in layer_metrics.added_metrics(self):
            self._metric_results.append(result)
            metric_names.append(name)
        self._sample_weights: list[Tensor | None] = [None] * len(self.outputs)
        if self.sample_weight_mode is not None:
            self._make_sample_weights(self.sample_weight_mode)
        self.total_loss = self._total_loss(masks)
        loss_names = [f"{names[i]}_loss" for i, m in enumerate(self._output_loss_metrics) if m]
        self.metrics_names = ["loss", *loss_names, *metric_names]
        # TF 1.15 trains the weights trainable at compile time (a `trainable` set later, as
        # a GAN's discriminator inside its combined model, needs a new compile).
        self._collected_trainable_weights = list(self.trainable_weights)

    def _make_sample_weights(self, mode: str) -> None:
        """Each output's fed weights, defaulting to ones: per sample, or per time step with
        sample_weight_mode "temporal" (TF 1.15's `<output>_sample_weights`)."""
        temporal = mode == "temporal"
        self.sample_weight_mode = mode
        for i, name in enumerate(self.output_names):
            if self._loss_fns[i] is None:
                continue
            default = constant_op.constant([[1.0]] if temporal else [1.0], dtype=backend.floatx())
            self._sample_weights[i] = array_ops.placeholder_with_default(
                default, shape=[None, None] if temporal else [None], name=name + "_sample_weights"
            )

    def _use_fed_sample_weights(self) -> None:
        """fit/evaluate got sample or class weights for a model compiled without: TF 1.15
        makes the weights' placeholders and builds the loss again with them."""
        if any(w is not None for w in self._sample_weights):
            return
        self._make_sample_weights("samplewise")
        self.total_loss = self._total_loss([getattr(x, "_keras_mask", None) for x in self.outputs])
        self._train_fn = self._test_fn = None

    def _total_loss(self, masks: list[Any]) -> Tensor:
        """TF 1.15's _prepare_total_loss: each output's loss weighted by its sample weights
        (or mask) and reduced as its Loss says, times its loss weight, plus the layers' losses."""
        self._output_losses: list[Tensor] = []
        total: Any = None
        with name_scope("loss"):
            for i, (output, fn) in enumerate(zip(self.outputs, self._loss_fns)):
                if fn is None:
                    continue
                sample_weight = self._sample_weights[i]
                with name_scope(self.output_names[i] + "_loss"):
                    mask = masks[i]
                    if mask is not None:
                        mask = math_ops.cast(mask, output.dtype)
                        if sample_weight is None:
                            sample_weight = mask
                        else:
                            mask, _, sample_weight = losses_utils.squeeze_or_expand_dimensions(
                                mask, sample_weight=sample_weight
                            )
                            sample_weight = sample_weight * mask
                    output_loss = self._output_loss(fn, self.targets[i], output, sample_weight)
                metric = self._output_loss_metrics[i]
                if metric is not None:
                    self._metric_results.insert(
                        sum(m is not None for m in self._output_loss_metrics[:i]),
                        metric(output_loss),
                    )
                self._output_losses.append(output_loss)
                term = self._output_loss_weights[i] * output_loss
                total = term if total is None else total + term
            if total is None:
                if not self.losses:
                    raise ValueError(
                        "The model cannot be compiled because it has no loss to optimize."
                    )
                total = 0.0
            # An added loss the inputs do not reach is left out, as TF 1.15's compile does.
            dropped = tf_op_layer.unreachable_added_losses(self) if self._is_graph_network else ()
            regularization = [x for x in self.losses if id(x) not in dropped]
            # TF 1.15 reads them twice (get_losses_for(None) + get_losses_for(inputs)): its
            # weight regularizers make their ops again, unused but counted (op seeds after).
            self.losses  # noqa: B018
            if regularization:
                total = total + math_ops.add_n(regularization)
        return total

    @staticmethod
    def _output_loss(fn: Any, target: Tensor, output: Tensor, sample_weight: Any) -> Tensor:
        if isinstance(fn, losses.Loss) or (callable(fn) and hasattr(fn, "__name__")):
            # A loss function is a LossFunctionWrapper in TF 1.15's compile (reduced over the
            # batch size); a Loss reduces as it says ("auto" over the batch size too).
            per_sample = (
                fn.call(target, output) if isinstance(fn, losses.Loss) else fn(target, output)
            )
            weighted = losses_utils.compute_weighted_loss(
                per_sample, sample_weight=sample_weight, reduction=losses_utils.NONE
            )
            reduction = getattr(fn, "reduction", losses_utils.SUM_OVER_BATCH_SIZE)
            if reduction == losses_utils.AUTO:
                reduction = losses_utils.SUM_OVER_BATCH_SIZE
            return losses_utils.reduce_weighted_loss(weighted, reduction)
        # A callable object of the user's: it weighs and reduces itself.
        return fn(target, output, sample_weight=sample_weight)

    def _recorded(self, name: str, fn: Callable[..., Any]) -> Callable[..., Any]:
        """fn, its per-sample values kept for the Estimator's and SavedModel's metrics."""

        def per_sample(y_true: Any, y_pred: Any, **kwargs: Any) -> Any:
            values = fn(y_true, y_pred, **kwargs)
            self._metric_samples.append((name, values))
            return values

        per_sample.__name__ = getattr(fn, "__name__", name)
        return per_sample

    @staticmethod
    def _metric_fn(spec: Any, loss_fn: Any, output: Tensor) -> tuple[str, Any]:
        """TF 1.15's get_metric_name and get_metric_function: `acc`/`ce` picked by the
        output's last dimension and the loss."""
        if isinstance(spec, metrics.Metric):
            return spec.name, spec
        if spec in ("accuracy", "acc", "crossentropy", "ce"):
            fn_name = getattr(loss_fn, "__name__", None) or getattr(
                getattr(loss_fn, "fn", None), "__name__", type(loss_fn).__name__
            )
            sparse = fn_name in ("sparse_categorical_crossentropy", "SparseCategoricalCrossentropy")
            binary = fn_name in ("binary_crossentropy", "BinaryCrossentropy")
            last = output.shape.as_list()[-1] if output.shape.ndims else None
            accuracy = spec in ("accuracy", "acc")
            if last == 1 or binary:
                fn: Any = metrics.binary_accuracy if accuracy else metrics.binary_crossentropy
            elif sparse:
                fn = (
                    metrics.sparse_categorical_accuracy
                    if accuracy
                    else metrics.sparse_categorical_crossentropy
                )
            else:
                fn = metrics.categorical_accuracy if accuracy else metrics.categorical_crossentropy
            return ("acc" if accuracy else "ce"), fn
        fn = metrics.get(spec)
        if isinstance(fn, metrics.Metric):
            return fn.name, fn
        name = getattr(fn, "name", None) or getattr(fn, "__name__", type(fn).__name__)
        return str(name), fn

    # ---- building --------------------------------------------------------------------------
    def _ensure_built(self, x: list[np.ndarray]) -> None:
        if self.inputs and self.outputs:
            return
        self._build_from_arrays(x)

    def _build_from_arrays(self, x: list[np.ndarray]) -> None:
        """Subclassed models (and Sequential without input shape): inputs made from the data."""
        if type(self).__name__ == "Sequential":
            inputs = [Input(batch_shape=(None, *np.shape(a)[1:]), dtype=_keras_dtype(a)) for a in x]
        else:
            # A subclassed model's inputs are TF 1.15's ModelInputs: plain placeholders
            # `input_<i>` (no Keras history: its layers record no nodes, and no Keras name
            # is taken from the next Input).
            inputs = [
                backend.placeholder(
                    shape=(None, *np.shape(a)[1:]), dtype=_keras_dtype(a), name=f"input_{i + 1}"
                )
                for i, a in enumerate(x)
            ]
        self._build_on(inputs, [t.op.name for t in inputs])

    def _build_on(self, inputs: list[Any], input_names: list[str]) -> None:
        """A subclassed model (or Sequential) called on `inputs`, which become its inputs."""
        # As TF 1.15's _set_inputs: a call taking `training` gets the learning phase.
        kwargs = {"training": backend.learning_phase()} if self._takes_training() else {}
        outputs = self(inputs[0] if len(inputs) == 1 else inputs, **kwargs)
        self.inputs = inputs
        self.outputs = flatten(outputs)
        self.input_names = input_names
        self.output_names = [f"output_{i + 1}" for i in range(len(self.outputs))]
        self.built = True

    def _takes_training(self) -> bool:
        return "training" in getattr(self, "_call_arg_names", ())

    def _ensure_loss(self) -> None:
        if not self._compiled:
            raise RuntimeError(
                "You must compile your model before training/testing. Use "
                "`model.compile(optimizer, loss)`."
            )
        if not hasattr(self, "total_loss"):
            self._build_loss()

    def _ensure_compiled(self, for_training: bool) -> None:
        self._ensure_loss()
        if for_training:
            _check_trainable_weights_consistency(self)
        if for_training and self._train_fn is None:
            # TF 1.15's _make_train_function: the learning phase first (a train function's
            # input), the optimizer's step, then K.function's group after the total loss.
            backend.symbolic_learning_phase()
            with name_scope("training"):
                updates = self._optimizer_updates() + self._updates_of_its_inputs()
            # TF 1.15 groups them in a second `training` scope (its K.function's), so the
            # next model's optimizer variables are under `training_2/`.
            with name_scope("training"), control_dependencies([self.total_loss]):
                self._train_fn = control_flow_ops.group(*updates)
        if not for_training and self._test_fn is None:
            self._test_fn = self._state_update_group("evaluation", self.total_loss)

    # ---- TF 1.15's K.functions of the loops, for programs that call them ---------------------
    def _make_train_function(self) -> None:
        self._ensure_compiled(for_training=True)

    def _make_test_function(self) -> None:
        self._ensure_compiled(for_training=False)

    def _make_predict_function(self) -> None:
        self._ensure_predict_function()

    def _function_attribute(self, name: str, made: Any) -> Any:
        """TF 1.15 sets the function attributes to None when compile builds the loss, and to
        the function when a loop (or _make_*_function) makes it; before, there are none."""
        if name in self.__dict__:
            return self.__dict__[name]
        if made is not None or (self._compiled and hasattr(self, "total_loss")):
            return made
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def _set_function_attribute(self, name: str, op_attribute: str, value: Any) -> None:
        """None makes the next loop build the function again (as in TF); another value is
        kept as the attribute."""
        self.__dict__.pop(name, None)
        if value is None:
            setattr(self, op_attribute, None)
        else:
            self.__dict__[name] = value

    @property
    def train_function(self) -> Any:
        return self._function_attribute("train_function", model_functions.train_function(self))

    @train_function.setter
    def train_function(self, value: Any) -> None:
        self._set_function_attribute("train_function", "_train_fn", value)

    @property
    def test_function(self) -> Any:
        return self._function_attribute("test_function", model_functions.test_function(self))

    @test_function.setter
    def test_function(self, value: Any) -> None:
        self._set_function_attribute("test_function", "_test_fn", value)

    @property
    def predict_function(self) -> Any:
        made = model_functions.predict_function(self)
        return self._function_attribute("predict_function", made)

    @predict_function.setter
    def predict_function(self, value: Any) -> None:
        self._set_function_attribute("predict_function", "_predict_fn", value)

    def _ensure_predict_function(self) -> None:
        if getattr(self, "_predict_fn", None) is None:
            self._predict_fn = self._state_update_group("predict", self.outputs[0])

    def _state_update_group(self, scope: str, first_output: Tensor) -> Any:
        """K.function's group of the stateful layers' updates, run after its first output
        (TF 1.15's `evaluation/group_deps` and `predict/group_deps`)."""
        with name_scope(scope), control_dependencies([first_output]):
            return control_flow_ops.group(*self.state_updates)

    def reset_metrics(self) -> None:
        """Zeroes the compile metrics' totals and counts (each Metric's reset_states)."""
        objects = [m for m in getattr(self, "_output_loss_metrics", []) if m is not None]
        objects += list(getattr(self, "_compile_metric_objects", []))
        objects += [metric for _, metric, _ in layer_metrics.added_metrics(self)]
        for metric in objects:
            metric.reset_states()

    @property
    def run_eagerly(self) -> bool:
        """False: graph mode (TF 1.15 without eager execution)."""
        return False

    @property
    def loss_weights(self) -> Any:
        """The loss_weights given to compile (None by default)."""
        return getattr(self, "_loss_weights", None)

    @property
    def sample_weights(self) -> list[Any]:
        """Each output's sample weights tensor (None where compile made none)."""
        return list(getattr(self, "_sample_weights", []))

    @property
    def metrics(self) -> list[Any]:
        """TF 1.15's Model.metrics: compile's metric objects, add_metric's."""
        return layer_metrics.model_metrics(self)

    @property
    def metrics_names(self) -> list[str]:
        """The loss's and the metrics' names as compile reports them; before compile builds
        its loss, the loss and add_metric's (TF 1.15's property)."""
        names = self.__dict__.get("_metrics_names")
        if names is not None:
            return names  # type: ignore[no-any-return]
        return ["loss", *(name for name, _, _ in layer_metrics.added_metrics(self))]

    @metrics_names.setter
    def metrics_names(self, names: list[str]) -> None:
        self.__dict__["_metrics_names"] = names

    def add_metric(
        self, value: Any, aggregation: str | None = None, name: str | None = None
    ) -> None:
        layer_metrics.add_metric(self, value, aggregation, name)

    def _updates_of_its_inputs(self) -> list[Any]:
        """As TF 1.15's _make_train_function (get_updates_for(None) then get_updates_for(
        self.inputs)): the updates that read no input, then those that read this model's; a
        nested model's updates on its own Input (made when it was built) are left out."""
        own = {id(t.op) for t in self.inputs}
        unconditional, conditional = [], []
        for update in self.updates:
            read = _placeholders_read(update)
            if not read:
                unconditional.append(update)
            elif read <= own:
                conditional.append(update)
        return unconditional + conditional

    def _optimizer_updates(self) -> list[Any]:
        """The optimizer's step on the trainable weights (the optimizer names its scope:
        `training/<name>/` for a Keras optimizer, `training/` for a wrapped tf.train one)."""
        params = getattr(self, "_collected_trainable_weights", None)
        if params is None:
            params = self.trainable_weights
        return list(self.optimizer.get_updates(loss=self.total_loss, params=params))

    # ---- feeding ---------------------------------------------------------------------------
    def _standardize(self, x: Any, y: Any) -> tuple[list[np.ndarray], list[np.ndarray]]:
        if training_tensors.has_symbolic_tensors(x) or training_tensors.has_symbolic_tensors(y):
            # Data tensors: their values this step (TF 1.15 runs them into the feeds).
            x, y = training_tensors.evaluate_tensors(x, y)
        if x is None and self.inputs:
            # A model built on Input(tensor=...) feeds itself: no input arrays.
            return [], [_as_array(a) for a in _as_list(y)]
        if x is not None and self.inputs and not self._feed_inputs():
            raise ValueError("Error when checking model input: expected no data, but got:", x)
        if not _is_array_like(x):
            raise backend.unimplemented(
                "tf.keras.Model fit/evaluate/predict on tf.data Datasets or generators "
                "(pass numpy arrays)"
            )
        xs = [_as_array(a) for a in _as_list(x)]
        fed = self._feed_inputs()
        if fed and len(xs) == len(fed) and not isinstance(x, dict):
            names = dict(zip((id(t) for t in self.inputs), self.input_names))
            xs = input_checks.check(
                xs,
                [names.get(id(t), t.op.name) for t in fed],
                [tuple(t.shape.as_list()) if t.shape.ndims is not None else None for t in fed],
            )
        ys = [_as_array(a) for a in _as_list(y)]
        return xs, ys

    def _standardize_weights(
        self, ys: list[np.ndarray], sample_weight: Any, class_weight: Any
    ) -> list[np.ndarray | None]:
        """Each output's weights from fit's sample_weight/class_weight (TF's checks)."""
        n = len(ys)
        if isinstance(sample_weight, dict):
            per_sample = [sample_weight.get(name) for name in self.output_names]
        elif isinstance(sample_weight, (list, tuple)) and n > 1:
            per_sample = list(sample_weight)
        else:
            per_sample = [sample_weight] * n
        if isinstance(class_weight, dict) and n > 1 and set(class_weight) & set(self.output_names):
            per_class = [class_weight.get(name) for name in self.output_names]
        else:
            per_class = [class_weight] * n
        standardized = [
            sample_weights.standardize(y, w, c, self.sample_weight_mode)
            for y, w, c in zip(ys, per_sample, per_class)
        ]
        if any(w is not None for w in standardized):
            self._ensure_loss()
            self._use_fed_sample_weights()
        return standardized

    def _check_targets(self, xs: list[np.ndarray], ys: list[np.ndarray]) -> None:
        self._ensure_loss()
        target_checks.check(xs, ys, self.outputs, self._loss_fns)

    def _feed_inputs(self) -> list[Tensor]:
        """The inputs arrays feed: placeholders (an Input(tensor=...) of another tensor
        feeds itself, as TF 1.15's _feed_inputs leave it out)."""
        return [t for t in self.inputs if _is_fed(t)]

    def _feed(
        self,
        xs: list[np.ndarray],
        ys: list[np.ndarray],
        index: Any,
        training: bool,
        weights: list[np.ndarray | None] | None = None,
    ) -> dict[Any, Any]:
        feed: dict[Any, Any] = {}
        for t, w in zip(getattr(self, "_sample_weights", []), weights or []):
            if t is not None and w is not None:
                feed[t] = w[index]
        for t, a in zip(self._feed_inputs(), xs):
            feed[t] = a[index]
        for t, a in zip(getattr(self, "_fed_targets", []), ys):
            value = a[index]
            if t.shape.ndims is not None and value.ndim == t.shape.ndims - 1:
                value = value.reshape((*value.shape, 1))  # np.expand_dims(value, -1), 10x faster
            feed[t] = value
        phase = backend.learning_phase_if_made()
        if isinstance(phase, Tensor):
            feed[phase] = training
        return feed

    # ---- the loops -------------------------------------------------------------------------
    def fit(
        self,
        x: Any = None,
        y: Any = None,
        batch_size: int | None = None,
        epochs: int = 1,
        verbose: int = 1,
        callbacks: Any = None,
        validation_split: float = 0.0,
        validation_data: Any = None,
        shuffle: Any = True,
        class_weight: Any = None,
        sample_weight: Any = None,
        initial_epoch: int = 0,
        steps_per_epoch: Any = None,
        validation_steps: Any = None,
        validation_freq: int = 1,
        max_queue_size: int = 10,  # a generator runs in this thread, as in fit_generator
        workers: int = 1,
        use_multiprocessing: bool = False,
        **kwargs: Any,
    ) -> cbks.History:
        if _is_generator_like(x):
            return training_generator.fit_generator(
                self, x, steps_per_epoch=steps_per_epoch, epochs=epochs, verbose=verbose,
                callbacks=callbacks, validation_data=validation_data,
                validation_steps=validation_steps, validation_freq=validation_freq,
                class_weight=class_weight, shuffle=bool(shuffle), initial_epoch=initial_epoch,
            )  # fmt: skip
        if training_dataset.is_dataset_input(x):
            training_dataset.check_dataset_arguments(x, y, batch_size)
            if shuffle:
                training_dataset.warn_if_not_shuffled(x)
            return training_dataset.fit(
                self, x, epochs=epochs, verbose=verbose, callbacks=callbacks,
                validation_data=validation_data, steps_per_epoch=steps_per_epoch,
                validation_steps=validation_steps, validation_freq=validation_freq,
                initial_epoch=initial_epoch, class_weight=class_weight,
            )  # fmt: skip
        if (x is None and y is None and self.inputs) or training_tensors.has_symbolic_tensors(x):
            return training_tensors.fit(
                self, x, y, batch_size=batch_size, steps_per_epoch=steps_per_epoch, epochs=epochs,
                verbose=verbose, callbacks=callbacks, validation_data=validation_data,
                validation_split=validation_split, validation_steps=validation_steps,
                validation_freq=validation_freq, initial_epoch=initial_epoch,
            )  # fmt: skip
        if steps_per_epoch is not None:
            return training_array_steps.fit(
                self, x, y, steps_per_epoch=int(steps_per_epoch), epochs=epochs,
                verbose=verbose, callbacks=callbacks, validation_split=validation_split,
                validation_data=validation_data, validation_steps=validation_steps,
                validation_freq=validation_freq, initial_epoch=initial_epoch,
                sample_weight=sample_weight, class_weight=class_weight,
            )  # fmt: skip
        batch_size = batch_size or 32
        xs, ys = self._standardize(x, y)
        self._ensure_built(xs)
        self._check_targets(xs, ys)
        strategy = getattr(self, "_compile_strategy", None)
        if strategy is not None and sample_weight is None and class_weight is None:
            return self._fit_arrays_as_strategy_dataset(
                strategy, xs, ys, batch_size, epochs, verbose, callbacks, validation_split,
                validation_data, shuffle, initial_epoch, validation_freq,
            )  # fmt: skip
        ws = self._standardize_weights(ys, sample_weight, class_weight)
        val_xs: list[np.ndarray] = []
        val_ys: list[np.ndarray] = []
        val_ws: list[np.ndarray | None] = []
        if validation_data is not None:
            if len(validation_data) not in (2, 3):
                raise ValueError(
                    "When passing a `validation_data` argument, it must contain either 2 items "
                    f"(x_val, y_val), or 3 items (x_val, y_val, val_sample_weights), or "
                    f"alternatively it could be a dataset or a dataset or a dataset iterator. "
                    f"However we received `validation_data` as a list of {len(validation_data)}."
                )
            val_xs, val_ys = self._standardize(validation_data[0], validation_data[1])
            val_weight = validation_data[2] if len(validation_data) == 3 else None
            val_ws = self._standardize_weights(val_ys, val_weight, None)
        elif validation_split and 0.0 < validation_split < 1.0:
            split_at = int(len(xs[0]) * (1.0 - validation_split))
            val_xs, val_ys = [a[split_at:] for a in xs], [a[split_at:] for a in ys]
            xs, ys = [a[:split_at] for a in xs], [a[:split_at] for a in ys]
            val_ws = [None if w is None else w[split_at:] for w in ws]
            ws = [None if w is None else w[:split_at] for w in ws]
        self._ensure_compiled(for_training=True)
        samples = len(xs[0])
        do_validation = bool(val_xs)
        out_labels = list(self.metrics_names)
        callback_metrics = out_labels + (["val_" + n for n in out_labels] if do_validation else [])
        self.history = cbks.History()
        # TF 1.15's order: the user's callbacks, then History (it sees what they add: `lr`).
        callback_list = [*(_as_list(callbacks)), self.history]
        if verbose:
            # As TF 1.15's _get_progbar: all but the total loss (outputs' losses are Means).
            stateful = [n for n in out_labels if n != "loss"]
            progbar = cbks.ProgbarLogger("samples", stateful_metrics=stateful)
            progbar.verbose_level = verbose
            callback_list.append(progbar)
        clist = cbks.CallbackList(callback_list)
        params = {
            "batch_size": batch_size, "epochs": epochs, "steps": None, "samples": samples,
            "verbose": verbose, "do_validation": do_validation, "metrics": callback_metrics,
        }  # fmt: skip
        for cb in callback_list:
            # Keras 2.2.4-tf hands graph-mode callbacks the validation arrays (TensorBoard's
            # histograms run on them).
            cb.validation_data = [*val_xs, *val_ys] if do_validation else None
            cb.set_model(self)
            cb.set_params(params)
        if verbose and do_validation:
            print(f"Train on {samples} samples, validate on {len(val_xs[0])} samples")
        elif verbose:
            print(f"Train on {samples} samples")
        self.stop_training = False
        fetches = [self.total_loss, *self._metric_results]
        clist.on_train_begin()
        for epoch in range(initial_epoch, epochs):
            # TF 1.15's training loop: the metrics start each epoch from zero and report
            # their running values; the total loss is averaged here over the samples.
            self.reset_metrics()
            clist.on_epoch_begin(epoch)
            order = np.arange(samples)
            if shuffle == "batch":
                # TF 1.15's batch_shuffle: whole batches change places, the partial last one
                # stays last.
                whole = samples // batch_size * batch_size
                blocks = order[:whole].reshape(-1, batch_size)
                np.random.shuffle(blocks)
                order = np.append(blocks.flatten(), order[whole:])
            elif shuffle:
                np.random.shuffle(order)
            order = _fed_order(order, batch_size)
            session = backend.get_session()
            loss_sum = 0.0
            values: list[Any] = [0.0] * len(fetches)
            for batch_index, start in enumerate(range(0, samples, batch_size)):
                index = order[start : start + batch_size]
                clist.on_train_batch_begin(batch_index, {"batch": batch_index, "size": len(index)})
                values = run_step(
                    session,
                    [*fetches, self._train_fn],
                    feed_dict=self._feed(xs, ys, index, True, ws),
                )[:-1]
                loss_sum += float(values[0]) * len(index)
                logs: dict[str, Any] = {"batch": batch_index, "size": len(index)}
                # The session's numpy scalars, as TF 1.15's batch logs hold them.
                logs.update(zip(out_labels, values))
                clist.on_train_batch_end(batch_index, logs)
                if self.stop_training:
                    break
            done = [loss_sum / max(samples, 1), *values[1:]]
            epoch_logs = {
                name: training_generator.reported(name, done[i])
                for i, name in enumerate(out_labels)
            }
            if do_validation and (epoch + 1) % validation_freq == 0:
                # TF 1.15 runs fit's validation through its loop's default shuffle=True: the
                # validation samples go in a shuffled order, drawing from numpy's generator.
                val = self._test_loop(
                    val_xs,
                    val_ys,
                    batch_size,
                    verbose=0,
                    weights=val_ws,
                    shuffle=True,
                    hooks=LoopHooks(clist, "test"),
                )
                for name, value in zip(out_labels, val):
                    epoch_logs["val_" + name] = value
                # TF 1.15's validation loop sets its own verbose (0) in the shared params.
                params["verbose"] = 0
            clist.on_epoch_end(epoch, epoch_logs)
            if self.stop_training:
                break
        clist.on_train_end()
        return self.history

    def _test_loop(
        self,
        xs: list[np.ndarray],
        ys: list[np.ndarray],
        batch_size: int,
        verbose: int,
        weights: list[np.ndarray | None] | None = None,
        shuffle: bool = False,
        hooks: LoopHooks | None = None,
    ) -> list[Any]:
        self._ensure_compiled(for_training=False)
        self.reset_metrics()
        hooks = hooks or LoopHooks(None, "test")
        hooks.begin()
        session = backend.get_session()
        fetches = [self.total_loss, *self._metric_results]
        samples = len(xs[0])
        names = list(self.metrics_names)
        progress = LoopProgress(verbose, "samples", samples, names)
        loss_sum = 0.0
        values: list[Any] = [0.0] * len(fetches)
        order = np.arange(samples)
        if shuffle:
            np.random.shuffle(order)
        order = _fed_order(order, batch_size)
        for batch_index, start in enumerate(range(0, samples, batch_size)):
            index = order[start : start + batch_size]
            hooks.batch_begin(batch_index, len(index))
            values = run_step(
                session,
                [*fetches, self._test_fn],
                feed_dict=self._feed(xs, ys, index, False, weights),
            )[:-1]
            loss_sum += float(values[0]) * len(index)
            hooks.batch_end(batch_index, dict(zip(names, values)))
            progress.batch(len(index), {n: float(v) for n, v in zip(names, values)})
        done = [loss_sum / max(samples, 1), *values[1:]]
        results = [training_generator.reported(n, v) for n, v in zip(names, done)]
        progress.end(dict(zip(names, results)))
        hooks.end()
        return results

    def _loop_hooks(
        self, callbacks: Any, mode: str, batch_size: int | None, samples: Any, steps: Any
    ) -> LoopHooks:
        """The hooks of an evaluate's or predict's own callbacks, with TF 1.15's loop
        parameters (its loops set verbose 0 there: they drive their progress bar apart)."""
        params = {"batch_size": batch_size, "steps": steps, "samples": samples, "verbose": 0}
        return LoopHooks(cbks.configured(callbacks, self, mode, params), mode)

    def evaluate(
        self, x: Any = None, y: Any = None, batch_size: int | None = None, verbose: int = 1,
        sample_weight: Any = None, steps: Any = None, callbacks: Any = None,
        max_queue_size: int = 10, workers: int = 1, use_multiprocessing: bool = False,
    ) -> Any:  # fmt: skip
        if _is_generator_like(x):
            return training_generator.evaluate_generator(self, x, steps, verbose, callbacks)
        if training_dataset.is_dataset_input(x):
            training_dataset.check_dataset_arguments(x, y, batch_size)
            return training_dataset.evaluate(self, x, steps, verbose, callbacks)
        if (x is None and y is None and self.inputs) or training_tensors.has_symbolic_tensors(x):
            return training_tensors.evaluate(self, x, y, batch_size, steps, verbose, callbacks)
        if steps is not None:
            return training_array_steps.evaluate(
                self, x, y, sample_weight, int(steps), verbose, callbacks
            )
        xs, ys = self._standardize(x, y)
        self._ensure_built(xs)
        self._check_targets(xs, ys)
        weights = self._standardize_weights(ys, sample_weight, None)
        batch_size = batch_size or 32
        hooks = self._loop_hooks(callbacks, "test", batch_size, len(xs[0]), None)
        result = self._test_loop(xs, ys, batch_size, verbose, weights=weights, hooks=hooks)
        return result[0] if len(result) == 1 else result

    def predict(
        self, x: Any, batch_size: int | None = None, verbose: int = 0, steps: Any = None,
        callbacks: Any = None, max_queue_size: int = 10, workers: int = 1,
        use_multiprocessing: bool = False,
    ) -> Any:  # fmt: skip
        if _is_generator_like(x):
            return training_generator.predict_generator(self, x, steps, verbose, callbacks)
        if training_dataset.is_dataset_input(x):
            training_dataset.check_dataset_arguments(x, None, batch_size)
            return training_dataset.predict(self, x, steps, verbose, callbacks)
        if (x is None and self.inputs) or training_tensors.has_symbolic_tensors(x):
            return training_tensors.predict(self, x, batch_size, steps, verbose, callbacks)
        if steps is not None:
            return training_array_steps.predict(self, x, int(steps), verbose, callbacks)
        xs, _ = self._standardize(x, None)
        self._ensure_built(xs)
        self._ensure_predict_function()
        # TF 1.15's loop resets the compile metrics in every mode, prediction too.
        self.reset_metrics()
        session = backend.get_session()
        batch_size = batch_size or 32
        samples = len(xs[0])
        parts: list[list[np.ndarray]] = [[] for _ in self.outputs]
        hooks = self._loop_hooks(callbacks, "predict", batch_size, samples, None)
        hooks.begin()
        progress = LoopProgress(verbose, "samples", samples, [])
        for batch_index, start in enumerate(range(0, samples, batch_size)):
            index = np.arange(start, min(start + batch_size, samples))
            hooks.batch_begin(batch_index, len(index))
            values = run_step(
                session,
                [*self.outputs, self._predict_fn],
                feed_dict=self._feed(xs, [], index, False),
            )[:-1]
            for i, v in enumerate(values):
                parts[i].append(v)
            hooks.batch_end(batch_index, {"outputs": values})
            progress.batch(len(index))
        progress.end()
        hooks.end()
        results = [np.concatenate(p) for p in parts]
        return results[0] if len(results) == 1 else results

    def _fit_arrays_as_strategy_dataset(
        self, strategy: Any, xs: list[np.ndarray], ys: list[np.ndarray], batch_size: int,
        epochs: int, verbose: int, callbacks: Any, validation_split: float,
        validation_data: Any, shuffle: Any, initial_epoch: int, validation_freq: int,
    ) -> Any:  # fmt: skip
        """fit on arrays of a model compiled in a strategy's scope, as TF 1.15's distribution
        loop runs it: through a dataset of the arrays (shuffled by tf.data, not numpy),
        ceil(samples / batch_size) steps an epoch, the loss averaged over steps."""
        if validation_split:
            raise ValueError(
                "validation_split argument is not supported with distribution strategies."
            )
        dataset = _strategy_dataset(strategy, xs, ys, batch_size, shuffle, epochs)
        validation = None
        if validation_data is not None:
            val_xs, val_ys = self._standardize(validation_data[0], validation_data[1])
            validation = _strategy_dataset(strategy, val_xs, val_ys, batch_size, False, 1)
        steps = -(-len(xs[0]) // batch_size)
        return training_dataset.fit(
            self, dataset, epochs=epochs, verbose=verbose, callbacks=callbacks,
            validation_data=validation, steps_per_epoch=steps, validation_steps=None,
            validation_freq=validation_freq, initial_epoch=initial_epoch,
        )  # fmt: skip

    def train_on_batch(
        self,
        x: Any,
        y: Any = None,
        sample_weight: Any = None,
        class_weight: Any = None,
        reset_metrics: bool = True,
    ) -> Any:
        xs, ys = self._standardize(x, y)
        self._ensure_built(xs)
        self._check_targets(xs, ys)
        weights = self._standardize_weights(ys, sample_weight, class_weight)
        self._ensure_compiled(for_training=True)
        index = _all_samples(xs, ys)
        session = backend.get_session()
        values = run_step(
            session,
            [self.total_loss, *self._metric_results, self._train_fn],
            feed_dict=self._feed(xs, ys, index, True, weights),
        )[:-1]
        # TF 1.15: the metrics' running values (this batch's after a reset), then the reset.
        if reset_metrics:
            self.reset_metrics()
        values = [np.float32(v) for v in values]
        return values[0] if len(values) == 1 else values

    def test_on_batch(
        self, x: Any, y: Any = None, sample_weight: Any = None, reset_metrics: bool = True
    ) -> Any:
        xs, ys = self._standardize(x, y)
        self._ensure_built(xs)
        self._check_targets(xs, ys)
        weights = self._standardize_weights(ys, sample_weight, None)
        self._ensure_compiled(for_training=False)
        index = _all_samples(xs, ys)
        session = backend.get_session()
        values = run_step(
            session,
            [self.total_loss, *self._metric_results, self._test_fn],
            feed_dict=self._feed(xs, ys, index, False, weights),
        )[:-1]
        if reset_metrics:
            self.reset_metrics()
        values = [np.float32(v) for v in values]
        return values[0] if len(values) == 1 else values

    # ---- generators and keras.utils.Sequence ---------------------------------------------------
    def fit_generator(
        self,
        generator: Any,
        steps_per_epoch: Any = None,
        epochs: int = 1,
        verbose: int = 1,
        callbacks: Any = None,
        validation_data: Any = None,
        validation_steps: Any = None,
        validation_freq: int = 1,
        class_weight: Any = None,
        max_queue_size: int = 10,
        workers: int = 1,
        use_multiprocessing: bool = False,
        shuffle: bool = True,
        initial_epoch: int = 0,
    ) -> Any:
        return training_generator.fit_generator(
            self, generator, steps_per_epoch=steps_per_epoch, epochs=epochs, verbose=verbose,
            callbacks=callbacks, validation_data=validation_data,
            validation_steps=validation_steps, validation_freq=validation_freq,
            class_weight=class_weight, shuffle=shuffle, initial_epoch=initial_epoch,
            workers=workers,
        )  # fmt: skip

    def evaluate_generator(
        self, generator: Any, steps: Any = None, callbacks: Any = None, max_queue_size: int = 10,
        workers: int = 1, use_multiprocessing: bool = False, verbose: int = 0,
    ) -> Any:  # fmt: skip
        return training_generator.evaluate_generator(self, generator, steps, verbose, callbacks)

    def predict_generator(
        self, generator: Any, steps: Any = None, callbacks: Any = None, max_queue_size: int = 10,
        workers: int = 1, use_multiprocessing: bool = False, verbose: int = 0,
    ) -> Any:  # fmt: skip
        return training_generator.predict_generator(self, generator, steps, verbose, callbacks)

    def predict_on_batch(self, x: Any) -> Any:
        if training_tensors.has_symbolic_tensors(x):
            x, _ = training_tensors.evaluate_tensors(x, None)
        if x is None and self.inputs:
            # One run of a model fed by its own tensors.
            self._ensure_predict_function()
            values = run_step(
                backend.get_session(),
                [*self.outputs, self._predict_fn],
                feed_dict=self._feed([], [], None, False),
            )[:-1]
            return values[0] if len(values) == 1 else values
        return self.predict(x, batch_size=len(_as_list(x)[0]))

    # ---- weights on disk ------------------------------------------------------------------
    def save_weights(self, filepath: str, overwrite: bool = True, save_format: Any = None) -> None:
        saving.save_weights(self, filepath, save_format)

    def load_weights(self, filepath: str, by_name: bool = False) -> Any:
        return saving.load_weights(self, filepath, by_name)

    def save(
        self,
        filepath: str,
        overwrite: bool = True,
        include_optimizer: bool = True,
        save_format: Any = None,
        signatures: Any = None,
    ) -> None:
        from tfcluster.lib.keras import models

        models.save_model(self, filepath, overwrite, include_optimizer, save_format, signatures)


def _is_generator_like(x: Any) -> bool:
    """A Python generator/iterator or a keras.utils.Sequence (not arrays, lists or dicts)."""
    from tfcluster.lib.keras.utils.data_utils import Sequence

    if isinstance(x, Sequence):
        return True
    return hasattr(x, "__next__") and not isinstance(x, (np.ndarray, list, tuple, dict))


def _is_fed(t: Tensor) -> bool:
    """An input arrays feed: an Input's own placeholder (not one given as Input(tensor=...),
    even a placeholder, as TF 1.15's InputLayer.is_placeholder says), or a subclassed model's
    plain placeholder."""
    history = getattr(t, "_keras_history", None)
    if history is None:
        return backend.is_placeholder(t)
    return bool(getattr(history[0], "is_placeholder", True))


def _all_samples(xs: list[np.ndarray], ys: list[np.ndarray]) -> np.ndarray:
    """The indices of every sample of a batch's arrays (none: a model fed by its tensors)."""
    arrays = xs or ys
    return np.arange(len(arrays[0]) if arrays else 0)


def _keras_dtype(a: np.ndarray) -> str:
    return "float32" if a.dtype == np.float64 else str(a.dtype)


def _one_replica_strategy() -> Any:
    """The tf.distribute strategy whose scope compile runs in, or None. One replica (the
    default MirroredStrategy on a machine without GPUs, OneDeviceStrategy, ...) trains as TF
    does; splitting Keras's batches over several replicas is not implemented, and is refused
    rather than trained differently from TF."""
    from tfcluster.training import distribution_context

    ctx = distribution_context.current()
    if ctx is not None and ctx.strategy.num_replicas_in_sync > 1:
        raise backend.unimplemented(
            "tf.keras.Model.compile under a tf.distribute strategy with several replicas"
        )
    return None if ctx is None else ctx.strategy


def _strategy_dataset(
    strategy: Any, xs: list[np.ndarray], ys: list[np.ndarray], batch_size: int, shuffle: Any,
    epochs: int,
) -> Any:  # fmt: skip
    """TF 1.15's _distribution_standardize_user_data for numpy arrays: the strategy's numpy
    dataset, shuffled through a buffer of max(1024, 8 batches), repeated for the epochs (its
    batches run across their ends), batched with the last partial batch kept."""
    x: Any = tuple(xs) if len(xs) > 1 else xs[0]
    y: Any = tuple(ys) if len(ys) > 1 else ys[0]
    with strategy.scope():
        session = backend.get_session()
        ds = strategy.extended.experimental_make_numpy_dataset((x, y), session=session)
        if shuffle:
            ds = ds.shuffle(max(1024, batch_size * 8))
        if epochs > 1:
            ds = ds.repeat(epochs)
        return ds.batch(batch_size, drop_remainder=False)


def _placeholders_read(target: Any) -> set[int]:
    """ids of the Placeholder ops `target` reads, through data and control inputs (the
    learning phase, a PlaceholderWithDefault, is not one)."""
    found: set[int] = set()
    seen: set[int] = set()
    stack = [target if isinstance(target, Operation) else target.op]
    while stack:
        op = stack.pop()
        if id(op) in seen:
            continue
        seen.add(id(op))
        if op.type == "Placeholder":
            found.add(id(op))
        stack.extend(t.op for t in op.inputs)
        stack.extend(op.control_inputs)
    return found


_warned_trainable_discrepancy: list[bool] = []


def _check_trainable_weights_consistency(model: Any) -> None:
    """TF 1.15's warning (logged once in a process) when `trainable` changed after compile."""
    collected = getattr(model, "_collected_trainable_weights", None)
    if collected is None or _warned_trainable_discrepancy:
        return
    if len(model.trainable_weights) != len(collected):
        _warned_trainable_discrepancy.append(True)
        logging.getLogger("tensorflow").warning(
            "Discrepancy between trainable weights and collected trainable weights, did you "
            "set `model.trainable` without calling `model.compile` after ?"
        )
