"""Which graph is the default while a session is the default one, against TF 1.15's recorded
answers (tests/tf_reference/record_default_session_graph.py): `sess.as_default()` leaves the
default graph alone, `with sess:` enters the session's graph (once), and an InteractiveSession
enters its graph only when given one, so tf.reset_default_graph() works after opening one on
the default graph; opening one while another is open warns."""

from __future__ import annotations

import pytest
import tfcluster as tf
from tf_reference import reference
from tf_reference.case_tools import same
from tf_reference.default_session_graph_cases import CASES

AREA = "default_session_graph"


@pytest.mark.parametrize("name", sorted(CASES))
def test_default_graph_under_a_default_session_as_tf(name: str) -> None:
    same(CASES[name](tf), reference.case(AREA, name), name)
