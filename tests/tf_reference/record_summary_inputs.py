"""Records TensorFlow 1.15's answers to the programs of summary_input_cases.py (summary ops
given Python and numpy values): data/summary_inputs.json.

    cd tests/tf_reference && /tmp/tf115/bin/python record_summary_inputs.py
"""

from __future__ import annotations

from case_tools import record_tf115
from summary_input_cases import CASES

record_tf115("summary_inputs", CASES)
