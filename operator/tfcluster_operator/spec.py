"""The TFCluster spec as typed data, validated once.

The CRD's schema rejects most bad specs at the API server; ``parse_spec`` checks what a
schema cannot (names that become too long once joined, a client task that does not exist,
reserved environment variables) and raises ``SpecError``, which the operator turns into a
condition and an event instead of retrying.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from . import task_contract
from .security_spec import NetworkPolicySpec, TLSSpec, parse_network_policy, parse_tls

DNS_1035_LABEL = re.compile(r"^[a-z]([-a-z0-9]*[a-z0-9])?$")
# A StatefulSet's pods carry the label controller-revision-hash=<name>-<hash>; label
# values stop at 63 characters and the hash takes up to 11 of them.
MAX_STATEFULSET_NAME = 52
MAX_SERVICE_NAME = 63
CLIENT_SERVICE_SUFFIX = "client"
# Set by the operator in every task container; a user value would break the task.
RESERVED_ENV = task_contract.OPERATOR_ENV
PULL_POLICIES = ("Always", "IfNotPresent", "Never")
DEFAULT_PORT = task_contract.DEFAULT_GRPC_PORT
DEFAULT_METRICS_PORT = task_contract.DEFAULT_METRICS_PORT
DEFAULT_DIRECT_PORT = task_contract.DEFAULT_DIRECT_PORT


class SpecError(ValueError):
    """A spec the schema let through but the operator cannot run; ``reason`` is CamelCase."""

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(message)
        self.reason = reason
        self.message = message


@dataclass(frozen=True)
class TaskRef:
    job: str
    index: int

    def __str__(self) -> str:
        return f"/job:{self.job}/task:{self.index}"


@dataclass(frozen=True)
class PodOverrides:
    """What a job may add to its pods: merged into the pod template the operator builds."""

    labels: Mapping[str, str] = field(default_factory=dict)
    annotations: Mapping[str, str] = field(default_factory=dict)
    node_selector: Mapping[str, str] = field(default_factory=dict)
    tolerations: tuple[Mapping[str, Any], ...] = ()
    affinity: Mapping[str, Any] | None = None
    env: tuple[Mapping[str, Any], ...] = ()
    volumes: tuple[Mapping[str, Any], ...] = ()
    volume_mounts: tuple[Mapping[str, Any], ...] = ()
    service_account_name: str | None = None
    priority_class_name: str | None = None
    image_pull_secrets: tuple[Mapping[str, Any], ...] = ()


@dataclass(frozen=True)
class JobSpec:
    name: str
    replicas: int
    gpus: int = 0
    resources: Mapping[str, Any] = field(default_factory=dict)
    template: PodOverrides = field(default_factory=PodOverrides)
    client_task: int | None = None
    image: str | None = None


@dataclass(frozen=True)
class TFClusterSpec:
    name: str
    namespace: str
    image: str
    jobs: tuple[JobSpec, ...]
    client: TaskRef
    port: int = DEFAULT_PORT
    metrics_port: int = DEFAULT_METRICS_PORT
    direct_port: int = DEFAULT_DIRECT_PORT
    image_pull_policy: str = "IfNotPresent"
    suspend: bool = False
    tls: TLSSpec = field(default_factory=TLSSpec)
    network_policy: NetworkPolicySpec = field(default_factory=NetworkPolicySpec)

    def job(self, name: str) -> JobSpec:
        for job in self.jobs:
            if job.name == name:
                return job
        raise KeyError(name)

    def child_name(self, job: str) -> str:
        """The name of a job's StatefulSet and headless Service."""
        return f"{self.name}-{job}"

    @property
    def client_service_name(self) -> str:
        return f"{self.name}-{CLIENT_SERVICE_SUFFIX}"


def parse_spec(
    name: str, namespace: str, spec: Mapping[str, Any], *, default_image: str
) -> TFClusterSpec:
    """The typed spec of TFCluster ``namespace/name``; raises ``SpecError`` when unusable."""
    _check_label("metadata.name", name, MAX_STATEFULSET_NAME)
    raw_jobs = _list(spec, "jobs")
    if not raw_jobs:
        raise SpecError("InvalidSpec", "spec.jobs is empty: a TFCluster needs at least one job")
    jobs = tuple(_parse_job(i, raw) for i, raw in enumerate(raw_jobs))
    _check_unique_jobs(jobs)
    for job in jobs:
        _check_label(
            f"the child name of job {job.name!r}", f"{name}-{job.name}", MAX_STATEFULSET_NAME
        )
    port = _port(spec, "port", DEFAULT_PORT)
    metrics_port = _port(spec, "metricsPort", DEFAULT_METRICS_PORT)
    direct_port = _port(spec, "directPort", DEFAULT_DIRECT_PORT)
    _check_distinct_ports({"port": port, "metricsPort": metrics_port, "directPort": direct_port})
    pull = str(spec.get("imagePullPolicy") or "IfNotPresent")
    if pull not in PULL_POLICIES:
        raise SpecError(
            "InvalidSpec", f"spec.imagePullPolicy {pull!r} is not one of {PULL_POLICIES}"
        )
    image = str(spec.get("image") or default_image).strip()
    if not image:
        raise SpecError("InvalidSpec", "spec.image is empty and the operator has no default image")
    return TFClusterSpec(
        name=name,
        namespace=namespace,
        image=image,
        jobs=jobs,
        client=_client_task(name, jobs),
        port=port,
        metrics_port=metrics_port,
        direct_port=direct_port,
        image_pull_policy=pull,
        suspend=bool(spec.get("suspend", False)),
        tls=parse_tls(spec.get("tls")),
        network_policy=parse_network_policy(spec.get("networkPolicy")),
    )


def _parse_job(position: int, raw: Any) -> JobSpec:
    where = f"spec.jobs[{position}]"
    if not isinstance(raw, Mapping):
        raise SpecError("InvalidSpec", f"{where} is not an object")
    name = str(raw.get("name", ""))
    _check_label(f"{where}.name", name, MAX_STATEFULSET_NAME)
    if name == CLIENT_SERVICE_SUFFIX:
        raise SpecError(
            "InvalidSpec",
            f"{where}.name {name!r} is reserved: the cluster's client Service is "
            f"<name>-{CLIENT_SERVICE_SUFFIX}",
        )
    replicas = _int(raw, "replicas", 1, where)
    gpus = _int(raw, "gpus", 0, where)
    if replicas < 0 or gpus < 0:
        raise SpecError("InvalidSpec", f"{where}: replicas and gpus must be >= 0")
    client_task = raw.get("clientTask")
    if client_task is not None:
        client_task = _int(raw, "clientTask", 0, where)
        if not 0 <= client_task < replicas:
            raise SpecError(
                "InvalidClientTask",
                f"{where}.clientTask is {client_task} but job {name!r} has only "
                f"{replicas} task(s): the index must be in 0..replicas-1",
            )
    resources = raw.get("resources") or {}
    if not isinstance(resources, Mapping):
        raise SpecError("InvalidSpec", f"{where}.resources is not an object")
    image = raw.get("image")
    return JobSpec(
        name=name,
        replicas=replicas,
        gpus=gpus,
        resources=dict(resources),
        template=_parse_overrides(raw.get("template") or {}, f"{where}.template"),
        client_task=client_task,
        image=str(image) if image else None,
    )


def _parse_overrides(raw: Any, where: str) -> PodOverrides:
    if not isinstance(raw, Mapping):
        raise SpecError("InvalidSpec", f"{where} is not an object")
    meta = raw.get("metadata") or {}
    pod = raw.get("spec") or {}
    env = tuple(_list(pod, "env", f"{where}.spec"))
    for var in env:
        if var.get("name") in RESERVED_ENV:
            raise SpecError(
                "ReservedEnv",
                f"{where}.spec.env sets {var.get('name')}, which the operator sets itself "
                f"(reserved: {', '.join(sorted(RESERVED_ENV))})",
            )
    affinity = pod.get("affinity")
    return PodOverrides(
        labels=_str_map(meta, "labels", f"{where}.metadata"),
        annotations=_str_map(meta, "annotations", f"{where}.metadata"),
        node_selector=_str_map(pod, "nodeSelector", f"{where}.spec"),
        tolerations=tuple(_list(pod, "tolerations", f"{where}.spec")),
        affinity=dict(affinity) if isinstance(affinity, Mapping) else None,
        env=env,
        volumes=tuple(_list(pod, "volumes", f"{where}.spec")),
        volume_mounts=tuple(_list(pod, "volumeMounts", f"{where}.spec")),
        service_account_name=pod.get("serviceAccountName") or None,
        priority_class_name=pod.get("priorityClassName") or None,
        image_pull_secrets=tuple(_list(pod, "imagePullSecrets", f"{where}.spec")),
    )


def _client_task(name: str, jobs: tuple[JobSpec, ...]) -> TaskRef:
    """The task whose master serves sessions: explicit, else chief:0, else worker:0."""
    chosen = [job for job in jobs if job.client_task is not None]
    if len(chosen) > 1:
        names = ", ".join(job.name for job in chosen)
        raise SpecError(
            "InvalidClientTask", f"clientTask is set on jobs {names}: at most one job may set it"
        )
    if chosen:
        return TaskRef(chosen[0].name, int(chosen[0].client_task or 0))
    by_name = {job.name: job for job in jobs}
    for default in ("chief", "worker"):
        job = by_name.get(default)
        if job is not None and job.replicas > 0:
            return TaskRef(default, 0)
    raise SpecError(
        "NoClientTask",
        f"TFCluster {name!r} has no task to serve sessions: add a 'chief' or 'worker' job "
        "with replicas >= 1, or set clientTask on one job",
    )


def _check_unique_jobs(jobs: tuple[JobSpec, ...]) -> None:
    seen: set[str] = set()
    for job in jobs:
        if job.name in seen:
            raise SpecError("InvalidSpec", f"spec.jobs names job {job.name!r} twice")
        seen.add(job.name)


def _check_label(what: str, value: str, limit: int) -> None:
    if not DNS_1035_LABEL.match(value):
        raise SpecError(
            "InvalidName",
            f"{what} {value!r} is not a DNS-1035 label (lower-case letters, digits and '-', "
            "starting with a letter and ending with a letter or digit)",
        )
    if len(value) > limit:
        raise SpecError(
            "NameTooLong",
            f"{what} {value!r} has {len(value)} characters; at most {limit} fit in the names "
            "and labels of the StatefulSet, its pods and Services",
        )


def _int(raw: Mapping[str, Any], key: str, default: int, where: str) -> int:
    value = raw.get(key, default)
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, int):
        raise SpecError("InvalidSpec", f"{where}.{key} is {value!r}, not an integer")
    return value


def _port(spec: Mapping[str, Any], key: str, default: int) -> int:
    port = _int(spec, key, default, "spec")
    if not 1 <= port <= 65535:
        raise SpecError("InvalidSpec", f"spec.{key} {port} is outside 1..65535")
    return port


def _check_distinct_ports(ports: Mapping[str, int]) -> None:
    """Every port a task serves is its own: two servers cannot listen on one."""
    seen: dict[int, str] = {}
    for key, port in ports.items():
        if port in seen:
            raise SpecError(
                "InvalidSpec",
                f"spec.{seen[port]} and spec.{key} are both {port}: they must differ",
            )
        seen[port] = key


def _list(raw: Mapping[str, Any], key: str, where: str = "spec") -> list[Any]:
    value = raw.get(key)
    if value is None:
        return []
    if not isinstance(value, list):
        raise SpecError("InvalidSpec", f"{where}.{key} is not a list")
    for item in value:
        if not isinstance(item, Mapping):
            raise SpecError("InvalidSpec", f"{where}.{key} holds {item!r}, not an object")
    return value


def _str_map(raw: Mapping[str, Any], key: str, where: str) -> dict[str, str]:
    value = raw.get(key) or {}
    if not isinstance(value, Mapping):
        raise SpecError("InvalidSpec", f"{where}.{key} is not a map of strings")
    return {str(k): str(v) for k, v in value.items()}
