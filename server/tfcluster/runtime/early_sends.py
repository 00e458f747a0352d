"""Which tensors the master's own partition may push to another task with that task's RunGraph.

A partition's _Recv of a tensor from another task asks that task for it (RecvTensor) once
its RunGraph has come and its executor reaches the receive: two messages and a wake-up of the
sender's serving thread before the receiver has the value. For a parameter server that first
needs the ids of the rows to gather from the worker, that round trip is on every step's path.
When the master's partition computes such a tensor from its feeds alone, the master can hold
that task's RunGraph back until the tensor is made and send it in the request (beside the
feeds, named by its rendezvous key, as TensorFlow's RunGraphRequest.send names what it sends):
one message, and the task starts with what it first needs.

Holding a partition back is safe only if the master's partition makes those tensors without
waiting for anyone: so it may hold only ops that cannot block (no queue, reader, iterator,
accumulator or barrier, no TF1 control flow whose dead branches a pushed tensor could not
carry), and the tensors may not depend on any receive.
"""

from __future__ import annotations

from tfcluster.framework import op_def_registry
from tfcluster.runtime import rendezvous as rdv
from tfcluster.runtime.graph_ir import Node
from tfcluster.runtime.loop_frames import CONTROL_FLOW_OPS
from tfcluster.runtime.partition import Partition
from tfcluster.runtime.placement import task_of_device

# Stateful ops that never wait for anything: random draws, checks, the exchange itself.
_NON_BLOCKING_STATEFUL = frozenset(
    {
        "_Send",
        "_Recv",
        "Assert",
        "CheckNumerics",
        "Print",
        "PrintV2",
        "RandomUniform",
        "RandomUniformInt",
        "RandomStandardNormal",
        "TruncatedNormal",
        "ParameterizedTruncatedNormal",
        "RandomShuffle",
        "RandomGamma",
        "RandomPoisson",
        "RandomPoissonV2",
        "Multinomial",
        "LogUniformCandidateSampler",
        "UniformCandidateSampler",
        "LearnedUnigramCandidateSampler",
        "ThreadUnsafeUnigramCandidateSampler",
        "FixedUnigramCandidateSampler",
        "AllCandidateSampler",
    }
)


def _never_blocks(op: str) -> bool:
    if op in _NON_BLOCKING_STATEFUL:
        return True
    if op in CONTROL_FLOW_OPS:  # stateless, but they route dead tensors (a pushed one is alive)
        return False
    op_def = op_def_registry.lookup(op)
    return op_def is not None and not op_def.stateful


def _after_a_receive(nodes: list[Node]) -> set[str]:
    """The nodes that wait, directly or not, for a _Recv of the partition (and the _Recvs)."""
    consumers: dict[str, list[str]] = {}
    for node in nodes:
        for src in {*(s for s, _ in node.inputs), *node.control_inputs}:
            consumers.setdefault(src, []).append(node.name)
    waiting = {n.name for n in nodes if n.op == "_Recv"}
    frontier = list(waiting)
    while frontier:
        for consumer in consumers.get(frontier.pop(), ()):
            if consumer not in waiting:
                waiting.add(consumer)
                frontier.append(consumer)
    return waiting


def early_sends(local: Partition) -> dict[str, tuple[str, ...]]:
    """For each other task, the rendezvous keys of the tensors `local` (the master's own
    partition) sends it that it may push with that task's RunGraph; empty if the partition
    holds an op that may block."""
    if not all(_never_blocks(n.op) for n in local.nodes):
        return {}
    waiting = _after_a_receive(local.nodes)
    out: dict[str, list[str]] = {}
    for node in local.nodes:
        if node.op != "_Send" or node.name in waiting:
            continue
        a = node.attrs
        out.setdefault(task_of_device(a["recv_device"]), []).append(
            rdv.make_key(a["send_device"], a["recv_device"], a["tensor_name"])
        )
    return {task: tuple(keys) for task, keys in out.items()}
