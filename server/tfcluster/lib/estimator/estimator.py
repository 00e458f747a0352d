"""tf.estimator.Estimator (TF 1.15): builds a fresh graph per call from the input_fn and the
model_fn, and runs it as TF does: train in a MonitoredTrainingSession (checkpoints, summaries
and graph.pbtxt in model_dir), evaluate once from the latest checkpoint (metrics written
under model_dir/eval), predict example by example, export a SavedModel."""

from __future__ import annotations

import contextlib
import inspect
import os
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import numpy as np

from tfcluster.framework import dtypes
from tfcluster.framework.graph import (
    Graph,
    GraphKeys,
    add_to_collection,
    get_collection,
    get_default_graph,
    set_random_seed,
)
from tfcluster.lib.estimator import saved_model_export
from tfcluster.lib.estimator.model_fn import EstimatorSpec, ModeKeys
from tfcluster.lib.estimator.run_config import RunConfig, get_default_session_config
from tfcluster.lib.metrics import metrics_impl
from tfcluster.lib.platform import tf_logging as logging
from tfcluster.ops import array_ops, control_flow_ops, nest, state_ops, variables
from tfcluster.training import (
    basic_session_run_hooks,
    checkpoint_management,
    checkpoint_utils,
    monitored_session,
    training_util,
    warm_starting_util,
)
from tfcluster.training.saver import Saver
from tfcluster.training.session_run_hook import SessionRunArgs, SessionRunHook

LOSS_METRIC_KEY = "loss"
_EVAL_STEP = "eval_step"

# The strategies whose every worker trains its own mirrored copy (TF 1.15 names them so).
_COLLECTIVE_STRATEGIES = (
    "CollectiveAllReduceStrategy",
    "CollectiveAllReduceStrategyV1",
    "MultiWorkerMirroredStrategy",
)


def _fn_args(fn: Callable[..., Any]) -> set[str]:
    if hasattr(fn, "func") and hasattr(fn, "keywords"):  # functools.partial
        return _fn_args(fn.func) - set(fn.keywords or {})
    try:
        return set(inspect.signature(fn).parameters)
    except (TypeError, ValueError):
        return set()


@contextlib.contextmanager
def _scaling_losses(strategy: Any) -> Iterator[None]:
    """While an Estimator trains under `strategy`, optimizers divide MEAN losses by the
    number of replicas (TF's _scale_loss_for_estimator_enabled)."""
    strategy._scale_loss_for_estimator = True
    try:
        yield
    finally:
        strategy._scale_loss_for_estimator = False


class _DatasetInitializerHook(SessionRunHook):
    """Runs a dataset iterator's initializer once the session exists."""

    def __init__(self, iterator: Any) -> None:
        self._iterator = iterator

    def begin(self) -> None:
        self._initializer = self._iterator.initializer

    def after_create_session(self, session: Any, coord: Any) -> None:
        session.run(self._initializer)


class _StopAfterNEvalsHook(SessionRunHook):
    """Stops after num_evals batches (None: at the input's end), logging progress as TF 1.15:
    every batch, or every tenth of them from 20 batches on."""

    def __init__(self, num_evals: int | None, evals_completed: Any = None) -> None:
        self._num_evals = num_evals
        # The eval step as this run's update leaves it (TF reads it after the update).
        self._evals_completed_tensor = evals_completed
        self._log_frequency = 1 if num_evals is None or num_evals < 20 else num_evals // 10

    def begin(self) -> None:
        if self._evals_completed_tensor is None:
            self._evals_completed_tensor = _get_or_create_eval_step()

    def before_run(self, run_context: Any) -> SessionRunArgs:
        return SessionRunArgs({"evals_completed": self._evals_completed_tensor})

    def after_run(self, run_context: Any, run_values: Any) -> None:
        done = int(run_values.results["evals_completed"])
        if self._num_evals is None:
            logging.info("Evaluation [%d]", done)
        elif done % self._log_frequency == 0 or done == self._num_evals:
            logging.info("Evaluation [%d/%d]", done, self._num_evals)
        if self._num_evals is not None and done >= self._num_evals:
            run_context.request_stop()


def _get_or_create_eval_step() -> Any:
    """The local int64 counter of evaluation batches run (TF's `eval_step`)."""
    found = get_collection(_EVAL_STEP)
    if found:
        return found[0]
    return variables.Variable(
        0,
        dtype=dtypes.int64,
        name=_EVAL_STEP,
        trainable=False,
        collections=[GraphKeys.LOCAL_VARIABLES, _EVAL_STEP],
    )


def parse_input_fn_result(result: Any) -> tuple[Any, Any, list[SessionRunHook]]:
    """(features, labels, hooks) from what an input_fn returned: a tuple, a features dict,
    or a tf.data Dataset (read through an initializable iterator)."""
    from tfcluster.lib.data.dataset import Dataset
    from tfcluster.lib.data.iterator import make_initializable_iterator

    hooks: list[SessionRunHook] = []
    if isinstance(result, Dataset):
        iterator = make_initializable_iterator(result)
        hooks.append(_DatasetInitializerHook(iterator))
        result = iterator.get_next()
    if isinstance(result, (list, tuple)):
        if len(result) != 2:
            raise ValueError(
                "input_fn should return (features, labels) as a len 2 tuple, got "
                f"{len(result)} values."
            )
        return result[0], result[1], hooks
    return result, None, hooks


def _check_hooks(hooks: Any) -> list[SessionRunHook]:
    hooks = list(hooks or [])
    for h in hooks:
        if not isinstance(h, SessionRunHook):
            raise TypeError(f"Hooks must be a SessionRunHook, given: {h}")
    return hooks


def maybe_overwrite_model_dir_and_session_config(
    config: RunConfig | None, model_dir: str | None
) -> RunConfig:
    """The config with its model_dir settled: the one given (both given must agree), else a
    new temporary folder."""
    if config is None:
        config = RunConfig()
        logging.info("Using default config.")
    elif not isinstance(config, RunConfig):
        raise ValueError(f"config must be an instance of `RunConfig`, but provided {config}.")
    if model_dir is not None and config.model_dir is not None and model_dir != config.model_dir:
        raise ValueError(
            "`model_dir` are set both in constructor and `RunConfig`, but with different "
            f"values. In constructor: '{model_dir}', in `RunConfig`: '{config.model_dir}' "
        )
    model_dir = model_dir or config.model_dir
    if model_dir is None:
        model_dir = tempfile.mkdtemp()
        logging.warning("Using temporary folder as model directory: %s", model_dir)
    if config.session_config is None:
        return config.replace(model_dir=model_dir, session_config=get_default_session_config())
    return config.replace(model_dir=model_dir)


class Estimator:
    """Trains, evaluates and serves the model a model_fn builds."""

    def __init__(
        self,
        model_fn: Callable[..., EstimatorSpec],
        model_dir: str | None = None,
        config: RunConfig | None = None,
        params: dict[str, Any] | None = None,
        warm_start_from: Any = None,
    ) -> None:
        self._config = maybe_overwrite_model_dir_and_session_config(config, model_dir)
        self._model_dir = model_dir = self._config.model_dir
        logging.info("Using config: %s", {k: v for k, v in vars(self._config).items()})
        self._session_config = self._config.session_config
        self._device_fn = self._config.device_fn or _replica_device_fn(self._config)
        if model_fn is None:
            raise ValueError("model_fn must be provided to Estimator.")
        args = _fn_args(model_fn)
        if "features" not in args:
            raise ValueError(f"model_fn ({model_fn}) must include features argument.")
        if params is not None and "params" not in args:
            raise ValueError(
                f"model_fn ({model_fn}) does not include params argument, but params "
                f"({params}) is passed to Estimator."
            )
        self._model_fn = model_fn
        self._params = dict(params or {})
        self._warm_start_settings = _warm_start_settings(warm_start_from)

    # -- properties ----------------------------------------------------------------------
    @property
    def model_dir(self) -> str:
        return self._model_dir

    @property
    def config(self) -> RunConfig:
        return self._config

    @property
    def params(self) -> dict[str, Any]:
        return dict(self._params)

    @property
    def model_fn(self) -> Callable[..., EstimatorSpec]:
        def public_model_fn(features: Any, labels: Any, mode: str, config: Any) -> EstimatorSpec:
            return self._call_model_fn(features, labels, mode, config)

        return public_model_fn

    def latest_checkpoint(self) -> str | None:
        return checkpoint_management.latest_checkpoint(self._model_dir)

    def get_variable_names(self) -> list[str]:
        return [name for name, _ in checkpoint_utils.list_variables(self._model_dir)]

    def get_variable_value(self, name: str) -> Any:
        return checkpoint_utils.load_variable(self._model_dir, name)

    def eval_dir(self, name: str | None = None) -> str:
        return os.path.join(self._model_dir, "eval" if not name else "eval_" + name)

    # -- graph building ------------------------------------------------------------------
    def _call_input_fn(
        self, input_fn: Callable[..., Any], mode: str, input_context: Any = None
    ) -> Any:
        args = _fn_args(input_fn)
        kwargs: dict[str, Any] = {}
        if "mode" in args:
            kwargs["mode"] = mode
        if "params" in args:
            kwargs["params"] = self._params
        if "config" in args:
            kwargs["config"] = self._config
        if input_context and "input_context" in args:
            # As TF 1.15: only a strategy's context is passed (else the default stays).
            logging.info(
                "The `input_fn` accepts an `input_context` which will be given by "
                "DistributionStrategy"
            )
            kwargs["input_context"] = input_context
        # TF builds the input pipeline on the CPU.
        with get_default_graph().device("/cpu:0"):
            return input_fn(**kwargs)

    def _call_model_fn(self, features: Any, labels: Any, mode: str, config: Any) -> EstimatorSpec:
        args = _fn_args(self._model_fn)
        kwargs: dict[str, Any] = {}
        if "labels" in args:
            kwargs["labels"] = labels
        elif labels is not None:
            raise ValueError("model_fn does not take labels, but input_fn returns labels.")
        if "mode" in args:
            kwargs["mode"] = mode
        if "params" in args:
            kwargs["params"] = self._params
        if "config" in args:
            kwargs["config"] = config
        logging.info("Calling model_fn.")
        spec = self._model_fn(features=features, **kwargs)
        logging.info("Done calling model_fn.")
        if not isinstance(spec, EstimatorSpec):
            raise ValueError(f"model_fn should return an EstimatorSpec. Given: {type(spec)}")
        if spec.scaffold is None:
            spec = spec._replace(scaffold=monitored_session.Scaffold())
        return spec

    # -- train ---------------------------------------------------------------------------
    def train(
        self,
        input_fn: Callable[..., Any],
        hooks: Sequence[SessionRunHook] | None = None,
        steps: int | None = None,
        max_steps: int | None = None,
        saving_listeners: Sequence[Any] | None = None,
    ) -> Estimator:
        """Trains until input_fn runs out, `steps` more steps, or global step `max_steps`."""
        if steps is not None and max_steps is not None:
            raise ValueError("Can not provide both steps and max_steps.")
        if steps is not None and steps <= 0:
            raise ValueError(f"Must specify steps > 0, given: {steps}")
        if max_steps is not None and max_steps <= 0:
            raise ValueError(f"Must specify max_steps > 0, given: {max_steps}")
        if max_steps is not None:
            start = _global_step_in(self._model_dir)
            if max_steps <= start:
                logging.info("Skipping training since max_steps has already saved.")
                return self
        all_hooks = _check_hooks(hooks)
        if steps is not None or max_steps is not None:
            all_hooks.append(basic_session_run_hooks.StopAtStepHook(steps, max_steps))
        loss = self._train_model(input_fn, all_hooks, list(saving_listeners or []))
        logging.info("Loss for final step: %s.", loss)
        return self

    def _train_model(
        self, input_fn: Callable[..., Any], hooks: list[SessionRunHook], saving_listeners: list[Any]
    ) -> Any:
        strategy = self._config.train_distribute
        if strategy is not None:
            return self._train_model_distributed(strategy, input_fn, hooks, saving_listeners)
        g = Graph()
        with g.as_default(), g.device(self._device_fn):
            set_random_seed(self._config.tf_random_seed)
            global_step = training_util.get_or_create_global_step(g)
            # As TF 1.15's _train_model_default, the hooks' read of the step is made before
            # the input_fn: its ops count towards the op seeds of everything after it.
            training_util._get_or_create_global_step_read(g)
            features, labels, input_hooks = parse_input_fn_result(
                self._call_input_fn(input_fn, ModeKeys.TRAIN)
            )
            spec = self._call_model_fn(features, labels, ModeKeys.TRAIN, self._config)
            return self._train_with_spec(spec, input_hooks + hooks, global_step, saving_listeners)

    def _train_model_distributed(
        self,
        strategy: Any,
        input_fn: Callable[..., Any],
        hooks: list[SessionRunHook],
        saving_listeners: list[Any],
    ) -> Any:
        """Training under RunConfig(train_distribute=strategy) (lib/estimator/
        distributed_training.py); the optimizer scales MEAN losses by 1/replicas meanwhile."""
        from tfcluster.lib.estimator import distributed_training

        if getattr(self._config, "_distribute_coordinator_mode", None):
            from tfcluster.lib.estimator.estimator_training import check_direct_call

            check_direct_call(self._config, "`estimator.train`")
        strategy.configure(self._session_config)
        g = Graph()
        with g.as_default(), strategy.scope(), _scaling_losses(strategy):
            set_random_seed(self._config.tf_random_seed)
            spec, input_hooks, global_step = distributed_training.build_distributed_train_spec(
                strategy,
                lambda ctx: self._call_input_fn(input_fn, ModeKeys.TRAIN, ctx),
                self._call_model_fn,
                self._config,
            )
            return self._train_with_spec(spec, input_hooks + hooks, global_step, saving_listeners)

    def _train_with_spec(
        self,
        spec: EstimatorSpec,
        worker_hooks: list[SessionRunHook],
        global_step: Any,
        saving_listeners: list[Any],
    ) -> Any:
        from tfcluster.ops.summary_ops import scalar as summary_scalar

        if self._warm_start_settings is not None:
            _warm_start(self._warm_start_settings)
        if not any(s.op.name == "loss" for s in get_collection(GraphKeys.SUMMARIES)):
            summary_scalar("loss", spec.loss)
        add_to_collection(GraphKeys.LOSSES, spec.loss)
        worker_hooks = list(worker_hooks)
        worker_hooks.append(basic_session_run_hooks.NanTensorHook(spec.loss))
        if self._config.log_step_count_steps is not None:
            worker_hooks.append(
                basic_session_run_hooks.LoggingTensorHook(
                    {"loss": spec.loss, "step": global_step},
                    every_n_iter=self._config.log_step_count_steps,
                )
            )
        worker_hooks.extend(spec.training_hooks)
        if not (spec.scaffold.saver or get_collection(GraphKeys.SAVERS)):
            add_to_collection(
                GraphKeys.SAVERS,
                Saver(
                    sharded=True,
                    max_to_keep=self._config.keep_checkpoint_max,
                    keep_checkpoint_every_n_hours=self._config.keep_checkpoint_every_n_hours,
                    defer_build=True,
                    save_relative_paths=True,
                ),
            )
        if self._config.cluster_spec and type(self._config.train_distribute).__name__ in (
            _COLLECTIVE_STRATEGIES
        ):
            return self._train_with_spec_collective(spec, worker_hooks, saving_listeners)
        chief_hooks: list[SessionRunHook] = []
        all_hooks = worker_hooks + list(spec.training_chief_hooks)
        saver_hooks: list[Any] = [
            h for h in all_hooks if isinstance(h, basic_session_run_hooks.CheckpointSaverHook)
        ]
        if (
            self._config.save_checkpoints_secs or self._config.save_checkpoints_steps
        ) and not saver_hooks:
            chief_hooks = [
                basic_session_run_hooks.CheckpointSaverHook(
                    self._model_dir,
                    save_secs=self._config.save_checkpoints_secs,
                    save_steps=self._config.save_checkpoints_steps,
                    scaffold=spec.scaffold,
                )
            ]
            saver_hooks = [chief_hooks[0]]
        if saving_listeners:
            if not saver_hooks:
                raise ValueError(
                    "There should be a CheckpointSaverHook to use saving_listeners. Please "
                    "set one of the RunConfig.save_checkpoints_steps or "
                    "RunConfig.save_checkpoints_secs."
                )
            saver_hooks[0]._listeners.extend(saving_listeners)
        return self._train_steps(
            spec,
            hooks=worker_hooks,
            chief_only_hooks=tuple(chief_hooks) + tuple(spec.training_chief_hooks),
            save_checkpoint_secs=0,
        )

    def _train_with_spec_collective(
        self, spec: EstimatorSpec, worker_hooks: list[SessionRunHook], saving_listeners: list[Any]
    ) -> Any:
        """A worker of a collective strategy's cluster (TF 1.15's
        _train_with_estimator_spec_distributed): MonitoredTrainingSession's worker context
        decides who checkpoints and where."""
        if saving_listeners:
            raise ValueError(
                "Saving listenor is not supported by the current Distribution Strategies."
            )
        return self._train_steps(
            spec,
            hooks=worker_hooks,
            chief_only_hooks=tuple(spec.training_chief_hooks),
            save_checkpoint_secs=self._config.save_checkpoints_secs,
            save_checkpoint_steps=self._config.save_checkpoints_steps,
        )

    def _train_steps(self, spec: EstimatorSpec, **session_args: Any) -> Any:
        """Runs spec's train op in a MonitoredTrainingSession on this config (session_args:
        its hooks and checkpoint saving) until it stops; the last loss."""
        loss = None
        any_step_done = False
        with monitored_session.MonitoredTrainingSession(
            master=self._config.master,
            is_chief=self._config.is_chief,
            checkpoint_dir=self._model_dir,
            scaffold=spec.scaffold,
            save_summaries_steps=self._config.save_summary_steps,
            config=self._session_config,
            max_wait_secs=self._config.session_creation_timeout_secs,
            log_step_count_steps=self._config.log_step_count_steps,
            **session_args,
        ) as sess:
            while not sess.should_stop():
                _, loss = sess.run([spec.train_op, spec.loss])
                any_step_done = True
        if not any_step_done:
            logging.warning(
                "Training with estimator made no steps. Perhaps input is empty or misspecified."
            )
        return loss

    # -- evaluate ------------------------------------------------------------------------
    def evaluate(
        self,
        input_fn: Callable[..., Any],
        steps: int | None = None,
        hooks: Sequence[SessionRunHook] | None = None,
        checkpoint_path: str | None = None,
        name: str | None = None,
    ) -> dict[str, Any]:
        """The metrics over `steps` batches (or all of input_fn) at a checkpoint."""
        if steps is not None and steps <= 0:
            raise ValueError(f"Must specify steps > 0, given: {steps}")
        if not checkpoint_path:
            checkpoint_path = self.latest_checkpoint()
            if not checkpoint_path:
                logging.info(
                    "Could not find trained model in model_dir: %s, running initialization "
                    "to evaluate.",
                    self._model_dir,
                )
        strategy = self._config.eval_distribute
        if strategy and getattr(self._config, "_distribute_coordinator_mode", None):
            from tfcluster.lib.estimator.estimator_training import check_direct_call

            check_direct_call(self._config, "`Estimator.evaluate`")
        with Graph().as_default(), strategy.scope() if strategy else contextlib.nullcontext():
            scaffold, update_op, eval_dict, all_hooks = self._evaluate_build_graph(
                input_fn, hooks, steps
            )
            return self._evaluate_run(
                checkpoint_path, scaffold, update_op, eval_dict, all_hooks, self.eval_dir(name)
            )

    def _evaluate_build_graph(
        self,
        input_fn: Callable[..., Any],
        hooks: Sequence[SessionRunHook] | None,
        steps: int | None,
    ) -> tuple[Any, Any, dict[str, Any], list[SessionRunHook]]:
        """In the default graph: the EVAL model, its metrics and the op updating them all;
        (scaffold, update_op, {name: metric value tensor}, hooks the run needs)."""
        strategy = self._config.eval_distribute
        set_random_seed(self._config.tf_random_seed)
        global_step = training_util.get_or_create_global_step()
        if strategy is None:
            features, labels, input_hooks = parse_input_fn_result(
                self._call_input_fn(input_fn, ModeKeys.EVAL)
            )
            spec = self._call_model_fn(features, labels, ModeKeys.EVAL, self._config)
        else:
            from tfcluster.lib.estimator import distributed_training

            spec, input_hooks = distributed_training.build_distributed_eval_spec(
                strategy,
                lambda ctx: self._call_input_fn(input_fn, ModeKeys.EVAL, ctx),
                self._call_model_fn,
                self._config,
            )
        if LOSS_METRIC_KEY in spec.eval_metric_ops:
            raise ValueError(
                'Metric with name "loss" is not allowed, because Estimator already defines '
                "a default metric with the same name."
            )
        metric_ops = dict(spec.eval_metric_ops)
        if strategy is None:
            metric_ops[LOSS_METRIC_KEY] = metrics_impl.mean(spec.loss)
        else:
            metric_ops[LOSS_METRIC_KEY] = strategy.extended.call_for_each_replica(
                metrics_impl.mean, args=(spec.loss,)
            )
        eval_step = _get_or_create_eval_step()
        updates = [
            strategy.group(op) if strategy is not None else op
            for _, op in (metric_ops[k] for k in sorted(metric_ops))
        ]
        with control_flow_ops.control_dependencies(updates):
            update_op = state_ops.assign_add(eval_step, 1)
        # TF sorts the metric names (its graph is the same every time), so evaluate's result
        # lists them in that order, then the global step.
        eval_dict: dict[str, Any] = {k: metric_ops[k][0] for k in sorted(metric_ops)}
        eval_dict[GraphKeys.GLOBAL_STEP] = global_step
        all_hooks = input_hooks + _check_hooks(hooks) + list(spec.evaluation_hooks)
        if steps is not None:  # TF 1.15 reads the input to its end without the hook
            evals_completed = update_op
            if strategy is not None:
                # A mirrored eval step's update gives one value per replica: the hook reads
                # the step after them, as TF's _get_latest_eval_step_value.
                updates_done = [u.op for u in nest.flatten(update_op)]
                with control_flow_ops.control_dependencies(updates_done):
                    evals_completed = array_ops.identity(eval_step.read_value())
            all_hooks.append(_StopAfterNEvalsHook(steps, evals_completed))
        return spec.scaffold, update_op, eval_dict, all_hooks

    def _evaluate_run(
        self,
        checkpoint_path: str | None,
        scaffold: Any,
        update_op: Any,
        eval_dict: dict[str, Any],
        all_hooks: list[SessionRunHook],
        output_dir: str,
    ) -> dict[str, Any]:
        """Runs update_op until the hooks stop, and writes the final metrics as a summary
        of the evaluated global step into output_dir."""
        final = basic_session_run_hooks.FinalOpsHook(eval_dict)
        # TF 1.15's evaluation._evaluate_once stamps local time with a 'Z'.
        logging.info(
            "Starting evaluation at " + time.strftime("%Y-%m-%dT%H:%M:%SZ", time.localtime())
        )
        creator = monitored_session.ChiefSessionCreator(
            scaffold=scaffold,
            checkpoint_filename_with_path=checkpoint_path,
            master=self._config.evaluation_master,
            config=self._session_config,
        )
        with monitored_session.MonitoredSession(
            session_creator=creator, hooks=[*all_hooks, final]
        ) as s:
            while not s.should_stop():
                s.run(update_op)
        logging.info(
            "Finished evaluation at " + time.strftime("%Y-%m-%d-%H:%M:%S", time.localtime())
        )
        results = dict(final.final_ops_values)
        step = int(results[GraphKeys.GLOBAL_STEP])
        _write_dict_to_summary(output_dir, results, step)
        if checkpoint_path:
            _write_checkpoint_path_to_summary(output_dir, checkpoint_path, step)
        return results

    # -- predict -------------------------------------------------------------------------
    def predict(
        self,
        input_fn: Callable[..., Any],
        predict_keys: Any = None,
        hooks: Sequence[SessionRunHook] | None = None,
        checkpoint_path: str | None = None,
        yield_single_examples: bool = True,
    ) -> Iterator[Any]:
        """The model's predictions, one example (or one batch) at a time."""
        hooks = _check_hooks(hooks)
        if not checkpoint_path:
            checkpoint_path = self.latest_checkpoint()
            if not checkpoint_path:
                logging.info(
                    "Could not find trained model in model_dir: %s, running initialization "
                    "to predict.",
                    self._model_dir,
                )
        g = Graph()
        with g.as_default():
            set_random_seed(self._config.tf_random_seed)
            training_util.get_or_create_global_step(g)
            features, _, input_hooks = parse_input_fn_result(
                self._call_input_fn(input_fn, ModeKeys.PREDICT)
            )
            spec = self._call_model_fn(features, None, ModeKeys.PREDICT, self._config)
            if self._warm_start_settings is not None and checkpoint_path is None:
                _warm_start(self._warm_start_settings)
            predictions = _extract_keys(spec.predictions, predict_keys)
            all_hooks = input_hooks + hooks + list(spec.prediction_hooks)
            creator = monitored_session.ChiefSessionCreator(
                checkpoint_filename_with_path=checkpoint_path,
                master=self._config.master,
                scaffold=spec.scaffold,
                config=self._session_config,
            )
            with monitored_session.MonitoredSession(session_creator=creator, hooks=all_hooks) as s:
                while not s.should_stop():
                    values = s.run(predictions)
                    if not yield_single_examples:
                        yield values
                    elif not isinstance(predictions, dict):
                        yield from values
                    else:
                        for i in range(_batch_length(values)):
                            yield {k: v[i] for k, v in values.items()}

    # -- export --------------------------------------------------------------------------
    def export_saved_model(
        self,
        export_dir_base: str,
        serving_input_receiver_fn: Callable[..., Any],
        assets_extra: dict[str, str] | None = None,
        as_text: bool = False,
        checkpoint_path: str | None = None,
        experimental_mode: str = ModeKeys.PREDICT,
        *,  # the private option of TF's _export_saved_model
        _strip_default_attrs: bool = True,
    ) -> bytes:
        """A SavedModel of the graph of `experimental_mode` (PREDICT: the serving graph) with
        the latest checkpoint's variables, under export_dir_base/<timestamp>; returns that
        directory (bytes, as TF does)."""
        if serving_input_receiver_fn is None:
            raise ValueError("An input_receiver_fn must be defined.")
        return saved_model_export.export_all_saved_models(
            self,
            export_dir_base,
            {experimental_mode: serving_input_receiver_fn},
            assets_extra=assets_extra,
            as_text=as_text,
            checkpoint_path=checkpoint_path,
            strip_default_attrs=_strip_default_attrs,
        )

    def experimental_export_all_saved_models(
        self,
        export_dir_base: str,
        input_receiver_fn_map: dict[str, Callable[..., Any]],
        assets_extra: dict[str, str] | None = None,
        as_text: bool = False,
        checkpoint_path: str | None = None,
    ) -> bytes:
        """One SavedModel with a MetaGraph per mode of `input_receiver_fn_map` (TRAIN, EVAL
        and PREDICT receivers, tagged train, eval and serve)."""
        return saved_model_export.export_all_saved_models(
            self,
            export_dir_base,
            input_receiver_fn_map,
            assets_extra=assets_extra,
            as_text=as_text,
            checkpoint_path=checkpoint_path,
        )

    def export_savedmodel(
        self,
        export_dir_base: str,
        serving_input_receiver_fn: Callable[..., Any],
        assets_extra: dict[str, str] | None = None,
        as_text: bool = False,
        checkpoint_path: str | None = None,
        strip_default_attrs: bool = False,
    ) -> bytes:
        """TF 1.15's older name: default attrs stay in the graph unless asked otherwise."""
        return self.export_saved_model(
            export_dir_base,
            serving_input_receiver_fn,
            assets_extra=assets_extra,
            as_text=as_text,
            checkpoint_path=checkpoint_path,
            _strip_default_attrs=strip_default_attrs,
        )


def _extract_keys(predictions: Any, keys: Any) -> Any:
    if keys is None:
        return predictions
    if not isinstance(predictions, dict):
        raise ValueError("predict_keys argument is not valid in case of non-dict predictions.")
    keys = [keys] if isinstance(keys, str) else list(keys)
    missing = [k for k in keys if k not in predictions]
    if missing:
        raise ValueError(
            f"Expected to run at least one output from {list(predictions)}, provided {keys}."
        )
    return {k: predictions[k] for k in keys}


def _batch_length(values: dict[str, Any]) -> int:
    length = None
    for k, v in values.items():
        n = np.shape(v)[0] if np.ndim(v) else None
        if n is None:
            raise ValueError(f"Batch length of predictions should be same. {k} has no batch.")
        if length is not None and n != length:
            raise ValueError(
                f"Batch length of predictions should be same. {k} has different batch length "
                f"than others."
            )
        length = n
    return length or 0


def _global_step_in(model_dir: str) -> int:
    path = checkpoint_management.latest_checkpoint(model_dir)
    if not path:
        return 0
    try:
        return int(checkpoint_utils.load_variable(path, GraphKeys.GLOBAL_STEP))
    except Exception:
        return 0


def _write_dict_to_summary(output_dir: str, results: dict[str, Any], step: int) -> None:
    """One event per metric (scalars) at `step`, in output_dir (TF's eval summaries)."""
    from tfcluster.training.summary_io import FileWriterCache, Summary

    logging.info("Saving dict for global step %d: %s", step, _dict_to_str(results))
    summary = Summary()
    for key, value in results.items():
        if key == GraphKeys.GLOBAL_STEP:
            continue
        arr = np.asarray(value)
        if arr.dtype.kind in "fiub" and arr.size == 1:
            summary.value.add(tag=key, simple_value=float(arr))
        elif isinstance(value, bytes):
            s = Summary()
            s.ParseFromString(value)
            summary.value.extend(s.value)
    writer = FileWriterCache.get(output_dir)
    writer.add_summary(summary, step)
    writer.flush()


def _dict_to_str(results: dict[str, Any]) -> str:
    """`k = v, ...` by sorted key, leaving out bytes values (serialized summaries), as TF."""
    return ", ".join(f"{k} = {v!s}" for k, v in sorted(results.items()) if not isinstance(v, bytes))


def _write_checkpoint_path_to_summary(output_dir: str, checkpoint_path: str, step: int) -> None:
    """The evaluated checkpoint's path as a string tensor summary, as TF 1.15's evaluate."""
    from tfcluster.framework.tensor_util import make_tensor_proto
    from tfcluster.training.summary_io import FileWriterCache, Summary

    logging.info("Saving 'checkpoint_path' summary for global step %d: %s", step, checkpoint_path)
    summary = Summary()
    value = summary.value.add(tag="checkpoint_path")
    value.tensor.ParseFromString(
        make_tensor_proto(checkpoint_path, dtypes.string).SerializeToString()
    )
    writer = FileWriterCache.get(output_dir)
    writer.add_summary(summary, step)
    writer.flush()


def _replica_device_fn(config: RunConfig) -> Any:
    if not config.num_ps_replicas:
        return None
    from tfcluster.training.device_setter import replica_device_setter

    return replica_device_setter(
        ps_tasks=config.num_ps_replicas,
        worker_device=f"/job:{config.task_type}/task:{config.task_id}",
        merge_devices=True,
        cluster=config.cluster_spec,
    )


class WarmStartSettings:
    """Which checkpoint (and variables, renames, vocabularies) to start training from: the
    arguments of tf.train.warm_start."""

    def __init__(
        self,
        ckpt_to_initialize_from: str,
        vars_to_warm_start: Any = ".*",
        var_name_to_vocab_info: Any = None,
        var_name_to_prev_var_name: Any = None,
    ) -> None:
        if not ckpt_to_initialize_from:
            raise ValueError("`ckpt_to_initialize_from` MUST be set in WarmStartSettings")
        self.ckpt_to_initialize_from = ckpt_to_initialize_from
        self.vars_to_warm_start = vars_to_warm_start
        self.var_name_to_vocab_info = dict(var_name_to_vocab_info or {})
        self.var_name_to_prev_var_name = dict(var_name_to_prev_var_name or {})


def _warm_start_settings(warm_start_from: Any) -> WarmStartSettings | None:
    if warm_start_from is None:
        return None
    if isinstance(warm_start_from, (str, bytes)):
        path = warm_start_from.decode() if isinstance(warm_start_from, bytes) else warm_start_from
        return WarmStartSettings(path)
    if isinstance(warm_start_from, WarmStartSettings):
        return warm_start_from
    raise ValueError(
        "warm_start_from must be a string or a WarmStartSettings, instead got "
        f"{type(warm_start_from)}"
    )


def _warm_start(settings: WarmStartSettings) -> None:
    """Initialise the selected variables from the checkpoint (TF's Estimator calls
    warm_start with the settings' fields)."""
    warm_starting_util.warm_start(
        settings.ckpt_to_initialize_from,
        settings.vars_to_warm_start,
        settings.var_name_to_vocab_info,
        settings.var_name_to_prev_var_name,
    )


__all__ = ["Estimator", "WarmStartSettings", "parse_input_fn_result"]
