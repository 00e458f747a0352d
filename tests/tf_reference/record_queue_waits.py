"""Records TensorFlow 1.15's answers to the programs of queue_wait_cases.py (a queue refilled
by a waiting enqueue within the dequeue that makes room): data/queue_waits.json.

    cd tests/tf_reference && /tmp/tf115/bin/python record_queue_waits.py
"""

from __future__ import annotations

from case_tools import record_tf115
from queue_wait_cases import CASES

record_tf115("queue_waits", CASES)
