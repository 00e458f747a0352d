"""A throwaway certificate authority for a local cluster (`tfcluster cluster/train/run --tls`):
a CA made for the run, a certificate per task (server and client use: a task is both) and one
for the client, written as PEM files into a folder only its owner may read. Built with the
`cryptography` package; nothing is hand-written crypto.
"""

from __future__ import annotations

import datetime
import ipaddress
import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

# Long enough for any local run; the CA dies with the run's folder.
DEFAULT_LIFETIME = datetime.timedelta(days=7)
_CLOCK_SKEW = datetime.timedelta(minutes=5)


@dataclass(frozen=True)
class Issued:
    """A certificate and its private key, PEM-encoded."""

    cert_pem: bytes
    key_pem: bytes


@dataclass(frozen=True)
class TLSFilePaths:
    """Where one identity's files lie: its certificate, its key and the CA's certificate."""

    cert: str
    key: str
    ca: str


class CertificateAuthority:
    """A CA key and its self-signed certificate; issues leaf certificates."""

    def __init__(self, key: ec.EllipticCurvePrivateKey, cert: x509.Certificate) -> None:
        self.key = key
        self.cert = cert

    @classmethod
    def create(
        cls,
        common_name: str = "tfcluster local CA",
        lifetime: datetime.timedelta = DEFAULT_LIFETIME,
    ) -> CertificateAuthority:
        key = ec.generate_private_key(ec.SECP256R1())
        name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, common_name)])
        start = _now() - _CLOCK_SKEW
        cert = (
            x509.CertificateBuilder()
            .subject_name(name)
            .issuer_name(name)
            .public_key(key.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(start)
            .not_valid_after(start + lifetime)
            .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
            .add_extension(
                x509.KeyUsage(
                    digital_signature=True,
                    content_commitment=False,
                    key_encipherment=False,
                    data_encipherment=False,
                    key_agreement=False,
                    key_cert_sign=True,
                    crl_sign=True,
                    encipher_only=False,
                    decipher_only=False,
                ),
                critical=True,
            )
            .add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()), False)
            .sign(key, hashes.SHA256())
        )
        return cls(key, cert)

    @property
    def cert_pem(self) -> bytes:
        return self.cert.public_bytes(serialization.Encoding.PEM)

    def issue(
        self,
        common_name: str,
        dns_names: Iterable[str] = (),
        ip_addresses: Iterable[str] = (),
        *,
        server: bool = True,
        client: bool = True,
        lifetime: datetime.timedelta = DEFAULT_LIFETIME,
        not_before: datetime.datetime | None = None,
    ) -> Issued:
        """A leaf certificate for `common_name` with these subject alternative names, for
        server and/or client authentication."""
        key = ec.generate_private_key(ec.SECP256R1())
        start = not_before or (_now() - _CLOCK_SKEW)
        sans: list[x509.GeneralName] = [x509.DNSName(n) for n in dict.fromkeys(dns_names)]
        sans += [x509.IPAddress(ipaddress.ip_address(a)) for a in dict.fromkeys(ip_addresses)]
        usages = [
            *([ExtendedKeyUsageOID.SERVER_AUTH] if server else []),
            *([ExtendedKeyUsageOID.CLIENT_AUTH] if client else []),
        ]
        builder = (
            x509.CertificateBuilder()
            .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, common_name[:64])]))
            .issuer_name(self.cert.subject)
            .public_key(key.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(start)
            .not_valid_after(start + lifetime)
            .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
            .add_extension(x509.ExtendedKeyUsage(usages), critical=False)
            .add_extension(
                x509.AuthorityKeyIdentifier.from_issuer_public_key(self.key.public_key()), False
            )
        )
        if sans:
            builder = builder.add_extension(x509.SubjectAlternativeName(sans), critical=False)
        cert = builder.sign(self.key, hashes.SHA256())
        return Issued(
            cert.public_bytes(serialization.Encoding.PEM),
            key.private_bytes(
                serialization.Encoding.PEM,
                serialization.PrivateFormat.PKCS8,
                serialization.NoEncryption(),
            ),
        )


def write_identity(folder: str | Path, name: str, issued: Issued, ca_pem: bytes) -> TLSFilePaths:
    """Writes `name`.crt, `name`.key (mode 0600) and ca.crt into `folder` (made 0700)."""
    root = Path(folder)
    root.mkdir(mode=0o700, parents=True, exist_ok=True)
    ca = root / "ca.crt"
    ca.write_bytes(ca_pem)
    cert = root / f"{name}.crt"
    cert.write_bytes(issued.cert_pem)
    key = root / f"{name}.key"
    fd = os.open(key, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "wb") as f:
        f.write(issued.key_pem)
    return TLSFilePaths(str(cert), str(key), str(ca))


LOCAL_NAMES = ("localhost",)
LOCAL_ADDRESSES = ("127.0.0.1", "::1")


def local_identities(folder: str | Path, hosts: Sequence[str]) -> tuple[TLSFilePaths, TLSFilePaths]:
    """A new CA in `folder`, one certificate every task of a local cluster uses (server and
    client; valid for `hosts`, localhost and the loopback addresses) and one for clients:
    (the tasks' files, the client's files)."""
    ca = CertificateAuthority.create()
    names, addresses = list(LOCAL_NAMES), list(LOCAL_ADDRESSES)
    for host in hosts:
        try:
            ipaddress.ip_address(host)
            addresses.append(host)
        except ValueError:
            names.append(host)
    tasks = write_identity(
        folder, "task", ca.issue("tfcluster task", names, addresses), ca.cert_pem
    )
    client = write_identity(
        folder, "client", ca.issue("tfcluster client", server=False), ca.cert_pem
    )
    return tasks, client


def _now() -> datetime.datetime:
    return datetime.datetime.now(datetime.UTC)
