"""Records TensorFlow 1.15's answers to the programs of variable_class_cases.py (the class
names of the variables TF1 programs make): data/variable_classes.json.

    cd tests/tf_reference && /tmp/tf115/bin/python record_variable_classes.py
"""

from __future__ import annotations

from case_tools import record_tf115
from variable_class_cases import CASES

record_tf115("variable_classes", CASES)
