"""GrpcRemoteWorker: the WorkerInterface of another task, over gRPC."""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any, cast

import grpc

from tfcluster.distributed.cluster_spec import cluster_def_of
from tfcluster.distributed.interfaces import (
    DeviceInfo,
    ForwardedTensors,
    ForwardingWorker,
    PendingRunGraph,
    PipelinedWorker,
    RunGraphResult,
)
from tfcluster.framework import errors
from tfcluster.protos import worker_pb2
from tfcluster.rpc import collective_coding, shm, status, streams, tls_diagnosis
from tfcluster.rpc import tensor_coding as coding
from tfcluster.rpc.direct.client import DirectCall, link
from tfcluster.rpc.recv_mux import RecvMux
from tfcluster.runtime.collective_meeting import CheckFn, Part
from tfcluster.runtime.graph_ir import graph_def_from_nodes
from tfcluster.runtime.partition import Partition

_SERVICE = "/tfcluster.WorkerService/"
# Calls that only tidy up must not hang on a dead task.
_CLEANUP_TIMEOUT = 10.0
_CLOSE_TIMEOUT = 5.0
# How often a member waiting on its group's leader looks whether its step ended.
_COLLECTIVE_POLL = 0.05
# How long a collective op's member retries a group leader that is not up (yet).
LEADER_WAIT_SECONDS = 30.0
# Idle direct RunGraph calls kept per worker for later steps (each holds a thread there); a
# burst of more concurrent steps than this closes the calls left over once it is done.
_MAX_IDLE_RUNS = 64


class GrpcRemoteWorker(ForwardingWorker, PipelinedWorker):
    """Calls a worker service. Calls that start work wait for the task to come up (as
    TensorFlow's do) until the step's deadline; a call that was in flight when the task died
    fails with UnavailableError."""

    def __init__(self, task: str, address: str, channel: grpc.Channel) -> None:
        self.task = task
        self.address = address
        self._channel = channel

        def unary(name: str) -> grpc.UnaryUnaryMultiCallable:
            return channel.unary_unary(
                _SERVICE + name,
                request_serializer=status.passthrough,
                response_deserializer=status.passthrough,
                _registered_method=True,
            )

        self._get_status = unary("GetStatus")
        self._register_graph = unary("RegisterGraph")
        self._deregister_graph = unary("DeregisterGraph")
        self._cleanup_graph = unary("CleanupGraph")
        self._cleanup_all = unary("CleanupAll")
        self._delete_session = unary("DeleteWorkerSession")
        self._create_session = unary("CreateWorkerSession")
        self._collective_join = unary("CollectiveJoin")
        # Steps wait for the task to come up (until their deadline), as TensorFlow's do.
        self._run_graph_streams = streams.ThreadStreams(
            channel.stream_stream(
                _SERVICE + "RunGraphStream",
                request_serializer=status.passthrough,
                response_deserializer=status.passthrough,
                _registered_method=True,
            ),
            wait_for_ready=True,
            direct_route=(link(address), _SERVICE + "RunGraphStream"),
        )
        self._recv_tensors = channel.stream_stream(
            _SERVICE + "RecvTensors",
            request_serializer=status.passthrough,
            response_deserializer=status.passthrough,
            _registered_method=True,
        )
        self._recv_mux: RecvMux | None = None
        # The worker's /dev/shm, as its last RunGraph answer said.
        self.peer_domain = ""
        self._inflight: set[grpc.Future] = set()
        self._lock = threading.Lock()
        # Direct RunGraphStream calls of pipelined steps (start_run_graph), idle now.
        self._idle_runs: list[streams.CallStream] = []
        self._closed = False

    def _error(self, err: grpc.RpcError, method: str) -> errors.OpError:
        return status.from_rpc_error(err, f"{method} on {self.task} at {self.address}")

    # ---- WorkerInterface ------------------------------------------------------------
    def get_status(self, timeout: float | None = None) -> list[DeviceInfo]:
        try:
            data = tls_diagnosis.call_waiting(self._get_status, b"", timeout, self.address)
        except grpc.RpcError as e:
            if e.code() == grpc.StatusCode.DEADLINE_EXCEEDED:
                raise errors.DeadlineExceededError(
                    None,
                    None,
                    f"Timed out waiting for task {self.task} at {self.address} to "
                    "answer: a session's first run waits for every task of the cluster",
                ) from None
            raise self._error(e, "GetStatus") from None
        resp = coding.parse(worker_pb2.GetStatusResponse.FromString, data, "GetStatusResponse")
        return [
            DeviceInfo(d.name, d.device_type, d.memory_limit, d.incarnation)
            for d in resp.device_attributes
        ]

    def register_graph(
        self, session_handle: str, partition: Partition, deadline: float | None = None
    ) -> str:
        req = worker_pb2.RegisterGraphRequest(
            session_handle=session_handle,
            graph_def=graph_def_from_nodes(partition.nodes),
            feed=partition.feeds,
            fetch=partition.fetches,
            target=partition.targets,
            snapshot_ref_fetches=partition.snapshot_ref_fetches,
        )
        try:
            data = self._register_graph(
                req.SerializeToString(),
                timeout=status.timeout_until(deadline),
                wait_for_ready=True,
            )
        except grpc.RpcError as e:
            raise self._error(e, "RegisterGraph") from None
        resp = coding.parse(
            worker_pb2.RegisterGraphResponse.FromString, data, "RegisterGraphResponse"
        )
        return resp.graph_handle

    def deregister_graph(self, session_handle: str, graph_handle: str) -> None:
        req = worker_pb2.DeregisterGraphRequest(
            session_handle=session_handle, graph_handle=graph_handle
        )
        self._fire_and_forget(self._deregister_graph, req.SerializeToString())

    def run_graph(
        self,
        session_handle: str,
        graph_handle: str,
        step_id: int,
        feeds: Sequence[Any] | ForwardedTensors,
        trace: bool = False,
        deadline: float | None = None,
    ) -> RunGraphResult:
        """`feeds` may be relayed tensors (a client's feeds, undecoded)."""
        head = self._start_run_graph(session_handle, graph_handle, step_id, feeds, trace, deadline)
        fetches = head.materialize()
        return RunGraphResult(fetches, list(head.header.step_stats.dev_stats))

    def run_graph_forward(
        self,
        session_handle: str,
        graph_handle: str,
        step_id: int,
        feeds: Sequence[Any] | ForwardedTensors,
        deadline: float | None = None,
        reader: str = "",
    ) -> RunGraphResult:
        """RunGraph whose fetched tensors stay in transit: the caller relays or reads them
        (result.forwarded) before this thread's next RunGraph to this worker. `reader`: the
        /dev/shm domain of whoever reads them in the end (StepRelay.reader)."""
        head = self._start_run_graph(
            session_handle, graph_handle, step_id, feeds, False, deadline, reader
        )
        return RunGraphResult([], [], forwarded=head)

    def _start_run_graph(
        self,
        session_handle: str,
        graph_handle: str,
        step_id: int,
        feeds: Sequence[Any] | ForwardedTensors,
        trace: bool,
        deadline: float | None,
        reader: str | None = None,
    ) -> coding.Forwarded:
        stream = self._run_graph_streams.get()
        sent = self._send_run_graph(
            session_handle, graph_handle, step_id, feeds, trace, deadline, reader, stream
        )
        return self._read_run_graph(stream, sent)

    def start_run_graph(
        self,
        session_handle: str,
        graph_handle: str,
        step_id: int,
        feeds: Sequence[Any],
        trace: bool = False,
        deadline: float | None = None,
    ) -> PendingRunGraph | None:
        """Sends RunGraph from this thread and returns at once; the PendingRunGraph reads
        the result. The call is the step's until then (an idle one of this worker's, or a
        new one). None (nothing sent) when the worker has no plain direct endpoint (yet):
        only there can the master see, without reading, that the answer came."""
        reserved = self.reserve_run_graph(deadline)
        if reserved is None:
            return None
        return reserved.start(session_handle, graph_handle, step_id, feeds, (), trace, deadline)

    def reserve_run_graph(self, deadline: float | None = None) -> _ReservedRunGraph | None:
        found = self._idle_direct_run(deadline)
        if found is None:
            return None
        return _ReservedRunGraph(self, *found)

    def _idle_direct_run(
        self, deadline: float | None = None
    ) -> tuple[streams.CallStream, DirectCall] | None:
        """A plain direct RunGraphStream call no step uses now: one a finished step gave
        back (whichever thread ran it: a new thread reuses the connections of the ones
        before it), or a new one; None when the worker has no plain direct endpoint."""
        while True:
            with self._lock:
                stream = self._idle_runs.pop() if self._idle_runs else None
            if stream is None:
                break
            if stream.pid != os.getpid():
                continue  # a forked child: the call is its parent's, leave it alone
            if stream.usable and stream.active():
                return stream, cast(DirectCall, stream.call)
            stream.close()
        call = link(self.address).open(_SERVICE + "RunGraphStream", deadline)
        if call is None:
            return None
        if call.encrypted:  # TLS buffers bytes of its own: the master could not poll it
            call.cancel()
            return None
        return streams.CallStream(call), call

    def _give_back(self, stream: streams.CallStream) -> None:
        """A pipelined RunGraph's call, its answer read: the next step may use it."""
        if not stream.usable or stream.relaying:
            stream.close()
            return
        with self._lock:
            keep = not self._closed and len(self._idle_runs) < _MAX_IDLE_RUNS
            if keep:
                self._idle_runs.append(stream)
        if not keep:
            stream.close()

    def _send_run_graph(
        self,
        session_handle: str,
        graph_handle: str,
        step_id: int,
        feeds: Sequence[Any] | ForwardedTensors,
        trace: bool,
        deadline: float | None,
        reader: str | None,
        stream: streams.CallStream,
        pushed: Sequence[tuple[str, Any]] = (),
    ) -> streams.Sent:
        # Big tensors go through /dev/shm only on gRPC or TLS: a plain direct stream carries
        # them faster. (A relay's fetches follow what the one who reads them in the end said.)
        own_domain = shm.domain() if stream.shm_ok else ""
        req = worker_pb2.RunGraphRequest(
            session_handle=session_handle,
            graph_handle=graph_handle,
            step_id=step_id,
            trace=trace,
            shm_domain=own_domain if reader is None else reader,
        )
        if deadline is not None:
            req.timeout_in_us = max(1, int((deadline - time.monotonic()) * 1e6))
        shares = shm.shares_with(self.peer_domain)
        if not isinstance(feeds, coding.Forwarded | Sequence) or (
            isinstance(feeds, coding.Forwarded) and not shares and feeds.uses_shm()
        ):
            # Another transport's tensors, or in the client's shared memory (not the worker's).
            feeds = feeds.materialize()
        if isinstance(feeds, coding.Forwarded):
            assert not pushed  # relayed feeds come only with a step's one partition
            for meta in feeds.metas:
                req.send.add().tensor.CopyFrom(meta)
            messages = feeds.messages(req.SerializeToString())
        else:
            export = shares and stream.shm_ok
            # Feeds by position (no name), then pushed tensors by their rendezvous keys.
            names = [""] * len(feeds) + [key for key, _ in pushed]
            values = [*feeds, *(value for _, value in pushed)]
            buffers = (
                coding.fill_named(req.send, names, values, export, stream.shm_min) if values else []
            )
            messages = coding.frame_stream(req.SerializeToString(), buffers, scatter=stream.direct)
        try:
            return stream.send(messages, deadline)
        except grpc.RpcError as e:
            raise self._run_graph_error(stream, e) from None

    def _read_run_graph(self, stream: streams.CallStream, sent: streams.Sent) -> coding.Forwarded:
        try:
            head = stream.read_head(sent, _parse_run_graph_response, _recv_metas)
        except grpc.RpcError as e:
            raise self._run_graph_error(stream, e) from None
        resp = head.header
        self.peer_domain = resp.shm_domain
        if resp.status_code:
            head.drain()
            raise errors.error_from_code(resp.status_code, resp.status_message)
        return head

    def _run_graph_error(self, stream: streams.CallStream, e: grpc.RpcError) -> errors.OpError:
        if stream.expired:
            return errors.DeadlineExceededError(
                None,
                None,
                f"RunGraph on {self.task} at {self.address}: no answer before the step's deadline",
            )
        return self._error(e, "RunGraph")

    def abort_step(self, step_id: int, error: BaseException) -> None:
        op_err = status.as_op_error(error)
        req = worker_pb2.CleanupGraphRequest(
            step_id=step_id,
            abort_code=op_err.error_code or errors.ABORTED,
            abort_message=op_err.message[:4000],
        )
        self._fire_and_forget(self._cleanup_graph, req.SerializeToString())

    def cleanup_graph(self, step_id: int) -> None:
        req = worker_pb2.CleanupGraphRequest(step_id=step_id)
        self._fire_and_forget(self._cleanup_graph, req.SerializeToString())

    def cleanup_all(self, containers: Sequence[str]) -> None:
        req = worker_pb2.CleanupAllRequest(container=list(containers))
        try:
            self._cleanup_all(req.SerializeToString(), timeout=_CLEANUP_TIMEOUT)
        except grpc.RpcError as e:
            raise self._error(e, "CleanupAll") from None

    def create_worker_session(
        self, session_handle: str, cluster: Mapping[str, str], deadline: float | None = None
    ) -> None:
        req = worker_pb2.CreateWorkerSessionRequest(session_handle=session_handle)
        req.server_def.cluster.CopyFrom(cluster_def_of(cluster))
        try:
            self._create_session(
                req.SerializeToString(), timeout=status.timeout_until(deadline), wait_for_ready=True
            )
        except grpc.RpcError as e:
            raise self._error(e, "CreateWorkerSession") from None

    def delete_worker_session(self, session_handle: str) -> None:
        """Waits (briefly) for the worker, so a closed session's graphs are gone on return."""
        req = worker_pb2.DeleteWorkerSessionRequest(session_handle=session_handle)
        try:
            self._delete_session(req.SerializeToString(), timeout=_CLOSE_TIMEOUT)
        except grpc.RpcError as e:
            raise self._error(e, "DeleteWorkerSession") from None

    def recv_tensor(
        self,
        step_id: int,
        key: str,
        callback: Callable[[Any, BaseException | None], None],
        deadline: float | None = None,
    ) -> Callable[[], Any] | None:
        """Asks over this worker's one RecvTensors call (opened on first use, again after it
        broke); the receiving step's deadline and aborts are enforced by its executor."""
        with self._lock:
            # Under the lock: a request never goes to a call that is being retired.
            return self._recv_mux_now().recv(step_id, key, callback)

    # ---- helpers -----------------------------------------------------------------------
    def _recv_mux_now(self) -> RecvMux:
        """The RecvTensors call to use: a direct one once the peer's endpoint is known (a
        gRPC call then retires: it ends after answering what it was asked)."""
        mux = self._recv_mux
        peer = link(self.address)
        if mux is not None and mux.direct and mux.hung_up():
            mux = None  # closed while idle: a new call (the peer may have restarted)
        if mux is not None and not mux.broken and (mux.direct or not peer.ready):
            if not mux.direct:
                peer.probe()
            return mux
        call: streams.Call | None = peer.open(_SERVICE + "RecvTensors")
        if call is None:
            if mux is not None and not mux.broken:
                return mux
            # Waits for the peer to come up, as the steps that need its tensors do.
            call = streams.GrpcCall(self._recv_tensors, wait_for_ready=True)
        if mux is not None and not mux.broken:
            mux.retire()
        mux = self._recv_mux = RecvMux(call, self._error)
        return mux

    def collective_join(
        self, part: Part, deadline: float | None, check: CheckFn | None = None
    ) -> Any:
        """Brings a collective op's part to this task, the group's leader, and waits for the
        result; `check` raising (the step ended) cancels the call, which takes the part back.
        A leader not up yet is retried for LEADER_WAIT_SECONDS (or until the deadline); one
        that dies while its members wait fails them with UnavailableError at once."""
        data = collective_coding.request_of(part).SerializeToString()
        give_up = time.monotonic() + LEADER_WAIT_SECONDS
        while True:
            call = self._collective_join.future(data, timeout=status.timeout_until(deadline))
            try:
                return collective_coding.value_of(self._wait_collective(call, check))
            except grpc.RpcError as e:
                # Not reached at all (refused), as opposed to a call the leader's end broke.
                details = (e.details() or "").lower()
                not_up = e.code() == grpc.StatusCode.UNAVAILABLE and (
                    "failed to connect" in details or "connection refused" in details
                )
                if not not_up or time.monotonic() >= give_up:
                    raise self._error(e, "CollectiveJoin") from None
            if check is not None:
                check()
            time.sleep(_COLLECTIVE_POLL * 4)

    @staticmethod
    def _wait_collective(call: Any, check: CheckFn | None) -> Any:
        while True:
            try:
                return call.result(timeout=_COLLECTIVE_POLL)
            except grpc.FutureTimeoutError:
                if check is not None:
                    try:
                        check()
                    except BaseException:
                        call.cancel()
                        raise

    def close(self) -> None:
        self._run_graph_streams.close_all()
        with self._lock:
            mux, self._recv_mux = self._recv_mux, None
            self._closed = True
            idle, self._idle_runs = self._idle_runs, []
        for stream in idle:
            stream.close()
        if mux is not None:
            mux.close()

    def _fire_and_forget(self, method: grpc.UnaryUnaryMultiCallable, data: bytes) -> None:
        """Sends a tidy-up call without waiting; keeps the call alive until it completes."""
        future = method.future(data, timeout=_CLEANUP_TIMEOUT)
        with self._lock:
            self._inflight.add(future)

        def done(f: grpc.Future) -> None:
            with self._lock:
                self._inflight.discard(f)

        future.add_done_callback(done)


def _parse_run_graph_response(data: Any) -> worker_pb2.RunGraphResponse:
    return coding.parse(worker_pb2.RunGraphResponse.FromString, data, "RunGraphResponse")


def _recv_metas(resp: worker_pb2.RunGraphResponse) -> list[Any]:
    return [r.tensor for r in resp.recv]


class _ReservedRunGraph:
    """An idle RunGraphStream call kept for one step's RunGraph (reserve_run_graph)."""

    __slots__ = ("_call", "_stream", "_worker")

    def __init__(
        self, worker: GrpcRemoteWorker, stream: streams.CallStream, call: DirectCall
    ) -> None:
        self._worker = worker
        self._stream = stream
        self._call = call

    def start(
        self,
        session_handle: str,
        graph_handle: str,
        step_id: int,
        feeds: Sequence[Any],
        pushed: Sequence[tuple[str, Any]],
        trace: bool = False,
        deadline: float | None = None,
    ) -> _PendingRunGraph:
        try:
            sent = self._worker._send_run_graph(
                session_handle,
                graph_handle,
                step_id,
                feeds,
                trace,
                deadline,
                None,
                self._stream,
                pushed,
            )
        except BaseException:
            self._worker._give_back(self._stream)  # closed already if the request went out in part
            raise
        return _PendingRunGraph(self._worker, self._stream, self._call, sent)

    def release(self) -> None:
        self._worker._give_back(self._stream)


class _PendingRunGraph:
    """A RunGraph sent by this thread (GrpcRemoteWorker.start_run_graph), not read yet."""

    __slots__ = ("_call", "_sent", "_stream", "_worker")

    def __init__(
        self,
        worker: GrpcRemoteWorker,
        stream: streams.CallStream,
        call: DirectCall,
        sent: streams.Sent,
    ) -> None:
        self._worker = worker
        self._stream = stream
        self._call = call
        self._sent = sent

    def answered(self) -> bool:
        return self._call.answer_waiting()

    def fileno(self) -> int:
        return self._call.fileno()

    def result(self) -> RunGraphResult:
        try:
            head = self._worker._read_run_graph(self._stream, self._sent)
            fetches = head.materialize()
        finally:
            # After an error answered in-band the call is still good; after a broken one
            # it is closed already.
            self._worker._give_back(self._stream)
        return RunGraphResult(fetches, list(head.header.step_stats.dev_stats))

    def abandon(self) -> None:
        """The result will not be read: the call goes (the next step opens another)."""
        self._sent.done()
        self._stream.close()
