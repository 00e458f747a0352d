"""TLS identities as files: read once consistent, read again when replaced (a renewed Secret),
kept when replaced by a set that does not fit together (a rotation half done); a channel that
follows the renewed identity; certificates the throwaway CA makes; where the variables are
read."""

from __future__ import annotations

import logging
import os
import re
from pathlib import Path

import pytest
import tfcluster
from cryptography import x509
from cryptography.x509.oid import ExtendedKeyUsageOID
from support import tls_identities
from tfcluster.cli import local_ca
from tfcluster.rpc import channels, tls
from tfcluster.rpc.renewing_channel import RenewingChannel
from tfcluster.settings import environment

PACKAGE = Path(tfcluster.__file__).parent


@pytest.fixture
def ids(tmp_path: Path) -> tls_identities.Identities:
    return tls_identities.make(tmp_path)


def _renew(ids: tls_identities.Identities, paths: local_ca.TLSFilePaths, folder: Path) -> bytes:
    """New certificate and key for `paths`, swapped in by renames; the new certificate."""
    issued = ids.ca.issue("task", ["localhost"])
    staging = local_ca.write_identity(folder, "renewed", issued, ids.ca.cert_pem)
    os.replace(staging.key, paths.key)
    os.replace(staging.cert, paths.cert)
    return issued.cert_pem


def test_a_source_reads_replaced_files_and_keeps_a_set_that_does_not_fit(
    ids: tls_identities.Identities, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    source = tls.TLSSource(tls_identities.files(ids.task), check_interval=0.0)
    first = source.current()
    assert source.current() is first  # unchanged files: the same material
    # Half a rotation: a new certificate, the old key. Kept as it was, with a warning.
    other = ids.ca.issue("task", ["localhost"])
    Path(ids.task.cert).write_bytes(other.cert_pem)
    with caplog.at_level(logging.WARNING, logger="tfcluster.tls"):
        assert source.current() is first
    assert "cannot be used yet" in caplog.text
    # The key follows: the new set is served, with a higher generation.
    Path(ids.task.key).write_bytes(other.key_pem)
    renewed = source.current()
    assert renewed.cert_chain == other.cert_pem and renewed.generation > first.generation


def test_a_source_looks_at_its_files_at_most_once_per_interval(
    ids: tls_identities.Identities, tmp_path: Path
) -> None:
    source = tls.TLSSource(tls_identities.files(ids.task), check_interval=3600.0)
    first = source.current()
    _renew(ids, ids.task, tmp_path / "staging")
    assert source.current() is first


def test_unusable_files_are_refused_with_the_reason() -> None:
    with pytest.raises(tls.TLSConfigError, match="cannot be read"):
        tls.material_from(tls.TLSFiles("/nonexistent/c", "/nonexistent/k", "/nonexistent/a"))


def test_a_key_that_is_not_the_certificates_own_is_refused(
    ids: tls_identities.Identities,
) -> None:
    with pytest.raises(tls.TLSConfigError, match="cannot be used together"):
        tls.material_from(tls.TLSFiles(ids.task.cert, ids.client.key, ids.task.ca))


@pytest.mark.parametrize(
    "given",
    [
        {"cert": "c", "key": "k", "ca": "a"},
        ("c", "k", "a"),
        tls.TLSFiles("c", "k", "a"),
    ],
)
def test_tls_files_are_given_as_a_mapping_a_tuple_or_themselves(given: object) -> None:
    assert tls.TLSFiles.of(given) == tls.TLSFiles("c", "k", "a")


@pytest.mark.parametrize("given", [{"cert": "c"}, ("c", "k"), "c,k,a"])
def test_incomplete_tls_files_are_refused(given: object) -> None:
    with pytest.raises(tls.TLSConfigError):
        tls.TLSFiles.of(given)


def test_material_is_never_shown_with_its_key(ids: tls_identities.Identities) -> None:
    material = tls_identities.material(ids.task)
    assert b"PRIVATE KEY" in material.key
    assert "PRIVATE" not in repr(material) and "CERTIFICATE" not in repr(material)


def test_a_channel_follows_the_renewed_identity(
    ids: tls_identities.Identities, tmp_path: Path
) -> None:
    source = tls.TLSSource(tls_identities.files(ids.task), check_interval=0.0)
    tls.use_for_clients(source)
    try:
        made: list[tls.TLSMaterial | None] = []

        def make(material: tls.TLSMaterial | None) -> object:
            made.append(material)
            return channels._channel("localhost:1", material)

        channel = RenewingChannel("localhost:1", make)  # type: ignore[arg-type]
        call = channel.unary_unary("/x/Y")
        first = channel.current()
        assert call._callable() is call._callable()  # one callable per underlying channel
        _renew(ids, ids.task, tmp_path / "staging")
        second = channel.current()
        assert second is not first
        assert [m.generation for m in made if m] == sorted({m.generation for m in made if m})
        assert made[-1] is source.current()
        channel.close()
        with pytest.raises(ValueError, match="closed"):
            _renew(ids, ids.task, tmp_path / "again")
            channel.current()
    finally:
        tls.use_for_clients(None)


def test_the_process_identity_comes_from_the_environment_all_three_or_none(
    ids: tls_identities.Identities, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("TFCLUSTER_TLS_CERT", "TFCLUSTER_TLS_KEY", "TFCLUSTER_TLS_CA"):
        monkeypatch.delenv(name, raising=False)
    assert tls.client_material() is None
    monkeypatch.setenv("TFCLUSTER_TLS_CERT", ids.client.cert)
    with pytest.raises(tls.TLSConfigError, match="must be set together"):
        tls.client_material()
    for name, value in tls_identities.env(ids.client).items():
        monkeypatch.setenv(name, value)
    material = tls.client_material()
    assert material is not None
    assert material.cert_chain == Path(ids.client.cert).read_bytes()
    assert environment.tls_files() == (ids.client.cert, ids.client.key, ids.client.ca)


def test_the_tls_variables_are_named_only_in_settings() -> None:
    """Their names are spelled (as strings) in settings/contract.py alone and read in
    settings/environment.py alone (test_settings checks that nothing else reads os.environ)."""
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE).as_posix()
        if rel.startswith(("settings/", "protos/")):
            continue
        for lineno, line in enumerate(path.read_text().splitlines(), 1):
            if re.search(r"[\"']TFCLUSTER_TLS_", line):
                found.append(f"{rel}:{lineno}: {line.strip()}")
    assert found == []


def test_the_throwaway_ca_issues_task_and_client_certificates(tmp_path: Path) -> None:
    tasks, client = local_ca.local_identities(tmp_path / "tls", ["trainer.example", "10.1.2.3"])
    cert = x509.load_pem_x509_certificate(Path(tasks.cert).read_bytes())
    sans = cert.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
    assert set(sans.get_values_for_type(x509.DNSName)) == {"localhost", "trainer.example"}
    assert {str(a) for a in sans.get_values_for_type(x509.IPAddress)} == {
        "127.0.0.1",
        "::1",
        "10.1.2.3",
    }
    usages = cert.extensions.get_extension_for_class(x509.ExtendedKeyUsage).value
    assert set(usages) == {ExtendedKeyUsageOID.SERVER_AUTH, ExtendedKeyUsageOID.CLIENT_AUTH}
    client_cert = x509.load_pem_x509_certificate(Path(client.cert).read_bytes())
    assert list(client_cert.extensions.get_extension_for_class(x509.ExtendedKeyUsage).value) == [
        ExtendedKeyUsageOID.CLIENT_AUTH
    ]
    # Private keys and their folder are the owner's alone.
    assert os.stat(tasks.key).st_mode & 0o077 == 0
    assert os.stat(tmp_path / "tls").st_mode & 0o077 == 0
    # Both verify against the CA they came with.
    ca = x509.load_pem_x509_certificate(Path(tasks.ca).read_bytes())
    cert.verify_directly_issued_by(ca)
    client_cert.verify_directly_issued_by(ca)
