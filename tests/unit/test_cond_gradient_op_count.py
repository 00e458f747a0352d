"""Gradients through tf.cond count ops as TF 1.15's Switch/Merge gradient builds them, so a
random op made after tf.gradients draws TF's numbers; and their values are TF's.

TF1 differentiates a v1 cond with a Switch of each differentiated Merge's gradient, the
branch ops' gradients, and per value switched into a branch on the gradient's path a Merge
with zeros for the branch not taken (Switch, Identity, Shape, Const, Fill), the branches'
gradients of one value added by an AddN. Recorded under TF 1.15 by
tests/tf_reference/record_cond_gradients.py.
"""

import re

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


# Cases whose gradient ops outside the functional op's own gradient take other names than
# TF 1.15's, or come in another order, and why.
KNOWN_NAME_DIFFERENCES: dict[str, list[str]] = {}
# (The If's results are Identities named as TF1's Merges: their gradients come back in TF's
# order, the moments' after the second cond's.)
KNOWN_ORDER_DIFFERENCES: dict[str, str] = {}


def _outside_functional_gradients(names: list[str]) -> list[str]:
    """The names not inside the gradient scope of an If/While op ("<op name>_grad/"), whose
    gradient TF1 builds of other ops, nor the While gradient's results named as TF1's
    accumulators of a loop invariant ("<Enter>_grad/b_acc_N"): TF1 makes those while it walks
    the loop, after ops outside it, the While's gradient at its end."""
    scopes = [n.rsplit("/", 1)[0] + "/" for n in names if n.endswith(("_grad/If", "_grad/while"))]
    return [
        n
        for n in names
        if not n.startswith(tuple(scopes)) and not re.search(r"/Enter(_\d+)?_grad/b_acc_\d+$", n)
    ]


@pytest.mark.parametrize("name", sorted(CASES))
def test_gradient_ops_outside_the_functional_op_take_tf1s_names(name: str) -> None:
    expected = reference.case("cond_gradients", name)["gradient_op_names"]
    ours = _outside_functional_gradients(CASES[name](tf)["gradient_op_names"])
    assert [n for n in ours if n not in expected] == KNOWN_NAME_DIFFERENCES.get(name, [])
    if name not in KNOWN_ORDER_DIFFERENCES:
        ours = [n for n in ours if n in expected]
        remaining = iter(expected)
        assert all(n in remaining for n in ours)  # in TF's order: a subsequence of its list


@pytest.mark.parametrize("name", sorted(KNOWN_ORDER_DIFFERENCES))
def test_known_order_differences_still_differ(name: str) -> None:
    expected = reference.case("cond_gradients", name)["gradient_op_names"]
    ours = _outside_functional_gradients(CASES[name](tf)["gradient_op_names"])
    remaining = iter(expected)
    assert not all(n in remaining for n in ours)
