"""tf.nn.nce_loss and tf.nn.sampled_softmax_loss, as TF 1.15 builds them (its nn_impl).

Both score each example against its true classes and a shared batch of sampled classes
(log-uniform by default, or the caller's `sampled_values`): the rows of `weights` and `biases`
for those classes come from embedding_lookup, so with sharded weights (a list or a
PartitionedVariable on ps tasks) only those rows travel and their gradients are IndexedSlices
applied on the ps. Logits are corrected by the log of each class's expected count
(subtract_log_q); accidental hits (a sampled class that is one of the row's true classes) can
be masked out with -FLT_MAX.
"""

from __future__ import annotations

from typing import Any

from tfcluster.framework import dtypes
from tfcluster.framework.graph import Tensor, name_scope
from tfcluster.ops import array_ops, math_ops, nn_ops, sparse_ops
from tfcluster.ops.candidate_sampling_ops import (
    compute_accidental_hits,
    log_uniform_candidate_sampler,
)
from tfcluster.ops.embedding_ops import embedding_lookup
from tfcluster.ops.variables import PartitionedVariable


def _sum_rows(x: Tensor) -> Tensor:
    """Sum of each row, as a matmul with a column of ones (TF's choice: its gradient is
    cheaper than reduce_sum's)."""
    cols = array_ops.shape(x)[1]
    ones_shape = array_ops.stack([cols, 1])
    ones = array_ops.ones(ones_shape, x.dtype)
    return array_ops.reshape(math_ops.matmul(x, ones), [-1])


def _compute_sampled_logits(
    weights: Any,
    biases: Any,
    labels: Any,
    inputs: Any,
    num_sampled: int,
    num_classes: int,
    num_true: int = 1,
    sampled_values: Any = None,
    subtract_log_q: bool = True,
    remove_accidental_hits: bool = False,
    partition_strategy: str = "mod",
    name: str | None = None,
    seed: int | None = None,
) -> tuple[Tensor, Tensor]:
    """(logits [batch, num_true + num_sampled], labels of the same shape: 1/num_true for the
    true classes, 0 for the sampled ones)."""
    if isinstance(weights, PartitionedVariable):
        weights = list(weights)
    if not isinstance(weights, list):
        weights = [weights]
    with name_scope(name, "compute_sampled_logits", [*weights, biases, inputs, labels]):
        if labels.dtype != dtypes.int64:
            labels = math_ops.cast(labels, dtypes.int64)
        labels_flat = array_ops.reshape(labels, [-1])
        if sampled_values is None:
            sampled_values = log_uniform_candidate_sampler(
                true_classes=labels,
                num_true=num_true,
                num_sampled=num_sampled,
                unique=True,
                range_max=num_classes,
                seed=seed,
            )
        sampled, true_expected_count, sampled_expected_count = (
            array_ops.stop_gradient(s) for s in sampled_values
        )
        sampled = math_ops.cast(sampled, dtypes.int64)
        all_ids = array_ops.concat([labels_flat, sampled], 0)

        # The weights of the true and sampled classes, one lookup for both.
        all_w = embedding_lookup(weights, all_ids, partition_strategy=partition_strategy)
        if all_w.dtype != inputs.dtype:
            all_w = math_ops.cast(all_w, inputs.dtype)
        true_w = array_ops.slice(
            all_w, [0, 0], array_ops.stack([array_ops.shape(labels_flat)[0], -1])
        )
        sampled_w = array_ops.slice(
            all_w, array_ops.stack([array_ops.shape(labels_flat)[0], 0]), [-1, -1]
        )
        sampled_logits = math_ops.matmul(inputs, sampled_w, transpose_b=True)

        all_b = embedding_lookup(biases, all_ids, partition_strategy=partition_strategy)
        if all_b.dtype != inputs.dtype:
            all_b = math_ops.cast(all_b, inputs.dtype)
        true_b = array_ops.slice(all_b, [0], array_ops.shape(labels_flat))
        sampled_b = array_ops.slice(all_b, array_ops.shape(labels_flat), [-1])

        # Each example against its own true classes: an elementwise product summed by rows.
        dim = array_ops.shape(true_w)[1:2]
        new_true_w_shape = array_ops.concat([[-1, num_true], dim], 0)
        row_wise_dots = math_ops.multiply(
            array_ops.expand_dims(inputs, 1), array_ops.reshape(true_w, new_true_w_shape)
        )
        dots_as_matrix = array_ops.reshape(row_wise_dots, array_ops.concat([[-1], dim], 0))
        true_logits = array_ops.reshape(_sum_rows(dots_as_matrix), [-1, num_true])
        true_b = array_ops.reshape(true_b, [-1, num_true])
        true_logits += true_b
        sampled_logits += sampled_b

        if remove_accidental_hits:
            sampled_logits = _mask_accidental_hits(
                labels, sampled, sampled_logits, num_true, num_sampled
            )
        if subtract_log_q:
            true_logits -= math_ops.log(true_expected_count)
            sampled_logits -= math_ops.log(sampled_expected_count)

        out_logits = array_ops.concat([true_logits, sampled_logits], 1)
        out_labels = array_ops.concat(
            [
                array_ops.ones_like(true_logits) / num_true,
                array_ops.zeros_like(sampled_logits),
            ],
            1,
        )
        return out_logits, out_labels


def _mask_accidental_hits(
    labels: Tensor, sampled: Tensor, sampled_logits: Tensor, num_true: int, num_sampled: int
) -> Tensor:
    """sampled_logits with -FLT_MAX added where a sampled class is one of the row's labels."""
    acc_indices, acc_ids, acc_weights = compute_accidental_hits(labels, sampled, num_true=num_true)
    acc_indices_2d = array_ops.reshape(acc_indices, [-1, 1])
    acc_ids_2d_int32 = array_ops.reshape(math_ops.cast(acc_ids, dtypes.int32), [-1, 1])
    sparse_indices = array_ops.concat([acc_indices_2d, acc_ids_2d_int32], 1, "sparse_indices")
    sampled_logits_shape = array_ops.concat(
        [array_ops.shape(labels)[:1], array_ops.expand_dims(num_sampled, 0)], 0
    )
    if sampled_logits.dtype != acc_weights.dtype:
        acc_weights = math_ops.cast(acc_weights, sampled_logits.dtype)
    return sampled_logits + sparse_ops.sparse_to_dense(
        sparse_indices,
        sampled_logits_shape,
        acc_weights,
        default_value=0.0,
        validate_indices=False,
    )


def nce_loss(
    weights: Any,
    biases: Any,
    labels: Any,
    inputs: Any,
    num_sampled: int,
    num_classes: int,
    num_true: int = 1,
    sampled_values: Any = None,
    remove_accidental_hits: bool = False,
    partition_strategy: str = "mod",
    name: str = "nce_loss",
) -> Tensor:
    """Noise-contrastive estimation loss per example [batch]: a logistic loss of the true
    classes against the sampled ones."""
    logits, labels = _compute_sampled_logits(
        weights=weights,
        biases=biases,
        labels=labels,
        inputs=inputs,
        num_sampled=num_sampled,
        num_classes=num_classes,
        num_true=num_true,
        sampled_values=sampled_values,
        subtract_log_q=True,
        remove_accidental_hits=remove_accidental_hits,
        partition_strategy=partition_strategy,
        name=name,
    )
    sampled_losses = nn_ops.sigmoid_cross_entropy_with_logits(
        labels=labels, logits=logits, name="sampled_losses"
    )
    return _sum_rows(sampled_losses)


def sampled_softmax_loss(
    weights: Any,
    biases: Any,
    labels: Any,
    inputs: Any,
    num_sampled: int,
    num_classes: int,
    num_true: int = 1,
    sampled_values: Any = None,
    remove_accidental_hits: bool = True,
    partition_strategy: str = "mod",
    name: str = "sampled_softmax_loss",
    seed: int | None = None,
) -> Tensor:
    """Softmax cross entropy per example [batch] over the true classes and the sampled ones."""
    logits, labels = _compute_sampled_logits(
        weights=weights,
        biases=biases,
        labels=labels,
        inputs=inputs,
        num_sampled=num_sampled,
        num_classes=num_classes,
        num_true=num_true,
        sampled_values=sampled_values,
        subtract_log_q=True,
        remove_accidental_hits=remove_accidental_hits,
        partition_strategy=partition_strategy,
        name=name,
        seed=seed,
    )
    labels = array_ops.stop_gradient(labels, name="labels_stop_gradient")
    return nn_ops.softmax_cross_entropy_with_logits_v2(labels=labels, logits=logits)


__all__: list[str] = []  # exported by the tf.nn face
