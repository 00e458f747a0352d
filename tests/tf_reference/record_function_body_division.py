"""Records TensorFlow 1.15's answers to function_body_division_cases.py (divisions by a
constant in cond branches, loop bodies and dataset functions): data/function_body_division.json.

    cd tests/tf_reference && /tmp/tf115/bin/python record_function_body_division.py
"""

from __future__ import annotations

from case_tools import record_tf115
from function_body_division_cases import CASES

record_tf115("function_body_division", CASES)
