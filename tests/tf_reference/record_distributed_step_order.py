"""Records TensorFlow 1.15's answers to the programs of distributed_step_order_cases.py
(between-graph training steps on a ps and a worker server): data/distributed_step_order.json.

    cd tests/tf_reference && /tmp/tf115/bin/python record_distributed_step_order.py
"""

from __future__ import annotations

from case_tools import record_tf115
from distributed_step_order_cases import CASES

record_tf115("distributed_step_order", CASES)
