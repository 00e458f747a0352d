"""Records TensorFlow 1.15's answers to the programs of dataset_seed_warning_cases.py (the
warning about the outer graph's seed in tf.data functions): data/dataset_seed_warning.json.

    cd tests/tf_reference && /tmp/tf115/bin/python record_dataset_seed_warning.py
"""

from __future__ import annotations

from case_tools import record_tf115
from dataset_seed_warning_cases import CASES

record_tf115("dataset_seed_warning", CASES)
