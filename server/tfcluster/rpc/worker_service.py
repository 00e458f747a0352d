"""The worker service's gRPC servicer: protos <-> the transport-free worker (ServedWorker)."""

from __future__ import annotations

import itertools
import queue
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from typing import Any, Protocol

import grpc

from tfcluster.distributed.cluster_spec import addresses_of
from tfcluster.distributed.interfaces import ServedWorker
from tfcluster.framework import errors
from tfcluster.protos import (
    collective_pb2,
    device_attributes_pb2,
    tensorflow_server_pb2,
    worker_pb2,
)
from tfcluster.rpc import collective_coding, shm, status, streams
from tfcluster.rpc import tensor_coding as coding
from tfcluster.rpc.direct.server import DirectContext, StreamHandler, is_direct, shm_min
from tfcluster.runtime import cancellation, outbox
from tfcluster.runtime import rendezvous as rdv
from tfcluster.runtime.collective_meeting import deadline_check
from tfcluster.runtime.graph_ir import nodes_from_graph_def
from tfcluster.runtime.partition import Partition

# Its streaming calls that are also served on direct connections (rpc/direct).
DIRECT_METHODS = (
    "RunGraphStream",
    "RecvTensors",
)
SERVICE_NAME = "tfcluster.WorkerService"
# How often a waiting RecvTensor checks whether its caller is still there.
_RECV_POLL = 1.0
# RecvTensors' answers: (request id, value, error, the smallest tensor to put in /dev/shm, or
# None when the receiver does not share ours).
_Answer = tuple[int, Any, BaseException | None, int | None]
# Request ids are the caller's (any int64); these two markers ride the answer queue instead.
_END = -(1 << 70)
_MALFORMED = _END - 1

# A session's cluster, as a CreateWorkerSession brings it: bounded, each address host:port.
MAX_SESSION_TASKS = 4096
_MAX_ADDRESS = 255


def peer_addresses(server_def: tensorflow_server_pb2.ServerDef) -> dict[str, str]:
    """Task name -> address of a CreateWorkerSession's cluster; InvalidArgumentError when it
    is not one a master sends."""
    tasks = sum(len(job.tasks) for job in server_def.cluster.job)
    if tasks > MAX_SESSION_TASKS:
        raise errors.InvalidArgumentError(
            None, None, f"CreateWorkerSession names {tasks} tasks (at most {MAX_SESSION_TASKS})"
        )
    addresses = addresses_of(server_def.cluster)
    for task, address in addresses.items():
        host, _, port = address.rpartition(":")
        if not host or not port.isdigit() or len(address) > _MAX_ADDRESS:
            raise errors.InvalidArgumentError(
                None,
                None,
                f"CreateWorkerSession: task {task} has address {address[:80]!r}, not host:port",
            )
    return addresses


class WorkerServicer:
    def __init__(self, worker: ServedWorker) -> None:
        self.worker = worker
        self.idle_calls = streams.IdleCalls()
        self._orphans = _OrphanSweeper(worker)

    # ---- plain calls ------------------------------------------------------------------
    def get_status(self, data: bytes, context: grpc.ServicerContext) -> bytes:
        coding.parse(worker_pb2.GetStatusRequest.FromString, data, "GetStatusRequest")
        resp = worker_pb2.GetStatusResponse()
        for d in self.worker.get_status():
            resp.device_attributes.append(
                device_attributes_pb2.DeviceAttributes(
                    name=d.name,
                    device_type=d.device_type,
                    memory_limit=d.memory_limit,
                    incarnation=d.incarnation,
                )
            )
        return resp.SerializeToString()

    def create_worker_session(self, data: bytes, context: grpc.ServicerContext) -> bytes:
        req = coding.parse(
            worker_pb2.CreateWorkerSessionRequest.FromString, data, "CreateWorkerSessionRequest"
        )
        if not req.session_handle:
            raise errors.InvalidArgumentError(
                None, None, "CreateWorkerSession without a session handle"
            )
        # Graphs are registered by RegisterGraph; the session brings where its peers are.
        self.worker.create_worker_session(req.session_handle, peer_addresses(req.server_def))
        return b""

    def delete_worker_session(self, data: bytes, context: grpc.ServicerContext) -> bytes:
        req = coding.parse(
            worker_pb2.DeleteWorkerSessionRequest.FromString, data, "DeleteWorkerSessionRequest"
        )
        self.worker.delete_worker_session(req.session_handle)
        return b""

    def register_graph(self, data: bytes, context: grpc.ServicerContext) -> bytes:
        req = coding.parse(worker_pb2.RegisterGraphRequest.FromString, data, "RegisterGraphRequest")
        if not req.session_handle:
            raise errors.InvalidArgumentError(None, None, "RegisterGraph without a session handle")
        partition = Partition(
            self.worker.task,
            nodes_from_graph_def(req.graph_def),
            list(req.feed),
            list(req.fetch),
            list(req.target),
            snapshot_ref_fetches=req.snapshot_ref_fetches,
        )
        handle = self.worker.register_graph(req.session_handle, partition)
        return worker_pb2.RegisterGraphResponse(graph_handle=handle).SerializeToString()

    def deregister_graph(self, data: bytes, context: grpc.ServicerContext) -> bytes:
        req = coding.parse(
            worker_pb2.DeregisterGraphRequest.FromString, data, "DeregisterGraphRequest"
        )
        self.worker.deregister_graph(req.session_handle, req.graph_handle)
        return b""

    def cleanup_graph(self, data: bytes, context: grpc.ServicerContext) -> bytes:
        req = coding.parse(worker_pb2.CleanupGraphRequest.FromString, data, "CleanupGraphRequest")
        if req.abort_code:
            err = errors.error_from_code(req.abort_code, req.abort_message or "Step aborted")
            self.worker.abort_step(req.step_id, err)
        else:
            self.worker.cleanup_graph(req.step_id)
        return b""

    def cleanup_all(self, data: bytes, context: grpc.ServicerContext) -> bytes:
        req = coding.parse(worker_pb2.CleanupAllRequest.FromString, data, "CleanupAllRequest")
        self.worker.cleanup_all(list(req.container))
        return b""

    # ---- RunGraph ----------------------------------------------------------------------
    def run_graph(self, data: bytes, context: grpc.ServicerContext) -> bytes:
        head, payload = coding.split(data)
        req = _parse_run_graph(head)
        with cancellation.serving(cancellation.for_call(context)):
            header, buffers = self._run(
                req, coding.payload_of(req, payload), status.deadline_of(context)
            )
        return coding.frame(header, buffers)

    def run_graph_stream(
        self, messages: Iterator[bytes], context: grpc.ServicerContext
    ) -> Iterator[bytes]:
        """Steps one after another; a step's error is answered in-band, the call stays open."""
        scatter = is_direct(context)
        shm_from = shm_min(context)
        it = self.idle_calls.requests(iter(messages), context)
        # The master went away (cancelled the call, hung up): the step it waits for stops.
        caller = cancellation.for_call(context)
        while True:
            frame = coding.read_frame(it, _parse_run_graph, _send_metas)
            if frame is None:
                return
            req, payload = frame
            try:
                with cancellation.serving(caller):
                    header, buffers = self._run(req, payload, None, shm_from, checked=True)
            except Exception as e:
                err = status.as_op_error(e)
                header = worker_pb2.RunGraphResponse(
                    status_code=err.error_code, status_message=err.message, shm_domain=shm.domain()
                ).SerializeToString()
                buffers = []
            yield from coding.frame_stream(header, buffers, scatter=scatter)

    def _run(
        self,
        req: worker_pb2.RunGraphRequest,
        payload: memoryview,
        deadline: float | None,
        shm_from: int = shm.THRESHOLD,
        checked: bool = False,
    ) -> tuple[bytes, list[Any]]:
        """Runs the step in the call this thread serves (cancellation.serving): the call's
        end cancels it. `checked`: read_frame validated the feeds' descriptions."""
        decode = coding.decode_checked if checked else coding.decode
        feeds = decode([s.tensor for s in req.send], payload) if req.send else []
        # Feeds come by position (no name); tensors the master pushed by rendezvous key.
        pushed = [(s.name, v) for s, v in zip(req.send, feeds) if s.name]
        if pushed:
            feeds = [v for s, v in zip(req.send, feeds) if not s.name]
        if req.timeout_in_us > 0:
            own = time.monotonic() + req.timeout_in_us / 1e6
            deadline = own if deadline is None else min(deadline, own)
        if pushed:
            result = self.worker.run_graph(
                req.session_handle,
                req.graph_handle,
                req.step_id,
                feeds,
                req.trace,
                deadline,
                pushed=pushed,
            )
        else:
            result = self.worker.run_graph(
                req.session_handle, req.graph_handle, req.step_id, feeds, req.trace, deadline
            )
        resp = worker_pb2.RunGraphResponse(shm_domain=shm.domain())
        buffers = coding.fill_named(
            resp.recv,
            [""] * len(result.fetches),
            result.fetches,
            shm.shares_with(req.shm_domain),
            shm_from,
        )
        if result.step_stats:
            resp.step_stats.dev_stats.extend(result.step_stats)
        return resp.SerializeToString(), buffers

    # ---- RecvTensor --------------------------------------------------------------------
    def collective_join(self, data: bytes, context: grpc.ServicerContext) -> bytes:
        req = coding.parse(
            collective_pb2.CollectiveJoinRequest.FromString, data, "CollectiveJoinRequest"
        )
        deadline = status.deadline_of(context)
        check = deadline_check(deadline, lambda: not context.is_active())
        value = self.worker.collective_join(collective_coding.part_of(req), deadline, check)
        return collective_coding.response_of(value)

    def recv_tensor(self, data: bytes, context: grpc.ServicerContext) -> bytes:
        header, buffers = self._recv(data, context)
        return coding.frame(header, buffers)

    def recv_tensor_stream(self, data: bytes, context: grpc.ServicerContext) -> Iterator[bytes]:
        header, buffers = self._recv(data, context)
        yield from coding.frame_stream(header, buffers)

    def recv_tensors(
        self, messages: Iterator[bytes], context: grpc.ServicerContext
    ) -> Iterator[bytes]:
        """Many RecvTensor requests over one call, answered as their tensors are sent; after
        the caller's last request, the call ends once every request is answered."""
        if is_direct(context):
            yield from self._recv_tensors_direct(messages, context)
            return
        out: queue.SimpleQueue[_Answer] = queue.SimpleQueue()
        requests = iter(messages)
        started = [0]

        def read() -> None:
            try:
                for data in requests:
                    self._start_recv(data, out)
                    started[0] += 1
            except grpc.RpcError:
                pass  # the caller went away
            except Exception as e:
                out.put((_MALFORMED, None, e, None))  # a malformed request ends the call
                return
            out.put((_END, None, None, None))

        threading.Thread(target=read, name="recv-tensors", daemon=True).start()
        with self.idle_calls.always_idle(context):
            yield from self._answer(out, started)

    def _recv_tensors_direct(
        self, messages: Iterator[bytes], context: DirectContext
    ) -> Iterator[bytes]:
        """On a direct connection each answer is written by the thread that has its tensor
        (the step's, as it sends it): no hop to another thread. This thread reads requests;
        the answers it has at once (tensors sent before they were asked for) go out together
        once it has read every request that came in one piece, in one write: a step's peer
        asks for its tensors all at once, and a write per answer would hand this process's
        lock to the step's thread and wait to get it back, each time."""
        answers = _DirectAnswers(context.write)
        shm_from = shm_min(context)
        with self.idle_calls.always_idle(context):
            box, previous = outbox.open_outbox()
            try:
                for data in messages:
                    answers.expect()
                    self._start_recv(data, answers, shm_from)
                    if not context.request_waiting():
                        box.flush()  # before the next read waits
            except grpc.RpcError:
                return  # the caller went away
            finally:
                outbox.close_outbox(box, previous)
            answers.wait_all()
        yield from ()

    def _answer(self, out: queue.SimpleQueue[_Answer], started: list[int]) -> Iterator[bytes]:
        answered = 0
        reading = True
        while reading or answered < started[0]:
            rid, value, err, shm_from = out.get()
            if rid == _END:
                reading = False
                continue
            if rid == _MALFORMED and err is not None:
                raise err
            answered += 1
            yield from _answer_messages(rid, value, err, shm_from)

    def _start_recv(self, data: bytes, out: _Answers, shm_from: int = shm.THRESHOLD) -> None:
        req = coding.parse(worker_pb2.RecvTensorRequest.FromString, data, "RecvTensorRequest")
        rid = req.request_id
        shared = shm_from if shm.shares_with(req.shm_domain) else None
        try:
            rdv.parse_key(req.rendezvous_key)
        except errors.OpError as e:
            out.put((rid, None, e, None))
            return
        pending = _PendingRecv(req.step_id, req.rendezvous_key, rid, out)

        def on_value(value: Any, err: BaseException | None) -> None:
            if self._orphans.finish(pending):
                out.put((rid, value, err, shared))

        self._orphans.add(pending)
        self.worker.recv_tensor(req.step_id, req.rendezvous_key, on_value)

    def _recv(self, data: bytes, context: grpc.ServicerContext) -> tuple[bytes, list[Any]]:
        req = coding.parse(worker_pb2.RecvTensorRequest.FromString, data, "RecvTensorRequest")
        value = self._wait_for(req.step_id, req.rendezvous_key, context)
        resp = worker_pb2.RecvTensorResponse()
        buffers = coding.fill_meta(resp.tensor, value, shm.shares_with(req.shm_domain))
        return resp.SerializeToString(), buffers

    def _wait_for(self, step_id: int, key: str, context: grpc.ServicerContext) -> Any:
        """Blocks until the step sends `key`, is aborted, the caller leaves, or time is up."""
        rdv.parse_key(key)  # a malformed key is the caller's error, not a wait
        wake = threading.Event()
        box: list[Any] = []

        def on_value(value: Any, err: BaseException | None) -> None:
            box.append((value, err))
            wake.set()

        context.add_callback(wake.set)  # the call ended: cancelled, or its deadline passed
        deadline = status.deadline_of(context)
        self.worker.recv_tensor(step_id, key, on_value, deadline)
        started = time.monotonic()
        reason: errors.OpError | None = None
        while not box:
            wake.wait(_RECV_POLL)
            if box:
                break
            now = time.monotonic()
            if not context.is_active():
                reason = errors.CancelledError(None, None, f"RecvTensor {key} was cancelled")
            elif deadline is not None and now >= deadline:
                reason = errors.DeadlineExceededError(
                    None, None, f"RecvTensor {key}: step {step_id} did not send it in time"
                )
            elif (
                not self.worker.step_known(step_id)
                and now - started > self.worker.orphan_recv_timeout
            ):
                reason = errors.AbortedError(
                    None,
                    None,
                    f"RecvTensor {key}: step {step_id} has not run on "
                    f"{self.worker.task} for {self.worker.orphan_recv_timeout:g}s",
                )
            if reason is not None:
                self.worker.abandon_recv(step_id)
                raise reason
        value, err = box[0]
        if err is not None:
            raise err
        return value


def _answer_messages(
    rid: int,
    value: Any,
    err: BaseException | None,
    shm_from: int | None,
    scatter: bool = False,
) -> Iterator[Any]:
    """The RecvTensorResponse for one request: its tensor, or why there is none. `shm_from`:
    the smallest tensor to put in /dev/shm (None: the receiver does not share ours)."""
    resp = worker_pb2.RecvTensorResponse(request_id=rid)
    buffers: list[Any] = []
    if err is None:
        try:
            shared = shm_from is not None
            buffers = coding.fill_meta(resp.tensor, value, shared, shm_from or shm.THRESHOLD)
        except Exception as e:
            err = e
    if err is not None:
        op_err = status.as_op_error(err)
        resp = worker_pb2.RecvTensorResponse(
            request_id=rid, status_code=op_err.error_code, status_message=op_err.message
        )
    return coding.frame_stream(resp.SerializeToString(), buffers, scatter=scatter)


class _Answers(Protocol):
    def put(self, answer: _Answer) -> None: ...


class _DirectAnswers:
    """Writes each answer at once, in the thread that has it; counts the ones to come."""

    def __init__(self, write: Callable[[Iterable[bytes]], None]) -> None:
        self._write = write
        self._cond = threading.Condition()
        self._pending = 0

    def expect(self) -> None:
        with self._cond:
            self._pending += 1

    def put(self, answer: _Answer) -> None:
        box = outbox.current()
        if box is not None:
            box.add(self._write_all, answer)  # with the others of this executor pass
        else:
            self._write_all([answer])

    def _write_all(self, answers: list[_Answer]) -> None:
        try:
            self._write(
                itertools.chain.from_iterable(_answer_messages(*a, scatter=True) for a in answers)
            )
        except (OSError, grpc.RpcError):
            pass  # the caller went away
        finally:
            with self._cond:
                self._pending -= len(answers)
                if not self._pending:
                    self._cond.notify_all()

    def wait_all(self) -> None:
        with self._cond:
            while self._pending:
                self._cond.wait()


class _PendingRecv:
    __slots__ = ("done", "key", "out", "rid", "started", "step_id")

    def __init__(self, step_id: int, key: str, rid: int, out: _Answers) -> None:
        self.step_id = step_id
        self.key = key
        self.rid = rid
        self.out = out
        self.started = time.monotonic()
        self.done = False


class _OrphanSweeper:
    """Answers, with AbortedError, RecvTensors requests for steps that never run here."""

    def __init__(self, worker: ServedWorker) -> None:
        self._worker = worker
        self._lock = threading.Lock()
        self._pending: set[_PendingRecv] = set()
        self._thread: threading.Thread | None = None

    def add(self, pending: _PendingRecv) -> None:
        with self._lock:
            self._pending.add(pending)
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="recv-sweeper", daemon=True)
                self._thread.start()

    def finish(self, pending: _PendingRecv) -> bool:
        """True for the one caller that gets to answer the request."""
        with self._lock:
            if pending.done:
                return False
            pending.done = True
            self._pending.discard(pending)
            return True

    def _run(self) -> None:
        while True:
            time.sleep(_RECV_POLL)
            limit = self._worker.orphan_recv_timeout
            now = time.monotonic()
            with self._lock:
                stale = [
                    p
                    for p in self._pending
                    if now - p.started > limit and not self._worker.step_known(p.step_id)
                ]
            for p in stale:
                if self.finish(p):
                    self._worker.abandon_recv(p.step_id)
                    p.out.put(
                        (
                            p.rid,
                            None,
                            errors.AbortedError(
                                None,
                                None,
                                f"RecvTensor {p.key}: step {p.step_id} has not run "
                                f"on {self._worker.task} for {limit:g}s",
                            ),
                            None,
                        )
                    )


def _parse_run_graph(data: Any) -> worker_pb2.RunGraphRequest:
    return coding.parse(worker_pb2.RunGraphRequest.FromString, data, "RunGraphRequest")


def _send_metas(req: worker_pb2.RunGraphRequest) -> list[Any]:
    return [s.tensor for s in req.send]


def _handlers(servicer: WorkerServicer) -> dict[str, grpc.RpcMethodHandler]:
    return {
        "GetStatus": status.unary(servicer.get_status),
        "CreateWorkerSession": status.unary(servicer.create_worker_session),
        "DeleteWorkerSession": status.unary(servicer.delete_worker_session),
        "RegisterGraph": status.unary(servicer.register_graph),
        "DeregisterGraph": status.unary(servicer.deregister_graph),
        "RunGraph": status.unary(servicer.run_graph),
        "RunGraphStream": status.stream_stream(servicer.run_graph_stream),
        "CleanupGraph": status.unary(servicer.cleanup_graph),
        "CleanupAll": status.unary(servicer.cleanup_all),
        "RecvTensor": status.unary(servicer.recv_tensor),
        "RecvTensorStream": status.unary_stream(servicer.recv_tensor_stream),
        "RecvTensors": status.stream_stream(servicer.recv_tensors),
        "CollectiveJoin": status.unary(servicer.collective_join),
    }


def method_handlers(servicer: WorkerServicer) -> grpc.GenericRpcHandler:
    return grpc.method_handlers_generic_handler(SERVICE_NAME, _handlers(servicer))


def direct_handlers(servicer: WorkerServicer) -> dict[str, StreamHandler]:
    """The streaming methods that direct connections serve (the gRPC handlers themselves), by
    method path."""
    handlers = _handlers(servicer)
    return {f"/{SERVICE_NAME}/{name}": handlers[name].stream_stream for name in DIRECT_METHODS}
