"""Records TF 1.15's recurrent networks trained by minimize() (rnn_training_op_count_cases.py):
op counts after the training op, seeded random values after it, the op types minimize() made,
losses and variables after three steps, into data/rnn_training_op_counts.json.

    cd tests/tf_reference && /tmp/tf115/bin/python record_rnn_training_op_counts.py
"""

from __future__ import annotations

from case_tools import record_tf115
from rnn_training_op_count_cases import CASES

record_tf115("rnn_training_op_counts", CASES)
