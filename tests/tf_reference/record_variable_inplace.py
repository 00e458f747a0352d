"""Records TensorFlow 1.15's in-place operators on variables (programs in
variable_inplace_cases.py): data/variable_inplace.json.

    cd tests/tf_reference && /tmp/tf115/bin/python record_variable_inplace.py
"""

from __future__ import annotations

from case_tools import record_tf115
from variable_inplace_cases import CASES

record_tf115("variable_inplace", CASES)
