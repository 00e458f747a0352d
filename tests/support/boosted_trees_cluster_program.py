"""A BoostedTreesClassifier program run as one task of a TF_CONFIG cluster (chief, worker
and ps) by tests/integration/test_boosted_trees_cluster.py: train_and_evaluate where each
worker's batch statistics meet in accumulators on the ps and the chief grows the trees from
both workers' batches (n_batches_per_layer=2)."""

from __future__ import annotations

import sys

import numpy as np
import tfcluster as tf


def data() -> tuple[dict[str, np.ndarray], np.ndarray]:
    rng = np.random.RandomState(3)
    x = rng.normal(size=400).astype(np.float32)
    z = rng.uniform(0, 10, size=400).astype(np.float32)
    y = ((x + 0.3 * z + rng.normal(scale=0.3, size=400)) > 1.5).astype(np.float32)
    return {"x": x, "z": z}, y.reshape(-1, 1)


def columns() -> list:
    fc = tf.feature_column
    return [fc.numeric_column("x"), fc.bucketized_column(fc.numeric_column("z"), [2.5, 5, 7.5])]


def estimator(model_dir: str) -> tf.estimator.BoostedTreesClassifier:
    config = tf.estimator.RunConfig(model_dir=model_dir, save_checkpoints_steps=5)
    return tf.estimator.BoostedTreesClassifier(
        columns(),
        n_batches_per_layer=2,
        n_trees=2,
        max_depth=2,
        learning_rate=0.5,
        center_bias=True,
        config=config,
    )


def main(model_dir: str) -> None:
    features, labels = data()
    train = tf.estimator.TrainSpec(
        tf.estimator.inputs.numpy_input_fn(
            features, labels, batch_size=100, num_epochs=None, shuffle=True
        ),
        # Every worker step counts (waiting ones too): the run ends when the trees are
        # grown (the estimator's stop hook), not at a step count a fast worker could reach
        # before the chief grew anything.
        max_steps=100000,
    )
    evaluate = tf.estimator.EvalSpec(
        tf.estimator.inputs.numpy_input_fn(features, labels, batch_size=400, shuffle=False),
        steps=1,
    )
    tf.estimator.train_and_evaluate(estimator(model_dir), train, evaluate)


if __name__ == "__main__":
    main(sys.argv[1])
