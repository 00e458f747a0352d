"""Records TensorFlow 1.15's answers to the programs of public_sweep5_cases.py:
data/public_sweep5.json.

    cd tests/tf_reference && /tmp/tf115/bin/python record_public_sweep5.py
"""

from __future__ import annotations

from case_tools import record_tf115
from public_sweep5_cases import CASES

record_tf115("public_sweep5", CASES)
