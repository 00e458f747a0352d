"""Where the control-plane binaries live: the one place the tests ask for them.

``build.sh`` owns the versions (read from ``gomod/*/go.mod``) and the cache folder
(``$TFCLUSTER_K8S_CACHE`` or ``~/.cache/tfcluster/k8s-<kubernetes>-etcd-<etcd>``, CoreDNS and
kube-router beside it in ``coredns-<version>/`` and ``kube-router-<version>/``); this module
only runs it. ``TFCLUSTER_K8S_BIN_DIR`` points at a folder of ready-made binaries instead
(``coredns`` and ``kube-router`` in it or in those sibling folders) and skips the script.
"""

from __future__ import annotations

import os
import subprocess
from dataclasses import dataclass
from pathlib import Path

BUILD_SCRIPT = Path(__file__).resolve().parent / "build.sh"
BINARY_NAMES = (
    "etcd",
    "kube-apiserver",
    "kube-controller-manager",
    "kube-scheduler",
    "kube-proxy",
    "kubectl",
)


class BinariesUnavailable(RuntimeError):
    """The binaries are neither cached nor buildable here; the message says why."""


@dataclass(frozen=True)
class Binaries:
    etcd: Path
    kube_apiserver: Path
    kube_controller_manager: Path
    kubectl: Path  # the same release's client: tests read what a user sees through it
    kube_scheduler: Path  # the e2e cluster's (the API-only tests schedule nothing)
    kube_proxy: Path
    coredns: Path
    # The e2e cluster's NetworkPolicy enforcement (its firewall only); None where it could not
    # be built (only the network-policy scenario needs it, and skips saying so).
    kube_router: Path | None

    @classmethod
    def in_dir(cls, folder: Path) -> Binaries:
        missing = [n for n in BINARY_NAMES if not os.access(folder / n, os.X_OK)]
        coredns = _versioned_in(folder, "coredns")
        kube_router = _versioned_in(folder, "kube-router")
        if coredns is None:
            missing.append("coredns")
        if missing or coredns is None:
            raise BinariesUnavailable(f"{', '.join(missing)} missing in {folder}")
        return cls(
            etcd=folder / "etcd",
            kube_apiserver=folder / "kube-apiserver",
            kube_controller_manager=folder / "kube-controller-manager",
            kubectl=folder / "kubectl",
            kube_scheduler=folder / "kube-scheduler",
            kube_proxy=folder / "kube-proxy",
            coredns=coredns,
            kube_router=kube_router,
        )


def _versioned_in(folder: Path, name: str) -> Path | None:
    """``name`` (coredns, kube-router) in ``folder`` or in its pinned-version sibling folder
    (build.sh's layout)."""
    for candidate in (
        folder / name,
        folder.parent / f"{name}-{pinned_versions().get(name, '')}" / name,
    ):
        if os.access(candidate, os.X_OK):
            return candidate
    return None


def _run_script(*args: str, show_progress: bool) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["bash", str(BUILD_SCRIPT), *args],
        stdout=subprocess.PIPE,
        stderr=None if show_progress else subprocess.PIPE,
        text=True,
        check=False,
    )


def cache_dir() -> Path:
    """The folder the binaries are (or will be) cached in."""
    override = os.environ.get("TFCLUSTER_K8S_BIN_DIR")
    if override:
        return Path(override)
    done = _run_script("--print-dir", show_progress=False)
    if done.returncode != 0:
        raise BinariesUnavailable(f"{BUILD_SCRIPT} --print-dir failed: {done.stderr.strip()}")
    return Path(done.stdout.strip().splitlines()[-1])


def pinned_versions() -> dict[str, str]:
    """The pinned releases: ``{"kubernetes": "v1.34.4", "etcd": "v3.6.4"}``."""
    done = _run_script("--print-versions", show_progress=False)
    if done.returncode != 0:
        raise BinariesUnavailable(f"{BUILD_SCRIPT} --print-versions failed: {done.stderr}")
    return dict(pair.split("=", 1) for pair in done.stdout.split())


def find_binaries(build: bool = True, show_progress: bool = True) -> Binaries:
    """The binaries, built first (by ``build.sh``) when missing and ``build`` is true.

    Raises ``BinariesUnavailable`` with a message fit for ``pytest.skip``.
    """
    if os.environ.get("TFCLUSTER_K8S_BIN_DIR"):
        return Binaries.in_dir(cache_dir())
    folder = cache_dir()
    try:
        return Binaries.in_dir(folder)
    except BinariesUnavailable:
        if not build:
            raise BinariesUnavailable(
                f"no Kubernetes control-plane binaries in {folder}; "
                f"build them with: bash {BUILD_SCRIPT}"
            ) from None
    done = _run_script(show_progress=show_progress)
    if done.returncode != 0:
        lines = (done.stderr or "").strip().splitlines()
        detail = " | ".join(lines[-3:]) if lines else "see its output above"
        raise BinariesUnavailable(
            f"cannot build the Kubernetes control plane: bash {BUILD_SCRIPT} "
            f"exited {done.returncode}: {detail}"
        )
    return Binaries.in_dir(Path(done.stdout.strip().splitlines()[-1]))
