"""The warning TF 1.15 logs when tf.metrics.auc builds a PR curve's area by the trapezoidal
rule (the default, which the v1 canned classifiers' auc_precision_recall uses): once for the
value and once for the update op; none for ROC or careful_interpolation. Each case is
`fn(tf) -> plain values`, run on TF 1.15 by record_auc_warning.py and on tfcluster by
tests/unit/test_auc_warning.py. Python 3.7 code."""

from __future__ import annotations

import logging

try:
    from tf_reference.case_tools import LoggedWarnings
except ImportError:  # run by the recorder from this folder
    from case_tools import LoggedWarnings


def _warnings_while(fn, *args, **kwargs):
    handler = LoggedWarnings()
    logger = logging.getLogger("tensorflow")
    level = logger.level
    logger.setLevel(logging.WARNING)
    logger.addHandler(handler)
    try:
        fn(*args, **kwargs)
    finally:
        logger.removeHandler(handler)
        logger.setLevel(level)
    return [m for m in handler.messages if "deprecat" not in m]


def auc_warnings(tf):
    out = {}
    for name, kwargs in (
        ("pr_default", {"curve": "PR"}),
        ("pr_trapezoidal", {"curve": "PR", "summation_method": "trapezoidal"}),
        ("pr_careful", {"curve": "PR", "summation_method": "careful_interpolation"}),
        ("roc", {"curve": "ROC"}),
    ):
        with tf.Graph().as_default():
            labels = tf.constant([True, False, True])
            scores = tf.constant([0.8, 0.3, 0.4])
            out[name] = _warnings_while(tf.metrics.auc, labels, scores, **kwargs)
    return out


CASES = {"auc_warnings": auc_warnings}
