"""Throw-away PKI for the test control plane: a CA, serving and client certs, an SA key."""

from __future__ import annotations

import datetime
import ipaddress
from dataclasses import dataclass
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, rsa
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

_VALIDITY = datetime.timedelta(days=7)


@dataclass(frozen=True)
class CertPair:
    cert: Path
    key: Path


def _write_key(path: Path, key: ec.EllipticCurvePrivateKey | rsa.RSAPrivateKey) -> None:
    path.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    path.chmod(0o600)


def _name(common_name: str, organization: str | None = None) -> x509.Name:
    attrs = [x509.NameAttribute(NameOID.COMMON_NAME, common_name)]
    if organization:
        attrs.append(x509.NameAttribute(NameOID.ORGANIZATION_NAME, organization))
    return x509.Name(attrs)


class TestPKI:
    """A CA in ``folder`` that issues the certificates the components need."""

    __test__ = False  # not a pytest test class

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        folder.mkdir(parents=True, exist_ok=True)
        now = datetime.datetime.now(datetime.UTC)
        self._not_before = now - datetime.timedelta(minutes=5)
        self._ca_key = ec.generate_private_key(ec.SECP256R1())
        ca_name = _name("tfcluster-test-ca")
        self._ca_name = ca_name
        ca_cert = (
            x509.CertificateBuilder()
            .subject_name(ca_name)
            .issuer_name(ca_name)
            .public_key(self._ca_key.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(self._not_before)
            .not_valid_after(now + _VALIDITY)
            .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
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
            .add_extension(
                x509.SubjectKeyIdentifier.from_public_key(self._ca_key.public_key()),
                critical=False,
            )
            .sign(self._ca_key, hashes.SHA256())
        )
        self.ca = CertPair(folder / "ca.crt", folder / "ca.key")
        self.ca.cert.write_bytes(ca_cert.public_bytes(serialization.Encoding.PEM))
        _write_key(self.ca.key, self._ca_key)
        self._ca_cert = ca_cert

    @property
    def ca_pem(self) -> bytes:
        return self.ca.cert.read_bytes()

    def issue(
        self,
        stem: str,
        common_name: str,
        organization: str | None = None,
        *,
        server_names: tuple[str, ...] = (),
        client: bool = False,
    ) -> CertPair:
        """A leaf cert for a server (``server_names``: DNS names and IPs) or a client."""
        key = ec.generate_private_key(ec.SECP256R1())
        usages = [ExtendedKeyUsageOID.CLIENT_AUTH] if client else []
        builder = (
            x509.CertificateBuilder()
            .subject_name(_name(common_name, organization))
            .issuer_name(self._ca_name)
            .public_key(key.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(self._not_before)
            .not_valid_after(self._ca_cert.not_valid_after_utc)
            .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
            .add_extension(
                x509.AuthorityKeyIdentifier.from_issuer_public_key(self._ca_key.public_key()),
                critical=False,
            )
        )
        if server_names:
            usages.append(ExtendedKeyUsageOID.SERVER_AUTH)
            alt_names: list[x509.GeneralName] = []
            for entry in server_names:
                try:
                    alt_names.append(x509.IPAddress(ipaddress.ip_address(entry)))
                except ValueError:
                    alt_names.append(x509.DNSName(entry))
            builder = builder.add_extension(x509.SubjectAlternativeName(alt_names), critical=False)
        builder = builder.add_extension(x509.ExtendedKeyUsage(usages), critical=False)
        cert = builder.sign(self._ca_key, hashes.SHA256())
        pair = CertPair(self.folder / f"{stem}.crt", self.folder / f"{stem}.key")
        pair.cert.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
        _write_key(pair.key, key)
        return pair

    def service_account_key(self) -> CertPair:
        """The key pair that signs ServiceAccount tokens (``cert`` holds the public key)."""
        key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        pair = CertPair(self.folder / "sa.pub", self.folder / "sa.key")
        pair.cert.write_bytes(
            key.public_key().public_bytes(
                serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
            )
        )
        _write_key(pair.key, key)
        return pair
