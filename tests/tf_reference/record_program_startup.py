"""Records TensorFlow 1.15's answers to program_startup_cases.py (the version dunders and the
printed cluster protos a distributed program logs as it starts): data/program_startup.json.

    cd tests/tf_reference && /tmp/tf115/bin/python record_program_startup.py
"""

from __future__ import annotations

from case_tools import record_tf115
from program_startup_cases import CASES

record_tf115("program_startup", CASES)
