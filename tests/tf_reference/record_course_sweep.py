"""Records TensorFlow 1.15's answers to the programs of course_sweep_cases.py (behaviours of
public TF1 course programs): data/course_sweep.json.

    cd tests/tf_reference && /tmp/tf115/bin/python record_course_sweep.py
"""

from __future__ import annotations

from case_tools import record_tf115
from course_sweep_cases import CASES

record_tf115("course_sweep", CASES)
