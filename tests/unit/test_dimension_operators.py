"""tf.Dimension's operators with Python values answer as TF 1.15's do.

A value that is no dimension (a list, a string, 2.5) makes +, -, * and // return
NotImplemented, so `[None] * tensor.shape[1]` repeats the list through __index__ (the
Viterbi decoder of dwiel/tensorflow_hmm builds its backtrack list that way); the reflected
operators, % and the comparisons convert their operand and raise; an unknown dimension has no
int. Values recorded under TF 1.15 (tests/tf_reference/record_dimension_operators.py).
"""

import pytest
import tfcluster as tf
from tf_reference import reference
from tf_reference.dimension_cases import CASES


@pytest.mark.parametrize("name", sorted(CASES))
def test_dimension_operators_answer_as_tf(name: str) -> None:
    expected = reference.case("dimension_operators", name)["results"]
    actual = CASES[name](tf)["results"]
    assert [label for label, _ in actual] == [label for label, _ in expected]
    for (label, got), (_, want) in zip(actual, expected):
        assert got == want, label


def test_a_list_repeated_by_a_static_dimension_has_that_length() -> None:
    with tf.Graph().as_default():
        y = tf.placeholder(tf.float32, shape=(None, 5, 2))
        backtrack = [None] * y.shape[1]
        backtrack[-1] = tf.argmax(y[:, -1], axis=1)
        assert len(backtrack) == 5
        assert backtrack[:4] == [None] * 4
