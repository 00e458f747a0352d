"""tf.estimator.experimental's hooks (TF 1.15): InMemoryEvaluatorHook evaluates the model
being trained every N steps without a checkpoint (the training session's variable values are
fed into a separate EVAL graph), and make_stop_at_checkpoint_step_hook stops the chief at
last_step and the other workers once a checkpoint of last_step exists."""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Sequence
from typing import Any

from tfcluster.framework.graph import Graph, GraphKeys, get_collection
from tfcluster.lib.estimator import estimator as estimator_lib
from tfcluster.ops import array_ops, control_flow_ops, state_ops
from tfcluster.training import basic_session_run_hooks, training_util
from tfcluster.training.monitored_session import Scaffold
from tfcluster.training.session_run_hook import SessionRunArgs, SessionRunHook


class InMemoryEvaluatorHook(SessionRunHook):
    def __init__(
        self,
        estimator: Any,
        input_fn: Callable[..., Any],
        steps: int | None = None,
        hooks: Sequence[SessionRunHook] | None = None,
        name: str | None = None,
        every_n_iter: int = 100,
    ) -> None:
        if every_n_iter is None or every_n_iter <= 0:
            raise ValueError(f"invalid every_n_iter={every_n_iter}.")
        config = estimator.config
        if config.num_ps_replicas > 0 or config.num_worker_replicas > 1:
            raise ValueError("InMemoryEvaluator supports only single machine (aka Local) setting.")
        self._estimator = estimator
        self._input_fn = input_fn
        self._steps = steps
        self._hooks = list(estimator_lib._check_hooks(hooks))
        self._eval_dir = os.path.join(estimator.model_dir, "eval" if not name else "eval_" + name)
        self._timer = basic_session_run_hooks.SecondOrStepTimer(every_steps=every_n_iter)
        self._graph: Graph | None = None

    def begin(self) -> None:
        self._timer.reset()
        self._iter_count = 0
        self._graph = Graph()
        with self._graph.as_default():
            built = self._estimator._evaluate_build_graph(self._input_fn, self._hooks, self._steps)
            self._scaffold, self._update_op, self._eval_dict, self._all_hooks = built
            if self._scaffold.saver is not None:
                raise ValueError("InMemoryEvaluator does not support custom saver")
            if self._scaffold.init_fn is not None:
                raise ValueError("InMemoryEvaluator does not support custom init_fn")
            eval_vars = get_collection(GraphKeys.GLOBAL_VARIABLES)
            self._eval_vars = {v.name: v for v in eval_vars}
            self._placeholders = {
                v.name: array_ops.placeholder(v.dtype.base_dtype) for v in eval_vars
            }

    def after_create_session(self, session: Any, coord: Any) -> None:
        if get_collection(GraphKeys.SAVEABLE_OBJECTS):
            raise ValueError(
                "InMemoryEvaluator does not support saveables other than global variables."
            )
        train_vars = {v.name: v for v in get_collection(GraphKeys.GLOBAL_VARIABLES)}
        shared = sorted(set(self._placeholders) & set(train_vars))
        self._train_vars = {n: train_vars[n] for n in shared}
        assert self._graph is not None
        with self._graph.as_default():
            self._feed_op = control_flow_ops.group(
                [state_ops.assign(self._eval_vars[n], self._placeholders[n]) for n in shared]
            )
        self._evaluate(session)

    def _evaluate(self, train_session: Any) -> None:
        values = train_session.run(self._train_vars)
        feed = {self._placeholders[n]: v for n, v in values.items()}

        def feed_variables(scaffold: Any, session: Any) -> None:
            session.run(self._feed_op, feed_dict=feed)

        scaffold = Scaffold(init_fn=feed_variables, copy_from_scaffold=self._scaffold)
        assert self._graph is not None
        with self._graph.as_default():
            self._estimator._evaluate_run(
                None,
                scaffold,
                self._update_op,
                self._eval_dict,
                self._all_hooks,
                self._eval_dir,
            )
        self._timer.update_last_triggered_step(self._iter_count)

    def after_run(self, run_context: Any, run_values: Any) -> None:
        self._iter_count += 1
        if self._timer.should_trigger_for_step(self._iter_count):
            self._evaluate(run_context.session)

    def end(self, session: Any) -> None:
        self._evaluate(session)


class _StopAtCheckpointStepHook(SessionRunHook):
    """A non-chief worker's stop: once its step reaches last_step, it waits until the chief
    has saved a checkpoint of last_step."""

    def __init__(self, model_dir: str, last_step: int, wait_after_file_check_secs: float = 30):
        if last_step is None:
            raise ValueError("last_step must be specified.")
        if model_dir is None:
            raise ValueError("model_dir must be specified.")
        self._model_dir = model_dir
        self._last_step = last_step
        self._wait_secs = wait_after_file_check_secs

    def begin(self) -> None:
        self._global_step = training_util._get_or_create_global_step_read()
        if self._global_step is None:
            raise RuntimeError("Global step should be created to use StopAtCheckpointStepHook.")

    def before_run(self, run_context: Any) -> SessionRunArgs:
        return SessionRunArgs(self._global_step)

    def after_run(self, run_context: Any, run_values: Any) -> None:
        if run_values.results + 1 < self._last_step:
            return
        if estimator_lib._global_step_in(self._model_dir) >= self._last_step:
            run_context.request_stop()
        else:
            time.sleep(self._wait_secs)


def make_stop_at_checkpoint_step_hook(
    estimator: Any, last_step: int, wait_after_file_check_secs: float = 30
) -> SessionRunHook:
    if estimator.config.is_chief:
        return basic_session_run_hooks.StopAtStepHook(last_step=last_step)
    return _StopAtCheckpointStepHook(estimator.model_dir, last_step, wait_after_file_check_secs)
