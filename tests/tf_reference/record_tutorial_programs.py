"""Records TensorFlow 1.15's answers to the programs of tutorial_program_cases.py (parts of
public TF1 tutorials): data/tutorial_programs.json.

    cd tests/tf_reference && /tmp/tf115/bin/python record_tutorial_programs.py
"""

from __future__ import annotations

from case_tools import record_tf115
from tutorial_program_cases import CASES

record_tf115("tutorial_programs", CASES)
