"""Records TensorFlow 1.15's answers to the programs of function_while_cases.py
(tf.while_loop in a Dataset.map function): data/function_while.json.

    cd tests/tf_reference && /tmp/tf115/bin/python record_function_while.py
"""

from __future__ import annotations

from case_tools import record_tf115
from function_while_cases import CASES

record_tf115("function_while", CASES)
