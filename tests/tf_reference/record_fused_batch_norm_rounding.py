"""Records TensorFlow 1.15's answers to the programs of fused_batch_norm_rounding_cases.py
(FusedBatchNorm as its CPU kernel rounds it): data/fused_batch_norm_rounding.json.

    cd tests/tf_reference && /tmp/tf115/bin/python record_fused_batch_norm_rounding.py
"""

from __future__ import annotations

from case_tools import record_tf115
from fused_batch_norm_rounding_cases import CASES

record_tf115("fused_batch_norm_rounding", CASES)
