"""Large tensors between processes that share a host's /dev/shm: a file instead of a stream.

The sender writes the tensor into a new /dev/shm file and sends its name (TensorMeta.shm_name)
in place of the bytes; the receiver maps the file (no copy) and removes it. Over gRPC the same
tensor costs a copy into a message, one into gRPC, one out of it and one into the receiver's
buffer, besides the kernel's two. Peers say which /dev/shm they have (their "domain": this
boot, and that file system); containers with their own /dev/shm, other hosts, or
TFCLUSTER_SHM=0 use the stream. A file nobody took (the receiver went away) is removed by its
writer after a minute, or by any tfcluster process once its writer is gone.

A receiver takes only a file written for the message naming it: the writer ends each file
with a random key that travels in the message beside the name (TensorMeta.shm_key), and a
file must hold it, belong to this user, be readable by nobody else and have no other link.
Names are random too. So a peer cannot make a task read or remove a file it found in
/dev/shm (another call's tensor, or anything it planted): the task refuses and leaves it.
"""

from __future__ import annotations

import contextlib
import hmac
import mmap
import os
import re
import secrets
import stat
import threading
import time
from typing import Any

import numpy as np

from tfcluster.framework import errors
from tfcluster.settings import environment

DIR = "/dev/shm"
# Tensors at least this big go through shared memory (when the peer shares it); smaller ones
# stream about as fast as a new /dev/shm file is written.
THRESHOLD = 4 << 20
# The same over a TLS connection: encrypting and decrypting a tensor costs more CPU than
# writing and mapping a new file (here ~1.0 ms/MB for AES-GCM through memory BIOs at both
# ends, ~0.65 ms/MB for the file), from about this size on (below, the file's system calls
# cost more than the crypto). Plain direct streams never use files: a socket costs ~0.15 ms/MB.
ENCRYPTED_THRESHOLD = 256 << 10
# A written file nobody opened within this many seconds is removed by its writer.
UNCLAIMED_SECONDS = 60.0
_PREFIX = "tfcluster-"
_NAME = re.compile(r"^tfcluster-(\d+)-[0-9a-f]{1,32}$")
# Bytes of the key at the end of each file.
KEY_BYTES = 16

_lock = threading.Lock()
_written: dict[str, float] = {}  # name -> when, for the sweeper
_sweeper: threading.Thread | None = None
_domain: str | None = None


_has_dir: bool | None = None


def enabled() -> bool:
    """TFCLUSTER_SHM=0 turns it off (read on every call: settings.environment)."""
    global _has_dir
    if not environment.shm_enabled():
        return False
    if _has_dir is None:
        _has_dir = os.path.isdir(DIR)
    return _has_dir


def domain() -> str:
    """This process's /dev/shm: '' when shared memory is off; equal strings share files."""
    global _domain
    if not enabled():
        return ""
    if _domain is None:
        try:
            with open("/proc/sys/kernel/random/boot_id") as f:
                boot = f.read().strip()
            st = os.stat(DIR)
            _domain = f"{boot}:{st.st_dev}:{st.st_ino}:{os.getuid()}"
        except OSError:
            _domain = ""
    return _domain


def min_size(encrypted: bool) -> int:
    """The smallest tensor that goes through a file, for a connection that is (not) TLS."""
    return ENCRYPTED_THRESHOLD if encrypted else THRESHOLD


def shares_with(peer_domain: str) -> bool:
    if not peer_domain:
        return False  # a peer on a plain direct stream (most answers): no settings read
    mine = domain()
    return bool(mine) and peer_domain == mine


def export(arr: np.ndarray) -> tuple[str, bytes] | None:
    """Writes a C-contiguous array's bytes to a new file, then a new key; (its name, the key),
    or None (use the stream)."""
    nbytes = arr.nbytes
    try:
        vfs = os.statvfs(DIR)
        if vfs.f_bavail * vfs.f_frsize < 2 * nbytes:
            return None  # keep room for others: a full /dev/shm breaks more than us
    except OSError:
        return None
    name = f"{_PREFIX}{os.getpid()}-{secrets.token_hex(16)}"
    key = secrets.token_bytes(KEY_BYTES)
    path = os.path.join(DIR, name)
    try:
        fd = os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY | os.O_NOFOLLOW, 0o600)
    except OSError:
        return None
    try:
        view = arr.data.cast("B")
        written = 0
        while written < nbytes:
            written += os.write(fd, view[written : written + (64 << 20)])
        if os.write(fd, key) != KEY_BYTES:
            raise OSError("short write")
    except OSError:
        os.close(fd)
        with contextlib.suppress(OSError):
            os.unlink(path)
        return None
    os.close(fd)
    with _lock:
        _written[name] = time.monotonic()
    _start_sweeper()
    return name, key


def load(
    name: str, key: bytes, nbytes: int, dtype: np.dtype[Any], shape: tuple[int, ...]
) -> np.ndarray:
    """The array a peer wrote to `name` for this message, which gave `key` (mapped,
    copy-on-write); the file is removed. A file not written so is refused and left alone."""
    if not _NAME.match(name):
        raise errors.InvalidArgumentError(None, None, f"Invalid shared-memory tensor name {name!r}")
    path = os.path.join(DIR, name)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
    except OSError as e:
        raise errors.InvalidArgumentError(
            None, None, f"Shared-memory tensor {name} cannot be opened: {e.strerror}"
        ) from None
    try:
        st = os.fstat(fd)
        if (
            not stat.S_ISREG(st.st_mode)
            or st.st_uid != os.getuid()
            or st.st_mode & 0o077
            or st.st_nlink != 1
        ):
            raise errors.PermissionDeniedError(
                None,
                None,
                f"Shared-memory tensor {name} is not a private file of this user "
                f"(mode {stat.filemode(st.st_mode)}, {st.st_nlink} links): refused, left as it is",
            )
        if st.st_size != nbytes + KEY_BYTES:
            raise errors.InvalidArgumentError(
                None,
                None,
                f"Shared-memory tensor {name} holds {st.st_size - KEY_BYTES} bytes, not the "
                f"{nbytes} its description says",
            )
        if len(key) != KEY_BYTES or not hmac.compare_digest(os.pread(fd, KEY_BYTES, nbytes), key):
            raise errors.PermissionDeniedError(
                None,
                None,
                f"Shared-memory tensor {name} was not written for this message (its key does "
                "not match): refused, left as it is",
            )
        with contextlib.suppress(OSError):
            os.unlink(path)
        if nbytes == 0:
            return np.empty(shape, dtype)
        m = mmap.mmap(fd, nbytes, flags=mmap.MAP_PRIVATE, prot=mmap.PROT_READ | mmap.PROT_WRITE)
    finally:
        os.close(fd)
    return np.frombuffer(m, dtype, int(np.prod(shape, dtype=np.int64))).reshape(shape)


def _start_sweeper() -> None:
    global _sweeper
    with _lock:
        if _sweeper is not None:
            return
        _sweeper = threading.Thread(target=_sweep_forever, name="shm-sweeper", daemon=True)
        _sweeper.start()
    _remove_orphans_of_dead_writers()


def _sweep_forever() -> None:
    while True:
        time.sleep(UNCLAIMED_SECONDS / 4)
        sweep(UNCLAIMED_SECONDS)


def sweep(older_than: float) -> int:
    """Removes this process's files nobody took for `older_than` seconds; how many."""
    now = time.monotonic()
    with _lock:
        stale = [n for n, t in _written.items() if now - t >= older_than]
        for n in stale:
            del _written[n]
    removed = 0
    for n in stale:
        with contextlib.suppress(FileNotFoundError, OSError):
            os.unlink(os.path.join(DIR, n))
            removed += 1  # the receiver had not taken it
    return removed


def _remove_orphans_of_dead_writers() -> None:
    try:
        names = os.listdir(DIR)
    except OSError:
        return
    for n in names:
        match = _NAME.match(n)
        if match is None:
            continue
        pid = int(match.group(1))
        if pid == os.getpid():
            continue
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            with contextlib.suppress(OSError):
                os.unlink(os.path.join(DIR, n))
        except PermissionError:
            continue
