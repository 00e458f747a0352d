"""Events on TFClusters, de-duplicated as the kubelet's own: the same event again (same
object, type, reason and message) increments the first one's ``count`` and moves its
``lastTimestamp`` (``kubectl describe`` shows "x3 over 5m") instead of adding another.

The recorder remembers what it posted for ``TTL_SECONDS`` (at most ``MAX_REMEMBERED``
events); an event the API server has dropped meanwhile (its own TTL) is posted afresh.
Failures are logged, never raised: an event is worth less than the work it reports on.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from . import API_VERSION, KIND
from .kube import Kube, KubeError, now

log = logging.getLogger(__name__)

TTL_SECONDS = 3600.0
MAX_REMEMBERED = 2048
MAX_MESSAGE = 1024


@dataclass
class _Posted:
    name: str
    count: int
    at: float


class EventRecorder:
    def __init__(
        self,
        kube: Kube,
        component: str,
        *,
        on_namespace_terminating: Callable[[str], None] = lambda namespace: None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.kube = kube
        self.component = component
        self.on_namespace_terminating = on_namespace_terminating
        self.clock = clock
        self._posted: OrderedDict[tuple[str, ...], _Posted] = OrderedDict()
        self._lock = threading.Lock()

    def post(self, owner: Mapping[str, Any], event_type: str, reason: str, message: str) -> None:
        meta = owner["metadata"]
        namespace = meta["namespace"]
        message = message[:MAX_MESSAGE]
        key = (namespace, str(meta.get("uid")), event_type, reason, message)
        stamp = now()
        with self._lock:
            seen = self._posted.get(key)
            if seen is not None and self.clock() - seen.at > TTL_SECONDS:
                seen = None
        try:
            if seen is not None:
                try:
                    self.kube.patch_event(
                        namespace, seen.name, {"count": seen.count + 1, "lastTimestamp": stamp}
                    )
                    self._remember(key, _Posted(seen.name, seen.count + 1, self.clock()))
                    return
                except KubeError as err:
                    if err.status != 404:
                        raise
            made = self.kube.create_event(namespace, self._body(owner, event_type, reason, message))
            self._remember(key, _Posted(str(made["metadata"]["name"]), 1, self.clock()))
        except KubeError as err:
            if err.namespace_terminating:
                self.on_namespace_terminating(namespace)
                return
            log.warning(
                "could not post event %s on %s/%s: %s", reason, namespace, meta["name"], err
            )

    def forget(self, namespace: str, uid: str) -> None:
        with self._lock:
            for key in [k for k in self._posted if k[:2] == (namespace, uid)]:
                del self._posted[key]

    def _remember(self, key: tuple[str, ...], posted: _Posted) -> None:
        with self._lock:
            self._posted[key] = posted
            self._posted.move_to_end(key)
            while len(self._posted) > MAX_REMEMBERED:
                self._posted.popitem(last=False)

    def _body(
        self, owner: Mapping[str, Any], event_type: str, reason: str, message: str
    ) -> dict[str, Any]:
        meta = owner["metadata"]
        stamp = now()
        return {
            "apiVersion": "v1",
            "kind": "Event",
            "metadata": {"generateName": f"{meta['name']}.", "namespace": meta["namespace"]},
            "involvedObject": {
                "apiVersion": API_VERSION,
                "kind": KIND,
                "name": meta["name"],
                "namespace": meta["namespace"],
                "uid": meta.get("uid"),
            },
            "type": event_type,
            "reason": reason,
            "message": message,
            "source": {"component": self.component},
            "reportingComponent": self.component,
            "reportingInstance": self.component,
            "firstTimestamp": stamp,
            "lastTimestamp": stamp,
            "count": 1,
        }
