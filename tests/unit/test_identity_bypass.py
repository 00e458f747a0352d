"""Identities bypassed as TF's dependency optimizer removes them (runtime/identity_bypass)."""

from __future__ import annotations

from tfcluster.runtime.graph_ir import Node
from tfcluster.runtime.identity_bypass import bypass_identities


def _graph(*nodes: Node) -> dict[str, Node]:
    return {n.name: n for n in nodes}


def _node(name: str, op: str, inputs: list[str], controls: list[str] | None = None) -> Node:
    return Node(name, op, [(i, 0) for i in inputs], list(controls or []), "/job:a/task:0")


def test_a_gradient_tuple_identity_is_bypassed_and_its_reader_waits_on_its_controls() -> None:
    nodes = _graph(
        _node("g", "Mul", []),
        _node("group_deps", "NoOp", [], ["g"]),
        _node("dep", "Identity", ["g"], ["group_deps"]),
        _node("use", "Mul", ["dep", "dep"]),
    )
    out = bypass_identities(nodes, list(nodes), [], ["use:0"], [])
    assert out["use"].inputs == [("g", 0), ("g", 0)]
    assert out["use"].control_inputs == ["group_deps"]
    assert "dep" not in out


def test_fetched_variable_reads_and_control_flow_identities_stay() -> None:
    nodes = _graph(
        _node("v", "VariableV2", []),
        _node("v/read", "Identity", ["v"]),
        _node("p", "Placeholder", []),
        _node("s", "Switch", ["p", "p"]),
        _node("branch", "Identity", ["s"]),
        _node("fetched", "Identity", ["p"]),
        _node("use", "AddN", ["v/read", "branch", "fetched"]),
    )
    assert bypass_identities(nodes, list(nodes), [], ["use:0", "fetched:0"], []) == {}


def test_an_identity_is_kept_where_bypassing_it_adds_edges() -> None:
    # Two inputs (one a control) and three readers: 2 * 3 > 2 + 3.
    nodes = _graph(
        _node("a", "Neg", []),
        _node("b", "NoOp", []),
        _node("dep", "Identity", ["a"], ["b"]),
        *(_node(f"r{i}", "Neg", ["dep"]) for i in range(3)),
    )
    assert bypass_identities(nodes, list(nodes), [], ["r0:0", "r1:0", "r2:0"], []) == {}
