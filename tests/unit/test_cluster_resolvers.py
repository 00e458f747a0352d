"""tf.distribute.cluster_resolver beyond the recorded TF 1.15 cases: Kubernetes pods given as
the kubernetes client's own models, Slurm node lists expanded without scontrol, the GPUs a
resolver counts, and the Google Cloud resolvers refusing with a reason."""

from __future__ import annotations

import json
import os

import pytest
import tfcluster as tf
from tfcluster.lib.cluster_resolver import expand_hostlist
from tfcluster.runtime import gpu

cr = tf.distribute.cluster_resolver
kubernetes_client = pytest.importorskip("kubernetes.client")


class _PodsBySelector:
    """What KubernetesClusterResolver's override_client must answer (TF's call)."""

    def __init__(self, pods: dict[str, list[kubernetes_client.V1Pod]]) -> None:
        self.pods = pods
        self.selectors: list[str] = []

    def list_pod_for_all_namespaces(self, label_selector: str) -> kubernetes_client.V1PodList:
        self.selectors.append(label_selector)
        return kubernetes_client.V1PodList(items=self.pods.get(label_selector, []))


def _pod(name: str, host_ip: str, phase: str = "Running") -> kubernetes_client.V1Pod:
    return kubernetes_client.V1Pod(
        metadata=kubernetes_client.V1ObjectMeta(name=name, labels={"tfcluster/job": "worker"}),
        status=kubernetes_client.V1PodStatus(phase=phase, host_ip=host_ip),
    )


def test_kubernetes_resolver_lists_running_pods_of_each_selector_in_name_order() -> None:
    client = _PodsBySelector(
        {
            "tfcluster/job=worker": [
                _pod("t-worker-1", "10.1.0.2"),
                _pod("t-worker-0", "10.1.0.1"),
            ],
            "tfcluster/job=ps": [_pod("t-ps-0", "10.1.1.1")],
        }
    )
    resolver = cr.KubernetesClusterResolver(
        {"worker": ["tfcluster/job=worker"], "ps": ["tfcluster/job=ps"]},
        tf_server_port=2222,
        override_client=client,
    )
    assert resolver.cluster_spec().as_dict() == {
        "ps": ["10.1.1.1:2222"],
        "worker": ["10.1.0.1:2222", "10.1.0.2:2222"],
    }
    assert resolver.master() == ""
    assert resolver.master("worker", 1) == "grpc://10.1.0.2:2222"
    assert client.selectors == ["tfcluster/job=worker", "tfcluster/job=ps"] * 2


def test_kubernetes_resolver_refuses_a_pod_that_is_not_running() -> None:
    client = _PodsBySelector({"job-name=tensorflow": [_pod("tf-0", "10.0.0.1", "Pending")]})
    resolver = cr.KubernetesClusterResolver(override_client=client)
    with pytest.raises(RuntimeError, match='Pod "tf-0" is not running; phase: "Pending"'):
        resolver.cluster_spec()


def test_slurm_node_lists_expand_as_scontrol_prints_them() -> None:
    assert expand_hostlist("node[01-03]") == ["node01", "node02", "node03"]
    assert expand_hostlist("a1,gpu[8-10,12]x,b") == [
        "a1",
        "gpu8x",
        "gpu9x",
        "gpu10x",
        "gpu12x",
        "b",
    ]
    assert expand_hostlist("r[1-2]n[1-2]") == ["r1n1", "r1n2", "r2n1", "r2n2"]


def test_slurm_resolver_without_scontrol_reads_the_step_node_list(
    monkeypatch: pytest.MonkeyPatch, tmp_path: os.PathLike[str]
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))  # no scontrol here
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "")
    for name, value in {
        "SLURM_PROCID": "3",
        "SLURM_NTASKS": "4",
        "SLURM_NTASKS_PER_NODE": "2",
        "SLURM_STEP_NODELIST": "cn[7-8]",
    }.items():
        monkeypatch.setenv(name, value)
    resolver = cr.SlurmClusterResolver({"worker": 3, "chief": 1}, gpus_per_node=2)
    assert resolver.cluster_spec().as_dict() == {
        "chief": ["cn7:8888"],
        "worker": ["cn7:8889", "cn8:8888", "cn8:8889"],
    }
    assert resolver.get_task_info() == ("worker", 2)
    assert os.environ["CUDA_VISIBLE_DEVICES"] == "1"
    monkeypatch.delenv("SLURM_STEP_NODELIST")
    with pytest.raises(RuntimeError, match="scontrol is not on the PATH"):
        resolver.cluster_spec()


def test_resolvers_count_the_gpus_this_process_sees(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TF_CONFIG", json.dumps({"cluster": {"worker": ["a:1", "b:1"]}}))
    expected = {"GPU": len(gpu.local_gpus())} if gpu.local_gpus() else {}
    assert cr.TFConfigClusterResolver().num_accelerators() == expected
    monkeypatch.setattr(gpu, "local_gpus", lambda: [gpu.GpuInfo(0, "g", 1), gpu.GpuInfo(1, "g", 1)])
    assert cr.TFConfigClusterResolver().num_accelerators() == {"GPU": 2}
    union = cr.UnionResolver(cr.TFConfigClusterResolver())
    assert union.num_accelerators() == {"GPU": 2}


def test_a_tfcluster_pod_connects_to_its_task_through_tf_config(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # TF_CONFIG as the operator writes it for worker 1 of a TFCluster.
    config = {
        "cluster": {"chief": ["c-0.svc:2222"], "worker": ["w-0.svc:2222", "w-1.svc:2222"]},
        "task": {"type": "worker", "index": 1},
        "environment": "cloud",
    }
    monkeypatch.setenv("TF_CONFIG", json.dumps(config))
    resolver = cr.TFConfigClusterResolver(rpc_layer="grpc")
    assert resolver.master() == "grpc://w-1.svc:2222"
    assert resolver.master("chief", 0) == "grpc://c-0.svc:2222"
    server_def_jobs = tf.train.ClusterSpec(resolver.cluster_spec()).jobs
    assert sorted(server_def_jobs) == ["chief", "worker"]


@pytest.mark.parametrize("name", ["GCEClusterResolver", "TPUClusterResolver"])
def test_google_cloud_resolvers_raise_unimplemented_saying_why(name: str) -> None:
    with pytest.raises(tf.errors.UnimplementedError, match=f"{name} is not implemented"):
        getattr(cr, name)("project")


def test_resolvers_are_tensorflows_names_in_tf_distribute() -> None:
    import tfcluster.distribute.cluster_resolver as face

    assert face.TFConfigClusterResolver is cr.TFConfigClusterResolver
    assert issubclass(cr.UnionResolver, cr.ClusterResolver)
    with pytest.raises(TypeError):
        cr.ClusterResolver()  # abstract
    # The strategies that take a resolver live beside them in tf.distribute.
    strategy = tf.distribute.experimental.ParameterServerStrategy(
        cr.SimpleClusterResolver(
            tf.train.ClusterSpec({"ps": ["h:1"], "worker": ["h:2"]}), task_type="worker", task_id=0
        )
    )
    assert strategy.extended.parameter_devices == ("/job:ps/task:0",)
