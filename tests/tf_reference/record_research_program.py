"""Records TensorFlow 1.15's answers to the programs of research_program_cases.py:
data/research_program.json.

    cd tests/tf_reference && /tmp/tf115/bin/python record_research_program.py
"""

from __future__ import annotations

from case_tools import record_tf115
from research_program_cases import CASES

record_tf115("research_program", CASES)
