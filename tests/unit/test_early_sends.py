"""Which tensors a master's own partition pushes with another task's RunGraph
(runtime/early_sends.py): those it makes from its feeds without waiting for anyone, and only
when nothing in the partition can block."""

from __future__ import annotations

from collections.abc import Sequence

import tfcluster  # noqa: F401  (registers the op definitions)
from tfcluster.framework import dtypes
from tfcluster.runtime import rendezvous as rdv
from tfcluster.runtime.early_sends import early_sends
from tfcluster.runtime.graph_ir import Node
from tfcluster.runtime.partition import Partition, partition

PS0 = "/job:ps/replica:0/task:0"
PS1 = "/job:ps/replica:0/task:1"
WORKER = "/job:worker/replica:0/task:0"


def _node(
    name: str, op: str, task: str, inputs: Sequence[str] = (), controls: Sequence[str] = ()
) -> Node:
    parsed = [(i.split(":")[0], int(i.split(":")[1])) for i in inputs]
    return Node(name, op, parsed, list(controls), f"{task}/device:CPU:0", {})


def _worker_part(nodes: list[Node], feeds: Sequence[str], targets: Sequence[str]) -> Partition:
    by_name = {n.name: n for n in nodes}
    placement = {n.name: n.device for n in nodes}
    dtype_of = {f"{n.name}:{i}": dtypes.int32 for n in nodes for i in range(2)}
    return partition(by_name, placement, list(feeds), [], list(targets), dtype_of)[WORKER]


def _key(src: str, task: str) -> str:
    return rdv.make_key(f"{WORKER}/device:CPU:0", f"{task}/device:CPU:0", src)


def _lookup_step(extra: Sequence[Node] = ()) -> list[Node]:
    """A worker computes ids from a fed tensor (one set per ps), each ps gathers, the worker
    reads the rows and sends a gradient back to ps 0."""
    return [
        _node("ids", "FloorMod", WORKER, ["x:0", "x:0"]),
        _node("sample", "LogUniformCandidateSampler", WORKER, ["x:0"]),
        _node("rows0", "GatherV2", PS0, ["ids:0"]),
        _node("rows1", "GatherV2", PS1, ["ids:0", "sample:0"]),
        _node("grad", "Mul", WORKER, ["rows0:0", "rows1:0"]),
        _node("update", "ScatterSub", PS0, ["grad:0"]),
        *extra,
    ]


def test_tensors_made_from_feeds_are_pushed_and_those_after_a_receive_are_not() -> None:
    part = _worker_part(_lookup_step(), ["x:0"], ["update"])
    pushed = early_sends(part)
    assert pushed == {PS0: (_key("ids:0", PS0),), PS1: (_key("ids:0", PS1), _key("sample:0", PS1))}
    # The gradient needs the rows from both ps: it is asked for as before.
    assert _key("grad:0", PS0) not in pushed[PS0]


def test_a_control_edge_after_a_receive_keeps_a_send_from_being_pushed() -> None:
    nodes = _lookup_step([_node("late", "Identity", WORKER, ["x:0"], controls=["grad"])])
    nodes.append(_node("after", "NoOp", PS1, controls=["late"]))
    part = _worker_part(nodes, ["x:0"], ["update", "after"])
    assert _key("^late", PS1) not in early_sends(part).get(PS1, ())


def test_nothing_is_pushed_when_the_partition_may_block() -> None:
    for op in ("QueueDequeueV2", "IteratorGetNext", "Switch", "AnOpNobodyDefined"):
        blocking = _node("waits", op, WORKER, ["x:0"])
        part = _worker_part(_lookup_step([blocking]), ["x:0"], ["update", "waits"])
        assert early_sends(part) == {}, op
