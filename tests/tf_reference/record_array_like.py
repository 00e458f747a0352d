"""Records TensorFlow 1.15's answers to the programs of array_like_cases.py (array-likes taken
as tensors, `tensorflow.python.data`): data/array_like.json.

    cd tests/tf_reference && /tmp/tf115/bin/python record_array_like.py
"""

from __future__ import annotations

from array_like_cases import CASES
from case_tools import record_tf115

record_tf115("array_like", CASES)
