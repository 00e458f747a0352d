"""Records TensorFlow 1.15's answers to the programs of private_module_cases.py (modules of
TF's private tree that programs import by path): data/private_modules.json.

    cd tests/tf_reference && /tmp/tf115/bin/python record_private_modules.py
"""

from __future__ import annotations

from case_tools import record_tf115
from private_module_cases import CASES

record_tf115("private_modules", CASES)
