"""The e2e cluster (``support.e2e``): one per test session, shared by every scenario.

Needs root (network namespaces, mounts), ``ip``, ``iptables`` and ``nsenter`` (``make
e2e-deps`` installs iptables), and the Go-built binaries of ``support/k8s_control_plane``
(built once after collection when missing, as for the k8s tests). Tests are marked ``e2e``.
Environment: TFCLUSTER_K8S_BUILD=0 (never build here), TFCLUSTER_K8S_REQUIRE=1 (fail rather
than skip when the environment cannot run here).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import uuid
from collections.abc import Iterator
from typing import NoReturn

import pytest
from support.e2e.environment import E2ECluster
from support.k8s_control_plane import Binaries, BinariesUnavailable, find_binaries

_BINARIES = pytest.StashKey[Binaries | BinariesUnavailable]()
TOOLS = ("ip", "iptables", "nsenter")


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


def _unavailable(message: str) -> NoReturn:
    if os.environ.get("TFCLUSTER_K8S_REQUIRE") == "1":
        pytest.fail(f"e2e cluster required but unavailable: {message}")
    pytest.skip(f"e2e cluster unavailable: {message}")


@pytest.fixture(scope="session")
def e2e_cluster(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[E2ECluster]:
    if os.geteuid() != 0:
        _unavailable("needs root (network namespaces, iptables, mounts)")
    missing = [tool for tool in TOOLS if shutil.which(tool) is None]
    if missing:
        _unavailable(f"missing {', '.join(missing)} (make e2e-deps installs them)")
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
