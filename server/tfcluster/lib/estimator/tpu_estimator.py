"""tf.estimator.tpu.TPUEstimator and TPUEstimatorSpec on the CPU path (use_tpu=False).

TPUEstimator is an Estimator whose model_fn and input_fn receive params['batch_size'] (the
batch size of the mode) and params['use_tpu']; a TPUEstimatorSpec becomes an EstimatorSpec
(eval_metrics -> eval_metric_ops, host_call -> a hook, scaffold_fn -> the Scaffold). Running
on a TPU needs TPU ops tfcluster does not have: that path raises UnimplementedError.
"""

from __future__ import annotations

import collections
import copy
import enum
import inspect
import math
from collections.abc import Callable
from typing import Any

from tfcluster.framework import errors
from tfcluster.lib.estimator import model_fn as model_fn_lib
from tfcluster.lib.estimator.estimator import Estimator, _fn_args
from tfcluster.lib.estimator.tpu_config import RunConfig, parse_iterations_per_loop
from tfcluster.lib.platform import tf_logging as logging
from tfcluster.training import basic_session_run_hooks
from tfcluster.training.session_run_hook import SessionRunArgs, SessionRunHook
from tfcluster.training.summary_io import Summary

_RESERVED_PARAMS_KEYS = ["batch_size", "context"]


class ExportSavedModelApiVersion(enum.Enum):
    V1 = 1
    V2 = 2


def _validate_host_calls(host_calls: dict[str, Any]) -> None:
    for name, host_call in host_calls.items():
        if not isinstance(host_call, (tuple, list)):
            raise ValueError(f"{name} should be tuple or list")
        if len(host_call) != 2:
            raise ValueError(f"{name} should have two elements.")
        if not callable(host_call[0]):
            raise TypeError(f"{name}[0] should be callable.")
        if not isinstance(host_call[1], (tuple, list, dict)):
            raise ValueError(f"{name}[1] should be tuple or list, or dict.")
        if isinstance(host_call[1], (tuple, list)):
            spec = inspect.getfullargspec(host_call[0])
            n_args = len(_fn_args(host_call[0]))
            if spec.varargs is None and len(host_call[1]) != n_args:
                raise RuntimeError(
                    f"In TPUEstimatorSpec.{name}, length of tensors {len(host_call[1])} does not "
                    f"match method args of the function, which takes {n_args}."
                )


def _call_host_fn(host_call: Any) -> Any:
    fn, tensors = host_call
    return fn(*tensors) if isinstance(tensors, (tuple, list)) else fn(**tensors)


class _HostCallHook(SessionRunHook):
    """Runs the host_call's ops every step, as TF does when use_tpu=False."""

    def __init__(self, tensors: Any) -> None:
        self._tensors = tensors

    def before_run(self, run_context: Any) -> SessionRunArgs:
        return SessionRunArgs(self._tensors)


_SpecBase = collections.namedtuple(  # type: ignore[name-match]
    "TPUEstimatorSpec",
    [
        "mode",
        "predictions",
        "loss",
        "train_op",
        "eval_metrics",
        "export_outputs",
        "scaffold_fn",
        "host_call",
        "training_hooks",
        "evaluation_hooks",
        "prediction_hooks",
    ],
)


class TPUEstimatorSpec(_SpecBase):
    """What a TPUEstimator model_fn returns; eval_metrics and host_call are (fn, tensors)."""

    def __new__(
        cls,
        mode: str,
        predictions: Any = None,
        loss: Any = None,
        train_op: Any = None,
        eval_metrics: Any = None,
        export_outputs: Any = None,
        scaffold_fn: Callable[[], Any] | None = None,
        host_call: Any = None,
        training_hooks: Any = None,
        evaluation_hooks: Any = None,
        prediction_hooks: Any = None,
    ) -> TPUEstimatorSpec:
        host_calls = {}
        if eval_metrics is not None:
            host_calls["eval_metrics"] = eval_metrics
        if host_call is not None:
            host_calls["host_call"] = host_call
        _validate_host_calls(host_calls)
        training_hooks = tuple(training_hooks or [])
        evaluation_hooks = tuple(evaluation_hooks or [])
        prediction_hooks = tuple(prediction_hooks or [])
        for hook in training_hooks + evaluation_hooks + prediction_hooks:
            if not isinstance(hook, SessionRunHook):
                raise TypeError(f"All hooks must be SessionRunHook instances, given: {hook}")
        return super().__new__(
            cls,
            mode=mode,
            predictions=predictions,
            loss=loss,
            train_op=train_op,
            eval_metrics=eval_metrics,
            export_outputs=export_outputs,
            scaffold_fn=scaffold_fn,
            host_call=host_call,
            training_hooks=training_hooks,
            evaluation_hooks=evaluation_hooks,
            prediction_hooks=prediction_hooks,
        )

    def as_estimator_spec(self) -> model_fn_lib.EstimatorSpec:
        """The EstimatorSpec the CPU path trains, evaluates and predicts with."""
        eval_metric_ops = _call_host_fn(self.eval_metrics) if self.eval_metrics else None
        hooks: tuple[SessionRunHook, ...] = ()
        if self.host_call is not None:
            hooks = (_HostCallHook(_call_host_fn(self.host_call)),)
        return model_fn_lib.EstimatorSpec(
            mode=self.mode,
            predictions=self.predictions,
            loss=self.loss,
            train_op=self.train_op,
            eval_metric_ops=eval_metric_ops,
            export_outputs=self.export_outputs,
            scaffold=self.scaffold_fn() if self.scaffold_fn else None,
            training_hooks=self.training_hooks + hooks,
            evaluation_hooks=self.evaluation_hooks + hooks,
            prediction_hooks=self.prediction_hooks + hooks,
        )


class ExamplesPerSecondHook(basic_session_run_hooks.StepCounterHook):
    """Logs and records global_step/sec and examples/sec (batch size times steps/sec)."""

    def __init__(self, batch_size: int | None, output_dir: str | None, **kwargs: Any) -> None:
        self._batch_size = batch_size
        super().__init__(output_dir=output_dir, **kwargs)

    def _log_and_record(self, elapsed_steps: int, elapsed_time: float, global_step: int) -> None:
        steps_per_sec = elapsed_steps / elapsed_time
        examples_per_sec = (self._batch_size or 0) * steps_per_sec
        if self._summary_writer is not None:
            summary = Summary(
                value=[
                    Summary.Value(tag="global_step/sec", simple_value=steps_per_sec),
                    Summary.Value(tag="examples/sec", simple_value=examples_per_sec),
                ]
            )
            self._summary_writer.add_summary(summary, global_step)
        logging.info("global_step/sec: %g", steps_per_sec)
        logging.info("examples/sec: %g", examples_per_sec)


class TPUEstimator(Estimator):
    """An Estimator that runs a TPU model_fn; without a TPU (use_tpu=False) on the CPU."""

    def __init__(
        self,
        model_fn: Callable[..., Any] | None = None,
        model_dir: str | None = None,
        config: RunConfig | None = None,
        params: dict[str, Any] | None = None,
        use_tpu: bool = True,
        train_batch_size: int | None = None,
        eval_batch_size: int | None = None,
        predict_batch_size: int | None = None,
        batch_axis: Any = None,
        eval_on_tpu: bool = True,
        export_to_tpu: bool = True,
        export_to_cpu: bool = True,
        warm_start_from: Any = None,
        embedding_config_spec: Any = None,
        export_saved_model_api_version: ExportSavedModelApiVersion = ExportSavedModelApiVersion.V1,
    ) -> None:
        if config is None or not isinstance(config, RunConfig):
            raise ValueError("`config` must be provided with type `tpu_config.RunConfig`")
        if params is not None and any(k in params for k in _RESERVED_PARAMS_KEYS):
            raise ValueError(
                f"{_RESERVED_PARAMS_KEYS} are reserved keys but existed in params {params}."
            )
        if use_tpu:
            raise errors.UnimplementedError(
                None, None, "TPUEstimator(use_tpu=True): tfcluster has no TPU; use use_tpu=False"
            )
        if embedding_config_spec is not None:
            raise errors.UnimplementedError(
                None, None, "TPUEstimator(embedding_config_spec=...): TPU embedding needs a TPU"
            )
        if model_fn is None:
            raise ValueError("model_fn must be provided to Estimator.")
        self._user_model_fn = model_fn
        self._batch_sizes = {
            model_fn_lib.ModeKeys.TRAIN: train_batch_size,
            model_fn_lib.ModeKeys.EVAL: eval_batch_size,
            model_fn_lib.ModeKeys.PREDICT: predict_batch_size,
        }
        # TF replaces the Estimator's step logging by its own examples/sec hook.
        self._log_every_n_steps = config.log_step_count_steps
        config = config.replace(log_step_count_steps=None)
        super().__init__(
            model_fn=self._cpu_model_fn,
            model_dir=model_dir,
            config=config,
            params=params or {},
            warm_start_from=warm_start_from,
        )
        loop = parse_iterations_per_loop(config.tpu_config.iterations_per_loop)
        self._log_every_n_secs: int | None = None
        if loop.unit == "seconds":
            self._log_every_n_secs, self._log_every_n_steps = loop.value, None
        elif self._log_every_n_steps is not None:
            self._log_every_n_steps = math.ceil(self._log_every_n_steps / loop.value)
        if not isinstance(export_saved_model_api_version, ExportSavedModelApiVersion):
            raise ValueError(
                "export_saved_model_api_version should be of type ExportSavedModelApiVersion; "
                f"got {export_saved_model_api_version}."
            )
        self._input_fn_invoked = False

    def _call_input_fn(
        self, input_fn: Callable[..., Any], mode: str, input_context: Any = None
    ) -> Any:
        args = _fn_args(input_fn)
        if "params" not in args:
            raise ValueError(
                f"input_fn ({input_fn}) does not include params argument, required by "
                'TPUEstimator to pass batch size as params["batch_size"]'
            )
        params = copy.deepcopy(self._params)
        if self._batch_sizes.get(mode) is not None:
            params["batch_size"] = self._batch_sizes[mode]
        kwargs: dict[str, Any] = {"params": params}
        if "config" in args:
            kwargs["config"] = copy.deepcopy(self._config)
        if "mode" in args:
            kwargs["mode"] = mode
        self._input_fn_invoked = True
        from tfcluster.framework.graph import get_default_graph

        with get_default_graph().device("/device:CPU:0"):
            return input_fn(**kwargs)

    def _cpu_model_fn(
        self, features: Any, labels: Any, mode: str, config: Any, params: Any
    ) -> model_fn_lib.EstimatorSpec:
        # export_saved_model calls model_fn without an input_fn: no batch size then.
        is_export = not self._input_fn_invoked
        self._input_fn_invoked = False
        logging.info("Running %s on CPU", mode)
        args = _fn_args(self._user_model_fn)
        if "params" not in args:
            raise ValueError(
                f"model_fn ({self._user_model_fn}) does not include params argument, required "
                "by TPUEstimator to pass batch size as params['batch_size']"
            )
        params = copy.deepcopy(params)
        kwargs: dict[str, Any] = {"params": params}
        if "labels" in args:
            kwargs["labels"] = labels
        elif labels is not None:
            raise ValueError("model_fn does not take labels, but input_fn returns labels.")
        if "mode" in args:
            kwargs["mode"] = mode
        if "config" in args:
            kwargs["config"] = copy.deepcopy(config)
        if not is_export and self._batch_sizes.get(mode) is not None:
            params["batch_size"] = self._batch_sizes[mode]
        params["use_tpu"] = False
        spec = self._user_model_fn(features=features, **kwargs)
        if isinstance(spec, TPUEstimatorSpec):
            spec = spec.as_estimator_spec()
        if self._log_every_n_steps is not None or self._log_every_n_secs is not None:
            hook = ExamplesPerSecondHook(
                self._batch_sizes.get(mode),
                output_dir=self.model_dir if config.save_summary_steps else None,
                every_n_steps=self._log_every_n_steps,
                every_n_secs=self._log_every_n_secs,
            )
            spec = spec._replace(training_hooks=(*spec.training_hooks, hook))
        return spec
