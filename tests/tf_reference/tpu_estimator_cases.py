"""Programs for tf.estimator.tpu on the CPU path (TPUEstimator(use_tpu=False)), run by
record_tpu_estimator.py under TF 1.15 and by tests/unit/test_tpu_estimator_reference.py under
tfcluster. Each takes the tf module and a scratch directory and returns plain values."""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

import numpy as np


def _data() -> tuple[np.ndarray, np.ndarray]:
    x = np.arange(16, dtype=np.float32).reshape(8, 2) / 10
    return x, (x.sum(1, keepdims=True) * 2 + 1).astype(np.float32)


def linear_train_eval_predict(tf: Any, tmp: str) -> dict[str, Any]:
    """params per mode, eval metrics from eval_metrics, predictions, checkpoint and files."""
    seen: list[str] = []

    def input_fn(params: Any) -> Any:
        seen.append(f"input {sorted(params.items())}")
        x, y = _data()
        ds = tf.data.Dataset.from_tensor_slices((x, y)).repeat()
        return ds.batch(params["batch_size"], drop_remainder=True)

    def model_fn(features: Any, labels: Any, mode: str, params: Any) -> Any:
        seen.append(f"{mode} {sorted(params.items())}")
        init = tf.constant_initializer(0.1)
        pred = tf.layers.dense(features, 1, kernel_initializer=init)
        if mode == "infer":
            return tf.estimator.tpu.TPUEstimatorSpec(mode, predictions={"p": pred})
        loss = tf.losses.mean_squared_error(labels, pred)
        opt = tf.train.GradientDescentOptimizer(0.1)
        train_op = opt.minimize(loss, global_step=tf.train.get_global_step())

        def metric_fn(labels: Any, pred: Any) -> Any:
            return {"mae": tf.metrics.mean_absolute_error(labels, pred)}

        return tf.estimator.tpu.TPUEstimatorSpec(
            mode, loss=loss, train_op=train_op, eval_metrics=(metric_fn, [labels, pred])
        )

    model_dir = os.path.join(tmp, "m")
    cfg = tf.estimator.tpu.RunConfig(
        model_dir=model_dir, tpu_config=tf.estimator.tpu.TPUConfig(iterations_per_loop=2)
    )
    est = tf.estimator.tpu.TPUEstimator(
        model_fn=model_fn,
        config=cfg,
        use_tpu=False,
        train_batch_size=4,
        eval_batch_size=2,
        predict_batch_size=2,
        params={"a": 1},
    )
    est.train(input_fn, steps=3)
    metrics = est.evaluate(input_fn, steps=2)
    preds = est.predict(lambda params: input_fn(params).map(lambda a, b: a))
    p = [r["p"].tolist() for _, r in zip(range(3), preds)]
    files = sorted(f for f in os.listdir(model_dir) if not f.startswith("events.out"))
    return {
        "seen": seen,
        "eval": {k: float(v) for k, v in sorted(metrics.items())},
        "predictions": p,
        "variables": sorted(est.get_variable_names()),
        "kernel": est.get_variable_value("dense/kernel").tolist(),
        "files": files,
    }


def _error(fn: Callable[[], Any]) -> str:
    try:
        fn()
    except Exception as e:  # the class and message are what is compared
        return f"{type(e).__name__}: {e}"
    return "no error"


def config_and_argument_errors(tf: Any, tmp: str) -> dict[str, Any]:
    """TPUConfig's defaults and validation, and TPUEstimator's constructor errors."""
    tpu = tf.estimator.tpu

    def model_fn(features: Any, labels: Any, mode: str, params: Any) -> Any:
        return None

    run_config = tpu.RunConfig(model_dir=tmp)
    cases: dict[str, Callable[[], Any]] = {
        "iterations_bad": lambda: tpu.TPUConfig(iterations_per_loop="2x"),
        "num_shards_str": lambda: tpu.TPUConfig(num_shards="2"),
        "num_shards_zero": lambda: tpu.TPUConfig(num_shards=0),
        "cores_3": lambda: tpu.TPUConfig(num_cores_per_replica=3),
        "partition_dims_len": lambda: tpu.TPUConfig(input_partition_dims=[1, 2, 3]),
        "partition_dims_mode": lambda: tpu.TPUConfig(input_partition_dims=[[1, 2]]),
        "partition_dims_cores": lambda: tpu.TPUConfig(
            input_partition_dims=[[1, 2]], per_host_input_for_training=3
        ),
        "eval_input_config": lambda: tpu.TPUConfig(eval_training_input_configuration=3),
        "infeed_sleep": lambda: tpu.TPUConfig(initial_infeed_sleep_secs=-1),
        "master_and_cluster": lambda: tpu.RunConfig(master="a", cluster=object()),
        "plain_run_config": lambda: tpu.TPUEstimator(
            model_fn, config=tf.estimator.RunConfig(), use_tpu=False
        ),
        "no_config": lambda: tpu.TPUEstimator(model_fn, use_tpu=False),
        "batch_size_param": lambda: tpu.TPUEstimator(
            model_fn, config=run_config, params={"batch_size": 2}, use_tpu=False
        ),
        "context_param": lambda: tpu.TPUEstimator(
            model_fn, config=run_config, params={"context": 2}, use_tpu=False
        ),
        "spec_eval_metrics_not_tuple": lambda: tpu.TPUEstimatorSpec("eval", eval_metrics=1),
        "spec_eval_metrics_len": lambda: tpu.TPUEstimatorSpec("eval", eval_metrics=(1,)),
        "spec_eval_metrics_fn": lambda: tpu.TPUEstimatorSpec("eval", eval_metrics=(1, [])),
        "spec_eval_metrics_tensors": lambda: tpu.TPUEstimatorSpec(
            "eval", eval_metrics=(lambda a: a, 1)
        ),
        "spec_eval_metrics_arity": lambda: tpu.TPUEstimatorSpec(
            "eval", eval_metrics=(lambda a: a, [1, 2])
        ),
        "spec_hook": lambda: tpu.TPUEstimatorSpec("train", training_hooks=[1]),
    }
    c = tpu.TPUConfig(per_host_input_for_training=False, iterations_per_loop="1m")
    return {
        "errors": {k: _error(fn) for k, fn in sorted(cases.items())},
        "defaults": [str(v) for v in tpu.TPUConfig()],
        "fields": list(tpu.TPUConfig._fields),
        "legacy_false": [str(v) for v in c],
        "pipeline": [
            tpu.InputPipelineConfig.PER_SHARD_V1,
            tpu.InputPipelineConfig.PER_HOST_V1,
            tpu.InputPipelineConfig.PER_HOST_V2,
            tpu.InputPipelineConfig.BROADCAST,
            tpu.InputPipelineConfig.SLICED,
        ],
        "eval_master": [run_config.master, run_config.evaluation_master],
    }


CASES = {
    "linear_train_eval_predict": linear_train_eval_predict,
    "config_and_argument_errors": config_and_argument_errors,
}
