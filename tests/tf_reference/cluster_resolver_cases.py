"""Cluster resolver cases run on TensorFlow 1.15 (record_cluster_resolvers.py) and on
tfcluster (tests/unit/test_cluster_resolvers_reference.py) alike: each case sets fixed
environment variables, calls the resolver module `cr` and returns plain values.

Python 3.7 code (TF 1.15's interpreter). Slurm cases put a stand-in `scontrol` on the PATH
that prints the step's host names, one a line, as `scontrol show hostname` does.
"""

from __future__ import annotations

import json
import os
import stat
import tempfile
import types

CLUSTER = {"chief": ["host0:2222"], "worker": ["host1:2222", "host2:2222"], "ps": ["host3:2222"]}
SLURM_HOSTS = ["node01", "node02", "node03"]


def tf_config_env(**config):
    return {"TF_CONFIG": json.dumps(config)}


def slurm_env(**values):
    env = {"SLURM_NTASKS_PER_NODE": "2", "SLURM_STEP_NODELIST": "node[01-03]"}
    env.update({k: str(v) for k, v in values.items()})
    return env


def fake_scontrol_dir(hosts):
    """A folder holding an `scontrol` script that prints these hosts."""
    folder = tempfile.mkdtemp(prefix="scontrol")
    path = os.path.join(folder, "scontrol")
    with open(path, "w") as f:
        f.write("#!/bin/sh\nprintf '{}\\n'\n".format("\\n".join(hosts)))
    os.chmod(path, os.stat(path).st_mode | stat.S_IEXEC)
    return folder


def _spec(resolver):
    return {job: list(tasks) for job, tasks in resolver.cluster_spec().as_dict().items()}


def _error(fn):
    try:
        fn()
    except Exception as e:  # the class name is what is compared
        return type(e).__name__
    return None


def tfconfig_worker(cr, ClusterSpec):
    r = cr.TFConfigClusterResolver()
    return {
        "spec": _spec(r),
        "master": r.master(),
        "master_ps": r.master("ps", 0),
        "master_rpc_arg": r.master(rpc_layer="grpc"),
        "task": [r.task_type, r.task_id],
        "rpc_layer": r.rpc_layer,
        "environment": r.environment,
    }


def tfconfig_overrides(cr, ClusterSpec):
    r = cr.TFConfigClusterResolver(task_type="ps", task_id=0, rpc_layer="grpc+verbs")
    only_id = cr.TFConfigClusterResolver(task_id=0)
    return {
        "master": r.master(),
        "task": [r.task_type, r.task_id],
        "rpc_layer": r.rpc_layer,
        "only_id_task": [only_id.task_type, only_id.task_id],
        "type_without_id": _error(lambda: cr.TFConfigClusterResolver(task_type="ps").task_id),
        "environment": cr.TFConfigClusterResolver(environment="google").environment,
    }


def tfconfig_session_master(cr, ClusterSpec):
    r = cr.TFConfigClusterResolver()
    return {"master": r.master(), "master_ps": r.master("ps", 0)}


def tfconfig_single_task(cr, ClusterSpec):
    r = cr.TFConfigClusterResolver()
    return {"spec": _spec(r), "master": r.master(), "task": [r.task_type, r.task_id]}


def tfconfig_unset(cr, ClusterSpec):
    r = cr.TFConfigClusterResolver()
    return {
        "spec": _spec(r),
        "master": r.master(),
        "task": [r.task_type, r.task_id],
        "rpc_layer": r.rpc_layer,
    }


def tfconfig_unknown_task(cr, ClusterSpec):
    r = cr.TFConfigClusterResolver()
    return {"master": _error(r.master)}


def simple_resolver(cr, ClusterSpec):
    spec = ClusterSpec(CLUSTER)
    r = cr.SimpleClusterResolver(
        spec,
        master="host9:1",
        task_type="worker",
        task_id=1,
        rpc_layer="grpc",
        num_accelerators={"GPU": 2},
    )
    plain = cr.SimpleClusterResolver(spec)
    r.task_id = 0
    return {
        "master": r.master(),
        "master_task": r.master("worker", 1),
        "master_other_rpc": r.master("ps", 0, rpc_layer="grpc+x"),
        "task": [r.task_type, r.task_id],
        "accelerators": r.num_accelerators(),
        "plain": [plain.master(), plain.num_accelerators(), plain.environment, plain.rpc_layer],
        "not_a_spec": _error(lambda: cr.SimpleClusterResolver(CLUSTER)),
        "master_not_str": _error(lambda: cr.SimpleClusterResolver(spec, master=1)),
        "no_such_task": _error(lambda: r.master("worker", 5)),
    }


def union_resolver(cr, ClusterSpec):
    a = cr.SimpleClusterResolver(
        ClusterSpec({"worker": ["a:1", "b:1"], "ps": ["p:1"]}),
        master="a:1",
        task_type="worker",
        task_id=1,
        rpc_layer="grpc",
    )
    b = cr.SimpleClusterResolver(ClusterSpec({"worker": ["c:1"], "eval": ["e:1"]}))
    sparse = cr.SimpleClusterResolver(ClusterSpec({"worker": {5: "s:5"}}))
    clash = cr.SimpleClusterResolver(ClusterSpec({"worker": {1: "x:1"}}))
    u = cr.UnionResolver(a, b)
    u2 = cr.UnionResolver(a, sparse, task_type="ps", task_id=0, rpc_layer="grpc+y")
    return {
        "spec": _spec(u),
        "sparse_spec": {
            k: sorted(v.items()) if isinstance(v, dict) else v
            for k, v in u2.cluster_spec().as_dict().items()
        },
        "master": u.master(),
        "master_task": u.master("worker", 2),
        "task": [u.task_type, u.task_id, u.rpc_layer],
        "task_override": [u2.task_type, u2.task_id, u2.rpc_layer, u2.master("worker", 5)],
        "clash": _error(lambda: cr.UnionResolver(a, clash).cluster_spec()),
        "empty": _error(lambda: cr.UnionResolver()),
        "not_resolver": _error(lambda: cr.UnionResolver(a, "b")),
        "bad_kwarg": _error(lambda: cr.UnionResolver(a, colour="red")),
    }


def slurm_two_jobs(cr, ClusterSpec):
    r = cr.SlurmClusterResolver(
        {"worker": 4, "ps": 2}, port_base=9000, gpus_per_node=4, gpus_per_task=2
    )
    before = r.get_task_info()
    spec = _spec(r)
    return {
        "before": list(before),
        "spec": spec,
        "task": list(r.get_task_info()),
        "cuda_visible_devices": os.environ.get("CUDA_VISIBLE_DEVICES"),
        "master": r.master(),
        "master_ps": r.master("ps", 1, rpc_layer="grpc+z"),
        "accelerators": r.num_accelerators(),
    }


def slurm_mpirun(cr, ClusterSpec):
    r = cr.SlurmClusterResolver({"worker": 3}, tasks_per_node=1, auto_set_gpu=False)
    return {"spec": _spec(r), "task": list(r.get_task_info()), "master": r.master()}


def slurm_errors(cr, ClusterSpec):
    return {
        "too_many_gpus": _error(lambda: cr.SlurmClusterResolver({"worker": 6}, gpus_per_node=1)),
        "wrong_count": _error(lambda: cr.SlurmClusterResolver({"worker": 2}, gpus_per_node=2)),
    }


def slurm_no_tasks_per_node(cr, ClusterSpec):
    return {"error": _error(lambda: cr.SlurmClusterResolver({"worker": 6}))}


def slurm_outside_slurm(cr, ClusterSpec):
    return {"error": _error(lambda: cr.SlurmClusterResolver({"worker": 1}))}


class PodLister:
    """The one call KubernetesClusterResolver makes, answering from fixed pods."""

    def __init__(self, pods_by_selector):
        self.pods_by_selector = pods_by_selector

    def list_pod_for_all_namespaces(self, label_selector):
        return types.SimpleNamespace(items=self.pods_by_selector.get(label_selector, []))


def plain_pod(name, host_ip, phase="Running"):
    return types.SimpleNamespace(
        metadata=types.SimpleNamespace(name=name),
        status=types.SimpleNamespace(host_ip=host_ip, phase=phase),
    )


def kubernetes_pods(cr, ClusterSpec, make_pod=plain_pod):
    client = PodLister(
        {
            "job-name=worker-a": [make_pod("w-1", "10.0.0.2"), make_pod("w-0", "10.0.0.1")],
            "job-name=worker-b": [make_pod("w-2", "10.0.0.3")],
            "job-name=ps": [make_pod("ps-0", "10.0.1.1")],
            "job-name=tensorflow": [make_pod("tf-0", "10.0.2.1")],
            "job-name=pending": [make_pod("p-0", "10.0.3.1", phase="Pending")],
        }
    )
    r = cr.KubernetesClusterResolver(
        {"worker": ["job-name=worker-a", "job-name=worker-b"], "ps": ["job-name=ps"]},
        tf_server_port=2222,
        override_client=client,
    )
    default = cr.KubernetesClusterResolver(override_client=client)
    pending = cr.KubernetesClusterResolver({"worker": ["job-name=pending"]}, override_client=client)
    before = r.master()
    r.task_type, r.task_id = "worker", 2
    return {
        "spec": _spec(r),
        "master_before": before,
        "master": r.master(),
        "master_ps": r.master("ps", 0, rpc_layer="grpc+k"),
        "default_spec": _spec(default),
        "pending": _error(pending.cluster_spec),
    }


# name -> (environment variables, case function)
CASES = {
    "tfconfig_worker": (
        tf_config_env(
            cluster=CLUSTER,
            task={"type": "worker", "index": 1},
            rpc_layer="grpc",
            environment="cloud",
        ),
        tfconfig_worker,
    ),
    "tfconfig_overrides": (
        tf_config_env(cluster=CLUSTER, task={"type": "worker", "index": 1}),
        tfconfig_overrides,
    ),
    "tfconfig_session_master": (
        tf_config_env(cluster=CLUSTER, session_master="sm:1", task={"type": "chief", "index": 0}),
        tfconfig_session_master,
    ),
    "tfconfig_single_task": (
        tf_config_env(cluster={"worker": ["only:1"]}, task={"type": "worker", "index": 0}),
        tfconfig_single_task,
    ),
    "tfconfig_unset": ({}, tfconfig_unset),
    "tfconfig_unknown_task": (
        tf_config_env(cluster=CLUSTER, task={"type": "eval", "index": 0}),
        tfconfig_unknown_task,
    ),
    "simple_resolver": ({}, simple_resolver),
    "union_resolver": ({}, union_resolver),
    "slurm_two_jobs": (slurm_env(SLURM_PROCID=5, SLURM_NTASKS=6), slurm_two_jobs),
    "slurm_mpirun": (
        slurm_env(OMPI_COMM_WORLD_RANK=2, OMPI_COMM_WORLD_SIZE=3, SLURM_PROCID=0, SLURM_NTASKS=1),
        slurm_mpirun,
    ),
    "slurm_errors": (slurm_env(SLURM_PROCID=0, SLURM_NTASKS=6), slurm_errors),
    "slurm_no_tasks_per_node": (
        {"SLURM_PROCID": "0", "SLURM_NTASKS": "6"},
        slurm_no_tasks_per_node,
    ),
    "slurm_outside_slurm": ({}, slurm_outside_slurm),
    "kubernetes_pods": ({}, kubernetes_pods),
}

VARIABLES = (
    "TF_CONFIG",
    "SLURM_PROCID",
    "SLURM_NTASKS",
    "SLURM_NTASKS_PER_NODE",
    "SLURM_STEP_NODELIST",
    "SLURM_JOB_NODELIST",
    "OMPI_COMM_WORLD_RANK",
    "OMPI_COMM_WORLD_SIZE",
    "CUDA_VISIBLE_DEVICES",
)
