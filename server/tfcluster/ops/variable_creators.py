"""tf.variable_creator_scope: creators that tf.Variable (and so tf.get_variable) goes through,
as TF 1.15's Graph._variable_creator_stack.

A creator is `creator(next_creator, **kwargs)`; it may change the keyword arguments, call
next_creator(**kwargs) to have the variable made, or return something else. The innermost
scope's creator runs first; the last next_creator makes the tf.Variable. The stack is per graph
and per thread, as TF's.
"""

from __future__ import annotations

import contextlib
import threading
import weakref
from collections.abc import Callable, Iterator
from typing import Any

from tfcluster.framework.graph import Graph, get_default_graph

Creator = Callable[..., Any]

_LOCAL = threading.local()


def _stacks() -> weakref.WeakKeyDictionary[Graph, list[tuple[int, Creator]]]:
    stacks = getattr(_LOCAL, "stacks", None)
    if stacks is None:
        stacks = _LOCAL.stacks = weakref.WeakKeyDictionary()
    return stacks  # type: ignore[no-any-return]


def creator_stack(graph: Graph | None = None) -> list[tuple[int, Creator]]:
    """(priority, creator) pairs of the graph's open scopes in this thread, outermost first."""
    return _stacks().get(graph or get_default_graph(), [])


@contextlib.contextmanager
def variable_creator_scope(variable_creator: Creator, *, priority: int = 100) -> Iterator[None]:
    """Within it, tf.Variable(...) calls variable_creator(next_creator, **kwargs)."""
    graph = get_default_graph()
    stacks = _stacks()
    old = stacks.get(graph, [])
    new = sorted([*old, (priority, variable_creator)], key=lambda item: item[0])
    stacks[graph] = new
    try:
        yield
    finally:
        if stacks.get(graph) is not new:
            raise RuntimeError("Exiting variable_creator_scope without proper nesting.")
        stacks[graph] = old


def create_through_stack(default: Creator, kwargs: dict[str, Any]) -> Any:
    """default(**kwargs), through the open creators (the innermost called first)."""
    previous = default
    for _, creator in creator_stack():
        previous = _make_getter(creator, previous)
    return previous(**kwargs)


def _make_getter(creator: Creator, previous: Creator) -> Creator:
    def getter(**kwargs: Any) -> Any:
        return creator(previous, **kwargs)

    return getter


def set_creator_stack(stack: list[tuple[int, Creator]], graph: Graph | None = None) -> None:
    """Gives this thread the creators another thread had open (a tf.distribute replica
    thread builds with the creators of the thread that started it, as TF's does)."""
    _stacks()[graph or get_default_graph()] = list(stack)
