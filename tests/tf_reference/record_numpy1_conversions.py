"""Records TensorFlow 1.15's (numpy 1.18's) answers to the programs of
numpy1_conversion_cases.py (fetched arrays of one element used as Python numbers):
data/numpy1_conversions.json.

    cd tests/tf_reference && /tmp/tf115/bin/python record_numpy1_conversions.py
"""

from __future__ import annotations

from case_tools import record_tf115
from numpy1_conversion_cases import CASES

record_tf115("numpy1_conversions", CASES)
