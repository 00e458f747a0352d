"""Records TensorFlow 1.15's nearest-neighbor resize gradients (upsampling_grad_cases.py):
data/upsampling_grad.json.

    cd tests/tf_reference && /tmp/tf115/bin/python record_upsampling_grad.py
"""

from __future__ import annotations

from case_tools import record_tf115
from upsampling_grad_cases import CASES

record_tf115("upsampling_grad", CASES)
