"""Records TensorFlow 1.15's answers to the programs of rl_program_cases.py (reductions of
public TF1 reinforcement-learning programs): data/rl_programs.json.

    cd tests/tf_reference && /tmp/tf115/bin/python record_rl_programs.py
"""

from __future__ import annotations

from case_tools import record_tf115
from rl_program_cases import CASES

record_tf115("rl_programs", CASES)
