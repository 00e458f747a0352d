"""tf.keras.utils.model_to_dot / plot_model against TF 1.15's recorded graphs
(tests/tf_reference/record_model_plot.py): labels, shape tables, edges, nested clusters and
wrappers as TF's vis_utils builds them, and its ImportError without graphviz. Needs pydot (a
dev dependency)."""

from __future__ import annotations

import pytest
import tfcluster as tf
from tf_reference import reference
from tf_reference.case_tools import same
from tf_reference.model_plot_cases import CASES

AREA = "model_plot"


@pytest.mark.parametrize("name", sorted(CASES))
def test_model_to_dot_as_tf(name: str) -> None:
    same(CASES[name](tf), reference.case(AREA, name), name)
