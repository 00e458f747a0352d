"""A gRPC channel that follows the process's TLS identity (rpc/tls.py) as it is renewed.

gRPC-Python fixes a secure channel's certificate when the channel is made, and a channel
reconnects (after a peer restarts, say) with that certificate, expired or not. Clients hold
their channel and the callables made from it for as long as they live, so this channel hands
out callables that, on each call, use a channel made with the current identity: a renewed
certificate is shown from the next call on. Channels of older identities stay open for the
calls running on them, and close with this one. Plain processes never use it.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import grpc

from tfcluster.rpc import tls


class RenewingChannel(grpc.Channel):
    def __init__(self, address: str, make: Callable[[tls.TLSMaterial | None], grpc.Channel]):
        self._address = address
        self._make = make
        self._lock = threading.Lock()
        self._current: tuple[tls.TLSMaterial | None, grpc.Channel] | None = None
        self._all: list[grpc.Channel] = []
        self._closed = False

    def current(self) -> grpc.Channel:
        """The channel of the process's identity now (made on first use after a change)."""
        material = tls.client_material()
        current = self._current
        if current is not None and current[0] is material:
            return current[1]
        with self._lock:
            current = self._current
            if current is None or current[0] is not material:
                if self._closed:
                    raise ValueError(f"the channel to {self._address} is closed")
                current = self._current = (material, self._make(material))
                self._all.append(current[1])
            return current[1]

    def _renewing(self, kind: str, method: str, **kwargs: Any) -> _RenewingCallable:
        return _RenewingCallable(self, kind, method, kwargs)

    def unary_unary(self, method: str, *args: Any, **kwargs: Any) -> Any:
        return self._renewing("unary_unary", method, **_named(args, kwargs))

    def unary_stream(self, method: str, *args: Any, **kwargs: Any) -> Any:
        return self._renewing("unary_stream", method, **_named(args, kwargs))

    def stream_unary(self, method: str, *args: Any, **kwargs: Any) -> Any:
        return self._renewing("stream_unary", method, **_named(args, kwargs))

    def stream_stream(self, method: str, *args: Any, **kwargs: Any) -> Any:
        return self._renewing("stream_stream", method, **_named(args, kwargs))

    def subscribe(self, callback: Any, try_to_connect: bool = False) -> None:
        self.current().subscribe(callback, try_to_connect)

    def unsubscribe(self, callback: Any) -> None:
        with self._lock:
            channels = list(self._all)
        for channel in channels:
            channel.unsubscribe(callback)

    def close(self) -> None:
        with self._lock:
            self._closed = True
            channels, self._all = self._all, []
            self._current = None
        for channel in channels:
            channel.close()

    def __enter__(self) -> RenewingChannel:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


def _named(args: tuple[Any, ...], kwargs: dict[str, Any]) -> dict[str, Any]:
    names = ("request_serializer", "response_deserializer")
    return {**dict(zip(names, args)), **kwargs}


class _RenewingCallable:
    """A multi-callable whose calls go to the owner's current channel."""

    def __init__(
        self, owner: RenewingChannel, kind: str, method: str, kwargs: dict[str, Any]
    ) -> None:
        self._owner = owner
        self._kind = kind
        self._method = method
        self._kwargs = kwargs
        self._made: tuple[grpc.Channel | None, Any] = (None, None)

    def _callable(self) -> Any:
        channel = self._owner.current()
        made = self._made
        if made[0] is channel:
            return made[1]
        fn = getattr(channel, self._kind)(self._method, **self._kwargs)
        self._made = (channel, fn)
        return fn

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self._callable()(*args, **kwargs)

    def future(self, *args: Any, **kwargs: Any) -> Any:
        return self._callable().future(*args, **kwargs)

    def with_call(self, *args: Any, **kwargs: Any) -> Any:
        return self._callable().with_call(*args, **kwargs)
