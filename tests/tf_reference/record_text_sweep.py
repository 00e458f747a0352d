"""Records TensorFlow 1.15's answers to the programs of text_sweep_cases.py (behaviours of
public text, graph and recommender TF1 programs): data/text_sweep.json.

    cd tests/tf_reference && /tmp/tf115/bin/python record_text_sweep.py
"""

from __future__ import annotations

from case_tools import record_tf115
from text_sweep_cases import CASES

record_tf115("text_sweep", CASES)
