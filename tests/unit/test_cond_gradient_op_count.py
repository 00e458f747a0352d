"""Gradients through tf.cond count ops as TF 1.15's Switch/Merge gradient builds them, so a
random op made after tf.gradients draws TF's numbers; and their values are TF's.

TF1 differentiates a v1 cond with a Switch of each differentiated Merge's gradient, the
branch ops' gradients, and per value switched into a branch on the gradient's path a Merge
with zeros for the branch not taken (Switch, Identity, Shape, Const, Fill), the branches'
gradients of one value added by an AddN. Recorded under TF 1.15 by
tests/tf_reference/record_cond_gradients.py.
"""

import numpy as np
import pytest
import tfcluster as tf
from tf_reference import reference
from tf_reference.cond_gradient_cases import CASES

# Cases whose op count still differs from TF 1.15's, and why. The test fails if one of them
# starts to match (then it moves out of this list).
KNOWN_COUNT_DIFFERENCES: dict[str, str] = {}


def _same_values(actual: dict, expected: dict) -> None:
    for key in ("grads_true", "grads_false"):
        assert len(actual[key]) == len(expected[key])
        for got, want in zip(actual[key], expected[key]):
            # float32 sums through nested loops round in another order than TF's
            reference.assert_close(got, want, atol=1e-5)


@pytest.mark.parametrize("name", sorted(CASES))
def test_cond_gradient_values_are_tf1s(name: str) -> None:
    _same_values(CASES[name](tf), reference.case("cond_gradients", name))


@pytest.mark.parametrize("name", sorted(set(CASES) - set(KNOWN_COUNT_DIFFERENCES)))
def test_cond_gradient_leaves_tf1_op_count_and_random_values(name: str) -> None:
    expected = reference.case("cond_gradients", name)
    actual = CASES[name](tf)
    assert actual["op_count"] == expected["op_count"]
    reference.assert_close(actual["after"], expected["after"])


@pytest.mark.parametrize("name", sorted(KNOWN_COUNT_DIFFERENCES))
def test_known_op_count_differences_still_differ(name: str) -> None:
    expected = reference.case("cond_gradients", name)
    actual = CASES[name](tf)
    assert actual["op_count"] != expected["op_count"]
    assert not np.allclose(actual["after"], expected["after"])
