"""Records TensorFlow 1.15's bits for the programs of sparse_update_rounding_cases.py (a
variable after sparse Adagrad steps): data/sparse_update_rounding.json.

    cd tests/tf_reference && /tmp/tf115/bin/python record_sparse_update_rounding.py
"""

from __future__ import annotations

from case_tools import record_tf115
from sparse_update_rounding_cases import CASES

record_tf115("sparse_update_rounding", CASES)
