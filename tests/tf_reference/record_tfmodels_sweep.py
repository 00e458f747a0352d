"""Records TensorFlow 1.15's answers to the programs of tfmodels_sweep_cases.py (float32 roots
of Eigen's fast-math packets in tf.sqrt, tf.math.rsqrt and the optimizers' updates):
data/tfmodels_sweep.json.

    cd tests/tf_reference && /tmp/tf115/bin/python record_tfmodels_sweep.py
"""

from __future__ import annotations

from case_tools import record_tf115
from tfmodels_sweep_cases import CASES

record_tf115("tfmodels_sweep", CASES)
