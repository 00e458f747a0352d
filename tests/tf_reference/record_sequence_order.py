"""Records the order in which TensorFlow 1.15's fit_generator / evaluate_generator take a
keras.utils.Sequence's batches (programs in sequence_order_cases.py):
data/sequence_order.json.

    cd tests/tf_reference && /tmp/tf115/bin/python record_sequence_order.py
"""

from __future__ import annotations

from case_tools import record_tf115
from sequence_order_cases import CASES

record_tf115("sequence_order", CASES)
