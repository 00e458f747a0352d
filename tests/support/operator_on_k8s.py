"""The operator on a real API server, for the k8s tests: run it as a process under a
ServiceAccount, manipulate TFClusters as a user does, and play the kubelet (no kubelet runs in
the tests)."""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any, TypeVar

import yaml
from kubernetes import client, utils
from kubernetes.client import ApiClient
from kubernetes.client.exceptions import ApiException
from prometheus_client.parser import text_string_to_metric_families

from support.operator_manifests import container_env

REPO = Path(__file__).resolve().parents[2]
MANIFESTS = REPO / "manifests"
CHART = REPO / "charts" / "tfcluster-operator"
GROUP, VERSION, PLURAL = "tfcluster.dev", "v1alpha1", "tfclusters"
OPERATOR_NS, OPERATOR_SA = "tfcluster-system", "tfcluster-operator"
POD_INDEX = "apps.kubernetes.io/pod-index"

T = TypeVar("T")


def wait_for(what: str, probe: Callable[[], T | None], timeout: float = 60.0) -> T:
    deadline = time.monotonic() + timeout
    while True:
        result = probe()
        if result is not None and result is not False:
            return result
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout:.0f} s waiting for {what}")
        time.sleep(0.2)


def load_yaml(path: Path) -> list[dict[str, Any]]:
    return [doc for doc in yaml.safe_load_all(path.read_text()) if doc]


def apply_manifests(api: ApiClient, *paths: Path) -> None:
    """kubectl-apply-like for a fresh cluster: create, tolerating what already exists."""
    for path in paths:
        for doc in load_yaml(path):
            try:
                utils.create_from_dict(api, doc)
            except utils.FailToCreateError as err:
                if any(e.status != 409 for e in err.api_exceptions):
                    raise


@dataclass
class Operator:
    process: subprocess.Popen[bytes]
    log: Path
    metrics_url: str
    health_url: str
    started: float  # time.time() when the process was started
    user: str = ""  # the API server's name for it: system:serviceaccount:<ns>:<name>

    def log_tail(self, lines: int = 60) -> str:
        return "\n".join(self.log.read_text(errors="replace").splitlines()[-lines:])

    def metrics(self) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
        with urllib.request.urlopen(self.metrics_url, timeout=5) as r:
            text = r.read().decode()
        return {
            (s.name, tuple(sorted(s.labels.items()))): s.value
            for family in text_string_to_metric_families(text)
            for s in family.samples
        }

    def metric(self, name: str, **labels: str) -> float:
        return self.metrics().get((name, tuple(sorted(labels.items()))), 0.0)


@contextlib.contextmanager
def running_operator(
    kubeconfig: Path,
    workdir: Path,
    free_port: Callable[[], int],
    *,
    namespaces: Sequence[str] = (),
    user: str = "",
    env: Mapping[str, str] | None = None,
    wait: bool = True,
) -> Iterator[Operator]:
    """``python -m tfcluster_operator.main`` acting as whoever ``kubeconfig`` names,
    cluster-wide or in ``namespaces``; returns once kopf's liveness endpoint answers (or at
    once, without ``wait``)."""
    metrics_port, health_port = free_port(), free_port()
    environ = {
        **os.environ,
        "KUBECONFIG": str(kubeconfig),
        "TFCLUSTER_OPERATOR_METRICS_PORT": str(metrics_port),
        "TFCLUSTER_OPERATOR_HEALTH_PORT": str(health_port),
        "TFCLUSTER_OPERATOR_DEFAULT_IMAGE": "tfcluster:test",
        "TFCLUSTER_OPERATOR_NAMESPACES": ",".join(namespaces),
        "TFCLUSTER_OPERATOR_VERBOSE": "1",
        **(env or {}),
    }
    environ.pop("KUBERNETES_SERVICE_HOST", None)  # never the in-cluster config of a CI pod
    log = workdir / "operator.log"
    started = time.time()
    with log.open("wb") as out:
        process = subprocess.Popen(
            [sys.executable, "-m", "tfcluster_operator.main"],
            env=environ,
            stdout=out,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
        )
    op = Operator(
        process,
        log,
        f"http://127.0.0.1:{metrics_port}/metrics",
        f"http://127.0.0.1:{health_port}/healthz",
        started,
        user,
    )

    def healthy() -> bool:
        if process.poll() is not None:
            raise AssertionError(f"the operator exited ({process.returncode}):\n{op.log_tail()}")
        try:
            with urllib.request.urlopen(op.health_url, timeout=2) as r:
                return bool(r.status == 200)
        except OSError:
            return False

    try:
        if wait:
            wait_for("the operator's liveness endpoint", healthy, 60)
        yield op
    finally:
        process.terminate()
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        if "Traceback" in op.log_tail(2000):
            print(f"operator log ({log}):\n{op.log_tail(200)}")


def service_account_user(namespace: str, name: str) -> str:
    return f"system:serviceaccount:{namespace}:{name}"


def wait_established(api: ApiClient) -> None:
    ext = client.ApiextensionsV1Api(api)

    def established() -> bool:
        crd = ext.read_custom_resource_definition(f"{PLURAL}.{GROUP}")
        return any(
            c.type == "Established" and c.status == "True" for c in crd.status.conditions or []
        )

    wait_for("the TFCluster CRD to be established", established, 30)


class Cluster:
    """A TFCluster as a user manipulates it (admin client), plus the kubelet's part."""

    def __init__(self, api: ApiClient, namespace: str, name: str = "example") -> None:
        self.api = api
        self.ns = namespace
        self.name = name
        self.custom = client.CustomObjectsApi(api)
        self.core = client.CoreV1Api(api)
        self.apps = client.AppsV1Api(api)

    def create(self, body: dict[str, Any]) -> dict[str, Any]:
        body = json.loads(json.dumps(body))
        body["metadata"]["name"] = self.name
        result: dict[str, Any] = self.custom.create_namespaced_custom_object(
            GROUP, VERSION, self.ns, PLURAL, body
        )
        return result

    def get(self) -> dict[str, Any]:
        result: dict[str, Any] = self.custom.get_namespaced_custom_object(
            GROUP, VERSION, self.ns, PLURAL, self.name
        )
        return result

    def patch_spec(self, spec: dict[str, Any]) -> None:
        self.custom.patch_namespaced_custom_object(
            GROUP, VERSION, self.ns, PLURAL, self.name, {"spec": spec}
        )

    def status(self) -> dict[str, Any]:
        return dict(self.get().get("status") or {})

    def wait_status(
        self, what: str, check: Callable[[dict[str, Any]], bool], timeout: float = 60
    ) -> dict[str, Any]:
        def probe() -> dict[str, Any] | None:
            status = self.status()
            return status if check(status) else None

        try:
            return wait_for(f"{self.name}: {what}", probe, timeout)
        except AssertionError as err:
            raise AssertionError(f"{err}; last status: {json.dumps(self.status())}") from None

    def sts(self, job: str) -> client.V1StatefulSet | None:
        try:
            return self.apps.read_namespaced_stateful_set(f"{self.name}-{job}", self.ns)
        except ApiException as err:
            if err.status == 404:
                return None
            raise

    def raw_sts(self, job: str) -> dict[str, Any]:
        resp = self.apps.read_namespaced_stateful_set(
            f"{self.name}-{job}", self.ns, _preload_content=False
        )
        data: dict[str, Any] = json.loads(resp.data)
        return data

    def service(self, name: str) -> client.V1Service | None:
        try:
            return self.core.read_namespaced_service(name, self.ns)
        except ApiException as err:
            if err.status == 404:
                return None
            raise

    def pods(self, job: str | None = None) -> list[client.V1Pod]:
        selector = f"tfcluster.dev/cluster={self.name}"
        if job:
            selector += f",tfcluster.dev/job={job}"
        items = self.core.list_namespaced_pod(self.ns, label_selector=selector).items
        return [p for p in items if p.metadata.deletion_timestamp is None]

    def pods_if(self, count: int) -> list[client.V1Pod] | None:
        pods = self.pods()
        return pods if len(pods) == count else None

    def mark_ready(self, job: str | None = None) -> int:
        """Be the kubelet: every pod (of ``job``) that is not Running and Ready becomes so."""
        stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        done = 0
        for pod in self.pods(job):
            conditions = {c.type: c.status for c in (pod.status.conditions or [])}
            if pod.status.phase == "Running" and conditions.get("Ready") == "True":
                continue
            status = {
                "phase": "Running",
                "conditions": [
                    {"type": t, "status": "True", "lastTransitionTime": stamp}
                    for t in ("PodScheduled", "Initialized", "ContainersReady", "Ready")
                ],
                "containerStatuses": [
                    {
                        "name": "tfcluster-server",
                        "image": pod.spec.containers[0].image,
                        "imageID": "",
                        "ready": True,
                        "started": True,
                        "restartCount": 0,
                        "state": {"running": {"startedAt": stamp}},
                    }
                ],
            }
            with contextlib.suppress(ApiException):  # a pod deleted meanwhile
                self.core.patch_namespaced_pod_status(
                    pod.metadata.name, self.ns, {"status": status}
                )
                done += 1
        return done

    def drive_until(
        self, what: str, check: Callable[[dict[str, Any]], bool], timeout: float = 90
    ) -> dict[str, Any]:
        """Keep marking pods ready (new ones appear during scale-ups and rollouts)."""

        def probe() -> dict[str, Any] | None:
            self.mark_ready()
            status = self.status()
            return status if check(status) else None

        try:
            return wait_for(f"{self.name}: {what}", probe, timeout)
        except AssertionError as err:
            raise AssertionError(f"{err}; last status: {json.dumps(self.status())}") from None

    def set_container(
        self,
        pod: str,
        *,
        restarts: int,
        state: dict[str, Any],
        last: dict[str, Any] | None = None,
        ready: bool = False,
    ) -> None:
        """Be the kubelet: report the task container of ``pod`` in ``state``."""
        stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        status = {
            "name": "tfcluster-server",
            "image": "tfcluster:test",
            "imageID": "",
            "ready": ready,
            "started": "running" in state,
            "restartCount": restarts,
            "state": state,
        }
        if last is not None:
            status["lastState"] = last
        conditions = [
            {"type": t, "status": "True" if ready else "False", "lastTransitionTime": stamp}
            for t in ("ContainersReady", "Ready")
        ]
        conditions.append({"type": "PodScheduled", "status": "True", "lastTransitionTime": stamp})
        self.core.patch_namespaced_pod_status(
            pod,
            self.ns,
            {
                "status": {
                    "phase": "Running",
                    "conditions": conditions,
                    "containerStatuses": [status],
                }
            },
        )

    def unschedulable(self, pod: str, message: str) -> None:
        """Be the scheduler: ``pod`` fits no node, for the reason ``message`` gives."""
        stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        self.core.patch_namespaced_pod_status(
            pod,
            self.ns,
            {
                "status": {
                    "phase": "Pending",
                    "conditions": [
                        {
                            "type": "PodScheduled",
                            "status": "False",
                            "reason": "Unschedulable",
                            "message": message,
                            "lastTransitionTime": stamp,
                        }
                    ],
                }
            },
        )

    def events(self) -> list[client.CoreV1Event]:
        return [
            e
            for e in self.core.list_namespaced_event(self.ns).items
            if e.involved_object.kind == "TFCluster" and e.involved_object.name == self.name
        ]


def example() -> dict[str, Any]:
    (doc,) = load_yaml(MANIFESTS / "examples" / "tfcluster.yaml")
    return doc


def condition(status: dict[str, Any], kind: str) -> dict[str, Any]:
    for cond in status.get("conditions") or []:
        if cond["type"] == kind:
            return dict(cond)
    raise AssertionError(f"no {kind} condition in {status}")


def tf_config_of(sts: client.V1StatefulSet, pod: client.V1Pod) -> dict[str, Any]:
    """TF_CONFIG as the kubelet would give this pod: the template's env, with the pod's
    own labels (set by the StatefulSet controller) behind the downward API."""
    env = client.ApiClient().sanitize_for_serialization(sts.spec.template.spec.containers[0].env)
    return dict(json.loads(container_env(env, pod.metadata.labels)["TF_CONFIG"]))


def running(status: dict[str, Any]) -> bool:
    return status.get("phase") == "Running"


def pod_env(sts: client.V1StatefulSet, pod: client.V1Pod) -> dict[str, str]:
    """The environment of the task container of ``pod``, as the kubelet would give it."""
    env = client.ApiClient().sanitize_for_serialization(sts.spec.template.spec.containers[0].env)
    return container_env(env, pod.metadata.labels)


def run_task_server(env: Mapping[str, str], termination_log: Path) -> tuple[int, str]:
    """Be the kubelet starting a task container: run ``tfcluster-server`` with the pod's
    environment and a termination message file; its exit code and the file's content."""
    termination_log.write_text("")
    environ = {k: v for k, v in os.environ.items() if not k.startswith("TFCLUSTER_")}
    # Every pod has its own ports; here the host's are shared: any free one will do.
    env = {**env, "TFCLUSTER_METRICS_PORT": "0", "TFCLUSTER_DIRECT_PORT": "0"}
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys; from tfcluster.cli import server_main; "
            "sys.exit(server_main.main([], termination_log=sys.argv[1]))",
            str(termination_log),
        ],
        env={**environ, **env},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    return done.returncode, termination_log.read_text()


def _stamp(text: str) -> float:
    return datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()


def requests_of(
    events: Sequence[dict[str, Any]],
    *,
    since: float = 0.0,
    until: float | None = None,
    namespace: str | None = None,
) -> list[dict[str, Any]]:
    """Audit log entries received in [since, until], in ``namespace`` when given."""
    found = []
    for event in events:
        at = _stamp(str(event["requestReceivedTimestamp"]))
        if at < since or (until is not None and at > until):
            continue
        if namespace is not None and event.get("objectRef", {}).get("namespace") != namespace:
            continue
        found.append(event)
    return found


def describe_request(event: Mapping[str, Any]) -> str:
    ref = event.get("objectRef") or {}
    what = "/".join(x for x in (ref.get("resource"), ref.get("subresource")) if x)
    code = (event.get("responseStatus") or {}).get("code")
    return f"{event.get('verb')} {what} {ref.get('namespace', '')}/{ref.get('name', '')} -> {code}"
