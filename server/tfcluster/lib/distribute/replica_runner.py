"""Runs a function once per replica to build each replica's part of the graph, as TF's
MirroredStrategy does: with several replicas each runs in its own thread (only one at a time)
so that a `merge_call` can stop every replica, hand all their arguments to one cross-replica
function, and give each replica its share of the result.

Replica i builds under the name scope 'replica_i/' (i > 0), on its device, with variable reuse
for i > 0 so that tf.get_variable finds the variables replica 0 made.
"""

from __future__ import annotations

import contextlib
import re
import threading
from collections.abc import Callable, Iterator
from typing import Any

from tfcluster.framework.graph import (
    Graph,
    control_dependencies,
    device,
    get_default_graph,
    name_scope,
)
from tfcluster.lib.distribute import values as values_lib
from tfcluster.ops import variable_creators, variable_scope
from tfcluster.training import distribution_context


class _Stop(Exception):
    """Raised in a replica thread waiting in merge_call when another replica failed."""


@contextlib.contextmanager
def cross_replica(strategy: Any, graph: Graph | None = None) -> Iterator[None]:
    ctx = distribution_context.Context(strategy)
    distribution_context.push(ctx, graph)
    try:
        yield
    finally:
        distribution_context.pop(ctx, graph)


_UNIQUIFIED = re.compile(r"_\d/")
_UNIQUIFIED_AT_END = re.compile(r"_\d$")


def _canonical_variable_name(name: str | None) -> str:
    """A tf.Variable's name without the uniquifying suffixes ('_1') each replica may get."""
    if name is None:
        return "Variable"
    return _UNIQUIFIED_AT_END.sub("", _UNIQUIFIED.sub("/", name))


def shared_variable_creator(store: dict[str, list[Any]], index: int) -> Callable[..., Any]:
    """Replica 0 makes the variables its function asks for; the other replicas get the same
    ones, matched by name and order (TF's shared_variable_creator): so tf.Variable calls
    in a replica function (tf.metrics' totals) make one distributed variable."""
    taken: dict[str, int] = {}

    def create(next_creator: Callable[..., Any], **kwargs: Any) -> Any:
        v = next_creator(**kwargs)
        store.setdefault(_canonical_variable_name(kwargs.get("name")), []).append(v)
        return v

    def reuse(next_creator: Callable[..., Any], **kwargs: Any) -> Any:
        name = kwargs.get("name")
        key = _canonical_variable_name(name)
        at = taken.get(key, 0)
        made = store.get(key, [])
        if at >= len(made):
            raise RuntimeError(
                f"Tried to create variable {name} with mismatching name on device {index}"
            )
        taken[key] = at + 1
        return made[at]

    return create if index == 0 else reuse


def _replica_scope(base: str, index: int) -> str:
    scope = base + "/" if base else ""
    return scope + (f"replica_{index}/" if index > 0 else "")


class _ReplicaThread(threading.Thread):
    def __init__(self, runner: ReplicaRunner, index: int) -> None:
        super().__init__(name=f"replica-{index}", daemon=True)
        self.runner = runner
        self.index = index
        self.should_run = threading.Event()
        self.has_paused = threading.Event()
        self.done = False
        self.result: Any = None
        self.error: BaseException | None = None
        self.merge_request: tuple[Callable[..., Any], tuple[Any, ...], dict[str, Any]] | None = None
        self.merge_result: Any = None
        self.captured_scope = ""
        self.captured_control: list[Any] = []
        self.captured_var_scope: Any = None

    def run(self) -> None:
        self.should_run.wait()
        self.should_run.clear()
        try:
            if self.runner.stopping:
                return
            self.result = self.runner.run_one(self.index, self)
            self.done = True
        except _Stop:
            pass
        except BaseException as e:  # handed to the building thread, which raises it
            self.error = e
        finally:
            self.done = True
            self.has_paused.set()

    def wait_for_merge(
        self, merge_fn: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]
    ) -> Any:
        graph = get_default_graph()
        self.merge_request = (merge_fn, args, kwargs)
        self.captured_scope = graph.get_name_scope()
        self.captured_control = graph._current_control_dependencies()
        self.captured_var_scope = variable_scope.get_variable_scope()
        self.has_paused.set()
        self.should_run.wait()
        self.should_run.clear()
        if self.runner.stopping:
            raise _Stop()
        result, self.merge_result = self.merge_result, None
        return result


class ReplicaRunner:
    """One call_for_each_replica: builds fn for each of `devices` (this worker's replicas)."""

    def __init__(self, extended: Any, fn: Callable[..., Any], args: Any, kwargs: Any) -> None:
        self.extended = extended
        self.strategy = extended._container_strategy()
        self.fn = fn
        self.args = args
        self.kwargs = kwargs
        self.graph = get_default_graph()
        self.base_scope = self.graph.get_name_scope()
        self.var_scope = variable_scope.get_variable_scope()
        self.var_scope_counts = dict(
            variable_scope.get_variable_scope_store().variable_scopes_count
        )
        self.creators = list(variable_creators.creator_stack(self.graph))
        self.shared_variables: dict[str, list[Any]] = {}
        self.stopping = False

    # ---- one replica --------------------------------------------------------------------
    def run_one(self, index: int, thread: _ReplicaThread | None) -> Any:
        from tfcluster.lib.distribute.strategy import ReplicaContext

        ext = self.extended
        graph = self.graph
        with contextlib.ExitStack() as stack:
            if thread is not None:
                stack.enter_context(graph.as_default())
                variable_creators.set_creator_stack(self.creators, graph)
                store = variable_scope.get_variable_scope_store()
                store.variable_scopes_count = dict(self.var_scope_counts)
                store.current_scope = self.var_scope
                stack.enter_context(
                    variable_creators.variable_creator_scope(
                        shared_variable_creator(self.shared_variables, index)
                    )
                )
                if index > 0:
                    stack.enter_context(
                        variable_scope.variable_scope(
                            self.var_scope, reuse=True, auxiliary_name_scope=False
                        )
                    )
            replica_id = ext._replica_id_offset() + index
            ctx = ReplicaContext(self.strategy, replica_id, index, thread)
            distribution_context.push(ctx._context, graph)
            stack.callback(distribution_context.pop, ctx._context, graph)
            stack.enter_context(device(ext._compute_devices[index]))
            if thread is not None:
                stack.enter_context(name_scope(_replica_scope(self.base_scope, index) or None))
            return self.fn(
                *values_lib.select_replica(index, self.args),
                **values_lib.select_replica(index, self.kwargs),
            )

    # ---- all replicas ---------------------------------------------------------------------
    def run(self) -> Any:
        devices = self.extended._compute_devices
        if len(devices) == 1:
            return self.run_one(0, None)
        threads = [_ReplicaThread(self, i) for i in range(len(devices))]
        for t in threads:
            t.start()
        try:
            while True:
                for t in threads:
                    t.should_run.set()
                    t.has_paused.wait()
                    t.has_paused.clear()
                    if t.error is not None:
                        raise t.error
                if all(t.done for t in threads):
                    break
                if any(t.done for t in threads) or any(t.merge_request is None for t in threads):
                    raise RuntimeError(
                        "Some replicas made a different number of replica_context().merge_call() "
                        "calls."
                    )
                self._merge(threads)
        finally:
            if not all(t.done for t in threads):
                self.stopping = True
                for t in threads:
                    t.should_run.set()
            for t in threads:
                t.join(timeout=5)
        return values_lib.regroup(devices, [t.result for t in threads])

    def _merge(self, threads: list[_ReplicaThread]) -> None:
        devices = self.extended._compute_devices
        first = threads[0]
        assert first.merge_request is not None
        merge_fn = first.merge_request[0]
        args = values_lib.regroup(devices, [t.merge_request[1] for t in threads])  # type: ignore[index]
        kwargs = values_lib.regroup(devices, [t.merge_request[2] for t in threads])  # type: ignore[index]
        for t in threads:
            t.merge_request = None
        scope = first.captured_scope
        with (
            name_scope(scope + "/" if scope else None),
            control_dependencies(first.captured_control),
            cross_replica(self.strategy),
        ):
            store = variable_scope.get_variable_scope_store()
            saved = store.current_scope
            store.current_scope = first.captured_var_scope
            try:
                result = merge_fn(self.strategy, *args, **kwargs)
            finally:
                store.current_scope = saved
        for t in threads:
            t.merge_result = values_lib.select_replica(t.index, result)
