"""The Secrets of ``spec.tls`` when the operator is the CA (no ``issuerRef``):

    <name>-ca           kubernetes.io/tls: the cluster's CA (tls.crt, tls.key) and ca.crt,
                        the bundle every task and client trusts (this CA and, while it is
                        renewed, the one before it)
    <name>-<job>-tls    per job: ca.crt and <index>.crt / <index>.key for each task, with
                        the task's DNS names (builders/tls.py mounts it)
    <name>-client-tls   kubernetes.io/tls: a client certificate (tls.crt, tls.key, ca.crt)
                        for sessions through <name>-client

All owned by the TFCluster (deleted with it). Each sync reuses what the Secrets it watches
hold, byte for byte, while it is good: signed by the current CA, with the names wanted, and
not yet in the last third of its life; anything else is issued anew. So a sync that finds
nothing to renew applies nothing, and ``renew_in`` says when the next renewal falls due.
Key material never goes into an event, a log line or the status.
"""

from __future__ import annotations

import base64
import datetime
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from . import certificates
from .builders.meta import OwnerRef, common_labels, object_meta
from .builders.tls import (
    CA_FILE,
    ca_secret_name,
    client_secret_name,
    job_secret_name,
    task_dns_names,
)
from .spec import TFClusterSpec

# A certificate is renewed once less than this part of its life is left.
RENEW_FRACTION = 1 / 3


@dataclass(frozen=True)
class Lifetimes:
    certificate: datetime.timedelta = datetime.timedelta(days=30)
    ca: datetime.timedelta = datetime.timedelta(days=3650)


@dataclass(frozen=True)
class IssuedSecrets:
    manifests: list[dict[str, Any]]
    renew_in: float | None  # seconds until the next certificate falls due (None: no TLS)


class SecretIssuer:
    def __init__(
        self,
        lifetimes: Lifetimes,
        cluster_domain: str = "",
        clock: Callable[[], datetime.datetime] | None = None,
    ) -> None:
        self.lifetimes = lifetimes
        self.cluster_domain = cluster_domain
        self.clock = clock or (lambda: datetime.datetime.now(datetime.UTC))

    def secrets(
        self, spec: TFClusterSpec, owner: OwnerRef, live: Mapping[str, Mapping[str, Any]]
    ) -> IssuedSecrets:
        """The Secrets ``spec`` wants, reusing the good parts of the ``live`` ones (name ->
        Secret, as watched)."""
        if not spec.tls.enabled or spec.tls.issuer is not None:
            return IssuedSecrets([], None)
        now = self.clock()
        due: list[datetime.datetime] = []
        ca, ca_bundle, ca_data = self._ca(spec, _data(live.get(ca_secret_name(spec))), now, due)
        manifests = [self._secret(spec, owner, ca_secret_name(spec), ca_data, tls_type=True)]
        for job in spec.jobs:
            if job.replicas < 1:
                continue
            name = job_secret_name(spec, job.name)
            old = _data(live.get(name))
            data = {CA_FILE: _b64(ca_bundle)}
            for index in range(job.replicas):
                names = task_dns_names(spec, job.name, index, self.cluster_domain)
                cert, key = self._leaf(
                    ca,
                    old.get(f"{index}.crt"),
                    old.get(f"{index}.key"),
                    f"{spec.child_name(job.name)}-{index}",
                    names,
                    True,
                    now,
                    due,
                )
                data[f"{index}.crt"], data[f"{index}.key"] = cert, key
            manifests.append(self._secret(spec, owner, name, data))
        name = client_secret_name(spec)
        old = _data(live.get(name))
        cert, key = self._leaf(
            ca,
            old.get("tls.crt"),
            old.get("tls.key"),
            f"{spec.client_service_name}.{spec.namespace}",
            [],
            False,
            now,
            due,
        )
        data = {"tls.crt": cert, "tls.key": key, CA_FILE: _b64(ca_bundle)}
        manifests.append(self._secret(spec, owner, name, data, tls_type=True))
        renew_in = max((min(due) - now).total_seconds(), 1.0) if due else None
        return IssuedSecrets(manifests, renew_in)

    def _ca(
        self,
        spec: TFClusterSpec,
        old: Mapping[str, str],
        now: datetime.datetime,
        due: list[datetime.datetime],
    ) -> tuple[certificates.KeyPair, bytes, dict[str, str]]:
        """(the CA, the bundle to trust, the CA Secret's data)."""
        cert, key = _unb64(old.get("tls.crt")), _unb64(old.get("tls.key"))
        renew_before = self.lifetimes.ca * RENEW_FRACTION
        found = certificates.facts(cert, key, cert) if cert and key else None
        if (
            found is not None
            and found.is_ca
            and found.signed_by_ca
            and found.key_matches
            and found.not_after - now > renew_before
        ):
            due.append(found.not_after - renew_before)
            return (
                certificates.KeyPair(cert, key),
                _unb64(old.get(CA_FILE)) or cert,
                dict(old),
            )
        name = f"{spec.namespace}/{spec.name} tfcluster CA"
        ca = certificates.new_ca(name, self.lifetimes.ca, now)
        # Trust the CA before this one too while it lives: tasks not yet holding their
        # renewed certificates keep talking to those that do.
        previous = [cert] if found is not None and found.is_ca else []
        trusted = certificates.bundle([ca.cert_pem, *previous], now)
        due.append(now + self.lifetimes.ca - renew_before)
        data = {"tls.crt": _b64(ca.cert_pem), "tls.key": _b64(ca.key_pem), CA_FILE: _b64(trusted)}
        return ca, trusted, data

    def _leaf(
        self,
        ca: certificates.KeyPair,
        cert_b64: str | None,
        key_b64: str | None,
        common_name: str,
        names: list[str],
        server: bool,
        now: datetime.datetime,
        due: list[datetime.datetime],
    ) -> tuple[str, str]:
        renew_before = self.lifetimes.certificate * RENEW_FRACTION
        cert, key = _unb64(cert_b64), _unb64(key_b64)
        found = certificates.facts(cert, key, ca.cert_pem) if cert and key else None
        if (
            found is not None
            and found.signed_by_ca
            and found.key_matches
            and found.dns_names == frozenset(names)
            and found.not_after - now > renew_before
        ):
            due.append(found.not_after - renew_before)
            return str(cert_b64), str(key_b64)
        pair = certificates.issue(
            ca, common_name, names, server=server, lifetime=self.lifetimes.certificate, now=now
        )
        due.append(now + self.lifetimes.certificate - renew_before)
        return _b64(pair.cert_pem), _b64(pair.key_pem)

    @staticmethod
    def _secret(
        spec: TFClusterSpec,
        owner: OwnerRef,
        name: str,
        data: Mapping[str, str],
        tls_type: bool = False,
    ) -> dict[str, Any]:
        return {
            "apiVersion": "v1",
            "kind": "Secret",
            "metadata": object_meta(spec, name, common_labels(spec, "tls"), owner),
            "type": "kubernetes.io/tls" if tls_type else "Opaque",
            "data": dict(sorted(data.items())),
        }


def _data(secret: Mapping[str, Any] | None) -> dict[str, str]:
    return dict((secret or {}).get("data") or {})


def _b64(raw: bytes) -> str:
    return base64.b64encode(raw).decode("ascii")


def _unb64(text: str | None) -> bytes:
    if not text:
        return b""
    try:
        return base64.b64decode(text, validate=True)
    except ValueError:
        return b""
