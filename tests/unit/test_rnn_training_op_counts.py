"""Recurrent networks trained by an optimizer's minimize() count ops as TF 1.15 builds them,
so a random op made after the training op draws TF's numbers; and they train as TF's do.

minimize() gates each op's input gradients (gate_gradients=GATE_OP), inside TF1's gradient
while loop too: a NoOp and an Identity per gradient for every op of the cell's gradient with
more than one, and for each loop variable's Merge; not for the loop as a whole. A loop
variable no gradient reaches (an RNN's outputs when only its final state is used) is not
differentiated inside the loop. Recorded under TF 1.15 by
tests/tf_reference/record_rnn_training_op_counts.py.
"""

import pytest
import tfcluster as tf
from tf_reference import reference
from tf_reference.rnn_training_op_count_cases import CASES


@pytest.fixture(scope="module")
def results() -> dict:
    return {}


def _run(name: str, results: dict) -> dict:
    if name not in results:
        results[name] = CASES[name](tf)
    return results[name]


@pytest.mark.parametrize("name", sorted(CASES))
def test_training_op_leaves_tf1_op_count_and_random_values(name: str, results: dict) -> None:
    expected = reference.case("rnn_training_op_counts", name)
    actual = _run(name, results)
    assert actual["op_count"] == expected["op_count"]
    reference.assert_close(actual["after"], expected["after"])


@pytest.mark.parametrize("name", sorted(CASES))
def test_training_steps_are_tf1s(name: str, results: dict) -> None:
    expected = reference.case("rnn_training_op_counts", name)
    actual = _run(name, results)
    reference.assert_close(actual["losses"], expected["losses"], rtol=1e-5, atol=1e-6)
    assert len(actual["trained"]) == len(expected["trained"])
    for got, want in zip(actual["trained"], expected["trained"]):
        reference.assert_close(got, want, rtol=1e-5, atol=1e-5)
