"""Records TensorFlow 1.15's answers to the programs of vision_sweep3_cases.py (behaviours of
public TF1 vision programs, third sweep): data/vision_sweep3.json.

    cd tests/tf_reference && /tmp/tf115/bin/python record_vision_sweep3.py
"""

from __future__ import annotations

from case_tools import record_tf115
from vision_sweep3_cases import CASES

record_tf115("vision_sweep3", CASES)
