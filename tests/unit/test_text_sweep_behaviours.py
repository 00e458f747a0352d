"""Behaviours of public text, graph and recommender TF1 programs (an Estimator
knowledge-graph model fed sparse labels from Dataset.from_generator, trained with
train_and_evaluate) against TF 1.15's recorded answers (tests/tf_reference/
record_text_sweep.py): op seeds after pipelines with sparse elements, what Estimator logs,
and the names of its global-step read."""

from __future__ import annotations

import tfcluster as tf
from tf_reference import reference
from tf_reference.case_tools import same
from tf_reference.codec import decode, encode
from tf_reference.text_sweep_cases import CASES

AREA = "text_sweep"


def _run(name: str) -> tuple[object, object]:
    want = reference.case(AREA, name)
    assert "skipped" not in want, want.get("skipped")
    return decode(encode(CASES[name](tf))), want


def test_pipelines_with_sparse_elements_leave_tfs_op_seeds_after_them() -> None:
    got, want = _run("sparse_elements_count_tfs_ops")
    same(got, want, "sparse_elements_count_tfs_ops")


def test_estimator_logs_train_evaluate_and_train_and_evaluate_as_tf() -> None:
    got, want = _run("estimator_logs_as_tf")
    assert isinstance(got, dict) and isinstance(want, dict)
    for key in ("train_evaluate_log", "train_and_evaluate_log"):
        assert got[key] == want[key], key
    same(got, want, "estimator_logs_as_tf")


def _outside_initialized_value(ops: list[list[str]]) -> list[list[str]]:
    # tfcluster writes initialized_value's cond under the variable's own name
    # (`global_step/global_step/initialized_value/...`, no pivot Identities), TF under
    # `global_step/cond/`: only the ops around it are compared.
    return [
        op
        for op in ops
        if "/cond/" not in op[0]
        and "initialized_value" not in op[0]
        and op[1] != "IsVariableInitialized"
    ]


def test_estimator_graph_reads_the_global_step_with_tfs_op_names() -> None:
    got, want = _run("estimator_graph_names")
    assert isinstance(got, dict) and isinstance(want, dict)
    assert _outside_initialized_value(got["global_step_ops"]) == _outside_initialized_value(
        want["global_step_ops"]
    )


def test_canned_estimator_heads_summarize_the_mean_loss_by_tfs_name() -> None:
    got, want = _run("canned_heads_summarize_the_mean_loss")
    same(got, want, "canned_heads_summarize_the_mean_loss")
