"""Records TensorFlow 1.15's answers to the programs of variable_def_cases.py (a VariableDef
written from a variable whose `trainable` is not a bool): data/variable_defs.json.

    cd tests/tf_reference && /tmp/tf115/bin/python record_variable_defs.py
"""

from __future__ import annotations

from case_tools import record_tf115
from variable_def_cases import CASES

record_tf115("variable_defs", CASES)
