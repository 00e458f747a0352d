"""tf.data graphs hold TF 1.15's ops under TF's names (normalize_element/component_<i>, the
seed2 Select of a seeded shuffle), so random ops made after a pipeline get TF's op seeds and
values: each program of tests/tf_reference/dataset_graph_names_cases.py runs here and is
compared with TF 1.15's recorded answers (record_dataset_graph_names.py)."""

from __future__ import annotations

import numpy as np
import pytest
import tfcluster as tf
from tf_reference import reference
from tf_reference.dataset_graph_names_cases import CASES


@pytest.mark.parametrize("name", sorted(CASES))
def test_program_builds_what_tf_built(name: str) -> None:
    tf.reset_default_graph()
    tf.set_random_seed(1)
    got = CASES[name](tf)
    recorded = reference.case("dataset_graph_names", name)
    assert sorted(got) == sorted(recorded)
    for key, value in recorded.items():
        if isinstance(value, np.ndarray):
            reference.assert_close(got[key], value, rtol=1e-6, atol=1e-6)
        else:
            assert got[key] == value, key
