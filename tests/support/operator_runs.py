"""Runs to completion (spec.runPolicy) on the test API server: a run as a user makes it, and
the kubelet's part for its pods (the Job controller creates them; no kubelet runs them)."""

from __future__ import annotations

import time
from typing import Any

from kubernetes import client
from kubernetes.client import ApiClient
from kubernetes.client.exceptions import ApiException

from support.operator_on_k8s import GROUP, VERSION, Cluster, wait_for

KUEUE = ("kueue.x-k8s.io", "v1beta2")
JOB_INDEX = "batch.kubernetes.io/job-completion-index"
CONTAINER = "tfcluster-server"


def run_spec(**run_policy: Any) -> dict[str, Any]:
    """A between-graph training run: 1 ps, 2 workers, each running the program."""
    program = {"command": ["python", "/app/train.py"], "args": ["--steps=100"]}
    return {
        "apiVersion": f"{GROUP}/{VERSION}",
        "kind": "TFCluster",
        "metadata": {"name": "run"},
        "spec": {
            "image": "tfcluster:test",
            "runPolicy": run_policy,
            "jobs": [
                {"name": "ps", "replicas": 1, **program},
                {"name": "worker", "replicas": 2, "workingDir": "/app", **program},
            ],
        },
    }


class Run(Cluster):
    """A run as a user sees it, and the kubelet's part for its pods."""

    def __init__(self, api: ApiClient, namespace: str, name: str = "run") -> None:
        super().__init__(api, namespace, name)
        self.batch = client.BatchV1Api(api)

    def job(self, job: str) -> Any:
        try:
            return self.batch.read_namespaced_job(f"{self.name}-{job}", self.ns)
        except ApiException as err:
            if err.status == 404:
                return None
            raise

    def task_pod(self, job: str, index: int) -> Any:
        """The live pod of one task (the Job controller names it <job>-<index>-<random>)."""
        for pod in self.pods(job):
            if pod.metadata.labels.get(JOB_INDEX) == str(index) and pod.status.phase not in (
                "Succeeded",
                "Failed",
            ):
                return pod
        return None

    def run_pods(self) -> int:
        """Be the kubelet: every live pod not yet Running starts running."""
        stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        done = 0
        for pod in self.pods():
            if pod.status.phase in ("Running", "Succeeded", "Failed"):
                continue
            with GoneOk():
                self.core.patch_namespaced_pod_status(
                    pod.metadata.name,
                    self.ns,
                    {
                        "status": {
                            "phase": "Running",
                            "conditions": [
                                {"type": t, "status": "True", "lastTransitionTime": stamp}
                                for t in ("PodScheduled", "Initialized", "ContainersReady", "Ready")
                            ],
                            "containerStatuses": [
                                container_status({"running": {"startedAt": stamp}})
                            ],
                        }
                    },
                )
                done += 1
        return done

    def exit(self, job: str, index: int, code: int, reason: str = "", message: str = "") -> str:
        """Be the kubelet: task ``job:index``'s container exited with ``code``."""
        pod = wait_for(f"a live pod of {job}:{index}", lambda: self.task_pod(job, index), 60)
        stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        terminated = {
            "exitCode": code,
            "reason": reason or ("Completed" if code == 0 else "Error"),
            "startedAt": stamp,
            "finishedAt": stamp,
        }
        if message:
            terminated["message"] = message
        self.core.patch_namespaced_pod_status(
            pod.metadata.name,
            self.ns,
            {
                "status": {
                    "phase": "Succeeded" if code == 0 else "Failed",
                    "conditions": [
                        {"type": t, "status": "False", "lastTransitionTime": stamp}
                        for t in ("ContainersReady", "Ready")
                    ],
                    "containerStatuses": [container_status({"terminated": terminated})],
                }
            },
        )
        return str(pod.metadata.name)

    def drive(self, what: str, check: Any, timeout: float = 90) -> dict[str, Any]:
        """Keep starting new pods (replacements) until the status passes ``check``."""

        def probe() -> dict[str, Any] | None:
            self.run_pods()
            status = self.status()
            return status if check(status) else None

        try:
            return wait_for(f"{self.name}: {what}", probe, timeout)
        except AssertionError as err:
            raise AssertionError(f"{err}; last status: {self.status()}") from None


class GoneOk:
    def __enter__(self) -> None:
        return None

    def __exit__(self, kind: Any, err: Any, tb: Any) -> bool:
        return isinstance(err, ApiException) and err.status in (404, 409, 422)


def container_status(state: dict[str, Any]) -> dict[str, Any]:
    return {
        "name": CONTAINER,
        "image": "tfcluster:test",
        "imageID": "",
        "ready": "running" in state,
        "started": "running" in state,
        "restartCount": 0,
        "state": state,
    }


def phase(name: str) -> Any:
    return lambda s: s.get("phase") == name


def started(api: ApiClient, ns: str, body: dict[str, Any]) -> Run:
    run = Run(api, ns)
    run.create(body)
    wait_for("3 pods from the Job controller", lambda: run.pods_if(3), 60)
    run.drive("Running", phase("Running"))
    return run


class Kueue:
    """Kueue's side of a Workload, written as its scheduler writes it."""

    def __init__(self, api: ApiClient, ns: str, name: str) -> None:
        self.custom = client.CustomObjectsApi(api)
        self.ns, self.name = ns, name

    def get(self) -> Any:
        return self.custom.get_namespaced_custom_object(*KUEUE, self.ns, "workloads", self.name)

    def exists(self) -> bool:
        try:
            self.get()
        except ApiException as err:
            if err.status == 404:
                return False
            raise
        return True

    def _apply_status(self, status: dict[str, Any], manager: str) -> None:
        self.custom.patch_namespaced_custom_object_status(
            *KUEUE,
            self.ns,
            "workloads",
            self.name,
            {
                "apiVersion": "/".join(KUEUE),
                "kind": "Workload",
                "metadata": {"name": self.name},
                "status": status,
            },
            field_manager=manager,
            force=True,
            _content_type="application/apply-patch+yaml",
        )

    def admit(self) -> None:
        stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        sets = self.get()["spec"]["podSets"]
        self._apply_status(
            {
                "admission": {
                    "clusterQueue": "cluster-queue",
                    "podSetAssignments": [
                        {"name": s["name"], "count": s["count"], "flavors": {"cpu": "default"}}
                        for s in sets
                    ],
                },
                "conditions": [
                    {
                        "type": kind,
                        "status": "True",
                        "reason": reason,
                        "message": "Quota reserved in ClusterQueue cluster-queue",
                        "lastTransitionTime": stamp,
                    }
                    for kind, reason in (
                        ("QuotaReserved", "QuotaReserved"),
                        ("Admitted", "Admitted"),
                    )
                ],
            },
            "kueue-admission",
        )

    def evict(self) -> None:
        stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        self._apply_status(
            {
                "conditions": [
                    {
                        "type": "Evicted",
                        "status": "True",
                        "reason": "Preempted",
                        "message": "Preempted to accommodate a higher priority Workload",
                        "lastTransitionTime": stamp,
                    }
                ]
            },
            "kueue",
        )

    def clear_eviction(self) -> None:
        stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        self._apply_status(
            {
                "conditions": [
                    {
                        "type": "Evicted",
                        "status": "False",
                        "reason": "Requeued",
                        "message": "requeued",
                        "lastTransitionTime": stamp,
                    }
                ]
            },
            "kueue",
        )

    def condition(self, kind: str) -> dict[str, Any]:
        for cond in self.get().get("status", {}).get("conditions") or []:
            if cond["type"] == kind:
                return dict(cond)
        return {}
