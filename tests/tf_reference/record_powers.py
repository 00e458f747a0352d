"""Records TensorFlow 1.15's answers to the programs of power_cases.py (float32 Pow and
grappler's rewrites of constant powers): data/powers.json.

    cd tests/tf_reference && /tmp/tf115/bin/python record_powers.py
"""

from __future__ import annotations

from case_tools import record_tf115
from power_cases import CASES

record_tf115("powers", CASES)
