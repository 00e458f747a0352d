"""Records TensorFlow 1.15's answers to the programs of bucketize_boundary_cases.py (values on
Bucketize boundaries): data/bucketize_boundary.json.

    cd tests/tf_reference && /tmp/tf115/bin/python record_bucketize_boundary.py
"""

from __future__ import annotations

from bucketize_boundary_cases import CASES
from case_tools import record_tf115

record_tf115("bucketize_boundary", CASES)
