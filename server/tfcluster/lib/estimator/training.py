"""train_and_evaluate with TrainSpec and EvalSpec (TF 1.15): locally, train with an
evaluation after each new checkpoint; in a TF_CONFIG cluster, each task does its part —
chief and workers start their server and train, ps tasks serve, the evaluator evaluates
each new checkpoint until training reaches max_steps."""

from __future__ import annotations

import collections
import os
import time
from typing import Any

from tfcluster.lib.estimator.estimator import Estimator
from tfcluster.lib.estimator.run_config import TaskType
from tfcluster.lib.platform import tf_logging as logging
from tfcluster.training.basic_session_run_hooks import CheckpointSaverListener

_MAX_DELAY_SECS = 60
_DELAY_SECS_PER_WORKER = 5


class TrainSpec(collections.namedtuple("TrainSpec", ["input_fn", "max_steps", "hooks"])):
    def __new__(cls, input_fn: Any, max_steps: int | None = None, hooks: Any = None) -> TrainSpec:
        if not callable(input_fn):
            raise TypeError(f"`input_fn` must be callable, given: {input_fn}")
        if max_steps is not None and max_steps <= 0:
            raise ValueError(f"Must specify max_steps > 0, given: {max_steps}")
        return super().__new__(cls, input_fn, max_steps, tuple(hooks or ()))


def _validate_exporters(exporters: Any) -> tuple[Any, ...]:
    """The exporters as a tuple: Exporter objects with unique, non-empty string names."""
    from tfcluster.lib.estimator.exporter import Exporter

    if not exporters:
        return ()
    if isinstance(exporters, Exporter):
        exporters = [exporters]
    try:
        exporters = list(exporters)
    except TypeError:
        exporters = [None]
    if not all(isinstance(e, Exporter) for e in exporters):
        raise TypeError(
            "`exporters` must be an Exporter, an iterable of Exporter, or `None`, "
            f"found {exporters}."
        )
    names = [e.name for e in exporters]
    seen: list[str] = []
    for name in names:
        if not name:
            raise ValueError(
                "An Exporter cannot have a name that is `None` or empty. All exporter "
                f"names: {names}"
            )
        if not isinstance(name, str):
            raise ValueError(f"An Exporter must have a string name. Given: {type(name)}")
        if name in seen:
            raise ValueError(
                "`exporters` must have unique names. Such a name cannot be `None`. All "
                f"exporter names: {names}"
            )
        seen.append(name)
    return tuple(exporters)


class EvalSpec(
    collections.namedtuple(
        "EvalSpec",
        ["input_fn", "steps", "name", "hooks", "exporters", "start_delay_secs", "throttle_secs"],
    )
):
    def __new__(
        cls,
        input_fn: Any,
        steps: int | None = 100,
        name: str | None = None,
        hooks: Any = None,
        exporters: Any = None,
        start_delay_secs: int = 120,
        throttle_secs: int = 600,
    ) -> EvalSpec:
        if not callable(input_fn):
            raise TypeError(f"`input_fn` must be callable, given: {input_fn}")
        if steps is not None and steps <= 0:
            raise ValueError(f"Must specify steps > 0, given: {steps}")
        if start_delay_secs < 0:
            raise ValueError(f"Must specify start_delay_secs >= 0, given: {start_delay_secs}")
        if throttle_secs < 0:
            raise ValueError(f"Must specify throttle_secs >= 0, given: {throttle_secs}")
        exporters = _validate_exporters(exporters)
        return super().__new__(
            cls,
            input_fn,
            steps,
            name,
            tuple(hooks or ()),
            tuple(exporters),
            start_delay_secs,
            throttle_secs,
        )


class _Evaluator:
    """Evaluates the latest checkpoint once per new checkpoint, then runs the exporters."""

    def __init__(
        self, estimator: Estimator, eval_spec: EvalSpec, max_training_steps: int | None = None
    ) -> None:
        self._estimator = estimator
        self._spec = eval_spec
        self._max_training_steps = max_training_steps
        self._previous: str | None = None
        self.metrics: dict[str, Any] | None = None
        self.export_results: list[Any] = []

    def evaluate_and_export(self) -> str:
        latest = self._estimator.latest_checkpoint()
        if not latest:
            logging.info(
                "Estimator is not trained yet. Will start an evaluation when a checkpoint is ready."
            )
            return "missing checkpoint"
        if latest == self._previous:
            logging.info(
                "No new checkpoint ready for evaluation. Skip the current evaluation pass as "
                "evaluation results are expected to be same for the same checkpoint."
            )
            return "no new checkpoint"
        self.export_results = []
        metrics = self._estimator.evaluate(
            input_fn=self._spec.input_fn,
            steps=self._spec.steps,
            name=self._spec.name,
            checkpoint_path=latest,
            hooks=self._spec.hooks,
        )
        self.metrics = metrics
        self._previous = latest
        # The evaluation of the checkpoint at max_steps is the final export (FinalExporter).
        final = bool(
            self._max_training_steps and metrics.get("global_step", 0) >= self._max_training_steps
        )
        for exporter in self._spec.exporters:
            path = os.path.join(self._estimator.model_dir, "export", exporter.name)
            self.export_results.append(
                exporter.export(
                    estimator=self._estimator,
                    export_path=path,
                    checkpoint_path=latest,
                    eval_result=metrics,
                    is_the_final_export=final,
                )
            )
        if final:
            logging.debug("Calling exporter with the `is_the_final_export=True`.")
        return "evaluated"


class _EvaluateAfterCheckpoint(CheckpointSaverListener):
    """Runs the evaluator after each save but the first (the checkpoint training starts
    from), at most every throttle_secs, and at the end if the last step was not evaluated."""

    def __init__(self, evaluator: _Evaluator, throttle_secs: float) -> None:
        self._evaluator = evaluator
        self._throttle = throttle_secs
        self._last_time: float | None = None
        self._last_step: int | None = None
        self._first = True

    def begin(self) -> None:
        self._first = True

    def after_save(self, session: Any, global_step_value: int) -> None:
        if self._first:
            self._first = False
            return
        now = time.time()
        if self._last_time is None or now - self._last_time >= self._throttle:
            self._evaluate(global_step_value)
        else:
            logging.info(
                f"Skip the current checkpoint eval due to throttle secs ({self._throttle} secs)."
            )

    def end(self, session: Any, global_step_value: int) -> None:
        if global_step_value != self._last_step:
            self._evaluate(global_step_value)

    def _evaluate(self, global_step_value: int) -> None:
        self._last_time = time.time()
        self._last_step = global_step_value
        if self._evaluator.evaluate_and_export() != "evaluated":
            raise RuntimeError(
                "There was no new checkpoint after the training. Eval status: no new checkpoint"
            )


def _start_server(config: Any) -> Any:
    """TF 1.15's _start_std_server: this task's server, with only the GPU options of the
    session config (None: a one-task trainer's cluster needs none)."""
    from tfcluster.protos import config_pb2
    from tfcluster.task_server.server import Server

    if not config.cluster_spec or not config.task_type or config.task_id is None:
        raise RuntimeError(
            "Could not start server; be sure to specify cluster_spec, task_type, and task in "
            "RunConfig or set the TF_CONFIG environment variable."
        )
    if not config.master:
        jobs = config.cluster_spec.jobs
        if (
            len(jobs) == 1
            and len(config.cluster_spec.job_tasks(jobs[0])) == 1
            and config.task_type in (TaskType.CHIEF, TaskType.WORKER, TaskType.MASTER)
        ):
            logging.info(
                "Skip starting Tensorflow server as there is only one node in the cluster."
            )
            return None
        raise RuntimeError(
            "Could not start server; be sure to specify master in RunConfig or set the "
            "TF_CONFIG environment variable."
        )
    logging.info("Start Tensorflow server.")
    session_config = config_pb2.ConfigProto(log_device_placement=False)
    if config.session_config is not None:
        session_config.gpu_options.CopyFrom(config.session_config.gpu_options)
    server = Server(
        config.cluster_spec,
        job_name=config.task_type,
        task_index=config.task_id,
        config=session_config,
        start=False,
        protocol=config.protocol,
    )
    server.start()
    return server


def train_and_evaluate(estimator: Estimator, train_spec: TrainSpec, eval_spec: EvalSpec) -> Any:
    """Trains and evaluates as this task's part of TF_CONFIG's cluster (or all locally)."""
    if not isinstance(estimator, Estimator):
        raise TypeError(
            f"`estimator` must have type `tf.estimator.Estimator`, given {type(estimator)}"
        )
    if not isinstance(train_spec, TrainSpec):
        raise TypeError(
            f"`train_spec` must have type `tf.estimator.TrainSpec`. Got: {type(train_spec)}"
        )
    if not isinstance(eval_spec, EvalSpec):
        raise TypeError(
            f"`eval_spec` must have type `tf.estimator.EvalSpec`. Got: {type(eval_spec)}"
        )
    config = estimator.config
    from tfcluster.lib.estimator import estimator_training

    if estimator_training.should_run_distribute_coordinator(config):
        logging.info("Running `train_and_evaluate` with Distribute Coordinator.")
        estimator_training.train_and_evaluate(estimator, train_spec, eval_spec, _run_evaluator)
        return None
    if config.task_type == TaskType.EVALUATOR:
        return _run_evaluator(estimator, train_spec, eval_spec)
    if not config.cluster_spec.jobs:
        logging.info("Running training and evaluation locally (non-distributed).")
        return _run_local(estimator, train_spec, eval_spec)
    if config.task_type == TaskType.PS:
        server = _start_server(config)
        server.join()
        return None
    if config.task_type not in (TaskType.CHIEF, TaskType.WORKER, TaskType.MASTER):
        raise ValueError(
            f"Task type {config.task_type} is not supported. Supported task types are "
            "chief, worker, ps, evaluator."
        )
    _start_server(config)
    if config.task_type == TaskType.WORKER:
        max_delay = _MAX_DELAY_SECS
        if config.experimental_max_worker_delay_secs is not None:
            max_delay = int(config.experimental_max_worker_delay_secs)
        delay = min(max_delay, (config.task_id + 1) * _DELAY_SECS_PER_WORKER)
        if delay > 0:
            logging.info("Waiting %d secs before starting training.", delay)
            time.sleep(delay)
    listeners = []
    if config.task_type == TaskType.MASTER:
        # A master evaluates (and exports) after its checkpoints, as a local run does.
        evaluator = _Evaluator(estimator, eval_spec, train_spec.max_steps)
        listeners.append(_EvaluateAfterCheckpoint(evaluator, eval_spec.throttle_secs))
    estimator.train(
        input_fn=train_spec.input_fn,
        max_steps=train_spec.max_steps,
        hooks=list(train_spec.hooks),
        saving_listeners=listeners,
    )
    return None


def _run_local(estimator: Estimator, train_spec: TrainSpec, eval_spec: EvalSpec) -> Any:
    logging.info(
        "Start train and evaluate loop. The evaluate will happen after every checkpoint. "
        "Checkpoint frequency is determined based on RunConfig arguments: "
        "save_checkpoints_steps %s or save_checkpoints_secs %s.",
        estimator.config.save_checkpoints_steps,
        estimator.config.save_checkpoints_secs,
    )
    evaluator = _Evaluator(estimator, eval_spec, train_spec.max_steps)
    listener = _EvaluateAfterCheckpoint(evaluator, eval_spec.throttle_secs)
    estimator.train(
        input_fn=train_spec.input_fn,
        max_steps=train_spec.max_steps,
        hooks=list(train_spec.hooks),
        saving_listeners=[listener],
    )
    return evaluator.metrics, evaluator.export_results


def _run_evaluator(estimator: Estimator, train_spec: TrainSpec, eval_spec: EvalSpec) -> Any:
    if eval_spec.start_delay_secs:
        logging.info("Waiting %f secs before starting eval.", eval_spec.start_delay_secs)
        time.sleep(eval_spec.start_delay_secs)
    evaluator = _Evaluator(estimator, eval_spec, train_spec.max_steps)
    while True:
        if evaluator.metrics is not None:
            step = evaluator.metrics.get("global_step")
            if step and train_spec.max_steps and step >= train_spec.max_steps:
                logging.info(
                    "Exiting evaluation, global_step=%s >= train max_steps=%s",
                    step,
                    train_spec.max_steps,
                )
                return evaluator.metrics, evaluator.export_results
        start = time.time()
        status = evaluator.evaluate_and_export()
        wait = eval_spec.throttle_secs - (time.time() - start)
        if status != "evaluated":
            wait = max(wait, 0.5)  # no new checkpoint: poll, don't spin
        if wait > 0:
            time.sleep(wait)
