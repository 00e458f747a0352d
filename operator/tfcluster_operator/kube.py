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

log = logging.getLogger(__name__)

APPLY = "application/apply-patch+yaml"  # JSON is YAML: the client sends the dict as JSON
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
        # kind -> (apply, delete) for the kinds the operator owns.
        self._kinds: dict[str, tuple[Callable[..., Any], Callable[..., Any]]] = {
            "Service": (
                self.core.patch_namespaced_service,
                self.core.delete_namespaced_service,
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
        kind = str(manifest["kind"])
        meta = manifest["metadata"]
        name, namespace = meta["name"], meta["namespace"]
        extra = {"dry_run": "All"} if dry_run else {}
        return self._call(
            "apply-dry-run" if dry_run else "apply",
            kind,
            f"{'dry-run ' if dry_run else ''}apply {kind} {namespace}/{name}",
            self._kinds[kind][0],
            name,
            namespace,
            dict(manifest),
            field_manager=self.field_manager,
            force=True,
            _content_type=APPLY,
            **extra,
        )

    def delete(self, kind: str, namespace: str, name: str) -> bool:
        """Delete, letting the garbage collector take dependents; False if already gone."""
        try:
            self._call(
                "delete",
                kind,
                f"delete {kind} {namespace}/{name}",
                self._kinds[kind][1],
                name,
                namespace,
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
