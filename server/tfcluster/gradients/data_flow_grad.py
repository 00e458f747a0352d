"""The ref-handle queue ops and the v1 stacks have no gradient (TF 1.15's data_flow_grad
registers them NotDifferentiable). The resource-handle queues (*V2) and the accumulators are
in no table in TF 1.15, so a gradient reaching one raises LookupError there as here."""

from __future__ import annotations

from tfcluster.gradients.registry import not_differentiable

for _op in (
    "_AccumulatorCancelTakes",
    "QueueEnqueue",
    "QueueEnqueueMany",
    "QueueDequeue",
    "QueueDequeueMany",
    "QueueDequeueUpTo",
    "QueueSize",
    "QueueClose",
    "Stack",
    "StackClose",
    "StackPop",
    "StackPush",
):
    not_differentiable(_op)
