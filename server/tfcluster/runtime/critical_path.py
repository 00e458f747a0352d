"""Which ready kernel of a step runs first: the one heading the longest chain of work still to
come (the critical path), as measured on the step's own first runs.

A step whose kernels run on two threads ends when its longest chain ends. Picking ready
kernels in the order they became ready (the executor's stack) runs, say, a large variable's
update (nothing waits for it) before the gradient that the next convolution's backprops wait
for, and the other core idles meanwhile. The executor times every kernel of its first
sequential steps (runtime/inter_op.HeavyProbe, by thread CPU time: a preempted step must not
make a tiny kernel look long); from those costs each node's priority is its own cost plus the
costliest chain of consumers after it.
"""

from __future__ import annotations

from collections.abc import Sequence

# Kernels that took at least this much thread CPU per step while probing are worth running on
# an inter-op thread beside others, whatever their op type (a max-pool gradient of a large
# activation, a large variable's update): a hand-over costs ~20-50 us.
MEASURED_HEAVY_SECONDS = 0.0005


def longest_chains(costs: Sequence[float], consumers: Sequence[Sequence[int]]) -> list[float]:
    """For nodes in topological order (every consumer after its inputs): each node's cost
    plus the largest such sum over its consumers, i.e. the work on the longest chain that
    starts at the node."""
    chains = [0.0] * len(costs)
    for i in range(len(costs) - 1, -1, -1):
        after = max((chains[c] for c in consumers[i]), default=0.0)
        chains[i] = costs[i] + after
    return chains


def measured_heavy(costs: Sequence[float]) -> list[bool]:
    """Nodes whose measured cost pays for running them on another thread."""
    return [c >= MEASURED_HEAVY_SECONDS for c in costs]
