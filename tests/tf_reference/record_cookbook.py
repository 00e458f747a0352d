"""Records TensorFlow 1.15's answers to the programs of cookbook_cases.py (reductions of the
TF1 cookbook's regression and classification programs): data/cookbook.json.

    cd tests/tf_reference && /tmp/tf115/bin/python record_cookbook.py
"""

from __future__ import annotations

from case_tools import record_tf115
from cookbook_cases import CASES

record_tf115("cookbook", CASES)
