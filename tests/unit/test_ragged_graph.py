"""RaggedTensors in a graph against TF 1.15's recorded ones (tests/tf_reference/
cases_ragged_graph.py): what printing each result shows (tensor names, static shapes the
shape refiner knows, dtypes), its value from a session, and error classes; element-wise ops
broadcasting dense and ragged operands over ragged dimensions."""

from __future__ import annotations

import pytest
import tfcluster as tf
from tf_reference import cases_ragged_graph, reference


@pytest.mark.parametrize("name", sorted(cases_ragged_graph.CASES))
def test_ragged_graph_case_matches_tensorflow(name: str) -> None:
    want = reference.case("ragged_graph", name)
    got = cases_ragged_graph.run_case(tf, cases_ragged_graph.CASES[name])
    assert sorted(got) == sorted(want)
    for key, value in want.items():
        assert got[key] == value, f"{name}: {key}"
