"""Records TensorFlow 1.15's answers to program_optimizer_cases.py (optimizers a program
writes against TF's private modules): data/program_optimizers.json.

    cd tests/tf_reference && /tmp/tf115/bin/python record_program_optimizers.py
"""

from __future__ import annotations

from case_tools import record_tf115
from program_optimizer_cases import CASES

record_tf115("program_optimizers", CASES)
