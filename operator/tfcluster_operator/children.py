"""What the operator knows of a TFCluster's children, as its watches last saw them.

kopf indexes (main.py) keep every child the operator manages, keyed by ``(namespace,
cluster)``; a ``Children`` is one consistent snapshot of one cluster's, taken in the event
loop and handed to the reconciler: reading children costs no API request. Pods are kept
trimmed to what the status needs.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from .builders.meta import CLUSTER_LABEL

Key = tuple[str, str]  # (namespace, TFCluster name)


# API groups whose kinds are named alone; a custom resource's kind is "<Kind>.<group>" (two
# gang schedulers both call theirs PodGroup).
BUILTIN_GROUPS = frozenset({"", "v1", "apps", "batch", "policy", "networking.k8s.io"})


def kind_key(obj: Mapping[str, Any]) -> str:
    """The name the operator files a child's kind under: ``Job``, ``PodGroup.scheduling.
    volcano.sh``."""
    kind = str(obj.get("kind"))
    group = str(obj.get("apiVersion", "")).rpartition("/")[0]
    return kind if group in BUILTIN_GROUPS else f"{kind}.{group}"


@dataclass(frozen=True)
class Children:
    """Children by kind (``kind_key``) and name, and the pods of the cluster's tasks."""

    objects: Mapping[str, Mapping[str, dict[str, Any]]] = field(default_factory=dict)
    pods: tuple[dict[str, Any], ...] = ()

    @property
    def statefulsets(self) -> Mapping[str, dict[str, Any]]:
        return self.of_kind("StatefulSet")

    @property
    def services(self) -> Mapping[str, dict[str, Any]]:
        return self.of_kind("Service")

    @property
    def jobs(self) -> Mapping[str, dict[str, Any]]:
        return self.of_kind("Job")

    @property
    def secrets(self) -> Mapping[str, dict[str, Any]]:
        return self.of_kind("Secret")

    def of_kind(self, kind: str) -> Mapping[str, dict[str, Any]]:
        return self.objects.get(kind, {})

    def get(self, kind: str, name: str) -> dict[str, Any] | None:
        return self.of_kind(kind).get(name)

    @property
    def kinds(self) -> tuple[str, ...]:
        return tuple(self.objects)

    @classmethod
    def of(
        cls,
        statefulsets: Iterable[Mapping[str, Any]] = (),
        services: Iterable[Mapping[str, Any]] = (),
        pods: Iterable[Mapping[str, Any]] = (),
        others: Iterable[Mapping[str, Any]] = (),
    ) -> Children:
        """From lists of objects; ``others`` of any kind (each filed by ``kind_key``)."""
        objects: dict[str, dict[str, dict[str, Any]]] = {"StatefulSet": {}, "Service": {}}
        for kind, items in (("StatefulSet", statefulsets), ("Service", services)):
            for obj in items:
                objects[kind][obj["metadata"]["name"]] = dict(obj)
        for obj in others:
            objects.setdefault(kind_key(obj), {})[obj["metadata"]["name"]] = dict(obj)
        return cls(objects=objects, pods=tuple(dict(p) for p in pods))


def cluster_key(body: Mapping[str, Any]) -> Key | None:
    """The TFCluster a child belongs to, from its label."""
    meta = body.get("metadata") or {}
    cluster = (meta.get("labels") or {}).get(CLUSTER_LABEL)
    namespace = meta.get("namespace")
    if not cluster or not namespace:
        return None
    return (str(namespace), str(cluster))


def plain(body: Mapping[str, Any]) -> dict[str, Any]:
    """A private copy of a watched object (kopf's bodies are views of its own data)."""
    return copy.deepcopy(dict(body))


def trimmed_pod(body: Mapping[str, Any]) -> dict[str, Any]:
    """The parts of a pod the status reads: names, labels, creation, deletion, status."""
    meta = body.get("metadata") or {}
    return {
        "metadata": {
            key: copy.deepcopy(meta[key])
            for key in (
                "name",
                "namespace",
                "uid",
                "labels",
                "deletionTimestamp",
                "creationTimestamp",
            )
            if key in meta
        },
        "status": copy.deepcopy(dict(body.get("status") or {})),
    }
