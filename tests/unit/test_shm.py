"""Shared-memory tensors between processes of one host: written once, mapped by the reader,
removed by it; unclaimed files removed by their writer; strict checks on what is read."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest
import tfcluster as tf
from tfcluster.protos import master_pb2
from tfcluster.rpc import shm
from tfcluster.rpc import tensor_coding as coding

pytestmark = pytest.mark.skipif(not os.path.isdir(shm.DIR), reason="no /dev/shm on this host")


def _path(name: str) -> str:
    return os.path.join(shm.DIR, name)


def test_export_load_round_trip_and_the_file_is_gone() -> None:
    arr = np.arange(300_000, dtype=np.float64).reshape(1000, 300)
    exported = shm.export(arr)
    assert exported is not None
    name, key = exported
    assert os.path.exists(_path(name))
    assert os.stat(_path(name)).st_mode & 0o777 == 0o600
    got = shm.load(name, key, arr.nbytes, arr.dtype, arr.shape)
    assert not os.path.exists(_path(name))
    np.testing.assert_array_equal(got, arr)
    assert got.dtype == arr.dtype and got.shape == arr.shape
    got[0, 0] = -1.0  # writable, and private: nobody else sees it
    assert arr[0, 0] == 0.0


def test_large_tensors_travel_by_name_when_the_peer_shares_memory(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("TFCLUSTER_SHM", "1")
    big = np.ones(shm.THRESHOLD // 4, np.float32)
    small = np.ones(10, np.float32)
    req = master_pb2.RunStepRequest()
    buffers = coding.fill_named(req.feed, ["big", "small"], [big, small], shm_ok=True)
    assert req.feed[0].tensor.shm_name and not req.feed[1].tensor.shm_name
    assert coding.payload_size(buffers) == small.nbytes  # only the small one in the payload
    data = coding.frame(req.SerializeToString(), buffers)
    head, payload = coding.split(data)
    parsed = master_pb2.RunStepRequest.FromString(head)
    got_big, got_small = coding.decode([f.tensor for f in parsed.feed], payload)
    np.testing.assert_array_equal(got_big, big)
    np.testing.assert_array_equal(got_small, small)
    # Without shm_ok (another host), the same tensor is in the payload.
    req2 = master_pb2.RunStepRequest()
    buffers2 = coding.fill_named(req2.feed, ["big"], [big], shm_ok=False)
    assert not req2.feed[0].tensor.shm_name and coding.payload_size(buffers2) == big.nbytes


def test_over_tls_smaller_tensors_go_through_shared_memory(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A TLS connection puts tensors from ENCRYPTED_THRESHOLD on in files (encrypting them
    costs more); gRPC and plain streams keep THRESHOLD. The file is as private either way."""
    monkeypatch.setenv("TFCLUSTER_SHM", "1")
    assert shm.min_size(encrypted=True) == shm.ENCRYPTED_THRESHOLD < shm.THRESHOLD
    assert shm.min_size(encrypted=False) == shm.THRESHOLD
    mid = np.ones(shm.ENCRYPTED_THRESHOLD // 4, np.float32)
    below = np.ones(shm.ENCRYPTED_THRESHOLD // 4 - 1, np.float32)
    req = master_pb2.RunStepRequest()
    buffers = coding.fill_named(
        req.feed, ["mid", "below"], [mid, below], shm_ok=True, shm_min=shm.min_size(True)
    )
    assert req.feed[0].tensor.shm_name and not req.feed[1].tensor.shm_name
    assert coding.payload_size(buffers) == below.nbytes
    assert os.stat(_path(req.feed[0].tensor.shm_name)).st_mode & 0o777 == 0o600
    got_mid, got_below = coding.decode([f.tensor for f in req.feed], memoryview(b"".join(buffers)))
    np.testing.assert_array_equal(got_mid, mid)
    np.testing.assert_array_equal(got_below, below)
    plain = master_pb2.RunStepRequest()
    coding.fill_named(plain.feed, ["mid"], [mid], shm_ok=True, shm_min=shm.min_size(False))
    assert not plain.feed[0].tensor.shm_name


def test_domains(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TFCLUSTER_SHM", "1")
    mine = shm.domain()
    assert mine and shm.shares_with(mine)
    assert not shm.shares_with("") and not shm.shares_with("other-host")
    monkeypatch.setenv("TFCLUSTER_SHM", "0")
    assert shm.domain() == "" and not shm.shares_with(mine)


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("../etc/passwd", "Invalid shared-memory tensor name"),
        ("tfcluster-1-zz", "Invalid shared-memory tensor name"),
        ("tfcluster-1-abc", "cannot be opened"),
    ],
)
def test_bad_names_are_invalid_argument(name: str, message: str) -> None:
    with pytest.raises(tf.errors.InvalidArgumentError, match=message):
        shm.load(name, b"k" * shm.KEY_BYTES, 4, np.dtype(np.float32), (1,))


def test_a_file_of_the_wrong_size_is_refused_and_kept() -> None:
    arr = np.ones(8, np.float32)
    exported = shm.export(arr)
    assert exported is not None
    name, key = exported
    try:
        with pytest.raises(tf.errors.InvalidArgumentError, match="holds 32 bytes"):
            shm.load(name, key, 64, np.dtype(np.float32), (16,))
        assert os.path.exists(_path(name))
    finally:
        os.unlink(_path(name))


def _planted(data: bytes, mode: int = 0o600) -> str:
    """A file in /dev/shm named as tfcluster names them, that no message wrote."""
    name = f"tfcluster-{os.getpid()}-{os.urandom(16).hex()}"
    fd = os.open(_path(name), os.O_CREAT | os.O_EXCL | os.O_WRONLY, mode)
    os.write(fd, data)
    os.close(fd)
    os.chmod(_path(name), mode)
    return name


def test_a_file_the_peer_did_not_write_for_the_call_is_refused_and_untouched() -> None:
    data = np.arange(8, dtype=np.float32).tobytes() + b"\0" * shm.KEY_BYTES
    name = _planted(data)
    try:
        meta = master_pb2.RunStepRequest().feed.add().tensor
        meta.dtype = tf.float32.as_datatype_enum
        meta.dim.append(8)
        meta.content_length = 32
        meta.shm_name = name
        for key in (b"", b"\0" * (shm.KEY_BYTES - 1), os.urandom(shm.KEY_BYTES)):
            meta.shm_key = key
            with pytest.raises(tf.errors.PermissionDeniedError, match="not written for this"):
                coding.decode([meta], memoryview(b""))
        with open(_path(name), "rb") as f:
            assert f.read() == data  # still there, as it was
    finally:
        os.unlink(_path(name))


def test_another_calls_tensor_cannot_be_taken_without_its_key() -> None:
    arr = np.arange(16, dtype=np.float32)
    exported = shm.export(arr)
    assert exported is not None
    name, key = exported
    with pytest.raises(tf.errors.PermissionDeniedError):
        shm.load(name, os.urandom(shm.KEY_BYTES), arr.nbytes, arr.dtype, arr.shape)
    # The call it was written for still gets it.
    np.testing.assert_array_equal(shm.load(name, key, arr.nbytes, arr.dtype, arr.shape), arr)


@pytest.mark.parametrize("mode", [0o644, 0o660, 0o606])
def test_a_file_others_may_read_or_write_is_refused(mode: int) -> None:
    key = os.urandom(shm.KEY_BYTES)
    name = _planted(b"\1" * 4 + key, mode)
    try:
        with pytest.raises(tf.errors.PermissionDeniedError, match="not a private file"):
            shm.load(name, key, 4, np.dtype(np.float32), (1,))
        assert os.path.exists(_path(name))
    finally:
        os.unlink(_path(name))


def test_a_second_link_to_a_file_is_refused() -> None:
    key = os.urandom(shm.KEY_BYTES)
    name = _planted(b"\1" * 4 + key)
    other = _path(name + "0")
    os.link(_path(name), other)
    try:
        with pytest.raises(tf.errors.PermissionDeniedError, match="2 links"):
            shm.load(name, key, 4, np.dtype(np.float32), (1,))
    finally:
        os.unlink(_path(name))
        os.unlink(other)


def test_unclaimed_files_are_removed_by_their_writer() -> None:
    exported = shm.export(np.ones(4, np.float32))
    assert exported is not None
    name = exported[0]
    assert shm.sweep(3600.0) == 0 and os.path.exists(_path(name))
    assert shm.sweep(0.0) >= 1
    assert not os.path.exists(_path(name))


def test_files_of_a_writer_that_died_are_removed() -> None:
    dead = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        capture_output=True,
        text=True,
        check=True,
    )
    pid = int(dead.stdout)
    orphan = _path(f"tfcluster-{pid}-abc123")
    with open(orphan, "wb") as f:
        f.write(b"x")
    shm._remove_orphans_of_dead_writers()
    assert not os.path.exists(orphan)
