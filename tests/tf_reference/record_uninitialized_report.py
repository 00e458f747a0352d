"""Records TensorFlow 1.15's answers to uninitialized_report_cases.py (where the ops that
report uninitialized variables are placed): data/uninitialized_report.json.

    cd tests/tf_reference && /tmp/tf115/bin/python record_uninitialized_report.py
"""

from __future__ import annotations

from case_tools import record_tf115
from uninitialized_report_cases import CASES

record_tf115("uninitialized_report", CASES)
