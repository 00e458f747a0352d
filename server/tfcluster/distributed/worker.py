"""The worker service's logic: graphs by handle, resources, per-step rendezvous, the executor."""

from __future__ import annotations

import contextlib
import itertools
import secrets
import threading
import time
import weakref
from collections import OrderedDict
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

from tfcluster.distributed.interfaces import DeviceInfo, RunGraphResult, WorkerCacheInterface
from tfcluster.framework import errors
from tfcluster.runtime import cancellation, collective_executor, device_copy, gpu, xla_cpu_kernels
from tfcluster.runtime import rendezvous as rdv
from tfcluster.runtime.collective_meeting import CheckFn, Part, deadline_check
from tfcluster.runtime.executor import Executor
from tfcluster.runtime.frame_executor import FrameExecutor, build_executor
from tfcluster.runtime.partition import Partition
from tfcluster.runtime.placement import task_of_device
from tfcluster.runtime.rendezvous import RendezvousMgr
from tfcluster.runtime.resources import ResourceMgr
from tfcluster.runtime.step_context import StepContext

# The message of the AbortedError a RunGraph gets for a graph this worker does not know (it
# restarted since the graph was registered): masters match it to re-register their graphs.
GRAPH_HANDLE_NOT_FOUND = "Graph handle is not found"
# What TF 1.15 reports as a CPU device's memory (its default CPU allocator's size), whatever
# the host has.
CPU_MEMORY_LIMIT = 256 << 20
# A graph handle begins with its worker's incarnation (8 hex digits), then a counter.
_INCARNATION_DIGITS = 8


def graph_handle_incarnation(handle: str) -> str:
    """The incarnation a graph handle names: it changes when its task restarts."""
    return handle[:_INCARNATION_DIGITS]


# How many aborted step ids a worker remembers, so their late RunGraph calls fail at once.
_TOMBSTONES = 4096
# How many steps that have not run here may have receivers waiting here (RecvTensor may come
# before its step's RunGraph); past it a RecvTensor for yet another such step is refused.
DEFAULT_MAX_UNRUN_STEPS = 4096
# Seconds a tensor exchange waits for a step to run here, or after it finished here for its
# receivers, before the step's table is dropped.
DEFAULT_ORPHAN_SECONDS = 60.0

RecvCallback = Callable[[Any, BaseException | None], None]


class _Registered:
    __slots__ = ("executor", "needs_rendezvous", "partition", "recv_keys", "session")

    def __init__(
        self, session: str, partition: Partition, executor: Executor | FrameExecutor
    ) -> None:
        self.session = session
        self.partition = partition
        self.executor = executor
        self.needs_rendezvous = any(n.op in ("_Send", "_Recv") for n in partition.nodes)
        # What a master may push with a RunGraph: the keys the partition receives.
        self.recv_keys = frozenset(
            rdv.make_key(a["send_device"], a["recv_device"], a["tensor_name"])
            for a in (n.attrs for n in partition.nodes if n.op == "_Recv")
        )


class Worker:
    """One task's worker. `worker_cache` finds peers for RecvTensor (None: no peers)."""

    def __init__(
        self,
        task: str,
        devices: Sequence[DeviceInfo] | None = None,
        worker_cache: WorkerCacheInterface | None = None,
        cpus: int = 1,
    ) -> None:
        self.task = task
        self.incarnation = secrets.randbits(63)
        # More than one CPU device: logical CPUs of one process (ConfigProto.device_count of
        # a local session, as tf.config's virtual CPU devices make it).
        self.devices = list(
            devices
            or [
                *(
                    DeviceInfo(f"{task}/device:CPU:{i}", "CPU", CPU_MEMORY_LIMIT, self.incarnation)
                    for i in range(max(1, cpus))
                ),
                # As TF 1.15's pip wheels, every task has an XLA_CPU device too (nodes go
                # there only when asked for by name; runtime/xla_cpu_kernels.py).
                DeviceInfo(
                    f"{task}/device:{xla_cpu_kernels.DEVICE_TYPE}:0",
                    xla_cpu_kernels.DEVICE_TYPE,
                    xla_cpu_kernels.MEMORY_LIMIT,
                    self.incarnation,
                ),
                *_gpu_devices(task, self.incarnation),
            ]
        )
        self.worker_cache = worker_cache
        self.resources = ResourceMgr()
        # Where this task's collective ops meet their groups' other members (and, as a group
        # leader, where other tasks' members meet).
        self.collectives = collective_executor.CollectiveExecutor(task, lambda: self.worker_cache)
        collective_executor.attach(self.resources, self.collectives)
        self.rendezvous = RendezvousMgr()
        self._lock = threading.Lock()
        self._graphs: dict[str, _Registered] = {}
        self._kernel_caches: dict[str, dict[str, Any]] = {}
        self._handles = itertools.count(1)
        # Handles name the incarnation, so a restarted worker never mistakes an old handle.
        self._handle_prefix = f"{self.incarnation & 0xFFFFFFFF:0{_INCARNATION_DIGITS}x}"
        # Steps with rendezvous that ran here and are not cleaned up yet.
        self._steps_seen: set[int] = set()
        # Of those, the steps whose partition here has finished, and when.
        self._steps_done: dict[int, float] = {}
        # Steps that have not run here but have receivers waiting here, since when.
        self._unrun: dict[int, float] = {}
        self.max_unrun_steps = DEFAULT_MAX_UNRUN_STEPS
        self._sweeper: threading.Thread | None = None
        self._closed = threading.Event()
        self._tombstones: OrderedDict[int, BaseException] = OrderedDict()
        # step id -> cancel functions of RecvTensor calls in flight to other tasks.
        self._pending_recvs: dict[int, list[Callable[[], Any]]] = {}
        # A RecvTensor for a step that never runs here is given up after this many seconds,
        # and so is a finished step's tensor nobody came for.
        self.orphan_recv_timeout = DEFAULT_ORPHAN_SECONDS
        # step id -> the contexts of its partitions running here (abort_step cancels them).
        self._running: dict[int, list[StepContext]] = {}

    # ---- collective ops -----------------------------------------------------------------
    def collective_join(
        self, part: Part, deadline: float | None, check: CheckFn | None = None
    ) -> Any:
        """A member of a collective group whose leader is this task brings its part; the
        result once every member came (`check` raises to give up: the caller went away)."""
        return self.collectives.table.join(part, check or deadline_check(deadline, lambda: False))

    # ---- WorkerInterface ------------------------------------------------------------
    def get_status(self, timeout: float | None = None) -> list[DeviceInfo]:
        return list(self.devices)

    def register_graph(
        self, session_handle: str, partition: Partition, deadline: float | None = None
    ) -> str:
        with self._lock:
            cache = self._kernel_caches.setdefault(session_handle, {})
        # Partitions holding TF1 control flow (imported graphs) run in the frame executor.
        executor = build_executor(
            partition.nodes,
            partition.feeds,
            partition.fetches,
            partition.targets,
            kernel_cache=cache,
            default_device=self.devices[0].name,
            snapshot_ref_fetches=partition.snapshot_ref_fetches,
        )
        with self._lock:
            handle = f"{self._handle_prefix}{next(self._handles):08x}"
            self._graphs[handle] = _Registered(session_handle, partition, executor)
        return handle

    def deregister_graph(self, session_handle: str, graph_handle: str) -> None:
        with self._lock:
            reg = self._graphs.get(graph_handle)
            if reg is not None and reg.session == session_handle:
                del self._graphs[graph_handle]

    def run_graph(
        self,
        session_handle: str,
        graph_handle: str,
        step_id: int,
        feeds: Sequence[Any],
        trace: bool = False,
        deadline: float | None = None,
        pushed: Sequence[tuple[str, Any]] = (),
    ) -> RunGraphResult:
        """`pushed`: (rendezvous key, value) tensors the master sent with the request, which
        the partition's receives take from this step's table instead of their tasks."""
        reg = self._graphs.get(graph_handle)
        if reg is None:
            raise self._refused(
                step_id,
                errors.AbortedError(None, None, f"{GRAPH_HANDLE_NOT_FOUND}: {graph_handle}"),
            )
        executor = reg.executor
        if len(feeds) != len(executor.feeds):
            raise self._refused(
                step_id,
                errors.InvalidArgumentError(
                    None, None, f"Expected {len(executor.feeds)} feeds, got {len(feeds)}"
                ),
            )
        unknown = [key for key, _ in pushed if key not in reg.recv_keys]
        if unknown:
            raise self._refused(
                step_id,
                errors.InvalidArgumentError(
                    None, None, f"RunGraph pushed {unknown[0]}, which the graph does not receive"
                ),
            )
        if not reg.needs_rendezvous:
            ctx = StepContext(
                step_id, self.resources, _NO_RENDEZVOUS, deadline=deadline, trace=trace
            )
            with self._cancellable(ctx):
                result = RunGraphResult(executor.run(ctx, feeds), ctx.step_stats)
        else:
            result = self._run_with_rendezvous(executor, step_id, feeds, trace, deadline, pushed)
        if device_copy.active:
            # Fetches leave the task: values computed on a GPU come back as numpy arrays.
            result.fetches = device_copy.all_to_host(result.fetches)
        return result

    def _refused(self, step_id: int, err: errors.OpError) -> errors.OpError:
        """A step that cannot run here fails here at once, for its peers too: what the other
        partitions of the step wait to receive from this task fails with `err` (they may
        be waiting before their master has read this answer)."""
        self.abort_step(step_id, err)
        return err

    def _run_with_rendezvous(
        self,
        executor: Executor | FrameExecutor,
        step_id: int,
        feeds: Sequence[Any],
        trace: bool,
        deadline: float | None,
        pushed: Sequence[tuple[str, Any]] = (),
    ) -> RunGraphResult:
        tomb = self._tombstones.get(step_id)
        if tomb is not None:
            raise tomb
        with self._lock:
            self._steps_seen.add(step_id)
            self._unrun.pop(step_id, None)
        rendezvous = self.rendezvous.find_or_create(step_id)
        self._start_sweeper()
        for key, value in pushed:
            rendezvous.send(key, value)  # raises the step's error if it was aborted
        local = frozenset(key for key, _ in pushed)

        def remote_recv(step: int, key: str, callback: RecvCallback) -> None:
            if key in local:
                self.rendezvous.recv_async(step, key, callback)
            else:
                self._remote_recv(step, key, callback, deadline)

        ctx = StepContext(
            step_id,
            self.resources,
            rendezvous,
            deadline=deadline,
            remote_recv=remote_recv,
            trace=trace,
        )
        try:
            with self._cancellable(ctx):
                fetches = executor.run(ctx, feeds)
        except BaseException as e:
            self.abort_step(step_id, e)
            raise
        with self._lock:
            self._pending_recvs.pop(step_id, None)
            self._steps_done[step_id] = time.monotonic()
        # Peers may still have to pull what this partition sent; the table goes once they have.
        self._maybe_forget(step_id, rendezvous)
        return RunGraphResult(fetches, ctx.step_stats)

    @contextlib.contextmanager
    def _cancellable(self, ctx: StepContext) -> Iterator[None]:
        """While the step runs, abort_step cancels it, and so does its caller going away
        (the call this thread serves, cancellation.current())."""
        step_id = ctx.step_id
        with self._lock:
            tomb = self._tombstones.get(step_id)
            if tomb is None:
                self._running.setdefault(step_id, []).append(ctx)
        if tomb is not None:
            raise tomb
        caller = cancellation.current()
        token = None
        if caller is not None:
            token = caller.register(
                lambda: self.abort_step(
                    step_id,
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
                running = self._running.get(step_id)
                if running is not None:
                    running.remove(ctx)
                    if not running:
                        del self._running[step_id]

    def _maybe_forget(self, step_id: int, rendezvous: rdv.Rendezvous) -> None:
        """Drops a finished step's table once nothing waits in it (no CleanupGraph needed)."""
        if step_id not in self._steps_done or not rendezvous.is_idle():
            return
        with self._lock:
            if step_id not in self._steps_done:
                return
            self._steps_done.pop(step_id, None)
            self._steps_seen.discard(step_id)
        self.rendezvous.cleanup(step_id)

    def abort_step(self, step_id: int, error: BaseException) -> None:
        """The step failed: wake its waiters here with `error`, and fail late arrivals at once."""
        with self._lock:
            self._tombstones[step_id] = error
            while len(self._tombstones) > _TOMBSTONES:
                self._tombstones.popitem(last=False)
            running = list(self._running.get(step_id, ()))
        for ctx in running:
            # While loops, queue waits and readers see it (StepContext.time_left).
            ctx.cancelled.set()
        self.rendezvous.find_or_create(step_id).abort(error)
        self.cleanup_graph(step_id)

    def cleanup_graph(self, step_id: int) -> None:
        with self._lock:
            self._steps_seen.discard(step_id)
            self._steps_done.pop(step_id, None)
            self._unrun.pop(step_id, None)
        self.rendezvous.cleanup(step_id)
        self._cancel_pending(step_id)

    def cleanup_all(self, containers: Sequence[str]) -> None:
        self.resources.cleanup(list(containers))

    def create_worker_session(
        self, session_handle: str, cluster: Mapping[str, str], deadline: float | None = None
    ) -> None:
        # Graphs are registered on demand; what a session brings is where its peers are.
        if self.worker_cache is not None:
            self.worker_cache.learn_peers(cluster)

    def delete_worker_session(self, session_handle: str) -> None:
        with self._lock:
            for h in [h for h, r in self._graphs.items() if r.session == session_handle]:
                del self._graphs[h]
            self._kernel_caches.pop(session_handle, None)

    def recv_tensor(
        self,
        step_id: int,
        key: str,
        callback: RecvCallback,
        deadline: float | None = None,
    ) -> Callable[[], Any] | None:
        """Hands the value the step sends under `key` to `callback`, once it is sent."""
        tomb = self._tombstones.get(step_id)
        if tomb is not None:
            callback(None, tomb)
            return None
        refused = self._note_unrun(step_id)
        if refused is not None:
            callback(None, refused)
            return None
        once = threading.Lock()
        box: list[rdv.Rendezvous] = []

        def deliver(value: Any, err: BaseException | None) -> None:
            if not once.acquire(blocking=False):
                return  # cancelled before the value came (or the other way round)
            callback(value, err)
            if box:
                self._maybe_forget(step_id, box[0])

        box.append(self.rendezvous.recv_async(step_id, key, deliver))
        if once.locked():
            self._maybe_forget(step_id, box[0])  # delivered at once, before box was set
        self._start_sweeper()

        def cancel() -> None:
            box[0].cancel_recv(key, deliver)
            deliver(None, errors.CancelledError(None, None, f"RecvTensor {key} cancelled"))
            self._drop_if_unrun(step_id)

        return cancel

    def _note_unrun(self, step_id: int) -> errors.OpError | None:
        """Remembers that receivers wait for a step that has not run here; an error when too
        many such steps are awaited already (a peer asking for made-up steps)."""
        with self._lock:
            if step_id in self._steps_seen or step_id in self._unrun:
                return None
            if len(self._unrun) >= self.max_unrun_steps:
                return errors.ResourceExhaustedError(
                    None,
                    None,
                    f"RecvTensor for step {step_id}: {len(self._unrun)} steps that have not "
                    f"run on {self.task} are awaited here already (the most it keeps)",
                )
            self._unrun[step_id] = time.monotonic()
            return None

    def _drop_if_unrun(self, step_id: int) -> None:
        """Drops the table of a step that has not run here once nobody waits in it."""
        with self._lock:
            if step_id in self._unrun and self.rendezvous.drop_if_idle(step_id):
                del self._unrun[step_id]

    def sweep(self, now: float | None = None) -> None:
        """Drops the tables nobody will use any more: a finished step's whose tensors were
        not taken within orphan_recv_timeout, and a step's that has not run here within it
        (its receivers fail with AbortedError, late arrivals at once)."""
        now = time.monotonic() if now is None else now
        limit = self.orphan_recv_timeout
        with self._lock:
            done = [s for s, t in self._steps_done.items() if now - t > limit]
            unrun = [s for s, t in self._unrun.items() if now - t > limit]
        for step_id in done:
            self.abort_step(
                step_id,
                errors.AbortedError(
                    None,
                    None,
                    f"Step {step_id} finished on {self.task} {limit:g}s ago; the tensors "
                    "it sent and nobody took are gone",
                ),
            )
        for step_id in unrun:
            self.abort_step(
                step_id,
                errors.AbortedError(
                    None,
                    None,
                    f"RecvTensor: step {step_id} has not run on {self.task} for {limit:g}s",
                ),
            )

    def _start_sweeper(self) -> None:
        if self._sweeper is not None:
            return
        with self._lock:
            if self._sweeper is not None:
                return
            self._sweeper = threading.Thread(
                target=_sweep_while_alive,
                args=(weakref.ref(self), self._closed),
                name="rendezvous-sweeper",
                daemon=True,
            )
        self._sweeper.start()

    # ---- for the RecvTensor servicer ----------------------------------------------------
    def step_known(self, step_id: int) -> bool:
        """Whether a partition of the step ran (or runs) here and is not cleaned up yet."""
        return step_id in self._steps_seen

    def abandon_recv(self, step_id: int) -> None:
        """A RecvTensor caller went away: drop the step's table if the step never ran here."""
        with self._lock:
            if step_id in self._steps_seen:
                return
            self._unrun.pop(step_id, None)
        self.rendezvous.cleanup(step_id)

    def close(self) -> None:
        """Wakes every waiting step with UnavailableError: the task is stopping, which its
        callers see as a peer going away (a MonitoredSession recovers from it, as from a task
        that died), not as a step they cancelled."""
        err = errors.UnavailableError(None, None, f"Task {self.task} is shutting down")
        self._closed.set()
        with self._lock:
            steps = list(self._steps_seen) + list(self._pending_recvs) + list(self._running)
        for step_id in steps:
            self.abort_step(step_id, err)
        self.rendezvous.cleanup_all()

    # ---- helpers -----------------------------------------------------------------------
    def _remote_recv(
        self, step_id: int, key: str, callback: RecvCallback, deadline: float | None
    ) -> None:
        send_device, _, _ = rdv.parse_key(key)
        task = task_of_device(send_device)
        if task == self.task or self.worker_cache is None:
            self.rendezvous.find_or_create(step_id).recv_async(key, callback)
            return
        try:
            peer = self.worker_cache.worker(task)
        except errors.OpError as e:
            callback(None, e)
            return
        cancel = peer.recv_tensor(step_id, key, callback, deadline)
        if cancel is None:
            return
        with self._lock:
            aborted = step_id in self._tombstones
            if not aborted:
                self._pending_recvs.setdefault(step_id, []).append(cancel)
        if aborted:
            cancel()  # the step was aborted while this receive was being set up

    def _cancel_pending(self, step_id: int) -> None:
        with self._lock:
            cancels = self._pending_recvs.pop(step_id, None)
        for cancel in cancels or ():
            # Cancelling a call that finished meanwhile is harmless.
            with contextlib.suppress(Exception):
                cancel()

    def num_graphs(self) -> int:
        return len(self._graphs)

    def wait_idle(self, timeout: float) -> bool:
        """For tests: waits until no step's rendezvous is left (all cleaned up)."""
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if not len(self.rendezvous):
                return True
            time.sleep(0.01)
        return not len(self.rendezvous)


def _sweep_while_alive(ref: weakref.ref[Worker], closed: threading.Event) -> None:
    """Sweeps a worker's tables now and then, until it closes or is gone."""
    while True:
        worker = ref()
        if worker is None:
            return
        interval = min(max(worker.orphan_recv_timeout / 4, 0.01), 5.0)
        del worker  # the worker may be collected while this thread sleeps
        if closed.wait(interval):
            return
        worker = ref()
        if worker is None:
            return
        # The sweeper must outlive a failing abort (a peer's callback raising, say).
        with contextlib.suppress(Exception):
            worker.sweep()
        del worker


def _gpu_devices(task: str, incarnation: int) -> list[DeviceInfo]:
    """The GPUs this process sees (none without cupy or a driver), as this task's devices."""
    return [
        DeviceInfo(f"{task}/device:GPU:{g.index}", "GPU", gpu.memory_limit(g), incarnation)
        for g in gpu.local_gpus()
    ]


class _NoRendezvous(rdv.Rendezvous):
    """Graphs without Send/Recv never touch a rendezvous; this one says so if they do."""

    def send(self, key: str, value: Any) -> None:
        raise errors.InternalError(None, None, "Send in a graph registered without rendezvous")


_NO_RENDEZVOUS = _NoRendezvous()
