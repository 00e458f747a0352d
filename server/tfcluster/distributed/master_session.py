"""One client session on a master: the graph, and a cached plan per run signature.

A plan is pruned, placed and partitioned once per (feeds, fetches, targets); its partitions
are registered with their workers once. The session keeps its most recently used plans (a
bounded cache): a plan it drops has its graphs deregistered once no step uses it. A step
fans RunGraph out to every partition's worker in parallel; the first error aborts the step
everywhere.
"""

from __future__ import annotations

import contextlib
import functools
import itertools
import random
import re
import select
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, cast

from tfcluster.distributed import placement_log
from tfcluster.distributed.devices import filtered_tasks
from tfcluster.distributed.held_run_graph import HeldRunGraph
from tfcluster.distributed.interfaces import (
    ForwardedTensors,
    ForwardingWorker,
    PendingRunGraph,
    PipelinedWorker,
    ReservedRunGraph,
    RunGraphResult,
    StepRelay,
    WorkerCacheInterface,
    WorkerInterface,
)
from tfcluster.distributed.worker import GRAPH_HANDLE_NOT_FOUND, graph_handle_incarnation
from tfcluster.framework import dtypes, errors, op_def_registry, tensor_shape
from tfcluster.protos import config_pb2, step_stats_pb2
from tfcluster.runtime import cancellation
from tfcluster.runtime import partition as partitioning
from tfcluster.runtime import placement as placing
from tfcluster.runtime.commutative_inputs import sorted_addn_inputs
from tfcluster.runtime.constant_folding import fold_constants
from tfcluster.runtime.constant_push_down import push_constants_down
from tfcluster.runtime.early_sends import early_sends
from tfcluster.runtime.graph_cycles import check_acyclic
from tfcluster.runtime.graph_ir import Node, split_tensor_name
from tfcluster.runtime.identity_bypass import bypass_identities
from tfcluster.runtime.involution_removal import remove_involutions
from tfcluster.runtime.kernel_fusion import fuse_kernels
from tfcluster.runtime.log_softmax_fusion import fuse_log_softmax
from tfcluster.runtime.loop_frames import keep_loops_on_one_task
from tfcluster.runtime.neutral_operands import forward_neutral_operands
from tfcluster.runtime.pow_rewrite import rewrite_constant_powers
from tfcluster.runtime.sqrt_division import rsqrt_divisions
from tfcluster.runtime.unread_results import unread_to_noops

# From the system's randomness: a program's random.seed() must give it the sequence it gives
# under TensorFlow, which never draws from Python's global generator.
_step_ids = itertools.count(random.SystemRandom().getrandbits(40) << 20)
# How many plans (run signatures) a session keeps registered by default.
DEFAULT_MAX_PLANS = 256


def next_step_id() -> int:
    return next(_step_ids)


# Passes of the constant push-down at most: each moves constants one level down a tree.
_PUSH_DOWN_PASSES = 64


def _prune(
    nodes: Mapping[str, Node], feeds: Sequence[str], fetches: Sequence[str], targets: Sequence[str]
) -> list[str]:
    """The nodes the fetches and targets need, in the graph's order."""
    fed = set(feeds)
    needed: set[str] = set()
    stack = [split_tensor_name(f)[0] for f in fetches if f not in fed] + list(targets)
    while stack:
        name = stack.pop()
        if name in needed:
            continue
        needed.add(name)
        node = nodes[name]
        for src, idx in node.inputs:
            if f"{src}:{idx}" not in fed and src not in needed:
                stack.append(src)
        for c in node.control_inputs:
            # A control input on a fed Placeholder is met by the fed value, as in TF (its
            # control edges move to the feed); the Placeholder itself never runs.
            if c not in needed and not (nodes[c].op == "Placeholder" and f"{c}:0" in fed):
                stack.append(c)
    return [n for n in nodes if n in needed]


def _push_down_and_fold(
    nodes: dict[str, Node],
    needed: list[str],
    signature: _Signature,
    dtype_of: Mapping[str, dtypes.DType],
) -> list[str]:
    """Constants pushed down Add/Sub and Mul/Div trees and folded again, until nothing
    changes (TF's constant folding loop; each pass moves them one level down): `nodes` is
    updated in place, the nodes then needed are returned."""
    feeds, fetches, targets = signature
    for _ in range(_PUSH_DOWN_PASSES):
        pushed = push_constants_down(nodes, needed, feeds, fetches, targets)
        if not pushed:
            break
        nodes.update(pushed)
        nodes.update(fold_constants(nodes, needed, set(feeds), dtype_of))
        needed = _prune(nodes, feeds, fetches, targets)
    return needed


@dataclass
class _PlannedPartition:
    task: str
    worker: WorkerInterface
    partition: partitioning.Partition
    graph_handle: str
    # Positions of this partition's feeds in the signature's sorted feed list.
    feed_positions: tuple[int, ...]
    # Whether it exchanges tensors with other partitions (then the step must be cleaned up).
    needs_rendezvous: bool = False
    # Rendezvous keys of tensors the master's own partition pushes with this partition's
    # RunGraph, which it holds back until they are made (runtime/early_sends.py).
    pushed_keys: tuple[str, ...] = ()


@dataclass(frozen=True)
class _RelayPartition:
    """A plan's one partition, on a worker that forwards tensors (see _relay_partition)."""

    part: _PlannedPartition
    worker: ForwardingWorker


@dataclass
class _Plan:
    parts: list[_PlannedPartition]
    # For each fetch: (partition index, position in that partition's fetches), or
    # (-1, feed position) when the fetch is itself fed.
    fetch_sources: list[tuple[int, int]]
    # The partition the calling thread runs itself (the local task's, when there is one).
    inline_index: int = 0
    # Fed placeholders: (feed position, tensor name, dtype, static shape) that every fed value
    # must match, so a client that bypasses the Python client still cannot slip a wrong value in.
    feed_checks: tuple[tuple[int, str, dtypes.DType, Any], ...] = ()
    # Steps using it now; a plan dropped from the cache (retired) is deregistered when the
    # last one ends.
    users: int = 0
    retired: bool = False
    # Tasks found restarted (a new incarnation) when this plan registered its graphs there,
    # until its first step ends: that step failing on state the restart lost is an abort.
    restarted_tasks: tuple[str, ...] = ()
    _node_tasks: dict[str, str] | None = None

    def task_of_node(self) -> dict[str, str]:
        """Node name -> the task of the partition running it (a node copied into several
        partitions, a small constant, keeps the first)."""
        if self._node_tasks is None:
            found: dict[str, str] = {}
            for part in self.parts:
                for node in part.partition.nodes:
                    found.setdefault(node.name, part.task)
            self._node_tasks = found
        return self._node_tasks


# How a worker's error names the node that failed (TF's wire form, error_interpolation.py).
_NODE_TAG = re.compile(r"\{\{node ([^}]+)\}\}")

# Finds the devices of every task of the cluster, waiting for them until the deadline
# (distributed/devices.py: the master's ClusterDevices).
# (deadline, the tasks a session sees: device_filters) -> their devices.
DeviceSource = Callable[[float | None, Sequence[str]], list[placing.TaskDevices]]
# What a plan is made for: (sorted feed names, fetch names, target names).
_Signature = tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]
# A step's feeds: values in sorted-name order, or tensors a transport relays undecoded.
_FeedValues = list[Any] | ForwardedTensors


class _DtypeTable(dict[str, dtypes.DType]):
    """Tensor dtypes for typing _Recv nodes; a missing one is the client's error."""

    def __missing__(self, key: str) -> dtypes.DType:
        raise errors.InvalidArgumentError(
            None,
            None,
            f"The dtype of tensor '{key}' is unknown: the client sent no output types for its node",
        )


class MasterSession:
    def __init__(
        self,
        handle: str,
        worker_cache: WorkerCacheInterface,
        local_task: str,
        task_devices: DeviceSource,
        config: config_pb2.ConfigProto | None = None,
        max_plans: int = DEFAULT_MAX_PLANS,
    ) -> None:
        if max_plans < 1:
            raise ValueError(f"max_plans must be at least 1, got {max_plans}")
        self.handle = handle
        self.max_plans = max_plans
        self.worker_cache = worker_cache
        self.local_task = local_task
        self.config = config or config_pb2.ConfigProto()
        self.task_devices = task_devices
        self._nodes: dict[str, Node] = {}
        self._dtypes: _DtypeTable = _DtypeTable()
        # Least recently used first.
        self._plans: OrderedDict[_Signature, _Plan] = OrderedDict()
        # A lock per signature being planned (planning calls other tasks: not under _lock).
        self._planning: dict[_Signature, threading.Lock] = {}
        # Tasks holding graphs of this session (closing the session deletes them there).
        self._registered_tasks: set[str] = set()
        # Task -> the incarnation its graph handles named when this session last registered
        # there: a new one means the task restarted and lost its variables and queues.
        self._incarnations: dict[str, str] = {}
        self._lock = threading.Lock()
        self._closed = False
        self._pool: ThreadPoolExecutor | None = None
        self.graph_version = 0
        # step id -> the partitions of a step running now (close and callers cancel them).
        self._running: dict[int, list[_PlannedPartition]] = {}
        # Steps in progress (planning included), and when the last one began or ended: the
        # master collects a session idle for long (Master.collect_idle_sessions).
        self._active = 0
        self._last_used = time.monotonic()
        # ConfigProto.log_device_placement: the graph version whose placement was printed.
        self._log_placement = self.config.log_device_placement
        self._logged_version = 0
        # Stateful nodes of the last whole-graph placement: TF's session keeps their devices
        # when its graph grows, so its placer logs them where they stand in the graph.
        self._kept_stateful: frozenset[str] = frozenset()
        # The steps (sorted feeds, fetches, targets) whose pruned graph's placement was printed.
        self._logged_steps: set[_Signature] = set()
        # The graph version whose every node was placed, and the error placing it raised.
        self._placed_version = 0
        self._placement_error: errors.OpError | None = None
        # A server's master names the task a failed partition ran on, as TF's does; an
        # in-process session (no addresses) reports errors as TF's DirectSession, unnamed.
        self._names_failing_tasks = bool(worker_cache.addresses())

    # ---- graph -----------------------------------------------------------------------
    def extend(self, nodes: Sequence[Node], output_dtypes: Mapping[str, dtypes.DType]) -> None:
        """Adds nodes (validated: unique names, inputs that exist) to the session's graph."""
        with self._lock:
            self._check_open()
            self._last_used = time.monotonic()
            new = {}
            for n in nodes:
                if n.name in self._nodes or n.name in new:
                    raise errors.InvalidArgumentError(
                        None, None, f"Node '{n.name}' already exists in the session's graph"
                    )
                new[n.name] = n
            for n in nodes:
                for src, _ in n.inputs:
                    if src not in self._nodes and src not in new:
                        raise errors.InvalidArgumentError(
                            None, None, f"Node '{n.name}': input '{src}' is not in the graph"
                        )
                for c in n.control_inputs:
                    if c not in self._nodes and c not in new:
                        raise errors.InvalidArgumentError(
                            None, None, f"Node '{n.name}': control input '{c}' is not in the graph"
                        )
            self._nodes.update(new)
            self._dtypes.update(output_dtypes)
            self.graph_version += 1

    @property
    def num_nodes(self) -> int:
        return len(self._nodes)

    @property
    def num_plans(self) -> int:
        return len(self._plans)

    def idle_seconds(self, now: float) -> float:
        """How long no step has run or been planned (0 while one is)."""
        with self._lock:
            return 0.0 if self._active else now - self._last_used

    # ---- steps -----------------------------------------------------------------------
    def run(
        self,
        feeds: Mapping[str, Any],
        fetches: Sequence[str],
        targets: Sequence[str],
        options: config_pb2.RunOptions | None = None,
    ) -> tuple[list[Any], step_stats_pb2.StepStats | None]:
        """Runs a step: the fetched values, and the step's stats when `options` trace it."""
        values, stats = self._run(feeds, fetches, targets, options, None)
        return cast(list[Any], values), stats  # without a relay, fetches are always decoded

    def run_relayed(
        self,
        feeds: Mapping[str, Any],
        fetches: Sequence[str],
        targets: Sequence[str],
        options: config_pb2.RunOptions | None,
        relay: StepRelay,
    ) -> tuple[list[Any] | ForwardedTensors, step_stats_pb2.StepStats | None]:
        """Runs a step for a transport that relays tensors (RunStepStream): when the step's
        one partition runs on another task, the fetched tensors come back undecoded
        (ForwardedTensors) and `relay.feeds`, if given, stand for `feeds` and pass through
        this task as they are; otherwise they are decoded here."""
        return self._run(feeds, fetches, targets, options, relay)

    def _run(
        self,
        feeds: Mapping[str, Any],
        fetches: Sequence[str],
        targets: Sequence[str],
        options: config_pb2.RunOptions | None,
        relay: StepRelay | None,
    ) -> tuple[list[Any] | ForwardedTensors, step_stats_pb2.StepStats | None]:
        if relay is not None and relay.feeds is not None:
            feeds = dict.fromkeys(relay.feed_names)
        signature = (tuple(sorted(feeds)), tuple(fetches), tuple(targets))
        deadline = self._deadline(options)
        trace = bool(
            options is not None and options.trace_level >= config_pb2.RunOptions.SOFTWARE_TRACE
        )
        if self.config.graph_options.place_pruned_graph:
            if self._log_placement and self._names_failing_tasks:
                # A server's master places (and logs) its whole graph all the same.
                if self._logged_version != self.graph_version:
                    self._print_placement(deadline)
            elif self._log_placement:
                self._print_pruned_placement(signature, deadline)
        elif self._placed_version != self.graph_version or self._placement_error is not None:
            self._place_whole_graph(deadline)
        with self._lock:
            self._check_open()
            self._active += 1
            plan = self._plans.get(signature)
            if plan is not None:
                self._plans.move_to_end(signature)
                plan.users += 1
        in_use: list[_Plan] = []
        try:
            return self._run_plan(plan, signature, feeds, relay, trace, deadline, in_use)
        except errors.DeadlineExceededError:
            if deadline is None or time.monotonic() < deadline:
                raise
            raise self._step_timed_out() from None
        finally:
            self._release(in_use)

    def _step_timed_out(self) -> errors.OpError:
        """The error of a step that ran past its operation_timeout_in_ms / timeout_in_ms, as
        TF's session gives it: no node named, whichever op was waiting (a local session's
        "Timed out waiting for notification", a server's master's "Operation timed out.")."""
        message = (
            "Operation timed out."
            if self._names_failing_tasks
            else "Timed out waiting for notification"
        )
        return errors.DeadlineExceededError(None, None, message)

    def _run_plan(
        self,
        plan: _Plan | None,
        signature: _Signature,
        feeds: Mapping[str, Any],
        relay: StepRelay | None,
        trace: bool,
        deadline: float | None,
        in_use: list[_Plan],
    ) -> tuple[list[Any] | ForwardedTensors, step_stats_pb2.StepStats | None]:
        """The step of `signature` by its plan (made now when None), the plans it used
        added to `in_use`."""
        if plan is None:
            plan = self._make_plan(signature, deadline)
        in_use.append(plan)
        values = self._feed_values(plan, signature[0], feeds, relay, trace)
        try:
            return self._attempt_after_restarts(plan, values, relay, trace, deadline)
        except errors.AbortedError as e:
            if GRAPH_HANDLE_NOT_FOUND not in e.message:
                raise
            # A task restarted and lost this session's graphs: they are registered again
            # on the next plan. A one-partition step failed before running anything, so it
            # runs once more now; a larger one may have run in part, and relayed feeds were
            # consumed by the attempt: then the caller decides.
            self._forget_incarnations(plan)
            self.invalidate_plans()
            if len(plan.parts) > 1:
                raise errors.AbortedError(
                    None,
                    None,
                    f"{e.message}. A task of the cluster restarted since this session "
                    "registered its graphs; they are registered again on the next run.",
                ) from e
            if not isinstance(values, list):
                raise
            plan = self._make_plan(signature, deadline)
            in_use.append(plan)
            plan.restarted_tasks = tuple(p.task for p in plan.parts)
            return self._attempt_after_restarts(plan, values, relay, trace, deadline)

    def _attempt_after_restarts(
        self,
        plan: _Plan,
        feeds: _FeedValues,
        relay: StepRelay | None,
        trace: bool,
        deadline: float | None,
    ) -> tuple[list[Any] | ForwardedTensors, step_stats_pb2.StepStats | None]:
        """A plan's step; the first step of a plan registered on a task that restarted since
        this session last ran there fails with AbortedError, not FailedPreconditionError, when
        what it lacks (an uninitialized variable) is what the restart lost: as TF's master
        reports a restarted worker, so MonitoredSession makes a new session and waits for the
        chief to restore the model instead of stopping."""
        restarted, plan.restarted_tasks = plan.restarted_tasks, ()
        try:
            return self._attempt(plan, feeds, relay, trace, deadline)
        except errors.FailedPreconditionError as lost:
            if not restarted:
                raise
            raise _lost_to_restart(lost, restarted) from lost

    def _forget_incarnations(self, plan: _Plan) -> None:
        """The plan's tasks are registered again as they are now: the restart that lost its
        graphs was reported by this step's AbortedError already."""
        with self._lock:
            for part in plan.parts:
                self._incarnations.pop(part.task, None)

    def _place_whole_graph(self, deadline: float | None) -> None:
        """As TF 1.15's sessions place the session's whole graph each time it grew (their
        base graph), not only the nodes a step needs: a node no device can take fails every
        step, needed or not, and log_device_placement prints the nodes placed before it. An
        InteractiveSession's config (place_pruned_graph) places only what each step needs."""
        with self._lock:
            version = self.graph_version
            fresh = self._placed_version != version
            nodes = dict(self._nodes) if fresh else {}
            output_names = list(self._dtypes) if fresh else []
        if fresh:
            kept = self._kept_stateful
            order = placement_log.placement_order(nodes, output_names, kept)
            error: errors.OpError | None = None
            placement: dict[str, str] = {}
            try:
                placement = self._place(nodes, order, deadline)
            except errors.InvalidArgumentError as e:  # not a task late to answer: kept
                error = e
            with self._lock:
                self._placed_version, self._placement_error = version, error
                if error is None:
                    self._kept_stateful = placement_log.stateful_nodes(placement, nodes)
            if self._log_placement and self._logged_version != version:
                self._logged_version = version
                if error is not None:
                    placement = self._placed_before(nodes, order, error, deadline) or {}
                text = placement_log.placement_text(nodes, output_names, placement, kept)
                placement_log.print_placement(text)
        failed = self._placement_error
        if failed is not None:
            raise type(failed)(failed.node_def, failed.op, failed.message)

    def _placed_before(
        self,
        nodes: Mapping[str, Node],
        order: list[str],
        error: errors.OpError,
        deadline: float | None,
    ) -> dict[str, str] | None:
        """The placement of the nodes TF's placer assigns before the one `error` names (None
        when the error names no node of `order`)."""
        needed = order
        while True:
            failed = placement_log.unplaceable_node(error.message)
            if failed not in needed:
                return None
            needed = needed[: needed.index(failed)]
            try:
                return self._place(nodes, needed, deadline)
            except errors.OpError as e:
                error = e

    def _print_pruned_placement(self, signature: _Signature, deadline: float | None) -> None:
        """As TF 1.15's DirectSession places (and logs) each new step's pruned graph when its
        config says to (place_pruned_graph); steps that differ only in the order of their
        feeds, fetches or targets are one step to it."""
        feeds, fetches, targets = signature
        key = (tuple(sorted(feeds)), tuple(sorted(fetches)), tuple(sorted(targets)))
        with self._lock:
            if key in self._logged_steps:
                return
            self._logged_steps.add(key)
            try:
                self._check_names(feeds, fetches, targets)
            except errors.OpError:  # the step itself reports it
                return
            nodes = dict(self._nodes)
            step_nodes = {n: nodes[n] for n in self._prune(feeds, fetches, targets)}
            output_names = list(self._dtypes)
        order = placement_log.placement_order(step_nodes, output_names)
        client_device = f"{self.worker_cache.tasks()[0]}/device:CPU:0"
        try:
            placement = self._place(nodes, order, deadline)
        except errors.OpError as e:
            before = self._placed_before(nodes, order, e, deadline)
            if before:
                placement_log.print_placement(
                    placement_log.placement_text(step_nodes, output_names, before)
                )
            return
        placement_log.print_placement(
            placement_log.pruned_step_text(
                step_nodes, output_names, placement, feeds, fetches, client_device
            )
        )

    def _print_placement(self, deadline: float | None) -> None:
        """As TF 1.15 places (and logs) the session's whole graph each time it grew."""
        with self._lock:
            if self._logged_version == self.graph_version:
                return
            self._logged_version = self.graph_version
            nodes = dict(self._nodes)
            output_names = list(self._dtypes)
        # TF's placer logs each node as it assigns it: when one cannot be placed, those before
        # it are printed; the runs that need it say why it cannot be placed.
        order = placement_log.placement_order(nodes, output_names)
        try:
            placement: dict[str, str] | None = self._place(nodes, order, deadline)
        except errors.OpError as e:
            placement = self._placed_before(nodes, order, e, deadline)
        if placement is None:
            return
        placement_log.print_placement(placement_log.placement_text(nodes, output_names, placement))

    def _place(
        self, nodes: Mapping[str, Node], needed: Iterable[str], deadline: float | None
    ) -> dict[str, str]:
        """Devices for `needed` nodes on the tasks this session sees (device_filters,
        device_count), as ConfigProto's placement settings say."""
        seen = filtered_tasks(self.worker_cache.tasks(), self.config.device_filters)
        tasks = placing.limit_devices(self.task_devices(deadline, seen), self.config.device_count)
        return placing.place(
            nodes, needed, tasks, allow_soft_placement=self.config.allow_soft_placement
        )

    def _release(self, plans: list[_Plan]) -> None:
        """A step is done with `plans` (made in use for it): a retired one nobody uses any
        more has its graphs deregistered."""
        with self._lock:
            self._active -= 1
            self._last_used = time.monotonic()
            done = []
            for plan in plans:
                plan.users -= 1
                if plan.retired and plan.users == 0:
                    done.append(plan)
        for plan in done:
            self._deregister(plan)

    def _feed_values(
        self,
        plan: _Plan,
        feed_names: tuple[str, ...],
        feeds: Mapping[str, Any],
        relay: StepRelay | None,
        trace: bool,
    ) -> _FeedValues:
        """The feeds in `feed_names` order, checked against their placeholders; relayed
        feeds stay in transit when the step can pass them on as they are."""
        if relay is not None and relay.feeds is not None:
            in_transit = relay.feeds
            if plan.feed_checks:
                # Checked from their descriptions: the bytes stay in transit.
                signatures = (_Described(*s) for s in in_transit.signatures())
                described = dict(zip(relay.feed_names, signatures))
                _check_fed_values(plan.feed_checks, [described[n] for n in feed_names])
            part = self._relay_partition(plan, trace)
            if part is not None and tuple(part.part.partition.feeds) == relay.feed_names:
                return in_transit
            feeds = dict(zip(relay.feed_names, in_transit.materialize()))
        values = [feeds[n] for n in feed_names]
        if plan.feed_checks:
            _check_fed_values(plan.feed_checks, values)
        return values

    def _attempt(
        self,
        plan: _Plan,
        feeds: _FeedValues,
        relay: StepRelay | None,
        trace: bool,
        deadline: float | None,
    ) -> tuple[list[Any] | ForwardedTensors, step_stats_pb2.StepStats | None]:
        part = self._relay_partition(plan, trace) if relay is not None else None
        if part is not None and relay is not None:
            if isinstance(feeds, list):
                feeds = [feeds[i] for i in part.part.feed_positions]
            return self._run_relayed(plan, part, feeds, relay.reader, deadline), None
        assert isinstance(feeds, list)  # relayed feeds come only with a relay partition
        results = self._execute(plan, feeds, trace, deadline)
        out = []
        for part_index, pos in plan.fetch_sources:
            out.append(feeds[pos] if part_index < 0 else results[part_index].fetches[pos])
        stats = self._step_stats(plan, results) if trace else None
        return out, stats

    def _relay_partition(self, plan: _Plan, trace: bool) -> _RelayPartition | None:
        """The partition a relaying transport may stream tensors to and from: the step's only
        one, on another task whose worker forwards (ForwardingWorker), the source of every
        fetch."""
        if trace or len(plan.parts) != 1:
            return None
        part = plan.parts[0]
        if part.needs_rendezvous or self.worker_cache.is_local(part.task):
            return None
        if not isinstance(part.worker, ForwardingWorker):
            return None
        if any(index != 0 for index, _ in plan.fetch_sources):
            return None
        return _RelayPartition(part, part.worker)

    def _run_relayed(
        self,
        plan: _Plan,
        relayed: _RelayPartition,
        feeds: _FeedValues,
        reader: str,
        deadline: float | None,
    ) -> list[Any] | ForwardedTensors:
        """Runs the one remote partition with its fetches relayed undecoded when they come
        in the order asked for (decoded and reordered otherwise)."""
        part = relayed.part
        step_id = next_step_id()
        with self._cancellable(step_id, [part]):
            if plan.fetch_sources == [(0, i) for i in range(len(plan.fetch_sources))]:
                result = relayed.worker.run_graph_forward(
                    self.handle, part.graph_handle, step_id, feeds, deadline, reader
                )
                assert result.forwarded is not None
                return result.forwarded
            result = relayed.worker.run_graph(
                self.handle, part.graph_handle, step_id, feeds, False, deadline
            )
        return [result.fetches[pos] for _, pos in plan.fetch_sources]

    @contextlib.contextmanager
    def _cancellable(self, step_id: int, parts: list[_PlannedPartition]) -> Iterator[None]:
        """While the step runs, closing the session or its caller going away (the call this
        thread serves) aborts it on every task it runs on, as TF cancels a step's
        CancellationManager."""
        with self._lock:
            if self._closed:
                raise _closed_error(self.handle)
            self._running[step_id] = parts
        caller = cancellation.current()
        token = None
        if caller is not None:
            token = caller.register(
                lambda: _abort(
                    step_id,
                    parts,
                    errors.CancelledError(
                        None, None, f"Step {step_id} was cancelled: its caller went away"
                    ),
                )
            )
        try:
            yield
        finally:
            if caller is not None:
                caller.deregister(token)
            with self._lock:
                self._running.pop(step_id, None)

    def _deadline(self, options: config_pb2.RunOptions | None) -> float | None:
        ms = options.timeout_in_ms if options is not None and options.timeout_in_ms > 0 else 0
        ms = ms or self.config.operation_timeout_in_ms
        return time.monotonic() + ms / 1000.0 if ms > 0 else None

    def _execute(
        self, plan: _Plan, feed_values: list[Any], trace: bool, deadline: float | None
    ) -> list[RunGraphResult]:
        if not plan.parts:
            return []  # every fetch is fed
        step_id = next_step_id()
        with self._cancellable(step_id, plan.parts):
            if len(plan.parts) == 1 and not plan.parts[0].needs_rendezvous:
                part = plan.parts[0]
                feeds = [feed_values[i] for i in part.feed_positions]
                try:
                    return [
                        part.worker.run_graph(
                            self.handle, part.graph_handle, step_id, feeds, trace, deadline
                        )
                    ]
                except errors.OpError as e:
                    raise self._from_task(e, part.task, plan) from None
            return self._run_parts(plan, step_id, feed_values, trace, deadline)

    def _from_task(self, err: BaseException, task: str, plan: _Plan) -> BaseException:
        """`err` of a partition that ran on `task`, its message starting "From <task>:" as
        TF's master reports a worker's failure. An error a partition received from a peer
        (its step aborted there) names the task of the node that failed, as TF reports the
        original error rather than the ones derived from it."""
        if not self._names_failing_tasks or not isinstance(err, errors.OpError):
            return err
        if err.message.startswith("From /job:"):
            return err
        tag = _NODE_TAG.search(err.message)
        if tag is not None:
            task = plan.task_of_node().get(tag.group(1), task)
        named = errors.OpError.__new__(type(err))
        named.__dict__.update(err.__dict__)
        named._message = f"From {task}:\n{err.message}"
        named.args = (named._message,)
        named.__traceback__ = err.__traceback__
        return named

    def _run_parts(
        self, plan: _Plan, step_id: int, feed_values: list[Any], trace: bool, deadline: float | None
    ) -> list[RunGraphResult]:
        """Runs every partition at once; the first error aborts the rest. This thread sends
        the partitions of workers that take RunGraph from it (PipelinedWorker), runs its own
        partition, then reads their answers: no other thread on the step's path. The other
        workers' partitions run on the pool."""
        pool: ThreadPoolExecutor | None = None
        first_error: list[BaseException] = []
        lock = threading.Lock()

        def fail(err: BaseException) -> None:
            with lock:
                if first_error:
                    return
                first_error.append(err)
            for part in plan.parts:
                # Best effort: the step has failed already.
                with contextlib.suppress(Exception):
                    part.worker.abort_step(step_id, err)

        def on_done(task: str, f: Future[RunGraphResult]) -> None:
            err = f.exception()
            if err is not None:
                fail(self._from_task(err, task, plan))

        def hold(
            part: _PlannedPartition, reserved: ReservedRunGraph, feeds: list[Any]
        ) -> HeldRunGraph:
            """`part`'s RunGraph, sent with the tensors it pushes once the master's own
            partition has made them; failing to send it fails the step."""

            def start(pushed: Sequence[tuple[str, Any]]) -> PendingRunGraph:
                return reserved.start(
                    self.handle, part.graph_handle, step_id, feeds, pushed, trace, deadline
                )

            return HeldRunGraph(
                reserved,
                part.pushed_keys,
                start,
                lambda e: fail(self._from_task(e, part.task, plan)),
            )

        results: list[Any] = [None] * len(plan.parts)
        futures: dict[int, Future[RunGraphResult]] = {}
        pending: dict[int, PendingRunGraph] = {}
        held: dict[int, HeldRunGraph] = {}
        local = plan.parts[plan.inline_index]
        # Tensors are pushed from the master's own partition, run by this thread.
        can_push = self.worker_cache.is_local(local.task)
        try:
            for i, part in enumerate(plan.parts):
                if first_error:
                    break  # a partition could not be sent: the step has failed
                feeds = [feed_values[k] for k in part.feed_positions]
                if isinstance(part.worker, PipelinedWorker):
                    if can_push and part.pushed_keys:
                        reserved = part.worker.reserve_run_graph(deadline)
                        if reserved is not None:
                            held[i] = hold(part, reserved, feeds)
                            held[i].watch(local.worker, step_id)
                            continue
                    try:
                        sent = part.worker.start_run_graph(
                            self.handle, part.graph_handle, step_id, feeds, trace, deadline
                        )
                    except Exception as e:
                        fail(self._from_task(e, part.task, plan))
                        continue
                    if sent is not None:
                        pending[i] = sent
                        continue
                if i == plan.inline_index:
                    continue
                pool = pool or self._get_pool()
                f = pool.submit(
                    part.worker.run_graph,
                    self.handle,
                    part.graph_handle,
                    step_id,
                    feeds,
                    trace,
                    deadline,
                )
                f.add_done_callback(functools.partial(on_done, part.task))
                futures[i] = f
            inline = plan.inline_index
            if inline not in pending and not first_error:
                part = plan.parts[inline]
                try:
                    results[inline] = part.worker.run_graph(
                        self.handle,
                        part.graph_handle,
                        step_id,
                        [feed_values[k] for k in part.feed_positions],
                        trace,
                        deadline,
                    )
                except Exception as e:
                    fail(self._from_task(e, part.task, plan))
            while held:
                i, h = held.popitem()
                sent = h.finish(bool(first_error))
                if sent is not None:
                    pending[i] = sent
            _collect(
                pending, results, lambda i, e: fail(self._from_task(e, plan.parts[i].task, plan))
            )
            for i, f in futures.items():
                try:
                    results[i] = f.result()
                except Exception as e:
                    fail(self._from_task(e, plan.parts[i].task, plan))
        except BaseException as e:
            fail(e)  # e.g. KeyboardInterrupt: the other partitions must not wait for us
            for i, h in held.items():
                sent = h.finish(True)
                if sent is not None:
                    pending[i] = sent
            for sent in pending.values():
                sent.abandon()
            raise
        # Workers drop a step's rendezvous by themselves once it is done; a failed step was
        # aborted (and dropped) everywhere by fail().
        if first_error:
            raise first_error[0]
        return results

    def _get_pool(self) -> ThreadPoolExecutor:
        if self._pool is None:
            with self._lock:
                if self._pool is None:
                    self._pool = ThreadPoolExecutor(max_workers=64, thread_name_prefix="master")
        return self._pool

    def _step_stats(self, plan: _Plan, results: list[RunGraphResult]) -> step_stats_pb2.StepStats:
        stats = step_stats_pb2.StepStats()
        by_device: dict[str, step_stats_pb2.DeviceStepStats] = {}
        for r in results:
            for ds in r.step_stats:
                by_device[ds.device] = ds
        # The session's own task first (it always takes part, as in TensorFlow's traces).
        local_devices = [d for d in by_device if d.startswith(self.local_task + "/")]
        if not local_devices:
            ds = stats.dev_stats.add(device=f"{self.local_task}/device:CPU:0")
            ds.node_stats.add(node_name="_SOURCE", all_start_micros=int(time.time() * 1e6))
        for d in local_devices:
            stats.dev_stats.add().CopyFrom(by_device.pop(d))
        for ds in by_device.values():
            stats.dev_stats.add().CopyFrom(ds)
        return stats

    # ---- planning --------------------------------------------------------------------
    def _make_plan(self, signature: _Signature, deadline: float | None) -> _Plan:
        """The signature's plan: pruned, placed, partitioned, registered with the workers.
        The session's lock is never held across a call to another task: one thread plans a
        signature (others wait for it, up to their deadline), other steps go on."""
        with self._lock:
            plan = self._plans.get(signature)
            if plan is not None:
                plan.users += 1
                return plan
            planning = self._planning.setdefault(signature, threading.Lock())
        timeout = -1 if deadline is None else max(0.0, deadline - time.monotonic())
        if not planning.acquire(timeout=timeout):
            raise errors.DeadlineExceededError(
                None, None, "Timed out waiting for another thread to plan the same step"
            )
        try:
            with self._lock:
                plan = self._plans.get(signature)
                if plan is not None:
                    plan.users += 1
                    return plan
                feeds, fetches, targets = signature
                self._check_names(feeds, fetches, targets)
                needed = self._prune(feeds, fetches, targets)
                self._validate_feeds(feeds, needed)
                check_acyclic(self._nodes, needed, feeds)
                nodes = dict(self._nodes)  # extend may add nodes meanwhile
                feed_checks = self._feed_checks(feeds)
            if self._folds_constants():
                grappler_folds = self._rewriter_runs("constant_folding")
                folded = fold_constants(
                    nodes, needed, set(feeds), self._dtypes, reciprocals=grappler_folds
                )
                if folded:
                    nodes.update(folded)
                    # What only the folded nodes read is not needed any more.
                    needed = _prune(nodes, feeds, fetches, targets)
                forwarded: dict[str, Node] = {}
                if grappler_folds:
                    # x + 0, x * 1, ... as Identities of x (bypassed below).
                    forwarded = forward_neutral_operands(nodes, needed, feeds, fetches, targets)
                    if forwarded:
                        nodes.update(forwarded)
                    needed = _push_down_and_fold(nodes, needed, signature, self._dtypes)
                if self._rewriter_runs("dependency_optimization"):
                    # Results no node reads (gated gradients): NoOps, as TF's optimizer does.
                    noops = unread_to_noops(nodes, needed, feeds, fetches, targets)
                    if noops:
                        nodes.update(noops)
                        needed = _prune(nodes, feeds, fetches, targets)
                    rewired = bypass_identities(nodes, needed, feeds, fetches, targets)
                    if rewired:
                        nodes.update(rewired)
                        needed = _prune(nodes, feeds, fetches, targets)
                    if grappler_folds and (noops or rewired or forwarded):
                        # TF's optimizers run twice: a child read through a gradient's tuple
                        # Identity, or also by a gradient nobody reads, is read once now.
                        needed = _push_down_and_fold(nodes, needed, signature, self._dtypes)
                # TF's optimizer fuses kernels too (conv + bias + relu, ...).
                fused = (
                    fuse_kernels(nodes, needed, feeds, fetches, targets)
                    if self._grappler_runs()
                    else None
                )
                if fused:
                    nodes.update(fused)
                    needed = _prune(nodes, feeds, fetches, targets)
            if self._rewriter_runs("arithmetic_optimization"):
                # AddN adds its inputs in the order TF's arithmetic optimizer sorts them.
                nodes.update(sorted_addn_inputs(nodes, needed))
                # f(chain(f(x))) for an involution f as TF leaves it (a fetched f stays).
                involutions = remove_involutions(
                    nodes,
                    needed,
                    feeds,
                    fetches,
                    targets,
                    folds_reductions=self._folds_constants()
                    and self._rewriter_runs("constant_folding"),
                )
                if involutions:
                    nodes.update(involutions)
                    needed = _prune(nodes, feeds, fetches, targets)
                # Log(Softmax(x)) as LogSoftmax(x).
                fused_log = fuse_log_softmax(nodes, needed, feeds, fetches, targets)
                if fused_log:
                    nodes.update(fused_log)
                    needed = _prune(nodes, feeds, fetches, targets)
                # Pow by a constant 2, 3, 0.5, -0.5 or -1 as Square, x * Square, Sqrt, ...
                powers = rewrite_constant_powers(nodes, needed, feeds)
                if powers:
                    nodes.update(powers)
                    needed = _prune(nodes, feeds, fetches, targets)
                # x / Sqrt(y) as x * Rsqrt(y) (after the powers: a Pow by 0.5 is a Sqrt now).
                rsqrts = rsqrt_divisions(nodes, needed, feeds, fetches, targets)
                if rsqrts:
                    nodes.update(rsqrts)
            placement = self._place(nodes, needed, deadline)
            placement = keep_loops_on_one_task(nodes, needed, feeds, placement)
            parts = partitioning.partition(nodes, placement, feeds, fetches, targets, self._dtypes)
            planned, restarted = self._register(parts, feeds, deadline)
            local = parts.get(self.local_task)
            if local is not None and len(planned) > 1:
                pushes = early_sends(local)
                for pp in planned:
                    if pp.task != self.local_task:
                        pp.pushed_keys = pushes.get(pp.task, ())
            fetch_sources = []
            for f in fetches:
                if f in feeds:
                    fetch_sources.append((-1, feeds.index(f)))
                    continue
                for i, pp in enumerate(planned):
                    if f in pp.partition.fetches:
                        fetch_sources.append((i, pp.partition.fetches.index(f)))
                        break
            inline = next(
                (i for i, pp in enumerate(planned) if self.worker_cache.is_local(pp.task)), 0
            )
            plan = _Plan(planned, fetch_sources, inline, feed_checks, users=1)
            plan.restarted_tasks = restarted
            if restarted:
                self.invalidate_plans()  # the others name graphs the restarted tasks lost
            with self._lock:
                closed = self._closed
                if not closed:
                    self._plans[signature] = plan
                    retired = self._retire_beyond(self.max_plans)
            if closed:
                self._deregister(plan)  # close() missed it: it was not in the cache yet
                raise _closed_error(self.handle)
            for old in retired:
                self._deregister(old)
            return plan
        finally:
            planning.release()
            with self._lock:
                # Also after a failed plan: failing signatures must not pile up.
                if self._planning.get(signature) is planning:
                    del self._planning[signature]

    def _check_names(
        self, feeds: Sequence[str], fetches: Sequence[str], targets: Sequence[str]
    ) -> None:
        for name in (*feeds, *fetches):
            src, _ = split_tensor_name(name)
            if src not in self._nodes:
                raise errors.NotFoundError(
                    None, None, f"Tensor '{name}' is not an element of the session's graph"
                )
        for name in targets:
            if name not in self._nodes:
                raise errors.NotFoundError(
                    None, None, f"Operation '{name}' is not an element of the session's graph"
                )

    def _register(
        self,
        parts: Mapping[str, partitioning.Partition],
        feeds: Sequence[str],
        deadline: float | None,
    ) -> tuple[list[_PlannedPartition], tuple[str, ...]]:
        """Registers each partition with its task's worker, the local task's first; with the
        tasks found restarted since this session last registered graphs there."""
        planned: list[_PlannedPartition] = []
        restarted: list[str] = []
        cluster = self.worker_cache.addresses()
        for task in sorted(parts, key=lambda t: (t != self.local_task, t)):
            p = parts[task]
            p.snapshot_ref_fetches = task != self.local_task
            worker = self.worker_cache.worker(task)
            if cluster and task != self.local_task:
                # Where the partition's peers are: a ps started before a worker was added
                # fetches that worker's tensors (as TF's CreateWorkerSession with a cluster).
                worker.create_worker_session(self.handle, cluster, deadline)
            handle = worker.register_graph(self.handle, p, deadline)
            incarnation = graph_handle_incarnation(handle)
            with self._lock:
                self._registered_tasks.add(task)
                if self._incarnations.setdefault(task, incarnation) != incarnation:
                    self._incarnations[task] = incarnation
                    restarted.append(task)
            positions = tuple(feeds.index(f) for f in p.feeds)
            exchanges = any(n.op in ("_Send", "_Recv") for n in p.nodes)
            planned.append(_PlannedPartition(task, worker, p, handle, positions, exchanges))
        return planned, tuple(restarted)

    def _feed_checks(self, feeds: Sequence[str]) -> tuple[tuple[int, str, dtypes.DType, Any], ...]:
        checks = []
        for i, name in enumerate(feeds):
            src, idx = split_tensor_name(name)
            node = self._nodes[src]
            if node.op in ("Placeholder", "PlaceholderWithDefault") and idx == 0:
                dtype = node.attrs.get("dtype")
                if isinstance(dtype, dtypes.DType):
                    checks.append((i, name, dtype, node.attrs.get("shape")))
        return tuple(checks)

    def _validate_feeds(self, feeds: Sequence[str], needed: Sequence[str]) -> None:
        """A variable's reference tensor may be fed, as in TF: readers of the step see the fed
        value; an op of the step that needs the reference itself (an Assign) is refused."""
        fed_refs = {}
        for name in feeds:
            src, idx = split_tensor_name(name)
            op_def = op_def_registry.lookup(self._nodes[src].op)
            if op_def is not None and op_def.ref_outputs:
                fed_refs[(src, idx)] = name
        if not fed_refs:
            return
        for consumer in needed:
            node = self._nodes[consumer]
            op_def = op_def_registry.lookup(node.op)
            if op_def is None or not op_def.ref_inputs:
                continue
            for i, (src, idx) in enumerate(node.inputs):
                if i in op_def.ref_inputs and (src, idx) in fed_refs:
                    raise errors.InvalidArgumentError(
                        None,
                        None,
                        f"Input {i} of node {consumer} was passed a fed value from "
                        f"{fed_refs[(src, idx)]} incompatible with expected a reference "
                        "(a fed variable can be read, not updated)",
                    )

    def _prune(
        self, feeds: Sequence[str], fetches: Sequence[str], targets: Sequence[str]
    ) -> list[str]:
        return _prune(self._nodes, feeds, fetches, targets)

    def _folds_constants(self) -> bool:
        """TF's optimizer level: L1 (the default) folds constants; L0 only when asked."""
        opts = self.config.graph_options.optimizer_options
        return opts.opt_level != config_pb2.OptimizerOptions.L0 or opts.do_constant_folding

    def _grappler_runs(self) -> bool:
        """Whether TF's grappler optimizes the step's graph at all: not where the session
        places pruned graphs (an InteractiveSession's config), which TF 1.15's
        GraphExecutionState refuses to optimize ("Can't optimize a pruned graph"); its
        classic constant folding still runs then."""
        return not self.config.graph_options.place_pruned_graph

    def _rewriter_runs(self, optimizer: str) -> bool:
        """Whether one of TF's grappler optimizers (a RewriterConfig field such as
        "arithmetic_optimization") runs: unless the rewriter config turns it (or the whole
        meta optimizer) off, or grappler does not run."""
        rewrite = self.config.graph_options.rewrite_options
        off = config_pb2.RewriterConfig.OFF
        return (
            self._grappler_runs()
            and not rewrite.disable_meta_optimizer
            and getattr(rewrite, optimizer) != off
        )

    def _retire_beyond(self, bound: int) -> list[_Plan]:
        """Drops the least recently used plans past `bound` from the cache (under _lock);
        the ones no step uses, to deregister now."""
        idle = []
        while len(self._plans) > bound:
            _, old = self._plans.popitem(last=False)
            old.retired = True
            if old.users == 0:
                idle.append(old)
        return idle

    def _deregister(self, plan: _Plan) -> None:
        for part in plan.parts:
            # Best effort (fire and forget on remote tasks): a task that restarted has
            # dropped it already, and closing the session deletes what is left.
            with contextlib.suppress(Exception):
                part.worker.deregister_graph(self.handle, part.graph_handle)

    def invalidate_plans(self) -> None:
        """Forget registered graphs (after a worker restarted): the next step re-registers;
        the old graphs are deregistered on the tasks that still hold them."""
        with self._lock:
            idle = self._retire_beyond(0)
        for plan in idle:
            self._deregister(plan)

    # ---- lifecycle -------------------------------------------------------------------
    def _check_open(self) -> None:
        if self._closed:
            raise _closed_error(self.handle)

    def _await_cancelled(self, running: list[tuple[int, Any]]) -> None:
        """Waits (a bounded while) for the cancelled steps to end before the session's
        graphs and resources go: a step blocked in a queue then fails as cancelled, as TF's
        does, not as if its queue had been closed (a local session's release closes them)."""
        limit = time.monotonic() + _CANCELLED_STEPS_WAIT_SECS
        ids = [step_id for step_id, _ in running]
        while time.monotonic() < limit:
            with self._lock:
                if not any(i in self._running for i in ids):
                    return
            time.sleep(0.005)

    def close(self) -> None:
        """Cancels the steps running (TF cancels their CancellationManager) and waits for
        them to end, then deletes the session's graphs on every task."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
            self._plans.clear()
            tasks = sorted(self._registered_tasks)
            running = list(self._running.items())
        for step_id, parts in running:
            _abort(
                step_id,
                parts,
                errors.CancelledError(
                    None, None, f"Step {step_id} was cancelled: session {self.handle} closed"
                ),
            )
        self._await_cancelled(running)
        for task in tasks:
            # Closing must not fail on a dead worker.
            with contextlib.suppress(Exception):
                self.worker_cache.worker(task).delete_worker_session(self.handle)
        if self._pool is not None:
            self._pool.shutdown(wait=False)


def _collect(
    pending: dict[int, PendingRunGraph],
    results: list[Any],
    fail: Callable[[int, BaseException], None],
) -> None:
    """Reads the answers of partitions sent from this thread into `results`, each as it
    comes (a failed one aborts the step at once, while the others may still be waiting on
    it), removing them from `pending`; an error goes to `fail`."""
    while pending:
        answered = [i for i, sent in pending.items() if len(pending) == 1 or sent.answered()]
        if not answered:
            poller = select.poll()
            for sent in pending.values():
                poller.register(sent.fileno(), select.POLLIN | select.POLLPRI)
            # A deadline closes the calls (they turn readable): no timeout needed here, but
            # a second's bound keeps this loop safe from a call that never says anything.
            poller.poll(1000)
            continue
        for i in answered:
            sent = pending.pop(i)
            try:
                results[i] = sent.result()
            except Exception as e:
                fail(i, e)


# How long a session's close waits for its cancelled steps to end.
_CANCELLED_STEPS_WAIT_SECS = 5.0


def _lost_to_restart(lost: errors.OpError, tasks: Sequence[str]) -> errors.OpError:
    return errors.AbortedError(
        lost.node_def,
        lost.op,
        f"{lost.message}\n{', '.join(sorted(set(tasks)))} restarted since this session last "
        "ran there, and lost its state: a new session waits for the model to be ready again.",
    )


def _closed_error(handle: str) -> errors.OpError:
    return errors.AbortedError(None, None, f"Session {handle} is not found (closed or reset)")


def _abort(step_id: int, parts: Sequence[_PlannedPartition], err: BaseException) -> None:
    for part in parts:
        # Best effort: a task that cannot be reached has no step to stop.
        with contextlib.suppress(Exception):
            part.worker.abort_step(step_id, err)


class _Described:
    """A fed value known by its dtype and shape only (relayed undecoded)."""

    __slots__ = ("dtype", "shape")

    def __init__(self, dtype: Any, shape: tuple[int, ...]) -> None:
        self.dtype = dtype
        self.shape = shape


def _check_fed_values(
    checks: tuple[tuple[int, str, dtypes.DType, Any], ...], values: list[Any]
) -> None:
    """A fed placeholder's value has its dtype and a compatible shape (InvalidArgumentError)."""
    for pos, name, dtype, shape in checks:
        value = values[pos]
        got = getattr(value, "dtype", None)
        want = dtype.as_numpy_dtype
        if got is None or (got != want and not (want is object and got.kind == "O")):
            raise errors.InvalidArgumentError(
                None, None, f"Fed value for '{name}' has dtype {got}, expected {dtype.name}"
            )
        if shape is not None and not tensor_shape.fits(shape, tuple(getattr(value, "shape", ()))):
            raise errors.InvalidArgumentError(
                None,
                None,
                f"Fed value for '{name}' has shape {list(value.shape)}, expected {shape}",
            )
