"""Pure functions: a validated ``TFClusterSpec`` in, Kubernetes manifests (dicts) out."""

from .budgets import disruption_budget
from .jobs import indexed_job
from .meta import OwnerRef
from .podgroups import podgroup
from .services import client_service, job_service
from .statefulsets import statefulset
from .tf_config import cluster_spec, task_address, tf_config, tf_config_env
from .workload import workload

__all__ = [
    "OwnerRef",
    "client_service",
    "cluster_spec",
    "disruption_budget",
    "indexed_job",
    "job_service",
    "podgroup",
    "statefulset",
    "task_address",
    "tf_config",
    "tf_config_env",
    "workload",
]
