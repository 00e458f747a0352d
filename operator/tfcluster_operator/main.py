"""kopf handlers only: watches feed indexes, every event asks for a sync of its TFCluster.

Run it with the ``tfcluster-operator`` command (``run`` below) or ``kopf run --standalone
-m tfcluster_operator.main``.

- kopf indexes hold every TFCluster and every child the operator manages (StatefulSets,
  Services, pods), so a sync reads them without an API request;
- every watch event (a TFCluster's, a child's) asks for a sync of its TFCluster; requests
  within ``coalesce_seconds`` become one (``Coalescer``), one sync per cluster at a time;
- a resync every ``resync_seconds`` asks the same for every TFCluster (drift a missed event
  would hide, a crash that is long past). It is one loop for the whole operator, not a kopf
  timer: a timer puts a finalizer on every TFCluster, which then cannot be deleted (nor its
  namespace) while the operator is away;
- only event handlers and indexes: kopf writes nothing on TFClusters (no annotations, no
  finalizers), and never lists namespaces or CRDs (``scanning`` off): a namespace-scoped
  install needs nothing outside its namespaces.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import os
import sys
from collections.abc import Mapping, Sequence
from typing import Any

import kopf
from kubernetes import client, config
from kubernetes.client.exceptions import ApiException

from . import GROUP, PLURAL, VERSION
from .builders.meta import MANAGED_BY, MANAGED_BY_LABEL
from .children import Children, Key, cluster_key, kind_key, plain, trimmed_pod
from .coalesce import Coalescer
from .config import OperatorConfig
from .kube import Kube
from .metrics import OperatorMetrics, serve
from .reconcile import Reconciler
from .version import VERSION as OPERATOR_VERSION

log = logging.getLogger("tfcluster_operator")

CHILDREN = {MANAGED_BY_LABEL: MANAGED_BY}
# The children other than StatefulSets and Services, each in an index of its own: Indexed
# Jobs (runs), PodDisruptionBudgets, the gang schedulers' PodGroups and Kueue's Workloads (a
# custom resource whose CRD is not installed is simply never seen: kopf leaves it unwatched).
OTHER_CHILDREN = {
    "jobs_by_cluster": ("batch", "v1", "jobs"),
    "budgets_by_cluster": ("policy", "v1", "poddisruptionbudgets"),
    "coscheduling_podgroups_by_cluster": ("scheduling.x-k8s.io", "v1alpha1", "podgroups"),
    "volcano_podgroups_by_cluster": ("scheduling.volcano.sh", "v1beta1", "podgroups"),
    "workloads_by_cluster": ("kueue.x-k8s.io", "v1beta2", "workloads"),
    # spec.networkPolicy's NetworkPolicy; spec.tls.issuerRef's cert-manager Certificates.
    "networkpolicies_by_cluster": ("networking.k8s.io", "v1", "networkpolicies"),
    "certificates_by_cluster": ("cert-manager.io", "v1", "certificates"),
}
INDEXES = (
    "tfclusters_by_key",
    "statefulsets_by_cluster",
    "services_by_cluster",
    "pods_by_cluster",
    "secrets_by_cluster",
    *OTHER_CHILDREN,
)


def api_client() -> client.ApiClient:
    """In a pod: its ServiceAccount; elsewhere: $KUBECONFIG or ~/.kube/config."""
    try:
        config.load_incluster_config()
        return client.ApiClient()
    except config.ConfigException:
        return config.new_client_from_config()


def crd_served(api: client.ApiClient) -> bool:
    """Discovery (open to every authenticated user): is the TFCluster resource served?"""
    try:
        found = client.CustomObjectsApi(api).get_api_resources(GROUP, VERSION)
    except ApiException as err:
        if err.status == 404:
            return False
        raise
    return any(r.name == PLURAL for r in found.resources or [])


# ---------------------------------------------------------------------- indexes


@kopf.index(GROUP, VERSION, PLURAL)
def tfclusters_by_key(body: kopf.Body, **_: Any) -> dict[Key, dict[str, Any]] | None:
    namespace, name = body.metadata.namespace, body.metadata.name
    return {(namespace, name): plain(body)} if namespace and name else None


@kopf.index("apps", "v1", "statefulsets", labels=CHILDREN)
def statefulsets_by_cluster(body: kopf.Body, **_: Any) -> dict[Key, dict[str, Any]] | None:
    key = cluster_key(body)
    return {key: plain(body)} if key else None


@kopf.index("v1", "services", labels=CHILDREN)
def services_by_cluster(body: kopf.Body, **_: Any) -> dict[Key, dict[str, Any]] | None:
    key = cluster_key(body)
    return {key: plain(body)} if key else None


@kopf.index("v1", "pods", labels=CHILDREN)
def pods_by_cluster(body: kopf.Body, **_: Any) -> dict[Key, dict[str, Any]] | None:
    key = cluster_key(body)
    return {key: trimmed_pod(body)} if key else None


@kopf.index("v1", "secrets", labels=CHILDREN)
def secrets_by_cluster(body: kopf.Body, **_: Any) -> dict[Key, dict[str, Any]] | None:
    """spec.tls's Secrets (only the operator's own: the watch selects its label)."""
    key = cluster_key(body)
    return {key: plain(body)} if key else None


def _child_index(body: kopf.Body, **_: Any) -> dict[Key, dict[str, Any]] | None:
    key = cluster_key(body)
    return {key: plain(body)} if key else None


for _index, (_group, _version, _plural) in OTHER_CHILDREN.items():
    kopf.index(_group, _version, _plural, labels=CHILDREN, id=_index)(_child_index)


def snapshot(indexes: Mapping[str, Any], key: Key) -> Children:
    """One cluster's children as the watches last saw them (call in the event loop)."""

    def values(index: str) -> list[dict[str, Any]]:
        store = indexes[index].get(key)
        return list(store) if store is not None else []

    return Children.of(
        statefulsets=values("statefulsets_by_cluster"),
        services=values("services_by_cluster"),
        pods=values("pods_by_cluster"),
        others=[obj for index in ("secrets_by_cluster", *OTHER_CHILDREN) for obj in values(index)],
    )


# ---------------------------------------------------------------------- lifecycle


@kopf.on.startup()
async def startup(settings: kopf.OperatorSettings, memo: kopf.Memo, **kwargs: Any) -> None:
    cfg: OperatorConfig = getattr(memo, "config", None) or OperatorConfig.from_env()
    # Only the named namespaces (or the cluster): never list namespaces or CRDs.
    settings.scanning.disabled = True
    settings.posting.enabled = False  # the reconciler posts its own (de-duplicated) events
    # Watch only our children, server-side: never every pod of the cluster.
    selector = f"{MANAGED_BY_LABEL}={MANAGED_BY}"
    for resource in (
        ("v1", "pods"),
        ("v1", "services"),
        ("v1", "secrets"),
        ("apps", "v1", "statefulsets"),
    ):
        settings.watching.label_selectors[resource] = selector
    for group, version, plural in OTHER_CHILDREN.values():
        settings.watching.label_selectors[(group, version, plural)] = selector
    api = api_client()
    metrics = OperatorMetrics()
    kube = Kube(api, cfg.field_manager, metrics.count_request)
    reconciler = Reconciler(kube, cfg, metrics)
    # Last, so that from the first request on nothing but serving is left to do.
    if not await asyncio.to_thread(crd_served, api):
        raise kopf.PermanentError(
            f"the API server does not serve {PLURAL}.{GROUP}/{VERSION}: install the CRD "
            "(manifests/crd.yaml, or the chart's crds/) before the operator"
        )
    indexes = {name: kwargs[name] for name in INDEXES}

    async def sync(key: Key) -> float | None:
        body = indexes["tfclusters_by_key"].get(key)
        latest = next(iter(body), None) if body is not None else None
        if latest is None:
            return None
        result = await asyncio.to_thread(reconciler.sync, latest, snapshot(indexes, key))
        return result.retry_after

    memo.reconciler = reconciler
    memo.coalescer = Coalescer(sync, cfg.coalesce_seconds)
    memo.resync = (
        asyncio.get_running_loop().create_task(
            resync(memo.coalescer, indexes["tfclusters_by_key"], cfg.resync_seconds)
        )
        if cfg.resync_seconds
        else None
    )
    serve(cfg.metrics_port)
    log.info(
        "tfcluster-operator %s watching %s; metrics on :%s",
        OPERATOR_VERSION,
        "all namespaces" if cfg.clusterwide else ", ".join(cfg.namespaces),
        cfg.metrics_port or "off",
    )


async def resync(coalescer: Coalescer[Key], clusters: Mapping[Key, Any], period: float) -> None:
    """Every ``period`` seconds, a sync of every TFCluster (free when nothing changed)."""
    while True:
        await asyncio.sleep(period)
        for key in list(clusters):
            coalescer.kick(key, 0.0)


@kopf.on.cleanup()
async def cleanup(memo: kopf.Memo, **_: Any) -> None:
    task = getattr(memo, "resync", None)
    if task is not None:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
    coalescer = getattr(memo, "coalescer", None)
    if coalescer is not None:
        await coalescer.close()


# ---------------------------------------------------------------------- events


@kopf.on.event(GROUP, VERSION, PLURAL)
async def tfcluster_event(type: str | None, body: kopf.Body, memo: kopf.Memo, **_: Any) -> None:
    key = (str(body.metadata.namespace), str(body.metadata.name))
    if type == "DELETED":
        memo.coalescer.forget(key)
        memo.reconciler.forget(key, body.metadata.uid)
        return
    memo.coalescer.kick(key, 0.0)


async def child_event(
    type: str | None, body: kopf.Body, resource: kopf.Resource, memo: kopf.Memo, **_: Any
) -> None:
    key = cluster_key(body)
    if key is None:
        return
    if type == "DELETED":
        memo.reconciler.note_deleted(key, kind_key(body), str(body.metadata.name))
    memo.coalescer.kick(key)


for _resource in (
    ("apps", "v1", "statefulsets"),
    ("v1", "services"),
    ("v1", "pods"),
    ("v1", "secrets"),
    *OTHER_CHILDREN.values(),
):
    kopf.on.event(*_resource, labels=CHILDREN, id=f"{_resource[-1]}.{_resource[0]}")(child_event)


# ---------------------------------------------------------------------- the command


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="tfcluster-operator",
        description="Run the TFCluster operator (settings come from TFCLUSTER_OPERATOR_* "
        "environment variables; see charts/tfcluster-operator/values.yaml).",
    )
    parser.add_argument(
        "--version", action="version", version=f"tfcluster-operator {OPERATOR_VERSION}"
    )
    return parser.parse_args(argv)


def run(argv: Sequence[str] | None = None) -> None:
    """The ``tfcluster-operator`` command: one standalone replica (no peering)."""
    parse_args(sys.argv[1:] if argv is None else argv)
    cfg = OperatorConfig.from_env()
    kopf.configure(verbose=os.environ.get("TFCLUSTER_OPERATOR_VERBOSE") == "1")
    kopf.run(
        standalone=True,
        clusterwide=cfg.clusterwide,
        namespaces=cfg.namespaces,
        liveness_endpoint=(
            f"http://0.0.0.0:{cfg.health_port}/healthz" if cfg.health_port else None
        ),
        memo=kopf.Memo(config=cfg),
    )


if __name__ == "__main__":
    run()
