"""The `tfcluster` command's pure helpers: cluster specs, TF_CONFIG, BLAS threads, usage."""

from __future__ import annotations

import json

import pytest
from tfcluster.cli import tfcluster_main as cli


def test_cluster_spec_forms_round_trip() -> None:
    spec = {"ps": ["a:1"], "worker": ["b:2", "c:3"]}
    flag = cli.cluster_flag(spec)
    assert flag == "ps|a:1,worker|b:2;c:3"
    assert cli.parse_cluster_spec(flag) == spec
    assert cli.parse_cluster_spec(json.dumps(spec)) == spec
    assert cli.parse_cluster_spec(json.dumps({"cluster": spec, "task": {}})) == spec
    with pytest.raises(ValueError, match="bad job in cluster spec"):
        cli.parse_cluster_spec("ps:a:1")


def test_tf_config_names_the_task() -> None:
    spec = {"ps": ["a:1"], "worker": ["b:2"]}
    assert json.loads(cli.tf_config(spec, "worker", 0)) == {
        "cluster": spec,
        "task": {"type": "worker", "index": 0},
    }
    assert json.loads(cli.tf_config(spec, None, None)) == {"cluster": spec}


def test_local_cluster_has_distinct_ports() -> None:
    c = cli.local_cluster(2, 3)
    addresses = c["ps"] + c["worker"]
    assert len(c["ps"]) == 2 and len(c["worker"]) == 3
    assert len(set(addresses)) == 5 and all(a.startswith("localhost:") for a in addresses)


def test_side_ports_are_distinct_and_never_a_tasks_own() -> None:
    cluster = cli.local_cluster(1, 2)
    metrics, direct = cli.side_ports(cluster, 2)
    names = ["ps-0", "worker-0", "worker-1"]
    assert list(metrics) == names and list(direct) == names
    task_ports = {int(a.rsplit(":", 1)[1]) for tasks in cluster.values() for a in tasks}
    side = [*metrics.values(), *direct.values()]
    assert len(set(side)) == 6 and not task_ports & set(side)


def test_task_flags_are_the_between_graph_program_flags() -> None:
    cmd = cli._task_command(
        ["prog"], {"ps": ["a:1"], "worker": ["b:2", "c:3"]}, "worker", 1, True, ["--x=1"]
    )
    assert cmd == [
        "prog",
        "--ps_hosts=a:1",
        "--worker_hosts=b:2,c:3",
        "--job_name=worker",
        "--task_index=1",
        "--x=1",
    ]
    assert cli._task_command(["prog"], {"worker": ["b:2"]}, "worker", 0, False, []) == ["prog"]


def test_usage(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main([]) == cli.EXIT_USAGE
    assert "train" in capsys.readouterr().out
    with pytest.raises(SystemExit):
        cli.main(["train", "--ps", "x"])
