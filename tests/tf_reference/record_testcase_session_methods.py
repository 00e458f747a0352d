"""Records TensorFlow 1.15's answers to the programs of testcase_session_method_cases.py (a
tf.test.TestCase's test_session run as a test): data/testcase_session_methods.json.

    cd tests/tf_reference && /tmp/tf115/bin/python record_testcase_session_methods.py
"""

from __future__ import annotations

from case_tools import record_tf115
from testcase_session_method_cases import CASES

record_tf115("testcase_session_methods", CASES)
