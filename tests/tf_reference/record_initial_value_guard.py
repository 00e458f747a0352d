"""Records TensorFlow 1.15's guard of initial values reading other variables
(initial_value_guard_cases.py): data/initial_value_guard.json.

    cd tests/tf_reference && /tmp/tf115/bin/python record_initial_value_guard.py
"""

from __future__ import annotations

from case_tools import record_tf115
from initial_value_guard_cases import CASES

record_tf115("initial_value_guard", CASES)
