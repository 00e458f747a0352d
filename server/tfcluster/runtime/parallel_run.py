"""One step of a graph whose heavy kernels run on several threads at once (the executor's
inter-op width > 1), with no thread idle while a kernel is ready.

The stepping thread takes ready kernels, most urgent first (runtime/critical_path.py: the one
heading the longest chain of work still to come), runs light ones itself and hands heavy ones
to the inter-op threads while others are ready. An inter-op thread that ends a kernel records
its outputs and goes on with the most urgent ready kernel itself, as TensorFlow's executor
threads do: a convolution's input gradient that ends on the inter-op thread starts the next
layer's gradients there at once, instead of waiting until the filter gradient on the stepping
thread ends, and a chain of kernels (the forward pass) runs on one thread with no hand-over
per kernel; the stepping thread is woken only when kernels are left ready for it. A kernel
may also wait for a running one (_may_start: an update waits for the reads of its variable;
work with slack leaves a core to a helper that wants it). All the step's bookkeeping (values,
pending counts, the ready heap, the running kernels) is under one lock; kernels run outside
it.
"""

from __future__ import annotations

import heapq
import queue
import threading
import time
from collections.abc import Callable, Sequence
from typing import Any

from tfcluster.framework import errors
from tfcluster.runtime import device_copy, inter_op, outbox, thread_budget

# A worker's note to the stepping thread that the ready heap or the count of kernels in
# flight changed (it re-checks them).
_WAKE = (-1, None, None, 0.0)

Message = tuple[int, Any, BaseException | None, float]


class ParallelRun:
    """The state of one step; run() runs it to the end or raises the first kernel error
    (named by `with_node`)."""

    def __init__(
        self,
        executor: Any,
        ctx: Any,
        vals: list[Any],
        stats: Any,
        width: int,
        priority: Sequence[float] | None,
        follows: Sequence[float] | None,
        with_node: Callable[[BaseException, str], BaseException],
    ) -> None:
        self.ex = executor
        self.steps = executor.steps
        self.consumers = executor.consumers
        self.ctx = ctx
        self.vals = vals
        self.stats = stats
        self.width = width
        self.with_node = with_node
        n = len(self.steps)
        # Ties (and graphs not probed yet) go by the later node first, as the executor's
        # stack did.
        self.key = (
            [(-priority[i], -i) for i in range(n)]
            if priority is not None
            else [(0.0, -i) for i in range(n)]
        )
        self.priority = priority
        self.follows = follows
        # Kernels running now (node -> the work on the longest chain after it): a heavy
        # kernel with slack waits for them (see _may_start).
        self.running: dict[int, float] = {}
        self.pending = list(executor.pending_counts)
        self.reads_left = list(executor.slot_reads)
        self.heap = [(*self.key[i], i) for i, c in enumerate(self.pending) if c == 0]
        heapq.heapify(self.heap)
        self.remaining = n
        self.outstanding = 0  # kernels in flight not on the stepping thread (pooled, async)
        self.pooled = 0  # of those, on the inter-op threads
        self.failed = False
        self.lock = threading.Lock()
        self.done_q: queue.SimpleQueue[Message] = queue.SimpleQueue()
        self.pool = inter_op.pool(width - 1)

    # ---- bookkeeping (under the lock) -------------------------------------------------------
    def _take_inputs(self, i: int) -> list[Any]:
        step, vals = self.steps[i], self.vals
        ins = [vals[s] for s in step.in_slots]
        for s in step.only_use:
            vals[s] = None
        for s in step.counted:
            self.reads_left[s] -= 1
            if not self.reads_left[s]:
                vals[s] = None
        return ins

    def _finish(self, i: int, outs: Any, t0: float) -> None:
        step = self.steps[i]
        self.running.pop(i, None)
        if self.stats is not None:
            self.stats.add(step, t0, time.time(), outs)
        for idx, slot in step.out_pairs:
            self.vals[slot] = outs[idx]
        self.remaining -= 1
        pending, key, heap = self.pending, self.key, self.heap
        for c in self.consumers[i]:
            pending[c] -= 1
            if pending[c] == 0:
                heapq.heappush(heap, (*key[c], c))

    def _may_start(self, i: int) -> bool:
        """Whether a thread free now should start ready node i (else it waits for a running
        kernel to end).

        - A kernel that writes a variable a running kernel reads waits for that read: the
          update would copy the whole variable (kernels/in_place.py) rather than write it
          while it is read (a dense layer's weights, read by the input gradient's product).
        - A heavy kernel whose whole chain is shorter than what waits for a kernel running
          elsewhere has slack: while a helper of that kernel waits for a spare core, this
          core is left to it (the work after it starts sooner) and the slack kernel runs once
          nothing that urgent wants the core."""
        writes = self.ex.var_writes[i]
        if writes and any(writes & self.ex.var_reads[k] for k in self.running):
            return False
        if self.priority is None or self.follows is None or not self.steps[i].heavy:
            return True
        mine = self.priority[i]
        if all(mine >= after for after in self.running.values()):
            return True
        return thread_budget.helpers_waiting() == 0

    def _start(self, i: int) -> None:
        # An asynchronous kernel (a receive) waits for another task, not for a core.
        if not self.steps[i].is_async:
            self.running[i] = self.follows[i] if self.follows is not None else 0.0

    # ---- outside the lock -------------------------------------------------------------------
    def _prepare(self, i: int, ins: list[Any]) -> list[Any]:
        step = self.steps[i]
        for k, who in zip(step.derefs, step.read_names):
            ins[k] = ins[k].read(who)
        if step.to_host and device_copy.active:
            for k in step.to_host:
                ins[k] = device_copy.to_host(ins[k])
        return ins

    def run(self, box: outbox.Outbox) -> None:
        steps, ctx, lock = self.steps, self.ctx, self.lock
        width = self.width
        while True:
            with lock:
                if not self.remaining:
                    return
                i = self.heap[0][2] if self.heap else -1
                if i >= 0 and not self._may_start(i):
                    i = -1
                if i >= 0:
                    heapq.heappop(self.heap)
                    self._start(i)
                    step = steps[i]
                    ins = self._take_inputs(i)
                    pooled_now = self.pooled
                    hand = (
                        step.heavy
                        and not step.is_async
                        and (self.heap or self.pooled)
                        and self.pooled < width - 1
                    )
                    if hand:
                        self.pooled += 1
                        self.outstanding += 1
                    elif step.is_async:
                        self.outstanding += 1
            if i < 0:
                self._wait(box)
                continue
            try:
                self._prepare(i, ins)
                t0 = time.time()
                if step.is_async:

                    def done(
                        outs: Any, err: BaseException | None, i: int = i, t0: float = t0
                    ) -> None:
                        self.done_q.put((i, outs, err, t0))

                    step.fn(ctx, ins, done)
                    continue
                if hand:
                    # The inter-op thread's core is taken now, not when the thread starts:
                    # a helper of a kernel this thread runs meanwhile must not take it.
                    thread_budget.kernel_begins()
                    try:
                        self.pool.submit(self._worker, i, ins, t0)
                    except BaseException:
                        thread_budget.kernel_ends()
                        raise
                    # The inputs are the inter-op thread's now: held here while this thread
                    # waits, a variable's array among them would make its update wait for
                    # this thread, then copy the variable (kernels/in_place.py).
                    ins = []
                    continue
                if step.heavy and pooled_now:
                    with thread_budget.concurrent_kernel():
                        outs = step.fn(ctx, ins)
                else:
                    outs = step.fn(ctx, ins)
            except Exception as e:
                self._fail()
                raise self.with_node(e, step.name) from e
            with lock:
                self._finish(i, outs, t0)
            # Nothing of the last kernel's may outlive it while this thread waits or runs
            # another: a variable's array held here stops a sparse update writing it in place.
            ins = outs = []

    def _fail(self) -> None:
        with self.lock:
            self.failed = True
        self.ctx.cancelled.set()

    def _wait(self, box: outbox.Outbox) -> None:
        """Nothing ready: wait for a kernel in flight (an async one's outputs, or a worker's
        note that it finished one)."""
        with self.lock:
            # What ended on an inter-op thread since the stepping thread looked may have ended
            # the step or left a kernel it can start: look again rather than wait.
            if not self.remaining or (self.heap and self._may_start(self.heap[0][2])):
                return
            outstanding = self.outstanding
        if not outstanding:
            raise errors.InternalError(None, None, "Executor stalled: graph has a cycle")
        if self.ex.ref_fetches:
            self.ex._snapshot_ref_fetches(self.ctx, self.vals)
        box.flush()
        ctx = self.ctx
        timeout = None if ctx.deadline is None else max(0.0, ctx.deadline - time.monotonic())
        try:
            i, outs, err, t0 = self.done_q.get(timeout=timeout)
        except queue.Empty:
            self._fail()
            waiting = [s.name for s in self.steps if s.is_async]
            raise errors.DeadlineExceededError(
                None, None, f"Timed out waiting for tensors (receivers: {waiting[:5]})"
            ) from None
        if i < 0:
            return
        if err is not None:
            self._fail()
            raise self.with_node(err, self.steps[i].name)
        with self.lock:
            self.outstanding -= 1
            self._finish(i, outs, t0)

    def _worker(self, i: int, ins: list[Any], t0: float) -> None:
        """Runs kernel i on an inter-op thread, then the most urgent ready kernel as long as
        there is one (the stepping thread is woken for the others). The core
        it holds (thread_budget.kernel_begins, by the stepping thread) is given back when it
        stops."""
        try:
            self._work(i, ins, t0)
        finally:
            thread_budget.kernel_ends()

    def _work(self, i: int, ins: list[Any], t0: float) -> None:
        steps, lock = self.steps, self.lock
        # The first kernel's input list is also the thread pool's argument, alive while this
        # thread goes on along the chain: emptied once the kernel's outputs are recorded, or
        # a variable's array in it would make the variable's update wait for this thread,
        # then copy the variable (kernels/in_place.py: the conv net's 12.8 MB dense kernel,
        # 6 ms of waiting while its update held a core).
        handed: list[Any] | None = ins
        while True:
            try:
                outs = steps[i].fn(self.ctx, ins)
            except BaseException as e:
                with lock:
                    self.pooled -= 1
                    self.outstanding -= 1
                self.done_q.put((i, None, e, t0))
                return
            ins = []
            nxt = -1
            with lock:
                self._finish(i, outs, t0)
                if handed is not None:
                    if handed is not outs:
                        handed.clear()
                    handed = None
                heap = self.heap
                if heap and not self.failed:
                    top = heap[0][2]
                    if not steps[top].is_async and self._may_start(top):
                        nxt = heapq.heappop(heap)[2]
                        self._start(nxt)
                        ins = self._take_inputs(nxt)
                if nxt < 0:
                    self.pooled -= 1
                    self.outstanding -= 1
                # The stepping thread looks again only when this thread stops or leaves it
                # ready kernels: a chain goes on here without a hand-over per kernel.
                wake = nxt < 0 or bool(heap)
            outs = None
            if wake:
                self.done_q.put(_WAKE)
            if nxt < 0:
                return
            i = nxt
            try:
                self._prepare(i, ins)
            except BaseException as e:
                with lock:
                    self.pooled -= 1
                    self.outstanding -= 1
                self.done_q.put((i, None, e, t0))
                return
            t0 = time.time()
