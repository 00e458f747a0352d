"""Records TensorFlow 1.15's answers to the programs of range_dtype_cases.py (tf.range's
dtype): data/range_dtypes.json.

    cd tests/tf_reference && /tmp/tf115/bin/python record_range_dtypes.py
"""

from __future__ import annotations

from case_tools import record_tf115
from range_dtype_cases import CASES

record_tf115("range_dtypes", CASES)
