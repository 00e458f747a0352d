"""tf.data input code makes TF's op names (padded_batch's constants, IteratorV2,
make_initializer) and leaves TF 1.15's op count, so later random ops draw TF's numbers.

Recorded under TF 1.15 (tests/tf_reference/record_dataset_graph.py).
"""

import pytest
import tfcluster as tf
from tf_reference import reference
from tf_reference.dataset_graph_cases import CASES


@pytest.mark.parametrize("name", sorted(CASES))
def test_dataset_graph_matches_tf(name: str) -> None:
    expected = reference.case("dataset_graph", name)
    actual = CASES[name](tf)
    assert sorted(actual) == sorted(expected)
    for key, value in expected.items():
        if key == "after":
            reference.assert_close(actual[key], value)
        else:
            assert actual[key] == value
