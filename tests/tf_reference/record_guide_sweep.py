"""Records TensorFlow 1.15's answers to the programs of guide_sweep_cases.py (behaviours of
the r1 guides and tutorials of tensorflow/docs): data/guide_sweep.json.

    cd tests/tf_reference && /tmp/tf115/bin/python record_guide_sweep.py
"""

from __future__ import annotations

from case_tools import record_tf115
from guide_sweep_cases import CASES

record_tf115("guide_sweep", CASES)
