"""Records TensorFlow 1.15's answers to the programs of rlgan_sweep_cases.py (the order of
TF's CPU sums: BiasAddGrad, whole-tensor and long-row reductions, with two intra-op
threads): data/rlgan_sweep.json.

    cd tests/tf_reference && /tmp/tf115/bin/python record_rlgan_sweep.py
"""

from __future__ import annotations

from case_tools import record_tf115
from rlgan_sweep_cases import CASES

record_tf115("rlgan_sweep", CASES)
