"""Records TensorFlow 1.15's answers to the programs of handson_program_cases.py (behaviours
of a machine-learning book's TF1 chapter notebooks): data/handson_programs.json.

    cd tests/tf_reference && /tmp/tf115/bin/python record_handson_programs.py
"""

from __future__ import annotations

from case_tools import record_tf115
from handson_program_cases import CASES

record_tf115("handson_programs", CASES)
