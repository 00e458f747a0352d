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


@dataclass(frozen=True)
class Children:
    statefulsets: Mapping[str, dict[str, Any]] = field(default_factory=dict)
    services: Mapping[str, dict[str, Any]] = field(default_factory=dict)
    pods: tuple[dict[str, Any], ...] = ()

    def of_kind(self, kind: str) -> Mapping[str, dict[str, Any]]:
        return self.statefulsets if kind == "StatefulSet" else self.services

    def get(self, kind: str, name: str) -> dict[str, Any] | None:
        return self.of_kind(kind).get(name)

    @classmethod
    def of(
        cls,
        statefulsets: Iterable[Mapping[str, Any]] = (),
        services: Iterable[Mapping[str, Any]] = (),
        pods: Iterable[Mapping[str, Any]] = (),
    ) -> Children:
        return cls(
            statefulsets={s["metadata"]["name"]: dict(s) for s in statefulsets},
            services={s["metadata"]["name"]: dict(s) for s in services},
            pods=tuple(dict(p) for p in pods),
        )


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
    """The parts of a pod the status reads: names, labels, deletion, status."""
    meta = body.get("metadata") or {}
    return {
        "metadata": {
            key: copy.deepcopy(meta[key])
            for key in ("name", "namespace", "uid", "labels", "deletionTimestamp")
            if key in meta
        },
        "status": copy.deepcopy(dict(body.get("status") or {})),
    }
