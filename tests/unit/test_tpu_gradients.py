"""Gradients through the TPU ops as TF 1.15 builds them (tests/tf_reference/
record_tpu_gradients.py): AllToAll's is an AllToAll with the split and concat dimensions
swapped, CollectivePermute's permutes back by the reversed pairs, CrossReplicaSum's sums the
gradient across replicas, TPUReplicatedInput has none, and TPUEmbeddingActivations' goes to
its table's gradient collection (an error outside training)."""

from __future__ import annotations

import pytest
import tfcluster as tf
from tf_reference import reference
from tf_reference.case_tools import same
from tf_reference.tpu_gradient_cases import CASES

AREA = "tpu_gradients"


@pytest.mark.parametrize("name", sorted(CASES))
def test_gradient_graph_through_a_tpu_op_is_tfs(name: str) -> None:
    same(CASES[name](tf.compat.v1), reference.case(AREA, name), name)
