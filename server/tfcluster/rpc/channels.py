"""gRPC channels and servers with the options every client and server of the runtime shares.

gRPC's core logs transport events (a peer going away...) at INFO by default, and a task
leaving the cluster is normal here. gRPC reads GRPC_VERBOSITY once, when it is imported (by
`import tfcluster`), so it cannot be set from here: `import tfcluster` sets
GRPC_VERBOSITY=ERROR first, unless it is set (settings/environment.quiet_grpc_by_default).
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from concurrent import futures

import grpc

from tfcluster.rpc import tls
from tfcluster.rpc.renewing_channel import RenewingChannel

# Big tensors are streamed in chunks; other messages (a GraphDef with its constants) may be
# big, but not unbounded: TensorFlow's limit, the largest a protobuf message can be.
MAX_MESSAGE_BYTES = (1 << 31) - 1
_UNLIMITED = [
    ("grpc.max_send_message_length", MAX_MESSAGE_BYTES),
    ("grpc.max_receive_message_length", MAX_MESSAGE_BYTES),
]

CHANNEL_OPTIONS = [
    *_UNLIMITED,
    # A restarted task should be found again within about a second, not after minutes.
    ("grpc.initial_reconnect_backoff_ms", 100),
    ("grpc.min_reconnect_backoff_ms", 100),
    ("grpc.max_reconnect_backoff_ms", 1000),
    # Notice a peer that vanished without closing its connections (a deleted pod).
    ("grpc.keepalive_time_ms", 30000),
    ("grpc.keepalive_timeout_ms", 10000),
    # We handle retries ourselves; gRPC's retry machinery costs time on every call.
    ("grpc.enable_retries", 0),
    ("grpc.enable_http_proxy", 0),
]

SERVER_OPTIONS = [
    *_UNLIMITED,
    # Two servers must never share a port silently: "port in use" is an error.
    ("grpc.so_reuseport", 0),
    ("grpc.keepalive_permit_without_calls", 1),
    ("grpc.http2.min_recv_ping_interval_without_data_ms", 10000),
    ("grpc.http2.max_ping_strikes", 0),
]

_lock = threading.Lock()
# (address, whether TLS) -> channel
_channels: dict[tuple[str, bool], grpc.Channel] = {}


def shared_channel(address: str) -> grpc.Channel:
    """One channel (one connection) per address and process, shared by all clients. With a
    TLS identity (rpc/tls.py) it is secure, and follows the identity as it is renewed."""
    key = (address, tls.client_source() is not None)
    ch = _channels.get(key)
    if ch is not None:
        return ch
    with _lock:
        ch = _channels.get(key)
        if ch is None:
            ch = _channels[key] = private_channel(address)
        return ch


def private_channel(address: str) -> grpc.Channel:
    if tls.client_source() is None:
        return _channel(address, None)
    return RenewingChannel(address, lambda material: _channel(address, material))


def _channel(address: str, material: tls.TLSMaterial | None) -> grpc.Channel:
    if material is None:
        return grpc.insecure_channel(address, options=CHANNEL_OPTIONS)
    return grpc.secure_channel(address, material.channel_credentials(), options=CHANNEL_OPTIONS)


def new_server(
    executor: futures.ThreadPoolExecutor,
    interceptors: Sequence[grpc.ServerInterceptor] | None = None,
) -> grpc.Server:
    return grpc.server(executor, options=SERVER_OPTIONS, interceptors=interceptors)
