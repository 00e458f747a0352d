"""Records TensorFlow 1.15's answers to the programs of loop_gather_gradient_cases.py (a v1 loop
whose body gathers from a tensor outside it): data/loop_gather_gradient.json.

    cd tests/tf_reference && /tmp/tf115/bin/python record_loop_gather_gradient.py
"""

from __future__ import annotations

from case_tools import record_tf115
from loop_gather_gradient_cases import CASES

record_tf115("loop_gather_gradient", CASES)
