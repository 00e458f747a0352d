"""The master's cycle check: a TF1 while loop's back edge is allowed, any other cycle is an
InvalidArgumentError naming its nodes."""

from __future__ import annotations

import pytest
import tfcluster as tf
from tfcluster.runtime.graph_cycles import check_acyclic
from tfcluster.runtime.graph_ir import Node


def test_a_while_loops_back_edge_is_no_cycle() -> None:
    nodes = {
        "enter": Node("enter", "Enter", [("x", 0)], [], "", {}),
        "x": Node("x", "Const", [], [], "", {}),
        "merge": Node("merge", "Merge", [("enter", 0), ("next", 0)], [], "", {}),
        "body": Node("body", "Identity", [("merge", 0)], [], "", {}),
        "next": Node("next", "NextIteration", [("body", 0)], [], "", {}),
    }
    check_acyclic(nodes, list(nodes), [])
    nodes["merge"] = Node("merge", "Merge", [("enter", 0), ("body", 0)], ["next"], "", {})
    with pytest.raises(tf.errors.InvalidArgumentError, match="cycle with 2 nodes"):
        check_acyclic(nodes, list(nodes), [])
