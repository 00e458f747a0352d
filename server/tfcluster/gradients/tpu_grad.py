"""Gradients of the TPU ops, as TF 1.15's tpu_ops.py and tpu.py register them: tfcluster
defines these ops without kernels (TF's CPU build has none either), and a graph built for a
TPU still differentiates through them as TF's does."""

from __future__ import annotations

from typing import Any

from tfcluster.framework import dtypes
from tfcluster.framework.graph import Operation, get_default_graph
from tfcluster.gradients.registry import RegisterGradient, not_differentiable
from tfcluster.ops import array_ops, raw_op_library

not_differentiable("TPUReplicatedInput")


def _op(op_type: str) -> Any:
    return raw_op_library.raw_op_function(op_type)


@RegisterGradient("AllToAll")
def _all_to_all_grad(op: Operation, grad: Any) -> list[Any]:
    # An all-to-all with the split and concat dimensions swapped.
    return [
        _op("AllToAll")(
            input=grad,
            group_assignment=op.inputs[1],
            concat_dimension=op._get_attr("split_dimension"),
            split_dimension=op._get_attr("concat_dimension"),
            split_count=op._get_attr("split_count"),
        ),
        None,
    ]


@RegisterGradient("CollectivePermute")
def _collective_permute_grad(op: Operation, grad: Any) -> list[Any]:
    # The permutation with each source / target pair reversed.
    pairs = op.inputs[1][:, ::-1]
    return [_op("CollectivePermute")(input=grad, source_target_pairs=pairs), None]


@RegisterGradient("CrossReplicaSum")
def _cross_replica_sum_grad(op: Operation, grad: Any) -> list[Any]:
    return [_op("CrossReplicaSum")(input=grad, group_assignment=op.inputs[1]), None]


@RegisterGradient("TPUEmbeddingActivations")
def _embedding_activations_grad(op: Operation, grad: Any) -> list[Any]:
    """Keeps the activations' gradient in the table's collection (TPUEmbedding's optimizer
    sends it); every input's own gradient is zeros."""
    table_id = op._get_attr("table_id")
    lookup_id = op._get_attr("lookup_id")
    table_gradients = get_default_graph().get_collection_ref(
        f"tpu_embedding_gradients_table_{table_id}"
    )
    if not table_gradients:
        raise RuntimeError(
            "Gradients for TPUEmbedding have been generated in non-training mode."
            "This is not expected. Consider putting your Optimizer.minimize code "
            "behind the training mode condition check. For Estimator, you can "
            "do \n\n"
            "    if mode == tf.estimator.ModeKeys.TRAIN:\n"
            "        train_op = opt.minimize(loss)\n"
            "\n"
        )
    table_gradients[lookup_id] = array_ops.identity(grad)
    return [array_ops.zeros(arg.shape, dtype=dtypes.float32) for arg in op.inputs]
