"""Records TensorFlow 1.15's answers to the programs of estimator_export_all_cases.py (an
Estimator's SavedModel with a MetaGraph per mode): data/estimator_export_all.json.

    cd tests/tf_reference && /tmp/tf115/bin/python record_estimator_export_all.py
"""

from __future__ import annotations

from case_tools import record_tf115
from estimator_export_all_cases import CASES

record_tf115("estimator_export_all", CASES)
