"""A variable's read Identity that only feeds one consumer on its device is read by that
consumer when it runs (runtime/read_forwarding.py), so a step waiting for its ids does not hold
the variable's array; Identities whose value or timing someone else sees stay."""

from __future__ import annotations

import numpy as np
import tfcluster as tf
from tfcluster.runtime.graph_ir import Node
from tfcluster.runtime.read_forwarding import forward_variable_reads

PS = "/job:ps/replica:0/task:0/device:CPU:0"
WORKER = "/job:worker/replica:0/task:0/device:CPU:0"


def _graph(*extra: Node, gather_device: str = PS) -> list[Node]:
    return [
        Node("v", "VariableV2", [], [], PS),
        Node("v/read", "Identity", [("v", 0)], [], PS),
        Node("ids", "_Recv", [], [], PS),
        Node("axis", "Const", [], [], PS),
        Node("gather", "GatherV2", [("v/read", 0), ("ids", 0), ("axis", 0)], [], gather_device),
        *extra,
    ]


def _names(nodes: list[Node]) -> list[str]:
    return [n.name for n in nodes]


def test_the_gather_reads_the_variable_itself() -> None:
    nodes = _graph()
    out = forward_variable_reads(nodes, set(), ["gather:0"], [])
    assert _names(out) == ["v", "ids", "axis", "gather"]
    assert out[-1].inputs == [("v", 0), ("ids", 0), ("axis", 0)]
    assert nodes[-1].inputs[0] == ("v/read", 0)  # the graph's own nodes are not changed


def test_a_read_that_is_fetched_ordered_by_or_shared_stays() -> None:
    fetched = forward_variable_reads(_graph(), set(), ["v/read:0"], [])
    ordering = _graph(Node("assign", "Assign", [("v", 0), ("axis", 0)], ["v/read"], PS))
    elsewhere = _graph(gather_device=WORKER)
    waited = _graph()
    waited[1] = Node("v/read", "Identity", [("v", 0)], ["ids"], PS)
    for nodes, fetches in (
        (ordering, ["gather:0"]),
        (elsewhere, ["gather:0"]),
        (waited, ["gather:0"]),
    ):
        assert "v/read" in _names(forward_variable_reads(nodes, set(), fetches, []))
    assert "v/read" in _names(fetched)


def test_a_read_shared_by_consumers_on_its_device_is_read_by_each() -> None:
    """TF's read shares the variable's buffer, which Assign writes in place: each consumer
    sees the value as it is when it runs (tests/unit/test_variable_read_aliasing.py)."""
    out = forward_variable_reads(
        _graph(Node("neg", "Neg", [("v/read", 0)], [], PS)), set(), ["gather:0", "neg:0"], []
    )
    assert _names(out) == ["v", "ids", "axis", "gather", "neg"]
    assert out[3].inputs[0] == ("v", 0) and out[4].inputs == [("v", 0)]
    split = forward_variable_reads(
        _graph(Node("neg", "Neg", [("v/read", 0)], [], WORKER)), set(), ["gather:0", "neg:0"], []
    )
    assert "v/read" in _names(split)  # a consumer on another device keeps the Identity


def test_a_read_of_a_value_that_is_not_a_variable_stays() -> None:
    nodes = [
        Node("c", "Const", [], [], PS),
        Node("c/read", "Identity", [("c", 0)], [], PS),
        Node("neg", "Neg", [("c/read", 0)], [], PS),
    ]
    assert _names(forward_variable_reads(nodes, set(), ["neg:0"], [])) == ["c", "c/read", "neg"]


def test_an_identity_taken_before_an_assignment_aliases_the_variable() -> None:
    # No snapshot in TF 1.15 (recorded in variable_read_aliasing.json): the op after the
    # Assign sees 5.0.
    v = tf.Variable(np.float32(1.0))
    old = tf.identity(v)
    with tf.control_dependencies([old]):
        assign = tf.assign(v, 5.0)
    with tf.control_dependencies([assign]):
        later = old * 1.0
    with tf.Session() as sess:
        sess.run(v.initializer)
        assert sess.run(later) == 5.0
        assert sess.run(v) == 5.0


def test_embedding_steps_give_the_same_values_with_reads_forwarded() -> None:
    emb = tf.Variable(np.arange(12, dtype=np.float32).reshape(6, 2))
    ids = tf.placeholder(tf.int32, [3])
    rows = tf.nn.embedding_lookup(emb, ids)
    # The gradient needs the rows: the update runs after the lookup.
    train = tf.train.GradientDescentOptimizer(0.5).minimize(tf.reduce_sum(rows * rows))
    with tf.Session() as sess:
        sess.run(emb.initializer)
        got, _ = sess.run([rows, train], {ids: [1, 4, 1]})
        after = sess.run(emb)
    np.testing.assert_array_equal(got, [[2, 3], [8, 9], [2, 3]])
    expected = np.arange(12, dtype=np.float32).reshape(6, 2)
    expected[1] -= 0.5 * 2 * 2 * np.array([2, 3])  # looked up twice
    expected[4] -= 0.5 * 2 * np.array([8, 9])
    np.testing.assert_array_equal(after, expected)
