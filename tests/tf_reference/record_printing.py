"""Records TensorFlow 1.15's answers to printing_cases.py (tf.print's formats, the names of
initialized_value): data/printing.json.

    cd tests/tf_reference && /tmp/tf115/bin/python record_printing.py
"""

from __future__ import annotations

from case_tools import record_tf115
from printing_cases import CASES

record_tf115("printing", CASES)
