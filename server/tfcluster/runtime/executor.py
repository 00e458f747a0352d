"""Runs one (partition) graph for a step: prune, order, bind kernels once; then run many times.

Construction does all the work that does not depend on values (pruning to what the fetches
and targets need, a topological order, input/output slots, kernel binding), so a step is a
tight loop over prepared tuples. Graphs with asynchronous kernels (Recv) run in dataflow
order instead, so a partition never blocks on a Recv while it could still send. So do graphs
with independent heavy kernels (runtime/inter_op.py) once their first steps show the kernels
are big enough: those kernels run on the inter-op threads, several at once. From the second
plain step on, a graph runs compiled: straight-line (runtime/run_plan.py), or in groups that
each wait for the same receives (runtime/async_plan.py).
"""

from __future__ import annotations

import queue
import time
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

from tfcluster.framework import errors, op_def_registry
from tfcluster.runtime import (
    async_plan,
    critical_path,
    device_copy,
    float_errors,
    inter_op,
    kernel_table,
    outbox,
    parallel_run,
    run_plan,
    tf_order,
    thread_budget,
)
from tfcluster.runtime.graph_ir import Node, split_tensor_name
from tfcluster.runtime.read_forwarding import (
    fetched_variable_reads,
    forward_variable_reads,
    forwarded_reads,
)
from tfcluster.runtime.resources import VariableRef
from tfcluster.runtime.step_context import StepContext
from tfcluster.runtime.step_trace import SOURCE_NODE, StepTrace, timeline_labels

# Device types whose values live in host memory (XLA_CPU runs the CPU kernels).
HOST_DEVICE_TYPES = frozenset({"CPU", "XLA_CPU"})


def on_host(device: str) -> bool:
    return device_type_of(device) in HOST_DEVICE_TYPES


def device_type_of(device: str) -> str:
    marker = "/device:"
    i = device.find(marker)
    if i < 0:
        return "CPU"
    return device[i + len(marker) :].split(":")[0].upper()


def with_node(err: BaseException, node_name: str) -> errors.OpError:
    """The same error class, with the failing node named (once)."""
    if isinstance(err, errors.OpError):
        if f"node {node_name}" in err.message or getattr(err, "names_its_node", False):
            return err
        return errors.exception_for_code(err.error_code)(
            None, None, f"{err.message}\n\t [[{{{{node {node_name}}}}}]]"
        )
    if isinstance(err, MemoryError):
        # TF's OOM class: the request was too big for this task, not malformed.
        return errors.ResourceExhaustedError(
            None, None, f"OOM: {err}\n\t [[{{{{node {node_name}}}}}]]"
        )
    return errors.InvalidArgumentError(
        None, None, f"{type(err).__name__}: {err}\n\t [[{{{{node {node_name}}}}}]]"
    )


class _Step:
    """One node, prepared: its kernel and where its inputs and outputs live."""

    __slots__ = (
        "counted",
        "derefs",
        "device",
        "fn",
        "heavy",
        "in_slots",
        "index",
        "is_async",
        "last_use",
        "name",
        "only_use",
        "out_pairs",
        "read_names",
        "to_host",
    )

    def __init__(self, name: str, device: str, fn: Any, is_async: bool) -> None:
        self.name = name
        self.device = device
        self.fn = fn
        self.is_async = is_async
        self.index = -1  # position in the executor's order
        # A CPU kernel worth running beside others on an inter-op thread (inter_op.HEAVY_OPS).
        self.heavy = False
        self.in_slots: tuple[int, ...] = ()
        self.out_pairs: tuple[tuple[int, int], ...] = ()
        self.derefs: tuple[int, ...] = ()
        # For each of derefs, the node a failed read names (a forwarded read's Identity).
        self.read_names: tuple[str, ...] = ()
        # Inputs copied off a GPU before the kernel runs (see _host_copies).
        self.to_host: tuple[int, ...] = ()
        # Values this step is the last to read, dropped once it has them (see _releases):
        # in order (sequential runs); read by no other step, or read by several (dataflow).
        self.last_use: tuple[int, ...] = ()
        self.only_use: tuple[int, ...] = ()
        self.counted: tuple[int, ...] = ()


def retval_names(fetches: Sequence[str]) -> list[str]:
    """The node TF 1.15's DirectSession names for each fetch, as an error about reading it says:
    `_retval_<op>_<output>_<i>`, i the fetch's place among the step's distinct fetch names
    sorted (GetOrCreateExecutors builds the callable from the sorted names)."""
    place = {name: i for i, name in enumerate(sorted(set(fetches)))}
    out = []
    for name in fetches:
        op, index = split_tensor_name(name)
        out.append(f"_retval_{op}_{index}_{place[name]}")
    return out


class Executor:
    def __init__(
        self,
        nodes: Sequence[Node],
        feeds: Sequence[str],
        fetches: Sequence[str],
        targets: Sequence[str],
        kernel_cache: dict[str, Any] | None = None,
        default_device: str = "",
        snapshot_ref_fetches: bool = False,
    ) -> None:
        """snapshot_ref_fetches: for a partition whose fetches go to another task. TF copies a
        tensor as it is sent, and sends as soon as it can: a fetched variable is read when the
        step first waits for another task (before the updates that wait for received values,
        such as gradients), or at the end, as TF's executor would have sent it."""
        by_name = {n.name: n for n in nodes}
        self.feeds = list(feeds)
        self.fetches = list(fetches)
        self.fetch_nodes = retval_names(self.fetches)
        fed = set(self.feeds)
        order = _post_order(_roots(self.fetches, targets, by_name, fed), by_name, fed)
        ref_reads, ref_writes = _variable_uses(order, by_name, fed)
        reads, writes = tf_order.with_resource_uses(order, ref_reads, ref_writes, fed)
        if tf_order.has_unordered_variable_access(order, reads, writes, fed):
            # The values depend on the order here: TF's (runtime/tf_order.py).
            position = {n.name: i for i, n in enumerate(nodes)}
            order = tf_order.executor_order(order, position, self.feeds)
        unforwarded = {n.name: n for n in order}
        order = forward_variable_reads(order, fed, self.fetches, targets)
        read_names = forwarded_reads(unforwarded, order)
        by_name = {**by_name, **{n.name: n for n in order}}
        self.node_names = [n.name for n in order]
        self._order = order
        self._labels: dict[str, str] | None = None  # timeline labels, made on the first trace

        slot_of = _slots(order, self.feeds, self.fetches)
        self.num_slots = len(slot_of)
        self.feed_slots = tuple(slot_of[t] for t in self.feeds)
        # A fetched Identity of a variable gives the variable's value at the step's end.
        aliased = fetched_variable_reads(order, fed, self.fetches)
        self.fetch_slots = tuple(
            slot_of[f"{aliased[t][0]}:{aliased[t][1]}" if t in aliased else t] for t in self.fetches
        )
        self.fetch_is_ref = tuple(
            t in aliased or (t not in fed and _is_ref_output(by_name[split_tensor_name(t)[0]]))
            for t in self.fetches
        )
        # Such a fetch on a CPU device comes to the host as its Identity's value would.
        self.fetch_to_host = frozenset(
            k
            for k, t in enumerate(self.fetches)
            if t in aliased and on_host(by_name[split_tensor_name(t)[0]].device)
        )

        cache = kernel_cache if kernel_cache is not None else {}
        self.steps = _bind_steps(order, by_name, slot_of, fed, cache, default_device, read_names)
        self.ref_fetches = tuple(
            (k, slot)
            for k, (slot, is_ref) in enumerate(zip(self.fetch_slots, self.fetch_is_ref))
            if is_ref and snapshot_ref_fetches
        )
        self.slot_reads = _releases(self.steps, {*self.feed_slots, *self.fetch_slots})
        self.has_async = any(step.is_async for step in self.steps)
        # Dataflow bookkeeping for the asynchronous path.
        self.pending_counts, self.consumers = _dataflow_edges(order, fed)
        self.devices = sorted({s.device for s in self.steps} | {default_device} - {""})
        # Inter-op parallelism: possible when two heavy kernels are independent; chosen after
        # the first steps, timed sequentially, show those kernels take long enough.
        waits_for: list[list[int]] = [[] for _ in self.steps]
        for i, consumers in enumerate(self.consumers):
            for c in consumers:
                waits_for[c].append(i)
        self._waits_for = waits_for
        can_overlap = inter_op.independent_heavy_ops([s.heavy for s in self.steps], waits_for)
        self._probe_left = inter_op.PROBE_STEPS if can_overlap else 0
        self._probe = inter_op.HeavyProbe()
        self.overlaps = False
        # Per node, the work on the longest chain it heads (runtime/critical_path.py), from
        # the probe's timings: which ready kernel runs first when kernels run at once.
        self.priority: list[float] | None = None
        self.follows: list[float] | None = None  # the same, less the node's own work
        # The straight-line plan (runtime/run_plan.py; runtime/async_plan.py for graphs with
        # receives), made when a second plain run comes: a graph run once (an initializer)
        # never pays for compiling it.
        self._plan: run_plan.Plan | None = None
        self._ran_plain = False
        self._plannable = not self.ref_fetches and len(self.steps) <= run_plan.MAX_NODES
        # A Const under a control dependency (one made in a control_dependencies block, such
        # as the increment apply_gradients makes after the updates) waits for it like any node.
        self._const_steps = tuple(
            n.op == "Const" and not n.inputs and not n.control_inputs and on_host(s.device)
            for n, s in zip(order, self.steps)
        )
        # The dataflow loop's start with the constants settled (_settled_constants).
        self._settled: _Settled | None = None
        self._any_ref_fetch = any(self.fetch_is_ref)
        # Per step, the variables it reads and writes (runtime/parallel_run.py orders an
        # update after the running kernels that read its variable).
        self.var_reads, self.var_writes = _variable_uses(order, by_name, fed)

    # ------------------------------------------------------------------------------------
    def run(self, ctx: StepContext, feed_values: Sequence[Any]) -> list[Any]:
        plan = self._plan
        if plan is None and self._ran_plain and not ctx.trace:
            plan = self._plan = self._compile_plan()
        if plan is not None and not ctx.trace:
            fetched = float_errors.call_silenced(plan, ctx, feed_values)
            if self._any_ref_fetch:
                self._read_ref_fetches(fetched)
            return fetched
        vals: list[Any] = [None] * self.num_slots
        for slot, v in zip(self.feed_slots, feed_values):
            vals[slot] = v
        stats: Any = self._trace() if ctx.trace else None
        snaps: dict[int, Any] = {}
        if self.ref_fetches:
            ctx.ref_snapshots = snaps
        # With one inter-op thread in the budget no kernels can overlap: the step is neither
        # probed nor kept off its compiled plan (which runs the kernels in the sequential
        # order, with the least bookkeeping), however heavy its kernels.
        threads = thread_budget.current().inter
        probing = self._probe_left > 0 and stats is None and threads > 1
        if probing:
            stats = self._probe
            stats.start_step()  # a probe step that failed leaves no partial times
        width = threads if self.overlaps and not inter_op.on_pool_thread() else 1
        with float_errors.silence():
            if self.has_async or width > 1:
                self._run_dataflow(ctx, vals, stats, width)
            else:
                # Probing times the heavy kernels by this thread's CPU time: a probe step
                # preempted on a busy machine must not make tiny kernels look heavy.
                clock = time.thread_time if probing else time.time
                self._run_sequential(ctx, vals, stats, clock)
        if probing:
            self._probe.end_step()
            self._probe_left -= 1
            if self._probe_left <= 0:
                heavy_per_step = self._probe.seconds / inter_op.PROBE_STEPS
                self.overlaps = heavy_per_step >= inter_op.MIN_HEAVY_SECONDS
                if self.overlaps:
                    self._schedule_by_probe()
            stats = None
        elif (
            stats is None
            and self._plannable
            and (threads <= 1 or (self._probe_left <= 0 and not self.overlaps))
        ):
            self._ran_plain = True
        out: list[Any] = []
        for k, (slot, is_ref) in enumerate(zip(self.fetch_slots, self.fetch_is_ref)):
            v = vals[slot]
            if is_ref:
                v = snaps[k] if k in snaps else self.read_ref_fetch(k, v)
            out.append(v)
        if stats is not None:
            ctx.step_stats.extend(stats.to_protos())
        return out

    def _compile_plan(self) -> run_plan.Plan:
        if not self.has_async:
            return run_plan.compile_plan(
                self.steps, self._const_steps, self.feed_slots, self.fetch_slots, with_node
            )
        return async_plan.AsyncPlan(
            self.steps,
            self._const_steps,
            self._waits_for,
            self.num_slots,
            self.feed_slots,
            self.fetch_slots,
            with_node,
            [n.op == "_Send" for n in self._order],
        ).run

    def _schedule_by_probe(self) -> None:
        """From the probe's per-kernel times: the critical-path priorities, and kernels
        measured long enough to run beside others (whatever their op type) made heavy."""
        per_node = self._probe.per_node
        costs = [per_node.get(i, 0.0) for i in range(len(self.steps))]
        self.priority = critical_path.longest_chains(costs, self.consumers)
        self.follows = [p - c for p, c in zip(self.priority, costs)]
        for step, heavy in zip(self.steps, critical_path.measured_heavy(costs)):
            if heavy and not step.is_async and on_host(step.device):
                step.heavy = True

    def run_nested(self, ctx: StepContext, feed_values: Sequence[Any]) -> list[Any]:
        """run() for a function body called by a kernel of a running step (a while loop's
        cond and body, once per iteration): numpy's warnings are silenced already."""
        plan = self._plan
        if plan is not None and not ctx.trace:
            fetched = plan(ctx, feed_values)
            if self._any_ref_fetch:
                self._read_ref_fetches(fetched)
            return fetched
        return self.run(ctx, feed_values)

    def run_observed(
        self,
        ctx: StepContext,
        feed_values: Sequence[Any],
        observe: Callable[[str, Sequence[Any]], None],
    ) -> list[Any]:
        """run_nested() one kernel after the other, handing each node's name and outputs to
        observe (a function body specializing itself to its arguments' shapes). Graphs with
        asynchronous kernels run as run_nested does, unobserved."""
        if self.has_async:
            return self.run_nested(ctx, feed_values)
        vals: list[Any] = [None] * self.num_slots
        for slot, v in zip(self.feed_slots, feed_values):
            vals[slot] = v
        self._run_sequential(ctx, vals, _Observer(observe))
        out: list[Any] = []
        for k, (slot, is_ref) in enumerate(zip(self.fetch_slots, self.fetch_is_ref)):
            v = vals[slot]
            out.append(self.read_ref_fetch(k, v) if is_ref else v)
        return out

    def read_ref_fetch(self, k: int, ref: VariableRef) -> Any:
        """Fetch k's value from the variable it names or aliases, read now."""
        value = ref.read(self.fetch_nodes[k])
        if k in self.fetch_to_host and device_copy.active:
            value = device_copy.to_host(value)
        return value

    def _read_ref_fetches(self, out: list[Any]) -> None:
        for k, is_ref in enumerate(self.fetch_is_ref):
            if is_ref:
                out[k] = self.read_ref_fetch(k, out[k])

    def _snapshot_ref_fetches(self, ctx: StepContext, vals: list[Any]) -> None:
        """Reads the fetched variables made so far, once each (the step is about to wait)."""
        snaps = ctx.ref_snapshots
        if snaps is None:
            return
        for k, slot in self.ref_fetches:
            if k not in snaps and vals[slot] is not None:
                snaps[k] = self.read_ref_fetch(k, vals[slot])

    def _trace(self) -> StepTrace:
        if self._labels is None:
            self._labels = timeline_labels(self._order)
        return StepTrace(self.devices, self._labels)

    def _run_sequential(
        self, ctx: StepContext, vals: list[Any], stats: Any, clock: Any = time.time
    ) -> None:
        step = None
        try:
            for step in self.steps:
                ins = [vals[s] for s in step.in_slots]
                for s in step.last_use:
                    vals[s] = None
                if step.derefs:
                    for i, who in zip(step.derefs, step.read_names):
                        ins[i] = ins[i].read(who)
                if step.to_host and device_copy.active:
                    for i in step.to_host:
                        ins[i] = device_copy.to_host(ins[i])
                if stats is not None:
                    t0 = clock()
                    outs = step.fn(ctx, ins)
                    stats.add(step, t0, clock(), outs)
                else:
                    outs = step.fn(ctx, ins)
                for idx, slot in step.out_pairs:
                    vals[slot] = outs[idx]
        except Exception as e:
            assert step is not None
            raise with_node(e, step.name) from e

    def _run_dataflow(self, ctx: StepContext, vals: list[Any], stats: Any, width: int = 1) -> None:
        # Requests the receives make in a pass go out together, before the executor waits.
        box, previous_box = outbox.open_outbox()
        try:
            if width > 1:
                parallel_run.ParallelRun(
                    self, ctx, vals, stats, width, self.priority, self.follows, with_node
                ).run(box)
                return
            if stats is None and any(self._const_steps):
                settled = self._settled_constants()
                pending = list(settled.pending)
                ready = list(settled.ready)
                for slot, value in settled.values:
                    vals[slot] = value
                remaining = len(self.steps) - settled.settled
            else:  # a traced step times every node, constants too
                pending = list(self.pending_counts)
                ready = [i for i, c in enumerate(pending) if c == 0]
                remaining = len(self.steps)
            self._dataflow_loop(ctx, vals, stats, pending, ready, box, remaining, width)
        finally:
            outbox.close_outbox(box, previous_box)

    def _settled_constants(self) -> _Settled:
        """The dataflow loop's start with the CPU constants already run: a Const kernel hands
        out the same read-only array every step, so its outputs are taken once and its
        consumers' counts lowered once, not per step (a partition of a training step is a
        third constants: shapes, axes, learning rates)."""
        settled = self._settled
        if settled is None:
            pending = list(self.pending_counts)
            values: list[tuple[int, Any]] = []
            count = 0
            for i, (step, is_const) in enumerate(zip(self.steps, self._const_steps)):
                if not is_const:
                    continue
                outs = step.fn(None, [])
                values += [(slot, outs[idx]) for idx, slot in step.out_pairs]
                for c in self.consumers[i]:
                    pending[c] -= 1
                pending[i] = -1  # never ready: it has run
                count += 1
            ready = [i for i, c in enumerate(pending) if c == 0]
            settled = self._settled = _Settled(tuple(pending), tuple(ready), tuple(values), count)
        return settled

    def _dataflow_loop(
        self,
        ctx: StepContext,
        vals: list[Any],
        stats: Any,
        pending: list[int],
        ready: list[int],
        box: outbox.Outbox,
        remaining: int,
        width: int = 1,
    ) -> None:
        # SimpleQueue: a receive's answer wakes the stepping thread through one C lock, not
        # Condition's Python code (a few microseconds per hand-off, several per step).
        done_q: queue.SimpleQueue[tuple[int, Any, BaseException | None, float]] = (
            queue.SimpleQueue()
        )
        outstanding = 0
        # Heavy kernels handed to the inter-op threads and not back yet (at most width - 1:
        # this thread runs kernels too).
        pool = inter_op.pool(width - 1) if width > 1 else None
        pooled = 0
        reads_left = list(self.slot_reads)
        steps = self.steps

        def finish(i: int, outs: Any) -> None:
            nonlocal remaining
            for idx, slot in steps[i].out_pairs:
                vals[slot] = outs[idx]
            remaining -= 1
            for c in self.consumers[i]:
                pending[c] -= 1
                if pending[c] == 0:
                    ready.append(c)

        while remaining:
            while ready:
                i = ready.pop()
                step = steps[i]
                try:
                    ins = [vals[s] for s in step.in_slots]
                    for s in step.only_use:
                        vals[s] = None
                    for s in step.counted:
                        reads_left[s] -= 1
                        if not reads_left[s]:
                            vals[s] = None
                    for k, who in zip(step.derefs, step.read_names):
                        ins[k] = ins[k].read(who)
                    if step.to_host and device_copy.active:
                        for k in step.to_host:
                            ins[k] = device_copy.to_host(ins[k])
                    t0 = time.time()
                    if step.is_async:
                        outstanding += 1

                        def done(
                            outs: Any, err: BaseException | None, i: int = i, t0: float = t0
                        ) -> None:
                            done_q.put((i, outs, err, t0))

                        step.fn(ctx, ins, done)
                        continue
                    if pool is not None and step.heavy:
                        if (ready or pooled) and pooled < width - 1:
                            # Others can run meanwhile: this kernel goes to another thread.
                            outstanding += 1
                            pooled += 1
                            pool.submit(_run_pooled, step.fn, ctx, ins, i, t0, done_q)
                            # Not held here while this thread waits: a variable's array in
                            # it would make the variable's update copy it (in_place.py).
                            ins = []
                            continue
                        if pooled:
                            with thread_budget.concurrent_kernel():
                                outs = step.fn(ctx, ins)
                        else:
                            outs = step.fn(ctx, ins)
                    else:
                        outs = step.fn(ctx, ins)
                    if stats is not None:
                        stats.add(step, t0, time.time(), outs)
                except Exception as e:
                    ctx.cancelled.set()
                    raise with_node(e, step.name) from e
                finish(i, outs)
            if not remaining:
                break
            if not outstanding:
                raise errors.InternalError(None, None, "Executor stalled: graph has a cycle")
            if self.ref_fetches:
                self._snapshot_ref_fetches(ctx, vals)
            # The last step's inputs must not outlive it while this step waits: one may be a
            # variable's array, and a sparse update (of another step) writes that array in
            # place only when nothing else holds it (kernels/in_place.py).
            ins = outs = []
            box.flush()
            timeout = None if ctx.deadline is None else max(0.0, ctx.deadline - time.monotonic())
            try:
                i, outs, err, t0 = done_q.get(timeout=timeout)
            except queue.Empty:
                ctx.cancelled.set()
                waiting = [steps[k].name for k in range(len(steps)) if steps[k].is_async]
                raise errors.DeadlineExceededError(
                    None, None, f"Timed out waiting for tensors (receivers: {waiting[:5]})"
                ) from None
            outstanding -= 1
            if steps[i].heavy and not steps[i].is_async and pool is not None:
                pooled -= 1
            if err is not None:
                ctx.cancelled.set()
                raise with_node(err, steps[i].name)
            if stats is not None:
                stats.add(steps[i], t0, time.time(), outs)
            finish(i, outs)


class _Observer:
    """Stands where a step's statistics would in _run_sequential: each node's outputs go to
    `observe` (run_observed)."""

    __slots__ = ("_observe",)

    def __init__(self, observe: Callable[[str, Sequence[Any]], None]) -> None:
        self._observe = observe

    def add(self, step: _Step, start: float, end: float, outs: Sequence[Any]) -> None:
        self._observe(step.name, outs)


class _Settled(NamedTuple):
    """A dataflow step's start with its constants run (Executor._settled_constants)."""

    pending: tuple[int, ...]  # inputs each node still waits for (-1: a constant, done)
    ready: tuple[int, ...]  # the nodes that can run at once
    values: tuple[tuple[int, Any], ...]  # (slot, value) of the constants' outputs
    settled: int  # how many constants


def _run_pooled(
    fn: Any,
    ctx: StepContext,
    ins: list[Any],
    i: int,
    t0: float,
    done_q: queue.SimpleQueue[tuple[int, Any, BaseException | None, float]],
) -> None:
    """One heavy kernel on an inter-op thread; its outputs (or error) go back to the step."""
    try:
        with thread_budget.concurrent_kernel():
            outs = fn(ctx, ins)
    except BaseException as e:
        done_q.put((i, None, e, t0))
        return
    done_q.put((i, outs, None, t0))


def _roots(
    fetches: Sequence[str], targets: Sequence[str], by_name: dict[str, Node], fed: set[str]
) -> list[str]:
    """The nodes the step must run for its fetches and targets; unknown names are NotFound.
    A fed tensor's producer is usually pruned away, so feeds need not name nodes here."""
    roots: list[str] = []
    for t in fetches:
        if t in fed:
            continue
        src, _ = split_tensor_name(t)
        if src not in by_name:
            raise errors.NotFoundError(None, None, f"Fetch '{t}' is not in the graph")
        roots.append(src)
    for name in targets:
        if name not in by_name:
            raise errors.NotFoundError(None, None, f"Target '{name}' is not in the graph")
        roots.append(name)
    return roots


def _slots(order: list[Node], feeds: Sequence[str], fetches: Sequence[str]) -> dict[str, int]:
    """Tensor name -> value slot: one per fed tensor, one per output something reads."""
    slot_of: dict[str, int] = {}
    for t in feeds:
        slot_of.setdefault(t, len(slot_of))
    for n in order:
        for src, idx in n.inputs:
            key = f"{src}:{idx}"
            if key not in slot_of:
                slot_of[key] = len(slot_of)
    for t in fetches:
        if t not in slot_of:
            slot_of[t] = len(slot_of)
    return slot_of


def _bind_steps(
    order: list[Node],
    by_name: dict[str, Node],
    slot_of: dict[str, int],
    fed: set[str],
    cache: dict[str, Any],
    default_device: str,
    read_names: dict[str, dict[int, str]],
) -> list[_Step]:
    """One prepared _Step per node, in order: its kernel bound and its slots resolved."""
    outputs_read: dict[str, list[tuple[int, int]]] = {}  # node -> (output index, slot)
    for key, slot in slot_of.items():
        if key in fed:
            continue
        src, idx = split_tensor_name(key)
        outputs_read.setdefault(src, []).append((idx, slot))
    steps: list[_Step] = []
    type_of: dict[str, str] = {}  # node -> device type, for the host copies of later nodes
    for n in order:
        device = n.device or default_device
        fn, is_async = _bind(n, device, cache)
        step = _Step(n.name, device, fn, is_async)
        step.heavy = n.op in inter_op.HEAVY_OPS and on_host(device)
        step.index = len(steps)
        step.in_slots = tuple(slot_of[f"{src}:{idx}"] for src, idx in n.inputs)
        step.out_pairs = tuple(sorted(outputs_read.get(n.name, ())))
        step.derefs = _derefs(n, by_name, fed)
        forwarded = read_names.get(n.name, {})
        step.read_names = tuple(forwarded.get(k, n.name) for k in step.derefs)
        step.to_host = _host_copies(n, device, step.derefs, type_of, fed)
        type_of[n.name] = device_type_of(device)
        steps.append(step)
    return steps


def _releases(steps: list[_Step], kept: set[int]) -> list[int]:
    """Marks on each step the values it may drop once it has read them, as TF's executor
    frees a tensor after its last consumer: memory goes back early, and a variable's array
    is no longer held by a read of it that is done (sparse updates write such arrays in
    place, see kernels/in_place.py). Fed and fetched values stay. Returns, per slot, how
    many reads the dataflow run counts down (0 for slots it never counts)."""
    reads = [0] * (max((s for st in steps for s in st.in_slots), default=-1) + 1)
    last: dict[int, int] = {}
    for i, step in enumerate(steps):
        for s in step.in_slots:
            reads[s] += 1
            last[s] = i
    by_step: dict[int, list[int]] = {}
    for s, i in last.items():
        if s not in kept:
            by_step.setdefault(i, []).append(s)
    for i, step in enumerate(steps):
        step.last_use = tuple(by_step.get(i, ()))
        mine = [s for s in dict.fromkeys(step.in_slots) if s not in kept]
        step.only_use = tuple(s for s in mine if reads[s] == 1)
        step.counted = tuple(s for s in step.in_slots if s not in kept and reads[s] > 1)
    counted = {s for step in steps for s in step.counted}
    return [reads[s] if s in counted else 0 for s in range(len(reads))]


def _variable_uses(
    order: list[Node], by_name: dict[str, Node], fed: set[str]
) -> tuple[list[frozenset[str]], list[frozenset[str]]]:
    """Per node: the variables it reads (an input that is a variable, or an Identity of one:
    its value is the variable's own array) and those it writes (its reference inputs)."""
    reads: list[frozenset[str]] = []
    writes: list[frozenset[str]] = []
    for n in order:
        op_def = op_def_registry.lookup(n.op)
        ref_inputs = op_def.ref_inputs if op_def else frozenset()
        r: set[str] = set()
        w: set[str] = set()
        for k, (src, idx) in enumerate(n.inputs):
            if f"{src}:{idx}" in fed:
                continue
            node = by_name[src]
            if _is_ref_output(node):
                (w if k in ref_inputs else r).add(src)
            elif node.op == "Identity" and node.inputs:
                inner = node.inputs[0][0]
                if inner in by_name and _is_ref_output(by_name[inner]):
                    r.add(inner)
        reads.append(frozenset(r))
        writes.append(frozenset(w))
    return reads, writes


def _derefs(node: Node, by_name: dict[str, Node], fed: set[str]) -> tuple[int, ...]:
    """Inputs that arrive as variable references but that the kernel reads as values."""
    op_def = op_def_registry.lookup(node.op)
    ref_inputs = op_def.ref_inputs if op_def else frozenset()
    return tuple(
        i
        for i, (src, idx) in enumerate(node.inputs)
        if f"{src}:{idx}" not in fed and i not in ref_inputs and _is_ref_output(by_name[src])
    )


def _dataflow_edges(order: list[Node], fed: set[str]) -> tuple[list[int], list[list[int]]]:
    """Per node: how many nodes it waits for, and the nodes that wait for it."""
    index_of = {n.name: i for i, n in enumerate(order)}
    pending_counts: list[int] = []
    consumers: list[list[int]] = [[] for _ in order]
    for i, n in enumerate(order):
        deps = {index_of[src] for src, idx in n.inputs if f"{src}:{idx}" not in fed} | {
            index_of[c] for c in n.control_inputs
        }
        pending_counts.append(len(deps))
        for d in deps:
            consumers[d].append(i)
    return pending_counts, consumers


def _host_copies(
    node: Node, device: str, derefs: tuple[int, ...], type_of: dict[str, str], fed: set[str]
) -> tuple[int, ...]:
    """Inputs a host consumer (a CPU kernel, or a _Send: its tensor leaves the task) must get
    off the GPU: values produced on a GPU, and variables' values (any variable may have been
    assigned on a GPU). Copies happen once a GPU kernel is bound (device_copy.active)."""
    if device_type_of(device) == "GPU" and node.op != "_Send":
        return ()
    return tuple(
        i
        for i, (src, idx) in enumerate(node.inputs)
        if f"{src}:{idx}" not in fed and (type_of.get(src) == "GPU" or i in derefs)
    )


def _is_ref_output(node: Node) -> bool:
    op_def = op_def_registry.lookup(node.op)
    return bool(op_def and op_def.ref_outputs)


def _bind(node: Node, device: str, cache: dict[str, Any]) -> tuple[Any, bool]:
    op_def = op_def_registry.lookup(node.op)
    if op_def is None:
        raise errors.NotFoundError(None, None, f"Op type not registered '{node.op}' ({node.name})")
    dtype = device_type_of(device)
    key = f"{node.name}@{dtype}"
    if op_def.stateful and key in cache:
        return cache[key]
    kdef = kernel_table.lookup(node.op, dtype)
    try:
        fn = kdef.factory(node)
    except errors.OpError as e:
        raise with_node(e, node.name) from e
    except (ValueError, TypeError, KeyError, AttributeError, IndexError, ArithmeticError) as e:
        # Attrs of the wrong kind or value (a graph from a foreign client: N=inf, ...) fail
        # here as the node's fault.
        raise errors.InvalidArgumentError(
            None, None, f"Invalid node {node.name} ({node.op}): {e}"
        ) from e
    bound = (fn, kdef.is_async)
    if op_def.stateful:
        # Steps of one session are planned in several threads at once (a QueueRunner's
        # enqueue while the main thread plans its dequeue): the first kernel stored is the
        # one every step uses, else each would hold its own private queue (or reader) and a
        # dequeue would wait forever on a queue nobody feeds. setdefault is one atomic step.
        bound = cache.setdefault(key, bound)
    return bound


def _post_order(roots: list[str], by_name: dict[str, Node], fed: set[str]) -> list[Node]:
    """Nodes the roots need, inputs before consumers (DFS post-order, iterative)."""
    order: list[Node] = []
    state: dict[str, int] = {}  # 1 = on stack, 2 = done
    for root in roots:
        if state.get(root) == 2:
            continue
        stack: list[tuple[str, bool]] = [(root, False)]
        while stack:
            name, expanded = stack.pop()
            if expanded:
                state[name] = 2
                order.append(by_name[name])
                continue
            st = state.get(name)
            if st == 2:
                continue
            if st == 1:
                raise errors.InvalidArgumentError(
                    None, None, f"Graph has a cycle through node '{name}'"
                )
            node = by_name.get(name)
            if node is None:
                raise errors.InvalidArgumentError(
                    None, None, f"Node '{name}' is an input of a node but is not in the graph"
                )
            state[name] = 1
            stack.append((name, True))
            deps = [src for src, idx in node.inputs if f"{src}:{idx}" not in fed]
            deps += node.control_inputs
            # Pushed in order, so popped in reverse: last input first, as TF's traces list them.
            for dep in deps:
                if state.get(dep) != 2:
                    if dep not in by_name:
                        raise errors.InvalidArgumentError(
                            None,
                            None,
                            f"Node '{name}' has input '{dep}' that is not in the graph",
                        )
                    stack.append((dep, False))
    return order


__all__ = ["SOURCE_NODE", "Executor", "VariableRef", "device_type_of", "with_node"]
