"""Records TensorFlow 1.15's answers to the programs of autopacking_cases.py (lists holding
tensors converted to another dtype): data/autopacking.json.

    cd tests/tf_reference && /tmp/tf115/bin/python record_autopacking.py
"""

from __future__ import annotations

from autopacking_cases import CASES
from case_tools import record_tf115

record_tf115("autopacking", CASES)
