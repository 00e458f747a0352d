"""tfcluster's gradient table classifies every op type it implements as TF 1.15's does: a
gradient function, not differentiable (tf.gradients gives None through it), or no entry
(LookupError when a gradient reaches it). TF's table is recorded by
tests/tf_reference/record_gradient_registry.py into data/gradient_registry.json."""

from __future__ import annotations

import json
import os

import pytest
from tfcluster.framework import op_def_registry
from tfcluster.gradients import registry

DATA = os.path.join(
    os.path.dirname(os.path.dirname(__file__)), "tf_reference", "data", "gradient_registry.json"
)

# Where tfcluster's table still differs from TF 1.15's, and why (each entry: TF's class,
# tfcluster's class). The test fails if this list is wrong either way.
KNOWN: dict[str, tuple[str, str, str]] = {
    # tf.einsum and tf.linalg.expm are python composites in TF 1.15 (differentiable through
    # the ops they build); tfcluster builds one Einsum / MatrixExponential op for them, so
    # these need a gradient here for tf.einsum / expm to stay differentiable.
    "Einsum": ("missing", "gradient", "tf.einsum builds it"),
    "MatrixExponential": ("missing", "gradient", "tf.linalg.expm builds it"),
}
# The lazily loaded modules whose gradients a program building their ops has loaded:
# while_v2 (TF builds While ops through it), tf.contrib.rnn (LSTMBlockCell / GRUBlockCell
# are built through tf.contrib only). Not tf.contrib.batching: TF 1.15's core
# tf.nondifferentiable_batch_function builds Batch/Unbatch without loading it, so there
# their gradient is a LookupError (test_misc_names records it), as here.
LOADED_WITH_THEIR_OPS = ("tensorflow.python.ops.while_v2", "tensorflow.contrib.rnn.")


def tf_table() -> dict[str, str]:
    """TF 1.15's table after `import tensorflow`, with the gradients of the lazily loaded
    modules in LOADED_WITH_THEIR_OPS."""
    with open(DATA) as f:
        doc = json.load(f)
    table: dict[str, str] = dict(doc["after_import"])
    for op, entry in doc["lazily_loaded"].items():
        if entry["module"].startswith(LOADED_WITH_THEIR_OPS):
            table[op] = entry["class"]
    return table


def tfcluster_class(op_type: str) -> str:
    table = registry.registered()
    if op_type not in table:
        return "missing"
    return "not_differentiable" if table[op_type] is None else "gradient"


def differences() -> dict[str, tuple[str, str]]:
    implemented = op_def_registry.registered_ops()
    return {
        op: (tf_class, tfcluster_class(op))
        for op, tf_class in sorted(tf_table().items())
        if op in implemented and tfcluster_class(op) != tf_class
    }


def test_the_recorded_table_covers_every_raw_op() -> None:
    table = tf_table()
    assert len(table) == 1201
    assert table["MatMul"] == "gradient"
    assert table["Shape"] == "not_differentiable"
    assert table["IteratorGetNext"] == "missing"


def test_every_implemented_op_is_classified_as_tf_1_15_does() -> None:
    diff = differences()
    expected = {op: (tf_c, ours) for op, (tf_c, ours, _why) in KNOWN.items()}
    unexplained = {op: d for op, d in diff.items() if expected.get(op) != d}
    stale = sorted(op for op in expected if op not in diff)
    assert not unexplained, f"{len(unexplained)} op types differ from TF 1.15: {unexplained}"
    assert not stale, f"listed as differing but now equal to TF 1.15: {stale}"


@pytest.mark.parametrize(
    "op_type, tf_class",
    [("Where", "missing"), ("ArgMax", "gradient"), ("EuclideanNorm", "not_differentiable")],
)
def test_lookup_follows_the_class(op_type: str, tf_class: str) -> None:
    if tf_class == "missing":
        with pytest.raises(LookupError, match=op_type):
            registry.lookup(op_type)
    elif tf_class == "gradient":
        assert registry.lookup(op_type) is not None
    else:
        assert registry.lookup(op_type) is None
