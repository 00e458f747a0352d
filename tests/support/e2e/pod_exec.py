"""Starts one container's process: ``python -m support.e2e.pod_exec SPEC.json``.

What a container runtime does before it execs the entry point, for a process that shares
the host's file system: join the pod's network namespace, enter a mount namespace and a UTS
namespace of its own, give it a private ``/dev`` (so ``/dev/termination-log`` can be a file
of the node agent's), bind the pod's files (``/etc/resolv.conf``, ``/etc/hosts``,
``/etc/hostname``) and volumes over their mount paths (the image's files, the checkout and
its interpreter, stay visible under a volume mounted above them), set the pod's hostname,
change to the working directory and exec the command with exactly the environment given. Mounts made
here are private to the container's namespace: the host sees none of them.

The spec (JSON): ``netns`` (a path), ``hostname``, ``mounts`` ([{source, target,
readOnly}]), ``termination_log`` (the host file to bind at ``termination_path``),
``argv``, ``env``, ``cwd``.
"""

from __future__ import annotations

import ctypes
import json
import os
import shutil
import sys
from pathlib import Path
from typing import Any

CLONE_NEWNS = 0x00020000
CLONE_NEWUTS = 0x04000000
CLONE_NEWNET = 0x40000000
MS_RDONLY = 0x1
MS_NOSUID = 0x2
MS_REMOUNT = 0x20
MS_BIND = 0x1000
MS_REC = 0x4000
MS_PRIVATE = 0x40000

_libc: Any = ctypes.CDLL(None, use_errno=True)
_DEVICES = {"null": (1, 3), "zero": (1, 5), "full": (1, 7), "random": (1, 8), "urandom": (1, 9)}


def _check(result: int, what: str) -> None:
    if result != 0:
        errno = ctypes.get_errno()
        raise OSError(errno, f"{what}: {os.strerror(errno)}")


def _mount(source: str | None, target: str, fstype: str | None, flags: int, data: str = "") -> None:
    _check(
        _libc.mount(
            source.encode() if source else None,
            target.encode(),
            fstype.encode() if fstype else None,
            flags,
            data.encode() if data else None,
        ),
        f"mount {source} on {target}",
    )


def _bind(source: str, target: str, read_only: bool) -> None:
    src = Path(source)
    dst = Path(target)
    if src.is_dir():
        dst.mkdir(parents=True, exist_ok=True)
    else:
        dst.parent.mkdir(parents=True, exist_ok=True)
        if not dst.exists():
            dst.touch()
    _mount(source, target, None, MS_BIND | MS_REC)
    if read_only:
        _mount(None, target, None, MS_BIND | MS_REMOUNT | MS_RDONLY)


def _private_dev(termination_log: str | None, termination_path: str) -> None:
    """A tmpfs ``/dev`` with the usual character devices, ``/dev/shm`` and the log file."""
    _mount("tmpfs", "/dev", "tmpfs", MS_NOSUID, "mode=755,size=65536k")
    for name, (major, minor) in _DEVICES.items():
        os.mknod(f"/dev/{name}", 0o666 | 0o020000, os.makedev(major, minor))
        os.chmod(f"/dev/{name}", 0o666)
    os.mkdir("/dev/shm", 0o1777)
    _mount("shm", "/dev/shm", "tmpfs", MS_NOSUID, "mode=1777,size=65536k")
    for name, target in (
        ("fd", "/proc/self/fd"),
        ("stdin", "/proc/self/fd/0"),
        ("stdout", "/proc/self/fd/1"),
        ("stderr", "/proc/self/fd/2"),
    ):
        os.symlink(target, f"/dev/{name}")
    if termination_log and termination_path.startswith("/dev/"):
        _bind(termination_log, termination_path, read_only=False)


def _image_paths() -> list[str]:
    """The container image's files: the checkout this module is in and the interpreter running
    it (its venv and the base installation the venv points to)."""
    checkout = Path(__file__).resolve().parents[3]
    paths = {str(checkout), os.path.realpath(sys.prefix), os.path.realpath(sys.base_prefix)}
    return sorted(paths)


def _hidden(paths: list[str], targets: list[str]) -> list[str]:
    """The paths a volume mounted at one of ``targets`` covers (a checkout under /tmp with an
    emptyDir at /tmp, say), outermost first: an image's files are never hidden by its volumes."""
    under = [t.rstrip("/") + "/" for t in targets]
    covered = [p for p in paths if any(p.startswith(t) for t in under)]
    outermost = [p for p in covered if not any(p != q and p.startswith(q + "/") for q in covered)]
    return sorted(outermost)


def enter(spec: dict[str, Any]) -> None:
    """Namespaces and mounts of the spec, in this process."""
    fd = os.open(spec["netns"], os.O_RDONLY)
    _check(_libc.setns(fd, CLONE_NEWNET), f"setns {spec['netns']}")
    os.close(fd)
    _check(_libc.unshare(CLONE_NEWNS | CLONE_NEWUTS), "unshare")
    _mount(None, "/", None, MS_REC | MS_PRIVATE)  # nothing below propagates to the host
    # Sources are held open (in this namespace) before any mount: a volume mounted over /tmp
    # (say) would hide the agent's files under /tmp otherwise. Binds follow /proc/self/fd/N.
    held = {m["source"]: os.open(m["source"], os.O_PATH | os.O_CLOEXEC) for m in spec["mounts"]}
    log = spec.get("termination_log")
    log_fd = os.open(log, os.O_PATH | os.O_CLOEXEC) if log else -1
    log_source = f"/proc/self/fd/{log_fd}" if log else None
    image = {path: os.open(path, os.O_PATH | os.O_CLOEXEC) for path in _image_paths()}
    hostname = spec["hostname"].encode()
    _check(_libc.sethostname(hostname, len(hostname)), "sethostname")
    termination_path = spec.get("termination_path") or "/dev/termination-log"
    _private_dev(log_source, termination_path)
    for mount in spec["mounts"]:
        source = f"/proc/self/fd/{held[mount['source']]}"
        _bind(source, mount["target"], bool(mount.get("readOnly")))
    if log_source and not termination_path.startswith("/dev/"):
        _bind(log_source, termination_path, read_only=False)
    targets = [mount["target"] for mount in spec["mounts"]]
    for path in _hidden(list(image), targets):
        _bind(f"/proc/self/fd/{image[path]}", path, read_only=True)
    for held_fd in [*held.values(), *image.values(), log_fd]:
        if held_fd >= 0:
            os.close(held_fd)


def main(argv: list[str]) -> None:
    spec = json.loads(Path(argv[1]).read_text())
    log = spec.get("termination_log")
    # Opened before the mounts, which may hide its folder: the reason of a failed start.
    log_file = open(log, "a") if log else None  # noqa: SIM115 - kept until exec or exit
    try:
        enter(spec)
        env = dict(spec["env"])
        program = spec["argv"][0]
        resolved = shutil.which(program, path=env.get("PATH", os.defpath)) or program
        os.chdir(spec.get("cwd") or "/")
        os.execve(resolved, spec["argv"], env)
    except OSError as err:
        # What a runtime reports as StartError: the agent reads the exit code and message.
        print(f"pod_exec: cannot start {spec['argv']!r}: {err}", file=sys.stderr, flush=True)
        if log_file is not None:
            log_file.write(f"cannot start container: {err}")
            log_file.flush()
        os._exit(128)


if __name__ == "__main__":
    main(sys.argv)
