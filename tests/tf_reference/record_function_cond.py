"""Records TensorFlow 1.15's answers to the programs of function_cond_cases.py (tf.cond in a
Dataset.map function, and in a graph): data/function_cond.json.

    cd tests/tf_reference && /tmp/tf115/bin/python record_function_cond.py
"""

from __future__ import annotations

from case_tools import record_tf115
from function_cond_cases import CASES

record_tf115("function_cond", CASES)
