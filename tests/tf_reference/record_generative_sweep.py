"""Records TensorFlow 1.15's answers to the programs of generative_sweep_cases.py (behaviours of
public TF1 generative and sequence programs): data/generative_sweep.json.

    cd tests/tf_reference && /tmp/tf115/bin/python record_generative_sweep.py
"""

from __future__ import annotations

from case_tools import record_tf115
from generative_sweep_cases import CASES

record_tf115("generative_sweep", CASES)
