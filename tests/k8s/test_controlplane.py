"""The test control plane is a real one: storage, watch, controllers, CRD validation, RBAC."""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import pytest

kubernetes = pytest.importorskip("kubernetes")
from kubernetes import client, watch  # noqa: E402
from kubernetes.client import ApiClient  # noqa: E402
from kubernetes.client.exceptions import ApiException  # noqa: E402
from support.k8s_control_plane import ControlPlane, pinned_versions  # noqa: E402

pytestmark = pytest.mark.k8s

T = TypeVar("T")


def wait_for(what: str, probe: Callable[[], T | None], timeout: float = 60.0) -> T:
    """Poll ``probe`` until it returns something other than None/False."""
    deadline = time.monotonic() + timeout
    while True:
        result = probe()
        if result is not None and result is not False:
            return result
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout:.0f} s waiting for {what}")
        time.sleep(0.2)


def exists(read: Callable[[], Any]) -> bool:
    try:
        read()
    except ApiException as err:
        if err.status == 404:
            return False
        raise
    return True


def statefulset(name: str, replicas: int) -> client.V1StatefulSet:
    labels = {"app": name}
    return client.V1StatefulSet(
        metadata=client.V1ObjectMeta(name=name),
        spec=client.V1StatefulSetSpec(
            replicas=replicas,
            service_name=name,
            pod_management_policy="Parallel",  # OrderedReady would wait for Ready pods
            selector=client.V1LabelSelector(match_labels=labels),
            template=client.V1PodTemplateSpec(
                metadata=client.V1ObjectMeta(labels=labels),
                spec=client.V1PodSpec(
                    containers=[client.V1Container(name="main", image="busybox:1.36")]
                ),
            ),
        ),
    )


def test_version_is_the_pinned_release(k8s_api_client: ApiClient) -> None:
    info = client.VersionApi(k8s_api_client).get_code()
    assert info.git_version == pinned_versions()["kubernetes"]
    assert info.major == "1"


def test_configmaps_create_list_watch(k8s_api_client: ApiClient, k8s_namespace: str) -> None:
    core = client.CoreV1Api(k8s_api_client)
    core.create_namespaced_config_map(
        k8s_namespace,
        client.V1ConfigMap(metadata=client.V1ObjectMeta(name="first"), data={"k": "1"}),
    )
    listed = core.list_namespaced_config_map(k8s_namespace)
    assert "first" in [cm.metadata.name for cm in listed.items]

    # Changes made after the list arrive on a watch that starts at the list's version.
    core.create_namespaced_config_map(
        k8s_namespace, client.V1ConfigMap(metadata=client.V1ObjectMeta(name="second"))
    )
    core.patch_namespaced_config_map("first", k8s_namespace, {"data": {"k": "2"}})
    seen: list[tuple[str, str]] = []
    stream = watch.Watch()
    for event in stream.stream(
        core.list_namespaced_config_map,
        k8s_namespace,
        resource_version=listed.metadata.resource_version,
        timeout_seconds=20,
    ):
        seen.append((event["type"], event["object"].metadata.name))
        if ("ADDED", "second") in seen and ("MODIFIED", "first") in seen:
            stream.stop()
    assert ("ADDED", "second") in seen
    assert ("MODIFIED", "first") in seen
    assert core.read_namespaced_config_map("first", k8s_namespace).data == {"k": "2"}


def test_statefulset_controller_creates_pods(k8s_api_client: ApiClient, k8s_namespace: str) -> None:
    apps = client.AppsV1Api(k8s_api_client)
    core = client.CoreV1Api(k8s_api_client)
    created = apps.create_namespaced_stateful_set(k8s_namespace, statefulset("web", 2))

    def pods() -> list[client.V1Pod] | None:
        items = core.list_namespaced_pod(k8s_namespace, label_selector="app=web").items
        return items if len(items) == 2 else None

    found = wait_for("the StatefulSet's two pods", pods)
    assert sorted(p.metadata.name for p in found) == ["web-0", "web-1"]
    for pod in found:
        (owner,) = pod.metadata.owner_references
        assert (owner.kind, owner.name, owner.uid) == ("StatefulSet", "web", created.metadata.uid)
        assert pod.metadata.labels["statefulset.kubernetes.io/pod-name"] == pod.metadata.name
        assert pod.status.phase == "Pending"  # no kubelet in the test control plane
    # The controller also reports what it did.
    wait_for(
        "status.replicas == 2",
        lambda: apps.read_namespaced_stateful_set("web", k8s_namespace).status.replicas == 2,
    )


def test_deleting_a_statefulset_collects_its_pods(
    k8s_api_client: ApiClient, k8s_namespace: str
) -> None:
    apps = client.AppsV1Api(k8s_api_client)
    core = client.CoreV1Api(k8s_api_client)
    apps.create_namespaced_stateful_set(k8s_namespace, statefulset("db", 2))
    wait_for(
        "the StatefulSet's pods",
        lambda: len(core.list_namespaced_pod(k8s_namespace, label_selector="app=db").items) == 2,
    )
    apps.delete_namespaced_stateful_set(
        "db", k8s_namespace, body=client.V1DeleteOptions(propagation_policy="Background")
    )
    wait_for(
        "the garbage collector to delete the pods",
        lambda: not core.list_namespaced_pod(k8s_namespace, label_selector="app=db").items,
    )


def test_garbage_collector_deletes_dependents(
    k8s_api_client: ApiClient, k8s_namespace: str
) -> None:
    core = client.CoreV1Api(k8s_api_client)
    owner = core.create_namespaced_config_map(
        k8s_namespace, client.V1ConfigMap(metadata=client.V1ObjectMeta(name="owner"))
    )
    reference = client.V1OwnerReference(
        api_version="v1", kind="ConfigMap", name="owner", uid=owner.metadata.uid
    )
    core.create_namespaced_config_map(
        k8s_namespace,
        client.V1ConfigMap(
            metadata=client.V1ObjectMeta(name="dependent", owner_references=[reference])
        ),
    )
    core.create_namespaced_config_map(
        k8s_namespace, client.V1ConfigMap(metadata=client.V1ObjectMeta(name="bystander"))
    )
    core.delete_namespaced_config_map("owner", k8s_namespace)
    wait_for(
        "the dependent ConfigMap to be collected",
        lambda: not exists(lambda: core.read_namespaced_config_map("dependent", k8s_namespace)),
    )
    assert exists(lambda: core.read_namespaced_config_map("bystander", k8s_namespace))


GROUP = "testenv.tfcluster.dev"


def widget_crd() -> dict[str, Any]:
    return {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": f"widgets.{GROUP}"},
        "spec": {
            "group": GROUP,
            "scope": "Namespaced",
            "names": {"plural": "widgets", "singular": "widget", "kind": "Widget"},
            "versions": [
                {
                    "name": "v1",
                    "served": True,
                    "storage": True,
                    "schema": {
                        "openAPIV3Schema": {
                            "type": "object",
                            "properties": {
                                "spec": {
                                    "type": "object",
                                    "required": ["replicas"],
                                    "properties": {
                                        "replicas": {"type": "integer", "minimum": 1},
                                        "image": {"type": "string"},
                                    },
                                }
                            },
                        }
                    },
                }
            ],
        },
    }


def test_crd_schema_rejects_invalid_objects(k8s_api_client: ApiClient, k8s_namespace: str) -> None:
    extensions = client.ApiextensionsV1Api(k8s_api_client)
    custom = client.CustomObjectsApi(k8s_api_client)
    name = f"widgets.{GROUP}"
    if not exists(lambda: extensions.read_custom_resource_definition(name)):
        extensions.create_custom_resource_definition(widget_crd())

    def established() -> bool:
        crd = extensions.read_custom_resource_definition(name)
        return any(
            c.type == "Established" and c.status == "True" for c in crd.status.conditions or []
        )

    wait_for("the CRD to be Established", established)

    def create(spec: dict[str, Any], obj_name: str) -> dict[str, Any] | None:
        body = {"apiVersion": f"{GROUP}/v1", "kind": "Widget", "metadata": {"name": obj_name}}
        try:
            result: dict[str, Any] = custom.create_namespaced_custom_object(
                GROUP, "v1", k8s_namespace, "widgets", {**body, "spec": spec}
            )
        except ApiException as err:
            if err.status == 404:  # the new resource is not served yet
                return None
            raise
        return result

    valid = wait_for("the Widget resource to be served", lambda: create({"replicas": 2}, "ok"))
    assert valid["spec"] == {"replicas": 2}
    # A structural schema prunes unknown fields...
    pruned = create({"replicas": 1, "unknown": True}, "pruned")
    assert pruned is not None and pruned["spec"] == {"replicas": 1}
    # ...and rejects values it does not allow, with 422 Unprocessable Entity.
    for bad_spec in ({"replicas": 0}, {"replicas": "two"}, {"image": "x"}):
        with pytest.raises(ApiException) as info:
            create(bad_spec, "bad")
        assert info.value.status == 422, info.value.body


def test_service_account_is_bound_by_rbac(
    k8s_api_client: ApiClient,
    k8s_namespace: str,
    k8s_service_account_client: Callable[[str, str], ApiClient],
) -> None:
    core = client.CoreV1Api(k8s_api_client)
    rbac = client.RbacAuthorizationV1Api(k8s_api_client)
    core.create_namespaced_service_account(
        k8s_namespace, client.V1ServiceAccount(metadata=client.V1ObjectMeta(name="reader"))
    )
    as_reader = client.CoreV1Api(k8s_service_account_client(k8s_namespace, "reader"))

    with pytest.raises(ApiException) as info:
        as_reader.list_namespaced_config_map(k8s_namespace)
    assert info.value.status == 403
    assert f"system:serviceaccount:{k8s_namespace}:reader" in info.value.body

    rbac.create_namespaced_role(
        k8s_namespace,
        client.V1Role(
            metadata=client.V1ObjectMeta(name="configmap-reader"),
            rules=[
                client.V1PolicyRule(
                    api_groups=[""], resources=["configmaps"], verbs=["get", "list", "watch"]
                )
            ],
        ),
    )
    rbac.create_namespaced_role_binding(
        k8s_namespace,
        client.V1RoleBinding(
            metadata=client.V1ObjectMeta(name="reader-reads-configmaps"),
            role_ref=client.V1RoleRef(
                api_group="rbac.authorization.k8s.io", kind="Role", name="configmap-reader"
            ),
            subjects=[
                client.RbacV1Subject(kind="ServiceAccount", name="reader", namespace=k8s_namespace)
            ],
        ),
    )

    def allowed() -> bool:
        try:
            as_reader.list_namespaced_config_map(k8s_namespace)
        except ApiException as err:
            if err.status == 403:  # the authorizer's cache has not seen the binding yet
                return False
            raise
        return True

    wait_for("the RoleBinding to take effect", allowed, timeout=30)
    # Only what the Role grants: secrets stay forbidden, and so does writing.
    for forbidden in (
        lambda: as_reader.list_namespaced_secret(k8s_namespace),
        lambda: as_reader.create_namespaced_config_map(
            k8s_namespace, client.V1ConfigMap(metadata=client.V1ObjectMeta(name="nope"))
        ),
    ):
        with pytest.raises(ApiException) as info:
            forbidden()
        assert info.value.status == 403


def test_stop_leaves_no_process_behind(k8s_control_plane: ControlPlane, tmp_path: Path) -> None:
    second = ControlPlane(k8s_control_plane.binaries, tmp_path)
    with second:
        assert second.running
        assert second.server != k8s_control_plane.server
        status, body = second.request("GET", "/api/v1/namespaces/default")
        assert status == 200, body
        pids = second.pids
        assert set(pids) == {"etcd", "kube-apiserver", "kube-controller-manager"}
    assert not second.running
    for pid in pids.values():
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)
    assert k8s_control_plane.running
