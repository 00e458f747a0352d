"""Records TensorFlow 1.15's answers to the programs of misc_sweep_cases.py (behaviours of
public TF1 programs: which collections a MetaGraph keeps, the warnings for the others):
data/misc_sweep.json.

    cd tests/tf_reference && /tmp/tf115/bin/python record_misc_sweep.py
"""

from __future__ import annotations

from case_tools import record_tf115
from misc_sweep_cases import CASES

record_tf115("misc_sweep", CASES)
