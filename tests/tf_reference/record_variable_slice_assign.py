"""Records TensorFlow 1.15's answers to the programs of variable_slice_assign_cases.py (sliced
assignment to ref and resource variables): data/variable_slice_assign.json.

    cd tests/tf_reference && /tmp/tf115/bin/python record_variable_slice_assign.py
"""

from __future__ import annotations

from case_tools import record_tf115
from variable_slice_assign_cases import CASES

record_tf115("variable_slice_assign", CASES)
