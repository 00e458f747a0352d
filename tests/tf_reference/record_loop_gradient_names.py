"""Records TensorFlow 1.15's names of a v1 while loop's gradients of its invariants
(loop_gradient_name_cases.py): data/loop_gradient_names.json.

    cd tests/tf_reference && /tmp/tf115/bin/python record_loop_gradient_names.py
"""

from __future__ import annotations

from case_tools import record_tf115
from loop_gradient_name_cases import CASES

record_tf115("loop_gradient_names", CASES)
