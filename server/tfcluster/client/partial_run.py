"""Session.partial_run: one step fed and fetched over several calls, as TF 1.15's PRun.

TF keeps one executor alive between the calls. Here each call is an ordinary step of the
master (so it works the same on a local engine and over grpc://): it runs every node of the
partial run's graph that the feeds given so far let run, fetches the requested tensors plus
the values later calls will need from it (its frontier), and the next calls feed those values
back, so a node runs once even when its consumers run in a later call (a random op's value is
the one its consumers see). Variables' own ref outputs and resource and variant tensors are
not carried (a variable or handle is only looked up again), and an op that only gates a
later op through a control edge runs again when that op runs.
"""

from __future__ import annotations

import itertools
import threading
from collections.abc import Callable, Iterable
from typing import Any

from tfcluster.framework import dtypes, errors
from tfcluster.framework.graph import Graph, Operation, Tensor

# Runs one step: (feeds by tensor name, fetched tensor names, target op names) -> values.
StepFn = Callable[[dict[str, Any], list[str], list[str]], list[Any]]

_NOT_SET_UP = "Must run 'setup' before performing partial runs!"


def _invalid(message: str) -> errors.OpError:
    return errors.InvalidArgumentError(None, None, message)


def _carried(tensor: Tensor) -> bool:
    """Whether a tensor's value can be fed back in a later call (plain data only)."""
    dtype = tensor.dtype
    if dtype.is_ref_dtype and not tensor.op.inputs:
        return False  # the variable itself: its consumers may update it
    return dtype.base_dtype not in (dtypes.resource, dtypes.variant)


class _PartialRun:
    def __init__(
        self, graph: Graph, feeds: list[Tensor], fetches: list[Tensor], targets: list[Operation]
    ) -> None:
        self.graph = graph
        self.feeds = {t.name: t for t in feeds}
        self.fed: set[str] = set()
        self.fetches = {t.name: t for t in fetches}
        self.fetched: set[str] = set()
        self.targets = list(targets)
        self.targets_run: set[str] = set()
        # Values of tensors computed or fed in earlier calls, fed to the later ones.
        self.values: dict[str, Any] = {}
        self.executed: set[Operation] = set()
        self.needed = self._needed_ops()
        # An error of the steps run at setup, raised by the next partial_run.
        self.failure: errors.OpError | None = None
        self.lock = threading.Lock()

    def _needed_ops(self) -> set[Operation]:
        """Ops the declared fetches and targets depend on, cut at the declared feeds."""
        needed: set[Operation] = set()
        stack = [t.op for t in self.fetches.values() if t.name not in self.feeds]
        stack += self.targets
        while stack:
            op = stack.pop()
            if op in needed:
                continue
            needed.add(op)
            stack.extend(t.op for t in op.inputs if t.name not in self.feeds)
            stack.extend(op.control_inputs)
        return needed

    def _tensor(self, name: str) -> Tensor:
        tensor = self.graph.as_graph_element(name, allow_tensor=True, allow_operation=False)
        assert isinstance(tensor, Tensor)
        return tensor

    def done(self) -> bool:
        return len(self.fed) == len(self.feeds) and len(self.fetched) == len(self.fetches)

    def check(self, feed_names: Iterable[str], fetch_names: list[str]) -> None:
        """TF's checks, in TF's order, before anything runs (a refused call changes nothing)."""
        feed_names = list(feed_names)
        for name in feed_names:
            if name not in self.feeds:
                raise _invalid(f"The feed {name} was not specified in partial_run_setup.")
            if name in self.fed:
                raise _invalid(f"The feed {name} has already been fed.")
        for name in fetch_names:
            if name not in self.fetches:
                raise _invalid(f"The fetch {name} was not specified in partial_run_setup.")
            if name in self.fetched:
                raise _invalid(f"The fetch {name} has already been fetched.")
        pending = set(self.feeds) - self.fed - set(feed_names)
        stack = [self.fetches[n].op for n in fetch_names]
        seen: set[Operation] = set()
        while stack:
            op = stack.pop()
            for t in op.inputs:
                if t.name in pending:
                    raise _invalid(
                        f"Fetch {t.name} can't be computed from the feeds that have been fed "
                        "so far."
                    )
                if t.op not in seen:
                    seen.add(t.op)
                    stack.append(t.op)
            for c in op.control_inputs:
                if c not in seen:
                    seen.add(c)
                    stack.append(c)

    def _waiting(self, fed: set[str]) -> set[Operation]:
        """Needed ops that depend (through data or control edges) on a feed not yet given."""
        consumers: dict[Operation, list[Operation]] = {}
        for op in self.needed:
            for t in op.inputs:
                if t.name not in self.feeds:
                    consumers.setdefault(t.op, []).append(op)
            for c in op.control_inputs:
                consumers.setdefault(c, []).append(op)
        waiting: set[Operation] = set()
        stack = [
            op
            for op in self.needed
            if any(t.name in self.feeds and t.name not in fed for t in op.inputs)
        ]
        while stack:
            op = stack.pop()
            if op in waiting:
                continue
            waiting.add(op)
            stack.extend(consumers.get(op, ()))
        return waiting

    def step(self, feeds: dict[str, Any], fetch_names: list[str], run: StepFn) -> list[Any]:
        """Runs what the feeds so far let run, returns the requested fetches' values."""
        fed = self.fed | set(feeds)
        ready = self.needed - self._waiting(fed) - self.executed
        values = dict(self.values)
        values.update(feeds)
        step_feeds: dict[str, Any] = {}
        wanted: list[str] = []
        for op in ready:
            for t in op.inputs:
                if t.name in values and t.op not in ready:
                    step_feeds[t.name] = values[t.name]
        for op in ready:
            for t in op.outputs:
                if t.name in self.feeds or not _carried(t):
                    continue
                later = t.name in self.fetches and t.name not in self.fetched
                later = later or any(
                    c in self.needed and c not in ready and c not in self.executed
                    for c in t.consumers()
                )
                if later or t.name in fetch_names:
                    wanted.append(t.name)
        for name in fetch_names:
            if name not in values and name not in wanted:
                wanted.append(name)  # a declared feed's own value, or an uncarried dtype
        targets = [op.name for op in self.targets if op in ready]
        # Ready ops whose outputs nobody fetches in this call still run (TF's executor runs
        # every node it can): name the ends of the ready set as targets.
        wanted_ops = {self._tensor(n).op for n in wanted}
        for op in ready:
            if op in wanted_ops or op.name in targets:
                continue
            if not any(c in ready for t in op.outputs for c in t.consumers()):
                targets.append(op.name)
        results = run(step_feeds, wanted, targets) if (wanted or targets) else []
        got = dict(zip(wanted, results))
        for name, value in got.items():
            values[name] = value
        self.executed |= ready
        self.fed = fed
        self.fetched |= set(fetch_names)
        # Keep only what a later call may still feed or fetch.
        self.values = {n: v for n, v in values.items() if self._still_needed(n)}
        return [got[n] if n in got else values[n] for n in fetch_names]

    def _still_needed(self, name: str) -> bool:
        if name in self.feeds or (name in self.fetches and name not in self.fetched):
            return True
        tensor = self._tensor(name)
        return any(c in self.needed and c not in self.executed for c in tensor.consumers())


class PartialRuns:
    """The partial runs a session has set up, by handle."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._runs: dict[str, _PartialRun] = {}
        self._ids = itertools.count()

    def setup(
        self,
        graph: Graph,
        feeds: list[Tensor],
        fetches: list[Tensor],
        targets: list[Operation],
        step: StepFn,
    ) -> str:
        """A new partial run; what needs no feed runs now, as TF's executor starts at setup."""
        number = next(self._ids)  # TF counts refused setups too
        if not fetches and not targets:
            raise _invalid("Must specify at least one target to fetch or execute.")
        feed_names = {t.name for t in feeds}
        for t in fetches:
            if t.name in feed_names:
                raise _invalid(f"{t.name} is both fed and fetched.")
        run = _PartialRun(graph, feeds, fetches, targets)
        key = (
            ",".join(sorted(feed_names))
            + "->"
            + ",".join(sorted(t.name for t in fetches))
            + "/"
            + ",".join(sorted(op.name for op in targets))
            + "/1/"
        )
        try:
            run.step({}, [], step)
        except errors.OpError as e:
            # TF's executor fails after setup returned: the next partial_run reports it.
            run.failure = e
        handle = f"{key};{number}"
        with self._lock:
            self._runs[handle] = run
        return handle

    def run(self, handle: Any, feeds: dict[str, Any], fetch_names: list[str], step: StepFn) -> Any:
        with self._lock:
            run = self._runs.get(handle) if isinstance(handle, str) else None
        if run is None:
            raise _invalid(_NOT_SET_UP)
        with run.lock:  # one call of a partial run at a time, as TF's run state is locked
            # TF checks the call's feeds and fetches first: a refused call keeps the handle.
            run.check(feeds, fetch_names)
            if run.failure is not None:
                # TF's executor failed in an earlier call: this call's feeds and fetches meet
                # its aborted rendezvous, get the error, and the partial run is over.
                self._drop(handle)
                raise run.failure
            try:
                values = run.step(feeds, fetch_names, step)
            except errors.OpError as e:
                if fetch_names:
                    self._drop(handle)  # the fetch meets the failure: the partial run is over
                    raise
                # A call fetching nothing returns (TF only logs "An error unrelated to this
                # prun"); the handle's next call fails with the error.
                run.failure = e
                return []
            if run.done():
                self._drop(handle)
            return values

    def _drop(self, handle: str) -> None:
        with self._lock:
            self._runs.pop(handle, None)
