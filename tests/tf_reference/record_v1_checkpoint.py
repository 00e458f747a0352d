"""Records TensorFlow 1.15's answers to v1_checkpoint_cases.py (what a V1-format
Saver logs at each save): data/v1_checkpoint.json.

    cd tests/tf_reference && /tmp/tf115/bin/python record_v1_checkpoint.py
"""

from __future__ import annotations

from case_tools import record_tf115
from v1_checkpoint_cases import CASES

record_tf115("v1_checkpoint", CASES)
