"""The e2e cluster (``support.e2e``): one per test session, shared by every scenario.

Needs root (network namespaces, mounts), ``ip``, ``iptables``, ``ipset`` and ``nsenter`` (``make
e2e-deps`` installs iptables and ipset), and the Go-built binaries of ``support/k8s_control_plane``
(built once after collection when missing, as for the k8s tests). Tests are marked ``e2e``.
Environment: TFCLUSTER_K8S_BUILD=0 (never build here), TFCLUSTER_K8S_REQUIRE=1 (fail rather
than skip when the binaries or the cluster cannot be had). A host that does not let this
process make network and mount namespaces (not root, no CAP_NET_ADMIN/CAP_SYS_ADMIN, no
iptables/ipset after `make e2e-deps`) is a host the e2e cluster cannot run on at all: the tests skip
there, saying why, unless TFCLUSTER_E2E_REQUIRE=1 asks them to fail.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import uuid
from collections.abc import Iterator
from typing import NoReturn

import pytest
from support.e2e.environment import E2ECluster
from support.k8s_control_plane import Binaries, BinariesUnavailable, find_binaries

_BINARIES = pytest.StashKey[Binaries | BinariesUnavailable]()
TOOLS = ("ip", "iptables", "ipset", "nsenter")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "e2e: runs pods for real in the e2e Kubernetes cluster")


def pytest_collection_finish(session: pytest.Session) -> None:
    if not any(item.get_closest_marker("e2e") for item in session.items):
        return
    build = os.environ.get("TFCLUSTER_K8S_BUILD", "1") != "0"
    capture = session.config.pluginmanager.getplugin("capturemanager")
    context = capture.global_and_fixture_disabled() if capture else contextlib.nullcontext()
    with context:
        try:
            found: Binaries | BinariesUnavailable = find_binaries(build=build)
        except BinariesUnavailable as err:
            found = err
    session.config.stash[_BINARIES] = found


def _host_cannot(message: str) -> NoReturn:
    if os.environ.get("TFCLUSTER_E2E_REQUIRE") == "1":
        pytest.fail(f"e2e cluster required but this host cannot run it: {message}")
    pytest.skip(f"e2e cluster: this host cannot run it: {message}")


def _namespaces_refused() -> str | None:
    """Why this host refuses a network namespace and a mount namespace, or None."""
    probe = f"tfc-e2e-probe-{os.getpid()}"
    made = subprocess.run(["ip", "netns", "add", probe], capture_output=True, text=True)
    if made.returncode != 0:
        return f"ip netns add: {made.stderr.strip()}"
    subprocess.run(["ip", "netns", "delete", probe], capture_output=True, check=False)
    unshared = subprocess.run(["unshare", "--mount", "true"], capture_output=True, text=True)
    if unshared.returncode != 0:
        return f"unshare --mount: {unshared.stderr.strip()}"
    return None


def _unavailable(message: str) -> NoReturn:
    if os.environ.get("TFCLUSTER_K8S_REQUIRE") == "1":
        pytest.fail(f"e2e cluster required but unavailable: {message}")
    pytest.skip(f"e2e cluster unavailable: {message}")


@pytest.fixture(scope="session")
def e2e_cluster(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[E2ECluster]:
    if os.geteuid() != 0:
        _host_cannot("needs root (network namespaces, iptables, mounts)")
    missing = [tool for tool in (*TOOLS, "unshare") if shutil.which(tool) is None]
    if missing:
        _host_cannot(f"missing {', '.join(missing)} (make e2e-deps installs iptables and ipset)")
    refused = _namespaces_refused()
    if refused is not None:
        _host_cannot(refused)
    found = request.config.stash.get(_BINARIES, None)
    if found is None:
        try:
            found = find_binaries(build=False)
        except BinariesUnavailable as err:
            found = err
    if isinstance(found, BinariesUnavailable):
        _unavailable(str(found))
    with E2ECluster(found, tmp_path_factory.mktemp("e2e-cluster")) as cluster:
        yield cluster


@pytest.fixture
def e2e_namespace(e2e_cluster: E2ECluster) -> Iterator[str]:
    """A fresh namespace, deleted (without waiting) after the test."""
    name = f"e2e-{uuid.uuid4().hex[:8]}"
    e2e_cluster.kubectl("create", "namespace", name)
    yield name
    e2e_cluster.kubectl("delete", "namespace", name, "--wait=false", check=False)
