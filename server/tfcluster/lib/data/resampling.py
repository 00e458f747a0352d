"""tf.data.experimental.rejection_resample: a dataset resampled towards a target class
distribution by rejecting elements of over-represented classes, mixed with the original
elements so that as few as possible are dropped; built as TF 1.15's resampling.py builds it.
(The accept/reject draws use tfcluster's random streams, not TF's.)"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from tfcluster.framework import dtypes, tensor_util
from tfcluster.framework.graph import Tensor, convert_to_tensor
from tfcluster.lib.data.dataset import Dataset
from tfcluster.lib.data.experimental import sample_from_datasets, scan
from tfcluster.ops import array_ops, control_flow_ops, logging_ops, math_ops, random_ops

Transformation = Callable[[Dataset], Dataset]


def rejection_resample(
    class_func: Callable[..., Any], target_dist: Any, initial_dist: Any = None, seed: Any = None
) -> Transformation:
    """(class, element) pairs whose classes follow target_dist; the input's distribution is
    initial_dist, or estimated as the elements stream by."""

    def apply(dataset: Dataset) -> Dataset:
        target_dist_t = convert_to_tensor(target_dist, name="target_dist")
        class_values_ds = dataset.map(class_func)
        if initial_dist is not None:
            initial_dist_t = convert_to_tensor(initial_dist, name="initial_dist")
            acceptance_dist, prob_of_original = _acceptance_and_mixing(
                initial_dist_t, target_dist_t
            )
            initial_dist_ds = Dataset.from_tensors(initial_dist_t).repeat()
            acceptance_dist_ds = Dataset.from_tensors(acceptance_dist).repeat()
            prob_of_original_ds = Dataset.from_tensors(prob_of_original).repeat()
        else:
            initial_dist_ds = _estimate_initial_dist_ds(target_dist_t, class_values_ds)
            both = initial_dist_ds.map(
                lambda initial: _acceptance_and_mixing(initial, target_dist_t)
            )
            acceptance_dist_ds = both.map(lambda accept, _: accept)
            prob_of_original_ds = both.map(lambda _, original: original)
        filtered_ds = _filter_ds(
            dataset, acceptance_dist_ds, initial_dist_ds, class_values_ds, seed
        ).prefetch(3)
        static = (
            _prob_original_static(initial_dist_t, target_dist_t)
            if initial_dist is not None
            else None
        )
        if static == 1:
            return Dataset.zip((class_values_ds, dataset))
        if static == 0:
            return filtered_ds
        return sample_from_datasets(
            [Dataset.zip((class_values_ds, dataset)), filtered_ds],
            weights=prob_of_original_ds.map(lambda prob: [(prob, 1.0 - prob)]),
            seed=seed,
        )

    return apply


def _prob_original_static(initial_dist_t: Tensor, target_dist_t: Tensor) -> Any:
    init_static = tensor_util.constant_value(initial_dist_t)
    target_static = tensor_util.constant_value(target_dist_t)
    if init_static is None or target_static is None:
        return None
    return np.min(target_static / init_static)


def _filter_ds(
    dataset: Dataset,
    acceptance_dist_ds: Dataset,
    initial_dist_ds: Dataset,
    class_values_ds: Dataset,
    seed: Any,
) -> Dataset:
    def maybe_warn_on_large_rejection(accept_dist: Tensor, initial_dist: Tensor) -> Tensor:
        proportion_rejected = math_ops.reduce_sum((1 - accept_dist) * initial_dist)
        return control_flow_ops.cond(
            math_ops.less(proportion_rejected, 0.5),
            lambda: accept_dist,
            lambda: logging_ops.Print(
                accept_dist,
                [proportion_rejected, initial_dist, accept_dist],
                message="Proportion of examples rejected by sampler is high: ",
                summarize=100,
                first_n=10,
            ),
        )

    acceptance_dist_ds = Dataset.zip((acceptance_dist_ds, initial_dist_ds)).map(
        maybe_warn_on_large_rejection
    )

    def gather_and_copy(class_val: Tensor, acceptance_prob: Tensor, data: Any) -> Any:
        return class_val, array_ops.gather(acceptance_prob, class_val), data

    current = Dataset.zip((class_values_ds, acceptance_dist_ds, dataset)).map(gather_and_copy)
    filtered = current.filter(lambda _1, p, _2: random_ops.random_uniform([], seed=seed) < p)
    return filtered.map(lambda class_value, _, data: (class_value, data))


def _estimate_initial_dist_ds(
    target_dist_t: Tensor,
    class_values_ds: Dataset,
    dist_estimation_batch_size: int = 32,
    smoothing_constant: int = 10,
) -> Dataset:
    num_classes = target_dist_t.shape.as_list()[0] or array_ops.shape(target_dist_t)[0]
    initial_examples_per_class_seen = array_ops.fill([num_classes], np.int64(smoothing_constant))

    def update_estimate_and_tile(seen: Tensor, c: Tensor) -> Any:
        updated, dist = _estimate_data_distribution(c, seen)
        tiled = array_ops.tile(array_ops.expand_dims(dist, 0), [dist_estimation_batch_size, 1])
        return updated, tiled

    return (
        class_values_ds.batch(dist_estimation_batch_size)
        .apply(scan(initial_examples_per_class_seen, update_estimate_and_tile))
        .unbatch()
    )


def _estimate_data_distribution(c: Tensor, seen: Tensor) -> tuple[Tensor, Tensor]:
    num_classes = seen.shape.as_list()[0]
    seen = math_ops.add(
        seen, math_ops.reduce_sum(array_ops.one_hot(c, num_classes, dtype=dtypes.int64), 0)
    )
    estimate = math_ops.truediv(seen, math_ops.reduce_sum(seen))
    return seen, math_ops.cast(estimate, dtypes.float32)


def _acceptance_and_mixing(initial_probs: Tensor, target_probs: Tensor) -> tuple[Tensor, Tensor]:
    """(a_i: the probability of keeping an element of class i, m: the share of elements
    taken from the original data), rejecting as little as possible."""
    tiny = np.finfo(initial_probs.dtype.as_numpy_dtype).tiny
    ratio_l = target_probs / (initial_probs + tiny)
    max_ratio = math_ops.reduce_max(ratio_l)
    min_ratio = math_ops.reduce_min(ratio_l)
    m = min_ratio
    a_i = (ratio_l - m) / (max_ratio - m)
    return a_i, m


__all__ = ["rejection_resample"]
