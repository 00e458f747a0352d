"""tf.estimator.experimental's early stopping (TF 1.15): hooks that read the evaluation
metrics an Estimator wrote (event files in eval_dir) and stop training when a metric crosses
a threshold or stops improving. The chief decides and sets the boolean variable
signal_early_stopping/STOP; the other workers watch it and stop too."""

from __future__ import annotations

import collections
import glob
import logging
import operator
import os
from collections.abc import Callable, Iterator
from typing import Any

from tfcluster.framework import dtypes
from tfcluster.framework.graph import GraphKeys
from tfcluster.lib.estimator.estimator import Estimator
from tfcluster.lib.io.summary_iterator import summary_iterator
from tfcluster.ops import init_ops, state_ops, variable_scope
from tfcluster.training import basic_session_run_hooks, training_util
from tfcluster.training.session_run_hook import SessionRunArgs, SessionRunHook

_log = logging.getLogger("tensorflow")
_EVENT_FILES = "events.out.tfevents.*"


def read_eval_metrics(eval_dir: str) -> collections.OrderedDict[int, dict[str, float]]:
    """step -> {tag: simple value} of every event file in eval_dir, by step."""
    by_step: dict[int, dict[str, float]] = collections.defaultdict(dict)
    for event in _events(eval_dir):
        if not event.HasField("summary"):
            continue
        metrics = {v.tag: v.simple_value for v in event.summary.value if v.HasField("simple_value")}
        if metrics:
            by_step[event.step].update(metrics)
    return collections.OrderedDict(sorted(by_step.items()))


def _events(eval_dir: str) -> Iterator[Any]:
    if os.path.isdir(eval_dir):
        for path in glob.glob(os.path.join(eval_dir, _EVENT_FILES)):
            yield from summary_iterator(path)


def make_early_stopping_hook(
    estimator: Any,
    should_stop_fn: Callable[[], bool],
    run_every_secs: float | None = 60,
    run_every_steps: int | None = None,
) -> SessionRunHook:
    if not isinstance(estimator, Estimator):
        raise TypeError(
            f"`estimator` must have type `tf.estimator.Estimator`. Got: {type(estimator)}"
        )
    if run_every_secs is not None and run_every_steps is not None:
        raise ValueError("Only one of `run_every_secs` and `run_every_steps` must be set.")
    if estimator.config.is_chief:
        return _StopOnPredicateHook(should_stop_fn, run_every_secs, run_every_steps)
    return _CheckForStoppingHook()


def stop_if_higher_hook(
    estimator: Any,
    metric_name: str,
    threshold: float,
    eval_dir: str | None = None,
    min_steps: int = 0,
    run_every_secs: float | None = 60,
    run_every_steps: int | None = None,
) -> SessionRunHook:
    return _threshold_hook(
        estimator,
        metric_name,
        threshold,
        True,
        eval_dir,
        min_steps,
        run_every_secs,
        run_every_steps,
    )


def stop_if_lower_hook(
    estimator: Any,
    metric_name: str,
    threshold: float,
    eval_dir: str | None = None,
    min_steps: int = 0,
    run_every_secs: float | None = 60,
    run_every_steps: int | None = None,
) -> SessionRunHook:
    return _threshold_hook(
        estimator,
        metric_name,
        threshold,
        False,
        eval_dir,
        min_steps,
        run_every_secs,
        run_every_steps,
    )


def stop_if_no_increase_hook(
    estimator: Any,
    metric_name: str,
    max_steps_without_increase: int,
    eval_dir: str | None = None,
    min_steps: int = 0,
    run_every_secs: float | None = 60,
    run_every_steps: int | None = None,
) -> SessionRunHook:
    return _no_improvement_hook(
        estimator,
        metric_name,
        max_steps_without_increase,
        True,
        eval_dir,
        min_steps,
        run_every_secs,
        run_every_steps,
    )


def stop_if_no_decrease_hook(
    estimator: Any,
    metric_name: str,
    max_steps_without_decrease: int,
    eval_dir: str | None = None,
    min_steps: int = 0,
    run_every_secs: float | None = 60,
    run_every_steps: int | None = None,
) -> SessionRunHook:
    return _no_improvement_hook(
        estimator,
        metric_name,
        max_steps_without_decrease,
        False,
        eval_dir,
        min_steps,
        run_every_secs,
        run_every_steps,
    )


def _threshold_hook(
    estimator: Any,
    metric_name: str,
    threshold: float,
    higher_is_better: bool,
    eval_dir: str | None,
    min_steps: int,
    run_every_secs: float | None,
    run_every_steps: int | None,
) -> SessionRunHook:
    directory = eval_dir if eval_dir is not None else estimator.eval_dir()
    better = operator.gt if higher_is_better else operator.lt
    relation = "greater than" if higher_is_better else "less than"

    def crossed() -> bool:
        for step, metrics in read_eval_metrics(directory).items():
            if step < min_steps:
                continue
            value = metrics[metric_name]
            if better(value, threshold):
                _log.info(
                    'At step %s, metric "%s" has value %s which is %s the configured threshold '
                    "(%s) for early stopping.",
                    step,
                    metric_name,
                    value,
                    relation,
                    threshold,
                )
                return True
        return False

    return make_early_stopping_hook(estimator, crossed, run_every_secs, run_every_steps)


def _no_improvement_hook(
    estimator: Any,
    metric_name: str,
    max_steps_without_improvement: int,
    higher_is_better: bool,
    eval_dir: str | None,
    min_steps: int,
    run_every_secs: float | None,
    run_every_steps: int | None,
) -> SessionRunHook:
    directory = eval_dir if eval_dir is not None else estimator.eval_dir()
    better = operator.gt if higher_is_better else operator.lt
    change = "increase" if higher_is_better else "decrease"

    def stalled() -> bool:
        best: float | None = None
        best_step = 0
        for step, metrics in read_eval_metrics(directory).items():
            if step < min_steps:
                continue
            value = metrics[metric_name]
            if best is None or better(value, best):
                best, best_step = value, step
            if step - best_step >= max_steps_without_improvement:
                _log.info(
                    'No %s in metric "%s" for %s steps, which is greater than or equal to max '
                    "steps (%s) configured for early stopping.",
                    change,
                    metric_name,
                    step - best_step,
                    max_steps_without_improvement,
                )
                return True
        return False

    return make_early_stopping_hook(estimator, stalled, run_every_secs, run_every_steps)


def _stop_variable() -> Any:
    with variable_scope.variable_scope(
        "signal_early_stopping", values=[], reuse=variable_scope.AUTO_REUSE
    ):
        return variable_scope.get_variable(
            "STOP",
            shape=[],
            dtype=dtypes.bool_,
            initializer=init_ops.constant_initializer(False),
            collections=[GraphKeys.GLOBAL_VARIABLES],
            trainable=False,
        )


class _StopOnPredicateHook(SessionRunHook):
    """On the chief: asks should_stop_fn every so often; True sets STOP and stops."""

    def __init__(
        self,
        should_stop_fn: Callable[[], bool],
        run_every_secs: float | None = 60,
        run_every_steps: int | None = None,
    ) -> None:
        if not callable(should_stop_fn):
            raise TypeError("`should_stop_fn` must be callable.")
        self._should_stop_fn = should_stop_fn
        self._timer = basic_session_run_hooks.SecondOrStepTimer(
            every_secs=run_every_secs, every_steps=run_every_steps
        )
        self._global_step: Any = None
        self._stop_op: Any = None

    def begin(self) -> None:
        self._global_step = training_util.get_global_step()
        self._stop_op = state_ops.assign(_stop_variable(), True)

    def before_run(self, run_context: Any) -> SessionRunArgs:
        return SessionRunArgs(self._global_step)

    def after_run(self, run_context: Any, run_values: Any) -> None:
        step = run_values.results
        if not self._timer.should_trigger_for_step(step):
            return
        self._timer.update_last_triggered_step(step)
        if self._should_stop_fn():
            _log.info("Requesting early stopping at global step %d", step)
            run_context.session.run(self._stop_op)
            run_context.request_stop()


class _CheckForStoppingHook(SessionRunHook):
    """On the other workers: stops once the chief has set STOP."""

    def __init__(self) -> None:
        self._stop_var: Any = None

    def begin(self) -> None:
        self._stop_var = _stop_variable()

    def before_run(self, run_context: Any) -> SessionRunArgs:
        return SessionRunArgs(self._stop_var)

    def after_run(self, run_context: Any, run_values: Any) -> None:
        if run_values.results:
            _log.info("Early stopping requested, suspending run.")
            run_context.request_stop()
