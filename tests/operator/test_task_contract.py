"""The operator and the task server agree on their contract: the command a task container
runs, the environment variables the operator sets there and the server reads, and the ports
both take by default. Each side names it in a module of its own (the operator does not import
the runtime); these tests hold the two together."""

from __future__ import annotations

import json
import socket
from pathlib import Path
from typing import Any

import pytest
from support.operator_manifests import container_env
from tfcluster.cli import server_main
from tfcluster.settings import contract as server_side
from tfcluster_operator import task_contract as operator_side
from tfcluster_operator.builders import OwnerRef, statefulset
from tfcluster_operator.builders.meta import POD_INDEX_LABEL
from tfcluster_operator.spec import RESERVED_ENV, parse_spec

TLS_ENV = {server_side.TLS_CERT_ENV, server_side.TLS_KEY_ENV, server_side.TLS_CA_ENV}
NAMES = (
    "SERVER_COMMAND",
    "TF_CONFIG_ENV",
    "TASK_INDEX_ENV",
    "METRICS_PORT_ENV",
    "DIRECT_PORT_ENV",
    "TLS_CERT_ENV",
    "TLS_KEY_ENV",
    "TLS_CA_ENV",
    "CPU_BUDGET_ENV",
    "OPERATOR_ENV",
    "DEFAULT_GRPC_PORT",
    "DEFAULT_METRICS_PORT",
    "DEFAULT_DIRECT_PORT",
    "TERMINATION_MESSAGE_PATH",
    "TERMINATION_MESSAGE_LIMIT",
)


@pytest.mark.parametrize("name", NAMES)
def test_both_sides_spell_the_contract_alike(name: str) -> None:
    assert getattr(operator_side, name) == getattr(server_side, name)


def test_users_may_not_set_what_the_operator_sets() -> None:
    assert RESERVED_ENV == operator_side.OPERATOR_ENV


def _task_container(spec_fields: dict[str, Any]) -> dict[str, Any]:
    spec = parse_spec(
        "demo",
        "team",
        {"jobs": [{"name": "ps"}, {"name": "worker", "replicas": 3}], **spec_fields},
        default_image="img:1",
    )
    sts = statefulset(spec, spec.job("worker"), OwnerRef(name="demo", uid="uid"))
    (container,) = sts["spec"]["template"]["spec"]["containers"]
    return container


@pytest.mark.parametrize(
    "spec_fields, metrics_port, direct_port",
    [({}, 9090, "2223"), ({"port": 3000, "metricsPort": 9100, "directPort": 3001}, 9100, "3001")],
)
def test_the_server_command_reads_what_the_operator_sets(
    spec_fields: dict[str, Any], metrics_port: int, direct_port: str
) -> None:
    """The environment a task pod gets (as the kubelet resolves it) tells tfcluster-server
    its task, its metrics port and its direct-streams port, with no flags."""
    container = _task_container(spec_fields)
    assert container["command"] == [server_side.SERVER_COMMAND]
    env = container_env(container["env"], {POD_INDEX_LABEL: "2"})
    # No CPU budget: the job gives no CPU limit or request; no TLS: spec.tls is off.
    assert set(env) == server_side.OPERATOR_ENV - {server_side.CPU_BUDGET_ENV} - TLS_ENV
    secured = container_env(
        _task_container({**spec_fields, "tls": {"enabled": True}})["env"], {POD_INDEX_LABEL: "2"}
    )
    assert set(secured) == server_side.OPERATOR_ENV - {server_side.CPU_BUDGET_ENV}
    args = server_main.build_parser().parse_args([])
    cluster, job, index = server_main.resolve_task(args, env)
    assert (job, index) == ("worker", 2)
    assert cluster.task_address("worker", 2).endswith(f":{spec_fields.get('port', 2222)}")
    choice, warning = server_main.resolve_metrics_port(args, env)
    assert (choice.port, choice.required, warning) == (metrics_port, True, "")
    assert server_main.resolve_direct_port(env) == direct_port
    assert server_main.resolve_tls(args, env) is None
    files = server_main.resolve_tls(args, secured)
    assert files is not None and files.cert.endswith("/2.crt") and files.key.endswith("/2.key")


@pytest.mark.parametrize(
    "resources, millicores, cpus",
    [
        ({"limits": {"cpu": "1500m"}, "requests": {"cpu": "1"}}, "1500", 2),
        ({"requests": {"cpu": "1"}}, "1000", 1),
        ({"limits": {"cpu": 3}}, "3000", 3),
    ],
)
def test_the_server_sizes_its_pools_to_the_cpu_budget_the_operator_passes(
    resources: dict[str, Any], millicores: str, cpus: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The downward API gives the container its CPU limit (else its request) in millicores;
    the server's default thread budget is that, rounded up (capped by the CPUs it may use)."""
    from tfcluster.runtime import cpu_quota, thread_budget

    container = _task_container(
        {"jobs": [{"name": "ps"}, {"name": "worker", "replicas": 3, "resources": resources}]}
    )
    env = container_env(container["env"], {POD_INDEX_LABEL: "2"}, container["resources"])
    assert env[server_side.CPU_BUDGET_ENV] == millicores
    monkeypatch.setattr(cpu_quota, "available_cpus", lambda *a, **k: 64)  # a big node
    monkeypatch.setenv(server_side.CPU_BUDGET_ENV, env[server_side.CPU_BUDGET_ENV])
    assert thread_budget.default_cpus() == cpus


def test_the_operator_reads_the_file_the_server_writes_its_last_words_to() -> None:
    container = _task_container({})
    assert container["terminationMessagePath"] == server_side.TERMINATION_MESSAGE_PATH
    # A crash that leaves no message (killed, an interpreter crash): the log's tail instead.
    assert container["terminationMessagePolicy"] == "FallbackToLogsOnError"


def test_a_task_server_that_cannot_start_leaves_its_error_as_termination_message(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    log = tmp_path / "termination-log"
    log.write_text("")  # the kubelet creates the file; the server only writes it
    monkeypatch.setenv(server_side.TF_CONFIG_ENV, '{"cluster": {"worker": ["h:1"]}, "task": {}}')
    assert server_main.main([], termination_log=str(log)) == server_main.EXIT_USAGE
    message = log.read_text()
    assert message.startswith("tfcluster-server: ") and "TF_CONFIG" in message
    assert message in capsys.readouterr().err  # the same line as on stderr


def test_a_task_server_that_cannot_serve_says_why_in_its_termination_message(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    log = tmp_path / "termination-log"
    log.write_text("")
    with socket.socket() as taken:
        taken.bind(("0.0.0.0", 0))
        taken.listen()
        port = taken.getsockname()[1]
        monkeypatch.setenv(
            server_side.TF_CONFIG_ENV,
            json.dumps(
                {"cluster": {"ps": [f"localhost:{port}"]}, "task": {"type": "ps", "index": 0}}
            ),
        )
        monkeypatch.setenv(server_side.METRICS_PORT_ENV, "0")
        assert server_main.main([], termination_log=str(log)) == server_main.EXIT_FAILED
    assert log.read_text() == (
        f"tfcluster-server: Could not start gRPC server: port {port} of task "
        f"/job:ps/replica:0/task:0 ('localhost:{port}') is in use"
    )


def test_termination_message_is_written_only_where_the_kubelet_made_the_file(
    tmp_path: Path,
) -> None:
    missing = tmp_path / "no-such-file"
    assert not server_main.write_termination_message("boom", str(missing))
    assert not missing.exists()  # outside a container nothing is created
    log = tmp_path / "termination-log"
    log.write_text("")
    assert server_main.write_termination_message("é" * 5000, str(log))
    assert len(log.read_bytes()) <= server_side.TERMINATION_MESSAGE_LIMIT
