"""Partitioning a placed graph by task: _Send/_Recv pairs where edges cross tasks."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from tfcluster.framework import dtypes
from tfcluster.runtime.graph_ir import Node
from tfcluster.runtime.partition import Partition, partition

PS = "/job:ps/replica:0/task:0"
WORKER = "/job:worker/replica:0/task:0"


def _node(name: str, task: str, inputs: Sequence[str] = (), controls: Sequence[str] = ()) -> Node:
    parsed = [(i.split(":")[0], int(i.split(":")[1])) for i in inputs]
    return Node(name, "Op", parsed, list(controls), f"{task}/device:CPU:0", {})


def _split(
    nodes: list[Node],
    feeds: Sequence[str] = (),
    fetches: Sequence[str] = (),
    targets: Sequence[str] = (),
) -> dict[str, Partition]:
    by_name = {n.name: n for n in nodes}
    placement = {n.name: n.device for n in nodes}
    dtype_of = {f"{n.name}:{i}": dtypes.float32 for n in nodes for i in range(2)}
    return partition(by_name, placement, list(feeds), list(fetches), list(targets), dtype_of)


def _ops(part: Partition) -> dict[str, str]:
    return {n.name: n.op for n in part.nodes}


def test_a_tensor_read_on_another_task_crosses_once_for_all_its_readers_there() -> None:
    parts = _split(
        [_node("v", PS), _node("a", WORKER, ["v:0"]), _node("b", WORKER, ["v:0"])],
        targets=["a", "b"],
    )
    ps, worker = parts[PS], parts[WORKER]
    sends = [n for n in ps.nodes if n.op == "_Send"]
    recvs = [n for n in worker.nodes if n.op == "_Recv"]
    assert len(sends) == 1 and len(recvs) == 1
    assert sends[0].name in ps.targets  # the sender runs because the step targets it
    assert sends[0].attrs["tensor_name"] == recvs[0].attrs["tensor_name"] == "v:0"
    assert recvs[0].attrs["tensor_type"] == dtypes.float32
    by_name = {n.name: n for n in worker.nodes}
    assert by_name["a"].inputs == by_name["b"].inputs == [(recvs[0].name, 0)]


def test_control_inputs_from_one_task_cross_as_one_message_through_a_join() -> None:
    parts = _split(
        [_node("i1", PS), _node("i2", PS), _node("train", WORKER, controls=["i1", "i2"])],
        targets=["train"],
    )
    ps_ops = _ops(parts[PS])
    joins = [name for name, op in ps_ops.items() if op == "NoOp"]
    assert len(joins) == 1 and joins[0].startswith("_ctrl_join/")
    assert sorted(op for op in ps_ops.values()) == ["Const", "NoOp", "Op", "Op", "_Send"]
    train = next(n for n in parts[WORKER].nodes if n.name == "train")
    (recv,) = train.control_inputs
    assert _ops(parts[WORKER])[recv] == "_Recv"


def test_fed_tensors_do_not_cross_and_fetches_go_to_their_producers_task() -> None:
    parts = _split(
        [_node("v", PS), _node("a", WORKER, ["v:0"]), _node("b", PS, ["a:0"])],
        feeds=["v:0"],
        fetches=["a:0", "b:0", "v:0"],
    )
    worker, ps = parts[WORKER], parts[PS]
    assert worker.feeds == ["v:0"] and "_Recv" not in _ops(worker).values()
    assert worker.fetches == ["a:0"] and ps.fetches == ["b:0"]  # a fed fetch is no one's
    assert [n.attrs["tensor_name"] for n in ps.nodes if n.op == "_Recv"] == ["a:0"]


def _const(name: str, task: str, controls: Sequence[str] = ()) -> Node:
    value = {"value": np.array([0.5], np.float32), "dtype": dtypes.float32}
    return Node(name, "Const", [], list(controls), f"{task}/device:CPU:0", value)


def test_a_constant_read_on_another_task_is_copied_there_instead_of_sent_each_step() -> None:
    parts = _split(
        [_const("lr", WORKER), _node("a", PS, ["lr:0"]), _node("b", PS, ["lr:0"])],
        targets=["a", "b"],
    )
    ps = parts[PS]
    assert not [n for n in ps.nodes if n.op == "_Recv"]
    assert WORKER not in parts or not [n for n in parts[WORKER].nodes if n.op == "_Send"]
    copies = [n for n in ps.nodes if n.op == "Const"]
    assert len(copies) == 1  # one copy for all its readers on the task
    assert copies[0].device == f"{PS}/device:CPU:0"
    assert copies[0].attrs["value"].tolist() == [0.5]
    by_name = {n.name: n for n in ps.nodes}
    assert by_name["a"].inputs == by_name["b"].inputs == [(copies[0].name, 0)]


def test_a_constant_that_waits_for_a_control_input_or_is_fed_is_still_sent() -> None:
    # A constant with a control input may be dead (a cond branch): only its Send says so.
    parts = _split(
        [_node("pivot", WORKER), _const("c", WORKER, ["pivot"]), _node("a", PS, ["c:0"])],
        targets=["a"],
    )
    assert [n.attrs["tensor_name"] for n in parts[PS].nodes if n.op == "_Recv"] == ["c:0"]
    parts = _split([_const("c", WORKER), _node("a", PS, ["c:0"])], feeds=["c:0"], targets=["a"])
    assert not [n for n in parts[PS].nodes if n.op in ("_Recv", "Const")]
    assert parts[PS].feeds == ["c:0"]
