"""Runs a partition holding TF1's dataflow control flow (Switch, Merge, Enter, Exit,
NextIteration, LoopCond, ControlTrigger), with TF's executor semantics:

- dead tensors: the untaken output of a Switch is dead; a node with a dead input (data or
  control) does not run and its outputs are dead, except a Merge (it runs with its first
  live input and outputs that input's index; dead only when every data input is dead, or a
  dead Enter feeds it: a loop on an untaken branch) and a ControlTrigger (it always runs);
- frames: an Enter moves its value into the child frame named by `frame_name` (one frame per
  parent frame and iteration), into iteration 0, or into every iteration when `is_constant`;
  a NextIteration moves a live value into the next iteration (a dead one ends the loop); an
  Exit moves a live value back into the parent frame, and a loop whose Exit never saw a live
  value (all of its iterations dead) sends a dead value out once the frame is done.

Only partitions holding these ops come here (`build_executor`); every other graph keeps the
executor's prepared sequential/dataflow runs and compiled plans (runtime/executor.py). Ready
nodes run earliest iteration first, so a loop's stack pushes and pops come in iteration order.
Fetches and feeds live in the root frame; a dead fetch is TF's "Retval[i] does not have
value". Cancellation and the step's deadline are checked as the nodes run, so an endless loop
stops when its step is cancelled.
"""

from __future__ import annotations

import heapq
import itertools
import queue
import time
from collections.abc import Sequence
from typing import Any

from tfcluster.framework import errors, op_def_registry
from tfcluster.runtime import device_copy, float_errors, outbox
from tfcluster.runtime.dead_tensor import DEAD
from tfcluster.runtime.executor import (
    Executor,
    _bind,
    _roots,
    on_host,
    retval_names,
    with_node,
)
from tfcluster.runtime.graph_ir import Node, split_tensor_name
from tfcluster.runtime.loop_frames import (
    ENTER_OPS,
    EXIT_OPS,
    MERGE_OPS,
    NEXT_ITERATION_OPS,
    ROOT,
    assign_frames,
    frame_label,
    has_control_flow,
    output_frame,
)
from tfcluster.runtime.resources import VariableRef
from tfcluster.runtime.step_context import StepContext
from tfcluster.runtime.step_trace import StepTrace, timeline_labels

_PLAIN, _MERGE, _ENTER, _EXIT, _NEXT, _TRIGGER, _SEND = range(7)
_KIND = {
    **dict.fromkeys(MERGE_OPS, _MERGE),
    **dict.fromkeys(ENTER_OPS, _ENTER),
    **dict.fromkeys(EXIT_OPS, _EXIT),
    **dict.fromkeys(NEXT_ITERATION_OPS, _NEXT),
    "ControlTrigger": _TRIGGER,
    "_Send": _SEND,
}
# Cancellation and the deadline are looked at once per this many nodes.
_CHECK_EVERY = 64


def build_executor(
    nodes: Sequence[Node],
    feeds: Sequence[str],
    fetches: Sequence[str],
    targets: Sequence[str],
    kernel_cache: dict[str, Any] | None = None,
    default_device: str = "",
    snapshot_ref_fetches: bool = False,
) -> Executor | FrameExecutor:
    """The executor for one partition: the frame executor where it holds TF1 control flow."""
    if has_control_flow(nodes):
        return FrameExecutor(nodes, feeds, fetches, targets, kernel_cache, default_device)
    return Executor(
        nodes,
        feeds,
        fetches,
        targets,
        kernel_cache=kernel_cache,
        default_device=default_device,
        snapshot_ref_fetches=snapshot_ref_fetches,
    )


class _Pending:
    """A node waiting in one iteration: inputs still to come, dead inputs, values so far."""

    __slots__ = ("dead", "dead_enter", "fired", "inputs", "live", "remaining")

    def __init__(self, remaining: int, inputs: list[Any]) -> None:
        self.remaining = remaining
        self.dead = 0
        self.inputs = inputs
        self.live = False  # a Merge has its live input
        self.dead_enter = False  # a Merge got a dead value from an Enter
        self.fired = False  # a Merge ran in this iteration


class _Iter:
    """One iteration of a frame: where its ready nodes sort, and its waiting nodes."""

    __slots__ = ("key", "pending")

    def __init__(self, key: tuple[int, ...]) -> None:
        self.key = key
        self.pending: dict[int, _Pending] = {}


class _Frame:
    """One instance of a loop frame: per parent frame and parent iteration."""

    __slots__ = (
        "dead_exits",
        "enters_left",
        "invariants",
        "iterations",
        "key",
        "live_exits",
        "name",
        "outstanding",
        "parent",
        "parent_iter",
    )

    def __init__(
        self, name: str, parent: _Frame | None, parent_iter: int, enters: int, key: tuple[int, ...]
    ) -> None:
        self.name = name
        self.parent = parent
        self.parent_iter = parent_iter
        self.key = key  # the iteration path of the parent: orders ready nodes
        self.iterations: dict[int, _Iter] = {}
        # Loop invariants (is_constant Enters): (node, value, dead), given to every iteration.
        self.invariants: list[tuple[int, Any, bool]] = []
        self.enters_left = enters
        self.outstanding = 0  # ready nodes of this frame not done, and live child frames
        self.live_exits: set[int] = set()
        self.dead_exits: set[int] = set()


class FrameExecutor:
    """Executor's interface (feeds, run, run_nested) over a graph with TF1 control flow."""

    def __init__(
        self,
        nodes: Sequence[Node],
        feeds: Sequence[str],
        fetches: Sequence[str],
        targets: Sequence[str],
        kernel_cache: dict[str, Any] | None = None,
        default_device: str = "",
    ) -> None:
        by_name = {n.name: n for n in nodes}
        self.feeds = list(feeds)
        self.fetches = list(fetches)
        self.fetch_nodes = retval_names(self.fetches)
        # Fetches from here on may be dead: the values a loop body keeps for its gradient,
        # computed in a branch of a cond the iteration did not take.
        self.live_fetches = len(self.fetches)
        fed = set(self.feeds)
        needed = _needed(_roots(self.fetches, targets, by_name, fed), by_name, fed)
        order = [by_name[n] for n in needed]
        frame_of = assign_frames(by_name, needed, fed)
        self.node_names = needed
        index = {name: i for i, name in enumerate(needed)}
        cache = kernel_cache if kernel_cache is not None else {}
        n = len(order)
        self._names = needed
        self._fns: list[Any] = []
        self._async: list[bool] = []
        self._kinds: list[int] = []
        self._host: list[bool] = []
        self._derefs: list[tuple[int, ...]] = []
        self._num_outputs: list[int] = [1] * n
        self._out_edges: list[list[tuple[int, int, int]]] = [[] for _ in order]
        self._control_out: list[list[int]] = [[] for _ in order]
        self._initial: list[int] = []
        self._num_inputs: list[int] = []
        self._fed_inputs: list[tuple[tuple[int, int], ...]] = []
        self._frame_names: list[str] = [""] * n
        self._constant: list[bool] = [False] * n
        enters_per_frame: dict[str, int] = {}
        target_names = set(targets)
        fetched_nodes = {index[split_tensor_name(t)[0]] for t in self.fetches if t not in fed}
        feed_index = {t: k for k, t in enumerate(self.feeds)}
        outputs_read: dict[int, int] = {}
        for i, node in enumerate(order):
            device = node.device or default_device
            fn, is_async = _bind(node, device, cache)
            self._fns.append(fn)
            self._async.append(is_async)
            kind = _KIND.get(node.op, _PLAIN)
            self._kinds.append(kind)
            self._host.append(on_host(device))
            op_def = op_def_registry.lookup(node.op)
            keep = op_def.ref_inputs if op_def is not None else frozenset()
            self._derefs.append(
                tuple(
                    k
                    for k, (src, idx) in enumerate(node.inputs)
                    if k not in keep and f"{src}:{idx}" not in fed and _hands_out_refs(by_name[src])
                )
            )
            fed_here = []
            waits = 0
            for pos, (src, idx) in enumerate(node.inputs):
                key = f"{src}:{idx}"
                if key in fed:
                    fed_here.append((pos, feed_index[key]))
                    continue
                s = index[src]
                self._out_edges[s].append((idx, i, pos))
                outputs_read[s] = max(outputs_read.get(s, 1), idx + 1)
                waits += 1
            for src in node.control_inputs:
                self._control_out[index[src]].append(i)
            controls = len(node.control_inputs)
            self._initial.append(controls if kind == _MERGE else waits + controls)
            self._num_inputs.append(waits)
            self._fed_inputs.append(tuple(fed_here))
            if kind == _ENTER:
                name = str(_text(node.attrs.get("frame_name", "")))
                self._frame_names[i] = name
                self._constant[i] = bool(node.attrs.get("is_constant", False))
                enters_per_frame[name] = enters_per_frame.get(name, 0) + 1
        for i in range(n):
            self._num_outputs[i] = max(outputs_read.get(i, 1), 2 if self._kinds[i] == _MERGE else 1)
        self._enters_per_frame = enters_per_frame
        # Nodes whose outputs only go on to their consumers in the same frame and iteration.
        self._fast = [
            self._kinds[i] == _PLAIN
            and not self._async[i]
            and i not in fetched_nodes
            and self._names[i] not in target_names
            for i in range(n)
        ]
        # Nodes waiting for one input only (no Merge, nothing fed): ready as it arrives.
        self._single = [
            self._initial[i] == 1 and self._kinds[i] != _MERGE and not self._fed_inputs[i]
            for i in range(n)
        ]
        # Fetches and targets: outside every loop.
        self._fetch_at: list[tuple[int, int] | None] = []
        for t in self.fetches:
            if t in fed:
                self._fetch_at.append(None)
                continue
            src, idx = split_tensor_name(t)
            frame = output_frame(by_name[src], frame_of[src])
            if frame != ROOT:
                raise errors.InvalidArgumentError(
                    None,
                    None,
                    f"Fetch '{t}' is inside the while loop '{frame_label(frame)}': "
                    "only tensors outside loops can be fetched",
                )
            self._fetch_at.append((index[src], idx))
            # A dead node's outputs are made up to the last one anything reads.
            self._num_outputs[index[src]] = max(self._num_outputs[index[src]], idx + 1)
        self._fetched_nodes = {at[0] for at in self._fetch_at if at is not None}
        self._targets = [index[t] for t in targets]
        self._target_set = frozenset(self._targets)
        for target in targets:
            if frame_of[target] != ROOT:
                raise errors.InvalidArgumentError(
                    None, None, f"Target '{target}' is inside a while loop"
                )
        self.devices = sorted({n.device or default_device for n in order} - {""})
        # What a traced step records of each node (its name and device), and the labels.
        self._traced = [_NodeInfo(n.name, n.device or default_device) for n in order]
        self._order = order
        self._labels: dict[str, str] | None = None

    # ------------------------------------------------------------------------------------
    def run(self, ctx: StepContext, feed_values: Sequence[Any]) -> list[Any]:
        stats = None
        if ctx.trace:
            if self._labels is None:
                self._labels = timeline_labels(self._order)
            stats = StepTrace(self.devices, self._labels)
        box, previous_box = outbox.open_outbox()
        try:
            with float_errors.silence():
                return _Run(self, ctx, feed_values, box, stats).run()
        finally:
            outbox.close_outbox(box, previous_box)
            if stats is not None:
                ctx.step_stats.extend(stats.to_protos())

    def run_nested(self, ctx: StepContext, feed_values: Sequence[Any]) -> list[Any]:
        return self.run(ctx, feed_values)


class _Run:
    """One step of a FrameExecutor: the frames, the ready nodes, the values fetched."""

    def __init__(
        self,
        ex: FrameExecutor,
        ctx: StepContext,
        feed_values: Sequence[Any],
        box: Any,
        stats: StepTrace | None = None,
    ) -> None:
        self.ex = ex
        self.stats = stats
        self.ctx = ctx
        self.feed_values = feed_values
        self.box = box
        self.root = _Frame("", None, 0, 0, ())
        self.frames: dict[tuple[int, int, str], _Frame] = {}
        # (iteration path, arrival order, frame, iteration, node, inputs, dead)
        self.ready: list[tuple[tuple[int, ...], int, _Frame, _Iter, int, list[Any], bool]] = []
        self.seq = itertools.count()
        self.fetched: dict[tuple[int, int], Any] = {}
        self.ran_targets: set[int] = set()
        self.done_q: queue.SimpleQueue[tuple[Any, Any, BaseException | None]] = queue.SimpleQueue()
        self.in_flight = 0

    # ---- the loop ----------------------------------------------------------------------
    def run(self) -> list[Any]:
        ex = self.ex
        root_iter = self._iteration(self.root, 0)
        for i in range(len(ex._kinds)):
            if ex._initial[i] == 0 and ex._num_inputs[i] == 0:
                p = root_iter.pending.pop(i, None) or self._new_pending(i)
                self._enqueue(self.root, root_iter, i, p.inputs, p.dead > 0)
        ctx = self.ctx
        ready = self.ready
        fast, fns, derefs, names = ex._fast, ex._fns, ex._derefs, ex._names
        host = ex._host
        pop = heapq.heappop
        deliver = self._deliver_outputs
        count = 0
        try:
            while ready or self.in_flight:
                if not ready:
                    self._wait_async()
                    continue
                _, _, frame, state, i, inputs, dead = pop(ready)
                count += 1
                if count % _CHECK_EVERY == 0:
                    ctx.time_left()
                if dead or not fast[i] or self.stats is not None:
                    self._execute(frame, state, i, inputs, dead)
                    continue
                # The common case, inline: a plain node, all inputs live.
                try:
                    if derefs[i]:
                        self._read_refs(i, inputs)
                    if device_copy.active and host[i]:
                        inputs = [device_copy.to_host(v) for v in inputs]
                    outs = fns[i](ctx, inputs)
                except Exception as e:
                    raise with_node(e, names[i]) from e
                deliver(frame, state, i, outs, False)
                frame.outstanding -= 1
                if not frame.outstanding and frame.parent is not None:
                    self._maybe_done(frame)
        except BaseException:
            ctx.cancelled.set()
            raise
        return self._results()

    def _read_refs(self, i: int, inputs: list[Any]) -> None:
        name = self.ex._names[i]
        for k in self.ex._derefs[i]:
            v = inputs[k]
            if isinstance(v, VariableRef):
                inputs[k] = v.read(name)

    def _execute(self, frame: _Frame, state: _Iter, i: int, inputs: list[Any], dead: bool) -> None:
        ex = self.ex
        kind = ex._kinds[i]
        if dead and kind == _SEND:
            raise errors.UnimplementedError(
                None,
                None,
                f"A dead tensor (from the untaken branch of a tf.cond) would have to go to "
                f"another task through {ex._names[i]}: place the cond's nodes on one task",
            )
        if dead and kind != _TRIGGER:
            self._propagate(frame, state, i, (DEAD,) * ex._num_outputs[i], True)
            self._finish_item(frame)
            return
        name = ex._names[i]
        try:
            if ex._derefs[i]:
                self._read_refs(i, inputs)
            if ex._host[i] and device_copy.active:
                inputs = [device_copy.to_host(v) for v in inputs]
            if ex._async[i]:
                self.in_flight += 1

                def done(outs: Any, err: BaseException | None) -> None:
                    self.done_q.put(((frame, state, i), outs, err))

                ex._fns[i](self.ctx, inputs, done)
                return
            t0 = time.time()
            outs = ex._fns[i](self.ctx, inputs)
            if self.stats is not None:
                self.stats.add(ex._traced[i], t0, time.time(), outs)
        except Exception as e:
            raise with_node(e, name) from e
        self._propagate(frame, state, i, outs, False)
        self._finish_item(frame)

    def _wait_async(self) -> None:
        self.box.flush()
        ctx = self.ctx
        timeout = None if ctx.deadline is None else max(0.0, ctx.deadline - time.monotonic())
        try:
            (frame, state, i), outs, err = self.done_q.get(timeout=timeout)
        except queue.Empty:
            raise errors.DeadlineExceededError(
                None, None, "Timed out waiting for tensors from other tasks"
            ) from None
        self.in_flight -= 1
        if err is not None:
            raise with_node(err, self.ex._names[i])
        self._propagate(frame, state, i, outs, False)
        self._finish_item(frame)

    def _results(self) -> list[Any]:
        ex = self.ex
        out: list[Any] = []
        for k, at in enumerate(ex._fetch_at):
            if at is None:
                out.append(self.feed_values[ex.feeds.index(ex.fetches[k])])
                continue
            if at not in self.fetched:
                raise errors.InvalidArgumentError(
                    None,
                    None,
                    f"Fetch '{ex.fetches[k]}' was never computed: {self._stuck()}",
                )
            value = self.fetched[at]
            if value is DEAD and k < ex.live_fetches:
                raise errors.InvalidArgumentError(None, None, f"Retval[{k}] does not have value")
            if isinstance(value, VariableRef):
                value = value.read(ex.fetch_nodes[k])
            out.append(value)
        for t in ex._targets:
            if t not in self.ran_targets:
                raise errors.InvalidArgumentError(
                    None, None, f"Target '{ex._names[t]}' never ran: {self._stuck()}"
                )
        return out

    def _stuck(self) -> str:
        waiting = sorted(
            {
                self.ex._names[i]
                for frame in [self.root, *self.frames.values()]
                for st in frame.iterations.values()
                for i, p in st.pending.items()
                if not p.fired
            }
        )
        return (
            f"nodes {waiting[:5]} never received all of their inputs (a Merge that is never "
            "fed, or a loop without its Enter)"
        )

    # ---- frames and iterations ---------------------------------------------------------
    def _iteration(self, frame: _Frame, it: int) -> _Iter:
        state = frame.iterations.get(it)
        if state is None:
            state = frame.iterations[it] = _Iter((*frame.key, it))
            for i, value, dead in list(frame.invariants):
                self._deliver_outputs(frame, state, i, (value,), dead)
        return state

    def _child(self, frame: _Frame, it: int, name: str) -> _Frame:
        key = (id(frame), it, name)
        child = self.frames.get(key)
        if child is None:
            enters = self.ex._enters_per_frame.get(name, 0)
            child = _Frame(name, frame, it, enters, (*frame.key, it))
            self.frames[key] = child
            frame.outstanding += 1
        return child

    def _finish_item(self, frame: _Frame) -> None:
        frame.outstanding -= 1
        if not frame.outstanding and frame.parent is not None:
            self._maybe_done(frame)

    def _maybe_done(self, frame: _Frame) -> None:
        while frame.parent is not None and frame.outstanding == 0 and frame.enters_left == 0:
            parent = frame.parent
            del self.frames[(id(parent), frame.parent_iter, frame.name)]
            # A loop that never produced a live value at an Exit (it was on an untaken
            # branch) sends a dead value out, once.
            for i in sorted(frame.dead_exits - frame.live_exits):
                if parent is self.root and i in self.ex._fetched_nodes:
                    self.fetched[(i, 0)] = DEAD
                state = self._iteration(parent, frame.parent_iter)
                self._deliver_outputs(parent, state, i, (DEAD,), True)
            parent.outstanding -= 1
            frame = parent

    # ---- moving values -----------------------------------------------------------------
    def _new_pending(self, i: int) -> _Pending:
        ex = self.ex
        inputs: list[Any] = [DEAD] * (ex._num_inputs[i] + len(ex._fed_inputs[i]))
        pending = _Pending(ex._initial[i], inputs)
        for pos, k in ex._fed_inputs[i]:
            inputs[pos] = value = self.feed_values[k]
            if value is DEAD:  # a loop's kept value from an iteration's untaken branch
                pending.dead += 1
        return pending

    def _enqueue(self, frame: _Frame, state: _Iter, i: int, inputs: list[Any], dead: bool) -> None:
        frame.outstanding += 1
        heapq.heappush(self.ready, (state.key, next(self.seq), frame, state, i, inputs, dead))

    def _propagate(
        self, frame: _Frame, state: _Iter, i: int, outs: Sequence[Any], node_dead: bool
    ) -> None:
        ex = self.ex
        kind = ex._kinds[i]
        if frame is self.root and kind != _ENTER:
            if i in ex._fetched_nodes:
                for k, value in enumerate(outs):
                    self.fetched[(i, k)] = DEAD if node_dead else value
            if i in ex._target_set:
                self.ran_targets.add(i)
        if kind == _ENTER:
            child = self._child(frame, state.key[-1], ex._frame_names[i])
            value = outs[0]
            dead = node_dead or value is DEAD
            child.enters_left -= 1
            if ex._constant[i]:
                child.invariants.append((i, value, dead))
                for child_state in list(child.iterations.values()):
                    self._deliver_outputs(child, child_state, i, (value,), dead)
                if not child.iterations:
                    self._iteration(child, 0)
            else:
                self._deliver_outputs(child, self._iteration(child, 0), i, (value,), dead)
            self._maybe_done(child)
            return
        if kind == _EXIT:
            parent = frame.parent
            assert parent is not None  # assign_frames refused an Exit outside loops
            if node_dead or outs[0] is DEAD:
                frame.dead_exits.add(i)
                return
            frame.live_exits.add(i)
            if parent is self.root and i in ex._fetched_nodes:
                self.fetched[(i, 0)] = outs[0]
            self._deliver_outputs(
                parent, self._iteration(parent, frame.parent_iter), i, outs, False
            )
            return
        if kind == _NEXT:
            if node_dead or outs[0] is DEAD:
                return  # the loop ends here: no next iteration
            following = self._iteration(frame, state.key[-1] + 1)
            self._deliver_outputs(frame, following, i, outs, False)
            return
        self._deliver_outputs(frame, state, i, outs, node_dead)

    def _deliver_outputs(
        self, frame: _Frame, state: _Iter, i: int, outs: Sequence[Any], node_dead: bool
    ) -> None:
        ex = self.ex
        single = ex._single
        src_is_enter = ex._kinds[i] == _ENTER
        for idx, dst, pos in ex._out_edges[i]:
            try:
                value = outs[idx]
            except IndexError:
                # A GraphDef reading an output its source does not have (a client's bad graph).
                raise errors.InvalidArgumentError(
                    None,
                    None,
                    f"Node '{ex._names[dst]}': Connecting to invalid output {idx} of source "
                    f"node {ex._names[i]} which has {len(outs)} outputs",
                ) from None
            dead = node_dead or value is DEAD
            if single[dst]:
                frame.outstanding += 1
                heapq.heappush(
                    self.ready, (state.key, next(self.seq), frame, state, dst, [value], dead)
                )
            else:
                self._arrive(frame, state, dst, pos, value, dead, src_is_enter)
        for dst in ex._control_out[i]:
            if single[dst]:
                inputs: list[Any] = []
                frame.outstanding += 1
                heapq.heappush(
                    self.ready, (state.key, next(self.seq), frame, state, dst, inputs, node_dead)
                )
            else:
                self._arrive(frame, state, dst, -1, None, node_dead, src_is_enter)

    def _arrive(
        self,
        frame: _Frame,
        state: _Iter,
        dst: int,
        pos: int,
        value: Any,
        dead: bool,
        src_is_enter: bool,
    ) -> None:
        ex = self.ex
        pending = state.pending
        p = pending.get(dst)
        if p is None:
            p = pending[dst] = self._new_pending(dst)
        if ex._kinds[dst] == _MERGE:
            if p.fired:
                return
            if pos < 0:
                p.remaining -= 1
            elif not dead:
                if not p.live:
                    p.live = True
                    p.inputs[pos] = value
            else:
                p.dead += 1
                if src_is_enter:
                    p.dead_enter = True
            all_dead = p.dead_enter or p.dead == ex._num_inputs[dst]
            if p.remaining == 0 and (p.live or all_dead):
                p.fired = True
                self._enqueue(frame, state, dst, p.inputs, not p.live)
            return
        if pos >= 0:
            p.inputs[pos] = value
        if dead:
            p.dead += 1
        p.remaining -= 1
        if p.remaining == 0:
            del pending[dst]
            self._enqueue(frame, state, dst, p.inputs, p.dead > 0)


class _NodeInfo:
    __slots__ = ("device", "name")

    def __init__(self, name: str, device: str) -> None:
        self.name = name
        self.device = device


def _hands_out_refs(node: Node) -> bool:
    op_def = op_def_registry.lookup(node.op)
    return bool(op_def is not None and op_def.ref_outputs)


def _needed(roots: list[str], by_name: dict[str, Node], fed: set[str]) -> list[str]:
    """The nodes the roots need, back edges of loops included, in the partition's order."""
    needed: set[str] = set()
    stack = list(roots)
    while stack:
        name = stack.pop()
        if name in needed:
            continue
        node = by_name.get(name)
        if node is None:
            raise errors.InvalidArgumentError(
                None, None, f"Node '{name}' is an input of a node but is not in the graph"
            )
        needed.add(name)
        stack.extend(src for src, idx in node.inputs if f"{src}:{idx}" not in fed)
        stack.extend(node.control_inputs)
    return [name for name in by_name if name in needed]


def _text(value: object) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


__all__ = ["FrameExecutor", "build_executor"]
