"""Records TF 1.15's answers to dimension_cases.py into data/dimension_operators.json (TF 1.15
only: `cd tests/tf_reference && /tmp/tf115/bin/python record_dimension_operators.py`)."""

from __future__ import annotations

from case_tools import record_tf115
from dimension_cases import CASES

record_tf115("dimension_operators", CASES)
