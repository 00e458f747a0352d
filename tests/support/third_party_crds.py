"""The CRDs of the projects the operator works with, from their own releases' Go modules (the
module proxy is the one place the tests may download from): scheduler-plugins' PodGroup,
Volcano's PodGroup, Kueue's API and cert-manager's Certificate. The k8s tests install them into
the test API server, so the operator's PodGroups, Workloads and Certificates are validated by
the real schemas.

Modules are fetched once with ``go mod download`` into Go's module cache (a few seconds
after that); versions are pinned here.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

# module@version -> the CRD files in it the tests install.
MODULES: dict[str, tuple[str, ...]] = {
    "sigs.k8s.io/scheduler-plugins@v0.31.8": (
        "config/crd/bases/scheduling.x-k8s.io_podgroups.yaml",
    ),
    # The newest release the module proxy serves.
    "volcano.sh/volcano@v1.10.0": (
        "config/crd/volcano/bases/scheduling.volcano.sh_podgroups.yaml",
    ),
    "sigs.k8s.io/kueue@v0.17.0": tuple(
        f"config/components/crd/bases/kueue.x-k8s.io_{plural}.yaml"
        for plural in (
            "workloads",
            "localqueues",
            "clusterqueues",
            "resourceflavors",
            "workloadpriorityclasses",
            "admissionchecks",
            "cohorts",
            "topologies",
        )
    ),
    # deploy/crds holds the plain CRDs (the chart's copies are Helm templates).
    "github.com/cert-manager/cert-manager@v1.21.2": (
        "deploy/crds/cert-manager.io_certificates.yaml",
    ),
}


class CRDsUnavailable(RuntimeError):
    """Go or the module proxy is not there: the tests that need these CRDs skip."""


def module_dir(module: str) -> Path:
    go = shutil.which("go")
    if go is None:
        raise CRDsUnavailable("no `go` on PATH to fetch " + module)
    done = subprocess.run(
        [go, "mod", "download", "-json", module],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
        cwd="/",
    )
    try:
        info = json.loads(done.stdout)
    except ValueError:
        raise CRDsUnavailable(f"go mod download {module}: {done.stderr.strip()}") from None
    if info.get("Error") or not info.get("Dir"):
        raise CRDsUnavailable(f"go mod download {module}: {info.get('Error')}")
    return Path(info["Dir"])


def crd_files() -> list[Path]:
    """Every CRD file, downloading the modules not cached yet."""
    return [module_dir(module) / path for module, paths in MODULES.items() for path in paths]
