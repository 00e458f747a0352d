"""Records TensorFlow 1.15's answers to pooling_window_cases.py: data/pooling_windows.json.

cd tests/tf_reference && /tmp/tf115/bin/python record_pooling_windows.py
"""

from __future__ import annotations

from case_tools import record_tf115
from pooling_window_cases import CASES

record_tf115("pooling_windows", CASES)
