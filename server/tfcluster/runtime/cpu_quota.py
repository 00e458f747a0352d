"""How many CPUs this process may use: its affinity mask and its cgroup's CPU quota.

`os.cpu_count()` is the machine's cores, which is what numpy's BLAS sizes its pool to: a task
limited to 2 CPUs on a 64-core node would start 64 threads. TensorFlow (and this runtime)
size their pools to what the process may actually run on: the CPUs of its affinity mask
(taskset, cpusets) and, in a container, the CFS quota of its cgroup (a pod's CPU limit),
v2 (`cpu.max`) or v1 (`cpu.cfs_quota_us` / `cpu.cfs_period_us`).
"""

from __future__ import annotations

import math
import os
from pathlib import Path

CGROUP_ROOT = "/sys/fs/cgroup"
PROC_SELF_CGROUP = "/proc/self/cgroup"
# Where a v1 hierarchy with the cpu controller is mounted under the cgroup root.
_V1_CPU_MOUNTS = ("cpu,cpuacct", "cpuacct,cpu", "cpu")


def affinity_cpus() -> int:
    """CPUs in this process's affinity mask (the machine's count where there is no mask)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def cgroup_cpu_quota(root: str = CGROUP_ROOT, proc_cgroup: str = PROC_SELF_CGROUP) -> float | None:
    """The CPU quota of this process's cgroup in CPUs (1.5 = 150 ms per 100 ms), the smallest
    along its path up to the root; None where no quota is set or no cgroup can be read."""
    paths = _cgroup_paths(proc_cgroup)
    quotas = [*_v2_quotas(Path(root), paths.get("", "/")), *_v1_quotas(Path(root), paths)]
    return min(quotas) if quotas else None


def available_cpus(root: str = CGROUP_ROOT, proc_cgroup: str = PROC_SELF_CGROUP) -> int:
    """The CPUs this process may use: its affinity, capped by its cgroup quota (rounded up:
    a quota of 1.5 CPUs keeps two threads busy part of the time)."""
    cpus = affinity_cpus()
    quota = cgroup_cpu_quota(root, proc_cgroup)
    if quota is not None:
        cpus = min(cpus, max(1, math.ceil(quota - 1e-9)))
    return cpus


def _cgroup_paths(proc_cgroup: str) -> dict[str, str]:
    """Controller list -> cgroup path, from /proc/self/cgroup ("" is the v2 hierarchy)."""
    out: dict[str, str] = {}
    try:
        text = Path(proc_cgroup).read_text()
    except OSError:
        return out
    for line in text.splitlines():
        parts = line.split(":", 2)
        if len(parts) == 3:
            out[parts[1]] = parts[2] or "/"
    return out


def _up_from(base: Path, path: str) -> list[Path]:
    """base/path, its parents, and base itself: in a container the hierarchy is often
    mounted at the container's own cgroup, so the path from /proc may not exist below it."""
    rel = Path(path.lstrip("/"))
    dirs = [base / rel, *(base / p for p in rel.parents)]
    return list(dict.fromkeys(d for d in dirs if d.is_dir()))


def _v2_quotas(root: Path, path: str) -> list[float]:
    quotas = []
    for d in _up_from(root, path):
        try:
            fields = (d / "cpu.max").read_text().split()
        except OSError:
            continue
        if len(fields) >= 1 and fields[0] != "max":
            period = float(fields[1]) if len(fields) > 1 else 100_000.0
            if float(fields[0]) > 0 and period > 0:
                quotas.append(float(fields[0]) / period)
    return quotas


def _v1_quotas(root: Path, paths: dict[str, str]) -> list[float]:
    path = next((p for ctl, p in paths.items() if "cpu" in ctl.split(",")), "/")
    quotas = []
    for mount in _V1_CPU_MOUNTS:
        for d in _up_from(root / mount, path):
            try:
                quota = float((d / "cpu.cfs_quota_us").read_text().strip())
                period = float((d / "cpu.cfs_period_us").read_text().strip())
            except (OSError, ValueError):
                continue
            if quota > 0 and period > 0:
                quotas.append(quota / period)
    return quotas
