"""Records TensorFlow 1.15's answers to the programs of executor_order_cases.py (steps whose
values depend on the order the executor runs unordered reads and writes of a variable):
data/executor_order.json.

    cd tests/tf_reference && /tmp/tf115/bin/python record_executor_order.py
"""

from __future__ import annotations

from case_tools import record_tf115
from executor_order_cases import CASES

record_tf115("executor_order", CASES)
