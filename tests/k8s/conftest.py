"""Fixtures for tests against a real Kubernetes control plane started by the suite.

``k8s_control_plane`` (session) runs etcd + kube-apiserver + kube-controller-manager on
loopback (see ``support/k8s_control_plane/controlplane.py``). Tests that use it are marked
``k8s``.

The binaries come from ``support/k8s_control_plane/build.sh`` (cached outside the
repository). When a selected test needs them and they are not cached yet, they are built once
after collection, outside any test's timeout, with the build's progress on the terminal.
Environment:
  TFCLUSTER_K8S_BUILD=0     never build here; only use cached binaries
  TFCLUSTER_K8S_REQUIRE=1   fail (rather than skip) when the control plane is unavailable
  TFCLUSTER_K8S_BIN_DIR     use the binaries in this folder
  TFCLUSTER_K8S_CACHE       the cache folder build.sh uses
"""

from __future__ import annotations

import contextlib
import os
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn

import pytest
from support.k8s_control_plane import (
    Binaries,
    BinariesUnavailable,
    ControlPlane,
    find_binaries,
)

if TYPE_CHECKING:
    from kubernetes.client import ApiClient
    from support.kubectl import Kubectl
    from support.operator_on_k8s import Operator

_BINARIES = pytest.StashKey[Binaries | BinariesUnavailable]()
_FIXTURE = "k8s_control_plane"


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "k8s: needs the real kube-apiserver + etcd test control plane"
    )


def _needs_control_plane(item: pytest.Item) -> bool:
    return item.get_closest_marker("k8s") is not None or _FIXTURE in getattr(
        item, "fixturenames", ()
    )


def pytest_collection_finish(session: pytest.Session) -> None:
    """Find (or build, once) the binaries if any selected test needs the control plane."""
    if not any(_needs_control_plane(item) for item in session.items):
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
        pytest.fail(f"Kubernetes test control plane required but unavailable: {message}")
    pytest.skip(f"Kubernetes test control plane unavailable: {message}")


@pytest.fixture(scope="session")
def k8s_control_plane(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[ControlPlane]:
    """etcd + kube-apiserver + kube-controller-manager, for the whole session."""
    found = request.config.stash.get(_BINARIES, None)
    if found is None:
        try:
            found = find_binaries(build=False)
        except BinariesUnavailable as err:
            found = err
    if isinstance(found, BinariesUnavailable):
        _unavailable(str(found))
    plane = ControlPlane(found, tmp_path_factory.mktemp("k8s-control-plane"))
    plane.start()
    try:
        yield plane
    finally:
        plane.stop()


@pytest.fixture(scope="session")
def k8s_admin_kubeconfig(k8s_control_plane: ControlPlane) -> Path:
    """A kubeconfig for a cluster admin (group system:masters)."""
    return k8s_control_plane.admin_kubeconfig


@pytest.fixture(scope="session")
def k8s_api_client(k8s_admin_kubeconfig: Path) -> Iterator[ApiClient]:
    """An official `kubernetes` client acting as cluster admin."""
    kubernetes = pytest.importorskip("kubernetes")
    client: ApiClient = kubernetes.config.new_client_from_config(
        config_file=str(k8s_admin_kubeconfig)
    )
    try:
        yield client
    finally:
        client.close()


@pytest.fixture
def k8s_service_account_client(
    k8s_control_plane: ControlPlane,
) -> Iterator[Callable[[str, str], ApiClient]]:
    """``make(namespace, name)``: a client that acts as that (existing) ServiceAccount."""
    kubernetes = pytest.importorskip("kubernetes")
    clients: list[ApiClient] = []

    def make(namespace: str, name: str) -> ApiClient:
        path = k8s_control_plane.service_account_kubeconfig(namespace, name)
        client: ApiClient = kubernetes.config.new_client_from_config(config_file=str(path))
        clients.append(client)
        return client

    yield make
    for client in clients:
        client.close()


@contextlib.contextmanager
def _fresh_namespace(api: ApiClient) -> Iterator[str]:
    """A new namespace, deleted (in the background) on exit."""
    from kubernetes import client

    core = client.CoreV1Api(api)
    name = f"test-{uuid.uuid4().hex[:10]}"
    core.create_namespace(client.V1Namespace(metadata=client.V1ObjectMeta(name=name)))
    try:
        yield name
    finally:
        core.delete_namespace(name)


@pytest.fixture
def k8s_namespace(k8s_api_client: ApiClient) -> Iterator[str]:
    """A fresh namespace for one test."""
    with _fresh_namespace(k8s_api_client) as name:
        yield name


@pytest.fixture(scope="module")
def k8s_module_namespace(k8s_api_client: ApiClient) -> Iterator[str]:
    """A fresh namespace shared by the tests of one module (one scenario checked in steps)."""
    with _fresh_namespace(k8s_api_client) as name:
        yield name


@pytest.fixture(scope="session")
def kubectl(k8s_control_plane: ControlPlane) -> Kubectl:
    """`kubectl` of the same release, as the cluster admin (a user of the TFClusters)."""
    from support.kubectl import Kubectl

    return Kubectl(k8s_control_plane.binaries.kubectl, k8s_control_plane.admin_kubeconfig)


# ---------------------------------------------------------------------- the operator


@pytest.fixture(scope="module")
def installed(k8s_api_client: ApiClient) -> ApiClient:
    """manifests/: the CRD, the operator's namespace, ServiceAccount and RBAC."""
    from support.operator_on_k8s import MANIFESTS, apply_manifests, wait_established

    apply_manifests(
        k8s_api_client,
        MANIFESTS / "crd.yaml",
        MANIFESTS / "namespace.yaml",
        MANIFESTS / "rbac.yaml",
    )
    wait_established(k8s_api_client)
    return k8s_api_client


@pytest.fixture(scope="module")
def operator_env() -> dict[str, str]:
    """Extra TFCLUSTER_OPERATOR_* settings of the module's operator (a module may override)."""
    return {}


@pytest.fixture(scope="module")
def operator(
    installed: ApiClient,
    k8s_control_plane: ControlPlane,
    tmp_path_factory: pytest.TempPathFactory,
    operator_env: dict[str, str],
) -> Iterator[Operator]:
    """``tfcluster-operator`` as a process acting as its ServiceAccount (manifests/rbac.yaml),
    cluster-wide; one per test module."""
    from support.k8s_control_plane.controlplane import free_port
    from support.operator_on_k8s import (
        OPERATOR_NS,
        OPERATOR_SA,
        running_operator,
        service_account_user,
    )

    workdir = tmp_path_factory.mktemp("operator")
    kubeconfig = k8s_control_plane.service_account_kubeconfig(
        OPERATOR_NS, OPERATOR_SA, workdir / "operator.kubeconfig"
    )
    with running_operator(
        kubeconfig,
        workdir,
        free_port,
        user=service_account_user(OPERATOR_NS, OPERATOR_SA),
        env=operator_env,
    ) as op:
        yield op


@pytest.fixture
def cluster_ns(operator: Operator, k8s_namespace: str) -> Iterator[str]:
    """A fresh namespace for one test's TFCluster, the module's operator watching."""
    yield k8s_namespace
    # A crashed operator fails the test that crashed it, not the next one.
    assert operator.process.poll() is None, f"the operator died:\n{operator.log_tail()}"
