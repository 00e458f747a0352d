"""Records TensorFlow 1.15's answers to the programs of narrow_conv_cases.py (float32
convolutions of few output channels as its CPU kernels round them): data/narrow_convs.json.

    cd tests/tf_reference && /tmp/tf115/bin/python record_narrow_convs.py
"""

from __future__ import annotations

from case_tools import record_tf115
from narrow_conv_cases import CASES

record_tf115("narrow_convs", CASES)
