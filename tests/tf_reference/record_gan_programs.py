"""Records TensorFlow 1.15's answers to the programs of gan_program_cases.py (behaviours of a
DCGAN program): data/gan_programs.json.

    cd tests/tf_reference && /tmp/tf115/bin/python record_gan_programs.py
"""

from __future__ import annotations

from case_tools import record_tf115
from gan_program_cases import CASES

record_tf115("gan_programs", CASES)
