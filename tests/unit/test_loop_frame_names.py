"""v1 while loops written as TF 1.15 writes them (Enter names after their first reader, the
iteration counter first), against TF's recorded GraphDefs
(tests/tf_reference/record_loop_frame_names.py)."""

from __future__ import annotations

import pytest
import tfcluster as tf
from tf_reference import reference
from tf_reference.loop_frame_name_cases import CASES

AREA = "loop_frame_names"


@pytest.mark.parametrize("name", sorted(CASES))
def test_loop_graph_defs_are_tfs(name: str) -> None:
    reference.assert_case_equal(AREA, name, CASES[name](tf))
