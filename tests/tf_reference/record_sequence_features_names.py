"""Records TensorFlow 1.15's SequenceFeatures names, errors and later seeded draws
(sequence_features_names_cases.py): data/sequence_features_names.json.

    cd tests/tf_reference && /tmp/tf115/bin/python record_sequence_features_names.py
"""

from __future__ import annotations

from case_tools import record_tf115
from sequence_features_names_cases import CASES

record_tf115("sequence_features_names", CASES)
