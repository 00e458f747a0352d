"""Mutual TLS in a TFCluster's manifests (pure): the names each task's certificate carries,
the Secrets' names, the pod template's volume, variables and probe, and cert-manager
Certificates when ``spec.tls.issuerRef`` names an issuer.

Every task of a job mounts its job's Secret (``<name>-<job>-tls``) and finds its own files by
its index: the kubelet expands ``$(TFCLUSTER_TASK_INDEX)`` in the variables, as in TF_CONFIG
(one pod template serves every task). The whole Secret is mounted, not a subPath, so that a
renewed Secret reaches the running pods, which read their files again (no restart).
"""

from __future__ import annotations

from typing import Any

from ..spec import TFClusterSpec
from ..task_contract import (
    DIRECT_PORT_ENV,
    TASK_INDEX_ENV,
    TLS_CA_ENV,
    TLS_CERT_ENV,
    TLS_KEY_ENV,
)
from .meta import OwnerRef, common_labels, object_meta

TLS_VOLUME = "tfcluster-tls"
TLS_MOUNT = "/var/run/tfcluster/tls"
HEALTH_PATH = "/healthz"
CA_FILE = "ca.crt"


def ca_secret_name(spec: TFClusterSpec) -> str:
    return f"{spec.name}-ca"


def job_secret_name(spec: TFClusterSpec, job: str) -> str:
    return f"{spec.child_name(job)}-tls"


def client_secret_name(spec: TFClusterSpec) -> str:
    return f"{spec.client_service_name}-tls"


def _with_domain(names: list[str], cluster_domain: str) -> list[str]:
    return names + ([f"{names[-1]}.{cluster_domain}"] if cluster_domain else [])


def task_dns_names(spec: TFClusterSpec, job: str, index: int, cluster_domain: str) -> list[str]:
    """The names a task is dialled by: its pod's DNS names (the address in TF_CONFIG among
    them), the client Service's for the task that serves sessions, and localhost (a
    port-forward)."""
    svc, ns = spec.child_name(job), spec.namespace
    pod = f"{svc}-{index}"
    names = [f"{pod}.{svc}", f"{pod}.{svc}.{ns}", f"{pod}.{svc}.{ns}.svc"]
    names = _with_domain(names, cluster_domain)
    if (spec.client.job, spec.client.index) == (job, index):
        names += client_service_names(spec, cluster_domain)
    return [*names, "localhost"]


def client_service_names(spec: TFClusterSpec, cluster_domain: str) -> list[str]:
    client, ns = spec.client_service_name, spec.namespace
    return _with_domain([client, f"{client}.{ns}", f"{client}.{ns}.svc"], cluster_domain)


def job_dns_names(spec: TFClusterSpec, job: str, cluster_domain: str) -> list[str]:
    """Every name of every task of `job` (one cert-manager certificate serves the job)."""
    names: list[str] = []
    for index in range(spec.job(job).replicas):
        names += [n for n in task_dns_names(spec, job, index, cluster_domain) if n not in names]
    return names


def secure_pod(spec: TFClusterSpec, job: str, pod: dict[str, Any]) -> None:
    """With ``spec.tls``: mount the job's Secret, point TFCLUSTER_TLS_* at this task's files
    and probe readiness over HTTP (the kubelet's gRPC probe speaks no TLS)."""
    if not spec.tls.enabled:
        return
    own = spec.tls.issuer is None  # our Secret: <index>.crt/.key; cert-manager's: tls.crt/.key
    cert = f"$({TASK_INDEX_ENV}).crt" if own else "tls.crt"
    key = f"$({TASK_INDEX_ENV}).key" if own else "tls.key"
    pod.setdefault("volumes", []).append(
        {
            "name": TLS_VOLUME,
            "secret": {"secretName": job_secret_name(spec, job), "defaultMode": 0o444},
        }
    )
    container = pod["containers"][0]
    container.setdefault("volumeMounts", []).append(
        {"name": TLS_VOLUME, "mountPath": TLS_MOUNT, "readOnly": True}
    )
    env = container["env"]
    after = next(i for i, e in enumerate(env) if e["name"] == DIRECT_PORT_ENV) + 1
    env[after:after] = [
        {"name": TLS_CERT_ENV, "value": f"{TLS_MOUNT}/{cert}"},
        {"name": TLS_KEY_ENV, "value": f"{TLS_MOUNT}/{key}"},
        {"name": TLS_CA_ENV, "value": f"{TLS_MOUNT}/{CA_FILE}"},
    ]
    probe = container.get("readinessProbe")
    if probe is not None:  # a task server's (a job running a program may have none)
        probe.pop("grpc", None)
        probe["httpGet"] = {"path": HEALTH_PATH, "port": "metrics"}


def certificates(spec: TFClusterSpec, owner: OwnerRef, cluster_domain: str) -> list[dict[str, Any]]:
    """cert-manager Certificates (``spec.tls.issuerRef``): one per job, for all its tasks'
    names, and one for clients; cert-manager writes and renews their Secrets."""
    issuer = spec.tls.issuer
    if not spec.tls.enabled or issuer is None:
        return []
    labels = common_labels(spec, "tls")
    key = {"algorithm": "ECDSA", "size": 256, "rotationPolicy": "Always"}
    found: list[dict[str, Any]] = []
    for job in spec.jobs:
        if job.replicas < 1:
            continue
        name = job_secret_name(spec, job.name)
        found.append(
            {
                "apiVersion": "cert-manager.io/v1",
                "kind": "Certificate",
                "metadata": object_meta(spec, name, labels, owner),
                "spec": {
                    "secretName": name,
                    "issuerRef": issuer.reference(),
                    "commonName": f"{spec.child_name(job.name)}.{spec.namespace}.svc"[:64],
                    "dnsNames": job_dns_names(spec, job.name, cluster_domain),
                    "usages": ["server auth", "client auth", "digital signature"],
                    "privateKey": key,
                },
            }
        )
    name = client_secret_name(spec)
    found.append(
        {
            "apiVersion": "cert-manager.io/v1",
            "kind": "Certificate",
            "metadata": object_meta(spec, spec.client_service_name, labels, owner),
            "spec": {
                "secretName": name,
                "issuerRef": issuer.reference(),
                "commonName": f"{spec.client_service_name}.{spec.namespace}"[:64],
                "usages": ["client auth", "digital signature"],
                "privateKey": key,
            },
        }
    )
    return found
