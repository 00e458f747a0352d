"""Records TensorFlow 1.15's answers to the programs of classifier_constructor_cases.py (the
ops a canned classifier's constructor adds to the default graph): data/classifier_constructors.json.

    cd tests/tf_reference && /tmp/tf115/bin/python record_classifier_constructors.py
"""

from __future__ import annotations

from case_tools import record_tf115
from classifier_constructor_cases import CASES

record_tf115("classifier_constructors", CASES)
