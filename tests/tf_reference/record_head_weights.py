"""Records TensorFlow 1.15's canned heads' weight columns (head_weight_cases.py):
data/head_weights.json.

    cd tests/tf_reference && /tmp/tf115/bin/python record_head_weights.py
"""

from __future__ import annotations

from case_tools import record_tf115
from head_weight_cases import CASES

record_tf115("head_weights", CASES)
