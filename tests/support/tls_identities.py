"""Certificates for tests of mutual TLS, made with `cryptography` in the test's folder: the
cluster's CA with a task identity (localhost and the loopback addresses) and a client one, an
expired client of the same CA, and identities of another CA."""

from __future__ import annotations

import datetime
from dataclasses import dataclass
from pathlib import Path

from tfcluster.cli.local_ca import CertificateAuthority, TLSFilePaths, write_identity
from tfcluster.rpc import tls

LOCAL_NAMES = ["localhost"]
LOCAL_ADDRESSES = ["127.0.0.1", "::1"]


def files(paths: TLSFilePaths) -> tls.TLSFiles:
    return tls.TLSFiles(paths.cert, paths.key, paths.ca)


def material(paths: TLSFilePaths) -> tls.TLSMaterial:
    return tls.material_from(files(paths))


def env(paths: TLSFilePaths) -> dict[str, str]:
    return {
        "TFCLUSTER_TLS_CERT": paths.cert,
        "TFCLUSTER_TLS_KEY": paths.key,
        "TFCLUSTER_TLS_CA": paths.ca,
    }


@dataclass
class Identities:
    ca: CertificateAuthority
    task: TLSFilePaths  # server and client use, for localhost
    client: TLSFilePaths
    expired_client: TLSFilePaths
    other_ca_client: TLSFilePaths  # another CA's certificate, trusting that other CA
    other_ca_trusting_ours: TLSFilePaths  # another CA's certificate, trusting our CA
    other_ca_task: TLSFilePaths  # a task certificate of another CA (for localhost)


def make(folder: Path) -> Identities:
    ca = CertificateAuthority.create("test cluster CA")
    other = CertificateAuthority.create("another CA")
    long_ago = datetime.datetime.now(datetime.UTC) - datetime.timedelta(days=3)
    task = write_identity(
        folder / "ours", "task", ca.issue("task", LOCAL_NAMES, LOCAL_ADDRESSES), ca.cert_pem
    )
    client = write_identity(
        folder / "ours", "client", ca.issue("client", server=False), ca.cert_pem
    )
    expired = write_identity(
        folder / "ours",
        "expired",
        ca.issue(
            "expired client",
            server=False,
            not_before=long_ago,
            lifetime=datetime.timedelta(days=1),
        ),
        ca.cert_pem,
    )
    stranger = other.issue("stranger", server=False)
    other_client = write_identity(folder / "other", "client", stranger, other.cert_pem)
    trusting_ours = write_identity(folder / "mixed", "client", stranger, ca.cert_pem)
    other_task = write_identity(
        folder / "other",
        "task",
        other.issue("other task", LOCAL_NAMES, LOCAL_ADDRESSES),
        other.cert_pem,
    )
    return Identities(ca, task, client, expired, other_client, trusting_ours, other_task)
