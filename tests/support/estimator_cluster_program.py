"""A TF1 Estimator program run as one task of a TF_CONFIG cluster (chief, worker, ps or
evaluator) by tests/integration/test_estimator_cluster.py: train_and_evaluate of a
DNNClassifier on random numpy data; the evaluator writes its last metrics to argv[2] and,
as the evaluation at max_steps, the final export (a FinalExporter)."""

from __future__ import annotations

import json
import sys

import numpy as np
import tfcluster as tf


def main(model_dir: str, metrics_out: str) -> None:
    rng = np.random.RandomState(0)
    x = {"a": rng.randn(200).astype(np.float32), "b": rng.randn(200, 2).astype(np.float32)}
    y = (x["a"] - x["b"][:, 1] > 0).astype(np.int64)
    columns = [tf.feature_column.numeric_column("a"), tf.feature_column.numeric_column("b", (2,))]
    config = tf.estimator.RunConfig(
        model_dir=model_dir,
        save_checkpoints_steps=10,
        experimental_max_worker_delay_secs=0,
        log_step_count_steps=10,
    )
    estimator = tf.estimator.DNNClassifier([4], columns, config=config)
    train = tf.estimator.TrainSpec(
        tf.estimator.inputs.numpy_input_fn(x, y, batch_size=20, num_epochs=None, shuffle=True),
        max_steps=40,
    )
    serving = tf.estimator.export.build_parsing_serving_input_receiver_fn(
        tf.feature_column.make_parse_example_spec(columns)
    )
    evaluate = tf.estimator.EvalSpec(
        tf.estimator.inputs.numpy_input_fn(x, y, batch_size=50, num_epochs=1, shuffle=False),
        steps=None,
        exporters=tf.estimator.FinalExporter("final", serving),
        start_delay_secs=0,
        throttle_secs=1,
    )
    result = tf.estimator.train_and_evaluate(estimator, train, evaluate)
    if config.task_type == "evaluator":
        metrics, _ = result
        with open(metrics_out, "w") as f:
            json.dump({k: float(v) for k, v in metrics.items()}, f)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
