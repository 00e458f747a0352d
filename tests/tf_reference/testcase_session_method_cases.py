"""A tf.test.TestCase subclass whose setUp does not call TF's runs test_session as a test
(unittest takes any method named test_*): TF 1.15 reports it passed, with no warning; with
TF's setUp it is skipped ("Not a test."). Each case is `fn(tf) -> dict of plain values`, run on
TF 1.15 by record_testcase_session_methods.py and on tfcluster by
tests/unit/test_testcase_session_method.py. Python 3.7 code."""

from __future__ import annotations

import io
import unittest
import warnings


def _outcome(tf, own_setup):
    class Case(tf.test.TestCase):
        def testNothing(self):
            self.assertTrue(True)

    if own_setup:

        def setUp(self):
            self.value = 1

        Case.setUp = setUp
    suite = unittest.defaultTestLoader.loadTestsFromTestCase(Case)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = unittest.TextTestRunner(stream=io.StringIO(), verbosity=0).run(suite)
    return {
        "run": result.testsRun,
        "failures": len(result.failures),
        "errors": len(result.errors),
        "skipped": sorted(t.id().rsplit(".", 1)[-1] for t, _ in result.skipped),
        "warnings": [
            str(w.message).split(" (")[0]
            for w in caught
            if issubclass(w.category, DeprecationWarning) and "test case" in str(w.message)
        ],
    }


def test_session_run_as_a_test(tf):
    return {"own_setup": _outcome(tf, True), "tf_setup": _outcome(tf, False)}


CASES = {"test_session_run_as_a_test": test_session_run_as_a_test}
