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
# Run-to-completion (spec.runPolicy): TFJob's names.
SUCCESS_POLICIES = ("ChiefOrWorker0", "AllWorkers")
CLEAN_POD_POLICIES = ("Running", "All", "None")
RESTART_POLICIES = ("Never", "OnFailure", "ExitCode")
DEFAULT_RESTART_POLICY = "ExitCode"
DEFAULT_BACKOFF_LIMIT = 6
# Jobs a run waits for: the chief (TF's "master" of old) decides success, else worker 0.
CHIEF_JOBS = ("chief", "master")
EVALUATOR_JOB = "evaluator"
GANG_SCHEDULERS = ("Coscheduling", "Volcano")
# The scheduler each gang needs by default (its usual install's name).
DEFAULT_SCHEDULER_NAMES = {"Coscheduling": "scheduler-plugins-scheduler", "Volcano": "volcano"}
KUEUE_QUEUE_LABEL = "kueue.x-k8s.io/queue-name"
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
    # The program a task runs in place of tfcluster-server (None: the task server).
    command: tuple[str, ...] | None = None
    args: tuple[str, ...] | None = None
    working_dir: str | None = None
    # Run-to-completion only: what a failed task gets (RESTART_POLICIES).
    restart_policy: str = DEFAULT_RESTART_POLICY
    # A PodDisruptionBudget for the job's pods: {"minAvailable"|"maxUnavailable": n}.
    disruption_budget: Mapping[str, Any] | None = None
    # Replicas may change during training: the other jobs' TF_CONFIG leaves this job out (their
    # tasks learn its tasks from the sessions that reach them), so scaling it rolls only its pods.
    elastic: bool = False

    @property
    def runs_program(self) -> bool:
        return self.command is not None or self.args is not None


@dataclass(frozen=True)
class RunPolicy:
    """spec.runPolicy: the TFCluster runs to completion (Indexed Jobs, not StatefulSets)."""

    success_policy: str = "ChiefOrWorker0"
    clean_pod_policy: str = "Running"
    backoff_limit: int = DEFAULT_BACKOFF_LIMIT
    active_deadline_seconds: int | None = None
    ttl_seconds_after_finished: int | None = None


@dataclass(frozen=True)
class Scheduling:
    """spec.scheduling: a PodGroup for a gang scheduler, so that all tasks start or none."""

    gang: str  # GANG_SCHEDULERS
    scheduler_name: str
    queue: str | None = None
    priority_class_name: str | None = None
    schedule_timeout_seconds: int | None = None


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
    run_policy: RunPolicy | None = None
    scheduling: Scheduling | None = None
    # Kueue: the LocalQueue that admits the whole TFCluster as one Workload.
    queue_name: str | None = None

    @property
    def runs_to_completion(self) -> bool:
        return self.run_policy is not None

    @property
    def total_tasks(self) -> int:
        return sum(job.replicas for job in self.jobs)

    def decider(self) -> TaskRef:
        """The task whose exit 0 ends a run as Succeeded: chief 0, else worker 0."""
        by_name = {job.name: job for job in self.jobs}
        for name in (*CHIEF_JOBS, "worker"):
            job = by_name.get(name)
            if job is not None and job.replicas > 0:
                return TaskRef(name, 0)
        raise KeyError("no chief or worker")

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
    name: str,
    namespace: str,
    spec: Mapping[str, Any],
    *,
    default_image: str,
    labels: Mapping[str, str] | None = None,
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
    run_policy = _parse_run_policy(spec.get("runPolicy"))
    deciders = {*CHIEF_JOBS, "worker"}
    if run_policy is not None and not any(j.name in deciders and j.replicas for j in jobs):
        raise SpecError(
            "NoSuccessTask",
            "spec.runPolicy is set but no job decides success: add a 'chief' (or "
            "'master') or a 'worker' job with replicas >= 1",
        )
    labels = labels or {}
    parsed = TFClusterSpec(
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
        run_policy=run_policy,
        scheduling=_parse_scheduling(spec.get("scheduling")),
        queue_name=labels.get(KUEUE_QUEUE_LABEL) or None,
    )
    _check_mode(parsed, raw_jobs)
    return parsed


def _check_mode(spec: TFClusterSpec, raw_jobs: list[Any]) -> None:
    """What only one of the two modes can do."""
    elastic = [job.name for job in spec.jobs if job.elastic]
    if elastic and spec.runs_to_completion:
        raise SpecError(
            "InvalidSpec",
            f"jobs {elastic} are elastic but spec.runPolicy is set: an Indexed Job's size is "
            "fixed; elastic jobs need a long-running TFCluster",
        )
    if elastic and len(elastic) == len([job for job in spec.jobs if job.replicas > 0]):
        raise SpecError(
            "InvalidSpec",
            f"every job ({elastic}) is elastic: at least one job (the ps) must keep its size",
        )
    if spec.runs_to_completion:
        run = spec.run_policy
        all_workers = run is not None and run.success_policy == "AllWorkers"
        if all_workers and not any(j.name == "worker" and j.replicas > 0 for j in spec.jobs):
            raise SpecError(
                "NoSuccessTask",
                "spec.runPolicy.successPolicy AllWorkers needs a 'worker' job with replicas >= 1",
            )
        return
    for position, raw in enumerate(raw_jobs):
        if raw.get("restartPolicy") is not None:
            raise SpecError(
                "InvalidSpec",
                f"spec.jobs[{position}].restartPolicy is set but spec.runPolicy is not: a "
                "long-running TFCluster's tasks always restart (set spec.runPolicy to run "
                "to completion)",
            )
    if spec.queue_name:
        raise SpecError(
            "InvalidSpec",
            f"the label {KUEUE_QUEUE_LABEL} asks Kueue to admit this TFCluster, but only a "
            "run (spec.runPolicy) can be queued: a long-running cluster never finishes to "
            "give its quota back",
        )


def _parse_run_policy(raw: Any) -> RunPolicy | None:
    if raw is None:
        return None
    where = "spec.runPolicy"
    if not isinstance(raw, Mapping):
        raise SpecError("InvalidSpec", f"{where} is not an object")
    success = str(raw.get("successPolicy") or "ChiefOrWorker0")
    clean = str(raw.get("cleanPodPolicy") or "Running")
    _check_choice(f"{where}.successPolicy", success, SUCCESS_POLICIES)
    _check_choice(f"{where}.cleanPodPolicy", clean, CLEAN_POD_POLICIES)
    backoff = _int(raw, "backoffLimit", DEFAULT_BACKOFF_LIMIT, where)
    deadline = raw.get("activeDeadlineSeconds")
    ttl = raw.get("ttlSecondsAfterFinished")
    policy = RunPolicy(
        success_policy=success,
        clean_pod_policy=clean,
        backoff_limit=backoff,
        active_deadline_seconds=None
        if deadline is None
        else _int(raw, "activeDeadlineSeconds", 0, where),
        ttl_seconds_after_finished=None
        if ttl is None
        else _int(raw, "ttlSecondsAfterFinished", 0, where),
    )
    if policy.backoff_limit < 0 or (policy.ttl_seconds_after_finished or 0) < 0:
        raise SpecError(
            "InvalidSpec", f"{where}: backoffLimit and ttlSecondsAfterFinished must be >= 0"
        )
    if policy.active_deadline_seconds is not None and policy.active_deadline_seconds < 1:
        raise SpecError("InvalidSpec", f"{where}.activeDeadlineSeconds must be >= 1")
    return policy


def _parse_scheduling(raw: Any) -> Scheduling | None:
    if raw is None:
        return None
    where = "spec.scheduling"
    if not isinstance(raw, Mapping):
        raise SpecError("InvalidSpec", f"{where} is not an object")
    gang = str(raw.get("gang") or "")
    _check_choice(f"{where}.gang", gang, GANG_SCHEDULERS)
    timeout = raw.get("scheduleTimeoutSeconds")
    return Scheduling(
        gang=gang,
        scheduler_name=str(raw.get("schedulerName") or DEFAULT_SCHEDULER_NAMES[gang]),
        queue=str(raw["queue"]) if raw.get("queue") else None,
        priority_class_name=str(raw["priorityClassName"]) if raw.get("priorityClassName") else None,
        schedule_timeout_seconds=None
        if timeout is None
        else _int(raw, "scheduleTimeoutSeconds", 0, where),
    )


def _check_choice(where: str, value: str, choices: tuple[str, ...]) -> None:
    if value not in choices:
        raise SpecError("InvalidSpec", f"{where} {value!r} is not one of {', '.join(choices)}")


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
    working_dir = raw.get("workingDir")
    restart = str(raw.get("restartPolicy") or DEFAULT_RESTART_POLICY)
    _check_choice(f"{where}.restartPolicy", restart, RESTART_POLICIES)
    return JobSpec(
        name=name,
        replicas=replicas,
        gpus=gpus,
        resources=dict(resources),
        template=_parse_overrides(raw.get("template") or {}, f"{where}.template"),
        client_task=client_task,
        image=str(image) if image else None,
        command=_strings(raw, "command", where),
        args=_strings(raw, "args", where),
        working_dir=str(working_dir) if working_dir else None,
        restart_policy=restart,
        disruption_budget=_budget(raw.get("podDisruptionBudget"), f"{where}.podDisruptionBudget"),
        elastic=_bool(raw, "elastic", where),
    )


def _bool(raw: Mapping[str, Any], key: str, where: str) -> bool:
    value = raw.get(key, False)
    if not isinstance(value, bool):
        raise SpecError("InvalidSpec", f"{where}.{key} is {value!r}, not true or false")
    return value


def _strings(raw: Mapping[str, Any], key: str, where: str) -> tuple[str, ...] | None:
    value = raw.get(key)
    if value is None:
        return None
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise SpecError("InvalidSpec", f"{where}.{key} is not a list of strings")
    return tuple(value)


def _budget(raw: Any, where: str) -> dict[str, Any] | None:
    if raw is None:
        return None
    if not isinstance(raw, Mapping):
        raise SpecError("InvalidSpec", f"{where} is not an object")
    keys = [k for k in ("minAvailable", "maxUnavailable") if raw.get(k) is not None]
    if len(keys) != 1:
        raise SpecError(
            "InvalidSpec", f"{where} must set exactly one of minAvailable and maxUnavailable"
        )
    return {keys[0]: raw[keys[0]]}


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
