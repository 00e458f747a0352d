"""GrpcMasterClient: a session's view of a remote master; registers the 'grpc' target scheme.

A 'grpc://host:port' target that names a tf.train.Server of this very process is served
in-process (as TensorFlow's LocalMaster does), unless the session's config asks for
rpc_options.use_rpc_for_inprocess_master.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Mapping, Sequence
from typing import Any

import grpc

from tfcluster.client.master_client import InProcessMasterClient, register_target_scheme
from tfcluster.distributed.interfaces import DeviceInfo, MasterInterface
from tfcluster.framework import dtypes, errors
from tfcluster.protos import config_pb2, master_pb2, step_stats_pb2
from tfcluster.rpc import channels, shm, status, streams, tls_diagnosis
from tfcluster.rpc import tensor_coding as coding
from tfcluster.rpc.direct.client import link
from tfcluster.runtime.graph_ir import Node, graph_def_from_nodes

_SERVICE = "/tfcluster.MasterService/"
# Added to a step's own timeout, so the master's (clearer) deadline error arrives first.
_TIMEOUT_SLACK = 5.0
# How long a step waits for its master's address to accept a connection (after the first
# contact, which waits as long as the session's config says).
_CONNECT_WAIT = 3.0

_local_lock = threading.Lock()
_local_masters: dict[str, MasterInterface] = {}


def register_local_master(target: str, master: MasterInterface) -> None:
    with _local_lock:
        _local_masters[target] = master


def unregister_local_master(target: str, master: MasterInterface) -> None:
    with _local_lock:
        if _local_masters.get(target) is master:
            del _local_masters[target]


def _output_types(
    nodes: Sequence[Node], output_dtypes: Mapping[str, dtypes.DType]
) -> list[master_pb2.NodeOutputTypes]:
    out = []
    for n in nodes:
        types = master_pb2.NodeOutputTypes()
        i = 0
        while True:
            dt = output_dtypes.get(f"{n.name}:{i}")
            if dt is None:
                break
            types.dtype.append(dt.as_datatype_enum)
            i += 1
        out.append(types)
    return out


class GrpcMasterClient:
    def __init__(self, target: str, config: config_pb2.ConfigProto | None = None) -> None:
        self.target = target
        self.address = target.partition("://")[2].rstrip("/")
        if not self.address:
            raise ValueError(f"Invalid session target '{target}': expected 'grpc://host:port'")
        self._timeout_ms = config.operation_timeout_in_ms if config is not None else 0
        channel = channels.shared_channel(self.address)

        def unary(name: str) -> grpc.UnaryUnaryMultiCallable:
            return channel.unary_unary(
                _SERVICE + name,
                request_serializer=status.passthrough,
                response_deserializer=status.passthrough,
                _registered_method=True,
            )

        self._create = unary("CreateSession")
        self._extend = unary("ExtendSession")
        self._close = unary("CloseSession")
        self._list = unary("ListDevices")
        self._reset = unary("Reset")
        self._streams = _step_streams(self.address, channel)
        # The master's /dev/shm, as its last answer said (shared by this address's clients).
        self._peer_domain = _peer_domains.setdefault(self.address, [""])

    def _wait_timeout(self) -> float | None:
        """Session calls wait for the master to come up, as long as the config allows."""
        return self._timeout_ms / 1000.0 if self._timeout_ms > 0 else None

    def _error(self, err: grpc.RpcError, method: str) -> errors.OpError:
        return status.from_rpc_error(err, f"{method} on master {self.target}")

    def create_session(
        self,
        nodes: Sequence[Node],
        output_dtypes: Mapping[str, dtypes.DType],
        config: config_pb2.ConfigProto | None,
    ) -> str:
        req = master_pb2.CreateSessionRequest(
            graph_def=graph_def_from_nodes(list(nodes)),
            output_types=_output_types(nodes, output_dtypes),
            target=self.target,
        )
        if config is not None:
            req.config.CopyFrom(config)
        try:
            data = tls_diagnosis.call_waiting(
                self._create, req.SerializeToString(), self._wait_timeout(), self.address
            )
        except grpc.RpcError as e:
            raise self._error(e, "CreateSession") from None
        resp = coding.parse(
            master_pb2.CreateSessionResponse.FromString, data, "CreateSessionResponse"
        )
        return resp.session_handle

    def extend_session(
        self, handle: str, nodes: Sequence[Node], output_dtypes: Mapping[str, dtypes.DType]
    ) -> None:
        req = master_pb2.ExtendSessionRequest(
            session_handle=handle,
            graph_def=graph_def_from_nodes(list(nodes)),
            output_types=_output_types(nodes, output_dtypes),
        )
        try:
            self._extend(req.SerializeToString(), timeout=self._wait_timeout())
        except grpc.RpcError as e:
            raise self._error(e, "ExtendSession") from None

    def run_step(
        self,
        handle: str,
        feeds: Mapping[str, Any],
        fetches: Sequence[str],
        targets: Sequence[str],
        options: config_pb2.RunOptions | None,
    ) -> tuple[list[Any], step_stats_pb2.StepStats | None]:
        timeout = self._step_timeout(options)
        deadline = time.monotonic() + timeout if timeout is not None else None
        try:
            stream = self._streams.get(deadline)
        except grpc.RpcError as e:
            raise self._error(e, "RunStep") from None
        # Big tensors go through /dev/shm only on gRPC or TLS: a plain direct stream carries
        # them faster, encryption costs more than a file.
        shm_ok = stream.shm_ok
        req = master_pb2.RunStepRequest(
            session_handle=handle,
            fetch=fetches,
            target=targets,
            shm_domain=shm.domain() if shm_ok else "",
        )
        if options is not None:
            req.options.CopyFrom(options)
        buffers = (
            coding.fill_named(
                req.feed,
                feeds.keys(),
                feeds.values(),
                shm_ok and shm.shares_with(self._peer_domain[0]),
                stream.shm_min,
            )
            if feeds
            else []
        )
        messages = coding.frame_stream(req.SerializeToString(), buffers, scatter=stream.direct)
        try:
            resp, payload = stream.exchange(
                messages, _parse_run_step_response, _fetch_metas, deadline
            )
        except grpc.RpcError as e:
            if stream.expired:
                raise errors.DeadlineExceededError(
                    None, None, f"RunStep on master {self.target}: no answer within {timeout:g}s"
                ) from None
            raise self._error(e, "RunStep") from None
        self._peer_domain[0] = resp.shm_domain
        if resp.status_code:
            raise errors.error_from_code(resp.status_code, resp.status_message)
        # Read-only arrays (views of the response) are copied by the session's fetch handler.
        values = coding.decode(_fetch_metas(resp), payload)
        stats = resp.metadata.step_stats if resp.HasField("metadata") else None
        return values, stats

    def _step_timeout(self, options: config_pb2.RunOptions | None) -> float | None:
        ms = options.timeout_in_ms if options is not None and options.timeout_in_ms > 0 else 0
        ms = ms or self._timeout_ms
        return ms / 1000.0 + _TIMEOUT_SLACK if ms > 0 else None

    def close_session(self, handle: str) -> None:
        req = master_pb2.CloseSessionRequest(session_handle=handle)
        try:
            self._close(req.SerializeToString(), timeout=10.0)
        except grpc.RpcError as e:
            raise self._error(e, "CloseSession") from None

    def list_devices(self) -> list[DeviceInfo]:
        try:
            data = self._list(b"", timeout=self._wait_timeout(), wait_for_ready=True)
        except grpc.RpcError as e:
            raise self._error(e, "ListDevices") from None
        resp = coding.parse(master_pb2.ListDevicesResponse.FromString, data, "ListDevices")
        return [
            DeviceInfo(d.name, d.device_type, d.memory_limit, d.incarnation)
            for d in (*resp.local_device, *resp.remote_device)
        ]

    def reset(self, containers: Sequence[str]) -> None:
        req = master_pb2.ResetRequest(container=list(containers))
        try:
            self._reset(req.SerializeToString(), timeout=self._wait_timeout(), wait_for_ready=True)
        except grpc.RpcError as e:
            raise self._error(e, "Reset") from None

    def release(self) -> None:
        """Nothing to free: the channel is shared by every client of this address."""


_streams_lock = threading.Lock()
_streams_by_address: dict[str, streams.ThreadStreams] = {}
_peer_domains: dict[str, list[str]] = {}


def _step_streams(address: str, channel: grpc.Channel) -> streams.ThreadStreams:
    """Every session of this process shares one RunStepStream per thread and master."""
    with _streams_lock:
        ts = _streams_by_address.get(address)
        if ts is None:
            method = channel.stream_stream(
                _SERVICE + "RunStepStream",
                request_serializer=status.passthrough,
                response_deserializer=status.passthrough,
                _registered_method=True,
            )
            ts = _streams_by_address[address] = streams.ThreadStreams(
                method,
                False,
                channel,
                connect_wait=_CONNECT_WAIT,
                direct_route=(link(address), _SERVICE + "RunStepStream"),
            )
        return ts


def _parse_run_step_response(data: Any) -> master_pb2.RunStepResponse:
    return coding.parse(master_pb2.RunStepResponse.FromString, data, "RunStepResponse")


def _fetch_metas(resp: master_pb2.RunStepResponse) -> list[Any]:
    return [t.tensor for t in resp.tensor]


def _is_local_host(host: str) -> bool:
    return host in ("localhost", "127.0.0.1", "::1", "[::1]", "0.0.0.0", "")


def master_client_for(target: str, config: Any = None) -> Any:
    """The 'grpc' scheme's factory: in-process when the target is a server of this process."""
    use_rpc = bool(config is not None and config.rpc_options.use_rpc_for_inprocess_master)
    if not use_rpc:
        master = _local_masters.get(target)
        if master is None:
            host, _, port = target.partition("://")[2].rstrip("/").rpartition(":")
            if _is_local_host(host):
                master = _local_masters.get(f"grpc://localhost:{port}")
        if master is not None:
            return InProcessMasterClient(master)
    return GrpcMasterClient(target, config)


register_target_scheme("grpc", master_client_for)
