"""Records TensorFlow 1.15's answers to the programs of nlp_sweep_cases.py (behaviours of public
text and sequence TF1 programs): data/nlp_sweep.json.

    cd tests/tf_reference && /tmp/tf115/bin/python record_nlp_sweep.py
"""

from __future__ import annotations

from case_tools import record_tf115
from nlp_sweep_cases import CASES

record_tf115("nlp_sweep", CASES)
