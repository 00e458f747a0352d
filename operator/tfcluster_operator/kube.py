"""The one layer that talks to the Kubernetes API: server-side apply (and its dry run),
delete, the TFCluster's status, events, and the two reads the operator makes outside its
watches (a TFCluster and a namespace, before re-creating a deleted child). Objects go in and
come out as plain dicts.

Children are written with server-side apply under one field manager, so a field the
operator stops setting is removed, and fields other managers own are left alone. Every
request is counted by verb, kind and answer (``tfcluster_operator_api_requests_total``).
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from typing import Any

from kubernetes import client
from kubernetes.client.exceptions import ApiException

from . import GROUP, KIND, PLURAL, VERSION
from .children import kind_key

log = logging.getLogger(__name__)

APPLY = "application/apply-patch+yaml"  # JSON is YAML: the client sends the dict as JSON
WORKLOAD_KIND = "Workload.kueue.x-k8s.io"
# Custom resources the operator owns: kind_key -> (group, version, plural).
CUSTOM_KINDS = {
    "PodGroup.scheduling.x-k8s.io": ("scheduling.x-k8s.io", "v1alpha1", "podgroups"),
    "PodGroup.scheduling.volcano.sh": ("scheduling.volcano.sh", "v1beta1", "podgroups"),
    WORKLOAD_KIND: ("kueue.x-k8s.io", "v1beta2", "workloads"),
    # spec.tls.issuerRef: cert-manager issues the certificates.
    "Certificate.cert-manager.io": ("cert-manager.io", "v1", "certificates"),
}
# Answers no retry can change: the object itself is wrong.
REJECTED_STATUSES = frozenset({400, 413, 422})


class KubeError(RuntimeError):
    """An API call failed; ``status`` is the HTTP status (0 when none came back)."""

    def __init__(self, what: str, status: int, message: str, causes: tuple[str, ...] = ()) -> None:
        super().__init__(f"{what} failed ({status}): {message}")
        self.status = status
        self.message = message
        self.causes = causes

    @property
    def transient(self) -> bool:
        """Worth retrying: conflicts, throttling, server trouble, no answer."""
        return self.status in (0, 409, 429) or self.status >= 500

    @property
    def rejected(self) -> bool:
        """The API server refuses the object as written (invalid, malformed, too large)."""
        return self.status in REJECTED_STATUSES

    @property
    def namespace_terminating(self) -> bool:
        """Refused because the namespace is being deleted: nothing can be created there."""
        return self.status == 403 and (
            "NamespaceTerminating" in self.causes
            or "because it is being terminated" in self.message
        )


def now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _decode(response: Any) -> dict[str, Any]:
    data = json.loads(response.data or b"{}")
    return data if isinstance(data, dict) else {}


def _details(err: ApiException) -> tuple[str, tuple[str, ...]]:
    try:
        body = json.loads(err.body or "{}")
    except (ValueError, TypeError):
        return str(err.reason), ()
    if not isinstance(body, dict):
        return str(err.reason), ()
    causes = tuple(
        str(c.get("reason") or c.get("type") or "")
        for c in (body.get("details") or {}).get("causes") or []
        if isinstance(c, dict)
    )
    return str(body.get("message") or err.reason), causes


class Kube:
    def __init__(
        self,
        api: client.ApiClient,
        field_manager: str = "tfcluster-operator",
        count: Callable[[str, str, int], None] = lambda verb, kind, status: None,
    ) -> None:
        self.field_manager = field_manager
        self.count = count
        self.core = client.CoreV1Api(api)
        self.apps = client.AppsV1Api(api)
        self.custom = client.CustomObjectsApi(api)
        self.batch = client.BatchV1Api(api)
        self.policy = client.PolicyV1Api(api)
        self.networking = client.NetworkingV1Api(api)
        # kind -> (apply, delete) for the built-in kinds the operator owns; custom resources
        # (PodGroups, Kueue's Workload) go through CustomObjectsApi (``CUSTOM_KINDS``).
        self._kinds: dict[str, tuple[Callable[..., Any], Callable[..., Any]]] = {
            "Job": (self.batch.patch_namespaced_job, self.batch.delete_namespaced_job),
            "PodDisruptionBudget": (
                self.policy.patch_namespaced_pod_disruption_budget,
                self.policy.delete_namespaced_pod_disruption_budget,
            ),
            "Service": (
                self.core.patch_namespaced_service,
                self.core.delete_namespaced_service,
            ),
            "Secret": (self.core.patch_namespaced_secret, self.core.delete_namespaced_secret),
            "NetworkPolicy": (
                self.networking.patch_namespaced_network_policy,
                self.networking.delete_namespaced_network_policy,
            ),
            "StatefulSet": (
                self.apps.patch_namespaced_stateful_set,
                self.apps.delete_namespaced_stateful_set,
            ),
        }

    def _call(
        self, verb: str, kind: str, what: str, fn: Callable[..., Any], *args: Any, **kwargs: Any
    ) -> dict[str, Any]:
        try:
            result = _decode(fn(*args, _preload_content=False, **kwargs))
        except ApiException as err:
            status = int(err.status or 0)
            self.count(verb, kind, status)
            message, causes = _details(err)
            raise KubeError(what, status, message, causes) from None
        except OSError as err:  # no answer (connection refused, reset, timeout)
            self.count(verb, kind, 0)
            raise KubeError(what, 0, str(err)) from None
        self.count(verb, kind, 200)
        return result

    # ------------------------------------------------------------- children

    def apply(self, manifest: Mapping[str, Any], *, dry_run: bool = False) -> dict[str, Any]:
        """Create or update ``manifest`` (server-side apply, owning what it names); with
        ``dry_run`` the API server validates and admits it but stores nothing."""
        kind = kind_key(manifest)
        meta = manifest["metadata"]
        name, namespace = meta["name"], meta["namespace"]
        extra = {"dry_run": "All"} if dry_run else {}
        if kind in CUSTOM_KINDS:
            group, version, plural = CUSTOM_KINDS[kind]
            fn: Callable[..., Any] = self.custom.patch_namespaced_custom_object
            args: tuple[Any, ...] = (group, version, namespace, plural, name, dict(manifest))
        else:
            fn, args = self._kinds[kind][0], (name, namespace, dict(manifest))
        return self._call(
            "apply-dry-run" if dry_run else "apply",
            kind,
            f"{'dry-run ' if dry_run else ''}apply {kind} {namespace}/{name}",
            fn,
            *args,
            field_manager=self.field_manager,
            force=True,
            _content_type=APPLY,
            **extra,
        )

    def delete(self, kind: str, namespace: str, name: str) -> bool:
        """Delete, letting the garbage collector take dependents; False if already gone."""
        if kind in CUSTOM_KINDS:
            group, version, plural = CUSTOM_KINDS[kind]
            fn: Callable[..., Any] = self.custom.delete_namespaced_custom_object
            args: tuple[Any, ...] = (group, version, namespace, plural, name)
        else:
            fn, args = self._kinds[kind][1], (name, namespace)
        try:
            self._call(
                "delete",
                kind,
                f"delete {kind} {namespace}/{name}",
                fn,
                *args,
                propagation_policy="Background",
            )
        except KubeError as err:
            if err.status == 404:
                return False
            raise
        return True

    # ------------------------------------------------------------- reads

    def get_tfcluster(self, namespace: str, name: str) -> dict[str, Any] | None:
        try:
            return self._call(
                "get",
                KIND,
                f"get {KIND} {namespace}/{name}",
                self.custom.get_namespaced_custom_object,
                GROUP,
                VERSION,
                namespace,
                PLURAL,
                name,
            )
        except KubeError as err:
            if err.status == 404:
                return None
            raise

    def namespace_terminating(self, namespace: str) -> bool:
        """Whether ``namespace`` is being deleted (or gone)."""
        try:
            ns = self._call(
                "get",
                "Namespace",
                f"get Namespace {namespace}",
                self.core.read_namespace,
                namespace,
            )
        except KubeError as err:
            if err.status == 404:
                return True
            raise
        return bool(
            ns.get("metadata", {}).get("deletionTimestamp")
            or ns.get("status", {}).get("phase") == "Terminating"
        )

    # ------------------------------------------------------------- TFClusters

    def patch_tfcluster_status(self, namespace: str, name: str, status: Mapping[str, Any]) -> None:
        """A merge patch of ``{"status": ...}`` on the status subresource."""
        try:
            self._call(
                "patch",
                f"{KIND}/status",
                f"patch {KIND} {namespace}/{name} status",
                self.custom.patch_namespaced_custom_object_status,
                GROUP,
                VERSION,
                namespace,
                PLURAL,
                name,
                {"status": dict(status)},
                _content_type="application/merge-patch+json",
            )
        except KubeError as err:
            if err.status != 404:  # deleted meanwhile: nothing to report on
                raise

    def delete_tfcluster(self, namespace: str, name: str, uid: str) -> bool:
        """Delete a finished run (its TTL passed); only the one with ``uid`` (a new
        TFCluster of the same name is not this run). False if already gone."""
        try:
            self._call(
                "delete",
                KIND,
                f"delete {KIND} {namespace}/{name}",
                self.custom.delete_namespaced_custom_object,
                GROUP,
                VERSION,
                namespace,
                PLURAL,
                name,
                propagation_policy="Background",
                body=client.V1DeleteOptions(preconditions=client.V1Preconditions(uid=uid)),
            )
        except KubeError as err:
            if err.status in (404, 409):
                return False
            raise
        return True

    # ------------------------------------------------------------- Kueue

    def patch_workload_status(
        self, namespace: str, name: str, status: Mapping[str, Any], manager: str | None = None
    ) -> None:
        """Server-side apply of the Workload's status conditions (the job's side of Kueue's
        contract: Finished, and giving an eviction's quota back); a manager owns only the
        conditions it sets (``manager``: Kueue's admission manager, whose admission an
        apply without it removes)."""
        group, version, plural = CUSTOM_KINDS[WORKLOAD_KIND]
        self._call(
            "apply",
            f"{WORKLOAD_KIND}/status",
            f"apply {WORKLOAD_KIND} {namespace}/{name} status",
            self.custom.patch_namespaced_custom_object_status,
            group,
            version,
            namespace,
            plural,
            name,
            {
                "apiVersion": f"{group}/{version}",
                "kind": "Workload",
                "metadata": {"name": name, "namespace": namespace},
                "status": dict(status),
            },
            field_manager=manager or self.field_manager,
            force=True,
            _content_type=APPLY,
        )

    def get_resource_flavor(self, name: str) -> dict[str, Any] | None:
        """A Kueue ResourceFlavor (cluster-scoped): the node labels and tolerations an
        admission into it brings to the pods."""
        group, version = CUSTOM_KINDS[WORKLOAD_KIND][:2]
        try:
            return self._call(
                "get",
                "ResourceFlavor",
                f"get ResourceFlavor {name}",
                self.custom.get_cluster_custom_object,
                group,
                version,
                "resourceflavors",
                name,
            )
        except KubeError as err:
            if err.status == 404:
                return None
            raise

    # ------------------------------------------------------------- events

    def create_event(self, namespace: str, body: Mapping[str, Any]) -> dict[str, Any]:
        return self._call(
            "create",
            "Event",
            f"create Event in {namespace}",
            self.core.create_namespaced_event,
            namespace,
            dict(body),
        )

    def patch_event(self, namespace: str, name: str, patch: Mapping[str, Any]) -> dict[str, Any]:
        return self._call(
            "patch",
            "Event",
            f"patch Event {namespace}/{name}",
            self.core.patch_namespaced_event,
            name,
            namespace,
            dict(patch),
            _content_type="application/merge-patch+json",
        )
