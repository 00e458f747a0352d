"""Records TensorFlow 1.15's answers to the programs of neutral_operand_cases.py (additions of
zero replaced by their other operand): data/neutral_operands.json.

    cd tests/tf_reference && /tmp/tf115/bin/python record_neutral_operands.py
"""

from __future__ import annotations

from case_tools import record_tf115
from neutral_operand_cases import CASES

record_tf115("neutral_operands", CASES)
