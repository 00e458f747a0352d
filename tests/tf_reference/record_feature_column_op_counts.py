"""Records TensorFlow 1.15's op counts, ops, values and seeded draws after the feature-column
graphs of feature_column_op_count_cases.py: data/feature_column_op_counts.json.

    cd tests/tf_reference && /tmp/tf115/bin/python record_feature_column_op_counts.py
"""

from __future__ import annotations

from case_tools import record_tf115
from feature_column_op_count_cases import CASES

record_tf115("feature_column_op_counts", CASES)
