"""Records TensorFlow 1.15's answers to the programs of queue_runner_start_cases.py (what
tf.train.start_queue_runners logs and raises): data/queue_runner_starts.json.

    cd tests/tf_reference && /tmp/tf115/bin/python record_queue_runner_starts.py
"""

from __future__ import annotations

from case_tools import record_tf115
from queue_runner_start_cases import CASES

record_tf115("queue_runner_starts", CASES)
