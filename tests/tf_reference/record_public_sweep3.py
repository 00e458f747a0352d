"""Records TensorFlow 1.15's answers to the programs of public_sweep3_cases.py (behaviours of
MorvanZhou's, golbin's and sjchoi86's TF1 tutorials): data/public_sweep3.json.

    cd tests/tf_reference && /tmp/tf115/bin/python record_public_sweep3.py
"""

from __future__ import annotations

from case_tools import record_tf115
from public_sweep3_cases import CASES

record_tf115("public_sweep3", CASES)
