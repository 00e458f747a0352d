"""Records TensorFlow 1.15's answers to the programs of public_sweep2_cases.py (behaviours of
Stanford's CS20 and MorvanZhou's TF1 tutorials): data/public_sweep2.json.

    cd tests/tf_reference && /tmp/tf115/bin/python record_public_sweep2.py
"""

from __future__ import annotations

from case_tools import record_tf115
from public_sweep2_cases import CASES

record_tf115("public_sweep2", CASES)
