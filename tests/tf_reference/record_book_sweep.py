"""Records TensorFlow 1.15's answers to the programs of book_sweep_cases.py:
data/book_sweep.json.

    cd tests/tf_reference && /tmp/tf115/bin/python record_book_sweep.py
"""

from __future__ import annotations

from book_sweep_cases import CASES
from case_tools import record_tf115

record_tf115("book_sweep", CASES)
