"""The pure builders: spec in, manifests out (no cluster)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
import yaml
from support.operator_manifests import container_env, kubelet_expand
from tfcluster_operator.builders import (
    OwnerRef,
    client_service,
    cluster_spec,
    job_service,
    statefulset,
    task_address,
    tf_config,
    tf_config_env,
)
from tfcluster_operator.builders.meta import POD_INDEX_LABEL
from tfcluster_operator.builders.services import endpoint
from tfcluster_operator.spec import SpecError, TFClusterSpec, parse_spec

OWNER = OwnerRef(name="demo", uid="1234-uid")


def make(spec: dict[str, Any] | None = None, name: str = "demo") -> TFClusterSpec:
    spec = spec or {"jobs": [{"name": "ps"}, {"name": "worker", "replicas": 2}]}
    return parse_spec(name, "team", spec, default_image="img:1")


# ------------------------------------------------------------------ TF_CONFIG


def test_cluster_spec_addresses() -> None:
    spec = make()
    assert cluster_spec(spec) == {
        "ps": ["demo-ps-0.demo-ps.team.svc:2222"],
        "worker": [
            "demo-worker-0.demo-worker.team.svc:2222",
            "demo-worker-1.demo-worker.team.svc:2222",
        ],
    }
    assert task_address(spec, "worker", 1, "cluster.local") == (
        "demo-worker-1.demo-worker.team.svc.cluster.local:2222"
    )


def test_cluster_spec_leaves_out_empty_jobs() -> None:
    spec = make({"jobs": [{"name": "ps", "replicas": 0}, {"name": "worker"}]})
    assert list(cluster_spec(spec)) == ["worker"]


@pytest.mark.parametrize("index", [0, 1])
def test_each_pod_gets_its_own_tf_config(index: int) -> None:
    spec = make()
    env = tf_config_env(spec, "worker")
    seen = container_env(env, {POD_INDEX_LABEL: str(index)})
    assert json.loads(seen["TF_CONFIG"]) == tf_config(spec, "worker", index)
    assert json.loads(seen["TF_CONFIG"])["task"] == {"type": "worker", "index": index}
    assert seen["TFCLUSTER_TASK_INDEX"] == str(index)


def test_tf_config_env_reads_the_pod_index_label() -> None:
    index_var, config_var = tf_config_env(make(), "ps")
    assert index_var["valueFrom"]["fieldRef"]["fieldPath"] == (
        "metadata.labels['apps.kubernetes.io/pod-index']"
    )
    assert "$(TFCLUSTER_TASK_INDEX)" in config_var["value"]


def _elastic(workers: int) -> TFClusterSpec:
    return make(
        {"jobs": [{"name": "ps"}, {"name": "worker", "replicas": workers, "elastic": True}]}
    )


def test_an_elastic_job_is_left_out_of_every_tf_config_but_its_own_tasks() -> None:
    spec = _elastic(2)
    ps = container_env(tf_config_env(spec, "ps"), {POD_INDEX_LABEL: "0"})
    assert json.loads(ps["TF_CONFIG"])["cluster"] == {"ps": ["demo-ps-0.demo-ps.team.svc:2222"]}
    worker = container_env(tf_config_env(spec, "worker"), {POD_INDEX_LABEL: "1"})
    # A worker sees the ps and itself, in TF's sparse form {index: address}.
    assert json.loads(worker["TF_CONFIG"]) == {
        "cluster": {
            "ps": ["demo-ps-0.demo-ps.team.svc:2222"],
            "worker": {"1": "demo-worker-1.demo-worker.team.svc:2222"},
        },
        "task": {"type": "worker", "index": 1},
    }
    assert json.loads(worker["TF_CONFIG"]) == tf_config(spec, "worker", 1)
    # Clients place their graphs on the whole cluster, as the status publishes it.
    assert len(cluster_spec(spec)["worker"]) == 2


def test_scaling_an_elastic_job_changes_no_pod_template() -> None:
    small, grown = _elastic(2), _elastic(4)
    for job in ("ps", "worker"):
        before = statefulset(small, small.job(job), OWNER)
        after = statefulset(grown, grown.job(job), OWNER)
        assert before["spec"]["template"] == after["spec"]["template"], job
    assert statefulset(grown, grown.job("worker"), OWNER)["spec"]["replicas"] == 4


def test_scaling_a_job_that_is_not_elastic_rolls_every_job() -> None:
    small = make({"jobs": [{"name": "ps"}, {"name": "worker", "replicas": 2}]})
    grown = make({"jobs": [{"name": "ps"}, {"name": "worker", "replicas": 4}]})
    assert statefulset(small, small.job("ps"), OWNER) != statefulset(grown, grown.job("ps"), OWNER)


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        (
            {"jobs": [{"name": "worker", "elastic": True}]},
            "at least one job (the ps) must keep its size",
        ),
        (
            {
                "jobs": [{"name": "ps"}, {"name": "worker", "elastic": True}],
                "runPolicy": {},
            },
            "elastic jobs need a long-running TFCluster",
        ),
        ({"jobs": [{"name": "ps"}, {"name": "worker", "elastic": "yes"}]}, "not true or false"),
    ],
)
def test_elastic_jobs_the_operator_cannot_run_are_refused(
    spec: dict[str, Any], message: str
) -> None:
    with pytest.raises(SpecError, match=re.escape(message)):
        make(spec)


def test_dollar_signs_survive_expansion() -> None:
    assert kubelet_expand("a$$b$(X)", {"X": "1"}) == "a$b1"
    spec = make({"jobs": [{"name": "worker"}]}, name="demo")
    # No '$' can appear in DNS names, but the escaping is what keeps JSON literal.
    assert "$$" not in tf_config_env(spec, "worker")[1]["value"]


# ------------------------------------------------------------------ Services


def test_job_service_is_headless_and_publishes_not_ready() -> None:
    svc = job_service(make(), "worker", OWNER)
    assert svc["metadata"]["name"] == "demo-worker"
    assert svc["metadata"]["namespace"] == "team"
    assert svc["spec"]["clusterIP"] == "None"
    assert svc["spec"]["publishNotReadyAddresses"] is True
    assert svc["spec"]["selector"] == {
        "tfcluster.dev/cluster": "demo",
        "tfcluster.dev/job": "worker",
    }
    assert [(p["name"], p["port"], p["targetPort"]) for p in svc["spec"]["ports"]] == [
        ("grpc", 2222, "grpc"),
        ("metrics", 9090, "metrics"),
        ("direct", 2223, "direct"),
    ]
    assert svc["metadata"]["ownerReferences"] == [
        {
            "apiVersion": "tfcluster.dev/v1alpha1",
            "kind": "TFCluster",
            "name": "demo",
            "uid": "1234-uid",
            "controller": True,
            "blockOwnerDeletion": True,
        }
    ]
    assert svc["metadata"]["labels"]["app.kubernetes.io/managed-by"] == "tfcluster-operator"


def test_client_service_selects_one_pod() -> None:
    spec = make(
        {
            "port": 3333,
            "directPort": 3334,
            "jobs": [{"name": "worker", "replicas": 3, "clientTask": 2}],
        }
    )
    svc = client_service(spec, OWNER)
    assert svc["metadata"]["name"] == "demo-client"
    assert svc["spec"]["selector"] == {
        "tfcluster.dev/cluster": "demo",
        "tfcluster.dev/job": "worker",
        "statefulset.kubernetes.io/pod-name": "demo-worker-2",
    }
    # Sessions reach direct streams through this Service too: the port a task reports.
    assert svc["spec"]["ports"] == [
        {"name": "grpc", "port": 3333, "targetPort": "grpc", "protocol": "TCP"},
        {"name": "direct", "port": 3334, "targetPort": "direct", "protocol": "TCP"},
    ]
    assert endpoint(spec) == "grpc://demo-client.team.svc:3333"


# ------------------------------------------------------------------ StatefulSets


def container(sts: dict[str, Any]) -> dict[str, Any]:
    containers = sts["spec"]["template"]["spec"]["containers"]
    assert len(containers) == 1
    return containers[0]


def test_statefulset_shape() -> None:
    spec = make()
    sts = statefulset(spec, spec.job("worker"), OWNER)
    assert sts["metadata"]["name"] == "demo-worker"
    assert sts["metadata"]["ownerReferences"][0]["uid"] == "1234-uid"
    assert sts["spec"]["replicas"] == 2
    assert sts["spec"]["serviceName"] == "demo-worker"
    assert sts["spec"]["podManagementPolicy"] == "Parallel"
    selector = sts["spec"]["selector"]["matchLabels"]
    labels = sts["spec"]["template"]["metadata"]["labels"]
    assert selector.items() <= labels.items()
    c = container(sts)
    assert c["image"] == "img:1"
    assert c["command"] == ["tfcluster-server"]
    assert "args" not in c
    assert c["ports"] == [
        {"name": "grpc", "containerPort": 2222, "protocol": "TCP"},
        {"name": "metrics", "containerPort": 9090, "protocol": "TCP"},
        {"name": "direct", "containerPort": 2223, "protocol": "TCP"},
    ]
    assert c["readinessProbe"]["grpc"] == {"port": 2222}
    assert [e["name"] for e in c["env"]] == [
        "TFCLUSTER_TASK_INDEX",
        "TF_CONFIG",
        "TFCLUSTER_METRICS_PORT",
        "TFCLUSTER_DIRECT_PORT",
    ]
    assert c["env"][2]["value"] == "9090"
    assert c["env"][3]["value"] == "2223"
    annotations = sts["spec"]["template"]["metadata"]["annotations"]
    assert annotations["prometheus.io/scrape"] == "true"
    assert annotations["prometheus.io/port"] == "9090"
    assert "resources" not in c


def test_suspend_scales_to_zero() -> None:
    spec = make({"suspend": True, "jobs": [{"name": "worker", "replicas": 4}]})
    sts = statefulset(spec, spec.job("worker"), OWNER)
    assert sts["spec"]["replicas"] == 0
    # The cluster the pods would see is still the full one.
    assert (
        len(
            json.loads(container_env(container(sts)["env"], {POD_INDEX_LABEL: "3"})["TF_CONFIG"])[
                "cluster"
            ]["worker"]
        )
        == 4
    )


def test_gpu_job_gets_limits_and_toleration() -> None:
    spec = make(
        {
            "jobs": [
                {
                    "name": "worker",
                    "gpus": 2,
                    "resources": {
                        "requests": {"cpu": "1", "nvidia.com/gpu": 1},
                        "limits": {"memory": "2Gi"},
                    },
                }
            ]
        }
    )
    sts = statefulset(spec, spec.job("worker"), OWNER)
    res = container(sts)["resources"]
    assert res["limits"] == {"memory": "2Gi", "nvidia.com/gpu": 2}
    assert res["requests"] == {"cpu": "1", "nvidia.com/gpu": 2}
    assert {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"} in sts["spec"][
        "template"
    ]["spec"]["tolerations"]


def test_pod_template_overrides_are_merged() -> None:
    spec = make(
        {
            "jobs": [
                {
                    "name": "worker",
                    "image": "special:3",
                    "template": {
                        "metadata": {
                            # A user label cannot take over the selector labels.
                            "labels": {"team": "a", "tfcluster.dev/job": "evil"},
                            "annotations": {"prometheus.io/scrape": "false"},
                        },
                        "spec": {
                            "nodeSelector": {"pool": "big"},
                            "tolerations": [{"key": "dedicated", "operator": "Exists"}],
                            "affinity": {"nodeAffinity": {"x": 1}},
                            "env": [{"name": "EXTRA", "value": "1"}],
                            "volumes": [{"name": "data", "emptyDir": {}}],
                            "volumeMounts": [{"name": "data", "mountPath": "/data"}],
                            "serviceAccountName": "trainer",
                            "priorityClassName": "high",
                            "imagePullSecrets": [{"name": "regcred"}],
                        },
                    },
                }
            ]
        }
    )
    sts = statefulset(spec, spec.job("worker"), OWNER)
    meta = sts["spec"]["template"]["metadata"]
    pod = sts["spec"]["template"]["spec"]
    c = container(sts)
    assert meta["labels"]["team"] == "a"
    assert meta["labels"]["tfcluster.dev/job"] == "worker"
    assert meta["annotations"]["prometheus.io/scrape"] == "false"
    assert pod["nodeSelector"] == {"pool": "big"}
    assert pod["tolerations"] == [{"key": "dedicated", "operator": "Exists"}]
    assert pod["affinity"] == {"nodeAffinity": {"x": 1}}
    assert pod["volumes"] == [{"name": "data", "emptyDir": {}}]
    assert pod["serviceAccountName"] == "trainer"
    assert pod["priorityClassName"] == "high"
    assert pod["imagePullSecrets"] == [{"name": "regcred"}]
    assert c["image"] == "special:3"
    assert c["env"][-1] == {"name": "EXTRA", "value": "1"}
    assert c["volumeMounts"] == [{"name": "data", "mountPath": "/data"}]


def test_builders_do_not_share_state() -> None:
    spec = make(
        {"jobs": [{"name": "worker", "template": {"spec": {"env": [{"name": "A", "value": "1"}]}}}]}
    )
    first = statefulset(spec, spec.job("worker"), OWNER)
    container(first)["env"][-1]["value"] = "changed"
    second = statefulset(spec, spec.job("worker"), OWNER)
    assert container(second)["env"][-1]["value"] == "1"


# ------------------------------------------------------------------ the examples


def test_examples_parse_and_build() -> None:

    examples = Path(__file__).resolve().parents[2] / "manifests" / "examples"
    for name, gpus in (("tfcluster.yaml", 0), ("tfcluster-gpu.yaml", 1)):
        (doc,) = yaml.safe_load_all((examples / name).read_text())
        assert doc["apiVersion"] == "tfcluster.dev/v1alpha1" and doc["kind"] == "TFCluster"
        spec = parse_spec(doc["metadata"]["name"], "ns", doc["spec"], default_image="x")
        assert [j.name for j in spec.jobs] == ["ps", "worker"]
        assert (spec.job("ps").replicas, spec.job("worker").replicas) == (1, 2)
        worker = statefulset(spec, spec.job("worker"), OWNER)
        limits = container(worker).get("resources", {}).get("limits", {})
        assert limits.get("nvidia.com/gpu", 0) == gpus
        assert spec.client.job == "worker" and spec.client.index == 0
