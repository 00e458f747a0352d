"""MetaGraphs TF 1.15 wrote for tf.data pipelines that use the remaining dataset ops
(ExperimentalGroupByReducerDataset, ParseExampleDataset with TF's variant sparse components
read by DeserializeSparse, AssertNextDataset, ChooseFastestBranchDataset) import and run on
tfcluster, giving the elements (or the error) TF 1.15 recorded
(tests/tf_reference/record_dataset_form_graphs.py)."""

from __future__ import annotations

import os
from typing import Any

import pytest
import tfcluster as tf
from tf_reference import reference

AREA = "dataset_form_graphs"
FILES = os.path.join(reference.DATA_DIR, AREA)


def _names() -> list[str]:
    return sorted(n[: -len(".meta")] for n in os.listdir(FILES) if n.endswith(".meta"))


def _run(name: str, spec: dict[str, Any]) -> tuple[list[list[Any]], list[str] | str, set[str]]:
    with tf.Graph().as_default() as g:
        tf.train.import_meta_graph(os.path.join(FILES, f"{name}.meta"))
        op_types = {op.type for op in g.get_operations()}
        init = g.get_operation_by_name(spec["init"])
        fetch = [g.get_tensor_by_name(n) for n in spec["fetch"]]
        steps: list[list[Any]] = []
        with tf.Session() as sess:
            try:
                sess.run(init)
                while True:
                    try:
                        steps.append(sess.run(fetch))
                    except tf.errors.OutOfRangeError:
                        break
            except tf.errors.OpError as e:
                return steps, [type(e).__name__, str(e.message).splitlines()[0]], op_types
    return steps, "", op_types


@pytest.mark.parametrize("name", _names())
def test_pipeline_graph_tf_wrote_runs_as_in_tf(name: str) -> None:
    spec = reference.case(AREA, name)
    steps, error, op_types = _run(name, spec)
    assert op_types == set(spec["op_types"])
    assert error == spec["error"]
    assert len(steps) == len(spec["steps"])
    for got_step, want_step in zip(steps, spec["steps"]):
        assert len(got_step) == len(want_step)
        for got, want in zip(got_step, want_step):
            reference.assert_close(got, want)


def test_every_recorded_pipeline_has_its_graph() -> None:
    assert _names() == ["assert_next_fails", "assert_next_passes", "choose_fastest_branch",
                        "group_by_reducer", "parse_example_dataset"]
