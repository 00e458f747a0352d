"""Records TensorFlow 1.15's answers to the programs of local_response_normalization_cases.py:
data/local_response_normalization.json.

    cd tests/tf_reference && /tmp/tf115/bin/python record_local_response_normalization.py
"""

from __future__ import annotations

from case_tools import record_tf115
from local_response_normalization_cases import CASES

record_tf115("local_response_normalization", CASES)
