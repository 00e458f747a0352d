"""tf.estimator.experimental.KMeans (TF 1.15's KMeansClustering): k-means as an Estimator.
Training runs the init op (a chief hook) until the centers are chosen, then each step is one
full-batch Lloyd or mini-batch k-means step; the loss is the sum of the squared distances of
the points to their nearest centers; predictions are the distances to every center and the
nearest center's index. The centers are the variable `clusters`."""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from tfcluster.framework.graph import colocate_with, get_default_graph
from tfcluster.lib.estimator import kmeans_graph
from tfcluster.lib.estimator.estimator import Estimator
from tfcluster.lib.estimator.export_output import PredictOutput
from tfcluster.lib.estimator.model_fn import EstimatorSpec
from tfcluster.lib.feature_column.layers import input_layer
from tfcluster.lib.metrics.metrics_impl import mean
from tfcluster.lib.platform.tf_logging import info as _log_info
from tfcluster.lib.saved_model.signature_constants import DEFAULT_SERVING_SIGNATURE_DEF_KEY
from tfcluster.ops import array_ops, control_flow_ops, math_ops, state_ops
from tfcluster.ops.summary_ops import scalar
from tfcluster.training import training_util
from tfcluster.training.session_run_hook import SessionRunArgs, SessionRunHook


class _LossRelativeChangeHook(SessionRunHook):
    """Stops when the loss changes by less than `tolerance` relative to 1 + |last loss|."""

    def __init__(self, loss_tensor: Any, tolerance: float) -> None:
        self._loss_tensor = loss_tensor
        self._tolerance = tolerance
        self._prev_loss: Any = None

    def before_run(self, run_context: Any) -> SessionRunArgs:
        return SessionRunArgs(self._loss_tensor)

    def after_run(self, run_context: Any, run_values: Any) -> None:
        loss = run_values.results
        if self._prev_loss:
            change = abs(loss - self._prev_loss) / (1 + abs(self._prev_loss))
            if change < self._tolerance:
                run_context.request_stop()
        self._prev_loss = loss


class _InitializeClustersHook(SessionRunHook):
    """Runs the init op (on the chief; other workers wait) until the centers are chosen."""

    def __init__(self, init_op: Any, is_initialized_var: Any, is_chief: bool) -> None:
        self._init_op = init_op
        self._is_initialized_var = is_initialized_var
        self._is_chief = is_chief

    def after_create_session(self, session: Any, coord: Any) -> None:
        assert self._init_op.graph is get_default_graph()
        while True:
            try:
                if session.run(self._is_initialized_var):
                    break
                if self._is_chief:
                    session.run(self._init_op)
                else:
                    time.sleep(1)
            except RuntimeError as e:
                _log_info(e)


def _parse_features_if_necessary(features: Any, feature_columns: Any) -> Any:
    """The points: a tensor as given; a dict's features through the columns' input layer,
    or (no columns) concatenated in the order of their sorted keys."""
    if not isinstance(features, dict):
        return features
    if feature_columns:
        return input_layer(features, feature_columns)
    keys = sorted(features.keys())
    with colocate_with(features[keys[0]]):
        return array_ops.concat([features[k] for k in keys], axis=1)


class _ModelFn:
    def __init__(
        self,
        num_clusters: Any,
        initial_clusters: Any,
        distance_metric: str,
        seed: Any,
        use_mini_batch: bool,
        mini_batch_steps_per_iteration: int,
        kmeans_plus_plus_num_retries: int,
        relative_tolerance: Any,
        feature_columns: Any,
    ) -> None:
        self._num_clusters = num_clusters
        self._initial_clusters = initial_clusters
        self._distance_metric = distance_metric
        self._seed = seed
        self._use_mini_batch = use_mini_batch
        self._mini_batch_steps_per_iteration = mini_batch_steps_per_iteration
        self._kmeans_plus_plus_num_retries = kmeans_plus_plus_num_retries
        self._relative_tolerance = relative_tolerance
        self._feature_columns = feature_columns

    def model_fn(self, features: Any, mode: str, config: Any) -> EstimatorSpec:
        points = _parse_features_if_necessary(features, self._feature_columns)
        all_distances, predictions, losses, is_initialized, init_op, training_op = (
            kmeans_graph.KMeans(
                inputs=points,
                num_clusters=self._num_clusters,
                initial_clusters=self._initial_clusters,
                distance_metric=self._distance_metric,
                use_mini_batch=self._use_mini_batch,
                mini_batch_steps_per_iteration=self._mini_batch_steps_per_iteration,
                random_seed=self._seed,
                kmeans_plus_plus_num_retries=self._kmeans_plus_plus_num_retries,
            ).training_graph()
        )
        loss = math_ops.reduce_sum(losses)
        scalar("loss/raw", loss)
        incr_step = state_ops.assign_add(training_util.get_global_step(), 1)
        training_op = control_flow_ops.with_dependencies([training_op, incr_step], loss)
        hooks: list[SessionRunHook] = [
            _InitializeClustersHook(init_op, is_initialized, config.is_chief)
        ]
        if self._relative_tolerance is not None:
            hooks.append(_LossRelativeChangeHook(loss, self._relative_tolerance))
        export_outputs = {
            KMeansClustering.ALL_DISTANCES: PredictOutput(all_distances[0]),
            KMeansClustering.CLUSTER_INDEX: PredictOutput(predictions[0]),
            DEFAULT_SERVING_SIGNATURE_DEF_KEY: PredictOutput(predictions[0]),
        }
        return EstimatorSpec(
            mode=mode,
            predictions={
                KMeansClustering.ALL_DISTANCES: all_distances[0],
                KMeansClustering.CLUSTER_INDEX: predictions[0],
            },
            loss=loss,
            train_op=training_op,
            eval_metric_ops={KMeansClustering.SCORE: mean(loss)},
            training_hooks=hooks,
            export_outputs=export_outputs,
        )


class KMeansClustering(Estimator):
    """An Estimator for K-Means clustering (TF's docstring): full batch when use_mini_batch
    is False (each step one Lloyd iteration over the whole input), else mini-batch k-means
    synced every mini_batch_steps_per_iteration steps."""

    SQUARED_EUCLIDEAN_DISTANCE = kmeans_graph.SQUARED_EUCLIDEAN_DISTANCE
    COSINE_DISTANCE = kmeans_graph.COSINE_DISTANCE
    RANDOM_INIT = kmeans_graph.RANDOM_INIT
    KMEANS_PLUS_PLUS_INIT = kmeans_graph.KMEANS_PLUS_PLUS_INIT
    SCORE = "score"
    CLUSTER_INDEX = "cluster_index"
    ALL_DISTANCES = "all_distances"
    CLUSTER_CENTERS_VAR_NAME = kmeans_graph.CLUSTERS_VAR_NAME

    def __init__(
        self,
        num_clusters: Any,
        model_dir: Any = None,
        initial_clusters: Any = RANDOM_INIT,
        distance_metric: str = SQUARED_EUCLIDEAN_DISTANCE,
        seed: Any = None,
        use_mini_batch: bool = True,
        mini_batch_steps_per_iteration: int = 1,
        kmeans_plus_plus_num_retries: int = 2,
        relative_tolerance: Any = None,
        config: Any = None,
        feature_columns: Any = None,
    ) -> None:
        if isinstance(initial_clusters, str) and initial_clusters not in (
            self.RANDOM_INIT,
            self.KMEANS_PLUS_PLUS_INIT,
        ):
            raise ValueError(f"Unsupported initialization algorithm '{initial_clusters}'")
        if distance_metric not in (self.SQUARED_EUCLIDEAN_DISTANCE, self.COSINE_DISTANCE):
            raise ValueError(f"Unsupported distance metric '{distance_metric}'")
        self._distance_metric = distance_metric
        super().__init__(
            model_fn=_ModelFn(
                num_clusters,
                initial_clusters,
                distance_metric,
                seed,
                use_mini_batch,
                mini_batch_steps_per_iteration,
                kmeans_plus_plus_num_retries,
                relative_tolerance,
                feature_columns,
            ).model_fn,
            model_dir=model_dir,
            config=config,
        )

    def _predict_one_key(self, input_fn: Any, predict_key: str) -> Any:
        for result in self.predict(input_fn=input_fn, predict_keys=[predict_key]):
            yield result[predict_key]

    def predict_cluster_index(self, input_fn: Any) -> Any:
        """The index of the closest cluster center of each input point."""
        yield from self._predict_one_key(input_fn, self.CLUSTER_INDEX)

    def score(self, input_fn: Any) -> Any:
        """The sum of the squared distances of the first batch's points to their nearest
        centers."""
        return self.evaluate(input_fn=input_fn, steps=1)[self.SCORE]

    def transform(self, input_fn: Any) -> Any:
        """The distances of each point to every center (euclidean, not squared, for the
        squared euclidean metric)."""
        for distances in self._predict_one_key(input_fn, self.ALL_DISTANCES):
            if self._distance_metric == self.SQUARED_EUCLIDEAN_DISTANCE:
                yield np.sqrt(distances)
            else:
                yield distances

    def cluster_centers(self) -> Any:
        return self.get_variable_value(self.CLUSTER_CENTERS_VAR_NAME)
