"""RunConfig(train_distribute=...) under TF_CONFIG as TF 1.15 sets it up
(tests/tf_reference/distribute_coordinator_cases.py, recorded by
record_distribute_coordinator.py): a cluster without a `master` job goes to the distribute
coordinator (INDEPENDENT_WORKER), the config staying local but for the cluster spec and
without a session config; Estimator.train / evaluate called directly then fail as TF's; a
strategy the coordinator configures for a task tells the input_fn that task's pipeline."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import tfcluster as tf
from tf_reference.distribute_coordinator_cases import (
    CONFIG_CASES,
    INPUT_CONTEXT_CASES,
    config_case,
    direct_call_case,
    input_context_case,
)

DATA = Path(__file__).resolve().parents[1] / "tf_reference" / "data" / "distribute_coordinator.json"
REFERENCE = json.loads(DATA.read_text())


@pytest.mark.parametrize("name,tf_config", CONFIG_CASES, ids=[c[0] for c in CONFIG_CASES])
def test_run_config_with_train_distribute_under_tf_config(
    name: str, tf_config: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("TF_CONFIG", raising=False)
    # (A local RunConfig's session config is None, as TF 1.15's, until an Estimator sets it.)
    assert config_case(tf, tf_config) == REFERENCE["config"][name]


@pytest.mark.parametrize("call", ["train", "evaluate"])
def test_direct_estimator_call_under_independent_worker_mode_fails(
    call: str, tmp_path: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("TF_CONFIG", raising=False)
    assert direct_call_case(tf, str(tmp_path), call) == REFERENCE["direct_call"][call]


@pytest.mark.parametrize("case", INPUT_CONTEXT_CASES, ids=[c[0] for c in INPUT_CONTEXT_CASES])
def test_input_context_of_a_strategy_configured_for_a_task(case: tuple[Any, ...]) -> None:
    # A ParameterServerStrategy worker reads one of all chief/worker pipelines (TF's
    # multi_worker_util.worker_count / id_in_cluster), with its own replicas in sync.
    name, strategy, cluster, task_type, task_id = case
    got = input_context_case(tf, strategy, cluster, task_type, task_id)
    assert got == REFERENCE["input_context"][name]
