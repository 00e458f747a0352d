"""Records TensorFlow 1.15's answers to the programs of auc_warning_cases.py (the
trapezoidal PR-AUC warning): data/auc_warning.json.

    cd tests/tf_reference && /tmp/tf115/bin/python record_auc_warning.py
"""

from __future__ import annotations

from auc_warning_cases import CASES
from case_tools import record_tf115

record_tf115("auc_warning", CASES)
