"""Records TensorFlow 1.15's answers to canned_batch_norm_cases.py: data/canned_batch_norm.json.

cd tests/tf_reference && /tmp/tf115/bin/python record_canned_batch_norm.py
"""

from __future__ import annotations

from canned_batch_norm_cases import CASES
from case_tools import record_tf115

record_tf115("canned_batch_norm", CASES)
