"""Records TensorFlow 1.15's errors for None given as an op's input (programs in
none_input_cases.py): data/none_inputs.json.

    cd tests/tf_reference && /tmp/tf115/bin/python record_none_inputs.py
"""

from __future__ import annotations

from case_tools import record_tf115
from none_input_cases import CASES

record_tf115("none_inputs", CASES)
