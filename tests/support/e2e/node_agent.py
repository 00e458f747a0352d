"""The e2e cluster's node: a test stand-in for the kubelet (``python -m support.e2e.node_agent``).

It registers a Node, watches the pods bound to it and runs each container's command as a
local process (``support.e2e.pod_exec``): the image ``tfcluster:*`` is the project's
virtual environment (its console scripts are the image's entry points), other images are
refused with ``ErrImagePull`` as a kubelet that cannot pull them would. Per pod: a network
namespace on the node's bridge (``support.e2e.network``), ``/etc/resolv.conf`` pointing at
the cluster DNS, ``/etc/hosts`` and the hostname; volumes (emptyDir, Secret, ConfigMap,
projected ServiceAccount tokens, downward API, hostPath) bound into each container's mount
namespace. Containers restart by ``restartPolicy`` with the kubelet's back-off and count
restarts; readiness, liveness and startup probes run as the kubelet's; the pod's status
(phase, conditions, podIP, containerStatuses) is written as the kubelet writes it; a pod
being deleted gets SIGTERM, its grace period, then SIGKILL, and is then removed.

Not a kubelet: no cgroups (resources are only reported), no image file system (every
container sees the host's files, under its own mounts), processes run as root (the
interpreter of the project's venv may live under /root), and ``kubectl logs``/``exec`` do
not work (logs are files in the agent's folder: ``pods/<ns>_<name>/<container>.log``).
"""

from __future__ import annotations

import argparse
import base64
import contextlib
import ctypes
import functools
import json
import logging
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from .container_env import ConfigError, command_line, resolve_env, service_env
from .kube_rest import ApiError, KubeRest
from .network import NodeNetwork, PodNetwork
from .probes import Prober

log = logging.getLogger("node-agent")

TERMINATION_MESSAGE_LIMIT = 4096
BACKOFF_INITIAL = 10.0  # the kubelet's container restart back-off: 10 s doubling to 300 s,
BACKOFF_MAX = 300.0  # reset after 10 minutes of running well
BACKOFF_RESET = 600.0
SA_TOKEN_SECONDS = 3607

_PR_SET_PDEATHSIG = 1
_libc: Any = ctypes.CDLL(None, use_errno=True)


def _die_with_parent() -> None:
    _libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)


def now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


@dataclass
class AgentConfig:
    node_name: str
    kubeconfig: str
    workdir: str
    network_pid: int
    network_index: int
    dns_ip: str
    cluster_domain: str
    venv: str  # the image tfcluster:* : its bin/ leads PATH
    image_env: dict[str, str]
    tests_dir: str  # where support.e2e.pod_exec is imported from
    capacity: dict[str, str] = field(
        default_factory=lambda: {"cpu": "8", "memory": "32Gi", "pods": "110"}
    )


# ---------------------------------------------------------------------------- containers


class Container:
    """One container of a pod: its process, restarts, probes and status."""

    def __init__(self, pod: PodWorker, spec: dict[str, Any], init: bool = False) -> None:
        self.pod = pod
        self.spec = spec
        self.name: str = spec["name"]
        self.init = init
        self.process: subprocess.Popen[bytes] | None = None
        self.restart_count = 0
        self.state: dict[str, Any] = {"waiting": {"reason": "ContainerCreating"}}
        self.last_state: dict[str, Any] = {}
        self.ready = False
        self.started = False
        self.env: dict[str, str] = {}
        self.probers: list[Prober] = []
        self.stopping = threading.Event()
        self.liveness_failed = threading.Event()
        self.done = threading.Event()  # exited and will not restart
        self.exit_code: int | None = None
        self.log_path = pod.dir / f"{self.name}.log"
        self.termination_log = pod.dir / f"{self.name}.termination-log"
        self.ports = {
            p["name"]: int(p["containerPort"]) for p in spec.get("ports", []) if p.get("name")
        }

    def status(self) -> dict[str, Any]:
        status: dict[str, Any] = {
            "name": self.name,
            "image": self.spec.get("image", ""),
            "imageID": f"tfcluster-e2e://{self.pod.agent.config.venv}",
            "ready": self.ready,
            "restartCount": self.restart_count,
            "started": self.started,
            "state": self.state,
            "lastState": self.last_state,
        }
        if self.process is not None:
            status["containerID"] = f"tfcluster-e2e://{self.process.pid}"
        return status

    def _should_restart(self, code: int) -> bool:
        if self.pod.deleting.is_set() or self.stopping.is_set():
            return False
        policy = self.pod.spec.get("restartPolicy", "Always")
        if self.init:
            return code != 0 and policy != "Never"
        return policy == "Always" or (policy == "OnFailure" and code != 0)

    def run(self) -> None:
        """Start, wait, restart (with back-off) until the container is done for good."""
        backoff = BACKOFF_INITIAL
        while True:
            try:
                self._start()
            except ConfigError as err:
                self.state = {
                    "waiting": {"reason": "CreateContainerConfigError", "message": str(err)}
                }
                self.pod.changed()
                if self.pod.deleting.wait(5):
                    break
                continue
            started = time.monotonic()
            code = self._wait()
            self._stop_probers()
            if not self._should_restart(code):
                break
            if time.monotonic() - started > BACKOFF_RESET:
                backoff = BACKOFF_INITIAL
            self.state = {
                "waiting": {
                    "reason": "CrashLoopBackOff",
                    "message": f"back-off {int(backoff)}s restarting failed container="
                    f"{self.name} pod={self.pod.name}_{self.pod.namespace}",
                }
            }
            self.pod.changed()
            if self.pod.deleting.wait(backoff):
                break
            backoff = min(backoff * 2, BACKOFF_MAX)
            self.restart_count += 1
        self.done.set()
        self.pod.changed()

    def _start(self) -> None:
        agent = self.pod.agent
        image = self.spec.get("image", "")
        if not image.startswith("tfcluster:"):
            raise ConfigError(f"image {image!r} is not available on this node (only tfcluster:*)")
        base = {**agent.image_env(), **self.pod.service_env, "HOSTNAME": self.pod.hostname}
        self.env = resolve_env(
            self.pod.pod, self.spec, base, self.pod.lookup, agent.config.capacity
        )
        argv = command_line(self.spec, ["tfcluster-server"], self.env)
        mounts = self.pod.mounts_for(self.spec)
        self.termination_log.write_text("")
        launch = {
            "netns": str(self.pod.net.netns_path),
            "hostname": self.pod.hostname,
            "mounts": mounts,
            "termination_log": str(self.termination_log),
            "termination_path": self.spec.get("terminationMessagePath", "/dev/termination-log"),
            "argv": argv,
            "env": self.env,
            "cwd": self.spec.get("workingDir") or "/",
        }
        spec_file = self.pod.dir / f"{self.name}.launch.json"
        spec_file.write_text(json.dumps(launch))
        self.stopping.clear()
        self.liveness_failed.clear()
        with self.log_path.open("ab") as out:
            out.write(f"---- {now()} start {argv!r}\n".encode())
            out.flush()
            self.process = subprocess.Popen(
                [sys.executable, "-m", "support.e2e.pod_exec", str(spec_file)],
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=subprocess.STDOUT,
                env={"PYTHONPATH": agent.config.tests_dir, "PATH": os.defpath},
                cwd="/",
                start_new_session=True,
                preexec_fn=_die_with_parent,
            )
        self.state = {"running": {"startedAt": now()}}
        self.ready = False
        self.started = "startupProbe" not in self.spec
        self._start_probers()
        self.pod.changed()

    def _start_probers(self) -> None:
        assert self.process is not None
        pid = self.process.pid
        for kind in ("readinessProbe", "livenessProbe", "startupProbe"):
            probe = self.spec.get(kind)
            if not probe:
                continue
            prober = Prober(
                probe,
                self.pod.net.ip,
                self.ports,
                pid,
                self.env,
                on_change=functools.partial(self._probed, kind),
                initial=kind == "livenessProbe",
            )
            self.probers.append(prober)
            prober.start()
        if "readinessProbe" not in self.spec:
            self.ready = True

    def _stop_probers(self) -> None:
        for prober in self.probers:
            prober.stop()
        self.probers = []

    def _probed(self, kind: str, ok: bool, message: str) -> None:
        if kind == "readinessProbe":
            self.ready = ok
            if not ok:
                self.pod.event("Warning", "Unhealthy", f"Readiness probe failed: {message}")
        elif kind == "startupProbe" and ok:
            self.started = True
        elif kind == "livenessProbe" and not ok:
            self.pod.event("Warning", "Unhealthy", f"Liveness probe failed: {message}")
            self.pod.event(
                "Normal",
                "Killing",
                f"Container {self.name} failed liveness probe, will be restarted",
            )
            self.liveness_failed.set()
            # Killed to be restarted (by restartPolicy), not stopped for good.
            threading.Thread(
                target=self.kill, args=(self.pod.grace_seconds(), False), daemon=True
            ).start()
        self.pod.changed()

    def _wait(self) -> int:
        assert self.process is not None
        started_at = self.state.get("running", {}).get("startedAt", now())
        code = self.process.wait()
        exit_code = 128 - code if code < 0 else code  # killed by signal N: 128 + N
        self.exit_code = exit_code
        reason = "Completed" if exit_code == 0 else "Error"
        message = self._termination_message(exit_code)
        terminated = {
            "exitCode": exit_code,
            "reason": reason,
            "startedAt": started_at,
            "finishedAt": now(),
            "containerID": f"tfcluster-e2e://{self.process.pid}",
        }
        if message:
            terminated["message"] = message
        self.state = {"terminated": terminated}
        self.last_state = {"terminated": terminated}
        self._note(f"exited with code {exit_code}")
        self.ready = False
        self.pod.changed()
        return exit_code

    def _termination_message(self, exit_code: int) -> str:
        with contextlib.suppress(OSError):
            text = self.termination_log.read_text(errors="replace").strip()
            if text:
                return text[:TERMINATION_MESSAGE_LIMIT]
        policy = self.spec.get("terminationMessagePolicy", "File")
        if policy == "FallbackToLogsOnError" and exit_code != 0:
            with contextlib.suppress(OSError):
                lines = self.log_path.read_text(errors="replace").splitlines()[-80:]
                return "\n".join(lines)[-2048:]
        return ""

    def _note(self, text: str) -> None:
        """A line of the agent's own in the container's log (what ``kubectl describe`` shows)."""
        with contextlib.suppress(OSError), self.log_path.open("a") as out:
            out.write(f"---- {now()} {text}\n")

    def kill(self, grace: float, final: bool = True) -> None:
        """SIGTERM (after an exec preStop hook), ``grace`` seconds, SIGKILL; ``final``: the
        container is not to be restarted."""
        if final:
            self.stopping.set()
        process = self.process
        if process is None or process.poll() is not None:
            return
        deadline = time.monotonic() + grace
        hook = self.spec.get("lifecycle", {}).get("preStop", {}).get("exec")
        if hook:
            with contextlib.suppress(Exception):
                from .probes import exec_probe

                exec_probe(process.pid, list(hook["command"]), self.env, grace)
        self._note(f"SIGTERM (grace period {grace:g} s)")
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=max(0.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            self._note("SIGKILL (the grace period is over)")
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)
            process.wait()
        # Whatever the container left in its process group goes with it.
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)


# ---------------------------------------------------------------------------- pods


class PodWorker:
    """One pod on this node: its sandbox (network namespace, files), containers and status."""

    def __init__(self, agent: NodeAgent, pod: dict[str, Any]) -> None:
        self.agent = agent
        self.pod = pod
        meta = pod["metadata"]
        self.name: str = meta["name"]
        self.namespace: str = meta["namespace"]
        self.uid: str = meta["uid"]
        self.spec: dict[str, Any] = pod["spec"]
        self.hostname: str = self.spec.get("hostname") or self.name
        self.dir = (
            Path(agent.config.workdir) / "pods" / f"{self.namespace}_{self.name}_{self.uid[:8]}"
        )
        self.dir.mkdir(parents=True, exist_ok=True)
        self.deleting = threading.Event()
        self.deletion_grace: float | None = None
        self.net: PodNetwork
        self.service_env: dict[str, str] = {}
        self.containers: list[Container] = []
        self.init_containers: list[Container] = []
        self.initialized = False
        self.start_time = now()
        self._changed = threading.Condition()
        self._dirty = True
        self._conditions: dict[str, dict[str, Any]] = {}
        self._last_status: dict[str, Any] | None = None
        self.thread = threading.Thread(target=self.run, daemon=True, name=f"pod-{self.name}")

    # ------------------------------------------------------------------ helpers

    @property
    def path(self) -> str:
        return f"/api/v1/namespaces/{self.namespace}/pods/{self.name}"

    def changed(self) -> None:
        with self._changed:
            self._dirty = True
            self._changed.notify_all()

    def event(self, kind: str, reason: str, message: str) -> None:
        self.agent.event(self.pod, kind, reason, message)

    def grace_seconds(self) -> float:
        if self.deletion_grace is not None:
            return self.deletion_grace
        return float(self.spec.get("terminationGracePeriodSeconds", 30))

    def lookup(self, kind: str, name: str) -> dict[str, Any] | None:
        plural = {"Secret": "secrets", "ConfigMap": "configmaps"}[kind]
        try:
            return self.agent.api.get(f"/api/v1/namespaces/{self.namespace}/{plural}/{name}")
        except ApiError as err:
            if err.status == 404:
                return None
            raise

    # ------------------------------------------------------------------ sandbox

    def _write_etc(self) -> None:
        config = self.agent.config
        domain = config.cluster_domain
        search = [f"{self.namespace}.svc.{domain}", f"svc.{domain}", domain]
        (self.dir / "resolv.conf").write_text(
            f"search {' '.join(search)}\nnameserver {config.dns_ip}\noptions ndots:5\n"
        )
        fqdn = self.hostname
        subdomain = self.spec.get("subdomain")
        if subdomain:
            fqdn = f"{self.hostname}.{subdomain}.{self.namespace}.svc.{domain}"
        names = f"{fqdn}\t{self.hostname}" if fqdn != self.hostname else self.hostname
        (self.dir / "hosts").write_text(
            "# Kubernetes-managed hosts file (the e2e node agent).\n"
            "127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\n"
            f"{self.net.ip}\t{names}\n"
        )
        (self.dir / "hostname").write_text(self.hostname + "\n")

    def _service_env(self) -> dict[str, str]:
        services = [self.agent.api.get("/api/v1/namespaces/default/services/kubernetes")]
        if self.spec.get("enableServiceLinks", True):
            listed = self.agent.api.get(f"/api/v1/namespaces/{self.namespace}/services")
            services = [s for s in listed.get("items", []) if s["metadata"]["name"] != "kubernetes"]
            services.append(self.agent.api.get("/api/v1/namespaces/default/services/kubernetes"))
        return service_env(services)

    def _volume_dir(self, name: str) -> Path:
        path = self.dir / "volumes" / name
        path.mkdir(parents=True, exist_ok=True)
        path.chmod(0o777)
        return path

    def _write_files(self, folder: Path, files: Mapping[str, bytes], mode: int) -> None:
        for rel, data in files.items():
            target = folder / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
            target.chmod(mode)

    def _items(
        self, data: Mapping[str, bytes], items: list[dict[str, Any]] | None
    ) -> dict[str, bytes]:
        if not items:
            return dict(data)
        return {item["path"]: data[item["key"]] for item in items if item["key"] in data}

    def _object_files(self, kind: str, source: Mapping[str, Any]) -> dict[str, bytes]:
        name = source.get("secretName") if kind == "Secret" else source.get("name")
        obj = self.lookup(kind, str(name))
        if obj is None:
            if source.get("optional"):
                return {}
            raise ConfigError(f'{kind.lower()} "{name}" not found')
        if kind == "Secret":
            data = {k: base64.b64decode(v) for k, v in (obj.get("data") or {}).items()}
        else:
            data = {k: v.encode() for k, v in (obj.get("data") or {}).items()}
            data.update({k: base64.b64decode(v) for k, v in (obj.get("binaryData") or {}).items()})
        return self._items(data, source.get("items"))

    def _downward_files(self, items: list[dict[str, Any]]) -> dict[str, bytes]:
        from .container_env import field_value

        files: dict[str, bytes] = {}
        for item in items:
            if "fieldRef" in item:
                value = field_value(self.pod, item["fieldRef"]["fieldPath"])
            else:
                raise ConfigError(f"unsupported downwardAPI item {sorted(item)}")
            files[item["path"]] = value.encode()
        return files

    def _token(self, source: Mapping[str, Any]) -> bytes:
        account = self.spec.get("serviceAccountName", "default")
        request = {
            "apiVersion": "authentication.k8s.io/v1",
            "kind": "TokenRequest",
            "spec": {
                "audiences": [source["audience"]] if source.get("audience") else None,
                "expirationSeconds": int(source.get("expirationSeconds", SA_TOKEN_SECONDS)),
                "boundObjectRef": {
                    "apiVersion": "v1",
                    "kind": "Pod",
                    "name": self.name,
                    "uid": self.uid,
                },
            },
        }
        reply = self.agent.api.request(
            "POST",
            f"/api/v1/namespaces/{self.namespace}/serviceaccounts/{account}/token",
            request,
        )
        return str(reply["status"]["token"]).encode()

    def _prepare_volumes(self) -> None:
        self.volume_paths: dict[str, str] = {}
        for volume in self.spec.get("volumes", []):
            name = volume["name"]
            if "hostPath" in volume:
                self.volume_paths[name] = volume["hostPath"]["path"]
                continue
            folder = self._volume_dir(name)
            self.volume_paths[name] = str(folder)
            mode = 0o644
            if "emptyDir" in volume:
                continue
            if "secret" in volume:
                files = self._object_files("Secret", volume["secret"])
            elif "configMap" in volume:
                files = self._object_files("ConfigMap", volume["configMap"])
            elif "downwardAPI" in volume:
                files = self._downward_files(volume["downwardAPI"].get("items", []))
            elif "projected" in volume:
                files = {}
                for source in volume["projected"].get("sources", []):
                    if "serviceAccountToken" in source:
                        token = source["serviceAccountToken"]
                        files[token["path"]] = self._token(token)
                    elif "configMap" in source:
                        files.update(self._object_files("ConfigMap", source["configMap"]))
                    elif "secret" in source:
                        secret = dict(source["secret"])
                        secret["secretName"] = secret.get("name")
                        files.update(self._object_files("Secret", secret))
                    elif "downwardAPI" in source:
                        files.update(self._downward_files(source["downwardAPI"].get("items", [])))
            else:
                raise ConfigError(f"unsupported volume {name}: {sorted(volume)}")
            self._write_files(folder, files, mode)

    def mounts_for(self, container: Mapping[str, Any]) -> list[dict[str, Any]]:
        mounts = [
            {"source": str(self.dir / "resolv.conf"), "target": "/etc/resolv.conf"},
            {"source": str(self.dir / "hosts"), "target": "/etc/hosts"},
            {"source": str(self.dir / "hostname"), "target": "/etc/hostname"},
        ]
        for mount in container.get("volumeMounts", []):
            source = self.volume_paths.get(mount["name"])
            if source is None:
                raise ConfigError(f"volume {mount['name']!r} not found")
            if mount.get("subPath"):
                source = str(Path(source) / mount["subPath"])
            self.agent.make_mount_point(mount["mountPath"], Path(source).is_dir())
            mounts.append(
                {"source": source, "target": mount["mountPath"], "readOnly": mount.get("readOnly")}
            )
        return mounts

    # ------------------------------------------------------------------ lifecycle

    def run(self) -> None:
        try:
            self._run()
        except Exception:
            log.exception("pod %s/%s failed in the agent", self.namespace, self.name)
        finally:
            self.agent.forget(self)

    def _run(self) -> None:
        self.net = self.agent.network.add_pod(self.uid)
        try:
            self._write_etc()
            self.service_env = self._service_env()
            self._set_condition("PodReadyToStartContainers", True)
            self.init_containers = [
                Container(self, c, init=True) for c in self.spec.get("initContainers", [])
            ]
            self.containers = [Container(self, c) for c in self.spec["containers"]]
            try:
                self._prepare_volumes()
            except (ConfigError, ApiError) as err:
                for c in self.containers:
                    c.state = {
                        "waiting": {"reason": "CreateContainerConfigError", "message": str(err)}
                    }
                self.event("Warning", "FailedMount", str(err))
                self._publish()
                self.deleting.wait()
                return
            self._publish()
            for init in self.init_containers:
                init.run()
                if init.exit_code != 0 or self.deleting.is_set():
                    self._publish()
                    self._wait_for_deletion()
                    return
            self.initialized = True
            threads = [
                threading.Thread(target=c.run, daemon=True, name=f"{self.name}/{c.name}")
                for c in self.containers
            ]
            for t in threads:
                t.start()
            while not self.deleting.is_set() and not all(c.done.is_set() for c in self.containers):
                self._publish()
                with self._changed:
                    if not self._dirty:
                        self._changed.wait(1.0)
            if self.deleting.is_set():
                self._terminate()
            for t in threads:
                t.join(timeout=5)
            self._publish()
            self._wait_for_deletion()
        finally:
            self.agent.network.remove_pod(self.uid)

    def _wait_for_deletion(self) -> None:
        """A finished pod keeps its status until someone deletes it; then it goes."""
        self.deleting.wait()
        self._terminate()

    def _terminate(self) -> None:
        grace = self.grace_seconds()
        killers = [threading.Thread(target=c.kill, args=(grace,)) for c in self.containers]
        for k in killers:
            k.start()
        for k in killers:
            k.join()
        for c in self.containers:
            c.done.wait(timeout=10)
        self._publish()
        # The kubelet's last word: the pod is gone from this node, delete it for good.
        with contextlib.suppress(ApiError):
            self.agent.api.request(
                "DELETE",
                self.path,
                {"gracePeriodSeconds": 0, "preconditions": {"uid": self.uid}},
                ok=(200, 202, 404, 409),
            )

    def request_deletion(self, grace: float) -> None:
        self.deletion_grace = grace
        self.deleting.set()
        self.changed()

    # ------------------------------------------------------------------ status

    def _set_condition(self, kind: str, value: bool, reason: str = "") -> None:
        text = "True" if value else "False"
        current = self._conditions.get(kind)
        if current and current["status"] == text:
            return
        condition = {
            "type": kind,
            "status": text,
            "lastTransitionTime": now(),
            "lastProbeTime": None,
        }
        if reason:
            condition["reason"] = reason
        self._conditions[kind] = condition

    def _phase(self) -> str:
        if not self.initialized:
            if any(c.done.is_set() and c.exit_code not in (0, None) for c in self.init_containers):
                return "Failed"
            return "Pending"
        if all(c.done.is_set() for c in self.containers):
            return "Succeeded" if all(c.exit_code == 0 for c in self.containers) else "Failed"
        if any("running" in c.state for c in self.containers) or any(
            c.restart_count for c in self.containers
        ):
            return "Running"
        return "Pending"

    def _publish(self) -> None:
        with self._changed:
            self._dirty = False
        containers_ready = self.initialized and all(c.ready for c in self.containers)
        self._set_condition("Initialized", self.initialized)
        self._set_condition(
            "ContainersReady", containers_ready, "" if containers_ready else "ContainersNotReady"
        )
        self._set_condition(
            "Ready", containers_ready, "" if containers_ready else "ContainersNotReady"
        )
        phase = self._phase()
        if phase in ("Succeeded", "Failed"):
            self._set_condition("PodReadyToStartContainers", False)
        status: dict[str, Any] = {
            "phase": phase,
            "hostIP": self.agent.network.node_ip,
            "hostIPs": [{"ip": self.agent.network.node_ip}],
            "podIP": self.net.ip,
            "podIPs": [{"ip": self.net.ip}],
            "startTime": self.start_time,
            "qosClass": self.pod.get("status", {}).get("qosClass", "BestEffort"),
            "conditions": list(self._conditions.values()),
            "containerStatuses": [c.status() for c in self.containers],
        }
        if self.init_containers:
            status["initContainerStatuses"] = [c.status() for c in self.init_containers]
        if status == self._last_status:
            return
        try:
            reply = self.agent.api.patch(self.path + "/status", {"status": status})
        except ApiError as err:
            if err.status != 404:
                log.warning("status of %s/%s: %s", self.namespace, self.name, err)
            return
        self.pod = reply
        self._last_status = status


# ---------------------------------------------------------------------------- the node


class NodeAgent:
    def __init__(self, config: AgentConfig) -> None:
        self.config = config
        self.api = KubeRest(Path(config.kubeconfig))
        self.network = NodeNetwork(pid=config.network_pid, index=config.network_index)
        self.workers: dict[str, PodWorker] = {}
        self.finished: set[str] = set()  # pods whose worker ended: never started again
        self._lock = threading.Lock()
        self.created_paths_file = Path(config.workdir) / "created-mount-points"

    def image_env(self) -> dict[str, str]:
        return {"PATH": f"{self.config.venv}/bin:{os.defpath}", **self.config.image_env}

    def make_mount_point(self, target: str, is_dir: bool) -> None:
        """Create a missing mount point on the host, noting the topmost folder made."""
        path = Path(target)
        missing = path if is_dir else path.parent
        topmost = None
        while not missing.exists():
            topmost = missing
            missing = missing.parent
        if topmost is not None:
            with self._lock, self.created_paths_file.open("a") as out:
                out.write(f"{topmost}\n")
        (path if is_dir else path.parent).mkdir(parents=True, exist_ok=True)

    def event(self, pod: Mapping[str, Any], kind: str, reason: str, message: str) -> None:
        meta = pod["metadata"]
        body = {
            "metadata": {"generateName": f"{meta['name']}.", "namespace": meta["namespace"]},
            "involvedObject": {
                "kind": "Pod",
                "name": meta["name"],
                "namespace": meta["namespace"],
                "uid": meta["uid"],
                "apiVersion": "v1",
            },
            "type": kind,
            "reason": reason,
            "message": message,
            "source": {"component": "kubelet", "host": self.config.node_name},
            "firstTimestamp": now(),
            "lastTimestamp": now(),
            "count": 1,
        }
        with contextlib.suppress(ApiError):
            self.api.request("POST", f"/api/v1/namespaces/{meta['namespace']}/events", body)

    def register(self) -> None:
        ip = self.network.node_ip
        node = {
            "apiVersion": "v1",
            "kind": "Node",
            "metadata": {
                "name": self.config.node_name,
                "labels": {
                    "kubernetes.io/hostname": self.config.node_name,
                    "kubernetes.io/os": "linux",
                    "kubernetes.io/arch": "amd64",
                },
            },
            "spec": {"podCIDR": self.network.pod_cidr, "podCIDRs": [self.network.pod_cidr]},
        }
        with contextlib.suppress(ApiError):
            self.api.request("POST", "/api/v1/nodes", node)
        self._heartbeat(ip)
        # The API server taints a new Node not-ready; the node lifecycle controller (not run
        # here: it would also evict pods of a node whose heartbeats pause) lifts it once the
        # node reports Ready. The agent lifts it itself.
        self.api.patch(
            f"/api/v1/nodes/{self.config.node_name}", {"spec": {"taints": None}}, "merge-patch"
        )

    def _heartbeat(self, ip: str) -> None:
        capacity = self.config.capacity
        status = {
            "capacity": capacity,
            "allocatable": capacity,
            "addresses": [
                {"type": "InternalIP", "address": ip},
                {"type": "Hostname", "address": self.config.node_name},
            ],
            "conditions": [
                {
                    "type": "Ready",
                    "status": "True",
                    "reason": "KubeletReady",
                    "message": "the e2e node agent is posting ready status",
                    "lastHeartbeatTime": now(),
                    "lastTransitionTime": now(),
                }
            ],
            "nodeInfo": {
                "kubeletVersion": "e2e-node-agent",
                "kubeProxyVersion": "",
                "operatingSystem": "linux",
                "architecture": "amd64",
                "containerRuntimeVersion": "tfcluster-e2e://1",
                "osImage": "host",
                "kernelVersion": os.uname().release,
                "machineID": "",
                "systemUUID": "",
                "bootID": "",
            },
        }
        self.api.patch(f"/api/v1/nodes/{self.config.node_name}/status", {"status": status})

    def forget(self, worker: PodWorker) -> None:
        with self._lock:
            self.workers.pop(worker.uid, None)
            self.finished.add(worker.uid)

    def sync(self, pod: dict[str, Any], deleted: bool = False) -> None:
        uid = pod["metadata"]["uid"]
        with self._lock:
            worker = self.workers.get(uid)
            if worker is None:
                if deleted or uid in self.finished:
                    return
                if pod["metadata"].get("deletionTimestamp"):
                    # Deleted before it ever ran here: nothing to stop.
                    self.finished.add(uid)
                    with contextlib.suppress(ApiError):
                        self.api.request(
                            "DELETE",
                            f"/api/v1/namespaces/{pod['metadata']['namespace']}/pods/"
                            f"{pod['metadata']['name']}",
                            {"gracePeriodSeconds": 0, "preconditions": {"uid": uid}},
                            ok=(200, 202, 404, 409),
                        )
                    return
                if pod.get("status", {}).get("phase") in ("Succeeded", "Failed"):
                    return
                worker = PodWorker(self, pod)
                self.workers[uid] = worker
                worker.thread.start()
                return
        if deleted:
            worker.request_deletion(0)
        elif pod["metadata"].get("deletionTimestamp") and not worker.deleting.is_set():
            grace = pod["metadata"].get("deletionGracePeriodSeconds")
            worker.request_deletion(float(grace if grace is not None else worker.grace_seconds()))

    def run(self) -> None:
        self.register()
        beat = threading.Thread(target=self._beat, daemon=True, name="heartbeat")
        beat.start()
        path = f"/api/v1/pods?fieldSelector=spec.nodeName%3D{self.config.node_name}"
        while True:
            listed = self.api.get(path)
            for pod in listed.get("items", []):
                self.sync(pod)
            version = listed["metadata"]["resourceVersion"]
            try:
                for event in self.api.watch(path, version):
                    kind = event.get("type")
                    if kind == "BOOKMARK":
                        continue
                    if kind == "ERROR":
                        break
                    self.sync(event["object"], deleted=kind == "DELETED")
            except (OSError, ApiError) as err:
                log.warning("pod watch ended: %s", err)
                time.sleep(1)

    def _beat(self) -> None:
        while True:
            time.sleep(20)
            with contextlib.suppress(Exception):
                self._heartbeat(self.network.node_ip)

    def shutdown(self) -> None:
        """Stop every pod now (the environment is going away)."""
        with self._lock:
            workers = list(self.workers.values())
        for worker in workers:
            for c in worker.containers + worker.init_containers:
                c.kill(0)
            self.network.remove_pod(worker.uid)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("config", type=Path, help="the agent's JSON configuration")
    args = parser.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(message)s")
    config = AgentConfig(**json.loads(args.config.read_text()))
    agent = NodeAgent(config)

    def stop(signum: int, frame: object) -> None:
        agent.shutdown()
        os._exit(0)

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    agent.run()


if __name__ == "__main__":
    main()
