"""A step with asynchronous kernels (receives) compiled into straight-line groups of nodes.

The dataflow loop pays, per node, for popping it off the ready list, counting down its
consumers' inputs, dropping values by counters and the checks it makes for every kind of
node; a worker's partition of a training step (a few hundred nodes) spends as much there as
in its kernels. A partition has few asynchronous nodes, though (its _Recvs), and which nodes
can run depends only on which of those have finished: a node's *signature* is the set of
asynchronous nodes it waits for, directly or through other nodes. The nodes of one signature
form a group that can run, start to end, once those nodes have finished, and each group is
compiled as run_plan.py compiles a whole step: one line per node, values in locals where the
group alone uses them, dropped after their last read. A step runs the group of the empty
signature, then, each time a receive finishes, every group it completes (smaller signatures
first: a node's inputs have signatures within its own). So, as in the dataflow loop, a step
waits only when every node that does not need an outstanding receive has run, and nothing
waits on a message held back (the outbox is flushed before each wait).
"""

from __future__ import annotations

import queue
import time
from collections.abc import Callable, Sequence
from typing import Any

from tfcluster.framework import errors
from tfcluster.runtime import inline_reads, outbox, run_plan

_Fail = Callable[[BaseException, str], BaseException]


def signatures(is_async: Sequence[bool], waits_for: Sequence[Sequence[int]]) -> list[int]:
    """Per node (in topological order), the asynchronous nodes it waits for, as a bit mask
    (bit k: the k-th asynchronous node), through any chain of inputs and control inputs."""
    bit: dict[int, int] = {}
    for i, a in enumerate(is_async):
        if a:
            bit[i] = 1 << len(bit)
    sig = [0] * len(is_async)
    for i, deps in enumerate(waits_for):
        mask = 0
        for d in deps:
            mask |= sig[d] | bit.get(d, 0)
        sig[i] = mask
    return sig


class AsyncPlan:
    """steps: the executor's prepared _Steps in order; const_ops[i]: step i is a CPU Const
    (its outputs are taken now); waits_for[i]: the steps step i waits for (inputs and
    control inputs); kept: slots never dropped (feeds, fetches); fail(error, node name): the
    error to raise for a node's failure."""

    def __init__(
        self,
        steps: Sequence[Any],
        const_ops: Sequence[bool],
        waits_for: Sequence[Sequence[int]],
        num_slots: int,
        feed_slots: Sequence[int],
        fetch_slots: Sequence[int],
        fail: _Fail,
        sends: Sequence[bool] = (),
    ) -> None:
        self._steps = steps
        self._fail = fail
        self._feed_slots = tuple(feed_slots)
        self._fetch_slots = tuple(fetch_slots)
        sig = signatures([s.is_async for s in steps], waits_for)
        self._async_bit: dict[int, int] = {}
        for i, s in enumerate(steps):
            if s.is_async:
                self._async_bit[i] = 1 << len(self._async_bit)
        members: dict[int, list[int]] = {}
        for i, is_const in enumerate(const_ops):
            if not is_const:
                members.setdefault(sig[i], []).append(i)
        # Smaller signatures first: every input of a group's node is in a group whose
        # signature is within the node's, so it ran before (or in the same group, earlier).
        order = sorted(members, key=lambda m: (bin(m).count("1"), members[m][0]))
        env, const_ref = run_plan.plan_env(steps, const_ops, fail)
        group_of = {i: g for g, m in enumerate(order) for i in members[m]}
        kept = {*feed_slots, *fetch_slots}
        # Slot -> the groups that read it, and whether a group's node (not a receive) made it.
        readers: dict[int, set[int]] = {}
        for i, step in enumerate(steps):
            if i in group_of:
                for s in step.in_slots:
                    readers.setdefault(s, set()).add(group_of[i])
        made_in: dict[int, int] = {}
        for i, step in enumerate(steps):
            if i in group_of and not step.is_async:
                for _, slot in step.out_pairs:
                    made_in[slot] = group_of[i]
        local = {
            s
            for s, gs in readers.items()
            if s not in kept and s not in const_ref and len(gs) == 1 and made_in.get(s) in gs
        }
        # Slots several groups read: dropped by the last of them to run (a count per step).
        shared = sorted(
            s for s, gs in readers.items() if s not in kept and s not in const_ref and len(gs) > 1
        )
        # Each step starts with its fetched constants in place (groups read constants from
        # the plan's globals; only fetches read vals for them).
        self._start = [None] * num_slots
        for s in fetch_slots:
            if s in const_ref:
                self._start[s] = env[const_ref[s]]
        self._counts_start = [0] * num_slots
        for s in shared:
            self._counts_start[s] = len(readers[s])
        self._groups: list[tuple[int, Callable[..., int]]] = []
        for g, mask in enumerate(order):
            ordered, flush_after = _sends_first(members[mask], sends, waits_for, steps)
            fn = _compile_group(
                g,
                [steps[i] for i in ordered],
                ordered,
                env,
                const_ref,
                local,
                shared,
                kept,
                flush_after,
            )
            self._groups.append((mask, fn))

    def run(self, ctx: Any, feeds: Sequence[Any]) -> list[Any]:
        vals: list[Any] = list(self._start)
        for slot, value in zip(self._feed_slots, feeds):
            vals[slot] = value
        counts = list(self._counts_start)
        done_q: queue.SimpleQueue[tuple[int, Any, BaseException | None]] = queue.SimpleQueue()
        put = done_q.put
        finished = 0
        left = list(self._groups)
        outstanding = 0
        waiter = inline_reads.open_waiter()
        try:
            box, previous_box = outbox.open_outbox()
            box.waiter = waiter
            try:
                while True:
                    waiting = []
                    for mask, fn in left:
                        if mask & finished != mask:
                            waiting.append((mask, fn))
                            continue
                        try:
                            outstanding += fn(ctx, vals, counts, put, box.flush)
                        except BaseException:
                            ctx.cancelled.set()
                            raise
                    left = waiting
                    if not left:
                        break
                    if not outstanding:
                        raise errors.InternalError(
                            None, None, "Executor stalled: graph has a cycle"
                        )
                    box.flush()
                    i = self._take(ctx, vals, self._wait(ctx, done_q, waiter, outstanding))
                    outstanding -= 1
                    finished |= self._async_bit[i]
            finally:
                outbox.close_outbox(box, previous_box)
            # Receives nothing reads (a fetch aside) still finish before the step does.
            while outstanding:
                self._take(ctx, vals, self._wait(ctx, done_q, waiter, outstanding))
                outstanding -= 1
        finally:
            inline_reads.close_waiter(waiter)
        return [vals[s] for s in self._fetch_slots]

    def _take(self, ctx: Any, vals: list[Any], done: tuple[int, Any, BaseException | None]) -> int:
        """A finished receive's values into their slots (its error ends the step, named after
        it); the receive's node index."""
        i, outs, err = done
        step = self._steps[i]
        if err is not None:
            ctx.cancelled.set()
            raise self._fail(err, step.name)
        for idx, slot in step.out_pairs:
            vals[slot] = outs[idx]
        return i

    def _wait(
        self,
        ctx: Any,
        done_q: queue.SimpleQueue[tuple[int, Any, BaseException | None]],
        waiter: inline_reads.Waiter,
        outstanding: int,
    ) -> tuple[int, Any, BaseException | None]:
        """What a receive finished; this thread reads the answers it waits for itself when
        it can (runtime/inline_reads.py)."""
        timeout = None if ctx.deadline is None else max(0.0, ctx.deadline - time.monotonic())
        try:
            return waiter.wait(done_q, timeout, outstanding)
        except queue.Empty:
            ctx.cancelled.set()
            waiting = [s.name for s in self._steps if s.is_async]
            raise errors.DeadlineExceededError(
                None, None, f"Timed out waiting for tensors (receivers: {waiting[:5]})"
            ) from None


def _sends_first(
    members: Sequence[int], sends: Sequence[bool], waits_for: Sequence[Sequence[int]], steps: Any
) -> tuple[list[int], int]:
    """A group's nodes with its sends and receives (and what they wait for in the group)
    first, and how many those are (0: nothing would run after them). The outbox is flushed
    there: a peer gets what it waits for (a worker's ids, for a ps's gathers) while this
    step runs the rest of the group, not after it."""
    inside = set(members)
    urgent: set[int] = set()
    stack = [i for i in members if (sends and sends[i]) or steps[i].is_async]
    while stack:
        i = stack.pop()
        if i in urgent:
            continue
        urgent.add(i)
        stack.extend(d for d in waits_for[i] if d in inside)
    if not any(sends and sends[i] for i in urgent):
        return list(members), 0
    first = [i for i in members if i in urgent]
    rest = [i for i in members if i not in urgent]
    return first + rest, len(first) if rest else 0


def _compile_group(
    g: int,
    steps: Sequence[Any],
    indices: Sequence[int],
    env: dict[str, Any],
    const_ref: dict[int, str],
    local: set[int],
    shared: Sequence[int],
    kept: set[int],
    flush_after: int = 0,
) -> Callable[..., int]:
    """One group as a function (ctx, vals, counts, put, flush) -> receives it started;
    flush() runs after its first `flush_after` nodes (0: never)."""
    shared_set = set(shared)
    # The last read of each slot within this group (by position in the group).
    last_read: dict[int, int] = {}
    for pos, step in enumerate(steps):
        for s in step.in_slots:
            last_read[s] = pos

    def read(slot: int) -> str:
        if slot in const_ref:
            return const_ref[slot]
        return f"s{slot}" if slot in local else f"v[{slot}]"

    body = [f"def group{g}(ctx, v, n, put, flush):", "    started = 0", "    try:"]
    names: dict[int, str] = {}
    for pos, (i, step) in enumerate(zip(indices, steps)):
        env[f"f{i}"] = step.fn
        lines = [f"a = [{', '.join(run_plan.input_expressions(step, i, env, read))}]"]
        if step.to_host:
            env[f"h{i}"] = tuple(step.to_host)
            lines.append(f"_dc.active and _host(a, h{i})")
        # Values this node is the last to read are dropped before its kernel runs (it has
        # them in `a`), as the loop drops them: a variable's array read here must not be held
        # while a sparse update writes it in place (kernels/in_place.py).
        for s in dict.fromkeys(step.in_slots):
            if last_read.get(s) != pos or s in kept or s in const_ref:
                continue
            if s in local:
                lines.append(f"s{s} = None")
            elif s in shared_set:
                lines.append(f"n[{s}] -= 1")
                lines.append(f"if not n[{s}]: v[{s}] = None")
            else:  # made in another group (or received), read by this group alone
                lines.append(f"v[{s}] = None")
        if step.is_async:
            lines.append(f"f{i}(ctx, a, lambda o, e: put(({i}, o, e)))")
            lines.append("started += 1")
        else:
            call = f"f{i}(ctx, a)"
            if not step.out_pairs:
                lines.append(call)
            else:
                lines.append(f"o = {call}")
                for idx, slot in step.out_pairs:
                    lines.append(f"{read(slot)} = o[{idx}]")
        if pos + 1 == flush_after:
            lines.append("flush()")
        for line in lines:
            body.append("        " + line)
            names[len(body)] = step.name  # line numbers count from 1
    body.append("    except Exception as e:")
    body.append("        raise _fail(e, _names[e.__traceback__.tb_lineno]) from e")
    body.append("    return started")
    env[f"_names{g}"] = names
    source = "\n".join(body).replace("_names[", f"_names{g}[")
    code = compile(source, f"<tfcluster async plan group {g}>", "exec")
    exec(code, env)  # the source is made above from slot numbers only
    fn: Callable[..., int] = env[f"group{g}"]
    return fn


__all__ = ["AsyncPlan", "signatures"]
