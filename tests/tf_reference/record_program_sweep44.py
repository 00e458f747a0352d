"""Records TensorFlow 1.15's answers to the programs of program_sweep44_cases.py (behaviours
of public TF1 programs: pix2pix, seq2seq signal prediction, Transformer, RL estimators):
data/program_sweep44.json.

    cd tests/tf_reference && /tmp/tf115/bin/python record_program_sweep44.py
"""

from __future__ import annotations

from case_tools import record_tf115
from program_sweep44_cases import CASES

record_tf115("program_sweep44", CASES)
