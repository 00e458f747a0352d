"""The master service's gRPC servicer: protos <-> the transport-free Master."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

import grpc

from tfcluster.distributed.interfaces import MasterInterface, StepRelay
from tfcluster.framework import dtypes, errors
from tfcluster.protos import device_attributes_pb2, master_pb2, named_tensor_pb2
from tfcluster.rpc import shm, status, streams
from tfcluster.rpc import tensor_coding as coding
from tfcluster.rpc.direct.server import StreamHandler, is_direct, shm_min
from tfcluster.runtime import cancellation
from tfcluster.runtime.graph_ir import Node, nodes_from_graph_def

# Its streaming calls that are also served on direct connections (rpc/direct).
DIRECT_METHODS = ("RunStepStream",)
SERVICE_NAME = "tfcluster.MasterService"


def nodes_and_dtypes(
    graph_def: Any, output_types: Sequence[master_pb2.NodeOutputTypes]
) -> tuple[list[Node], dict[str, dtypes.DType]]:
    """Validated runtime nodes, and the dtype of each of their outputs the client sent."""
    nodes = nodes_from_graph_def(graph_def)
    if output_types and len(output_types) != len(nodes):
        raise errors.InvalidArgumentError(
            None, None, f"{len(output_types)} output type lists for {len(nodes)} nodes"
        )
    out: dict[str, dtypes.DType] = {}
    for node, types in zip(nodes, output_types):
        for i, enum in enumerate(types.dtype):
            try:
                out[f"{node.name}:{i}"] = dtypes.as_dtype(enum).base_dtype
            except TypeError:
                raise errors.InvalidArgumentError(
                    None, None, f"Node '{node.name}' output {i}: unknown DataType {enum}"
                ) from None
    return nodes, out


class MasterServicer:
    def __init__(self, master: MasterInterface) -> None:
        self.master = master
        self.idle_calls = streams.IdleCalls()

    def create_session(self, data: bytes, context: grpc.ServicerContext) -> bytes:
        req = coding.parse(master_pb2.CreateSessionRequest.FromString, data, "CreateSessionRequest")
        nodes, out_dtypes = nodes_and_dtypes(req.graph_def, req.output_types)
        config = req.config if req.HasField("config") else None
        handle = self.master.create_session(nodes, out_dtypes, config)
        return master_pb2.CreateSessionResponse(
            session_handle=handle, graph_version=self.master.graph_version(handle)
        ).SerializeToString()

    def extend_session(self, data: bytes, context: grpc.ServicerContext) -> bytes:
        req = coding.parse(master_pb2.ExtendSessionRequest.FromString, data, "ExtendSessionRequest")
        nodes, out_dtypes = nodes_and_dtypes(req.graph_def, req.output_types)
        self.master.extend_session(req.session_handle, nodes, out_dtypes)
        return master_pb2.ExtendSessionResponse(
            new_graph_version=self.master.graph_version(req.session_handle)
        ).SerializeToString()

    def close_session(self, data: bytes, context: grpc.ServicerContext) -> bytes:
        req = coding.parse(master_pb2.CloseSessionRequest.FromString, data, "CloseSessionRequest")
        self.master.close_session(req.session_handle)
        return b""

    def list_devices(self, data: bytes, context: grpc.ServicerContext) -> bytes:
        coding.parse(master_pb2.ListDevicesRequest.FromString, data, "ListDevicesRequest")
        resp = master_pb2.ListDevicesResponse()
        local_prefix = self.master.local_task + "/"
        for d in self.master.list_devices(status.timeout_until(status.deadline_of(context))):
            field = resp.local_device if d.name.startswith(local_prefix) else resp.remote_device
            field.append(
                device_attributes_pb2.DeviceAttributes(
                    name=d.name,
                    device_type=d.device_type,
                    memory_limit=d.memory_limit,
                    incarnation=d.incarnation,
                )
            )
        return resp.SerializeToString()

    def reset(self, data: bytes, context: grpc.ServicerContext) -> bytes:
        req = coding.parse(master_pb2.ResetRequest.FromString, data, "ResetRequest")
        self.master.reset(list(req.container))
        return b""

    # ---- RunStep -------------------------------------------------------------------------
    def run_step(self, data: bytes, context: grpc.ServicerContext) -> bytes:
        head, payload = coding.split(data)
        req = _parse_run_step(head)
        with cancellation.serving(cancellation.for_call(context)):
            header, buffers = self._run(req, coding.payload_of(req, payload))
        return coding.frame(header, buffers)

    def run_step_stream(
        self, messages: Iterator[bytes], context: grpc.ServicerContext
    ) -> Iterator[bytes]:
        """Steps one after another; a step's error is answered in-band, the call stays open.

        Large feeds and fetches of a step whose only partition runs on another task are relayed
        message by message between this call and the worker's, undecoded and uncopied."""
        scatter = is_direct(context)
        it = self.idle_calls.requests(iter(messages), context)
        # The client went away (cancelled the call, hung up): its running step stops.
        caller = cancellation.for_call(context)
        while True:
            head = coding.read_head(it, _parse_run_step, _feed_metas)
            if head is None:
                return
            try:
                with cancellation.serving(caller):
                    out: Iterator[bytes] = self._run_streamed(head, scatter, shm_min(context))
            except Exception as e:
                err = status.as_op_error(e)
                header = master_pb2.RunStepResponse(
                    status_code=err.error_code, status_message=err.message, shm_domain=shm.domain()
                ).SerializeToString()
                out = coding.frame_stream(header, [])
            finally:
                head.drain()  # whatever of the request the step did not take
            # An error while relaying a response ends the call: its header said OK already.
            yield from out

    def _run_streamed(
        self, head: coding.Forwarded, scatter: bool = False, shm_from: int = shm.THRESHOLD
    ) -> Iterator[bytes]:
        req: master_pb2.RunStepRequest = head.header
        fetches = list(req.fetch)
        options = req.options if req.HasField("options") else None
        names = [f.name for f in req.feed]
        # Relay candidates: feeds still in transit, or in shared memory the worker can map.
        if (head.complete and not head.uses_shm()) or len(set(names)) != len(names):
            feeds = dict(zip(names, coding.decode(head.metas, head.payload()))) if names else {}
            relay = StepRelay(reader=req.shm_domain)
        else:
            feeds = {}
            relay = StepRelay(tuple(names), head, req.shm_domain)
        values, stats = self.master.run_step_relayed(
            req.session_handle, feeds, fetches, list(req.target), options, relay
        )
        resp = master_pb2.RunStepResponse(shm_domain=shm.domain())
        if not isinstance(values, list):
            # Relayed: the worker's RunGraph response, which our own worker client read.
            assert isinstance(values, coding.Forwarded)
            for name, meta in zip(fetches, values.metas):
                entry = resp.tensor.add(name=name)
                entry.tensor.CopyFrom(meta)
            return values.messages(resp.SerializeToString())
        buffers = coding.fill_named(
            resp.tensor, fetches, values, shm.shares_with(req.shm_domain), shm_from
        )
        if stats is not None:
            resp.metadata.step_stats.CopyFrom(stats)
        return coding.frame_stream(resp.SerializeToString(), buffers, scatter=scatter)

    def _run(self, req: master_pb2.RunStepRequest, payload: memoryview) -> tuple[bytes, list[Any]]:
        feeds: dict[str, Any] = {}
        if req.feed:
            values = coding.decode([f.tensor for f in req.feed], payload)
            feeds = {f.name: v for f, v in zip(req.feed, values)}
        fetches = list(req.fetch)
        options = req.options if req.HasField("options") else None
        values, stats = self.master.run_step(
            req.session_handle, feeds, fetches, list(req.target), options
        )
        resp = master_pb2.RunStepResponse(shm_domain=shm.domain())
        buffers = coding.fill_named(resp.tensor, fetches, values, shm.shares_with(req.shm_domain))
        if stats is not None:
            resp.metadata.step_stats.CopyFrom(stats)
        return resp.SerializeToString(), buffers


def _parse_run_step(data: Any) -> master_pb2.RunStepRequest:
    return coding.parse(master_pb2.RunStepRequest.FromString, data, "RunStepRequest")


def _feed_metas(req: master_pb2.RunStepRequest) -> list[named_tensor_pb2.TensorMeta]:
    return [f.tensor for f in req.feed]


def _handlers(servicer: MasterServicer) -> dict[str, grpc.RpcMethodHandler]:
    return {
        "CreateSession": status.unary(servicer.create_session),
        "ExtendSession": status.unary(servicer.extend_session),
        "RunStep": status.unary(servicer.run_step),
        "RunStepStream": status.stream_stream(servicer.run_step_stream),
        "CloseSession": status.unary(servicer.close_session),
        "ListDevices": status.unary(servicer.list_devices),
        "Reset": status.unary(servicer.reset),
    }


def method_handlers(servicer: MasterServicer) -> grpc.GenericRpcHandler:
    return grpc.method_handlers_generic_handler(SERVICE_NAME, _handlers(servicer))


def direct_handlers(servicer: MasterServicer) -> dict[str, StreamHandler]:
    """The streaming methods that direct connections serve (the gRPC handlers themselves), by
    method path."""
    handlers = _handlers(servicer)
    return {f"/{SERVICE_NAME}/{name}": handlers[name].stream_stream for name in DIRECT_METHODS}
