"""Records TensorFlow 1.15's answers to the programs of tf1_program_cases.py (parts of TF's
own TF1 examples: candidate samplers, nce_loss, the gradient graph of an optimizer):
data/tf1_programs.json.

    cd tests/tf_reference && /tmp/tf115/bin/python record_tf1_programs.py
"""

from __future__ import annotations

from case_tools import record_tf115
from tf1_program_cases import CASES

record_tf115("tf1_programs", CASES)
