"""tf.test.compute_gradient(_error) of a y that does not depend on x fails as TF's does.

Error classes recorded under TF 1.15 (tests/tf_reference/record_gradient_checker_errors.py).
"""

import tfcluster as tf
from tf_reference import reference
from tf_reference.gradient_checker_error_cases import CASES


def test_unconnected_y_is_an_assertion_error_as_in_tf() -> None:
    expected = reference.case("gradient_checker_errors", "unconnected_y")
    assert CASES["unconnected_y"](tf) == expected
