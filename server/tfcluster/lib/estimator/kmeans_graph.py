"""The k-means training graph of TF 1.15 (clustering_ops.KMeans): cluster centers in the
variable `clusters` (chosen by an init op run until `initialized` is true: given centers,
random points, k-means++ or k-MC2), distances and nearest centers of the inputs, and a step
of full-batch Lloyd or (mini-batch) k-means; squared euclidean or cosine distance."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tfcluster.framework import dtypes
from tfcluster.framework.graph import (
    colocate_with,
    control_dependencies,
    convert_to_tensor,
    get_seed,
)
from tfcluster.ops import (
    array_ops,
    check_ops,
    clustering_ops,
    control_flow_ops,
    embedding_ops,
    math_ops,
    nn_ops,
    random_ops,
    scatter_ops,
    segment_ops,
    state_ops,
)
from tfcluster.ops.variables import Variable

SQUARED_EUCLIDEAN_DISTANCE = "squared_euclidean"
COSINE_DISTANCE = "cosine"
RANDOM_INIT = "random"
KMEANS_PLUS_PLUS_INIT = "kmeans_plus_plus"
KMC2_INIT = "kmc2"
CLUSTERS_VAR_NAME = "clusters"


class KMeans:
    """Builds the k-means graph (TF's clustering_ops.KMeans, same arguments)."""

    def __init__(
        self,
        inputs: Any,
        num_clusters: Any,
        initial_clusters: Any = RANDOM_INIT,
        distance_metric: str = SQUARED_EUCLIDEAN_DISTANCE,
        use_mini_batch: bool = False,
        mini_batch_steps_per_iteration: int = 1,
        random_seed: int = 0,
        kmeans_plus_plus_num_retries: int = 2,
        kmc2_chain_length: int = 200,
    ) -> None:
        if isinstance(initial_clusters, str) and initial_clusters not in (
            RANDOM_INIT,
            KMEANS_PLUS_PLUS_INIT,
            KMC2_INIT,
        ):
            raise ValueError(f"Unsupported initialization algorithm '{initial_clusters}'")
        if distance_metric not in (SQUARED_EUCLIDEAN_DISTANCE, COSINE_DISTANCE):
            raise ValueError(f"Unsupported distance metric '{distance_metric}'")
        self._inputs = inputs if isinstance(inputs, list) else [inputs]
        self._num_clusters = num_clusters
        self._initial_clusters = initial_clusters
        self._distance_metric = distance_metric
        self._use_mini_batch = use_mini_batch
        self._mini_batch_steps_per_iteration = int(mini_batch_steps_per_iteration)
        self._seed = get_seed(random_seed)[0]
        self._kmeans_plus_plus_num_retries = kmeans_plus_plus_num_retries
        self._kmc2_chain_length = kmc2_chain_length

    # ---- distances ----------------------------------------------------------------------
    @staticmethod
    def _euclidean(inputs: list[Any], clusters: Any) -> list[Any]:
        out = []
        for inp in inputs:
            with colocate_with(inp, ignore_existing=True):
                out.append(
                    math_ops.reduce_sum(math_ops.square(inp), 1, keepdims=True)
                    - 2 * math_ops.matmul(inp, clusters, transpose_b=True)
                    + array_ops.transpose(
                        math_ops.reduce_sum(math_ops.square(clusters), 1, keepdims=True)
                    )
                )
        return out

    @staticmethod
    def _cosine(inputs: list[Any], clusters: Any) -> list[Any]:
        out = []
        for inp in inputs:
            with colocate_with(inp, ignore_existing=True):
                out.append(1 - math_ops.matmul(inp, clusters, transpose_b=True))
        return out

    def _distances(self, inputs: list[Any], clusters: Any) -> list[Any]:
        if self._distance_metric == SQUARED_EUCLIDEAN_DISTANCE:
            return self._euclidean(inputs, clusters)
        return self._cosine(inputs, clusters)  # inputs and clusters are normalized

    def _infer_graph(self, inputs: list[Any], clusters: Any) -> tuple[Any, Any, Any]:
        """(all distances, distance to the nearest center, its index) per input."""
        scores = self._distances(inputs, clusters)
        output = []
        if self._distance_metric == COSINE_DISTANCE and not self._clusters_l2_normalized():
            with colocate_with(clusters, ignore_existing=True):
                clusters = nn_ops.l2_normalize(clusters, dim=1)
        for inp, score in zip(inputs, scores):
            with colocate_with(inp, ignore_existing=True):
                indices, distances = clustering_ops.nearest_neighbors(inp, clusters, 1)
                if self._distance_metric == COSINE_DISTANCE:
                    distances *= 0.5
                output.append(
                    (
                        score,
                        array_ops.squeeze(distances, [-1]),
                        array_ops.squeeze(indices, [-1]),
                    )
                )
        all_scores, dist, idx = zip(*output)
        return list(all_scores), list(dist), list(idx)

    def _clusters_l2_normalized(self) -> bool:
        """Cosine distance keeps the centers normalized except in plain mini-batch mode."""
        return self._distance_metric == COSINE_DISTANCE and (
            not self._use_mini_batch or self._mini_batch_steps_per_iteration > 1
        )

    # ---- variables ----------------------------------------------------------------------
    def _create_variables(self, num_clusters: Any) -> tuple[Any, Any, Any, Any, Any]:
        init_value = array_ops.placeholder_with_default([], shape=None)
        centers = Variable(init_value, name=CLUSTERS_VAR_NAME, validate_shape=False)
        initialized = Variable(False, dtype=dtypes.bool_, name="initialized")
        counts: Variable | None
        if self._use_mini_batch and self._mini_batch_steps_per_iteration > 1:
            updated = Variable(init_value, name="clusters_updated", validate_shape=False)
            update_in_steps = Variable(
                self._mini_batch_steps_per_iteration, dtype=dtypes.int64, name="update_in_steps"
            )
            counts = Variable(array_ops.zeros([num_clusters], dtype=dtypes.int64))
        else:
            updated = centers
            update_in_steps = None
            counts = (
                Variable(array_ops.ones([num_clusters], dtype=dtypes.int64))
                if self._use_mini_batch
                else None
            )
        return centers, initialized, counts, updated, update_in_steps

    @staticmethod
    def _l2_normalize_data(inputs: list[Any]) -> list[Any]:
        out = []
        for inp in inputs:
            with colocate_with(inp, ignore_existing=True):
                out.append(nn_ops.l2_normalize(inp, dim=1))
        return out

    # ---- training -----------------------------------------------------------------------
    def training_graph(self) -> tuple[Any, Any, Any, Any, Any, Any]:
        """(all_scores, cluster_idx, scores, cluster_centers_initialized, init_op,
        training_op), each of the first three a list over the inputs."""
        if isinstance(self._initial_clusters, str) or callable(self._initial_clusters):
            initial_clusters = self._initial_clusters
            num_clusters = convert_to_tensor(self._num_clusters)
        else:
            initial_clusters = convert_to_tensor(self._initial_clusters)
            num_clusters = array_ops.shape(initial_clusters)[0]
        inputs = self._inputs
        centers_var, initialized, counts, updated, update_in_steps = self._create_variables(
            num_clusters
        )
        init_op = _InitializeClusters(
            self._inputs,
            num_clusters,
            initial_clusters,
            self._distance_metric,
            self._seed,
            self._kmeans_plus_plus_num_retries,
            self._kmc2_chain_length,
            centers_var,
            updated,
            initialized,
        ).op()
        centers: Any = centers_var
        if self._distance_metric == COSINE_DISTANCE:
            inputs = self._l2_normalize_data(inputs)
            if not self._clusters_l2_normalized():
                centers = nn_ops.l2_normalize(centers, dim=1)
        all_scores, scores, cluster_idx = self._infer_graph(inputs, centers)
        if self._use_mini_batch:
            sync = self._mini_batch_sync_updates_op(update_in_steps, centers_var, updated, counts)
            with control_dependencies([sync]):
                training_op = self._mini_batch_training_op(inputs, cluster_idx, updated, counts)
        else:
            training_op = self._full_batch_training_op(
                inputs, num_clusters, cluster_idx, centers_var
            )
        return all_scores, cluster_idx, scores, initialized, init_op, training_op

    def _mini_batch_sync_updates_op(
        self, update_in_steps: Any, centers_var: Any, updated: Any, counts: Any
    ) -> Any:
        """Every mini_batch_steps_per_iteration steps, the updated centers become the
        centers and the counts restart."""
        if not (self._use_mini_batch and self._mini_batch_steps_per_iteration > 1):
            return control_flow_ops.no_op()

        def sync() -> Any:
            with control_dependencies(
                [state_ops.assign(update_in_steps, self._mini_batch_steps_per_iteration - 1)]
            ):
                with colocate_with(updated, ignore_existing=True):
                    if self._distance_metric == COSINE_DISTANCE:
                        new = nn_ops.l2_normalize(updated.read_value(), dim=1)
                    else:
                        new = updated.read_value()
                reset_counts = state_ops.assign(counts, array_ops.zeros_like(counts))
                with control_dependencies([state_ops.assign(centers_var, new), reset_counts]):
                    return array_ops.identity(update_in_steps.read_value())

        with colocate_with(update_in_steps, ignore_existing=True):
            return control_flow_ops.cond(
                update_in_steps <= 0, sync, lambda: state_ops.assign_sub(update_in_steps, 1)
            )

    @staticmethod
    def _mini_batch_training_op(
        inputs: list[Any], cluster_idx_list: list[Any], centers: Any, counts: Any
    ) -> Any:
        """Each center moves toward the mean of its new points by count / total count."""
        update_ops = []
        for inp, cluster_idx in zip(inputs, cluster_idx_list):
            with colocate_with(inp, ignore_existing=True):
                cluster_idx = array_ops.reshape(cluster_idx, [-1])
                unique_ids, unique_idx = array_ops.unique(cluster_idx)
                num_unique = array_ops.size(unique_ids)
                with colocate_with(counts, ignore_existing=True):
                    old_counts = array_ops.gather(counts, unique_ids)
                with colocate_with(centers, ignore_existing=True):
                    old_centers = array_ops.gather(centers, unique_ids)
                count_updates = segment_ops.unsorted_segment_sum(
                    array_ops.ones_like(unique_idx, dtype=counts.dtype), unique_idx, num_unique
                )
                center_updates = segment_ops.unsorted_segment_sum(inp, unique_idx, num_unique)
                broadcast_shape = array_ops.concat(
                    [
                        array_ops.reshape(num_unique, [1]),
                        array_ops.ones(
                            array_ops.reshape(array_ops.rank(inp) - 1, [1]), dtype=dtypes.int32
                        ),
                    ],
                    0,
                )
                center_updates -= (
                    math_ops.cast(array_ops.reshape(count_updates, broadcast_shape), inp.dtype)
                    * old_centers
                )
                rate = math_ops.reciprocal(math_ops.cast(old_counts + count_updates, inp.dtype))
                center_updates *= array_ops.reshape(rate, broadcast_shape)
            update_ops.append(scatter_ops.scatter_add(counts, unique_ids, count_updates))
            update_ops.append(scatter_ops.scatter_add(centers, unique_ids, center_updates))
        return control_flow_ops.group(*update_ops)

    def _full_batch_training_op(
        self, inputs: list[Any], num_clusters: Any, cluster_idx_list: list[Any], centers: Any
    ) -> Any:
        """One Lloyd step: each center becomes the mean of its points."""
        sums, counts = [], []
        epsilon = convert_to_tensor(1e-6, dtype=inputs[0].dtype)
        for inp, cluster_idx in zip(inputs, cluster_idx_list):
            with colocate_with(inp, ignore_existing=True):
                sums.append(segment_ops.unsorted_segment_sum(inp, cluster_idx, num_clusters))
                ones = array_ops.ones(array_ops.reshape(array_ops.shape(inp)[0], [-1]))
                counts.append(
                    segment_ops.unsorted_segment_sum(
                        array_ops.reshape(ones, [-1, 1]), cluster_idx, num_clusters
                    )
                )
        with colocate_with(centers, ignore_existing=True):
            new_centers = math_ops.add_n(sums) / (
                math_ops.cast(math_ops.add_n(counts), sums[0].dtype) + epsilon
            )
            if self._clusters_l2_normalized():
                new_centers = nn_ops.l2_normalize(new_centers, dim=1)
        return state_ops.assign(centers, new_centers)


class _InitializeClusters:
    """The op choosing initial centers (TF's _InitializeClustersOpFactory): run until
    `initialized` is true; each run adds up to the number of centers still missing."""

    def __init__(
        self,
        inputs: list[Any],
        num_clusters: Any,
        initial_clusters: Any,
        distance_metric: str,
        random_seed: Any,
        kmeans_plus_plus_num_retries: int,
        kmc2_chain_length: int,
        centers: Any,
        updated: Any,
        initialized: Any,
    ) -> None:
        self._inputs = inputs
        self._num_clusters = num_clusters
        self._initial_clusters = initial_clusters
        self._distance_metric = distance_metric
        self._seed = random_seed
        self._retries = kmeans_plus_plus_num_retries
        self._kmc2_chain_length = kmc2_chain_length
        self._centers = centers
        self._updated = updated
        self._initialized = initialized
        self._num_selected = array_ops.shape(centers)[0]
        self._num_remaining = num_clusters - self._num_selected
        self._num_data = math_ops.add_n([array_ops.shape(i)[0] for i in inputs])

    def _random(self) -> Any:
        indices = random_ops.random_uniform(
            array_ops.reshape(self._num_remaining, [-1]),
            minval=0,
            maxval=math_ops.cast(self._num_data, dtypes.int64),
            seed=self._seed,
            dtype=dtypes.int64,
        )
        return embedding_ops.embedding_lookup(self._inputs, indices, partition_strategy="div")

    def _kmeans_plus_plus(self) -> Any:
        inp = self._inputs[0]
        if self._distance_metric == COSINE_DISTANCE:
            inp = nn_ops.l2_normalize(inp, dim=1)
        return clustering_ops.kmeans_plus_plus_initialization(
            inp, math_ops.cast(self._num_remaining, dtypes.int64), self._seed, self._retries
        )

    def _kmc2_multiple_centers(self) -> Any:
        """Adds one center per kmc2_chain_length points of the first input (at least one),
        each the end of a k-MC2 chain over its subset."""
        first = self._inputs[0]
        batch_size = array_ops.shape(first)[0]
        max_to_sample = math_ops.cast(batch_size / self._kmc2_chain_length, dtype=dtypes.int32)
        num_to_sample = math_ops.maximum(math_ops.minimum(self._num_remaining, max_to_sample), 1)

        def body(i: Any, _: Any) -> Any:
            def sample_random() -> Any:
                center = array_ops.reshape(first[0], [1, -1])
                if self._distance_metric == COSINE_DISTANCE:
                    center = nn_ops.l2_normalize(center, dim=1)
                return center

            def sample_kmc2_chain() -> Any:
                # As TF 1.15: the centers (and their number) are those read before the loop,
                # so each run of the init op adds one center to them.
                start = i * self._kmc2_chain_length
                subset = first[start : start + self._kmc2_chain_length]
                current = self._centers_before_loop
                _, distances = clustering_ops.nearest_neighbors(subset, current, 1)
                index = clustering_ops.kmc2_chain_initialization(
                    array_ops.squeeze(distances), self._seed
                )
                center = array_ops.reshape(subset[index], [1, -1])
                if self._distance_metric == COSINE_DISTANCE:
                    center = nn_ops.l2_normalize(center, dim=1)
                return array_ops.concat([current, center], 0)

            new_centers = control_flow_ops.cond(
                math_ops.equal(self._num_selected, 0), sample_random, sample_kmc2_chain
            )
            assigned = state_ops.assign(self._centers, new_centers, validate_shape=False)
            if self._updated is not self._centers:
                assigned = state_ops.assign(self._updated, assigned, validate_shape=False)
            return i + 1, self._num_clusters - array_ops.shape(assigned)[0]

        self._centers_before_loop = self._centers.value()
        _, remaining = control_flow_ops.while_loop(
            lambda i, _: math_ops.less(i, num_to_sample), body, [0, 0]
        )
        return remaining

    def _greedy_batch_sampler(self, sampler: Callable[[], Any]) -> Any:
        return control_flow_ops.cond(
            self._num_data <= self._num_remaining,
            lambda: array_ops.concat(self._inputs, 0),
            sampler,
        )

    def _single_batch_sampler(self, sampler: Callable[[], Any]) -> Any:
        with control_dependencies(
            [check_ops.assert_greater_equal(self._num_data, self._num_remaining)]
        ):
            return sampler()

    def _choose_initial_centers(self) -> Any:
        if isinstance(self._initial_clusters, str):
            if self._initial_clusters == RANDOM_INIT:
                return self._greedy_batch_sampler(self._random)
            return self._single_batch_sampler(self._kmeans_plus_plus)
        if callable(self._initial_clusters):
            return self._initial_clusters(self._inputs, self._num_remaining)
        with control_dependencies(
            [
                check_ops.assert_equal(
                    self._num_remaining, array_ops.shape(self._initial_clusters)[0]
                )
            ]
        ):
            return array_ops.identity(self._initial_clusters)

    def _add_new_centers(self) -> Any:
        new_centers = self._choose_initial_centers()
        if self._distance_metric == COSINE_DISTANCE:
            new_centers = nn_ops.l2_normalize(new_centers, dim=1)
        all_centers = control_flow_ops.cond(
            math_ops.equal(self._num_selected, 0),
            lambda: array_ops.identity(new_centers),
            lambda: array_ops.concat([self._centers, new_centers], 0),
        )
        a = state_ops.assign(self._centers, all_centers, validate_shape=False)
        if self._updated is not self._centers:
            a = state_ops.assign(self._updated, a, validate_shape=False)
        return self._num_clusters - array_ops.shape(a)[0]

    def _initialize(self) -> Any:
        with control_dependencies([check_ops.assert_positive(self._num_remaining)]):
            if isinstance(self._initial_clusters, str) and self._initial_clusters == KMC2_INIT:
                remaining = self._kmc2_multiple_centers()
            else:
                remaining = self._add_new_centers()
            return control_flow_ops.cond(
                math_ops.equal(remaining, 0),
                lambda: state_ops.assign(self._initialized, True).op,
                control_flow_ops.no_op,
            )

    def op(self) -> Any:
        return control_flow_ops.cond(
            math_ops.equal(self._num_remaining, 0),
            lambda: check_ops.assert_equal(self._initialized, True),
            self._initialize,
        )
