"""X.509 for the operator's own CA (``spec.tls`` without an issuer): a CA per TFCluster,
certificates it signs, and the checks that say whether one may be kept. Built with the
``cryptography`` package (the operator does not import the runtime, which has its own)."""

from __future__ import annotations

import datetime
import functools
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

# A certificate starts a little in the past: clocks of the operator's and the tasks' nodes
# may disagree by that much.
CLOCK_SKEW = datetime.timedelta(minutes=5)


@dataclass(frozen=True)
class KeyPair:
    """A PEM certificate and its PEM private key."""

    cert_pem: bytes
    key_pem: bytes


def new_ca(common_name: str, lifetime: datetime.timedelta, now: datetime.datetime) -> KeyPair:
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, common_name[:64])])
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - CLOCK_SKEW)
        .not_valid_after(now + lifetime)
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
    return KeyPair(_cert_pem(cert), _key_pem(key))


def issue(
    ca: KeyPair,
    common_name: str,
    dns_names: Sequence[str],
    *,
    server: bool,
    lifetime: datetime.timedelta,
    now: datetime.datetime,
) -> KeyPair:
    """A certificate signed by `ca`: client authentication always, server authentication
    (a task's) when `server`, for these DNS names."""
    ca_cert = x509.load_pem_x509_certificate(ca.cert_pem)
    ca_key = serialization.load_pem_private_key(ca.key_pem, password=None)
    assert isinstance(ca_key, ec.EllipticCurvePrivateKey)
    key = ec.generate_private_key(ec.SECP256R1())
    usages = [ExtendedKeyUsageOID.CLIENT_AUTH]
    if server:
        usages.insert(0, ExtendedKeyUsageOID.SERVER_AUTH)
    builder = (
        x509.CertificateBuilder()
        .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, common_name[:64])]))
        .issuer_name(ca_cert.subject)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - CLOCK_SKEW)
        .not_valid_after(min(now + lifetime, ca_cert.not_valid_after_utc))
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .add_extension(x509.ExtendedKeyUsage(usages), critical=False)
        .add_extension(
            x509.AuthorityKeyIdentifier.from_issuer_public_key(ca_key.public_key()), False
        )
    )
    if dns_names:
        builder = builder.add_extension(
            x509.SubjectAlternativeName([x509.DNSName(n) for n in dns_names]), critical=False
        )
    return KeyPair(_cert_pem(builder.sign(ca_key, hashes.SHA256())), _key_pem(key))


@dataclass(frozen=True)
class Facts:
    """What the operator checks of a certificate it finds."""

    signed_by_ca: bool
    dns_names: frozenset[str]
    not_after: datetime.datetime
    key_matches: bool
    is_ca: bool


@functools.lru_cache(maxsize=4096)
def facts(cert_pem: bytes, key_pem: bytes, ca_pem: bytes) -> Facts | None:
    """The facts of a certificate and its key, checked against the CA's certificate (which
    signs itself for a CA); None when they do not parse. Cached: a sync looks at the same
    certificates again and again."""
    try:
        cert = x509.load_pem_x509_certificate(cert_pem)
        ca = x509.load_pem_x509_certificate(ca_pem)
        key = serialization.load_pem_private_key(key_pem, password=None)
    except (ValueError, TypeError):
        return None
    try:
        cert.verify_directly_issued_by(ca)
        signed = True
    except (ValueError, TypeError, Exception):  # InvalidSignature is not a ValueError
        signed = False
    try:
        sans = cert.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
        names = frozenset(sans.get_values_for_type(x509.DNSName))
    except x509.ExtensionNotFound:
        names = frozenset()
    try:
        is_ca = cert.extensions.get_extension_for_class(x509.BasicConstraints).value.ca
    except x509.ExtensionNotFound:
        is_ca = False
    public = serialization.PublicFormat.SubjectPublicKeyInfo
    matches = key.public_key().public_bytes(
        serialization.Encoding.DER, public
    ) == cert.public_key().public_bytes(serialization.Encoding.DER, public)
    return Facts(signed, names, cert.not_valid_after_utc, matches, is_ca)


def bundle(ca_pems: Iterable[bytes], now: datetime.datetime) -> bytes:
    """The CA certificates still valid, newest first, as one PEM bundle."""
    kept: list[bytes] = []
    for pem in ca_pems:
        for cert in x509.load_pem_x509_certificates(pem):
            if cert.not_valid_after_utc > now:
                block = _cert_pem(cert)
                if block not in kept:
                    kept.append(block)
    return b"".join(kept)


def _cert_pem(cert: x509.Certificate) -> bytes:
    return cert.public_bytes(serialization.Encoding.PEM)


def _key_pem(key: ec.EllipticCurvePrivateKey) -> bytes:
    return key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    )
