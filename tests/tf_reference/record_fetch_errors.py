"""Records TensorFlow 1.15's errors for the fetches of fetch_error_cases.py:
data/fetch_errors.json.

    cd tests/tf_reference && /tmp/tf115/bin/python record_fetch_errors.py
"""

from __future__ import annotations

from case_tools import record_tf115
from fetch_error_cases import CASES

record_tf115("fetch_errors", CASES)
