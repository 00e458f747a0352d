"""tf.cond / tf.while_loop count ops as TF1 builds them, so later random ops draw TF's numbers.

TF1 seeds a random op made under a graph seed with the graph's op count; its cond and
while_loop add Switch/Merge/Enter/Exit ops (and their bodies' ops) to the graph. Values
recorded under TF 1.15 (tests/tf_reference/record_op_counts.py).
"""

import pytest
import tfcluster as tf
from tf_reference import reference
from tf_reference.op_count_cases import CASES


@pytest.mark.parametrize("name", sorted(CASES))
def test_construct_leaves_tf1_op_count_and_random_values(name: str) -> None:
    expected = reference.case("op_counts", name)
    actual = CASES[name](tf)
    assert actual["op_count"] == expected["op_count"]
    for key in ("after", "inside_true", "inside_false"):
        assert (key in actual) == (key in expected)
        if key in expected:
            reference.assert_close(actual[key], expected[key])
