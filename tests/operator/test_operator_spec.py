"""spec.parse_spec: the typed spec, its defaults, and what it rejects beyond the schema."""

from __future__ import annotations

from typing import Any

import pytest
from tfcluster_operator.spec import SpecError, TaskRef, parse_spec


def parse(spec: dict[str, Any], name: str = "demo") -> Any:
    return parse_spec(name, "ns", spec, default_image="img:1")


def test_defaults_and_types() -> None:
    spec = parse({"jobs": [{"name": "ps"}, {"name": "worker", "replicas": 3}]})
    assert spec.image == "img:1"
    assert (spec.port, spec.metrics_port, spec.direct_port, spec.suspend) == (
        2222,
        9090,
        2223,
        False,
    )
    assert [(j.name, j.replicas, j.gpus) for j in spec.jobs] == [("ps", 1, 0), ("worker", 3, 0)]
    assert spec.client == TaskRef("worker", 0)
    assert str(spec.client) == "/job:worker/task:0"
    assert spec.child_name("ps") == "demo-ps"
    assert spec.client_service_name == "demo-client"


def test_chief_serves_clients_before_worker() -> None:
    spec = parse({"jobs": [{"name": "worker", "replicas": 2}, {"name": "chief"}]})
    assert spec.client == TaskRef("chief", 0)


def test_explicit_client_task() -> None:
    spec = parse({"jobs": [{"name": "worker", "replicas": 3, "clientTask": 2}, {"name": "chief"}]})
    assert spec.client == TaskRef("worker", 2)


def test_worker_with_no_tasks_cannot_serve() -> None:
    with pytest.raises(SpecError) as err:
        parse({"jobs": [{"name": "ps"}, {"name": "worker", "replicas": 0}]})
    assert err.value.reason == "NoClientTask"


@pytest.mark.parametrize(
    ("spec", "name", "reason", "words"),
    [
        ({"jobs": []}, "demo", "InvalidSpec", "at least one job"),
        ({"jobs": [{"name": "ps"}]}, "demo", "NoClientTask", "no task to serve sessions"),
        ({"jobs": [{"name": "Worker"}]}, "demo", "InvalidName", "DNS-1035"),
        ({"jobs": [{"name": "worker"}]}, "1demo", "InvalidName", "metadata.name"),
        ({"jobs": [{"name": "worker"}, {"name": "worker"}]}, "demo", "InvalidSpec", "twice"),
        ({"jobs": [{"name": "client"}]}, "demo", "InvalidSpec", "reserved"),
        ({"jobs": [{"name": "w" * 40}]}, "n" * 20, "NameTooLong", "52"),
        ({"jobs": [{"name": "worker", "replicas": -1}]}, "demo", "InvalidSpec", ">= 0"),
        ({"jobs": [{"name": "worker", "clientTask": 1}]}, "demo", "InvalidClientTask", "only 1"),
        (
            {"jobs": [{"name": "worker", "clientTask": 0}, {"name": "chief", "clientTask": 0}]},
            "demo",
            "InvalidClientTask",
            "at most one job",
        ),
        ({"port": 9090, "jobs": [{"name": "worker"}]}, "demo", "InvalidSpec", "must differ"),
        (
            {"directPort": 2222, "jobs": [{"name": "worker"}]},
            "demo",
            "InvalidSpec",
            "spec.port and spec.directPort are both 2222",
        ),
        (
            {"directPort": 9090, "jobs": [{"name": "worker"}]},
            "demo",
            "InvalidSpec",
            "spec.metricsPort and spec.directPort are both 9090",
        ),
        (
            {"port": 2223, "jobs": [{"name": "worker"}]},
            "demo",
            "InvalidSpec",
            "spec.port and spec.directPort are both 2223",
        ),
        ({"directPort": 0, "jobs": [{"name": "worker"}]}, "demo", "InvalidSpec", "1..65535"),
        ({"port": 70000, "jobs": [{"name": "worker"}]}, "demo", "InvalidSpec", "1..65535"),
        ({"port": "2222", "jobs": [{"name": "worker"}]}, "demo", "InvalidSpec", "not an integer"),
        (
            {"jobs": [{"name": "worker", "template": {"spec": {"env": [{"name": "TF_CONFIG"}]}}}]},
            "demo",
            "ReservedEnv",
            "TF_CONFIG",
        ),
        (
            {
                "jobs": [
                    {
                        "name": "worker",
                        "template": {"spec": {"env": [{"name": "TFCLUSTER_DIRECT_PORT"}]}},
                    }
                ]
            },
            "demo",
            "ReservedEnv",
            "TFCLUSTER_DIRECT_PORT",
        ),
        (
            {"jobs": [{"name": "worker", "template": {"spec": {"tolerations": {"a": 1}}}}]},
            "demo",
            "InvalidSpec",
            "not a list",
        ),
        ({"imagePullPolicy": "Sometimes", "jobs": [{"name": "worker"}]}, "demo", "InvalidSpec", ""),
    ],
)
def test_rejects(spec: dict[str, Any], name: str, reason: str, words: str) -> None:
    with pytest.raises(SpecError) as err:
        parse(spec, name)
    assert err.value.reason == reason
    assert words in err.value.message


def test_no_image_anywhere() -> None:
    with pytest.raises(SpecError, match=r"spec\.image is empty"):
        parse_spec("demo", "ns", {"jobs": [{"name": "worker"}]}, default_image="")


def test_overrides_are_parsed() -> None:
    spec = parse(
        {
            "image": "mine:2",
            "jobs": [
                {
                    "name": "worker",
                    "gpus": 2,
                    "image": "gpu:2",
                    "resources": {"limits": {"memory": "1Gi"}},
                    "template": {
                        "metadata": {"labels": {"team": "a"}, "annotations": {"x": "1"}},
                        "spec": {
                            "nodeSelector": {"pool": "gpu"},
                            "tolerations": [{"key": "k", "operator": "Exists"}],
                            "env": [{"name": "A", "value": "1"}],
                            "serviceAccountName": "trainer",
                        },
                    },
                }
            ],
        }
    )
    job = spec.job("worker")
    assert spec.image == "mine:2" and job.image == "gpu:2" and job.gpus == 2
    assert job.template.labels == {"team": "a"}
    assert job.template.node_selector == {"pool": "gpu"}
    assert job.template.env == ({"name": "A", "value": "1"},)
    assert job.template.service_account_name == "trainer"
    with pytest.raises(KeyError):
        spec.job("ps")
