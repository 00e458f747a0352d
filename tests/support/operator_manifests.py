"""What the operator's manifests become, for its unit and k8s tests: the environment a container
sees as the kubelet resolves it, and the documents `helm template` renders from the chart."""

from __future__ import annotations

import math
import os
import re
import shutil
import subprocess
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import yaml

_REF = re.compile(r"\$\$|\$\(([A-Za-z_][A-Za-z0-9_]*)\)")


def kubelet_expand(value: str, resolved: Mapping[str, str]) -> str:
    """Kubernetes' env expansion: $(VAR) becomes an earlier variable's value, $$ a '$',
    and a reference to an unknown variable stays as written."""

    def sub(match: re.Match[str]) -> str:
        if match.group(0) == "$$":
            return "$"
        name = match.group(1)
        return resolved.get(name, match.group(0))

    return _REF.sub(sub, value)


def container_env(
    env: Sequence[Mapping[str, Any]],
    labels: Mapping[str, str],
    resources: Mapping[str, Mapping[str, Any]] | None = None,
) -> dict[str, str]:
    """The environment a container with ``env`` sees in a pod with ``labels``, resolved in
    order as the kubelet does (fieldRef to metadata.labels['k'], and resourceFieldRef to the
    container's ``resources``, rounded up to the divisor as the kubelet rounds)."""
    resolved: dict[str, str] = {}
    for var in env:
        if "value" in var:
            resolved[var["name"]] = kubelet_expand(var["value"], resolved)
            continue
        source = var["valueFrom"]
        if "resourceFieldRef" in source:
            ref = source["resourceFieldRef"]
            kind, _, name = ref["resource"].partition(".")
            quantity = (resources or {}).get(kind, {}).get(name)
            assert quantity is not None, f"no {ref['resource']} in {resources}"
            divisor = cpu_millicores(ref.get("divisor", "1")) / 1000
            resolved[var["name"]] = str(math.ceil(cpu_millicores(quantity) / 1000 / divisor))
            continue
        path = source["fieldRef"]["fieldPath"]
        match = re.fullmatch(r"metadata\.labels\['([^']+)'\]", path)
        assert match, f"unsupported fieldPath {path}"
        resolved[var["name"]] = labels.get(match.group(1), "")
    return resolved


def cpu_millicores(quantity: Any) -> int:
    """A CPU quantity ("2", "1500m", "0.5", 2) in millicores."""
    text = str(quantity)
    if text.endswith("m"):
        return int(text[:-1])
    return math.ceil(float(text) * 1000)


# ---------------------------------------------------------------------- helm

HELM_BUILD = Path(__file__).resolve().parent / "helmbin" / "build.sh"
HELM_KUBE_VERSION = "1.34.4"  # the test control plane's release


class HelmUnavailable(RuntimeError):
    pass


def find_helm() -> Path:
    """A real helm binary: $TFCLUSTER_HELM, else the one helmbin/build.sh builds from the
    helm Go module (built here once unless TFCLUSTER_K8S_BUILD=0)."""
    override = os.environ.get("TFCLUSTER_HELM")
    if override:
        if not os.access(override, os.X_OK):
            raise HelmUnavailable(f"TFCLUSTER_HELM={override} is not an executable")
        return Path(override)
    path = subprocess.run(
        ["bash", str(HELM_BUILD), "--print-path"], capture_output=True, text=True, check=False
    ).stdout.strip()
    if path and os.access(path, os.X_OK):
        return Path(path)
    if os.environ.get("TFCLUSTER_K8S_BUILD", "1") == "0":
        raise HelmUnavailable(f"helm is not built ({path}) and TFCLUSTER_K8S_BUILD=0")
    if shutil.which("go") is None:
        raise HelmUnavailable(
            "no helm binary: PyPI has no package shipping one, and building it from the "
            "helm.sh/helm/v3 Go module needs the Go toolchain ('go' is not on PATH)"
        )
    done = subprocess.run(
        ["bash", str(HELM_BUILD)], capture_output=True, text=True, check=False, timeout=1200
    )
    if done.returncode != 0:
        raise HelmUnavailable(f"building helm failed: {done.stderr.strip()[-2000:]}")
    return Path(done.stdout.strip().splitlines()[-1])


def helm_template(
    helm: Path,
    chart: Path,
    *args: str,
    namespace: str = "tfcluster-system",
    release: str = "tfc",
) -> list[dict[str, Any]]:
    """``helm template`` of ``chart`` as ``release``: the rendered documents."""
    done = subprocess.run(
        [
            str(helm),
            "template",
            release,
            str(chart),
            "--namespace",
            namespace,
            "--kube-version",
            HELM_KUBE_VERSION,
            *args,
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return [doc for doc in yaml.safe_load_all(done.stdout) if doc]
