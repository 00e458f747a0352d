"""CollectiveHub: how MultiWorkerMirroredStrategy's workers, each running its own graph and
session (between-graph), combine values. Every worker places its CollectiveHub op for one
reduction (same group_key and instance_key) on the same leader task; the op of each worker
waits there until all `group_size` members brought their value, and each gets the sum (or
member 0's value, for broadcasting initial values). The leader task is an ordinary task
server: values travel to and from it as any cross-task edge does.

TF 1.15 does this with CollectiveReduce / CollectiveBcastSend / CollectiveBcastRecv ops on
each worker's own device and a collective executor between the tasks; the values are the same.
"""

from __future__ import annotations

from typing import Any

from tfcluster.framework import op_def_registry
from tfcluster.framework.graph import Tensor, convert_to_tensor
from tfcluster.ops.op_util import make_op

MERGES = ("Add", "First")


def collective_hub(
    value: Any,
    group_size: int,
    group_key: int,
    instance_key: int,
    member: int,
    merge: str = "Add",
    name: str | None = None,
) -> Tensor:
    """The merge ('Add': sum; 'First': member 0's value) of `value` over the group's members."""
    if merge not in MERGES:
        raise ValueError(f"merge must be one of {MERGES}, got {merge!r}")
    if not 0 <= member < group_size:
        raise ValueError(f"member {member} is not in a group of {group_size}")
    value = convert_to_tensor(value)
    attrs = {
        "T": value.dtype.base_dtype,
        "group_size": int(group_size),
        "group_key": int(group_key),
        "instance_key": int(instance_key),
        "member": int(member),
        "merge": merge,
    }
    return make_op("CollectiveHub", [value], attrs, name=name or "CollectiveHub").outputs[0]


op_def_registry.register("CollectiveHub", op_def_registry.same_as_input(), stateful=True)
