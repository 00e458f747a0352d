"""Records TensorFlow 1.15's answers to the programs of feature_column_repr_cases.py (how
feature columns print): data/feature_column_repr.json.

    cd tests/tf_reference && /tmp/tf115/bin/python record_feature_column_repr.py
"""

from __future__ import annotations

from case_tools import record_tf115
from feature_column_repr_cases import CASES

record_tf115("feature_column_repr", CASES)
