"""An InteractiveSession's steps and L2Loss's sums against TF 1.15's recorded answers
(tests/tf_reference/record_interactive_session.py): TF's InteractiveSession places pruned
graphs, which grappler never optimizes, so an AddN adds in the graph's order and a one-unit
dense layer's MatMul and BiasAdd stay apart (a Session sorts and fuses them); L2Loss sums the
halved squares in Eigen's order. Results are compared bit for bit."""

from __future__ import annotations

import pytest
import tfcluster as tf
from tf_reference import reference
from tf_reference.case_tools import same
from tf_reference.interactive_session_cases import CASES

AREA = "interactive_session"


@pytest.mark.parametrize("name", sorted(CASES))
def test_interactive_session_steps_as_tf(name: str) -> None:
    same(CASES[name](tf), reference.case(AREA, name), name)
