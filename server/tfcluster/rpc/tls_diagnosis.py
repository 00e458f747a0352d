"""Why a task cannot be reached when TLS is the reason, in words a person can act on.

gRPC retries a handshake that fails as if the task were not up yet, and a call that waits
for the task (as a session's first calls do) only ever says "Deadline Exceeded". So a call
that waits is made in slices, and after a slice that found no task, one connection of our
own tells a task that is down (nothing to say: keep waiting) from one that refuses us, one
we refuse, or one that speaks TLS when we do not (or the other way round): those fail at
once with UnauthenticatedError saying which (not UnavailableError: a MonitoredSession would
retry that for ever, and no retry mends a certificate).
"""

from __future__ import annotations

import socket
import ssl
import time
from collections.abc import Callable
from typing import Any

import grpc

from tfcluster.rpc import tls
from tfcluster.settings import contract

# A waiting call looks at the task after this long, then at growing intervals up to the last.
_SLICES = (1.0, 2.0, 4.0, 5.0)
_PROBE_TIMEOUT = 2.0
_HTTP2_PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
_ENV_NAMES = f"{contract.TLS_CERT_ENV}/{contract.TLS_KEY_ENV}/{contract.TLS_CA_ENV}"


class TLSRefused(grpc.RpcError):
    """A connection TLS stands in the way of: reads as a failed gRPC call (UNAUTHENTICATED)."""

    def __init__(self, details: str) -> None:
        super().__init__(details)
        self._details = details

    def code(self) -> grpc.StatusCode:
        return grpc.StatusCode.UNAUTHENTICATED

    def details(self) -> str:
        return self._details


def call_waiting(
    call: Callable[..., Any], request: bytes, timeout: float | None, address: str
) -> Any:
    """`call(request, wait_for_ready=True)` until `timeout` (None: for ever), giving up at
    once when the task is there but TLS keeps us apart (TLSRefused)."""
    deadline = None if timeout is None else time.monotonic() + timeout
    attempt = 0
    while True:
        piece = _SLICES[min(attempt, len(_SLICES) - 1)]
        attempt += 1
        if deadline is not None:
            piece = min(piece, deadline - time.monotonic())
        try:
            return call(request, timeout=max(piece, 0.001), wait_for_ready=True)
        except grpc.RpcError as e:
            if e.code() != grpc.StatusCode.DEADLINE_EXCEEDED:
                raise
            why = diagnose(address, tls.client_material())
            if why:
                raise TLSRefused(why) from None
            if deadline is not None and time.monotonic() >= deadline:
                raise


def diagnose(address: str, material: tls.TLSMaterial | None) -> str:
    """What keeps a connection to `address` from working over TLS (or without), '' when
    nothing does or nothing listens there."""
    host, _, port_text = address.rpartition(":")
    host = host.strip("[]") or "localhost"
    try:
        sock = socket.create_connection((host, int(port_text)), timeout=_PROBE_TIMEOUT)
    except (OSError, ValueError):
        return ""  # not up (yet): waiting is right
    with sock:
        if material is None:
            return _plain_client(sock, host, address)
        return _tls_client(sock, host, address, material)


def _plain_client(sock: socket.socket, host: str, address: str) -> str:
    """We speak plain: does the task speak TLS?"""
    probe = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    probe.check_hostname = False
    probe.verify_mode = ssl.CERT_NONE
    try:
        with probe.wrap_socket(sock, server_hostname=host):
            pass
    except (OSError, ValueError):
        return ""  # no TLS there
    return (
        f"the task at {address} requires mutual TLS and this process has no certificate: "
        f"set {_ENV_NAMES} to the files of a certificate from the cluster's CA (on Kubernetes: "
        "the <name>-client-tls Secret)"
    )


def _tls_client(sock: socket.socket, host: str, address: str, material: tls.TLSMaterial) -> str:
    try:
        secured = material.client_context.wrap_socket(sock, server_hostname=host)
    except ssl.SSLCertVerificationError as e:
        return (
            f"TLS: the task at {address} is not trusted: {e.verify_message} (its certificate "
            f"must come from the CA in {contract.TLS_CA_ENV} and name '{host}')"
        )
    except ssl.SSLError as e:
        if "WRONG_VERSION_NUMBER" in str(e) or "record layer" in str(e):
            return (
                f"the task at {address} does not speak TLS, and this process connects with "
                f"TLS only ({_ENV_NAMES} are set)"
            )
        return f"TLS handshake with the task at {address} failed: {e.reason or e}"
    except OSError:
        return (
            f"the task at {address} hung up during the TLS handshake (does it speak TLS? "
            f"this process connects with TLS only, as {_ENV_NAMES} say)"
        )
    with secured:
        # TLS 1.3: the task says what it thinks of our certificate only after the handshake.
        # A task that accepts us answers the HTTP/2 preface; one that refuses us sends an
        # alert or (gRPC) just hangs up.
        try:
            secured.settimeout(_PROBE_TIMEOUT)
            secured.sendall(_HTTP2_PREFACE)
            answer = secured.recv(1)
            reason = "" if answer else "it hung up"
        except TimeoutError:
            return ""
        except ssl.SSLError as e:
            reason = str(e.reason or e)
        except OSError as e:
            reason = str(e)
    if not reason:
        return ""
    return (
        f"TLS: the task at {address} refused this process's certificate ({reason}): it must "
        "come from the cluster's CA and be valid now"
    )
