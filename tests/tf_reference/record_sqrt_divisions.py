"""Records TensorFlow 1.15's answers to the programs of sqrt_division_cases.py (divisions by
a square root, which grappler turns into products by Rsqrt): data/sqrt_divisions.json.

    cd tests/tf_reference && /tmp/tf115/bin/python record_sqrt_divisions.py
"""

from __future__ import annotations

from case_tools import record_tf115
from sqrt_division_cases import CASES

record_tf115("sqrt_divisions", CASES)
