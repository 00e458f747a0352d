"""Records TensorFlow 1.15's answers to the programs of variable_read_aliasing_cases.py (a
variable's read seeing an Assign of the same step): data/variable_read_aliasing.json.

    cd tests/tf_reference && /tmp/tf115/bin/python record_variable_read_aliasing.py
"""

from __future__ import annotations

from case_tools import record_tf115
from variable_read_aliasing_cases import CASES

record_tf115("variable_read_aliasing", CASES)
