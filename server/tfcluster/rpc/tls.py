"""Mutual TLS for the transport: the certificate files of one identity, read again when they
change (a Kubernetes Secret volume swaps them in place), and what gRPC and the ssl module
make of them.

Every task and client of a cluster with TLS holds a certificate from the cluster's CA and
trusts that CA only: a task serves gRPC and direct streams only to peers that present such a
certificate, and a client checks the task's certificate against the name it dialled. One
process has one client identity (`client_material`): the files of TFCLUSTER_TLS_CERT/_KEY/_CA
(settings/environment.py), unless a program's tf.train.Server(tls=...) gave its own.

Rotation: a TLSSource looks at its files at most once a second when asked; new, consistent
files (the key matches the certificate) make a new TLSMaterial with a higher generation.
Servers take it for every new connection; clients open new channels with it, and the
connections already made stay as they are (they were authenticated when they were made).
"""

from __future__ import annotations

import itertools
import logging
import os
import ssl
import threading
import time
from dataclasses import dataclass, field
from typing import Any

import grpc

from tfcluster.settings import contract, environment

log = logging.getLogger("tfcluster.tls")

# How often a source looks at its files (seconds), at most.
CHECK_INTERVAL = 1.0
_generations = itertools.count(1)


class TLSConfigError(ValueError):
    """Certificate files that cannot be used; the message says which and why."""


@dataclass(frozen=True)
class TLSFiles:
    """Paths of one identity's PEM files: its certificate (chain), its private key, and the
    certificate of the CA whose certificates it accepts from peers."""

    cert: str
    key: str
    ca: str

    @classmethod
    def of(cls, value: Any) -> TLSFiles:
        """A TLSFiles from itself, a mapping {cert, key, ca} or a (cert, key, ca) sequence."""
        if isinstance(value, TLSFiles):
            return value
        if isinstance(value, dict):
            missing = {"cert", "key", "ca"} - set(value)
            if missing:
                raise TLSConfigError(f"tls needs 'cert', 'key' and 'ca'; missing {sorted(missing)}")
            return cls(str(value["cert"]), str(value["key"]), str(value["ca"]))
        if isinstance(value, list | tuple) and len(value) == 3:
            return cls(*(str(v) for v in value))
        raise TLSConfigError(
            f"tls must be a TLSFiles, a dict with cert/key/ca file paths or a (cert, key, ca) "
            f"tuple, not {value!r}"
        )


@dataclass(frozen=True, eq=False)
class TLSMaterial:
    """One consistent set of PEM bytes, with what gRPC and ssl make of it (made once)."""

    cert_chain: bytes = field(repr=False)
    key: bytes = field(repr=False)  # never in a log
    ca: bytes = field(repr=False)
    generation: int = field(default_factory=lambda: next(_generations))

    def __post_init__(self) -> None:
        # Checks the set now (a key that does not match its certificate, a CA that does not
        # parse) rather than on the first connection.
        object.__setattr__(self, "_server_context", self._context(ssl.PROTOCOL_TLS_SERVER))
        object.__setattr__(self, "_client_context", self._context(ssl.PROTOCOL_TLS_CLIENT))

    def _context(self, protocol: int) -> ssl.SSLContext:
        ctx = ssl.SSLContext(protocol)
        ctx.minimum_version = ssl.TLSVersion.TLSv1_2
        ctx.verify_mode = ssl.CERT_REQUIRED  # both ways: the peer must show a certificate
        try:
            ctx.load_verify_locations(cadata=self.ca.decode("ascii", "replace"))
        except (ssl.SSLError, ValueError) as e:
            raise TLSConfigError(f"the CA certificate cannot be read: {e}") from None
        _load_cert_chain(ctx, self.cert_chain, self.key)
        return ctx

    @property
    def server_context(self) -> ssl.SSLContext:
        """For a direct-streams listener: peers must show a certificate from the CA."""
        return self._server_context  # type: ignore[attr-defined,no-any-return]

    @property
    def client_context(self) -> ssl.SSLContext:
        """For a direct connection: the task's certificate must name the host dialled."""
        return self._client_context  # type: ignore[attr-defined,no-any-return]

    def channel_credentials(self) -> grpc.ChannelCredentials:
        return grpc.ssl_channel_credentials(
            root_certificates=self.ca, private_key=self.key, certificate_chain=self.cert_chain
        )

    def server_configuration(self) -> Any:
        return grpc.ssl_server_certificate_configuration(
            [(self.key, self.cert_chain)], root_certificates=self.ca
        )


def _load_cert_chain(ctx: ssl.SSLContext, cert_chain: bytes, key: bytes) -> None:
    """ssl reads a certificate and key only from files: hand it an in-memory one."""
    fd = os.memfd_create("tfcluster-tls", os.MFD_CLOEXEC)
    try:
        os.write(fd, cert_chain.rstrip(b"\n") + b"\n" + key)
        ctx.load_cert_chain(f"/proc/self/fd/{fd}")
    except ssl.SSLError as e:
        raise TLSConfigError(
            f"the certificate and key cannot be used together ({e.reason or e}): is the key "
            "the certificate's own?"
        ) from None
    finally:
        os.close(fd)


class TLSSource:
    """An identity's files, read again when they change (checked at most every
    CHECK_INTERVAL seconds); `current()` is the last consistent set."""

    def __init__(self, files: TLSFiles, check_interval: float = CHECK_INTERVAL) -> None:
        self.files = files
        self._interval = check_interval
        self._lock = threading.Lock()
        self._stamp = self._file_stamp()
        self._material = material_from(files)  # raises TLSConfigError: nothing to serve with
        self._checked = time.monotonic()

    def current(self) -> TLSMaterial:
        if time.monotonic() - self._checked >= self._interval and self._lock.acquire(False):
            try:
                self._reload()
            finally:
                self._checked = time.monotonic()
                self._lock.release()
        return self._material

    def _reload(self) -> None:
        stamp = self._file_stamp()
        if stamp == self._stamp:
            return
        try:
            material = material_from(self.files)
        except TLSConfigError as e:
            # Mid-rotation (the certificate written, not yet its key), or a bad file: keep
            # serving with what worked, and look again.
            log.warning("TLS files changed but cannot be used yet (%s); keeping the old ones", e)
            return
        self._stamp = stamp
        old = self._material
        if (material.cert_chain, material.key, material.ca) != (old.cert_chain, old.key, old.ca):
            self._material = material
            log.info("TLS certificate reloaded from %s", self.files.cert)

    def _file_stamp(self) -> tuple[Any, ...]:
        stamps: list[Any] = []
        for path in (self.files.cert, self.files.key, self.files.ca):
            try:
                st = os.stat(path)
                stamps.append((st.st_ino, st.st_mtime_ns, st.st_size))
            except OSError:
                stamps.append(None)
        return tuple(stamps)


def material_from(files: TLSFiles) -> TLSMaterial:
    def read(path: str, what: str) -> bytes:
        try:
            with open(path, "rb") as f:
                return f.read()
        except OSError as e:
            raise TLSConfigError(f"the TLS {what} file {path!r} cannot be read: {e}") from None

    return TLSMaterial(
        read(files.cert, "certificate"), read(files.key, "key"), read(files.ca, "CA")
    )


# ---- the process's client identity ---------------------------------------------------------

_client_lock = threading.Lock()
_client_given: TLSSource | None = None
_client_from_environment: dict[TLSFiles, TLSSource] = {}


def use_for_clients(source: TLSSource | None) -> None:
    """The identity this process's channels and direct connections use from now on (a
    program's tf.train.Server(tls=...) gives its own); None: back to the environment's."""
    global _client_given
    with _client_lock:
        _client_given = source


def files_from_environment() -> TLSFiles | None:
    """The TLS files the environment names (all three or none; TLSConfigError if only some)."""
    found = environment.tls_files()
    if found is None:
        return None
    cert, key, ca = found
    if not (cert and key and ca):
        raise TLSConfigError(
            f"{contract.TLS_CERT_ENV}, {contract.TLS_KEY_ENV} and {contract.TLS_CA_ENV} must "
            "be set together"
        )
    return TLSFiles(cert, key, ca)


def source_for(files: TLSFiles) -> TLSSource:
    """One TLSSource per set of files in a process."""
    with _client_lock:
        source = _client_from_environment.get(files)
        if source is None:
            source = _client_from_environment[files] = TLSSource(files)
        return source


def client_source() -> TLSSource | None:
    given = _client_given
    if given is not None:
        return given
    files = files_from_environment()
    return source_for(files) if files is not None else None


def client_material() -> TLSMaterial | None:
    """What this process shows the tasks it calls (None: plain connections)."""
    source = client_source()
    return source.current() if source is not None else None


def describe_failure(details: str, tls_on: bool) -> str:
    """A hint for a connection a TLS handshake (or its absence) broke, else ''."""
    text = details.lower()
    if tls_on and any(w in text for w in ("ssl", "handshake", "certificate", "tls")):
        return (
            " (TLS: the task refused this process's certificate, or its own is not from the "
            f"CA this process trusts, or does not name the address dialled; see "
            f"{contract.TLS_CERT_ENV}/{contract.TLS_KEY_ENV}/{contract.TLS_CA_ENV})"
        )
    if not tls_on and any(w in text for w in ("socket closed", "connection reset", "handshake")):
        return (
            " (if the task requires TLS, this process connects without a certificate: set "
            f"{contract.TLS_CERT_ENV}/{contract.TLS_KEY_ENV}/{contract.TLS_CA_ENV})"
        )
    return ""
