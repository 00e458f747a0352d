"""Which tf.distribute strategy is current, and whether code runs for one replica or across
them: a stack per graph and per thread, as TF's Graph._distribution_strategy_stack.

The training library (optimizers, slot creation) asks this module; the strategies
themselves live in lib/distribute and push their contexts here. Outside any strategy scope
the stack is empty: `current()` is None and the default strategy (lib/distribute) answers.
"""

from __future__ import annotations

import threading
import weakref
from dataclasses import dataclass
from typing import Any

from tfcluster.framework.graph import Graph, get_default_graph


@dataclass(frozen=True)
class Context:
    """strategy: the strategy in force; replica_context: the ReplicaContext when code runs
    for one replica (None in cross-replica context); update_replica: the index of the
    replica whose copy of a variable StrategyExtended.update is updating, else None."""

    strategy: Any
    replica_context: Any = None
    update_replica: int | None = None


_LOCAL = threading.local()


def _stacks() -> weakref.WeakKeyDictionary[Graph, list[Context]]:
    stacks = getattr(_LOCAL, "stacks", None)
    if stacks is None:
        stacks = _LOCAL.stacks = weakref.WeakKeyDictionary()
    return stacks  # type: ignore[no-any-return]


def stack(graph: Graph | None = None) -> list[Context]:
    return _stacks().setdefault(graph or get_default_graph(), [])


def push(context: Context, graph: Graph | None = None) -> None:
    stack(graph).append(context)


def pop(context: Context, graph: Graph | None = None) -> None:
    s = stack(graph)
    if not s or s[-1] is not context:
        raise RuntimeError("Exiting a tf.distribute scope without proper nesting.")
    s.pop()


def current(graph: Graph | None = None) -> Context | None:
    s = stack(graph)
    return s[-1] if s else None


def has_strategy() -> bool:
    return current() is not None


def in_cross_replica_context() -> bool:
    ctx = current()
    return ctx is not None and ctx.replica_context is None


def update_replica() -> int | None:
    ctx = current()
    return None if ctx is None else ctx.update_replica


def loss_reduction_is_mean() -> bool:
    """TF's get_loss_reduction() == MEAN: only while an Estimator trains under the strategy
    (it sets `_scale_loss_for_estimator`), and the last tf.losses loss built in this graph
    was not reduced by a plain sum. Elsewhere it is SUM (the replicas' gradients add up)."""
    ctx = current()
    if ctx is None or not getattr(ctx.strategy, "_scale_loss_for_estimator", False):
        return False
    return getattr(get_default_graph(), "_last_loss_reduction", None) != "weighted_sum"
