"""tf.test.TestCase's test_session taken by unittest for a test, against TF 1.15's recorded
answers (tests/tf_reference/record_testcase_session_methods.py): skipped under TF's setUp,
passed without a warning under a subclass's own setUp."""

from __future__ import annotations

import tfcluster as tf
from tf_reference import reference
from tf_reference.case_tools import same
from tf_reference.testcase_session_method_cases import CASES

AREA = "testcase_session_methods"


def test_test_session_run_as_a_test_is_as_in_tf() -> None:
    name = "test_session_run_as_a_test"
    same(CASES[name](tf), reference.case(AREA, name), name)
