"""Records TensorFlow 1.15's answers to the programs of checkpoint_pattern_cases.py (checkpoint
prefixes matched as file patterns, checkpoint mtimes): data/checkpoint_patterns.json.

    cd tests/tf_reference && /tmp/tf115/bin/python record_checkpoint_patterns.py
"""

from __future__ import annotations

from case_tools import record_tf115
from checkpoint_pattern_cases import CASES

record_tf115("checkpoint_patterns", CASES)
