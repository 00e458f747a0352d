"""A session places its whole graph each time it grows, as TF 1.15's sessions do: a node no
device can take fails every step, needed or not (an InteractiveSession places only what each
step needs), and soft placement relaxes the device type and index, never the job, replica or
task. Compared with TF 1.15's outcomes (tests/tf_reference/data/whole_graph_placement.json)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import tfcluster as tf
from tf_reference.whole_graph_placement_cases import cases, run_all

_DATA = Path(__file__).parents[1] / "tf_reference" / "data" / "whole_graph_placement.json"
_RECORDED: dict[str, str] = json.loads(_DATA.read_text())["cases"]


@pytest.fixture(scope="module")
def outcomes() -> dict[str, str]:
    return run_all(tf)


def test_every_case_is_recorded() -> None:
    assert sorted(cases()) == sorted(_RECORDED)


@pytest.mark.parametrize("name", sorted(_RECORDED))
def test_outcome_is_tfs(outcomes: dict[str, str], name: str) -> None:
    assert outcomes[name] == _RECORDED[name]


def test_the_error_names_the_node_and_ends_with_it() -> None:
    tf.reset_default_graph()
    with tf.device("/job:ps/task:0"):
        tf.truncated_normal([2], name="far")
    near = tf.add(tf.constant(1.0), 1.0)
    with tf.Session() as sess, pytest.raises(tf.errors.InvalidArgumentError) as e:
        sess.run(near)
    assert e.value.message.startswith(
        "Cannot assign a device for operation far/TruncatedNormal: node far/TruncatedNormal"
    )
    assert e.value.message.endswith("\n\t [[far/TruncatedNormal]]")
